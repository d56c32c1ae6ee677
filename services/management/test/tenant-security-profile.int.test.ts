/**
 * Tenant settings.security.profile (FAPI 2.0 for tenants that ask for it): default `standard`, `fapi2`
 * set at creation or by PATCH (each change invalidates the tenant so oidc-core rebuilds its provider), strict
 * validation, never on the system tenant; every response validated against the OpenAPI document, which describes
 * the setting.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let adminA: string;
let sys: string;
beforeAll(async () => {
  h = await startHarness('mgmtsecprofile');
  adminA = await h.token(h.tenants.a, [...MANAGEMENT_SCOPES]);
  sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const t = (tenantId: number) => `/auth/admin/tenants/${tenantId}`;

it('is standard by default, for new tenants and for records written before the setting existed', async () => {
  const created = await h.call('post', '/auth/admin/tenants', sys, { name: 'plain' });
  expect([created.status, created.body.settings.security]).toEqual([201, { profile: 'standard' }]);
  // A record without settings.security (written before it existed).
  await h.db.models.Tenant.updateOne({ _id: h.tenants.a }, { $unset: { 'settings.security': 1 } });
  expect((await h.db.models.Tenant.findById(h.tenants.a).lean())?.settings.security).toBeUndefined();
  expect((await h.call('get', t(h.tenants.a), adminA)).body.settings.security).toEqual({ profile: 'standard' });
});

it('a tenant is created under FAPI 2.0, and a tenant admin turns it on and off; each change invalidates the tenant', async () => {
  const created = await h.call('post', '/auth/admin/tenants', sys, {
    name: 'bank',
    settings: { security: { profile: 'fapi2' } },
  });
  expect([created.status, created.body.settings.security]).toEqual([201, { profile: 'fapi2' }]);
  expect((await h.db.models.Tenant.findById(created.body.id).lean())?.settings.security?.profile).toBe('fapi2');

  h.invalidations.length = 0;
  const on = await h.call('patch', t(h.tenants.a), adminA, { settings: { security: { profile: 'fapi2' } } });
  expect([on.status, on.body.settings.security]).toEqual([200, { profile: 'fapi2' }]);
  expect(h.invalidations).toEqual([{ tenantId: h.tenants.a, kind: 'tenant', id: String(h.tenants.a) }]);
  // Other settings are left as they were.
  expect(on.body.settings.nhe.enabled).toBe(true);
  expect((await h.call('get', t(h.tenants.a), adminA)).body.settings.security).toEqual({ profile: 'fapi2' });
  const off = await h.call('patch', t(h.tenants.a), adminA, { settings: { security: { profile: 'standard' } } });
  expect([off.status, off.body.settings.security]).toEqual([200, { profile: 'standard' }]);
  expect(h.invalidations).toHaveLength(2);
});

it.each([
  [{ settings: { security: { profile: 'FAPI2' } } }, 'body.settings.security.profile'],
  [{ settings: { security: { profile: 'fapi1' } } }, 'body.settings.security.profile'],
  [{ settings: { security: { profile: true } } }, 'body.settings.security.profile'],
  [{ settings: { security: { enabled: true } } }, 'body.settings.security'],
  [{ settings: { fapi2: { enabled: true } } }, 'body.settings'],
])('400 for %j, naming the field; nothing changes', async (body, name) => {
  const res = await h.call('patch', t(h.tenants.b), sys, body);
  expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
  expect((await h.call('get', t(h.tenants.b), sys)).body.settings.security).toEqual({ profile: 'standard' });
});

it('the system tenant cannot be put under FAPI 2.0 (its bootstrap admin authenticates with a client secret)', async () => {
  const res = await h.call('patch', t(h.tenants.system), sys, { settings: { security: { profile: 'fapi2' } } });
  expect([res.status, invalidNames(res)]).toEqual([400, ['body.settings.security.profile']]);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect((await h.db.models.Tenant.findById(h.tenants.system).lean())?.settings.security?.profile).not.toBe('fapi2');
  expect(
    (await h.call('patch', t(h.tenants.system), sys, { settings: { security: { profile: 'standard' } } })).status,
  ).toBe(200);
});

it('the OpenAPI document describes the setting in the Tenant schema and in the create and update bodies', () => {
  const doc = h.doc as unknown as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  };
  const profileOf = (schema: unknown) =>
    (
      schema as {
        properties: {
          settings: { properties: { security: { properties: { profile: { enum: string[]; description: string } } } } };
        };
      }
    ).properties.settings.properties.security.properties.profile;
  const inTenant = profileOf(doc.components.schemas.Tenant);
  expect(inTenant.enum).toEqual(['standard', 'fapi2']);
  expect(inTenant.description).toMatch(/FAPI 2\.0/);
  const bodyOf = (path: string, method: string) =>
    doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
  for (const [path, method] of [
    ['/auth/admin/tenants', 'post'],
    ['/auth/admin/tenants/{tenantId}', 'patch'],
  ] as const) {
    const profile = profileOf(bodyOf(path, method));
    expect([path, profile.enum]).toEqual([path, ['standard', 'fapi2']]);
    expect(profile.description).toMatch(/private_key_jwt/);
  }
});
