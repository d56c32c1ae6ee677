/**
 * ID-JAG audiences (the other authorization servers this tenant issues Identity Assertion Authorization Grants for)
 * through the management API: created with safe defaults; bad settings are problem+json naming the field; the clients
 * named must be confidential clients of the same tenant; the agents named are NHE identifiers; this tenant's own issuer
 * is refused, another tenant's is not; another tenant neither sees nor changes them; PATCH, delete and tenant deletion.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { BASE_URL, invalidNames, startHarness, type Harness } from './harness';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;

const clientsPath = (t: number) => `/auth/admin/tenants/${t}/clients`;
async function makeClient(t: number, token: string, body: Record<string, unknown>) {
  const res = await h.call('post', clientsPath(t), token, body);
  if (res.status !== 201) throw new Error(`fixture client: ${res.status} ${res.text}`);
}

beforeAll(async () => {
  h = await startHarness('mgmtidjag');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
  // A's MCP client, which authenticates at the token endpoint (client_secret_basic, the default).
  await makeClient(A, adminA, { clientId: 'mcp-agent', name: 'MCP agent', grantTypes: [TOKEN_EXCHANGE] });
  await makeClient(A, adminA, {
    clientId: 'mcp-other',
    name: 'Other agent',
    grantTypes: [TOKEN_EXCHANGE],
    tokenEndpointAuthMethod: 'client_secret_post',
  });
  // A public client of A: it may not be listed (the exchange requires client authentication).
  await makeClient(A, adminA, {
    clientId: 'spa-public',
    name: 'SPA',
    grantTypes: ['authorization_code'],
    redirectUris: ['https://app.example/cb'],
    tokenEndpointAuthMethod: 'none',
  });
  // A confidential client of B only: A may not name it.
  await makeClient(B, adminB, { clientId: 'b-agent', name: 'B agent', grantTypes: [TOKEN_EXCHANGE] });
});
afterAll(async () => h.close());

const audiences = (t: number) => `/auth/admin/tenants/${t}/id-jag-audiences`;
const partner = {
  audience: 'https://as.partner.example',
  resources: ['https://mcp.partner.example/mcp', 'urn:partner:api'],
  clients: [{ clientId: 'mcp-agent', clientIdAtAudience: 'partner-client-42' }],
  scopes: ['files.read', 'files.write'],
};

let partnerId: string;

it('creates an audience with safe defaults: enabled, 300 s', async () => {
  const res = await h.call('post', audiences(A), adminA, partner);
  expect(res.status).toBe(201);
  partnerId = res.body.id as string;
  expect(res.headers.location).toMatch(new RegExp(`/id-jag-audiences/${partnerId}$`));
  expect(res.body).toMatchObject({ ...partner, lifetimeSeconds: 300, enabled: true });
  expect(res.body.description).toBeUndefined();
  const stored = (await h.db.models.IdJagAudience.findOne({ tenantId: A, audience: partner.audience }).lean())!;
  expect(stored.clients).toEqual(partner.clients);
  expect(stored.resources).toEqual(partner.resources);
  expect((await h.call('get', `${audiences(A)}/${partnerId}`, adminA)).body.audience).toBe(partner.audience);
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'tenant', id: String(A) });
  const minimal = await h.call('post', audiences(A), adminA, { audience: 'https://bare.example' });
  expect(minimal.status).toBe(201);
  expect(minimal.body).toMatchObject({
    resources: [],
    clients: [],
    agents: [],
    scopes: [],
    lifetimeSeconds: 300,
    enabled: true,
  });
  expect((await h.call('delete', `${audiences(A)}/${minimal.body.id}`, adminA)).status).toBe(204);
});

it('refuses bad settings with a problem naming the field, and a duplicate audience with 409', async () => {
  expect((await h.call('post', audiences(A), adminA, partner)).status).toBe(409);
  const bad = async (body: object, field: string) => {
    const res = await h.call('post', audiences(A), adminA, {
      ...partner,
      audience: 'https://other.example',
      ...body,
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(invalidNames(res).join(' ')).toContain(field);
  };
  await bad({ audience: 'http://as.partner.example' }, 'body.audience');
  await bad({ audience: 'https://user:pw@as.partner.example' }, 'body.audience');
  await bad({ audience: 'https://as.partner.example#x' }, 'body.audience');
  await bad({ audience: 'https://as.partner.example/?tenant=1' }, 'body.audience');
  await bad({ audience: 'urn:partner:as' }, 'body.audience');
  await bad({ audience: 'not a url' }, 'body.audience');
  await bad({ resources: ['not a url'] }, 'body.resources');
  await bad({ resources: ['https://mcp.partner.example/mcp#frag'] }, 'body.resources');
  await bad({ resources: ['urn:partner:api', 'urn:partner:api'] }, 'body.resources');
  await bad({ resources: Array.from({ length: 51 }, (_, i) => `urn:partner:api:${i}`) }, 'body.resources');
  await bad({ scopes: ['has space'] }, 'body.scopes');
  await bad({ scopes: ['a"quote'] }, 'body.scopes');
  await bad({ scopes: Array.from({ length: 101 }, (_, i) => `s${i}`) }, 'body.scopes');
  await bad({ lifetimeSeconds: 29 }, 'body.lifetimeSeconds');
  await bad({ lifetimeSeconds: 301 }, 'body.lifetimeSeconds');
  await bad({ lifetimeSeconds: 60.5 }, 'body.lifetimeSeconds');
  await bad({ enabled: 'yes' }, 'body.enabled');
  await bad({ clients: [{ clientId: 'mcp-agent' }] }, 'body.clients.0.clientIdAtAudience');
  await bad({ clients: [{ clientId: 'mcp-agent', clientIdAtAudience: ' padded' }] }, 'body.clients.0');
  await bad({ clients: [{ clientId: 'mcp-agent', clientIdAtAudience: 'x', extra: 1 }] }, 'body.clients.0');
  await bad(
    {
      clients: [
        { clientId: 'mcp-agent', clientIdAtAudience: 'one' },
        { clientId: 'mcp-agent', clientIdAtAudience: 'two' },
      ],
    },
    'body.clients',
  );
  await bad(
    { clients: Array.from({ length: 101 }, (_, i) => ({ clientId: `c${i}`, clientIdAtAudience: `c${i}` })) },
    'body.clients',
  );
  await bad({ agents: ['has space'] }, 'body.agents.0');
  await bad({ agents: ['-leading-hyphen'] }, 'body.agents.0');
  await bad({ agents: ['nhe:orders-agent'] }, 'body.agents.0');
  await bad({ agents: ['orders-agent', 'orders-agent'] }, 'body.agents');
  await bad({ agents: Array.from({ length: 101 }, (_, i) => `agent-${i}`) }, 'body.agents');
  await bad({ unknownField: 1 }, 'body');
  expect(await h.db.models.IdJagAudience.countDocuments({ tenantId: A })).toBe(1);
});

it("refuses this tenant's own issuer, in any spelling, but not another tenant's", async () => {
  for (const own of [`${BASE_URL}/auth/${A}`, `${BASE_URL}/auth/${A}/`, `${BASE_URL.toUpperCase()}/auth/${A}`]) {
    const res = await h.call('post', audiences(A), adminA, { audience: own });
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain('body.audience');
  }
  // Tenant B of the same deployment is another organisation: A may issue ID-JAGs for B's authorization server.
  const other = await h.call('post', audiences(A), adminA, { audience: `${BASE_URL}/auth/${B}` });
  expect(other.status).toBe(201);
  expect((await h.call('delete', `${audiences(A)}/${other.body.id}`, adminA)).status).toBe(204);
});

it('names each client that is unknown, of another tenant, or public', async () => {
  const res = await h.call('post', audiences(A), adminA, {
    audience: 'https://clients.example',
    clients: [
      { clientId: 'mcp-agent', clientIdAtAudience: 'ok' },
      { clientId: 'nope', clientIdAtAudience: 'x' },
      { clientId: 'b-agent', clientIdAtAudience: 'y' },
      { clientId: 'spa-public', clientIdAtAudience: 'z' },
    ],
  });
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toMatch(/problem\+json/);
  expect(invalidNames(res).sort()).toEqual([
    'body.clients.1.clientId',
    'body.clients.2.clientId',
    'body.clients.3.clientId',
  ]);
  expect(await h.db.models.IdJagAudience.countDocuments({ audience: 'https://clients.example' })).toBe(0);
  // B's own client is fine for B.
  const forB = await h.call('post', audiences(B), adminB, {
    audience: 'https://clients.example',
    clients: [{ clientId: 'b-agent', clientIdAtAudience: 'b-at-partner' }],
  });
  expect(forB.status).toBe(201);
  expect((await h.call('delete', `${audiences(B)}/${forB.body.id}`, adminB)).status).toBe(204);
});

it('accepts http to a loopback host and the full range of settings', async () => {
  const res = await h.call('post', audiences(A), adminA, {
    audience: 'http://127.0.0.1:8080/realms/dev',
    resources: ['http://localhost:3000/mcp'],
    clients: [
      { clientId: 'mcp-agent', clientIdAtAudience: 'https://agent.example/client-metadata.json' },
      { clientId: 'mcp-other', clientIdAtAudience: 'other agent' },
    ],
    agents: ['orders-agent', 'report.bot_2'],
    scopes: Array.from({ length: 100 }, (_, i) => `s${i}`),
    lifetimeSeconds: 30,
    enabled: false,
    description: 'local development',
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ lifetimeSeconds: 30, enabled: false, description: 'local development' });
  expect(res.body.clients).toHaveLength(2);
  expect(res.body.agents).toEqual(['orders-agent', 'report.bot_2']);
  expect((await h.call('delete', `${audiences(A)}/${res.body.id}`, adminA)).status).toBe(204);
});

it('is the tenant’s own: another tenant gets 404 and an empty list, and changes nothing', async () => {
  expect((await h.call('get', `${audiences(B)}/${partnerId}`, adminB)).status).toBe(404);
  expect((await h.call('patch', `${audiences(B)}/${partnerId}`, adminB, { enabled: false })).status).toBe(404);
  expect((await h.call('delete', `${audiences(B)}/${partnerId}`, adminB)).status).toBe(404);
  expect((await h.call('get', audiences(B), adminB)).body.items).toEqual([]);
  // A's token does not reach B's path either (nor says whether B exists).
  expect((await h.call('get', audiences(B), adminA)).status).toBe(404);
  const stored = (await h.db.models.IdJagAudience.findById(partnerId).lean())!;
  expect([stored.tenantId, stored.enabled]).toEqual([A, true]);
  expect((await h.call('get', `${audiences(A)}/not-an-id`, adminA)).status).toBe(404);
});

it('needs auth.tenants.update to change and auth.tenants.list to read', async () => {
  const reader = await h.token(A, ['auth.tenants.list']);
  expect((await h.call('get', audiences(A), reader)).status).toBe(200);
  const refused = await h.call('patch', `${audiences(A)}/${partnerId}`, reader, { enabled: false });
  expect(refused.status).toBe(403);
  expect(refused.body.required_scope).toBe('auth.tenants.update');
  expect((await h.call('post', audiences(A), reader, { audience: 'https://x.example' })).status).toBe(403);
  const nobody = await h.token(A, ['auth.clients.list']);
  expect((await h.call('get', audiences(A), nobody)).status).toBe(403);
});

it('lists oldest first, a page at a time', async () => {
  const second = await h.call('post', audiences(A), adminA, { audience: 'https://second.example' });
  expect(second.status).toBe(201);
  const first = await h.call('get', `${audiences(A)}?limit=1`, adminA);
  expect(first.body.items.map((i: { id: string }) => i.id)).toEqual([partnerId]);
  expect(typeof first.body.nextCursor).toBe('string');
  const next = await h.call('get', `${audiences(A)}?limit=1&cursor=${first.body.nextCursor as string}`, adminA);
  expect(next.body.items.map((i: { id: string }) => i.id)).toEqual([second.body.id]);
  expect(next.body.nextCursor).toBeNull();
  expect((await h.call('delete', `${audiences(A)}/${second.body.id}`, adminA)).status).toBe(204);
});

it('PATCH changes settings, keeps the audience immutable, and checks a new clients list', async () => {
  const path = `${audiences(A)}/${partnerId}`;
  const res = await h.call('patch', path, adminA, {
    enabled: false,
    resources: ['https://mcp.partner.example/v2'],
    clients: [
      { clientId: 'mcp-agent', clientIdAtAudience: 'partner-client-42' },
      { clientId: 'mcp-other', clientIdAtAudience: 'partner-client-43' },
    ],
    agents: ['orders-agent'],
    scopes: ['files.read'],
    lifetimeSeconds: 120,
    description: 'Partner corp',
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    audience: partner.audience,
    enabled: false,
    resources: ['https://mcp.partner.example/v2'],
    agents: ['orders-agent'],
    scopes: ['files.read'],
    lifetimeSeconds: 120,
    description: 'Partner corp',
  });
  expect(res.body.clients).toHaveLength(2);
  const immutable = await h.call('patch', path, adminA, { audience: 'https://elsewhere.example' });
  expect(immutable.status).toBe(400);
  expect(invalidNames(immutable).join(' ')).toContain('body');
  const publicClient = await h.call('patch', path, adminA, {
    clients: [
      { clientId: 'mcp-agent', clientIdAtAudience: 'a' },
      { clientId: 'spa-public', clientIdAtAudience: 'b' },
    ],
  });
  expect(publicClient.status).toBe(400);
  expect(invalidNames(publicClient)).toEqual(['body.clients.1.clientId']);
  const bad = await h.call('patch', path, adminA, { lifetimeSeconds: 3600 });
  expect(invalidNames(bad)).toContain('body.lifetimeSeconds');
  // A client deleted since does not block a PATCH that leaves clients alone (disabling must always work).
  expect((await h.call('delete', `${clientsPath(A)}/mcp-other`, adminA)).status).toBe(204);
  const enable = await h.call('patch', path, adminA, { enabled: true, description: null });
  expect(enable.status).toBe(200);
  expect(enable.body.description).toBeUndefined();
  const stored = (await h.db.models.IdJagAudience.findById(partnerId).lean())!;
  expect([stored.audience, stored.enabled, stored.description, stored.lifetimeSeconds]).toEqual([
    partner.audience,
    true,
    undefined,
    120,
  ]);
  expect(stored.clients.map((c) => c.clientId)).toEqual(['mcp-agent', 'mcp-other']);
  expect(stored.agents).toEqual(['orders-agent']);
  expect(invalidNames(await h.call('patch', path, adminA, { agents: ['a b'] }))).toEqual(['body.agents.0']);
  const cleared = await h.call('patch', path, adminA, { clients: [], agents: [] });
  expect([cleared.body.clients, cleared.body.agents]).toEqual([[], []]);
});

it('deletes; tenant deletion takes its ID-JAG audiences with it', async () => {
  expect((await h.call('delete', `${audiences(A)}/${partnerId}`, adminA)).status).toBe(204);
  expect((await h.call('get', `${audiences(A)}/${partnerId}`, adminA)).status).toBe(404);
  expect((await h.call('delete', `${audiences(A)}/${partnerId}`, adminA)).status).toBe(404);
  expect(await h.db.models.IdJagAudience.countDocuments({ tenantId: A })).toBe(0);

  const sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
  const T = (await h.call('post', '/auth/admin/tenants', sys, { name: 'doomed' })).body.id as number;
  const admin = await h.token(T, [...MANAGEMENT_SCOPES]);
  const made = await h.call('post', audiences(T), admin, { audience: partner.audience, scopes: ['files.read'] });
  expect(made.status).toBe(201);
  expect(await h.db.models.IdJagAudience.countDocuments({ tenantId: T })).toBe(1);
  expect((await h.call('delete', `/auth/admin/tenants/${T}`, sys)).status).toBe(204);
  expect(await h.db.models.IdJagAudience.countDocuments({ tenantId: T })).toBe(0);
});
