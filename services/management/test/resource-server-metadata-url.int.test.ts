/**
 * A resource server's RFC 9728 Protected Resource Metadata URL: recorded by an admin on create and patch,
 * validated (https, or http on a loopback host; no credentials or fragment; at the well-known path), removed with
 * null, and null for records that predate it. Every response is validated against the OpenAPI document by the
 * harness.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let admin: string;
beforeAll(async () => {
  h = await startHarness('rsmeta');
  A = h.tenants.a;
  admin = await h.token(A, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const r = (rest = '') => `/auth/admin/tenants/${A}/resource-servers${rest}`;

it('records the metadata URL on create, changes and removes it by PATCH; absent reads as null', async () => {
  const plain = await h.call('post', r(), admin, { identifier: 'https://plain.meta.example', name: 'Plain' });
  expect([plain.status, plain.body.metadataUrl]).toEqual([201, null]);

  const created = await h.call('post', r(), admin, {
    identifier: 'https://api.meta.example/orders',
    name: 'Orders',
    metadataUrl: 'https://api.meta.example/.well-known/oauth-protected-resource/orders',
  });
  expect(created.status).toBe(201);
  expect(created.body.metadataUrl).toBe('https://api.meta.example/.well-known/oauth-protected-resource/orders');
  const id = created.body.id as string;
  expect((await h.call('get', r(`/${id}`), admin)).body.metadataUrl).toBe(
    'https://api.meta.example/.well-known/oauth-protected-resource/orders',
  );

  const dev = await h.call('patch', r(`/${id}`), admin, {
    metadataUrl: 'http://127.0.0.1:8080/.well-known/oauth-protected-resource',
  });
  expect([dev.status, dev.body.metadataUrl]).toEqual([
    200,
    'http://127.0.0.1:8080/.well-known/oauth-protected-resource',
  ]);
  const renamed = await h.call('patch', r(`/${id}`), admin, { name: 'Orders API' });
  expect(renamed.body.metadataUrl).toBe('http://127.0.0.1:8080/.well-known/oauth-protected-resource');
  const removed = await h.call('patch', r(`/${id}`), admin, { metadataUrl: null });
  expect([removed.status, removed.body.metadataUrl]).toEqual([200, null]);
  const stored = await h.db.models.ResourceServer.findById(id).lean();
  expect(stored && 'metadataUrl' in stored).toBe(false);
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'resource-server', id });
});

it.each([
  ['http on a public host', 'http://api.meta.example/.well-known/oauth-protected-resource'],
  ['not a URL', 'api.meta.example/.well-known/oauth-protected-resource'],
  ['another scheme', 'ftp://api.meta.example/.well-known/oauth-protected-resource'],
  ['credentials', 'https://user:pw@api.meta.example/.well-known/oauth-protected-resource'],
  ['a fragment', 'https://api.meta.example/.well-known/oauth-protected-resource#x'],
  ['the API URL instead of its metadata', 'https://api.meta.example/orders'],
  ['a look-alike well-known path', 'https://api.meta.example/.well-known/oauth-protected-resourcex'],
  ['too long', `https://api.meta.example/.well-known/oauth-protected-resource/${'a'.repeat(2100)}`],
])('refuses %s with 400 naming body.metadataUrl, on create and on patch', async (_name, url) => {
  const create = await h.call('post', r(), admin, {
    identifier: `https://bad-${Math.random().toString(36).slice(2)}.example`,
    name: 'Bad',
    metadataUrl: url,
  });
  expect([create.status, invalidNames(create)]).toEqual([400, ['body.metadataUrl']]);
  const existing = await h.call('post', r(), admin, {
    identifier: `https://ok-${Math.random().toString(36).slice(2)}.example`,
    name: 'Ok',
  });
  const patch = await h.call('patch', r(`/${existing.body.id as string}`), admin, { metadataUrl: url });
  expect([patch.status, invalidNames(patch)]).toEqual([400, ['body.metadataUrl']]);
});
