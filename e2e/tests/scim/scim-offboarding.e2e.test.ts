/**
 * Offboarding driven by the company directory, every service a process behind the dev router (the ingress table):
 * the directory provisions a person and a group through the tenant's SCIM 2.0 endpoint (RFC 7644) with a SCIM
 * credential an administrator created in the management API; the group carries the roles (RBAC through group
 * membership) and the delegation policy. The person signs in, delegates to an agent (RFC 8693 token exchange), and
 * the agent's tokens work at the sample Orders API and at the sample MCP server (each its own process on
 * @idp/resource-server, outside the cluster, each polling the tenant's Shared Signals transmitter); the agent hands
 * its Orders token down to a second agent (a delegation chain whose token still names the person).
 *
 * The directory then sets active=false (Okta's path-less replace): within the revocation bound both APIs refuse the
 * agents' tokens (the handed-down one too), introspection says inactive, a new exchange is refused, the person cannot
 * sign in, the ledger marks the tokens revoked and the kill-switch entry says why (user.deprovisioned). Reactivation
 * lets the person sign in and delegate again, and the old tokens stay refused.
 */
import { decodeJwt } from 'jose';
import { REVOCATION_COLLECTION, revocationStore } from '@idp/events';
import { freePort } from '@idp/testing';
import { loadLedger } from '../../../services/oidc-core/src/account/ledger';
import { basicAuth, browserlessLogin, clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startMcpServer, type McpServerProcess } from '../../src/mcp/mcp-server-process';
import { startOrdersApi, type OrdersApiProcess } from '../../src/orders-api';

jest.setTimeout(120_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const POLL_INTERVAL_MS = 1000;
/** The SDK's poll interval + the transmitter's fan-out (JetStream fetch, up to 1 s) + round trips on a loaded machine. */
const REVOCATION_BOUND_MS = POLL_INTERVAL_MS + 2500;
const PASSWORD = 'Directory-provisioned-1!';
const SUB_AGENT = 'scim-sub-agent';

let h: Harness;
let orders: OrdersApiProcess;
let mcp: McpServerProcess;
let issuer = '';
let admin = '';
let scimBase = '';
let scimSecret = '';
let ordersResource = '';
let mcpResource = '';
let nheIdentifier = '';
let userId = '';

async function manage<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${h.tenant.tenantId}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function scim<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const res = await fetch(`${scimBase}${path}`, {
    method,
    headers: { authorization: `Bearer ${scimSecret}`, 'content-type': 'application/scim+json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

const must = async <T>(status: number, p: Promise<{ status: number; body: T }>): Promise<T> => {
  const res = await p;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
};

function login(resource: string, scope: string) {
  return browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: 'dana.scully',
    password: PASSWORD,
    resource,
    scope: `openid ${scope}`,
  });
}

async function exchange(subjectToken: string, resource: string, scope: string, actor = nheIdentifier) {
  const res = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: actor,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource,
      scope,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const callOrders = async (token: string) =>
  (await fetch(`${orders.url}/orders`, { headers: { authorization: `Bearer ${token}` } })).status;
/** An MCP initialize request (JSON-RPC over Streamable HTTP): 401 when the token is refused. */
const callMcp = async (token: string) =>
  (
    await fetch(mcp.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'scim-e2e', version: '1' } },
      }),
    })
  ).status;

async function introspect(token: string) {
  const res = await fetch(`${issuer}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as { active: boolean };
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

beforeAll(async () => {
  h = await startHarness('scim-offboarding');
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;

  // The administrator creates the directory's credential (shown once) and hands it and the URL to the directory.
  const cred = await must(
    201,
    manage<{ secret: string; scimBaseUrl: string }>('POST', '/scim-credentials', { description: 'Okta' }),
  );
  scimSecret = cred.secret;
  scimBase = cred.scimBaseUrl;
  expect(scimBase).toBe(`${issuer}/scim/v2`);

  // Two APIs outside the cluster, each with its resource server, and a role for each.
  const [ordersPort, mcpPort] = [await freePort(), await freePort()];
  ordersResource = `http://127.0.0.1:${ordersPort}`;
  mcpResource = `http://127.0.0.1:${mcpPort}/mcp`;
  await must(
    201,
    manage('POST', '/resource-servers', {
      identifier: ordersResource,
      name: 'Orders API',
      scopes: ['orders:read'],
      config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true } },
    }),
  );
  await must(
    201,
    manage('POST', '/resource-servers', {
      identifier: mcpResource,
      name: 'Orders MCP server',
      scopes: ['mcp:tools'],
      config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true } },
    }),
  );
  const ordersRole = await must(
    201,
    manage<{ id: string }>('POST', '/roles', {
      name: 'scim-orders',
      resourceServer: ordersResource,
      permissions: ['orders:read'],
    }),
  );
  const mcpRole = await must(
    201,
    manage<{ id: string }>('POST', '/roles', {
      name: 'scim-mcp',
      resourceServer: mcpResource,
      permissions: ['mcp:tools'],
    }),
  );

  // The directory provisions the person (with the password it manages) and a group with them as a member.
  const user = await must(
    201,
    scim<{ id: string }>('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'dana.scully',
      externalId: '00u1dana',
      name: { givenName: 'Dana', familyName: 'Scully' },
      emails: [{ value: 'dana@example.com', type: 'work', primary: true }],
      password: PASSWORD,
      active: true,
    }),
  );
  userId = user.id;
  const group = await must(
    201,
    scim<{ id: string }>('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Field agents',
      externalId: '00g1field',
      members: [{ value: userId, display: 'dana.scully' }],
    }),
  );

  // The administrator gives the directory's group its roles and lets it delegate to an agent.
  await must(204, manage('PUT', `/groups/${group.id}/roles/${ordersRole.id}`));
  await must(204, manage('PUT', `/groups/${group.id}/roles/${mcpRole.id}`));
  nheIdentifier = 'scim-field-agent';
  const nhe = await must(
    201,
    manage<{ id: string }>('POST', '/non-human-entities', {
      identifier: nheIdentifier,
      type: 'llm-assistive',
      operator: 'Field Operations',
      model: { name: 'demo-model', provider: 'example' },
      allowedScopes: ['orders:read', 'mcp:tools'],
      maxTokenLifetime: 300,
    }),
  );
  await must(
    201,
    manage('POST', `/non-human-entities/${nhe.id}/delegation-policies`, {
      target: { type: 'group', id: group.id },
      allowedScopes: ['orders:read', 'mcp:tools'],
      maxChainDepth: 2,
    }),
  );

  // A second agent the first may hand its token down to (a delegation chain, RFC 8693 act nested).
  await must(200, manage('PATCH', '', { settings: { nhe: { maxChainDepth: 2 } } }));
  const subAgent = await must(
    201,
    manage<{ id: string }>('POST', '/non-human-entities', {
      identifier: SUB_AGENT,
      type: 'llm-assistive',
      operator: 'Field Operations',
      model: { name: 'demo-model', provider: 'example' },
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 300,
    }),
  );
  await must(
    201,
    manage('POST', `/non-human-entities/${subAgent.id}/delegation-policies`, {
      target: { type: 'nhe', id: nhe.id },
      allowedScopes: ['orders:read'],
    }),
  );

  // The APIs' Shared Signals receiver: a client allowed ssf.manage on urn:idp:ssf.
  const ssfRole = await must(
    201,
    manage<{ id: string }>('POST', '/roles', {
      name: 'ssf-receiver',
      resourceServer: 'urn:idp:ssf',
      permissions: ['ssf.manage'],
    }),
  );
  const receiver = await must(
    201,
    manage<{ clientId: string; clientSecret: string }>('POST', '/clients', {
      name: 'APIs (SSF receiver)',
      grantTypes: ['client_credentials'],
    }),
  );
  await must(204, manage('PUT', `/clients/${receiver.clientId}/roles/${ssfRole.id}`));
  const ssf = { clientId: receiver.clientId, clientSecret: receiver.clientSecret, intervalMs: POLL_INTERVAL_MS };
  orders = await startOrdersApi({ port: ordersPort, issuer, ssf });
  mcp = await startMcpServer({ port: mcpPort, issuer, ssf });
}, 120_000);

afterAll(async () => {
  await ifAssigned(orders)?.stop();
  await ifAssigned(mcp)?.stop();
  await ifAssigned(h)?.stop();
});

test('a directory-provisioned person delegates; active=false stops every agent token at both APIs within the bound', async () => {
  const ordersLogin = await login(ordersResource, 'orders:read');
  const mcpLogin = await login(mcpResource, 'mcp:tools');
  const toOrders = await exchange(ordersLogin.access_token, ordersResource, 'orders:read');
  const toMcp = await exchange(mcpLogin.access_token, mcpResource, 'mcp:tools');
  expect([toOrders.status, toMcp.status]).toEqual([200, 200]);
  const ordersToken = String(toOrders.body.access_token);
  const mcpToken = String(toMcp.body.access_token);
  expect(decodeJwt(ordersToken)).toMatchObject({ sub: userId });
  // The first agent hands its token down to the second: the chain's token still names the person (sub).
  const handed = await exchange(ordersToken, ordersResource, 'orders:read', SUB_AGENT);
  expect(handed.status).toBe(200);
  const chainToken = String(handed.body.access_token);
  expect(decodeJwt(chainToken)).toMatchObject({ sub: userId, act: { sub: expect.any(String) as unknown } });
  expect(await callOrders(ordersToken)).toBe(200);
  expect(await callOrders(chainToken)).toBe(200);
  expect(await callMcp(mcpToken)).toBe(200);

  // The directory deactivates the person (Okta's shape: a path-less replace).
  const t0 = Date.now();
  const off = await scim<{ active: boolean }>('PATCH', `/Users/${userId}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', value: { active: false } }],
  });
  expect([off.status, off.body.active]).toEqual([200, false]);
  const refused = await eventually(
    async () => [await callOrders(ordersToken), await callMcp(mcpToken), await callOrders(chainToken)],
    (s) => s.every((status) => status === 401),
    REVOCATION_BOUND_MS + 5000,
  );
  const elapsed = Date.now() - t0;
  console.log(
    `SCIM active=false to refusal at both APIs (and of the handed-down token): ${elapsed} ms (bound ${REVOCATION_BOUND_MS} ms)`,
  );
  expect(refused).toEqual([401, 401, 401]);
  expect(elapsed).toBeLessThan(REVOCATION_BOUND_MS);
  expect(await introspect(ordersToken)).toEqual({ active: false });
  expect(await introspect(mcpToken)).toEqual({ active: false });
  expect(await introspect(chainToken)).toEqual({ active: false });

  // No new delegation, no sign-in.
  const again = await exchange(ordersLogin.access_token, ordersResource, 'orders:read');
  expect(again.status).toBe(400);
  expect(again.body.error).toBe('invalid_grant');
  await expect(login(ordersResource, 'orders:read')).rejects.toThrow();

  // Why: the kill-switch entry names the person and the reason; the ledger marks the agent's tokens revoked.
  const entries = await revocationStore(h.db.connection.collection(REVOCATION_COLLECTION)).active(
    new Date(),
    h.tenant.tenantId,
  );
  expect(entries.filter((e) => e.subject === userId).map((e) => e.reason)).toEqual(['user.deprovisioned']);
  // The ledger reads the audit rows (written by audit-writer from the issuance events, asynchronously).
  const jtis = [decodeJwt(ordersToken).jti, decodeJwt(mcpToken).jti];
  const ledgerTokens = await eventually(
    async () =>
      (
        await loadLedger(
          h.db.models,
          revocationStore(h.db.connection.collection(REVOCATION_COLLECTION)),
          h.tenant.tenantId,
          userId,
        )
      )?.agents.flatMap((a) => a.tokens.filter((t) => jtis.includes(t.jti))) ?? [],
    (t) => t.length === 2,
    10_000,
    200,
  );
  expect(ledgerTokens.map((t) => t.revoked)).toEqual([true, true]);

  // Reactivated by the directory: the person signs in and delegates again; the old tokens stay refused.
  const on = await scim<{ active: boolean }>('PATCH', `/Users/${userId}`, {
    schemas: [PATCH_OP],
    Operations: [{ op: 'replace', path: 'active', value: true }],
  });
  expect(on.body.active).toBe(true);
  await new Promise((r) => setTimeout(r, 1100)); // the deny list compares iat (seconds) with the revocation time
  const fresh = await login(ordersResource, 'orders:read');
  const renewed = await eventually(
    () => exchange(fresh.access_token, ordersResource, 'orders:read'),
    (r) => r.status === 200,
    5000,
  );
  expect(renewed.status).toBe(200);
  expect(await callOrders(String(renewed.body.access_token))).toBe(200);
  expect(await callOrders(ordersToken)).toBe(401);
  expect(await callMcp(mcpToken)).toBe(401);
  expect(await callOrders(chainToken)).toBe(401);
});
