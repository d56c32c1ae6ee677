/**
 * Security headers of every page: strict CSP (no unsafe-inline, stylesheet by hash, form-action limited to the
 * provider and the client's redirect origin), no framing; the provider's own auto-submit pages (device
 * verification_uri_complete, no-session logout) get the hash of exactly their script. Also the /_api alias and
 * the device pages' error messages.
 */
import { createHash } from 'node:crypto';
import { basicAuth, createClient } from '@idp/testing';
import {
  Browser,
  followToRedirectUri,
  PEPPER,
  signIn,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';

let app: PagesApp;
let device: { clientId: string; clientSecret: string };

beforeAll(async () => {
  app = await startPagesApp('pages');
  device = await createClient(app.db.models, PEPPER, {
    tenantId: app.tenant.tenantId,
    clientId: 'tv',
    name: 'TV',
    grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
  });
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

function directives(csp: string | null): Record<string, string[]> {
  return Object.fromEntries(
    (csp ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k!, v]),
  );
}

function expectStrict(headers: Headers): Record<string, string[]> {
  const csp = headers.get('content-security-policy');
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  const d = directives(csp);
  expect(d['default-src']).toEqual(["'none'"]);
  expect(d['frame-ancestors']).toEqual(["'none'"]);
  expect(d['base-uri']).toEqual(["'none'"]);
  expect(headers.get('x-frame-options')).toBe('DENY');
  return d;
}

const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

it('login page: stylesheet allowed by its hash, forms limited to the provider and the redirect origin', async () => {
  for (const alias of [false, true]) {
    const b = new Browser(app.baseUrl);
    const { interaction } = await startAuthorize(app, b, app.tenant.client);
    const page = await b.go(alias ? `/_api${interaction}` : interaction);
    expect(page.status).toBe(200);
    const d = expectStrict(page.headers);
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1]!;
    expect(d['style-src']).toEqual([sha(style)]);
    expect(d['form-action']).toEqual(["'self'", 'http://127.0.0.1:8400']);
    expect(page.text).not.toContain('<script');
    expect(page.text).toContain('<label for="username">Username</label>');
    expect(page.headers.get('cache-control')).toBe('no-store');
  }
});

it('device pages: own design, xsrf form, clear errors, and the provider auto-submit under a hashed script', async () => {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/device/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(device.clientId, device.clientSecret),
    },
    body: new URLSearchParams({ scope: 'openid' }),
  });
  const { user_code, verification_uri_complete } = (await res.json()) as {
    user_code: string;
    verification_uri_complete: string;
  };
  const b = new Browser(app.baseUrl);
  const input = await b.go(`/_api/auth/${app.tenant.tenantId}/device`);
  expect(input.status).toBe(200);
  expectStrict(input.headers);
  expect(input.text).toContain('<label for="user_code">Code shown on your device</label>');
  expect(input.text).toContain(`action="${app.baseUrl}/_api/auth/${app.tenant.tenantId}/device"`);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(input.text)![1]!;

  const wrong = await b.go(`/_api/auth/${app.tenant.tenantId}/device`, { form: { xsrf, user_code: 'BCDF-GHJK' } });
  expect(wrong.text).toContain('That code is not valid or has expired');
  expect(wrong.text).toContain('value="BCDF-GHJK"');

  // The error page carries a fresh xsrf value.
  const xsrf2 = /name="xsrf" value="([^"]+)"/.exec(wrong.text)![1]!;
  const confirm = await b.go(`/_api/auth/${app.tenant.tenantId}/device`, { form: { xsrf: xsrf2, user_code } });
  expect(confirm.status).toBe(200);
  expect(confirm.text).toContain('Connect TV?');
  expect(confirm.text).toContain(
    `<p class="code-display" aria-label="Code ${user_code.split('').join(' ')}">${user_code}</p>`,
  );

  // verification_uri_complete: the provider's own auto-submit page; its script is allowed by hash, nothing else.
  const auto = await new Browser(app.baseUrl).go(verification_uri_complete);
  const d = expectStrict(auto.headers);
  const script = /<script>([\s\S]*?)<\/script>/.exec(auto.text)![1]!;
  expect(d['script-src']).toContain(sha(script));
  expect(d['script-src']).toHaveLength(2);
});

it('device pages without a session cookie: the code page again with a session of its own, never a 500', async () => {
  const path = `/auth/${app.tenant.tenantId}/device`;
  for (const attempt of [
    () =>
      fetch(`${app.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'user_code=ABCD-EFGH',
      }),
    () => fetch(`${app.baseUrl}${path}/not-a-device-session`),
  ]) {
    const res = await attempt();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('set-cookie')).toMatch(new RegExp(`_session_${app.tenant.tenantId}=`));
    expect(await res.text()).toContain('<label for="user_code">Code shown on your device</label>');
  }
  // The form of such a page works: its xsrf value belongs to the session the cookie names.
  const b = new Browser(app.baseUrl);
  const first = await b.go(path, { form: { user_code: 'ABCD-EFGH' } });
  expect(first.status).toBe(400);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(first.text)![1]!;
  const again = await b.go(path, { form: { xsrf, user_code: 'BCDF-GHJK' } });
  expect(again.text).toContain('That code is not valid or has expired');
});

it("a user's saved consent skips the consent page until its grant is deleted; then the user is asked again", async () => {
  const redirectUri = 'https://consenting.example/cb';
  await createClient(app.db.models, PEPPER, {
    tenantId: app.tenant.tenantId,
    clientId: 'consenting',
    name: 'Consenting app',
    grantTypes: ['authorization_code'],
    redirectUris: [redirectUri],
    firstParty: false,
  });
  const client = { clientId: 'consenting', redirectUri };
  const b = new Browser(app.baseUrl);
  // Login, then the consent page (not first-party), then the code.
  const { interaction } = await startAuthorize(app, b, client);
  const login = await b.go(`${interaction}/login`, {
    form: { username: app.tenant.user.username, password: app.tenant.user.password },
  });
  const consentAt = new URL((await b.go(login.location!)).location!, app.baseUrl).pathname;
  expect((await b.go(consentAt)).text).toMatch(/Consenting app/);
  const consented = await b.go(`${consentAt}/confirm`, { form: {} });
  expect((await followToRedirectUri(b, consented.location, redirectUri)).searchParams.get('code')).toBeTruthy();
  // Saved: prompt=none gives a code at once.
  const silent = async () =>
    new URL(
      (
        await b.go(
          `/auth/${app.tenant.tenantId}/authorize?${new URLSearchParams({ client_id: 'consenting', response_type: 'code', redirect_uri: redirectUri, scope: 'openid', prompt: 'none', code_challenge: 'E9Melhoa2OwvFrEMTJguCgaXoWWpw9XnYtk0hV0Vh3M', code_challenge_method: 'S256' })}`,
        )
      ).location!,
      app.baseUrl,
    );
  expect((await silent()).searchParams.get('code')).toBeTruthy();
  // What management does when the client gains a redirect URI (domain/client-grants.ts): the grant is gone.
  await app.db.models.OidcPayload.deleteMany({
    tenantId: app.tenant.tenantId,
    model: 'Grant',
    payload: { $regex: '"clientId":"consenting"' },
  });
  expect((await silent()).searchParams.get('error')).toBe('consent_required');
});

it('a first-party client whose saved grant was deleted gets a fresh one, not a consent page', async () => {
  const client = app.tenant.client;
  const b = new Browser(app.baseUrl);
  await signIn(app, b, client);
  const silent = async () =>
    new URL(
      (
        await b.go(
          `/auth/${app.tenant.tenantId}/authorize?${new URLSearchParams({ client_id: client.clientId, response_type: 'code', redirect_uri: client.redirectUri, scope: 'openid', prompt: 'none', code_challenge: 'E9Melhoa2OwvFrEMTJguCgaXoWWpw9XnYtk0hV0Vh3M', code_challenge_method: 'S256' })}`,
        )
      ).location!,
      app.baseUrl,
    );
  expect((await silent()).searchParams.get('code')).toBeTruthy();
  const removed = await app.db.models.OidcPayload.deleteMany({
    tenantId: app.tenant.tenantId,
    model: 'Grant',
    payload: { $regex: `"clientId":"${client.clientId}"` },
  });
  expect(removed.deletedCount).toBeGreaterThan(0);
  expect((await silent()).searchParams.get('code')).toBeTruthy();
});

it('the no-session logout auto-submit page allows exactly its own script', async () => {
  const b = new Browser(app.baseUrl);
  const first = await b.go(`/auth/${app.tenant.tenantId}/logout/confirm?client_id=${app.tenant.client.clientId}`);
  const end = await b.go(first.location!);
  const d = expectStrict(end.headers);
  const script = /<script>([\s\S]*?)<\/script>/.exec(end.text)![1]!;
  expect(d['script-src']).toContain(sha(script));
});
