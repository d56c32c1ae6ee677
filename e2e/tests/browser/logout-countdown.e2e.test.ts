/**
 * The logout confirmation page signs out by itself when nobody acts: oidc-core runs here with a 2-second
 * countdown (LOGOUT_PROMPT_SECONDS, a test knob; the default of 30 s is checked in pages.e2e.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium, newProbedPage, screenshots, startApplicationStub } from '../../src/clients/browser';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let browser: Browser;
let apps: Awaited<ReturnType<typeof startApplicationStub>>;
let APP = '';
let POST_LOGOUT = '';

beforeAll(async () => {
  await startAll([
    startHarness('browser-countdown', { oidcEnv: { LOGOUT_PROMPT_SECONDS: '2' } }).then((v) => (h = v)),
    launchChromium().then((v) => (browser = v)),
    startApplicationStub().then((v) => (apps = v)),
  ]);
  APP = `${apps.origin}/demo`;
  POST_LOGOUT = `${APP}/logged-out`;
  await h.db.models.Client.updateOne(
    { tenantId: h.tenant.tenantId, clientId: h.tenant.client.clientId },
    { $set: { redirectUris: [`${APP}/callback`], postLogoutRedirectUris: [POST_LOGOUT] } },
  );
});

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(apps)?.close();
  await ifAssigned(h)?.stop();
});

function authorizeUrl(prompt?: string): string {
  const verifier = randomBytes(32).toString('base64url');
  return `${h.topology.baseUrl}/auth/${h.tenant.tenantId}/authorize?${new URLSearchParams({
    client_id: h.tenant.client.clientId,
    response_type: 'code',
    redirect_uri: `${APP}/callback`,
    scope: 'openid',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'login',
    ...(prompt ? { prompt } : {}),
  })}`;
}

it('signs out automatically when the countdown ends, returning state', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, cspViolations } = await newProbedPage(context);
  await page.goto(authorizeUrl());
  await page.getByLabel('Username').fill(h.tenant.user.username);
  await page.getByLabel('Password').fill(h.tenant.user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${APP}/callback?**`);

  const started = Date.now();
  await page.goto(
    `${h.topology.baseUrl}/auth/${h.tenant.tenantId}/logout/confirm?${new URLSearchParams({ client_id: h.tenant.client.clientId, post_logout_redirect_uri: POST_LOGOUT, state: 'post_logout' })}`,
  );
  expect(await page.locator('#seconds').textContent()).toBe('2');
  await screenshots(page, 'logout-confirm-countdown');
  // Nobody clicks: the page submits the sign-out form by itself.
  await page.waitForURL(`${POST_LOGOUT}?**`, { timeout: 10_000 });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  expect(new URL(page.url()).searchParams.get('state')).toBe('post_logout');

  await page.goto(authorizeUrl('none'));
  await page.waitForURL(`${APP}/callback?**`);
  expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
  expect(cspViolations).toEqual([]);
  await context.close();
});
