/**
 * Resource scopes and RBAC for every flow (authorization code, device, refresh, client credentials), one test per
 * row of the spec's narrowing table (requireAuthorizationScopesInRequest false / true) and per flow the row names,
 * plus requireResourceIndicatorInRequest, tokens without `resource`, roles through groups, revocation at the next
 * refresh, login scopes never in `scope`, and resource servers that only accept delegation tokens.
 */
import { createClient } from '@idp/testing';
import { LOGIN_SCOPES } from '../src/provider/claims';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import {
  authCodeFlow,
  clientCredentials,
  deviceFlow,
  jwtPayload,
  refresh,
  type TestClient,
  type TokenBody,
} from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const NHE_ONLY = 'https://api.agents-only.example';
const REDIRECT = 'http://127.0.0.1:8404/callback';
const GRANTS = [
  'authorization_code',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:device_code',
  'client_credentials',
];

let app: PagesApp;
let refundRoleId: string;
let groupId: string;
/** Clients by toggle: f = requireAuthorizationScopesInRequest false, t = true, r = requireResourceIndicatorInRequest. */
const clients: Record<'f' | 't' | 'r', TestClient> = {} as never;

/** alice holds orders:read + orders:write directly and orders:refund through the "refunds" group; never orders:admin. */
const FULL = 'orders:read orders:refund orders:write';

beforeAll(async () => {
  app = await startPagesApp('narrowing');
  const { models } = app.db;
  const t = app.tenant.tenantId;
  await models.ResourceServer.updateOne(
    { tenantId: t, identifier: ORDERS },
    { $set: { scopes: ['orders:read', 'orders:write', 'orders:refund', 'orders:admin'] } },
  );
  await models.ResourceServer.create({
    tenantId: t,
    identifier: NHE_ONLY,
    name: 'Agents only',
    scopes: ['agents:run'],
    config: {
      accessToken: { lifetime: 300 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: true, allowedNheTypes: [] },
    },
  });
  const refund = await models.Role.create({
    tenantId: t,
    name: 'orders-refunder',
    resourceServer: ORDERS,
    permissions: ['orders:refund'],
  });
  refundRoleId = String(refund._id);
  const group = await models.Group.create({ tenantId: t, name: 'refunds', roleIds: [refundRoleId] });
  groupId = String(group._id);
  await models.User.updateOne({ tenantId: t, _id: app.tenant.user.id }, { $set: { groupIds: [groupId] } });
  // Client roles for client credentials: orders:read + orders:write.
  const clerk = await models.Role.findOne({ tenantId: t, name: 'orders-clerk' }).lean();
  for (const [key, toggles] of [
    ['f', {}],
    ['t', { 'config.featureToggles.requireAuthorizationScopesInRequest': true }],
    ['r', { 'config.featureToggles.requireResourceIndicatorInRequest': true }],
  ] as const) {
    const c = await createClient(models, PEPPER, {
      tenantId: t,
      clientId: `narrow-${key}`,
      name: key,
      grantTypes: [...GRANTS],
      responseTypes: ['code'],
      redirectUris: [REDIRECT],
      firstParty: true,
      roleIds: [String(clerk!._id)],
    });
    await models.Client.updateOne({ tenantId: t, clientId: c.clientId }, { $set: toggles });
    clients[key] = { ...c, redirectUri: REDIRECT };
  }
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

type Flow = 'authorization_code' | 'device_code';
const flows: Flow[] = ['authorization_code', 'device_code'];

function userFlow(flow: Flow, client: TestClient, scope: string, resource?: string) {
  return flow === 'authorization_code'
    ? authCodeFlow(app, client, { scope, resource, prompt: 'consent' })
    : deviceFlow(app, client, { scope, resource });
}

function ok(res: { status: number; body: TokenBody }): TokenBody {
  expect(res.body.error).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body;
}

/** The signed scope of a JWT access token, as a sorted list ('' when omitted). */
function signedScope(body: TokenBody): string {
  const payload = jwtPayload(body.access_token);
  expect(payload).toBeDefined();
  return String(payload!.scope ?? '')
    .split(' ')
    .filter(Boolean)
    .sort()
    .join(' ');
}

function noLoginScopes(body: TokenBody): void {
  const scope = String(jwtPayload(body.access_token)?.scope ?? '');
  for (const s of scope.split(' ')) expect(LOGIN_SCOPES.has(s)).toBe(false);
}

describe('narrowing table, requireAuthorizationScopesInRequest = false (default): the full applicable RBAC set', () => {
  it.each(flows)('%s (and its refresh): whatever was requested, including nothing', async (flow) => {
    for (const requested of [
      'openid offline_access orders:read',
      'openid offline_access',
      'openid offline_access orders:admin profile',
    ]) {
      const tokens = ok(await userFlow(flow, clients.f, requested, ORDERS));
      expect(jwtPayload(tokens.access_token)!.aud).toBe(ORDERS);
      expect(signedScope(tokens)).toBe(FULL);
      noLoginScopes(tokens);
      const refreshed = ok(await refresh(app, clients.f, tokens.refresh_token!));
      expect(signedScope(refreshed)).toBe(FULL);
      noLoginScopes(refreshed);
    }
  });

  it('authorization code without any scope parameter (an OAuth client naming only the API, as MCP clients may): the full set, not access_denied', async () => {
    const tokens = ok(await authCodeFlow(app, clients.f, { scope: undefined, resource: ORDERS }));
    expect(jwtPayload(tokens.access_token)!.aud).toBe(ORDERS);
    expect(signedScope(tokens)).toBe(FULL);
    expect(tokens.id_token).toBeUndefined();
    // requireAuthorizationScopesInRequest = true: still nothing without scopes (unchanged).
    const strict = await authCodeFlow(app, clients.t, { scope: undefined, resource: ORDERS });
    expect(strict.body.access_token).toBeUndefined();
    expect(strict.body.error).toBe('access_denied');
  });

  it('client_credentials: every scope of the client roles, whatever the token request asked', async () => {
    for (const scope of ['orders:read', 'orders:admin', '']) {
      const res = ok(await clientCredentials(app, clients.f, { resource: ORDERS, ...(scope ? { scope } : {}) }));
      expect(signedScope(res)).toBe('orders:read orders:write');
    }
  });
});

describe('narrowing table, requireAuthorizationScopesInRequest = true: exactly the requested subset held', () => {
  it.each(flows)(
    '%s (and its refresh): requested scopes the user holds, never beyond RBAC; omitted when none',
    async (flow) => {
      const some = ok(
        await userFlow(flow, clients.t, 'openid offline_access orders:read orders:refund orders:admin', ORDERS),
      );
      expect(signedScope(some)).toBe('orders:read orders:refund');
      noLoginScopes(some);
      const refreshed = ok(await refresh(app, clients.t, some.refresh_token!));
      expect(signedScope(refreshed)).toBe('orders:read orders:refund');
      // A refresh may narrow further, never widen.
      expect(
        signedScope(ok(await refresh(app, clients.t, refreshed.refresh_token!, { scope: 'openid orders:read' }))),
      ).toBe('orders:read');

      const none = ok(await userFlow(flow, clients.t, 'openid offline_access orders:admin', ORDERS));
      expect(jwtPayload(none.access_token)).not.toHaveProperty('scope');
    },
  );

  it.each(flows)('%s: resource scopes only at the token request are too late', async (flow) => {
    const tokens = ok(await userFlow(flow, clients.t, 'openid offline_access', ORDERS));
    expect(jwtPayload(tokens.access_token)).not.toHaveProperty('scope');
    const late = await refresh(app, clients.t, tokens.refresh_token!, { scope: 'openid orders:read' });
    if (late.status === 200) expect(jwtPayload(late.body.access_token)).not.toHaveProperty('scope');
    else expect(late.body.error).toBe('invalid_scope');
  });

  it('client_credentials: the token request scope narrows to what the client roles hold', async () => {
    expect(
      signedScope(
        ok(await clientCredentials(app, clients.t, { resource: ORDERS, scope: 'orders:read orders:refund' })),
      ),
    ).toBe('orders:read');
    expect(
      signedScope(ok(await clientCredentials(app, clients.t, { resource: ORDERS, scope: 'orders:write orders:read' }))),
    ).toBe('orders:read orders:write');
    expect(
      jwtPayload(ok(await clientCredentials(app, clients.t, { resource: ORDERS })).access_token),
    ).not.toHaveProperty('scope');
  });
});

describe('requireResourceIndicatorInRequest = true: resource required, scopes not narrowed', () => {
  it.each(flows)(
    '%s without resource fails with invalid_target; with it the full RBAC set is granted',
    async (flow) => {
      const missing = await userFlow(flow, clients.r, 'openid orders:read');
      expect(missing.body.error).toBe('invalid_target');
      expect(missing.body.error_description).toMatch(/resource parameter is required/);
      expect(signedScope(ok(await userFlow(flow, clients.r, 'openid orders:read', ORDERS)))).toBe(FULL);
    },
  );

  it('client_credentials without resource fails with invalid_target', async () => {
    const res = await clientCredentials(app, clients.r, { scope: 'orders:read' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_target');
    expect(signedScope(ok(await clientCredentials(app, clients.r, { resource: ORDERS, scope: 'orders:read' })))).toBe(
      'orders:read orders:write',
    );
  });
});

describe('audience selection and RBAC', () => {
  it.each(flows)(
    '%s without resource: an opaque token for no API audience, no API scopes in the response',
    async (flow) => {
      const tokens = ok(await userFlow(flow, clients.f, 'openid profile orders:read'));
      expect(jwtPayload(tokens.access_token)).toBeUndefined();
      expect(String(tokens.scope ?? '')).not.toMatch(/orders:/);
    },
  );

  it("a role removed from the user's group is gone at the next refresh; roles through groups count until then", async () => {
    const { models } = app.db;
    const tokens = ok(
      await authCodeFlow(app, clients.f, { scope: 'openid offline_access', resource: ORDERS, prompt: 'consent' }),
    );
    expect(signedScope(tokens)).toContain('orders:refund');
    await models.Group.updateOne({ tenantId: app.tenant.tenantId, _id: groupId }, { $set: { roleIds: [] } });
    try {
      const refreshed = ok(await refresh(app, clients.f, tokens.refresh_token!));
      expect(signedScope(refreshed)).toBe('orders:read orders:write');
    } finally {
      await models.Group.updateOne(
        { tenantId: app.tenant.tenantId, _id: groupId },
        { $set: { roleIds: [refundRoleId] } },
      );
    }
  });

  it('a resource server that requires delegation tokens gets no ordinary access token (invalid_target)', async () => {
    expect((await authCodeFlow(app, clients.f, { scope: 'openid agents:run', resource: NHE_ONLY })).body.error).toBe(
      'invalid_target',
    );
    expect((await deviceFlow(app, clients.f, { scope: 'openid agents:run', resource: NHE_ONLY })).body.error).toBe(
      'invalid_target',
    );
    const cc = await clientCredentials(app, clients.f, { resource: NHE_ONLY });
    expect(cc.status).toBe(400);
    expect(cc.body.error).toBe('invalid_target');
  });

  it('an unknown resource is invalid_target, never a 500', async () => {
    const cc = await clientCredentials(app, clients.f, { resource: 'https://nowhere.example' });
    expect(cc.status).toBe(400);
    expect(cc.body.error).toBe('invalid_target');
    expect(
      (await authCodeFlow(app, clients.f, { scope: 'openid', resource: 'https://nowhere.example' })).body.error,
    ).toBe('invalid_target');
  });
});
