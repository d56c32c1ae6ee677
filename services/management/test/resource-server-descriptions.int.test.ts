/**
 * Optional per-scope descriptions on resource servers (what the consent page says for each API scope):
 * set on create and patch, validated against the registered scopes, pruned with the scopes they describe, and
 * absent from requests and documents that predate them (backward compatible). Every response is validated
 * against the OpenAPI document by the harness.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let admin: string;
beforeAll(async () => {
  h = await startHarness('rsdesc');
  A = h.tenants.a;
  admin = await h.token(A, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const r = (rest = '') => `/auth/admin/tenants/${A}/resource-servers${rest}`;

it('a resource server created without descriptions answers an empty map (older clients keep working)', async () => {
  const res = await h.call('post', r(), admin, {
    identifier: 'https://plain.example',
    name: 'Plain',
    scopes: ['a:read'],
  });
  expect(res.status).toBe(201);
  expect(res.body.scopeDescriptions).toEqual({});
  // A record written before descriptions existed reads the same.
  const old = await h.db.models.ResourceServer.create({
    tenantId: A,
    identifier: 'https://old.example',
    name: 'Old',
    scopes: ['x'],
  });
  expect((await h.call('get', r(`/${String(old._id)}`), admin)).body.scopeDescriptions).toEqual({});
});

it('creates and patches descriptions; they must name registered scopes and follow the scopes they describe', async () => {
  const created = await h.call('post', r(), admin, {
    identifier: 'https://orders.example',
    name: 'Orders',
    scopes: ['orders:read', 'orders.write'],
    scopeDescriptions: { 'orders:read': 'See your orders', 'orders.write': 'Change your orders' },
  });
  expect(created.status).toBe(201);
  expect(created.body.scopeDescriptions).toEqual({
    'orders:read': 'See your orders',
    'orders.write': 'Change your orders',
  });
  const id = created.body.id as string;

  // A description for a scope the server does not register: 400 naming it, nothing written.
  const bad = await h.call('patch', r(`/${id}`), admin, { scopeDescriptions: { 'orders:admin': 'Everything' } });
  expect([bad.status, invalidNames(bad)]).toEqual([400, ['body.scopeDescriptions.orders:admin']]);
  const badCreate = await h.call('post', r(), admin, {
    identifier: 'https://x.example',
    name: 'x',
    scopes: ['a'],
    scopeDescriptions: { b: 'B' },
  });
  expect([badCreate.status, invalidNames(badCreate)]).toEqual([400, ['body.scopeDescriptions.b']]);
  const empty = await h.call('post', r(), admin, {
    identifier: 'https://y.example',
    name: 'y',
    scopes: ['a'],
    scopeDescriptions: { a: '' },
  });
  expect(empty.status).toBe(400);

  // Patching the map replaces it.
  const replaced = await h.call('patch', r(`/${id}`), admin, {
    scopeDescriptions: { 'orders:read': 'Read your orders' },
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body.scopeDescriptions).toEqual({ 'orders:read': 'Read your orders' });

  // Removing a scope drops its description; other fields leave descriptions alone.
  const renamed = await h.call('patch', r(`/${id}`), admin, { name: 'Orders API' });
  expect(renamed.body.scopeDescriptions).toEqual({ 'orders:read': 'Read your orders' });
  const narrowed = await h.call('patch', r(`/${id}`), admin, { scopes: ['orders.write'] });
  expect(narrowed.body.scopeDescriptions).toEqual({});
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'resource-server', id });
});
