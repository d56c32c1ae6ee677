/**
 * MCP's Enterprise-Managed Authorization (extension `io.modelcontextprotocol/enterprise-managed-authorization`) with
 * MCP client SDKs nobody here wrote, against this product in both roles. Tenant A is the enterprise identity provider:
 * a person signs in there, and the MCP host (a confidential client of A) holds their ID token. Tenant B is the
 * authorization server of the sample MCP server (its resource is the MCP endpoint's URL); B trusts A's assertions and
 * knows A's people through links to its own users.
 *
 * The official TypeScript SDK (@modelcontextprotocol/client, its CrossAppAccessProvider unchanged) does the rest on
 * the MCP server's 401: RFC 9728 protected resource metadata, RFC 8414 metadata of B, an RFC 8693 token exchange at A
 * for an Identity Assertion Authorization Grant (ID-JAG) naming B's issuer and the MCP resource, then the RFC 7523
 * JWT bearer grant at B; its Client then calls a tool, which reports the caller as B's user. The Python SDK (PyPI
 * `mcp`, its IdentityAssertionOAuthProvider) does leg 2 the same way; leg 1 (the exchange at A) is the host's own
 * code there, as that SDK leaves it (e2e/src/mcp/python/enterprise_managed_client.py).
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  auth,
  Client,
  CrossAppAccessProvider,
  discoverAndRequestJwtAuthGrant,
  StreamableHTTPClientTransport,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { createClient, freePort, repoRoot, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { browserlessLogin } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startMcpServer, type McpServerProcess } from '../../src/mcp/mcp-server-process';

jest.setTimeout(120_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const MCP_TOOLS = 'mcp:tools';
const MCP_ADMIN = 'mcp:admin';
const HOST_REDIRECT = 'http://127.0.0.1:8400/mcp-host/callback';
/** The MCP host's client_id at B (A writes it into the ID-JAG's client_id). */
const HOST_AT_B = 'org-a-mcp-host';

const PY_DRIVER = join(repoRoot(), 'e2e', 'src', 'mcp', 'python', 'enterprise_managed_client.py');
const PY_MCP = join(repoRoot(), '.tools', 'py-mcp', 'bin', 'python');
/** The Python test needs an interpreter with venv (scripts/tools.sh py-mcp builds .tools/py-mcp from PyPI with it). */
const pythonWithVenv = (() => {
  for (const py of [process.env.PYTHON, 'python3', '/usr/bin/python3']) {
    if (!py) continue;
    try {
      execFileSync(py, ['-c', 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 11) else 1)'], {
        stdio: 'ignore',
      });
      return true;
    } catch {
      // the next candidate
    }
  }
  return false;
})();
if (!pythonWithVenv)
  console.warn(
    'mcp-enterprise-managed: no python3 >= 3.11 with venv on this machine: the Python MCP SDK test is SKIPPED',
  );
const itWithPython = pythonWithVenv ? it : it.skip;

let h: Harness;
let b: SeededTenant;
let mcp: McpServerProcess;
let issuerA = '';
let issuerB = '';
let resource = '';
/** The MCP host: A's confidential client (client_secret_post: how the SDK authenticates at the identity provider). */
let hostAtA: { clientId: string; clientSecret: string };
/** The same host at B: the client the JWT bearer grant authenticates (client_secret_basic, the SDK's choice at B). */
let hostAtB: { clientId: string; clientSecret: string };

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  h = await startHarness('mcp-ema', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } });
  const { models } = h.db;
  const keyStore = new KeyStore(models, new KeyEncryptionKey(h.topology.secrets.keyEncryptionKey));
  b = await seedDelegationTenant(models, keyStore, {
    tenantId: randomInt(10_000, 1_000_000),
    tenantName: 'e2e-mcp-ema-b',
    clientSecretPepper: h.topology.secrets.clientSecretPepper,
  });
  issuerA = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  issuerB = `${h.topology.baseUrl}/auth/${b.tenantId}`;

  // A: the MCP host signs people in and may obtain ID-JAGs for B's MCP server, with mcp:tools at most.
  hostAtA = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: h.tenant.tenantId,
    clientId: 'mcp-host',
    name: 'MCP host',
    grantTypes: ['authorization_code', TOKEN_EXCHANGE],
    redirectUris: [HOST_REDIRECT],
    tokenEndpointAuthMethod: 'client_secret_post',
    firstParty: true,
  });
  await models.IdJagAudience.create({
    tenantId: h.tenant.tenantId,
    audience: issuerB,
    resources: [resource],
    clients: [{ clientId: hostAtA.clientId, clientIdAtAudience: HOST_AT_B }],
    scopes: [MCP_TOOLS],
  });

  // B: the MCP server is a resource server with two scopes; B's user holds both through a role.
  await models.ResourceServer.create({
    tenantId: b.tenantId,
    identifier: resource,
    name: 'Orders MCP server',
    scopes: [MCP_TOOLS, MCP_ADMIN],
    config: { accessToken: { lifetime: 3600 } },
  });
  const role = await models.Role.create({
    tenantId: b.tenantId,
    name: 'mcp-user',
    resourceServer: resource,
    permissions: [MCP_TOOLS, MCP_ADMIN],
  });
  await models.User.updateOne({ tenantId: b.tenantId, _id: b.user.id }, { $push: { roleIds: String(role._id) } });
  // B: A's people are linked to B's users through an upstream provider for A, and A is a trusted issuer.
  await models.UpstreamProvider.create({
    tenantId: b.tenantId,
    alias: 'org-a',
    displayName: 'Org A',
    type: 'oidc',
    oidc: {
      issuer: issuerA,
      clientId: 'b-at-a',
      clientAuthMethod: 'client_secret_basic',
      scopes: ['openid'],
      pkce: true,
      subjectClaim: 'sub',
      fetchUserinfo: false,
    },
  });
  await models.UpstreamLink.create({
    tenantId: b.tenantId,
    provider: 'org-a',
    subject: h.tenant.user.id,
    issuer: issuerA,
    userId: b.user.id,
    linkedBy: 'admin',
  });
  await models.TrustedIssuer.create({
    tenantId: b.tenantId,
    issuer: issuerA,
    jwksUri: `${issuerA}/jwks`,
    algorithms: ['RS256', 'ES256'],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'org-a',
  });
  hostAtB = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: b.tenantId,
    clientId: HOST_AT_B,
    name: 'Org A MCP host',
    grantTypes: [JWT_BEARER],
    redirectUris: [],
  });
  mcp = await startMcpServer({ port, issuer: issuerB });
}, 120_000);

afterAll(async () => {
  await ifAssigned(mcp)?.stop();
  await ifAssigned(h)?.stop();
});

/** The person signs in at A through the MCP host; the host keeps the ID token. */
const idTokenAtA = async () =>
  (
    await browserlessLogin({
      baseUrl: h.topology.baseUrl,
      tenantId: h.tenant.tenantId,
      clientId: hostAtA.clientId,
      clientSecret: hostAtA.clientSecret,
      tokenEndpointAuthMethod: 'client_secret_post',
      redirectUri: HOST_REDIRECT,
      username: h.tenant.user.username,
      password: h.tenant.user.password,
      scope: 'openid',
    })
  ).id_token!;

interface Exchange {
  method: string;
  url: string;
  status: number;
  basicAuth: boolean;
  form?: URLSearchParams;
}

/** A fetch that records what the SDK sent and what came back (observed, never changed). */
function observedFetch(log: Exchange[]): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    const headers = new Headers(init?.headers);
    const body = init?.body;
    log.push({
      method: init?.method ?? 'GET',
      url: String(url),
      status: res.status,
      basicAuth: /^Basic /.test(headers.get('authorization') ?? ''),
      ...(typeof body === 'string' || body instanceof URLSearchParams ? { form: new URLSearchParams(body) } : {}),
    });
    return res;
  };
}

/** The SDK's provider as its documentation shows it: the ID-JAG from A's token endpoint, found by RFC 8414 discovery. */
function crossAppAccess(idToken: string, issued: string[], fetchFn: FetchLike) {
  return new CrossAppAccessProvider({
    assertion: async (ctx) => {
      const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
        idpUrl: issuerA,
        audience: ctx.authorizationServerUrl,
        resource: ctx.resourceUrl,
        idToken,
        clientId: hostAtA.clientId,
        clientSecret: hostAtA.clientSecret,
        ...(ctx.scope ? { scope: ctx.scope } : {}),
        fetchFn: ctx.fetchFn,
      });
      issued.push(jwtAuthGrant);
      return jwtAuthGrant;
    },
    clientId: hostAtB.clientId,
    clientSecret: hostAtB.clientSecret,
    expectedIssuer: issuerB,
    fetchFn,
  });
}

const tokenEndpoint = (issuer: string) => `${issuer}/oidc/token`;

it("TypeScript SDK: the CrossAppAccessProvider gets an ID-JAG from A, redeems it at B, and the tool sees B's user", async () => {
  const exchanges: Exchange[] = [];
  const issued: string[] = [];
  const fetchFn = observedFetch(exchanges);
  const provider = crossAppAccess(await idTokenAtA(), issued, fetchFn);
  const client = new Client({ name: 'ema-e2e-host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider, fetch: fetchFn });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'whoami' });
    // The MCP server verified B's token: the caller is B's user (A's person, through the link), the host's client at B.
    expect(result.structuredContent).toMatchObject({
      sub: b.user.id,
      client_id: HOST_AT_B,
      scope: MCP_TOOLS,
      delegated: false,
    });
  } finally {
    await client.close();
  }

  // One ID-JAG, from A, for B and exactly the MCP resource, for the host's client at B.
  expect(issued).toHaveLength(1);
  expect(decodeProtectedHeader(issued[0]!).typ).toBe('oauth-id-jag+jwt');
  expect(decodeJwt(issued[0]!)).toMatchObject({
    iss: issuerA,
    sub: h.tenant.user.id,
    aud: issuerB,
    resource,
    client_id: HOST_AT_B,
    scope: MCP_TOOLS,
  });
  // B's access token: B's user, audience the MCP resource, only what the ID-JAG allowed (B's user also holds mcp:admin).
  const at = decodeJwt(provider.tokens()!.access_token);
  expect(at).toMatchObject({ iss: issuerB, sub: b.user.id, aud: resource, client_id: HOST_AT_B, scope: MCP_TOOLS });
  expect(provider.tokens()!.refresh_token).toBeUndefined();

  // The wire, as the SDK drove it: the 401, the resource's metadata, B's RFC 8414 metadata, the exchange at A (client
  // authentication in the form, the SDK's way at an identity provider), the JWT bearer grant at B (HTTP Basic, the SDK's
  // first choice when B's metadata lists it) with the resource indicator, then the MCP request with B's token.
  const tokenCalls = exchanges.filter((e) => e.method === 'POST' && e.url.endsWith('/oidc/token'));
  expect(tokenCalls.map((e) => [e.url, e.status, e.form?.get('grant_type')])).toEqual([
    [tokenEndpoint(issuerA), 200, TOKEN_EXCHANGE],
    [tokenEndpoint(issuerB), 200, JWT_BEARER],
  ]);
  expect(tokenCalls[0]).toMatchObject({ basicAuth: false });
  expect(tokenCalls[0]!.form?.get('client_id')).toBe(hostAtA.clientId);
  expect(tokenCalls[1]).toMatchObject({ basicAuth: true });
  expect(tokenCalls[1]!.form?.get('resource')).toBe(resource);
  expect(exchanges.map((e) => e.url)).toEqual(
    expect.arrayContaining([
      `${mcp.origin}/.well-known/oauth-protected-resource/mcp`,
      `${h.topology.baseUrl}/.well-known/oauth-authorization-server/auth/${b.tenantId}`,
    ]),
  );
});

it("TypeScript SDK: a host asking for more than A's table allows gets only that, at A and at B", async () => {
  const issued: string[] = [];
  const provider = crossAppAccess(await idTokenAtA(), issued, fetch);
  // The SDK's own auth() with a scope of the host's choosing (what a 403 insufficient_scope step-up does).
  await expect(auth(provider, { serverUrl: mcp.url, scope: `${MCP_TOOLS} ${MCP_ADMIN}` })).resolves.toBe('AUTHORIZED');
  expect(decodeJwt(issued[0]!).scope).toBe(MCP_TOOLS);
  expect(decodeJwt(provider.tokens()!.access_token)).toMatchObject({ aud: resource, scope: MCP_TOOLS });
  expect(provider.tokens()!.scope).toBe(MCP_TOOLS);
});

it('TypeScript SDK: A refuses an ID-JAG for a resource its table does not list, and the SDK surfaces invalid_target', async () => {
  const { models } = h.db;
  await models.IdJagAudience.updateOne(
    { tenantId: h.tenant.tenantId, audience: issuerB },
    { $set: { resources: ['https://mcp.elsewhere.example/mcp'] } },
  );
  const client = new Client({ name: 'ema-e2e-host', version: '1.0.0' });
  try {
    const provider = crossAppAccess(await idTokenAtA(), [], fetch);
    const transport = new StreamableHTTPClientTransport(new URL(mcp.url), { authProvider: provider });
    await expect(client.connect(transport)).rejects.toThrow(/Token exchange failed: invalid_target/);
    expect(provider.tokens()).toBeUndefined();
  } finally {
    await client.close().catch(() => undefined);
    await models.IdJagAudience.updateOne(
      { tenantId: h.tenant.tenantId, audience: issuerB },
      { $set: { resources: [resource] } },
    );
  }
});

/** The Python driver's one line of JSON (stdout) and its diagnostics (stderr). */
function runPython(env: Record<string, string>, timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PY_MCP, [PY_DRIVER], {
      env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) console.error(`python driver exited ${code}:\n${err}`);
      resolve({ code, out });
    });
  });
}

itWithPython(
  "Python SDK: the IdentityAssertionOAuthProvider redeems A's ID-JAG at B, and the tool sees B's user",
  async () => {
    // .tools/py-mcp: mcp from PyPI at the pinned versions and hashes (a no-op when current).
    execFileSync('bash', [join(repoRoot(), 'scripts', 'tools.sh'), 'py-mcp'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const run = await runPython({
      MCP_URL: mcp.url,
      AS_ISSUER: issuerB,
      AS_CLIENT_ID: hostAtB.clientId,
      AS_CLIENT_SECRET: hostAtB.clientSecret,
      IDP_ISSUER: issuerA,
      IDP_CLIENT_ID: hostAtA.clientId,
      IDP_CLIENT_SECRET: hostAtA.clientSecret,
      ID_TOKEN: await idTokenAtA(),
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.out) as {
      sdk: string;
      caller: Record<string, unknown>;
      id_jag: string;
      access_token: string;
    };
    expect(result.sdk).toMatch(/^mcp \d+\.\d+\.\d+/);
    expect(result.caller).toMatchObject({ sub: b.user.id, client_id: HOST_AT_B, scope: MCP_TOOLS, delegated: false });
    expect(decodeJwt(result.id_jag)).toMatchObject({ iss: issuerA, aud: issuerB, resource, client_id: HOST_AT_B });
    expect(decodeJwt(result.access_token)).toMatchObject({ iss: issuerB, sub: b.user.id, aud: resource });
  },
);
