/**
 * Agent clients in the management API: an NHE registration names the OAuth clients that embody
 * it (client ids, metadata document URL patterns); validated, one NHE per client, tenant-scoped; every response
 * validated against the OpenAPI document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  h = await startHarness('mgmtagents');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const nhePath = (t: number, rest = '') => `/auth/admin/tenants/${t}/non-human-entities${rest}`;
const nhe = (identifier: string, extra: Record<string, unknown> = {}) => ({
  identifier,
  type: 'llm-assistive',
  allowedScopes: ['orders:read'],
  operator: 'ops',
  ...extra,
});

it('creates with agentClients, reads them back, replaces and clears them; [] when none', async () => {
  const created = await h.call(
    'post',
    nhePath(A),
    adminA,
    nhe('mcp-agent', { agentClients: ['mcp-desktop', 'https://agent.example/clients/*'] }),
  );
  expect(created.status).toBe(201);
  expect(created.body.agentClients).toEqual(['mcp-desktop', 'https://agent.example/clients/*']);
  const id = created.body.id as string;
  expect((await h.call('get', nhePath(A, `/${id}`), adminA)).body.agentClients).toEqual([
    'mcp-desktop',
    'https://agent.example/clients/*',
  ]);
  const patched = await h.call('patch', nhePath(A, `/${id}`), adminA, {
    agentClients: ['https://agent.example/client.json'],
  });
  expect(patched.status).toBe(200);
  expect(patched.body.agentClients).toEqual(['https://agent.example/client.json']);
  expect((await h.call('patch', nhePath(A, `/${id}`), adminA, { agentClients: [] })).body.agentClients).toEqual([]);
  const plain = await h.call('post', nhePath(A), adminA, nhe('plain-agent'));
  expect(plain.body.agentClients).toEqual([]);
});

it.each([
  ['a wildcard in a client id', ['mcp-*']],
  ['a wildcard in the middle', ['https://agent.example/*/client.json']],
  ['a wildcard in the host', ['https://agent.example*']],
  ['a host-only pattern', ['https://*']],
  ['plain http off loopback', ['http://agent.example/client.json']],
  ['a query', ['https://agent.example/c.json?x=1']],
  ['a fragment', ['https://agent.example/c.json#x']],
  ['user info', ['https://u:p@agent.example/c.json']],
  ['whitespace', ['mcp desktop']],
  ['an empty entry', ['']],
  ['duplicates', ['a', 'a']],
  ['too many entries', Array.from({ length: 33 }, (_, i) => `c${i}`)],
])('400 for %s', async (_n, agentClients) => {
  const res = await h.call('post', nhePath(A), adminA, nhe('bad-agent', { agentClients }));
  expect(res.status).toBe(400);
  expect(invalidNames(res).some((n: string) => n.startsWith('body.agentClients'))).toBe(true);
});

it('accepts http metadata documents on loopback (development tenants)', async () => {
  const res = await h.call(
    'post',
    nhePath(A),
    adminA,
    nhe('dev-agent', { agentClients: ['http://127.0.0.1:8123/*', 'http://localhost/client.json'] }),
  );
  expect(res.status).toBe(201);
});

it('409 when another NHE of the tenant already embodies the client (exactly or through a pattern); another tenant may', async () => {
  const first = await h.call(
    'post',
    nhePath(A),
    adminA,
    nhe('owner-agent', { agentClients: ['shared-client', 'https://owner.example/agents/*'] }),
  );
  expect(first.status).toBe(201);
  expect((await h.call('post', nhePath(A), adminA, nhe('thief-1', { agentClients: ['shared-client'] }))).status).toBe(
    409,
  );
  expect(
    (
      await h.call(
        'post',
        nhePath(A),
        adminA,
        nhe('thief-2', { agentClients: ['https://owner.example/agents/x.json'] }),
      )
    ).status,
  ).toBe(409);
  expect(
    (await h.call('post', nhePath(A), adminA, nhe('thief-3', { agentClients: ['https://owner.example/*'] }))).status,
  ).toBe(409);
  const other = await h.call('post', nhePath(A), adminA, nhe('other-agent'));
  expect(
    (await h.call('patch', nhePath(A, `/${other.body.id}`), adminA, { agentClients: ['shared-client'] })).status,
  ).toBe(409);
  // The owner may patch its own list with the same entries.
  expect(
    (await h.call('patch', nhePath(A, `/${first.body.id}`), adminA, { agentClients: ['shared-client'] })).status,
  ).toBe(200);
  expect((await h.call('post', nhePath(B), adminB, nhe('b-agent', { agentClients: ['shared-client'] }))).status).toBe(
    201,
  );
});

it("the dry run shows an agent client's decision (flow agent-client): the link is the client gate; a metadata-document client without a record is simulated too", async () => {
  const role = await h.db.models.Role.create({
    tenantId: A,
    name: 'clerk-agents',
    resourceServer: 'https://orders.agents.example',
    permissions: ['orders:read', 'orders:write'],
  });
  const user = await h.db.models.User.create({
    tenantId: A,
    username: 'agent-user',
    passwordHash: 'x',
    roleIds: [String(role._id)],
  });
  await h.db.models.ResourceServer.create({
    tenantId: A,
    identifier: 'https://orders.agents.example',
    name: 'orders',
    scopes: ['orders:read', 'orders:write'],
    config: { accessToken: { lifetime: 600 }, nhe: { acceptDelegationTokens: true } },
  });
  // A client record without delegation settings: as a token-exchange client it would be refused (client-disabled).
  await h.db.models.Client.create({
    tenantId: A,
    numericId: A * 10 + 7,
    clientId: 'desk-agent',
    name: 'desk',
    config: { nhe: { delegationEnabled: false } },
  });
  const created = await h.call(
    'post',
    nhePath(A),
    adminA,
    nhe('desk-nhe', {
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 240,
      agentClients: ['desk-agent', 'https://desk.example/agents/*'],
    }),
  );
  const id = created.body.id as string;
  expect(
    (
      await h.call('post', nhePath(A, `/${id}/delegation-policies`), adminA, {
        target: { type: 'user', id: String(user._id) },
        allowedScopes: ['orders:read', 'orders:write'],
      })
    ).status,
  ).toBe(201);
  const sim = (clientId: string, consentedScope = 'orders:read orders:write') =>
    h.call('post', nhePath(A, `/${id}/delegation-simulations`), adminA, {
      userId: String(user._id),
      clientId,
      resource: 'https://orders.agents.example',
      scope: 'orders:read orders:write',
      consentedScope,
    });
  const asAgent = await sim('desk-agent');
  expect(asAgent.status).toBe(200);
  expect(asAgent.body.flow).toBe('agent-client');
  expect(asAgent.body.decision).toMatchObject({
    outcome: 'granted',
    scopes: ['orders:read'],
    removed: [{ scope: 'orders:write', layer: 'nhe-allowed-scopes' }],
    ttl: 240,
    ttlSetBy: 'nhe.maxTokenLifetime',
  });
  const cimd = await sim('https://desk.example/agents/client.json');
  expect([cimd.status, cimd.body.flow, cimd.body.decision.outcome]).toEqual([200, 'agent-client', 'granted']);
  // Another NHE's dry run for the same client is a token exchange: that client's own settings refuse it.
  const other = await h.call('post', nhePath(A), adminA, nhe('desk-other'));
  const exchange = await h.call('post', nhePath(A, `/${other.body.id}/delegation-simulations`), adminA, {
    userId: String(user._id),
    clientId: 'desk-agent',
    resource: 'https://orders.agents.example',
    scope: 'orders:read',
  });
  expect([exchange.body.flow, exchange.body.decision]).toEqual([
    'token-exchange',
    expect.objectContaining({ outcome: 'denied', gate: 'client-disabled' }),
  ]);
});
