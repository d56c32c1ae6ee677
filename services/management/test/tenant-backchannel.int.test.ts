/**
 * Tenant settings.backchannelAuthentication (OpenID CIBA Core 1.0 human approval): off by default with its documented
 * defaults, changed by PATCH (invalidating the tenant), strict validation naming the field, never on the system
 * tenant; CIBA clients' delivery mode and notification endpoint; every response validated against the OpenAPI document.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let adminA: string;
let sys: string;
beforeAll(async () => {
  h = await startHarness('mgmtciba');
  adminA = await h.token(h.tenants.a, [...MANAGEMENT_SCOPES]);
  sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const t = (tenantId: number) => `/auth/admin/tenants/${tenantId}`;
const DEFAULTS = {
  enabled: false,
  requestLifetimeSeconds: 300,
  maxPendingPerUser: 5,
  maxPendingPerClient: 100,
  pollIntervalSeconds: 5,
  approvalMaxAuthAgeSeconds: null,
};

it('is off by default with the documented defaults', async () => {
  expect((await h.call('get', t(h.tenants.a), adminA)).body.settings.backchannelAuthentication).toEqual(DEFAULTS);
});

it('a tenant admin turns it on with its limits; the change invalidates the tenant; null clears the sign-in age', async () => {
  h.invalidations.length = 0;
  const on = await h.call('patch', t(h.tenants.a), adminA, {
    settings: {
      backchannelAuthentication: {
        enabled: true,
        requestLifetimeSeconds: 120,
        maxPendingPerUser: 3,
        approvalMaxAuthAgeSeconds: 600,
      },
    },
  });
  expect([on.status, on.body.settings.backchannelAuthentication]).toEqual([
    200,
    { ...DEFAULTS, enabled: true, requestLifetimeSeconds: 120, maxPendingPerUser: 3, approvalMaxAuthAgeSeconds: 600 },
  ]);
  expect(h.invalidations).toEqual([{ tenantId: h.tenants.a, kind: 'tenant', id: String(h.tenants.a) }]);
  const cleared = await h.call('patch', t(h.tenants.a), adminA, {
    settings: { backchannelAuthentication: { approvalMaxAuthAgeSeconds: null } },
  });
  expect(cleared.body.settings.backchannelAuthentication.approvalMaxAuthAgeSeconds).toBeNull();
});

it.each([
  [{ requestLifetimeSeconds: 5 }, 'body.settings.backchannelAuthentication.requestLifetimeSeconds'],
  [{ maxPendingPerUser: 0 }, 'body.settings.backchannelAuthentication.maxPendingPerUser'],
  [{ maxPendingPerClient: 10_001 }, 'body.settings.backchannelAuthentication.maxPendingPerClient'],
  [{ pollIntervalSeconds: 120 }, 'body.settings.backchannelAuthentication.pollIntervalSeconds'],
  [{ push: true }, 'body.settings.backchannelAuthentication'],
])('refuses %j naming the field', async (patch, name) => {
  const res = await h.call('patch', t(h.tenants.a), adminA, { settings: { backchannelAuthentication: patch } });
  expect(res.status).toBe(400);
  expect(invalidNames(res).join(' ')).toContain(name);
});

it('is refused on the system tenant', async () => {
  const res = await h.call('patch', t(h.tenants.system), sys, {
    settings: { backchannelAuthentication: { enabled: true } },
  });
  expect([res.status, invalidNames(res)]).toEqual([400, ['body.settings.backchannelAuthentication.enabled']]);
});

it('a CIBA client: ping needs its https notification endpoint', async () => {
  const path = `${t(h.tenants.a)}/clients`;
  const missing = await h.call('post', path, adminA, {
    name: 'pinged',
    grantTypes: ['urn:openid:params:grant-type:ciba'],
    backchannelTokenDeliveryMode: 'ping',
  });
  expect([missing.status, invalidNames(missing)]).toEqual([400, ['body.backchannelClientNotificationEndpoint']]);
  const http = await h.call('post', path, adminA, {
    name: 'pinged',
    grantTypes: ['urn:openid:params:grant-type:ciba'],
    backchannelTokenDeliveryMode: 'ping',
    backchannelClientNotificationEndpoint: 'http://agent.example/notify',
  });
  expect(http.status).toBe(400);
  const ok = await h.call('post', path, adminA, {
    name: 'pinged',
    grantTypes: ['urn:openid:params:grant-type:ciba'],
    backchannelTokenDeliveryMode: 'ping',
    backchannelClientNotificationEndpoint: 'https://agent.example/notify',
  });
  expect(ok.status).toBe(201);
  expect(ok.body).toMatchObject({
    grantTypes: ['urn:openid:params:grant-type:ciba'],
    backchannelTokenDeliveryMode: 'ping',
    backchannelClientNotificationEndpoint: 'https://agent.example/notify',
  });
});

it('a CIBA client authenticates: a public client (tokenEndpointAuthMethod none) is refused', async () => {
  const res = await h.call('post', `${t(h.tenants.a)}/clients`, adminA, {
    name: 'public agent',
    grantTypes: ['urn:openid:params:grant-type:ciba'],
    tokenEndpointAuthMethod: 'none',
  });
  expect([res.status, invalidNames(res)]).toEqual([400, ['body.grantTypes']]);
});
