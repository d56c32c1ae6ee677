/**
 * Disabling a whole tenant (Tenant.enabled), every service a separate process: the platform administrator PATCHes
 * enabled false through the management API; oidc-core then refuses the tenant's OAuth and OpenID endpoints (403
 * access_denied "tenant disabled", a page for a browser), introspection answers every token of the tenant inactive
 * (RFC 7662 section 2.2), and the delegation sidecar, called directly as oidc-core calls it, exchanges nothing. The
 * platform administrator still reads and changes the tenant; enabling it again restores everything, the tokens issued
 * before included.
 */
import { basicAuth, clientCredentialsToken, type TokenSet } from '../../src/clients/browserless-login';
import { postNheExchange, seededUserLogin, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

let h: Harness;
let systemToken: string;
let issuer: string;

beforeAll(async () => {
  h = await startHarness('tenantoff');
  const s = h.topology.secrets;
  systemToken = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.topology.systemTenantId,
      s.bootstrapAdminClientId,
      s.bootstrapAdminClientSecret,
      'urn:idp:management',
    )
  ).access_token;
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

async function manage(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.topology.baseUrl}/auth/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${systemToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });

const discovery = async () => json(await fetch(`${issuer}/.well-known/openid-configuration`));

async function introspect(token: string) {
  return json(
    await fetch(`${issuer}/token/introspection`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
      },
      body: new URLSearchParams({ token }),
    }),
  );
}

/** The sidecar's own exchange route, called as oidc-core calls it (loopback, the shared secret). */
async function sidecarExchange(subjectToken: string) {
  const sidecar = h.topology.services['nhe-delegation'];
  return json(
    await fetch(`http://127.0.0.1:${sidecar.port}/internal/token-exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sidecar-secret': h.topology.secrets.sidecarSecret },
      body: JSON.stringify({
        tenantId: h.tenant.tenantId,
        clientId: h.tenant.client.clientId,
        clientNumericId: h.tenant.client.numericId,
        sourceIp: '127.0.0.1',
        params: {
          grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
          subject_token: subjectToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          actor_token: h.tenant.nhe.identifier,
          actor_token_type: 'urn:vendor:token-type:nhe-id',
          resource: h.tenant.resource,
          scope: 'orders:read',
        },
      }),
    }),
  );
}

/** Invalidations reach oidc-core and the sidecar over NATS, asynchronously: poll briefly for the expected status. */
async function eventually<T extends { status: number }>(call: () => Promise<T>, status: number): Promise<T> {
  let last = await call();
  for (const deadline = Date.now() + 3000; last.status !== status && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 100));
    last = await call();
  }
  return last;
}

const DISABLED = { error: 'access_denied', error_description: 'tenant disabled' };

test('a disabled tenant answers nothing but inactive introspection; enabled again, everything works as before', async () => {
  const tokens: TokenSet = await seededUserLogin(h, { scope: 'openid offline_access', prompt: 'consent' });
  expect((await postNheExchange(h, tokens.access_token)).status).toBe(200);
  expect((await introspect(tokens.access_token)).body.active).toBe(true);
  expect((await manage('GET', `/tenants/${h.tenant.tenantId}`)).body.enabled).toBe(true);

  // Malformed or impossible: RFC 9457 problems naming the field.
  const bad = await manage('PATCH', `/tenants/${h.tenant.tenantId}`, { enabled: 'no' });
  expect([bad.status, bad.type]).toEqual([400, expect.stringContaining('application/problem+json')]);
  expect(bad.body.invalid_params).toEqual([expect.objectContaining({ name: 'body.enabled' })]);
  const system = await manage('PATCH', `/tenants/${h.topology.systemTenantId}`, { enabled: false });
  expect(system.status).toBe(400);
  expect(system.body.invalid_params).toEqual([expect.objectContaining({ name: 'body.enabled' })]);

  const off = await manage('PATCH', `/tenants/${h.tenant.tenantId}`, { enabled: false });
  expect([off.status, off.body.enabled]).toEqual([200, false]);

  // oidc-core: discovery, token endpoint (every grant), userinfo, JWKS: 403 access_denied.
  expect(await eventually(discovery, 403)).toEqual({ status: 403, body: DISABLED });
  expect(await json(await postNheExchange(h, tokens.access_token))).toEqual({ status: 403, body: DISABLED });
  const refresh = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
  });
  expect(await json(refresh)).toEqual({ status: 403, body: DISABLED });
  const userinfo = await fetch(`${issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(await json(userinfo)).toEqual({ status: 403, body: DISABLED });
  expect(await json(await fetch(`${issuer}/jwks`))).toEqual({ status: 403, body: DISABLED });
  // A browser at the authorization endpoint gets a page, never a redirect to the client.
  const authorize = await fetch(
    `${issuer}/authorize?${new URLSearchParams({
      client_id: h.tenant.client.clientId,
      response_type: 'code',
      redirect_uri: h.tenant.client.redirectUri,
      scope: 'openid',
    }).toString()}`,
    { headers: { accept: 'text/html' }, redirect: 'manual' },
  );
  expect([authorize.status, authorize.headers.get('content-type')]).toEqual([
    403,
    expect.stringContaining('text/html'),
  ]);
  expect(await authorize.text()).toContain('access_denied');

  // Introspection still authenticates its caller, then calls every token of the tenant inactive.
  expect(await introspect(tokens.access_token)).toEqual({ status: 200, body: { active: false } });
  expect(await introspect(tokens.refresh_token!)).toEqual({ status: 200, body: { active: false } });

  // The sidecar refuses on its own, whoever forwards the exchange.
  expect(await eventually(() => sidecarExchange(tokens.access_token), 403)).toEqual({ status: 403, body: DISABLED });

  // The platform administrator still manages the tenant.
  const renamed = await manage('PATCH', `/tenants/${h.tenant.tenantId}`, { name: `${h.tenant.tenantName} (off)` });
  expect([renamed.status, renamed.body.enabled]).toEqual([200, false]);
  expect((await manage('GET', `/tenants/${h.tenant.tenantId}/users`)).status).toBe(200);

  const on = await manage('PATCH', `/tenants/${h.tenant.tenantId}`, { enabled: true });
  expect([on.status, on.body.enabled]).toEqual([200, true]);
  expect((await eventually(discovery, 200)).body.issuer).toBe(issuer);
  expect((await introspect(tokens.access_token)).body.active).toBe(true);
  expect((await eventually(() => sidecarExchange(tokens.access_token), 200)).status).toBe(200);
  expect((await postNheExchange(h, tokens.access_token)).status).toBe(200);
});
