/**
 * A disabled tenant (Tenant.enabled false) through the management API, over real HTTP (supertest) and the real store:
 * only the platform's (system-tenant) administrators may turn a tenant off or on, the tenant's own administrators'
 * tokens are refused while it is off, and its SCIM service provider (RFC 7644) provisions nothing with the tenant's
 * own SCIM credentials (a credential never expires, so it is checked against the flag on every request); the
 * platform's administrators still provision.
 */
import request from 'supertest';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { startHarness, type Harness } from './harness';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let h: Harness;
let A: number;
let adminA: string;
let platform: string;
let credA: string;

const scimUsers = (token: string) =>
  request(h.app).get(`/auth/${A}/scim/v2/Users`).set('authorization', `Bearer ${token}`);

beforeAll(async () => {
  h = await startHarness('mgmttenantoff');
  A = h.tenants.a;
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  platform = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
  const created = await h.call('post', `/auth/admin/tenants/${A}/scim-credentials`, adminA, { description: 'entra' });
  expect(created.status).toBe(201);
  credA = (created.body as { secret: string }).secret;
});
afterAll(async () => h.close());

test("only the platform's administrators turn a tenant off or on; its own administrators get 403", async () => {
  for (const enabled of [false, true]) {
    const own = await h.call('patch', `/auth/admin/tenants/${A}`, adminA, { enabled });
    expect(own.status).toBe(403);
    expect(own.headers['content-type']).toMatch(/^application\/problem\+json/);
  }
  expect((await h.db.models.Tenant.findById(A).lean())?.enabled).not.toBe(false);
});

test("a disabled tenant's SCIM credential and administrators are refused; the platform still provisions", async () => {
  expect((await scimUsers(credA)).status).toBe(200);

  const off = await h.call('patch', `/auth/admin/tenants/${A}`, platform, { enabled: false });
  expect([off.status, (off.body as { enabled: boolean }).enabled]).toEqual([200, false]);

  const refused = await scimUsers(credA);
  expect(refused.status).toBe(403);
  expect(refused.headers['content-type']).toMatch(/^application\/scim\+json/);
  expect(refused.body).toMatchObject({ schemas: [ERROR], status: '403', detail: 'tenant disabled' });
  // A write is refused the same way, before anything is stored.
  const write = await request(h.app)
    .post(`/auth/${A}/scim/v2/Users`)
    .set('authorization', `Bearer ${credA}`)
    .set('content-type', 'application/scim+json')
    .send(JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'while-off' }));
  expect(write.status).toBe(403);
  expect(await h.db.models.User.exists({ tenantId: A, username: 'while-off' })).toBeNull();
  // The tenant's own administrators: their tokens are refused (auth/tenant-keys.ts).
  expect((await h.call('get', `/auth/admin/tenants/${A}/users`, adminA)).status).toBe(401);
  // The platform's administrators keep managing and provisioning it.
  expect((await scimUsers(platform)).status).toBe(200);

  const on = await h.call('patch', `/auth/admin/tenants/${A}`, platform, { enabled: true });
  expect(on.status).toBe(200);
  expect((await scimUsers(credA)).status).toBe(200);
});
