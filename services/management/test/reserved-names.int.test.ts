/**
 * Reserved names: resource servers named `urn:IDP:management`, `urn:idp:management/` or
 * `urn:idp:management?` could be created and could register `auth.*` scope names. Identifiers that equal a built-in
 * audience after normalisation are refused, and the `auth.` scope prefix is the management API's; each is a 400
 * problem naming the field.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let T: number;
let admin: string;
const path = (rest: string) => `/auth/admin/tenants/${T}${rest}`;

beforeAll(async () => {
  h = await startHarness('mgmtreserved');
  T = h.tenants.a;
  admin = await h.token(T, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const expectInvalid = (
  res: { status: number; body: { type?: string; invalid_params?: Array<{ name: string; reason: string }> } },
  name: string,
  reason: RegExp,
) => {
  expect([res.status, res.body.type]).toEqual([400, 'https://idp.dev/problems/validation-error']);
  expect(res.body.invalid_params).toEqual(expect.arrayContaining([{ name, reason: expect.stringMatching(reason) }]));
};

it('refuses identifiers that normalise to the management audience (the spellings reported, and more)', async () => {
  for (const identifier of [
    'urn:idp:management',
    'urn:IDP:management',
    'urn:idp:management/',
    'urn:idp:management?',
    'urn:idp:management#',
    'URN:IDP:MANAGEMENT/?',
  ]) {
    const res = await h.call('post', path('/resource-servers'), admin, {
      identifier,
      name: 'fake management',
      scopes: ['orders:read'],
    });
    expectInvalid(res, 'body.identifier', /^is reserved for the management API/);
  }
  expect(await h.db.models.ResourceServer.countDocuments({ tenantId: T })).toBe(0);
});

it('reserves the auth. scope prefix on create and on update', async () => {
  const create = await h.call('post', path('/resource-servers'), admin, {
    identifier: 'https://orders.example',
    name: 'orders',
    scopes: ['orders:read', 'auth.users.update', 'AUTH.clients.delete'],
  });
  expectInvalid(create, 'body.scopes.1', /auth\. prefix is reserved/);
  expectInvalid(create, 'body.scopes.2', /auth\. prefix is reserved/);
  expect(invalidNames(create)).toEqual(['body.scopes.1', 'body.scopes.2']);
  const ok = await h.call('post', path('/resource-servers'), admin, {
    identifier: 'https://orders.example',
    name: 'orders',
    scopes: ['orders:read', 'authz:read'],
  });
  expect(ok.status).toBe(201);
  const patch = await h.call('patch', path(`/resource-servers/${ok.body.id}`), admin, {
    scopes: ['orders:read', 'auth.nhe.create'],
  });
  expectInvalid(patch, 'body.scopes.1', /auth\. prefix is reserved/);
  expect((await h.db.models.ResourceServer.findById(ok.body.id).lean())?.scopes).toEqual(['orders:read', 'authz:read']);
});

it('other identifiers in the same namespace stay available', async () => {
  for (const identifier of ['urn:idp:management-reports', 'urn:idp:management/reports']) {
    expect(
      (await h.call('post', path('/resource-servers'), admin, { identifier, name: identifier, scopes: [] })).status,
    ).toBe(201);
  }
});
