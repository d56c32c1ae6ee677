/**
 * Every endpoint answers the HTTP methods its specification names.
 * - OpenID Connect Core 3.1.2.1: the authorization endpoint takes POST (form-serialized) as well as GET; a form
 *   POST completes the code flow with PKCE under /auth and /_api/auth (it used to be 404 "no such endpoint").
 * - RP-Initiated Logout 1.0 section 2: GET and POST at the end-session endpoint.
 * - UserInfo (OpenID Connect Core 5.3.1, RFC 6750 section 2): GET and POST, the token in the Authorization header
 *   or (POST) in the form body, for the provider's opaque tokens and the tenant's UserInfo-audience JWTs.
 * - Device authorization, PAR, token, revocation, introspection: POST only (405 with Allow otherwise).
 */
import { createHash, randomBytes } from 'node:crypto';
import { basicAuth } from '@idp/testing';
import { FORM_POST_LIMIT_BYTES } from '../src/routes/form-post-endpoints';
import { Browser, followToRedirectUri, redeem, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
let t: number;

beforeAll(async () => {
  app = await startPagesApp('endpoint-methods');
  t = app.tenant.tenantId;
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

function authorizationParams(extra: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: app.tenant.client.clientId,
    response_type: 'code',
    redirect_uri: app.tenant.client.redirectUri,
    scope: 'openid profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st-post',
    nonce: 'n-post',
    ...extra,
  });
  return { params, verifier };
}

async function rawPost(path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
  return {
    status: res.status,
    location: res.headers.get('location') ?? undefined,
    headers: res.headers,
    text: await res.text(),
  };
}

/** A form POST authorization request by a browser, through login, to the code and the tokens. */
async function codeFlowByPost(prefix: string, browser = new Browser(app.baseUrl)) {
  const { params, verifier } = authorizationParams();
  const posted = await browser.go(`${prefix}/auth/${t}/authorize`, { form: Object.fromEntries(params) });
  expect(posted.status).toBe(303);
  expect(posted.headers.get('cache-control')).toBe('no-store');
  const again = new URL(posted.location!, app.baseUrl);
  expect(again.pathname).toBe(`${prefix}/auth/${t}/authorize`);
  expect(Object.fromEntries(again.searchParams)).toEqual(Object.fromEntries(params));
  const login = await browser.go(again.toString());
  expect(login.status).toBe(303);
  const interaction = new URL(login.location!, app.baseUrl).pathname;
  const done = await browser.go(`${interaction}/login`, {
    form: { username: app.tenant.user.username, password: app.tenant.user.password },
  });
  const callback = await followToRedirectUri(browser, done.location, app.tenant.client.redirectUri);
  expect(callback.searchParams.get('state')).toBe('st-post');
  return { browser, tokens: await redeem(app, app.tenant.client, callback.searchParams.get('code')!, verifier) };
}

describe('authorization endpoint: POST (form-serialized)', () => {
  it.each(['', '/_api'])('a form POST under "%s/auth" completes the code flow with PKCE', async (prefix) => {
    const { tokens } = await codeFlowByPost(prefix);
    expect(tokens.id_token.split('.')).toHaveLength(3);
    expect(tokens.access_token).toBeTruthy();
  });

  it('a POST with the session cookie signs in without a login page (prompt=none gives a code)', async () => {
    const { browser } = await codeFlowByPost('');
    const { params } = authorizationParams({ prompt: 'none', state: 'silent' });
    const posted = await browser.go(`/auth/${t}/authorize`, { form: Object.fromEntries(params) });
    const callback = await followToRedirectUri(browser, posted.location, app.tenant.client.redirectUri);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe('silent');
  });

  it('the provider validates the posted parameters as for GET: a repeated parameter, an unregistered redirect_uri', async () => {
    const { params } = authorizationParams();
    const repeated = new URLSearchParams(params);
    repeated.append('scope', 'openid');
    const b = new Browser(app.baseUrl);
    const dup = await b.go((await rawPost(`/auth/${t}/authorize`, repeated.toString())).location!);
    const error = new URL(dup.location!);
    expect(error.searchParams.get('error')).toBe('invalid_request');
    expect(error.searchParams.get('error_description')).toBe("'scope' parameter must not be provided twice");
    const evil = authorizationParams({ redirect_uri: 'https://evil.example/cb' }).params;
    const refused = await b.go((await rawPost(`/auth/${t}/authorize`, evil.toString())).location!);
    expect(refused.status).toBe(400);
    expect(refused.location).toBeUndefined();
  });

  it('only the form body is read: a query string on the POST is not a parameter', async () => {
    const { params } = authorizationParams();
    const res = await rawPost(`/auth/${t}/authorize?prompt=none&state=from-query`, params.toString());
    const again = new URL(res.location!, app.baseUrl);
    expect(again.searchParams.get('prompt')).toBeNull();
    expect(again.searchParams.getAll('state')).toEqual(['st-post']);
  });

  it('a body that is not a form, too large or with too many parameters is an error page, never a redirect', async () => {
    const json = await rawPost(`/auth/${t}/authorize`, JSON.stringify({ client_id: 'demo-app' }), {
      'content-type': 'application/json',
    });
    expect([json.status, json.location, json.headers.get('content-type')]).toEqual([
      400,
      undefined,
      expect.stringMatching(/^text\/html/),
    ]);
    expect(json.text).toContain('application/x-www-form-urlencoded');
    const big = await rawPost(`/auth/${t}/authorize`, `client_id=demo-app&state=${'x'.repeat(FORM_POST_LIMIT_BYTES)}`);
    expect([big.status, big.location]).toEqual([413, undefined]);
    expect(big.text).toContain('pushed authorization request');
    const many = await rawPost(`/auth/${t}/authorize`, Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&'));
    expect([many.status, many.location]).toEqual([400, undefined]);
    expect(many.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('a parameter value cannot reach the Location header unescaped', async () => {
    const res = await rawPost(`/auth/${t}/authorize`, 'client_id=demo-app&state=a%0d%0aSet-Cookie:%20x=1');
    expect(res.status).toBe(303);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(new URL(res.location!, app.baseUrl).searchParams.get('state')).toBe('a\r\nSet-Cookie: x=1');
  });

  it('other methods are 405 with Allow', async () => {
    for (const prefix of ['', '/_api']) {
      const res = await fetch(`${app.baseUrl}${prefix}/auth/${t}/authorize`, { method: 'PUT' });
      expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST']);
    }
  });
});

describe('end-session endpoint: GET and POST', () => {
  it('a form POST to /session/end is the same request as its GET', async () => {
    const form = new URLSearchParams({
      client_id: app.tenant.client.clientId,
      post_logout_redirect_uri: app.postLogoutUri,
      state: 'bye',
    });
    const res = await rawPost(`/_api/auth/${t}/session/end`, form.toString());
    expect(res.status).toBe(303);
    const again = new URL(res.location!, app.baseUrl);
    expect(again.pathname).toBe(`/_api/auth/${t}/session/end`);
    expect(again.searchParams.toString()).toBe(form.toString());
    const b = new Browser(app.baseUrl);
    const page = await b.go(again.toString());
    expect(page.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)![1]!;
    const done = await b.go(`/_api/auth/${t}/session/end/confirm`, { form: { xsrf, logout: 'yes' } });
    expect(done.location).toBe(`${app.postLogoutUri}?state=bye`);
  });
});

describe('UserInfo: GET and POST, the token in the header or the form body (RFC 6750 section 2)', () => {
  let opaque: string;
  let jwt: string;

  beforeAll(async () => {
    opaque = (await codeFlowByPost('')).tokens.access_token;
    // The tenant's UserInfo audience: a JWT access token, answered by oidc-core's own UserInfo route.
    const b = new Browser(app.baseUrl);
    const { params, verifier } = authorizationParams({ resource: `${app.baseUrl}/auth/${t}/me` });
    const login = await b.go(`/auth/${t}/authorize?${params}`);
    const done = await b.go(`${new URL(login.location!, app.baseUrl).pathname}/login`, {
      form: { username: app.tenant.user.username, password: app.tenant.user.password },
    });
    const callback = await followToRedirectUri(b, done.location, app.tenant.client.redirectUri);
    const res = await fetch(`${app.baseUrl}/auth/${t}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: app.tenant.client.redirectUri,
        code_verifier: verifier,
        resource: `${app.baseUrl}/auth/${t}/me`,
      }),
    });
    jwt = ((await res.json()) as { access_token: string }).access_token;
  });

  it('both kinds of token are what the test means', () => {
    expect(opaque.split('.')).toHaveLength(1);
    expect(jwt.split('.')).toHaveLength(3);
  });

  it.each([
    ['GET, header', 'opaque'],
    ['POST, header', 'opaque'],
    ['POST, form body', 'opaque'],
    ['GET, header', 'jwt'],
    ['POST, header', 'jwt'],
    ['POST, form body', 'jwt'],
  ])('%s (%s token)', async (how, kind) => {
    const token = kind === 'jwt' ? jwt : opaque;
    for (const prefix of ['', '/_api']) {
      const url = `${app.baseUrl}${prefix}/auth/${t}/me`;
      const res =
        how === 'GET, header'
          ? await fetch(url, { headers: { authorization: `Bearer ${token}` } })
          : how === 'POST, header'
            ? await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
            : await fetch(url, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: new URLSearchParams({ access_token: token }),
              });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { sub?: string; name?: string };
      expect(body.sub).toBeTruthy();
    }
  });

  it('a token in both the header and the body is refused; a bad body token is invalid_token', async () => {
    for (const token of [opaque, jwt]) {
      const both = await fetch(`${app.baseUrl}/auth/${t}/me`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: token }),
      });
      expect(both.status).toBe(400);
      expect(((await both.json()) as { error: string }).error).toBe('invalid_request');
    }
    const [h, p] = jwt.split('.');
    const forged = await fetch(`${app.baseUrl}/auth/${t}/me`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: `${h}.${p}.AAAA` }),
    });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: string }).error).toBe('invalid_token');
    expect(forged.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});

describe('machine endpoints: POST only', () => {
  it.each([['/device/auth'], ['/request'], ['/oidc/token'], ['/token/revocation'], ['/token/introspection']])(
    'GET %s is 405 Allow: POST',
    async (path) => {
      const res = await fetch(`${app.baseUrl}/auth/${t}${path}`);
      expect([res.status, res.headers.get('allow')]).toEqual([405, 'POST']);
    },
  );

  it('PAR takes a form POST and its request_uri completes at the authorization endpoint', async () => {
    const { params } = authorizationParams();
    const res = await fetch(`${app.baseUrl}/auth/${t}/request`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret),
      },
      body: params,
    });
    expect(res.status).toBe(201);
    const { request_uri } = (await res.json()) as { request_uri: string };
    const b = new Browser(app.baseUrl);
    const posted = await b.go(`/auth/${t}/authorize`, { form: { client_id: app.tenant.client.clientId, request_uri } });
    const login = await b.go(posted.location!);
    expect(login.location).toMatch(new RegExp(`/auth/${t}/interaction/`));
  });
});
