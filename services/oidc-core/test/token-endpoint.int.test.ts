/**
 * The token endpoint is served without express (app.ts `listener`): it must answer exactly as the express-routed
 * paths do — security headers, request id, metrics by route template, the /_api alias, OAuth JSON errors for an
 * unknown tenant — and every other path must still reach the express app.
 */
import { basicAuth } from '@idp/testing';
import { startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;

beforeAll(async () => {
  app = await startPagesApp('token-endpoint');
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

const form = (body: Record<string, string>) => new URLSearchParams(body).toString();

async function token(path: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret),
      ...headers,
    },
    body: form(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

it.each(['/auth/{t}/oidc/token', '/_api/auth/{t}/oidc/token'])(
  '%s answers through the provider with the app headers',
  async (template) => {
    const res = await token(
      template.replace('{t}', String(app.tenant.tenantId)),
      {
        grant_type: 'authorization_code',
        code: 'not-a-code',
        redirect_uri: app.tenant.client.redirectUri,
        code_verifier: 'v'.repeat(43),
      },
      { 'x-request-id': 'trace-42' },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.headers.get('cache-control')).toBe('no-store');
    // The prelude: helmet, request id; the provider pages' own headers.
    expect(res.headers.get('x-request-id')).toBe('trace-42');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toMatch(/max-age=/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBeTruthy();
    expect(res.headers.get('x-powered-by')).toBeNull();
  },
);

it('a wrong client secret is 401 invalid_client, as at any token request', async () => {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.tenant.client.clientId, 'wrong'),
    },
    body: form({ grant_type: 'authorization_code', code: 'x', redirect_uri: app.tenant.client.redirectUri }),
  });
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: string }).error).toBe('invalid_client');
});

it('an unknown tenant is a 404 OAuth error, on the token path and elsewhere alike', async () => {
  const fast = await token('/auth/987654321/oidc/token', { grant_type: 'client_credentials' });
  expect(fast.status).toBe(404);
  expect(fast.body).toEqual({ error: 'not_found', error_description: 'unknown tenant' });
  expect(fast.headers.get('content-type')).toMatch(/^application\/json/);
  expect(fast.headers.get('x-request-id')).toBeTruthy();
  const routed = await fetch(`${app.baseUrl}/auth/987654321/.well-known/openid-configuration`);
  expect(routed.status).toBe(404);
  expect(await routed.json()).toEqual(fast.body);
  // A tenant id with a leading zero is not another spelling of the tenant (its issuer would not match).
  const padded = await fetch(`${app.baseUrl}/auth/0${app.tenant.tenantId}/.well-known/openid-configuration`);
  expect([padded.status, await padded.json()]).toEqual([404, fast.body]);
  expect((await token(`/auth/0${app.tenant.tenantId}/oidc/token`, { grant_type: 'client_credentials' })).status).toBe(
    404,
  );
});

it('other methods and paths still reach the express app', async () => {
  const get = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/oidc/token`);
  expect(get.status).not.toBe(200);
  expect(get.headers.get('x-request-id')).toBeTruthy();
  const discovery = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/.well-known/openid-configuration`);
  expect(discovery.status).toBe(200);
  expect(((await discovery.json()) as { token_endpoint: string }).token_endpoint).toBe(
    `${app.baseUrl}/auth/${app.tenant.tenantId}/oidc/token`,
  );
});

it.each([
  ['GET', '/oidc/token', 'POST'],
  ['PUT', '/oidc/token', 'POST'],
  ['GET', '/token/introspection', 'POST'],
  ['POST', '/jwks', 'GET, HEAD'],
  ['DELETE', '/me', 'GET, HEAD, POST'],
])('%s %s under a known tenant: 405 OAuth JSON with Allow: %s', async (method, path, allow) => {
  for (const prefix of ['', '/_api']) {
    const res = await fetch(`${app.baseUrl}${prefix}/auth/${app.tenant.tenantId}${path}`, { method });
    expect([res.status, res.headers.get('allow'), res.headers.get('content-type')]).toEqual([
      405,
      allow,
      expect.stringMatching(/^application\/json/),
    ]);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
  }
});

it('a grant the client is not registered for is unauthorized_client (RFC 6749 5.2), at the token and device endpoints', async () => {
  const res = await token(`/auth/${app.tenant.tenantId}/oidc/token`, { grant_type: 'client_credentials' });
  expect([res.status, res.body]).toEqual([
    400,
    { error: 'unauthorized_client', error_description: 'requested grant type is not allowed for this client' },
  ]);
  const device = await token(`/auth/${app.tenant.tenantId}/device/auth`, { scope: 'openid' });
  expect([device.status, device.body.error]).toEqual([400, 'unauthorized_client']);
});

it('an unknown path under a known tenant: 404 OAuth JSON, as for an unknown tenant', async () => {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/nope`);
  expect([res.status, res.headers.get('content-type')]).toEqual([404, expect.stringMatching(/^application\/json/)]);
  expect(await res.json()).toEqual({ error: 'not_found', error_description: 'no such endpoint' });
});

it('counts token requests under the route template, never under a tenant id', async () => {
  const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/auth\/:tenantId\/oidc\/token"[^}]*status="400"/);
  expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/_api\/auth\/:tenantId\/oidc\/token"/);
  expect(metrics).not.toMatch(/route="[^"]*\/auth\/\d+/);
});

it('the JWKS and introspection take the same path, with the same headers and labels', async () => {
  const jwks = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/jwks`, {
    headers: { 'x-request-id': 'jwks-1' },
  });
  expect(jwks.status).toBe(200);
  expect(((await jwks.json()) as { keys: unknown[] }).keys.length).toBeGreaterThan(0);
  expect(jwks.headers.get('x-request-id')).toBe('jwks-1');
  expect(jwks.headers.get('x-content-type-options')).toBe('nosniff');
  const introspection = await fetch(`${app.baseUrl}/_api/auth/${app.tenant.tenantId}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret),
    },
    body: form({ token: 'not-a-token' }),
  });
  expect(introspection.status).toBe(200);
  expect(await introspection.json()).toEqual({ active: false });
  // A POST to the JWKS is not a hot path: express routes it to the provider, which refuses the method.
  const wrongMethod = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/jwks`, { method: 'POST' });
  expect(wrongMethod.status).not.toBe(200);
  const metrics = await (await fetch(`${app.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/auth\/:tenantId\/jwks"[^}]*status="200"/);
  expect(metrics).toMatch(/http_requests_total\{[^}]*route="\/_api\/auth\/:tenantId\/token\/introspection"/);
});
