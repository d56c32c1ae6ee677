/**
 * GET /logout/confirm edge cases without a browser: refused requests show an error page and never redirect
 * (unregistered post_logout_redirect_uri, unknown client, tampered / alg-none / foreign-tenant id_token_hint),
 * show_prompt and showLogoutPrompt decide between the page and an immediate logout, the provider's xsrf
 * protects the sign-out, state comes back untouched, and /session/end always logs out at once.
 * RP-Initiated Logout: /logout/confirm is the advertised end_session_endpoint; it takes GET and form POST and passes
 * ui_locales on. It asks by default; show_prompt=false, or a client with showLogoutPrompt false, goes straight to
 * /session/end with or without id_token_hint (spec: the hint only names the client when client_id is absent). The
 * query is parsed as a URL's: a `?` inside it is data (state=a?b comes back whole; a post_logout_redirect_uri with
 * an extra query is not the registered one).
 */
import { randomInt } from 'node:crypto';
import { SignJWT, importJWK, decodeJwt } from 'jose';
import { seedDelegationTenant } from '@idp/testing';
import { logoutPromptCookie } from '../src/provider/logout';
import {
  Browser,
  PEPPER,
  redeem,
  signIn,
  startAuthorize,
  startPagesApp,
  followToRedirectUri,
  type PagesApp,
} from './pages-app';

let app: PagesApp;
let idToken: string;
let t: number;

beforeAll(async () => {
  app = await startPagesApp('logout');
  t = app.tenant.tenantId;
  const browser = new Browser(app.baseUrl);
  const auth = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${auth.interaction}/login`, {
    form: { username: 'alice', password: app.tenant.user.password },
  });
  const cb = await followToRedirectUri(browser, res.location, app.tenant.client.redirectUri);
  idToken = (await redeem(app, app.tenant.client, cb.searchParams.get('code')!, auth.verifier)).id_token;
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

const confirmUrl = (params: Record<string, string>, alias = false) =>
  `${alias ? '/_api' : ''}/auth/${t}/logout/confirm?${new URLSearchParams(params)}`;

async function expectRefused(params: Record<string, string>, message: RegExp) {
  const res = await new Browser(app.baseUrl).go(confirmUrl(params));
  expect(res.status).toBe(400);
  expect(res.location).toBeUndefined();
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(res.text).toMatch(message);
  expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
}

describe('refused requests: error page, no redirect', () => {
  it('unregistered post_logout_redirect_uri', async () => {
    await expectRefused(
      { client_id: app.tenant.client.clientId, post_logout_redirect_uri: 'https://evil.example/steal', state: 's' },
      /not registered/,
    );
    // A URI registered for another client of the tenant is not enough either.
    await expectRefused(
      { client_id: app.tenant.client.clientId, post_logout_redirect_uri: 'http://127.0.0.1:8401/bye' },
      /not registered/,
    );
  });

  it('post_logout_redirect_uri without a client', async () => {
    await expectRefused({ post_logout_redirect_uri: app.postLogoutUri }, /needs client_id/);
  });

  it('unknown client_id', async () => {
    await expectRefused({ client_id: 'no-such-client' }, /not a client of this tenant/);
  });

  it('tampered id_token_hint', async () => {
    const [h, p, s] = idToken.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url')}.${s}`;
    await expectRefused(
      { id_token_hint: forged, post_logout_redirect_uri: app.postLogoutUri },
      /id_token_hint is not valid/,
    );
  });

  it('alg none id_token_hint', async () => {
    const payload = decodeJwt(idToken);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
    await expectRefused({ id_token_hint: none, post_logout_redirect_uri: app.postLogoutUri }, /not a signed ID token/);
  });

  it('id_token_hint of another tenant (same client id, its own valid signature)', async () => {
    const other = await seedDelegationTenant(app.db.models, app.keyStore, {
      tenantId: randomInt(1_000_001, 2_000_000),
      clientSecretPepper: PEPPER,
    });
    const keys = await app.keyStore.load(other.tenantId);
    const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
    const foreign = await new SignJWT({ ...decodeJwt(idToken), iss: `${app.baseUrl}/auth/${other.tenantId}` })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
      .sign(await importJWK(jwk, 'ES256'));
    await expectRefused(
      { id_token_hint: foreign, post_logout_redirect_uri: app.postLogoutUri },
      /id_token_hint is not valid/,
    );
  });

  it('id_token_hint issued to a different client than client_id', async () => {
    await expectRefused({ id_token_hint: idToken, client_id: app.second.clientId }, /not issued to client_id/);
  });

  it('a post_logout_redirect_uri with an extra query written unencoded (?foo=bar) is not the registered one', async () => {
    const raw = `/auth/${t}/logout/confirm?client_id=${app.tenant.client.clientId}&post_logout_redirect_uri=${app.postLogoutUri}?foo=bar&state=s`;
    const res = await new Browser(app.baseUrl).go(raw);
    expect([res.status, res.location]).toEqual([400, undefined]);
    expect(res.text).toMatch(/post_logout_redirect_uri is not registered/);
  });

  it('repeated or malformed parameters', async () => {
    const res = await new Browser(app.baseUrl).go(`/auth/${t}/logout/confirm?client_id=demo-app&client_id=demo-app`);
    expect(res.status).toBe(400);
    await expectRefused(
      { client_id: app.tenant.client.clientId, show_prompt: 'maybe' },
      /show_prompt must be true or false/,
    );
  });
});

describe('prompt or immediate logout', () => {
  it('a valid id_token_hint alone names the client and goes to the provider with the hint', async () => {
    const b = new Browser(app.baseUrl);
    const res = await b.go(
      confirmUrl({ id_token_hint: idToken, post_logout_redirect_uri: app.postLogoutUri, state: 'st-1' }),
    );
    expect(res.status).toBe(303);
    const loc = new URL(res.location!, app.baseUrl);
    expect(loc.pathname).toBe(`/auth/${t}/session/end`);
    expect(loc.searchParams.get('id_token_hint')).toBe(idToken);
    expect(loc.searchParams.get('state')).toBe('st-1');
    expect(b.hasCookie(logoutPromptCookie(t))).toBe(true);
  });

  /** A browser signed in to `client` (by username), with the ID token of that sign-in. */
  async function sessionWithHint(
    client: { clientId: string; clientSecret: string; redirectUri: string },
    username = 'alice',
    password = app.tenant.user.password,
  ) {
    const b = new Browser(app.baseUrl);
    const auth = await startAuthorize(app, b, client);
    const res = await b.go(`${auth.interaction}/login`, { form: { username, password } });
    const cb = await followToRedirectUri(b, res.location, client.redirectUri);
    return { b, idToken: (await redeem(app, client, cb.searchParams.get('code')!, auth.verifier)).id_token };
  }

  /** Where a logout request leads a browser that has a session: the confirmation page, or at once out. */
  async function outcome(b: Browser, params: Record<string, string>): Promise<'asked' | 'signed out at once'> {
    const first = await b.go(confirmUrl(params));
    expect(first.status).toBe(303);
    const end = await b.go(first.location!);
    expect(end.status).toBe(200);
    if (end.text.includes('Stay signed in')) return 'asked';
    expect(end.text).toContain('Signing out');
    return 'signed out at once';
  }

  it('without id_token_hint: asked by default; show_prompt=false or showLogoutPrompt=false signs out at once', async () => {
    await app.db.models.Client.updateOne(
      { tenantId: t, clientId: app.second.clientId },
      { $set: { showLogoutPrompt: false } },
    );
    app.pool.evict(t); // what the management API's invalidation event does
    const { b } = await sessionWithHint(app.tenant.client);
    expect(await outcome(b, { client_id: app.tenant.client.clientId })).toBe('asked');
    expect(await outcome(b, {})).toBe('asked');
    expect(await outcome(b, { client_id: app.tenant.client.clientId, show_prompt: 'false' })).toBe(
      'signed out at once',
    );
    const second = await sessionWithHint(app.second);
    expect(await outcome(second.b, { client_id: app.second.clientId, show_prompt: 'true' })).toBe('asked');
    expect(
      await outcome(second.b, {
        client_id: app.second.clientId,
        post_logout_redirect_uri: 'http://127.0.0.1:8401/bye',
      }),
    ).toBe('signed out at once');
    const third = await sessionWithHint(app.tenant.client);
    expect(await outcome(third.b, { show_prompt: 'false' })).toBe('signed out at once');
  });

  it('a marker cookie left by an earlier request that asked does not make a show_prompt=false request ask', async () => {
    const { b } = await sessionWithHint(app.tenant.client);
    const asked = await b.go(confirmUrl({ client_id: app.tenant.client.clientId }));
    expect([asked.status, b.hasCookie(logoutPromptCookie(t))]).toEqual([303, true]);
    expect(await outcome(b, { client_id: app.tenant.client.clientId, show_prompt: 'false' })).toBe(
      'signed out at once',
    );
  });

  it('with an id_token_hint of the session: show_prompt=false overrides the client setting; show_prompt=true overrides showLogoutPrompt=false', async () => {
    const demo = await sessionWithHint(app.tenant.client);
    expect(await outcome(demo.b, { id_token_hint: demo.idToken, show_prompt: 'false' })).toBe('signed out at once');
    const demo2 = await sessionWithHint(app.tenant.client);
    expect(await outcome(demo2.b, { id_token_hint: demo2.idToken, client_id: app.tenant.client.clientId })).toBe(
      'asked',
    );
    const second = await sessionWithHint(app.second);
    expect(await outcome(second.b, { id_token_hint: second.idToken, show_prompt: 'true' })).toBe('asked');
    expect(await outcome(second.b, { id_token_hint: second.idToken, client_id: app.second.clientId })).toBe(
      'signed out at once',
    );
  });

  it('the hint only names the client: one not of this session asks by default and signs out at once with show_prompt=false', async () => {
    // The session signed in to Second App only; the hint was issued to Demo App (in another session).
    const second = await sessionWithHint(app.second);
    expect(await outcome(second.b, { id_token_hint: idToken })).toBe('asked');
    expect(await outcome(second.b, { id_token_hint: idToken, show_prompt: 'false' })).toBe('signed out at once');
    // Another End-User's ID token for the same client.
    await app.db.models.User.create({
      tenantId: t,
      username: 'carol',
      passwordHash: (await app.db.models.User.findOne({ tenantId: t, username: 'alice' }).lean())!.passwordHash,
      claims: { name: 'Carol' },
    });
    const carol = await sessionWithHint(app.second, 'carol');
    const alice = await sessionWithHint(app.second);
    expect(await outcome(alice.b, { id_token_hint: carol.idToken, show_prompt: 'true' })).toBe('asked');
    expect(await outcome(alice.b, { id_token_hint: carol.idToken, show_prompt: 'false' })).toBe('signed out at once');
  });

  it('a `?` inside the query is data: state=a?b comes back as a?b', async () => {
    const b = new Browser(app.baseUrl);
    const first = await b.go(
      `/auth/${t}/logout/confirm?client_id=${app.tenant.client.clientId}&post_logout_redirect_uri=${encodeURIComponent(app.postLogoutUri)}&state=a?b`,
    );
    expect(first.status).toBe(303);
    expect(new URL(first.location!, app.baseUrl).searchParams.get('state')).toBe('a?b');
    const end = await b.go(first.location!);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(end.text)![1]!;
    const done = await b.go(`/auth/${t}/session/end/confirm`, { form: { xsrf, logout: 'yes' } });
    expect(done.status).toBe(303);
    expect(new URL(done.location!).searchParams.get('state')).toBe('a?b');
  });

  it('with no session: immediate logout, state returned untouched', async () => {
    const b = new Browser(app.baseUrl);
    const state = 'post_logout ü&x=1';
    const first = await b.go(
      confirmUrl({ client_id: app.tenant.client.clientId, post_logout_redirect_uri: app.postLogoutUri, state }),
    );
    const end = await b.go(first.location!);
    expect(end.status).toBe(200);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(end.text)![1]!;
    expect(b.hasCookie(logoutPromptCookie(t))).toBe(true);
    const done = await b.go(`/auth/${t}/session/end/confirm`, { form: { xsrf, logout: 'yes' } });
    expect(done.status).toBe(303);
    // The prompt marker is consumed even though no page was shown.
    expect(b.hasCookie(logoutPromptCookie(t))).toBe(false);
    const back = new URL(done.location!);
    expect(`${back.origin}${back.pathname}`).toBe(app.postLogoutUri);
    expect(back.searchParams.get('state')).toBe(state);
  });
});

describe('with a session', () => {
  async function sessionWithTwoApps(): Promise<Browser> {
    const b = new Browser(app.baseUrl);
    await signIn(app, b, app.tenant.client);
    // Second client: the session already exists, so no login form (first-party client: no consent).
    const { location } = await b.go(
      `/auth/${t}/authorize?${new URLSearchParams({ client_id: app.second.clientId, response_type: 'code', redirect_uri: app.second.redirectUri, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
    );
    await followToRedirectUri(b, location, app.second.redirectUri);
    return b;
  }

  async function hasSession(b: Browser): Promise<boolean> {
    const res = await b.go(
      `/auth/${t}/authorize?${new URLSearchParams({ client_id: app.tenant.client.clientId, response_type: 'code', redirect_uri: app.tenant.client.redirectUri, scope: 'openid', prompt: 'none', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
    );
    const url = await followToRedirectUri(b, res.location, app.tenant.client.redirectUri);
    return url.searchParams.has('code');
  }

  it('shows the page (tenant, client, other apps, countdown, nonce CSP), and Sign out ends the session with state', async () => {
    const b = await sessionWithTwoApps();
    expect(await hasSession(b)).toBe(true);
    const first = await b.go(
      confirmUrl(
        { client_id: app.tenant.client.clientId, post_logout_redirect_uri: app.postLogoutUri, state: 'post_logout' },
        true,
      ),
    );
    expect(first.location).toMatch(new RegExp(`^/_api/auth/${t}/session/end\\?`));
    const page = await b.go(first.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Sign out of Demo App?');
    expect(page.text).toContain(app.tenant.tenantName);
    expect(page.text).toMatch(/also be signed out of<\/h2><ul[^>]*><li>Second App<\/li><\/ul>/);
    expect(page.text).toContain('<span id="seconds" role="timer" aria-atomic="true">30</span>');
    const csp = page.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(page.text).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:8400");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    // The marker is one-shot: the prompt does not come back for a plain /session/end.
    expect(b.hasCookie(logoutPromptCookie(t))).toBe(false);
    const stay = /id="stay" href="([^"]+)"/.exec(page.text)![1]!.replace(/&#61;/g, '=').replace(/&amp;/g, '&');
    expect(new URL(stay).searchParams.get('state')).toBe('post_logout');

    // CSRF: a wrong xsrf value ends nothing.
    const forged = await b.go(`/_api/auth/${t}/session/end/confirm`, { form: { xsrf: 'forged', logout: 'yes' } });
    expect(forged.status).toBe(400);
    expect(await hasSession(b)).toBe(true);

    // The session is still there until confirmed; then it is gone and state comes back.
    const again = await b.go(
      (
        await b.go(
          confirmUrl({
            client_id: app.tenant.client.clientId,
            post_logout_redirect_uri: app.postLogoutUri,
            state: 'post_logout',
          }),
        )
      ).location!,
    );
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(again.text)![1]!;
    const done = await b.go(`/auth/${t}/session/end/confirm`, { form: { xsrf, logout: 'yes' } });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${app.postLogoutUri}?state=post_logout`);
    expect(await hasSession(b)).toBe(false);
  });

  it('/session/end logs out at once even for a client that wants the prompt', async () => {
    const b = await sessionWithTwoApps();
    const end = await b.go(
      `/auth/${t}/session/end?${new URLSearchParams({ client_id: app.tenant.client.clientId, post_logout_redirect_uri: app.postLogoutUri, state: 'x' })}`,
    );
    expect(end.status).toBe(200);
    expect(end.text).not.toContain('Stay signed in');
    expect(end.text).toContain('Signing out');
    const nonce = /'nonce-([^']+)'/.exec(end.headers.get('content-security-policy')!)![1];
    expect(end.text).toContain(`<script nonce="${nonce}">document.getElementById('logout-form').submit();</script>`);
  });

  it('without post_logout_redirect_uri, Stay signed in leads to our own page', async () => {
    const b = await sessionWithTwoApps();
    const page = await b.go((await b.go(confirmUrl({ client_id: app.tenant.client.clientId }))).location!);
    const stay = /id="stay" href="([^"]+)"/.exec(page.text)![1]!.replace(/&#61;/g, '=');
    expect(stay).toBe(`/auth/${t}/logout/stayed?client_id=demo-app`);
    const stayed = await b.go(stay);
    expect(stayed.text).toContain('You are still signed in');
    expect(await hasSession(b)).toBe(true);
  });
});

describe('the advertised end_session_endpoint', () => {
  it('discovery names /logout/confirm, under the mount the document was asked on', async () => {
    for (const prefix of ['', '/_api']) {
      const doc = (await (
        await fetch(`${app.baseUrl}${prefix}/auth/${t}/.well-known/openid-configuration`)
      ).json()) as { end_session_endpoint: string };
      expect(doc.end_session_endpoint).toBe(`${app.baseUrl}${prefix}/auth/${t}/logout/confirm`);
    }
  });

  it('a form POST is the same request as the GET', async () => {
    const b = new Browser(app.baseUrl);
    const params = {
      id_token_hint: idToken,
      post_logout_redirect_uri: app.postLogoutUri,
      state: 'posted',
      ui_locales: 'de en',
    };
    const posted = await b.go(`/_api/auth/${t}/logout/confirm`, { form: params });
    expect(posted.status).toBe(303);
    const loc = new URL(posted.location!, app.baseUrl);
    expect(loc.pathname).toBe(`/_api/auth/${t}/session/end`);
    expect(Object.fromEntries(loc.searchParams)).toEqual(params);
    expect(b.hasCookie(logoutPromptCookie(t))).toBe(true);
  });

  it('a POST refuses what the GET refuses, with an error page and no redirect', async () => {
    const b = new Browser(app.baseUrl);
    const evil = await b.go(`/auth/${t}/logout/confirm`, {
      form: { client_id: app.tenant.client.clientId, post_logout_redirect_uri: 'https://evil.example/steal' },
    });
    expect([evil.status, evil.location]).toEqual([400, undefined]);
    expect(evil.text).toMatch(/not registered/);
    const [h, p] = idToken.split('.');
    const bad = await b.go(`/auth/${t}/logout/confirm`, {
      form: { id_token_hint: `${h}.${p}.AAAA`, post_logout_redirect_uri: app.postLogoutUri },
    });
    expect([bad.status, bad.location]).toEqual([400, undefined]);
    const twice = await fetch(`${app.baseUrl}/auth/${t}/logout/confirm`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'state=a&state=b',
    });
    expect([twice.status, twice.headers.get('location')]).toEqual([400, null]);
    const json = await fetch(`${app.baseUrl}/auth/${t}/logout/confirm`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([json.status, json.headers.get('location'), json.headers.get('content-type')]).toEqual([
      400,
      null,
      expect.stringMatching(/^text\/html/),
    ]);
  });

  it('ui_locales is passed on; given twice it is refused', async () => {
    const b = new Browser(app.baseUrl);
    const res = await b.go(confirmUrl({ client_id: app.tenant.client.clientId, ui_locales: 'fr' }));
    expect(new URL(res.location!, app.baseUrl).searchParams.get('ui_locales')).toBe('fr');
    const twice = await b.go(`/auth/${t}/logout/confirm?ui_locales=fr&ui_locales=en`);
    expect([twice.status, twice.location]).toEqual([400, undefined]);
  });
});
