/**
 * Tenant settings.openidDynamicProfile (the OpenID Connect Dynamic OP profile): off by default, turned on and off by
 * PATCH (each change invalidates the tenant so oidc-core rebuilds its provider), strict validation, refused in a
 * FAPI 2.0 tenant whichever of the two settings a patch turns on, never on the system tenant (problem+json naming
 * the field); every response validated against the OpenAPI document, which describes the setting.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let adminA: string;
let sys: string;
beforeAll(async () => {
  h = await startHarness('mgmtoidd');
  adminA = await h.token(h.tenants.a, [...MANAGEMENT_SCOPES]);
  sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const t = (tenantId: number) => `/auth/admin/tenants/${tenantId}`;

it('is off by default, for new tenants and for records written before the setting existed', async () => {
  const created = await h.call('post', '/auth/admin/tenants', sys, { name: 'plain-oidd' });
  expect([created.status, created.body.settings.openidDynamicProfile]).toEqual([201, { enabled: false }]);
  expect((await h.call('get', t(h.tenants.a), adminA)).body.settings.openidDynamicProfile).toEqual({ enabled: false });
});

it('a tenant admin turns it on and off; each change invalidates the tenant; other settings stay', async () => {
  h.invalidations.length = 0;
  const on = await h.call('patch', t(h.tenants.a), adminA, { settings: { openidDynamicProfile: { enabled: true } } });
  expect([on.status, on.body.settings.openidDynamicProfile]).toEqual([200, { enabled: true }]);
  expect(on.body.settings.security).toEqual({ profile: 'standard' });
  expect(h.invalidations).toEqual([{ tenantId: h.tenants.a, kind: 'tenant', id: String(h.tenants.a) }]);
  expect((await h.db.models.Tenant.findById(h.tenants.a).lean())?.settings.openidDynamicProfile).toEqual({
    enabled: true,
  });
  const off = await h.call('patch', t(h.tenants.a), adminA, { settings: { openidDynamicProfile: { enabled: false } } });
  expect([off.status, off.body.settings.openidDynamicProfile]).toEqual([200, { enabled: false }]);
});

it('is refused in a FAPI 2.0 tenant, and FAPI 2.0 is refused while it is on; nothing changes', async () => {
  const bank = await h.call('post', '/auth/admin/tenants', sys, {
    name: 'bank-oidd',
    settings: { security: { profile: 'fapi2' } },
  });
  expect(bank.status).toBe(201);
  const refused = await h.call('patch', t(bank.body.id as number), sys, {
    settings: { openidDynamicProfile: { enabled: true } },
  });
  expect([refused.status, invalidNames(refused)]).toEqual([400, ['body.settings.openidDynamicProfile.enabled']]);
  expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(String(refused.body.detail ?? refused.body.title)).toMatch(/FAPI 2\.0/);
  expect((await h.call('get', t(bank.body.id as number), sys)).body.settings.openidDynamicProfile).toEqual({
    enabled: false,
  });
  // Both at once at creation.
  const both = await h.call('post', '/auth/admin/tenants', sys, {
    name: 'both-oidd',
    settings: { security: { profile: 'fapi2' }, openidDynamicProfile: { enabled: true } },
  });
  expect(both.status).toBe(400);
  // The other way round: the profile on, then FAPI 2.0.
  await h.call('patch', t(h.tenants.b), sys, { settings: { openidDynamicProfile: { enabled: true } } });
  const fapi = await h.call('patch', t(h.tenants.b), sys, { settings: { security: { profile: 'fapi2' } } });
  expect([fapi.status, invalidNames(fapi)]).toEqual([400, ['body.settings.security.profile']]);
  expect((await h.call('get', t(h.tenants.b), sys)).body.settings.security).toEqual({ profile: 'standard' });
  // Turning it off and FAPI 2.0 on in one patch is fine.
  const swap = await h.call('patch', t(h.tenants.b), sys, {
    settings: { security: { profile: 'fapi2' }, openidDynamicProfile: { enabled: false } },
  });
  expect([swap.status, swap.body.settings.openidDynamicProfile, swap.body.settings.security]).toEqual([
    200,
    { enabled: false },
    { profile: 'fapi2' },
  ]);
  await h.call('patch', t(h.tenants.b), sys, { settings: { security: { profile: 'standard' } } });
});

it.each([
  [{ settings: { openidDynamicProfile: { enabled: 'yes' } } }, 'body.settings.openidDynamicProfile.enabled'],
  [
    { settings: { openidDynamicProfile: { enabled: true, requestObjects: true } } },
    'body.settings.openidDynamicProfile',
  ],
  [{ settings: { openidDynamicProfile: true } }, 'body.settings.openidDynamicProfile'],
])('400 for %j, naming the field', async (body, name) => {
  const res = await h.call('patch', t(h.tenants.b), sys, body);
  expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
});

it('is not available to the system tenant', async () => {
  const res = await h.call('patch', t(h.tenants.system), sys, {
    settings: { openidDynamicProfile: { enabled: true } },
  });
  expect([res.status, invalidNames(res)]).toEqual([400, ['body.settings.openidDynamicProfile.enabled']]);
  expect((await h.db.models.Tenant.findById(h.tenants.system).lean())?.settings.openidDynamicProfile).toBeUndefined();
});

it('the OpenAPI document describes the setting in the Tenant schema and the update body', () => {
  const doc = h.doc as unknown as {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
  };
  const settingOf = (schema: unknown) =>
    (schema as { properties: { settings: { properties: { openidDynamicProfile: { description: string } } } } })
      .properties.settings.properties.openidDynamicProfile;
  expect(settingOf(doc.components.schemas.Tenant).description).toMatch(/request objects/);
  const patch = doc.paths['/auth/admin/tenants/{tenantId}']!.patch!.requestBody!.content['application/json']!.schema;
  expect(settingOf(patch).description).toMatch(/FAPI|fapi2/);
});
