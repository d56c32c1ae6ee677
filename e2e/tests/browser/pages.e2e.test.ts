/**
 * Every page a person sees, in real headless Chromium through the dev router: login (with and without TOTP),
 * consent, the device flow finished from a second browser context, and the logout confirmation (sign out, stay
 * signed in, the default 30-second countdown, show_prompt both ways with an id_token_hint and without one, the
 * other applications of the session, both buttons without JavaScript). Each page is captured at 1280x800 and 390x844 into test-output/browser/
 * and checked with axe-core (no serious or critical violations) and for CSP violations.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { generate } from 'otplib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createClient } from '@idp/testing';
import { hashPassword } from '@idp/tokens';
import {
  launchChromium,
  newProbedPage,
  screenshots,
  seriousA11yViolations,
  startApplicationStub,
} from '../../src/clients/browser';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let browser: Browser;
let base: string;
let t: number;

// The applications' pages are served by one stub server (started in beforeAll), each app under its own path.
let apps: Awaited<ReturnType<typeof startApplicationStub>>;
let APP = '';
let POST_LOGOUT = '';
let SECOND_APP = '';
let CONSENT_APP = '';
/** Bob's TOTP secret, as the management API's enrolment returned it (stored sealed). */
let totpSecret = '';
const BOB_PASSWORD = 'bob uses a second factor';
let second: { clientId: string; clientSecret: string };
let consentApp: { clientId: string; clientSecret: string };
let device: { clientId: string; clientSecret: string };

beforeAll(async () => {
  await startAll([
    startHarness('browser-pages').then((v) => (h = v)),
    launchChromium().then((v) => (browser = v)),
    startApplicationStub().then((v) => (apps = v)),
  ]);
  APP = `${apps.origin}/demo`;
  POST_LOGOUT = `${APP}/logged-out`;
  SECOND_APP = `${apps.origin}/second`;
  CONSENT_APP = `${apps.origin}/partner`;
  base = h.topology.baseUrl;
  t = h.tenant.tenantId;
  const { models } = h.db;
  const pepper = h.topology.secrets.clientSecretPepper;
  // Before any request: the provider caches clients once loaded.
  await models.Client.updateOne(
    { tenantId: t, clientId: h.tenant.client.clientId },
    { $set: { redirectUris: [`${APP}/callback`], postLogoutRedirectUris: [POST_LOGOUT] } },
  );
  second = await createClient(models, pepper, {
    tenantId: t,
    clientId: 'second-app',
    name: 'Second App',
    grantTypes: ['authorization_code'],
    redirectUris: [`${SECOND_APP}/callback`],
    postLogoutRedirectUris: [`${SECOND_APP}/bye`],
    firstParty: true,
  });
  await models.Client.updateOne({ tenantId: t, clientId: 'second-app' }, { $set: { showLogoutPrompt: false } });
  consentApp = await createClient(models, pepper, {
    tenantId: t,
    clientId: 'consent-app',
    name: 'Partner Reports',
    grantTypes: ['authorization_code'],
    redirectUris: [`${CONSENT_APP}/callback`],
  });
  device = await createClient(models, pepper, {
    tenantId: t,
    clientId: 'tv-app',
    name: 'Living Room TV',
    grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
  });
  const bob = await models.User.create({
    tenantId: t,
    username: 'bob',
    passwordHash: await hashPassword(BOB_PASSWORD),
    claims: { name: 'Bob' },
  });
  // Enrolled the way an operator does it: the management API seals the secret and shows it once.
  const s = h.topology.secrets;
  const admin = await clientCredentialsToken(
    base,
    h.topology.systemTenantId,
    s.bootstrapAdminClientId,
    s.bootstrapAdminClientSecret,
    'urn:idp:management',
  );
  const enrol = await fetch(`${base}/auth/admin/tenants/${t}/users/${String(bob._id)}/totp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.access_token}` },
  });
  if (enrol.status !== 201) throw new Error(`TOTP enrolment: ${enrol.status} ${await enrol.text()}`);
  totpSecret = ((await enrol.json()) as { secret: string }).secret;
});

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(apps)?.close();
  await ifAssigned(h)?.stop();
});

interface Flow {
  url: string;
  verifier: string;
  state: string;
}

function authorizeUrl(clientId: string, redirectUri: string, extra: Record<string, string> = {}): Flow {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const q = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    nonce: randomBytes(8).toString('hex'),
    ...extra,
  });
  return { url: `${base}/auth/${t}/authorize?${q}`, verifier, state };
}

async function newContext(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
}

/** Screenshots at both sizes, then axe: nothing serious or critical. */
async function checkPage(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

async function fillLogin(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function redeem(
  client: { clientId: string; clientSecret: string },
  code: string,
  redirectUri: string,
  verifier: string,
) {
  const res = await fetch(`${base}/auth/${t}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { id_token: string; access_token: string };
}

/** Signs alice in to demo-app in this context; returns the page on the application's callback. */
async function signInAlice(context: BrowserContext): Promise<Page> {
  const { page } = await newProbedPage(context);
  const flow = authorizeUrl(h.tenant.client.clientId, `${APP}/callback`);
  await page.goto(flow.url);
  await fillLogin(page, h.tenant.user.username, h.tenant.user.password);
  await page.waitForURL(`${APP}/callback?**`);
  return page;
}

/** True when the context's session still signs the user in silently (prompt=none gives a code). */
async function hasSession(context: BrowserContext): Promise<boolean> {
  const page = await context.newPage();
  await page.goto(authorizeUrl(h.tenant.client.clientId, `${APP}/callback`, { prompt: 'none' }).url);
  await page.waitForURL(`${APP}/callback?**`);
  const has = new URL(page.url()).searchParams.has('code');
  await page.close();
  return has;
}

const confirmUrl = (params: Record<string, string>) =>
  `${base}/auth/${t}/logout/confirm?${new URLSearchParams(params)}`;

describe('login and consent', () => {
  it('signs in with a password (wrong password first), no consent for the first-party app', async () => {
    const context = await newContext();
    const { page, cspViolations } = await newProbedPage(context);
    const flow = authorizeUrl(h.tenant.client.clientId, `${APP}/callback`);
    await page.goto(flow.url);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    expect(await page.title()).toContain(h.tenant.tenantName);
    await checkPage(page, 'login');

    await fillLogin(page, 'alice', 'not the password');
    expect(await page.getByRole('alert').textContent()).toBe('The username or password is not correct.');
    expect(await page.getByLabel('Username').inputValue()).toBe('alice');
    await checkPage(page, 'login-error');

    // Keyboard only: the password field has focus after an error; type and press Enter.
    await page.keyboard.type(h.tenant.user.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${APP}/callback?**`);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(flow.state);
    const tokens = await redeem(h.tenant.client, callback.searchParams.get('code')!, `${APP}/callback`, flow.verifier);
    expect(decodeJwt(tokens.id_token).sub).toBe(h.tenant.user.id);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('signs in with password and TOTP, then asks for consent', async () => {
    const context = await newContext();
    const { page, cspViolations } = await newProbedPage(context);
    const flow = authorizeUrl(consentApp.clientId, `${CONSENT_APP}/callback`);
    await page.goto(flow.url);
    await fillLogin(page, 'bob', BOB_PASSWORD);
    await page.getByLabel('6-digit code from your authenticator app').waitFor();
    await checkPage(page, 'totp');

    await page
      .getByLabel('6-digit code from your authenticator app')
      .fill('000000' === (await generate({ secret: totpSecret })) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('That code is not correct');
    await checkPage(page, 'totp-error');

    await page.getByLabel('6-digit code from your authenticator app').fill(await generate({ secret: totpSecret }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Allow Partner Reports to access your account?',
    );
    await checkPage(page, 'consent');

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${CONSENT_APP}/callback?**`);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(flow.state);
    const tokens = await redeem(
      consentApp,
      callback.searchParams.get('code')!,
      `${CONSENT_APP}/callback`,
      flow.verifier,
    );
    expect(decodeJwt(tokens.id_token).sub).toBeTruthy();
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('a third-party app asking for an API: the consent page lists every scope the token will carry, with descriptions', async () => {
    // The consent page lists what the token will carry: scope=openid plus resource used to show only "Know who you are" while the token carried alice's
    // RBAC set. The descriptions are set the way an operator does it, through the management API.
    const s = h.topology.secrets;
    const admin = await clientCredentialsToken(
      base,
      h.topology.systemTenantId,
      s.bootstrapAdminClientId,
      s.bootstrapAdminClientSecret,
      'urn:idp:management',
    );
    const auth = { authorization: `Bearer ${admin.access_token}` };
    const list = await fetch(
      `${base}/auth/admin/tenants/${t}/resource-servers?${new URLSearchParams({ identifier: h.tenant.resource })}`,
      { headers: auth },
    );
    const rs = ((await list.json()) as { items: Array<{ id: string }> }).items[0]!;
    const patched = await fetch(`${base}/auth/admin/tenants/${t}/resource-servers/${rs.id}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        scopeDescriptions: { 'orders:read': 'See your orders', 'orders:write': 'Place and change orders for you' },
      }),
    });
    expect(patched.status).toBe(200);

    const context = await newContext();
    const { page, cspViolations } = await newProbedPage(context);
    const flow = authorizeUrl(consentApp.clientId, `${CONSENT_APP}/callback`, {
      scope: 'openid',
      resource: h.tenant.resource,
    });
    await page.goto(flow.url);
    await fillLogin(page, h.tenant.user.username, h.tenant.user.password);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const items = (await page.getByRole('listitem').allTextContents()).map((x) => x.trim());
    expect(items).toEqual([
      'Know who you are (openid)',
      'See your orders (orders:read)',
      'Place and change orders for you (orders:write)',
    ]);
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'Your information',
      `Orders API (${h.tenant.resource})`,
    ]);
    await checkPage(page, 'consent-api');

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${CONSENT_APP}/callback?**`);
    const tokens = await redeem(
      consentApp,
      new URL(page.url()).searchParams.get('code')!,
      `${CONSENT_APP}/callback`,
      flow.verifier,
    );
    expect(String(decodeJwt(tokens.access_token).scope).split(' ').sort()).toEqual(['orders:read', 'orders:write']);
    expect(cspViolations).toEqual([]);
    await context.close();
  });
});

describe('device flow', () => {
  it('is completed from a second browser context while the device polls', async () => {
    const auth = await fetch(`${base}/_api/auth/${t}/device/auth`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(device.clientId, device.clientSecret),
      },
      body: new URLSearchParams({ scope: 'openid profile' }),
    });
    expect(auth.status).toBe(200);
    const { device_code, user_code, verification_uri } = (await auth.json()) as {
      device_code: string;
      user_code: string;
      verification_uri: string;
    };
    const poll = () =>
      fetch(`${base}/auth/${t}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(device.clientId, device.clientSecret),
        },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string; id_token?: string } }));
    expect((await poll()).body.error).toBe('authorization_pending');

    const phone = await newContext();
    const { page, cspViolations } = await newProbedPage(phone);
    await page.goto(verification_uri);
    await checkPage(page, 'device-code');
    await page.getByLabel('Code shown on your device').fill('WRONG-CODE');
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('not valid or has expired');
    await checkPage(page, 'device-code-error');

    await page.getByLabel('Code shown on your device').fill(user_code.toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Connect Living Room TV?');
    expect(await page.locator('.code-display').textContent()).toBe(user_code);
    await checkPage(page, 'device-confirm');

    await page.getByRole('button', { name: 'Continue' }).click();
    await fillLogin(page, 'alice', h.tenant.user.password);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
    await checkPage(page, 'device-success');
    expect(cspViolations).toEqual([]);

    const done = await poll();
    expect(done.status).toBe(200);
    expect(decodeJwt(done.body.id_token!).sub).toBe(h.tenant.user.id);
    await phone.close();
  });
});

describe('device flow: verification_uri_complete', () => {
  it('auto-submits the code under the strict CSP (the provider script is allowed by its hash)', async () => {
    const auth = await fetch(`${base}/auth/${t}/device/auth`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(device.clientId, device.clientSecret),
      },
      body: new URLSearchParams({ scope: 'openid' }),
    });
    const { verification_uri_complete } = (await auth.json()) as { verification_uri_complete: string };
    const context = await newContext();
    const { page, cspViolations } = await newProbedPage(context);
    await page.goto(verification_uri_complete);
    await page.getByRole('heading', { name: 'Connect Living Room TV?' }).waitFor();
    expect(cspViolations).toEqual([]);
    await context.close();
  });
});

describe('logout confirmation', () => {
  it('shows tenant, client and the default 30-second countdown; Sign out ends the session and returns state', async () => {
    const context = await newContext();
    await signInAlice(context);
    const { page, cspViolations } = await newProbedPage(context);
    await page.goto(
      confirmUrl({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 'post_logout' }),
    );
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign out of Demo App?');
    expect(await page.locator('main').textContent()).toContain(h.tenant.tenantName);
    // The default countdown is 30 s and it runs.
    const first = Number(await page.locator('#seconds').textContent());
    expect(first).toBeGreaterThanOrEqual(29);
    expect(first).toBeLessThanOrEqual(30);
    await page
      .locator('#seconds')
      .filter({ hasText: /^(2[0-8]|1?\d)$/ })
      .waitFor({ timeout: 5000 });
    await checkPage(page, 'logout-confirm');
    expect(await hasSession(context)).toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('post_logout');
    expect(new URL(page.url()).searchParams.has('logout')).toBe(false);
    expect(await hasSession(context)).toBe(false);
    expect(cspViolations).toEqual([]);
    await context.close();
  });

  it('Stay signed in returns to the application with state and keeps the session', async () => {
    const context = await newContext();
    await signInAlice(context);
    const { page } = await newProbedPage(context);
    await page.goto(
      confirmUrl({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 'keep-me' }),
    );
    await page.getByRole('link', { name: 'Stay signed in' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    const url = new URL(page.url());
    expect(url.searchParams.get('state')).toBe('keep-me');
    expect(url.searchParams.get('logout')).toBe('cancelled');
    expect(await hasSession(context)).toBe(true);
    await context.close();
  });

  it('lists the other applications of the session after signing in to two clients', async () => {
    const context = await newContext();
    await signInAlice(context);
    const { page } = await newProbedPage(context);
    await page.goto(authorizeUrl(second.clientId, `${SECOND_APP}/callback`).url);
    await page.waitForURL(`${SECOND_APP}/callback?**`);
    await page.goto(
      confirmUrl({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 's2' }),
    );
    expect(await page.getByRole('list').getByRole('listitem').allTextContents()).toEqual(['Second App']);
    await checkPage(page, 'logout-confirm-two-apps');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  /** Signs alice in to a client in this context and returns the ID token of that sign-in. */
  async function idTokenFor(
    context: BrowserContext,
    client: { clientId: string; clientSecret: string },
    app: string,
  ): Promise<string> {
    const page = await context.newPage();
    const flow = authorizeUrl(client.clientId, `${app}/callback`);
    await page.goto(flow.url);
    if (page.url().includes('/interaction/')) await fillLogin(page, h.tenant.user.username, h.tenant.user.password);
    await page.waitForURL(`${app}/callback?**`);
    const code = new URL(page.url()).searchParams.get('code')!;
    await page.close();
    return (await redeem(client, code, `${app}/callback`, flow.verifier)).id_token;
  }

  it('with an id_token_hint, show_prompt=false skips the page and show_prompt=true shows it for a client whose showLogoutPrompt is false', async () => {
    const context = await newContext();
    await signInAlice(context);
    const secondHint = await idTokenFor(context, second, SECOND_APP);
    const { page } = await newProbedPage(context);
    // second-app has showLogoutPrompt false: show_prompt=true still shows the page.
    await page.goto(
      confirmUrl({
        id_token_hint: secondHint,
        post_logout_redirect_uri: `${SECOND_APP}/bye`,
        state: 'p1',
        show_prompt: 'true',
      }),
    );
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign out of Second App?');
    // ... and without show_prompt it logs out at once.
    await page.goto(
      confirmUrl({
        client_id: second.clientId,
        id_token_hint: secondHint,
        post_logout_redirect_uri: `${SECOND_APP}/bye`,
        state: 'p2',
      }),
    );
    await page.waitForURL(`${SECOND_APP}/bye?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('p2');
    expect(await hasSession(context)).toBe(false);

    // demo-app shows the prompt by default: show_prompt=false logs out at once.
    const demoHint = await idTokenFor(context, h.tenant.client, APP);
    await page.goto(
      confirmUrl({ id_token_hint: demoHint, post_logout_redirect_uri: POST_LOGOUT, state: 'p3', show_prompt: 'false' }),
    );
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('p3');
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  it('without an id_token_hint too: show_prompt=true shows the page, show_prompt=false signs out at once', async () => {
    const context = await newContext();
    await signInAlice(context);
    const { page } = await newProbedPage(context);
    await page.goto(
      confirmUrl({
        client_id: second.clientId,
        post_logout_redirect_uri: `${SECOND_APP}/bye`,
        state: 'p4',
        show_prompt: 'true',
      }),
    );
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign out of Second App?');
    expect(await hasSession(context)).toBe(true);
    await page.goto(
      confirmUrl({
        client_id: h.tenant.client.clientId,
        post_logout_redirect_uri: POST_LOGOUT,
        state: 'p5',
        show_prompt: 'false',
      }),
    );
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('p5');
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  it('offers both buttons without JavaScript', async () => {
    const context = await newContext({ javaScriptEnabled: false });
    await signInAlice(context);
    const { page } = await newProbedPage(context);
    await page.goto(
      confirmUrl({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 'nojs' }),
    );
    // Screenshots only: axe needs scripts in the page (the same page is checked with scripts above).
    await screenshots(page, 'logout-confirm-nojs');
    await page.getByRole('link', { name: 'Stay signed in' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(await hasSession(context)).toBe(true);
    await page.goto(
      confirmUrl({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 'nojs' }),
    );
    // No countdown runs: still on the page after a while.
    await page.waitForTimeout(1200);
    expect(await page.locator('#seconds').textContent()).toBe('30');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${POST_LOGOUT}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('nojs');
    expect(await hasSession(context)).toBe(false);
    await context.close();
  });

  it('shows the signed-out page when the application gave no post_logout_redirect_uri', async () => {
    const context = await newContext();
    await signInAlice(context);
    const { page } = await newProbedPage(context);
    await page.goto(confirmUrl({ client_id: h.tenant.client.clientId }));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
    await checkPage(page, 'logout-done');
    await context.close();
  });
});
