/**
 * A resource server's introspecting clients (RFC 7662 section 4: the authorization server limits which protected
 * resources may introspect which tokens): `introspectionClientIds` is set on create and replaced by PATCH, reads as
 * [] when absent, names only confidential clients of the same tenant (400 naming the entry otherwise), and loses a
 * client when that client is deleted. Every response is validated against the OpenAPI document by the harness.
 */
import { createClient } from '@idp/testing';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, PEPPER, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let admin: string;
beforeAll(async () => {
  h = await startHarness('rsintro');
  A = h.tenants.a;
  admin = await h.token(A, [...MANAGEMENT_SCOPES]);
  const { models } = h.db;
  await createClient(models, PEPPER, {
    tenantId: A,
    clientId: 'orders-api',
    name: 'Orders API',
    grantTypes: ['client_credentials'],
  });
  await createClient(models, PEPPER, {
    tenantId: A,
    clientId: 'gateway',
    name: 'Gateway',
    grantTypes: ['client_credentials'],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [] },
  });
  await createClient(models, PEPPER, {
    tenantId: A,
    clientId: 'spa',
    name: 'SPA',
    grantTypes: ['authorization_code'],
    tokenEndpointAuthMethod: 'none',
    redirectUris: ['http://127.0.0.1:8400/cb'],
  });
  await createClient(models, PEPPER, {
    tenantId: h.tenants.b,
    clientId: 'b-api',
    name: 'B API',
    grantTypes: ['client_credentials'],
  });
});
afterAll(async () => h.close());

const r = (rest = '') => `/auth/admin/tenants/${A}/resource-servers${rest}`;
let seq = 0;
const identifier = () => `https://api-${(seq += 1)}.introspect.example`;

it('is [] when not set; set on create, replaced by PATCH (duplicates dropped), kept by other PATCHes', async () => {
  const plain = await h.call('post', r(), admin, { identifier: identifier(), name: 'Plain' });
  expect([plain.status, plain.body.introspectionClientIds]).toEqual([201, []]);

  const created = await h.call('post', r(), admin, {
    identifier: identifier(),
    name: 'Orders',
    introspectionClientIds: ['orders-api'],
  });
  expect([created.status, created.body.introspectionClientIds]).toEqual([201, ['orders-api']]);
  const id = created.body.id as string;
  expect((await h.call('get', r(`/${id}`), admin)).body.introspectionClientIds).toEqual(['orders-api']);

  const replaced = await h.call('patch', r(`/${id}`), admin, {
    introspectionClientIds: ['gateway', 'orders-api', 'gateway'],
  });
  expect([replaced.status, replaced.body.introspectionClientIds]).toEqual([200, ['gateway', 'orders-api']]);
  const renamed = await h.call('patch', r(`/${id}`), admin, { name: 'Orders API' });
  expect(renamed.body.introspectionClientIds).toEqual(['gateway', 'orders-api']);
  const cleared = await h.call('patch', r(`/${id}`), admin, { introspectionClientIds: [] });
  expect([cleared.status, cleared.body.introspectionClientIds]).toEqual([200, []]);
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'resource-server', id });
});

it.each([
  ['an unknown client', ['orders-api', 'no-such-client'], 'body.introspectionClientIds.1'],
  ["another tenant's client", ['b-api'], 'body.introspectionClientIds.0'],
  ['a public client (it proves no identity)', ['spa'], 'body.introspectionClientIds.0'],
  ['a malformed client_id', ['x'], 'body.introspectionClientIds.0'],
])('refuses %s with 400 naming the entry, on create and on patch', async (_name, ids, name) => {
  const create = await h.call('post', r(), admin, {
    identifier: identifier(),
    name: 'Bad',
    introspectionClientIds: ids,
  });
  expect([create.status, create.headers['content-type'], invalidNames(create)]).toEqual([
    400,
    expect.stringMatching(/^application\/problem\+json/),
    [name],
  ]);
  const existing = await h.call('post', r(), admin, { identifier: identifier(), name: 'Ok' });
  const patch = await h.call('patch', r(`/${existing.body.id as string}`), admin, { introspectionClientIds: ids });
  expect([patch.status, invalidNames(patch)]).toEqual([400, [name]]);
});

it('deleting a client removes it from every list (a later client of the same client_id is not an introspector)', async () => {
  await createClient(h.db.models, PEPPER, {
    tenantId: A,
    clientId: 'short-lived',
    name: 'Short-lived',
    grantTypes: ['client_credentials'],
  });
  const one = await h.call('post', r(), admin, {
    identifier: identifier(),
    name: 'One',
    introspectionClientIds: ['short-lived', 'orders-api'],
  });
  const two = await h.call('post', r(), admin, {
    identifier: identifier(),
    name: 'Two',
    introspectionClientIds: ['short-lived'],
  });
  expect((await h.call('delete', `/auth/admin/tenants/${A}/clients/short-lived`, admin)).status).toBe(204);
  expect((await h.call('get', r(`/${one.body.id as string}`), admin)).body.introspectionClientIds).toEqual([
    'orders-api',
  ]);
  expect((await h.call('get', r(`/${two.body.id as string}`), admin)).body.introspectionClientIds).toEqual([]);
});
