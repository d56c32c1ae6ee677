/**
 * An agent across two organisations, two tenants of this product: tenant A is the enterprise identity provider (where
 * the person and the agent are known), tenant B the authorization server of an MCP server (the sample one, its own
 * process). The person signs in at A; A's client gets a delegation token for the agent (RFC 8693 token exchange, the
 * NHE named); the agent's client presents that delegation token to A's token endpoint for an Identity Assertion
 * Authorization Grant for B's MCP server (the ID-JAG carries the delegation token's `act` and `agent`); B redeems it
 * with the JWT bearer grant (RFC 7523) into B's own delegation token for the NHE B registered for A's agent, gated
 * by B's tenant, client and NHE settings and B's delegation policy; the MCP server's tool sees the person (B's user,
 * through the link) and the agent (`act.sub`). Both tenants audit it: A the ID-JAG issued, B the token redeemed.
 *
 * Revocation across: B subscribes to A's OpenID Shared Signals transmitter (SSF 1.0, RFC 8936 poll) with a client B
 * holds at A; A disabling its agent becomes B's kill-switch entries for exactly the B tokens minted from that agent's
 * assertions, which B's own transmitter tells the MCP server's poll receiver: the agent is stopped at B within A's poll
 * interval plus the MCP server's, while another agent of A keeps working there.
 */
import { randomInt } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { REVOCATION_COLLECTION } from '@idp/events';
import { createClient, freePort, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore, SSF_AUDIENCE } from '@idp/tokens';
import { basicAuth, browserlessLogin, clientCredentialsToken } from '../../src/clients/browserless-login';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startMcpServer, type McpServerProcess } from '../../src/mcp/mcp-server-process';

jest.setTimeout(120_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const MCP_TOOLS = 'mcp:tools';
/** A's agent is `orders-agent` (seeded); B registers it as its own NHE under this identifier. */
const AGENT_AT_B = 'org-a-orders-agent';
/** The client A's agent authenticates with at B (A writes it into the ID-JAG's client_id). */
const AGENT_CLIENT_AT_B = 'org-a-orders-agent-client';
/**
 * A second agent of A (`billing-agent`, through A's client `billing-app`), B's NHE for it and its client at B: the
 * tokens it holds at B must outlive the revocation of the first agent (the bridge revokes narrowly).
 */
const OTHER_AGENT_AT_A = 'billing-agent';
const OTHER_CLIENT_AT_A = 'billing-app';
const OTHER_AGENT_AT_B = 'org-a-billing-agent';
const OTHER_AGENT_CLIENT_AT_B = 'org-a-billing-agent-client';
/** The MCP server's SSF poll interval (its receiver of B's revocations). */
const MCP_POLL_MS = 500;
/** B's poll interval at A's transmitter (pollIntervalSeconds of B's subscription). */
const BRIDGE_POLL_SECONDS = 1;
/**
 * A's revocation reaches the MCP server in: A's transmitter queues the SET (NATS, at once), B's signals service
 * polls it (at most one bridge interval), maps it to B's kill-switch entry and B's transmitter queues that (at once),
 * the MCP server polls it (at most one of its intervals); the margin covers the hops in between on a loaded machine.
 */
const PROPAGATION_MARGIN_MS = 2500;
const REVOCATION_BOUND_MS = BRIDGE_POLL_SECONDS * 1000 + MCP_POLL_MS + PROPAGATION_MARGIN_MS;

let h: Harness;
let b: SeededTenant;
let mcp: McpServerProcess;
let issuerA = '';
let issuerB = '';
let resource = '';
let agentClientAtB: { clientId: string; clientSecret: string };
let otherAgentClientAtB: { clientId: string; clientSecret: string };
let otherClientAtA: { clientId: string; clientSecret: string };
let trustedIssuerId = '';

beforeAll(async () => {
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  // Development only: A's issuer (its transmitter included) is on loopback, which the outbound clients of oidc-core
  // (A's keys) and of the signals service (A's Shared Signals) refuse unless the operator allows it.
  h = await startHarness('agent-across', {
    oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' },
    signalsEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' },
  });
  const { models } = h.db;
  const keyStore = new KeyStore(models, new KeyEncryptionKey(h.topology.secrets.keyEncryptionKey));
  b = await seedDelegationTenant(models, keyStore, {
    tenantId: randomInt(10_000, 1_000_000),
    tenantName: 'e2e-agent-across-b',
    clientSecretPepper: h.topology.secrets.clientSecretPepper,
  });
  issuerA = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  issuerB = `${h.topology.baseUrl}/auth/${b.tenantId}`;

  // A: its second agent, through a client of its own, for the same person.
  otherClientAtA = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: h.tenant.tenantId,
    clientId: OTHER_CLIENT_AT_A,
    name: 'Billing App',
    grantTypes: ['authorization_code', TOKEN_EXCHANGE],
    redirectUris: [h.tenant.client.redirectUri],
    firstParty: true,
    delegationEnabled: true,
  });
  const otherAgentAtA = await models.Nhe.create({
    tenantId: h.tenant.tenantId,
    identifier: OTHER_AGENT_AT_A,
    type: 'llm-assistive',
    allowedScopes: ['orders:read'],
    maxTokenLifetime: 300,
    operator: 'Demo Operations',
  });
  await models.DelegationPolicy.create({
    tenantId: h.tenant.tenantId,
    nheId: String(otherAgentAtA._id),
    target: { type: 'user', id: h.tenant.user.id },
    allowedScopes: ['orders:read'],
  });

  // A: its clients (the ones the delegation tokens are issued to) may obtain ID-JAGs for B's MCP server, for its agents.
  await models.IdJagAudience.create({
    tenantId: h.tenant.tenantId,
    audience: issuerB,
    resources: [resource],
    clients: [
      { clientId: h.tenant.client.clientId, clientIdAtAudience: AGENT_CLIENT_AT_B },
      { clientId: OTHER_CLIENT_AT_A, clientIdAtAudience: OTHER_AGENT_CLIENT_AT_B },
    ],
    agents: [h.tenant.nhe.identifier, OTHER_AGENT_AT_A],
    scopes: [MCP_TOOLS],
  });

  // B: the MCP server accepts delegation tokens; B's user holds its scope.
  await models.ResourceServer.create({
    tenantId: b.tenantId,
    identifier: resource,
    name: 'Orders MCP server',
    scopes: [MCP_TOOLS],
    config: {
      accessToken: { lifetime: 3600 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: false, allowedNheTypes: [] },
    },
  });
  const role = await models.Role.create({
    tenantId: b.tenantId,
    name: 'mcp-user',
    resourceServer: resource,
    permissions: [MCP_TOOLS],
  });
  await models.User.updateOne({ tenantId: b.tenantId, _id: b.user.id }, { $push: { roleIds: String(role._id) } });
  // B: A's people are B's users through links of an upstream provider for A.
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
  // B: A's agent is B's NHE, its client at B the NHE's agent client, and B's user lets it act on the MCP server.
  agentClientAtB = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: b.tenantId,
    clientId: AGENT_CLIENT_AT_B,
    name: 'Org A orders agent',
    grantTypes: [JWT_BEARER],
    redirectUris: [],
  });
  const nhe = await models.Nhe.create({
    tenantId: b.tenantId,
    identifier: AGENT_AT_B,
    type: 'llm-assistive',
    allowedScopes: [MCP_TOOLS],
    maxTokenLifetime: 300,
    operator: 'Org A',
    agentClients: [AGENT_CLIENT_AT_B],
  });
  await models.DelegationPolicy.create({
    tenantId: b.tenantId,
    nheId: String(nhe._id),
    target: { type: 'user', id: b.user.id },
    allowedScopes: [MCP_TOOLS],
  });
  // B: A's second agent likewise, with its own client (a client embodies one NHE).
  otherAgentClientAtB = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: b.tenantId,
    clientId: OTHER_AGENT_CLIENT_AT_B,
    name: 'Org A billing agent',
    grantTypes: [JWT_BEARER],
    redirectUris: [],
  });
  const otherNhe = await models.Nhe.create({
    tenantId: b.tenantId,
    identifier: OTHER_AGENT_AT_B,
    type: 'llm-assistive',
    allowedScopes: [MCP_TOOLS],
    maxTokenLifetime: 300,
    operator: 'Org A',
    agentClients: [OTHER_AGENT_CLIENT_AT_B],
  });
  await models.DelegationPolicy.create({
    tenantId: b.tenantId,
    nheId: String(otherNhe._id),
    target: { type: 'user', id: b.user.id },
    allowedScopes: [MCP_TOOLS],
  });
  // B: A is a trusted issuer whose assertions may carry act, and its agents nhe:orders-agent and nhe:billing-agent
  // are B's NHEs.
  const trusted = await models.TrustedIssuer.create({
    tenantId: b.tenantId,
    issuer: issuerA,
    jwksUri: `${issuerA}/jwks`,
    algorithms: ['RS256', 'ES256'],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'org-a',
    allowAct: true,
    actors: bothActors(),
  });
  trustedIssuerId = String(trusted._id);
  // B: the MCP server's receiver of B's revocations (SSF poll), a client allowed ssf.manage on B's SSF audience.
  const ssfRole = await models.Role.create({
    tenantId: b.tenantId,
    name: 'ssf-receiver',
    resourceServer: SSF_AUDIENCE,
    permissions: ['ssf.manage'],
  });
  const mcpReceiver = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: b.tenantId,
    clientId: 'orders-mcp-ssf',
    name: 'Orders MCP server (SSF receiver)',
    grantTypes: ['client_credentials'],
    roleIds: [String(ssfRole._id)],
  });
  mcp = await startMcpServer({
    port,
    issuer: issuerB,
    ssf: { clientId: mcpReceiver.clientId, clientSecret: mcpReceiver.clientSecret, intervalMs: MCP_POLL_MS },
  });
}, 120_000);

function bothActors() {
  return [
    { subject: `nhe:${h.tenant.nhe.identifier}`, nheIdentifier: AGENT_AT_B },
    { subject: `nhe:${OTHER_AGENT_AT_A}`, nheIdentifier: OTHER_AGENT_AT_B },
  ];
}

afterAll(async () => {
  await ifAssigned(mcp)?.stop();
  await ifAssigned(h)?.stop();
});

async function post(url: string, client: { clientId: string; clientSecret: string }, body: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** One of A's agents: A's client its delegation tokens are issued to, and B's client for it. */
interface AgentOfA {
  clientAtA: { clientId: string; clientSecret: string };
  identifier: string;
  clientAtB: { clientId: string; clientSecret: string };
}
const ordersAgent = (): AgentOfA => ({
  clientAtA: h.tenant.client,
  identifier: h.tenant.nhe.identifier,
  clientAtB: agentClientAtB,
});
const billingAgent = (): AgentOfA => ({
  clientAtA: otherClientAtA,
  identifier: OTHER_AGENT_AT_A,
  clientAtB: otherAgentClientAtB,
});

/** The person signs in at A; A's client exchanges their access token for the agent's delegation token at A. */
async function delegationTokenAtA(agent: AgentOfA = ordersAgent()): Promise<string> {
  const person = await browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: agent.clientAtA.clientId,
    clientSecret: agent.clientAtA.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    resource: h.tenant.resource,
  });
  const res = await post(`${issuerA}/oidc/token`, agent.clientAtA, {
    grant_type: TOKEN_EXCHANGE,
    subject_token: person.access_token,
    subject_token_type: ACCESS_TOKEN,
    actor_token: agent.identifier,
    actor_token_type: 'urn:vendor:token-type:nhe-id',
    resource: h.tenant.resource,
    scope: 'orders:read',
  });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
  return String(res.body.access_token);
}

/** Interface 1 of the contract: the agent's delegation token at A for an ID-JAG naming B and its MCP server. */
const idJagAtA = async (delegationToken: string, agent: AgentOfA = ordersAgent()) =>
  post(`${issuerA}/oidc/token`, agent.clientAtA, {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    subject_token: delegationToken,
    subject_token_type: ACCESS_TOKEN,
    audience: issuerB,
    resource,
    scope: MCP_TOOLS,
  });

const redeemAtB = (jag: string, agent: AgentOfA = ordersAgent()) =>
  post(`${issuerB}/oidc/token`, agent.clientAtB, { grant_type: JWT_BEARER, assertion: jag });

async function auditRowAt(
  tenantId: number,
  admin: { clientId: string; clientSecret: string },
  jti: string,
): Promise<Record<string, unknown>> {
  const token = (
    await clientCredentialsToken(h.topology.baseUrl, tenantId, admin.clientId, admin.clientSecret, 'urn:idp:management')
  ).access_token;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await fetch(
      `${h.topology.baseUrl}/_api/auth/admin/tenants/${tenantId}/non-human-entities/token-audit`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    const row = ((await res.json()) as { items: Array<Record<string, unknown>> }).items.find((r) => r.jti === jti);
    if (row) return row;
    if (Date.now() > deadline) throw new Error(`no audit row ${jti} in tenant ${tenantId}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function callWhoami(accessToken: string): Promise<Record<string, unknown>> {
  const client = new Client({ name: 'agent-across-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcp.url), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  try {
    await client.connect(transport);
    const result = await client.callTool({ name: 'whoami' });
    return (result.structuredContent ?? {}) as Record<string, unknown>;
  } finally {
    await client.close();
  }
}

it("the agent's delegation at A becomes B's delegation token for B's NHE; the MCP tool sees the agent in act", async () => {
  const delegation = await delegationTokenAtA();
  expect(decodeJwt(delegation).act).toEqual({ sub: `nhe:${h.tenant.nhe.identifier}` });

  const issued = await idJagAtA(delegation);
  expect({ status: issued.status, error: issued.body.error, d: issued.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    d: undefined,
  });
  expect(issued.body).toMatchObject({ issued_token_type: ID_JAG, token_type: 'N_A' });
  const jag = String(issued.body.access_token);
  expect(decodeProtectedHeader(jag).typ).toBe('oauth-id-jag+jwt');
  const jagClaims = decodeJwt(jag);
  expect(jagClaims).toMatchObject({
    iss: issuerA,
    sub: h.tenant.user.id,
    aud: issuerB,
    client_id: AGENT_CLIENT_AT_B,
    resource,
    scope: MCP_TOOLS,
    act: { sub: `nhe:${h.tenant.nhe.identifier}` },
    agent: { id: h.tenant.nhe.identifier },
  });

  const redeemed = await redeemAtB(jag);
  expect({ status: redeemed.status, error: redeemed.body.error, d: redeemed.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    d: undefined,
  });
  expect(redeemed.body.refresh_token).toBeUndefined();
  const at = decodeJwt(String(redeemed.body.access_token));
  expect(at).toMatchObject({
    iss: issuerB,
    sub: b.user.id,
    aud: resource,
    scope: MCP_TOOLS,
    client_id: AGENT_CLIENT_AT_B,
    gty: JWT_BEARER,
    act: { sub: `nhe:${AGENT_AT_B}` },
    agent: { id: AGENT_AT_B, operator: 'Org A' },
    'org.vendor.nhe.delegation': true,
  });
  // B's own chain only: A's actor is not nested (it is in B's audit record).
  expect((at.act as Record<string, unknown>).act).toBeUndefined();

  // The MCP server (its own process, B's issuer) verifies B's token: the tool sees B's user and the agent.
  const caller = await callWhoami(String(redeemed.body.access_token));
  expect(caller).toMatchObject({
    sub: b.user.id,
    client_id: AGENT_CLIENT_AT_B,
    delegated: true,
    act: { sub: `nhe:${AGENT_AT_B}` },
    agent: { id: AGENT_AT_B },
    gty: JWT_BEARER,
  });

  // B's audit: the token, redeemed from A's assertion (its jti, A's person, A's agent).
  const rowB = await auditRowAt(b.tenantId, b.admin, String(at.jti));
  expect(rowB).toMatchObject({
    nheIdentifier: AGENT_AT_B,
    resourceServer: resource,
    crossDomain: {
      direction: 'redeemed',
      peer: issuerA,
      assertionJti: jagClaims.jti,
      subject: h.tenant.user.id,
      actor: `nhe:${h.tenant.nhe.identifier}`,
    },
  });
  // A's audit: the ID-JAG it issued for B (contract, interface 2).
  const rowA = await auditRowAt(h.tenant.tenantId, h.tenant.admin, String(jagClaims.jti));
  expect(rowA).toMatchObject({
    nheIdentifier: h.tenant.nhe.identifier,
    resourceServer: resource,
    crossDomain: { direction: 'issued', peer: issuerB, assertionJti: jagClaims.jti },
  });

  // Single use at B.
  expect(await redeemAtB(jag)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
});

it('B refuses the agent once B disables its NHE for A’s agent, and an actor B does not map', async () => {
  const delegation = await delegationTokenAtA();
  await h.db.models.Nhe.updateOne({ tenantId: b.tenantId, identifier: AGENT_AT_B }, { $set: { enabled: false } });
  try {
    const refused = await redeemAtB(String((await idJagAtA(delegation)).body.access_token));
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(String(refused.body.error_description)).toMatch(/NHE is disabled/);
  } finally {
    await h.db.models.Nhe.updateOne({ tenantId: b.tenantId, identifier: AGENT_AT_B }, { $set: { enabled: true } });
  }
  await h.db.models.TrustedIssuer.updateOne({ tenantId: b.tenantId, issuer: issuerA }, { $set: { actors: [] } });
  try {
    const refused = await redeemAtB(String((await idJagAtA(delegation)).body.access_token));
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(String(refused.body.error_description)).toMatch(/not an agent this tenant accepts/);
  } finally {
    await h.db.models.TrustedIssuer.updateOne(
      { tenantId: b.tenantId, issuer: issuerA },
      { $set: { actors: bothActors() } },
    );
  }
});

/** The agent's B token, end to end: its delegation token at A, an ID-JAG from A, redeemed at B. */
async function tokenAtB(agent: AgentOfA): Promise<string> {
  const issued = await idJagAtA(await delegationTokenAtA(agent), agent);
  expect({ status: issued.status, error: issued.body.error }).toEqual({ status: 200, error: undefined });
  const redeemed = await redeemAtB(String(issued.body.access_token), agent);
  expect({ status: redeemed.status, error: redeemed.body.error }).toEqual({ status: 200, error: undefined });
  return String(redeemed.body.access_token);
}

/** A JSON-RPC ping to the MCP server with a bearer token (the transport's own request, no session needed). */
const pingMcp = (token: string) =>
  fetch(mcp.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

/** B's introspection (RFC 7662) of a token, by the client it was issued to. */
async function introspectAtB(token: string, client: { clientId: string; clientSecret: string }) {
  const metadata = (await (await fetch(`${issuerB}/.well-known/openid-configuration`)).json()) as {
    introspection_endpoint: string;
  };
  const res = await fetch(metadata.introspection_endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean; jti?: string };
}

async function adminAt(tenantId: number, admin: { clientId: string; clientSecret: string }) {
  const token = (
    await clientCredentialsToken(h.topology.baseUrl, tenantId, admin.clientId, admin.clientSecret, 'urn:idp:management')
  ).access_token;
  return <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId, token }, method, path, body);
}

/** Polls until `ok` holds or the time is up; returns the last value and when it was taken. */
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, stepMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    const at = Date.now();
    if (ok(value) || at > deadline) return { value, at, ok: ok(value) };
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** B's kill-switch rows (the revocation store) naming a token. */
const killSwitchRowsAtB = (jti: string) =>
  h.db.connection
    .collection<{ tenantId: number; entry: { jti?: string; reason: string } }>(REVOCATION_COLLECTION)
    .find({ tenantId: b.tenantId, 'entry.jti': jti })
    .toArray();

describe('disabling the agent at A stops it at B (Shared Signals bridge)', () => {
  it("A disables its agent; B's delegation token minted from A's ID-JAG is refused at the MCP server", async () => {
    // Both agents hold live B tokens, minted from A's assertions before anything changes.
    const ordersToken = await tokenAtB(ordersAgent());
    const billingToken = await tokenAtB(billingAgent());
    const ordersJti = String(decodeJwt(ordersToken).jti);
    const billingJti = String(decodeJwt(billingToken).jti);
    expect((await pingMcp(ordersToken)).status).toBe(200);
    expect((await pingMcp(billingToken)).status).toBe(200);
    expect(await introspectAtB(ordersToken, agentClientAtB)).toMatchObject({ active: true, jti: ordersJti });

    // A: B's client there, allowed to manage its Shared Signals streams (ssf.manage on A's SSF audience).
    const atA = await adminAt(h.tenant.tenantId, h.tenant.admin);
    const role = await atA<{ id: string }>('POST', '/roles', {
      name: 'b-ssf',
      resourceServer: SSF_AUDIENCE,
      permissions: ['ssf.manage'],
    });
    expect(role.status).toBe(201);
    const bAtA = await atA<{ clientId: string; clientSecret: string }>('POST', '/clients', {
      clientId: 'b-signals',
      name: 'B revocations',
      grantTypes: ['client_credentials'],
    });
    expect(bAtA.status).toBe(201);
    expect((await atA('PUT', `/clients/${bAtA.body.clientId}/roles/${role.body.id}`)).status).toBe(204);

    // B: subscribes to A's Shared Signals for its trusted-issuer record, through the management API (its change
    // event starts the receiver in B's signals service).
    const atB = await adminAt(b.tenantId, b.admin);
    const patched = await atB('PATCH', `/trusted-issuers/${trustedIssuerId}`, {
      actors: bothActors(),
      signals: {
        enabled: true,
        clientId: bAtA.body.clientId,
        clientSecret: bAtA.body.clientSecret,
        pollIntervalSeconds: BRIDGE_POLL_SECONDS,
      },
    });
    expect({ status: patched.status, signals: patched.body.signals }).toEqual({
      status: 200,
      signals: {
        enabled: true,
        clientId: 'b-signals',
        clientSecretSet: true,
        pollIntervalSeconds: BRIDGE_POLL_SECONDS,
      },
    });

    // A's transmitter holds B's poll stream once B's receiver subscribed (SSF 1.0 section 8.1.1: B's client reads
    // its streams at A's configuration endpoint).
    const ssfTokenAtA = (
      await clientCredentialsToken(
        h.topology.baseUrl,
        h.tenant.tenantId,
        bAtA.body.clientId,
        bAtA.body.clientSecret,
        SSF_AUDIENCE,
        'ssf.manage',
      )
    ).access_token;
    const streamsAtA = async () => {
      const res = await fetch(`${issuerA}/ssf/streams`, { headers: { authorization: `Bearer ${ssfTokenAtA}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as unknown;
      return (Array.isArray(body) ? body : [body]) as Array<{ stream_id: string; delivery?: { method?: string } }>;
    };
    const subscribed = await until(streamsAtA, (streams) => streams.length > 0, 20_000, 100);
    if (!subscribed.ok)
      throw new Error(
        "B's signals service has no stream at A's transmitter 20 s after B subscribed: the bridge never reached A " +
          '(the signals service must be allowed to reach the issuer: UPSTREAM_ALLOW_LOOPBACK in development)',
      );
    expect(subscribed.value).toHaveLength(1);
    expect(subscribed.value[0]?.delivery?.method).toBe('urn:ietf:rfc:8936');

    // A disables its agent (its kill switch); the clock runs from the management call.
    const nheAtA = await atA('PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: false });
    const t0 = Date.now();
    expect(nheAtA.status).toBe(200);
    const refused = await until(
      () => pingMcp(ordersToken),
      (r) => r.status === 401,
      REVOCATION_BOUND_MS + 10_000,
    );
    const elapsed = refused.at - t0;
    if (!refused.ok)
      throw new Error(
        `B's MCP server still accepts the agent's B token ${elapsed} ms after A disabled the agent ` +
          `(bound ${REVOCATION_BOUND_MS} ms): A's revocation did not reach B's kill switch`,
      );
    console.log(
      `A disabled ${h.tenant.nhe.identifier} -> B's MCP server refuses its B token after ${elapsed} ms ` +
        `(bound ${REVOCATION_BOUND_MS} ms: bridge poll ${BRIDGE_POLL_SECONDS} s + MCP poll ${MCP_POLL_MS} ms + margin ${PROPAGATION_MARGIN_MS} ms)`,
    );
    expect(await refused.value.json()).toEqual({
      error: 'invalid_token',
      error_description: 'the access token has been revoked',
    });
    expect(elapsed).toBeLessThan(REVOCATION_BOUND_MS);

    // B's own verifiers agree, and B's kill switch names exactly that token, for A's revocation.
    expect(await introspectAtB(ordersToken, agentClientAtB)).toEqual({ active: false });
    const rows = await killSwitchRowsAtB(ordersJti);
    expect(rows.map((r) => ({ jti: r.entry.jti, reason: r.entry.reason }))).toEqual([
      { jti: ordersJti, reason: 'issuer.revoked' },
    ]);

    // Narrow: A's other agent keeps its B token (no entry names it; the MCP server and introspection accept it).
    expect((await pingMcp(billingToken)).status).toBe(200);
    expect(await introspectAtB(billingToken, otherAgentClientAtB)).toMatchObject({ active: true, jti: billingJti });
    expect(await killSwitchRowsAtB(billingJti)).toEqual([]);
    expect(await callWhoami(billingToken)).toMatchObject({ act: { sub: `nhe:${OTHER_AGENT_AT_B}` } });
  });
});
