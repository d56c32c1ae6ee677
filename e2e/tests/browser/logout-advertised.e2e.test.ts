/**
 * RP-initiated logout as discovery advertises it, in real headless Chromium through the dev router: a relying party that signs out the standard way
 * (openid-client's buildEndSessionUrl, from discovery alone) reaches the logout confirmation, which asks unless the
 * client opted out (showLogoutPrompt false: signed out at once, with or without id_token_hint); a bad id_token_hint or an unregistered
 * post_logout_redirect_uri is an error page that redirects nowhere. Also (item 2) the form POSTs a relying party on
 * another site sends to the authorization and end-session endpoints carry the person's session.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as oidc from 'openid-client';
import { createClient } from '@idp/testing';
import { launchChromium, newProbedPage, screenshots, startApplicationStub } from '../../src/clients/browser';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let browser: Browser;
let apps: Awaited<ReturnType<typeof startApplicationStub>>;
let APP = '';
let POST_LOGOUT = '';
let SECOND_APP = '';
let demo: oidc.Configuration;
let secondApp: oidc.Configuration;
/** A relying party on another site (served by the test through request interception). */
const RP_SITE = 'http://rp.example';

beforeAll(async () => {
  await startAll([
    startHarness('logout-advertised').then((v) => (h = v)),
    launchChromium().then((v) => (browser = v)),
    startApplicationStub().then((v) => (apps = v)),
  ]);
  APP = `${apps.origin}/demo`;
  POST_LOGOUT = `${APP}/logged-out`;
  SECOND_APP = `${apps.origin}/second`;
  const t = h.tenant.tenantId;
  const { models } = h.db;
  await models.Client.updateOne(
    { tenantId: t, clientId: h.tenant.client.clientId },
    { $set: { redirectUris: [`${APP}/callback`], postLogoutRedirectUris: [POST_LOGOUT] } },
  );
  const second = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: t,
    clientId: 'second-app',
    name: 'Second App',
    grantTypes: ['authorization_code'],
    redirectUris: [`${SECOND_APP}/callback`],
    postLogoutRedirectUris: [`${SECOND_APP}/bye`],
    firstParty: true,
  });
  await models.Client.updateOne({ tenantId: t, clientId: 'second-app' }, { $set: { showLogoutPrompt: false } });
  const issuer = new URL(`${h.topology.baseUrl}/auth/${t}`);
  const discover = (clientId: string, secret: string) =>
    oidc.discovery(issuer, clientId, secret, oidc.ClientSecretBasic(secret), { execute: [oidc.allowInsecureRequests] });
  [demo, secondApp] = await Promise.all([
    discover(h.tenant.client.clientId, h.tenant.client.clientSecret),
    discover(second.clientId, second.clientSecret),
  ]);
}, 180_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(apps)?.close();
  await ifAssigned(h)?.stop();
});

const newContext = (): Promise<BrowserContext> => browser.newContext({ viewport: { width: 1280, height: 800 } });

/** Signs alice in through openid-client's authorization request (code + PKCE) and returns its tokens. */
async function signIn(context: BrowserContext, config: oidc.Configuration, app: string) {
  const page = await context.newPage();
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${app}/callback`,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  await page.goto(url.toString());
  if (page.url().includes('/interaction/')) {
    await page.getByLabel('Username').fill(h.tenant.user.username);
    await page.getByLabel('Password').fill(h.tenant.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.waitForURL(`${app}/callback?**`);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  await page.close();
  return tokens;
}

/** True when the context's session still signs the user in silently. */
async function hasSession(context: BrowserContext): Promise<boolean> {
  const page = await context.newPage();
  const verifier = oidc.randomPKCECodeVerifier();
  await page.goto(
    oidc
      .buildAuthorizationUrl(demo, {
        redirect_uri: `${APP}/callback`,
        scope: 'openid',
        prompt: 'none',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      })
      .toString(),
  );
  await page.waitForURL(`${APP}/callback?**`);
  const has = new URL(page.url()).searchParams.has('code');
  await page.close();
  return has;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

describe("openid-client's buildEndSessionUrl, from discovery", () => {
  it('discovery advertises the confirmation page', () => {
    expect(demo.serverMetadata().end_session_endpoint).toBe(
      `${h.topology.baseUrl}/auth/${h.tenant.tenantId}/logout/confirm`,
    );
  });

  it('with id_token_hint: the client shows the prompt by default; Sign out ends the session and returns state', async () => {
    const context = await newContext();
    const tokens = await signIn(context, demo, APP);
    const { page, cspViolations } = await newProbedPage(context);
    const url = oidc.buildEndSessionUrl(demo, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: POST_LOGOUT,
      state: 'bye-1',
    });
    await page.goto(url.toString());
    expect(await heading(page)).toBe('Sign out of Demo App?');
    expect(await hasSession(context)).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('bye-1');
    expect(await hasSession(context)).toBe(false);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('without id_token_hint a client that has not opted out asks; Stay signed in returns state and logout=cancelled', async () => {
    const context = await newContext();
    await signIn(context, demo, APP);
    const { page } = await newProbedPage(context);
    const url = oidc.buildEndSessionUrl(demo, { post_logout_redirect_uri: POST_LOGOUT, state: 'bye-2' });
    expect(url.searchParams.get('client_id')).toBe(h.tenant.client.clientId);
    await page.goto(url.toString());
    expect(await heading(page)).toBe('Sign out of Demo App?');
    await screenshots(page, 'logout-advertised-no-hint');
    await page.getByRole('link', { name: 'Stay signed in' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('bye-2');
    expect(new URL(page.url()).searchParams.get('logout')).toBe('cancelled');
    expect(await hasSession(context)).toBe(true);
    await context.close();
  });

  it('without id_token_hint a client whose showLogoutPrompt is false signs out at once (spec: straight to /session/end)', async () => {
    const context = await newContext();
    await signIn(context, secondApp, SECOND_APP);
    const { page } = await newProbedPage(context);
    const url = oidc.buildEndSessionUrl(secondApp, { post_logout_redirect_uri: `${SECOND_APP}/bye`, state: 'bye-2b' });
    expect(url.searchParams.get('client_id')).toBe('second-app');
    await page.goto(url.toString());
    await page.waitForURL(`${SECOND_APP}/bye?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('bye-2b');
    expect(new URL(page.url()).searchParams.has('logout')).toBe(false);
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  it("with this session's id_token_hint, a client whose showLogoutPrompt is false signs out at once", async () => {
    const context = await newContext();
    const tokens = await signIn(context, secondApp, SECOND_APP);
    const { page } = await newProbedPage(context);
    await page.goto(
      oidc
        .buildEndSessionUrl(secondApp, {
          id_token_hint: tokens.id_token!,
          post_logout_redirect_uri: `${SECOND_APP}/bye`,
          state: 'bye-3',
        })
        .toString(),
    );
    await page.waitForURL(`${SECOND_APP}/bye?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('bye-3');
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  it('a bad id_token_hint or an unregistered post_logout_redirect_uri is an error page that redirects nowhere', async () => {
    const context = await newContext();
    const tokens = await signIn(context, demo, APP);
    const { page } = await newProbedPage(context);
    const [hd, pl] = tokens.id_token!.split('.');
    const cases = [
      oidc.buildEndSessionUrl(demo, {
        id_token_hint: `${hd}.${pl}.AAAA`,
        post_logout_redirect_uri: POST_LOGOUT,
        state: 's',
      }),
      oidc.buildEndSessionUrl(demo, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: 'https://evil.example/steal',
        state: 's',
      }),
      oidc.buildEndSessionUrl(demo, { post_logout_redirect_uri: `${SECOND_APP}/bye`, state: 's' }),
    ];
    for (const url of cases) {
      const res = await page.goto(url.toString());
      expect(res!.status()).toBe(400);
      expect(new URL(page.url()).pathname).toBe(`/auth/${h.tenant.tenantId}/logout/confirm`);
      expect(await page.locator('main').textContent()).toMatch(/id_token_hint is not valid|not registered/);
    }
    await screenshots(page, 'logout-advertised-error');
    expect(await hasSession(context)).toBe(true);
    await context.close();
  });
});

describe('form POSTs from a relying party on another site carry the session (SameSite=Lax)', () => {
  /** A page of the relying party's site that posts `fields` to `action` at once. */
  async function postFromRp(page: Page, action: string, fields: Record<string, string>): Promise<void> {
    const inputs = Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`)
      .join('');
    await page.route(`${RP_SITE}/**`, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><body><form method="post" action="${action}">${inputs}</form><script>document.forms[0].submit()</script></body></html>`,
      }),
    );
    await page.goto(`${RP_SITE}/go`);
  }

  it('a POST authorization request with prompt=none gets a code from the existing session', async () => {
    const context = await newContext();
    await signIn(context, demo, APP);
    const page = await context.newPage();
    const verifier = oidc.randomPKCECodeVerifier();
    const url = oidc.buildAuthorizationUrl(demo, {
      redirect_uri: `${APP}/callback`,
      scope: 'openid',
      prompt: 'none',
      state: 'silent',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    await postFromRp(page, demo.serverMetadata().authorization_endpoint!, Object.fromEntries(url.searchParams));
    await page.waitForURL(`${APP}/callback?**`);
    const callback = new URL(page.url());
    expect([callback.searchParams.get('error'), callback.searchParams.get('state')]).toEqual([null, 'silent']);
    const tokens = await oidc.authorizationCodeGrant(demo, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'silent',
    });
    expect(tokens.claims()?.sub).toBeTruthy();
    await context.close();
  });

  it('a POST to the end-session endpoint shows the confirmation for the signed-in session', async () => {
    const context = await newContext();
    await signIn(context, demo, APP);
    const page = await context.newPage();
    await postFromRp(page, demo.serverMetadata().end_session_endpoint!, {
      client_id: h.tenant.client.clientId,
      post_logout_redirect_uri: POST_LOGOUT,
      state: 'posted',
    });
    await page.getByRole('heading', { level: 1, name: 'Sign out of Demo App?' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('posted');
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });
});
