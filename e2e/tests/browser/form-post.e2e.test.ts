/**
 * OAuth 2.0 Form Post Response Mode (the OpenID Foundation's Form Post OP profile) in real headless Chromium through
 * the dev router: with response_mode=form_post the provider answers the authorization request with a page that the
 * browser submits by itself (under the provider's strict CSP) as a POST to the redirect URI, carrying code, state
 * and iss; openid-client redeems the POSTed response. Errors travel the same way, and never as a query string.
 */
import type { Browser, Request as PwRequest } from 'playwright-core';
import * as oidc from 'openid-client';
import { createClient } from '@idp/testing';
import { launchChromium, newProbedPage } from '../../src/clients/browser';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

/** The relying party's site, answered by the test through request interception (its callback receives the POST). */
const RP = 'http://rp.example';
const CALLBACK = `${RP}/callback`;

let h: Harness;
let browser: Browser;
let config: oidc.Configuration;

beforeAll(async () => {
  await startAll([startHarness('form-post').then((v) => (h = v)), launchChromium().then((v) => (browser = v))]);
  const t = h.tenant.tenantId;
  const rp = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
    tenantId: t,
    clientId: 'form-post-app',
    name: 'Form Post App',
    grantTypes: ['authorization_code'],
    redirectUris: [CALLBACK],
    firstParty: true,
  });
  config = await oidc.discovery(
    new URL(`${h.topology.baseUrl}/auth/${t}`),
    rp.clientId,
    rp.clientSecret,
    oidc.ClientSecretBasic(rp.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
}, 180_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(h)?.stop();
});

/** Runs one authorization request in Chromium and returns what the relying party's callback received. */
async function authorize(
  params: Record<string, string>,
  signIn = true,
): Promise<{ method: string; query: string; form: URLSearchParams; cspViolations: string[] }> {
  const context = await browser.newContext();
  const { page, cspViolations } = await newProbedPage(context);
  let received: PwRequest | undefined;
  await context.route(`${RP}/**`, async (route) => {
    received = route.request();
    await route.fulfill({
      status: 200,
      contentType: 'text/html',
      body: '<!doctype html><title>RP</title><p>received</p>',
    });
  });
  await page.goto(oidc.buildAuthorizationUrl(config, params).toString());
  if (signIn && page.url().includes('/interaction/')) {
    await page.getByLabel('Username').fill(h.tenant.user.username);
    await page.getByLabel('Password').fill(h.tenant.user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.waitForURL(`${CALLBACK}**`);
  const req = received!;
  const result = {
    method: req.method(),
    query: new URL(req.url()).search,
    form: new URLSearchParams(req.postData() ?? ''),
    cspViolations,
  };
  await context.close();
  return result;
}

test('the code flow with response_mode=form_post: the browser POSTs code, state and iss; openid-client redeems them', async () => {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const got = await authorize({
    redirect_uri: CALLBACK,
    scope: 'openid profile',
    response_mode: 'form_post',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  expect(got.method).toBe('POST');
  expect(got.query).toBe('');
  expect([...got.form.keys()].sort()).toEqual(['code', 'iss', 'state']);
  expect(got.form.get('iss')).toBe(config.serverMetadata().issuer);
  expect(got.cspViolations).toEqual([]);
  const callback = new Request(CALLBACK, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: got.form.toString(),
  });
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  expect(tokens.claims()?.sub).toBeTruthy();
  expect(tokens.claims()?.nonce).toBe(nonce);
});

test('an error is POSTed to the redirect URI too (prompt=none without a session: login_required), never put in the query', async () => {
  const got = await authorize(
    {
      redirect_uri: CALLBACK,
      scope: 'openid',
      response_mode: 'form_post',
      prompt: 'none',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      state: 'st-err',
    },
    false,
  );
  expect(got.method).toBe('POST');
  expect(got.query).toBe('');
  expect(got.form.get('error')).toBe('login_required');
  expect(got.form.get('state')).toBe('st-err');
});
