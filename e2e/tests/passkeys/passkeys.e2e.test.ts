/**
 * Passkeys in real headless Chromium through the dev router, every service its own process, with Chromium's WebAuthn
 * virtual authenticator (Chrome DevTools Protocol `WebAuthn.addVirtualAuthenticator`: CTAP2, internal transport,
 * resident keys, user verification) answering navigator.credentials as a platform authenticator would. One harness
 * and one browser for the whole file. The person: enrols a passkey on /account/passkeys (the recovery codes are shown
 * once), signs out, signs in with the "Sign in with a passkey" button and through browser autofill (conditional
 * mediation), and the tokens say how (amr hwk user mfa, acr phr in the ID token and the JWT access token, auth_time);
 * a password session asked for an essential acr phr steps up with the passkey; a removed passkey no longer signs in;
 * an assertion replayed, or made for another origin, is refused; a passkey-only tenant shows no password field and its
 * account without a password is set up with a one-time enrolment link. Each page is captured at 1280x800 and 390x844
 * and checked with axe-core and for CSP violations.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import {
  launchChromium,
  newProbedPage,
  screenshots,
  seriousA11yViolations,
  startApplicationStub,
} from '../../src/clients/browser';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { freePort } from '@idp/testing';
import { startHarness, type Harness } from '../../src/harness';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let h: Harness;
let browser: Browser;
let base: string;
let t: number;
let app: { clientId: string; clientSecret: string; redirectUri: string; close: () => Promise<void> };
let api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;

beforeAll(async () => {
  // WebAuthn needs a domain as RP ID (an IP address is refused): the public origin is http://localhost:{port}, a
  // secure context without TLS.
  const port = await freePort();
  await startAll([
    startHarness('passkeys', { routerPort: port, publicBaseUrl: `http://localhost:${port}` }).then((v) => (h = v)),
    launchChromium().then((v) => (browser = v)),
  ]);
  base = h.topology.baseUrl;
  t = h.tenant.tenantId;
  const admin = await clientCredentialsToken(
    base,
    t,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
  );
  api = async (method, path, body) => {
    const res = await fetch(`${base}/auth/admin/tenants/${t}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.access_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  // The relying party: a first-party client whose redirect URI is a small page on a loopback port.
  const stub = await startApplicationStub();
  const created = await api('POST', '/clients', {
    clientId: 'passkeys-app',
    name: 'Passkeys App',
    firstParty: true,
    grantTypes: ['authorization_code', TOKEN_EXCHANGE],
    redirectUris: [`${stub.origin}/callback`],
    config: { nhe: { delegationEnabled: true } },
  });
  expect(created.status).toBe(201);
  app = {
    clientId: 'passkeys-app',
    clientSecret: String(created.body.clientSecret),
    redirectUri: `${stub.origin}/callback`,
    close: stub.close,
  };
}, 180_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(app)?.close();
  await ifAssigned(h)?.stop();
});

interface Authenticated {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  cspViolations: string[];
}

/** A context whose page has a virtual platform authenticator (CTAP2, internal, resident keys, UV). */
async function withAuthenticator(): Promise<Authenticated> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const { page, cspViolations } = await newProbedPage(context);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { context, page, cdp, authenticatorId, cspViolations };
}

async function checkPage(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  expect(await seriousA11yViolations(page)).toEqual([]);
}

const atCallback = (url: URL | string): boolean => String(url).startsWith(app.redirectUri);

interface Authorization {
  url: string;
  verifier: string;
}

function authorization(extra: Record<string, string> = {}): Authorization {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: app.clientId,
    response_type: 'code',
    redirect_uri: app.redirectUri,
    scope: 'openid amr orders:read',
    resource: h.tenant.resource,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    nonce: 'n',
    ...extra,
  });
  return { url: `${base}/auth/${t}/authorize?${params}`, verifier };
}

/** Waits for the redirect URI (allowing the consent page an acr request brings); redeems the code. */
async function tokensAt(
  page: Page,
  a: Authorization,
): Promise<{ id: Record<string, unknown>; at: Record<string, unknown>; accessToken: string }> {
  for (let i = 0; i < 3 && !atCallback(page.url()); i++) {
    const allow = page.getByRole('button', { name: 'Allow' });
    await Promise.race([page.waitForURL(atCallback, { timeout: 15_000 }), allow.waitFor({ timeout: 15_000 })]);
    if (!atCallback(page.url())) await allow.click();
  }
  await page.waitForURL(atCallback);
  const code = new URL(page.url()).searchParams.get('code');
  expect(code).toBeTruthy();
  const res = await fetch(`${base}/auth/${t}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: app.redirectUri,
      code_verifier: a.verifier,
    }),
  });
  const body = (await res.json()) as { id_token: string; access_token: string };
  expect(res.status).toBe(200);
  return { id: decodeJwt(body.id_token), at: decodeJwt(body.access_token), accessToken: body.access_token };
}

/**
 * Chromium's virtual authenticator answers a conditional (autofill) request at once, as if the person picked the
 * passkey from the username field's suggestions. To press the button instead, the page is loaded while the
 * authenticator holds no credential (the autofill request then waits, as it does for a person who does not pick
 * one); the credentials are put back before `then` runs.
 */
async function withoutAutofill(x: Authenticated, load: () => Promise<void>, then: () => Promise<void>): Promise<void> {
  const { credentials } = await x.cdp.send('WebAuthn.getCredentials', { authenticatorId: x.authenticatorId });
  for (const c of credentials)
    await x.cdp.send('WebAuthn.removeCredential', { authenticatorId: x.authenticatorId, credentialId: c.credentialId });
  await load();
  for (const c of credentials)
    await x.cdp.send('WebAuthn.addCredential', { authenticatorId: x.authenticatorId, credential: c });
  await then();
}

async function signOut(page: Page): Promise<void> {
  await page.goto(`${base}/auth/${t}/session/end`);
  await page.getByRole('heading', { name: 'You are signed out' }).waitFor();
}

let a: Authenticated;

describe('passkeys in Chromium', () => {
  beforeAll(async () => {
    a = await withAuthenticator();
  });
  afterAll(async () => {
    await ifAssigned(a)?.context.close();
  });

  it('a tenant turns passkeys on; the user enrols one and sees the recovery codes once', async () => {
    const patched = await api('PATCH', '', { settings: { passkeys: { enabled: true } } });
    expect(patched.status).toBe(200);
    expect((patched.body.settings as Record<string, unknown>).passkeys).toMatchObject({
      enabled: true,
      rpId: null,
      userVerification: 'required',
      attestation: 'none',
    });
    const { page } = a;
    await page.goto(`${base}/auth/${t}/account/passkeys`);
    await page.getByLabel('Username').fill(h.tenant.user.username);
    await page.getByLabel('Password').fill(h.tenant.user.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/auth/${t}/account/passkeys`);
    await page.getByLabel('Name', { exact: true }).fill('Chromium');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#done').waitFor();
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    expect(await page.locator('#passkeys li').textContent()).toContain('Chromium');
    await checkPage(page, 'passkeys-enrolled');
    const { credentials } = await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    const stored = await h.db.models.WebauthnCredential.findOne({ tenantId: t }).lean();
    expect(stored).toMatchObject({ userId: h.tenant.user.id, deviceType: 'singleDevice', name: 'Chromium' });
    // The RP ID is fixed now: management refuses a change and says why.
    const refused = await api('PATCH', '', { settings: { passkeys: { rpId: 'other.example' } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('body.settings.passkeys.rpId');
  });

  it('signs out, then signs in with the passkey button: amr and acr in the ID token and the access token', async () => {
    const { page } = a;
    await signOut(page);
    const auth = authorization({ acr_values: 'phr' });
    await withoutAutofill(
      a,
      async () => {
        await page.goto(auth.url);
        await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
        expect(await page.locator('#username').getAttribute('autocomplete')).toBe('username webauthn');
        await checkPage(page, 'login-passkey');
      },
      () => page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
    );
    const { id, at } = await tokensAt(page, auth);
    expect(id.sub).toBe(h.tenant.user.id);
    expect([id.acr, at.acr]).toEqual(['phr', 'phr']);
    expect(id.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(at.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(typeof at.auth_time).toBe('number');
    expect(a.cspViolations).toEqual([]);
  });

  it('signs in through browser autofill (conditional mediation) without pressing a button', async () => {
    const { page } = a;
    await signOut(page);
    const auth = authorization();
    // Loading the login page starts the conditional request; the authenticator answers it as a person picking the
    // passkey from the username field's suggestions would.
    await page.goto(auth.url);
    const { at } = await tokensAt(page, auth);
    expect(at.sub).toBe(h.tenant.user.id);
    expect(at.acr).toBe('phr');
  });

  it('a password session asked for an essential acr phr steps up with the passkey', async () => {
    const { page } = a;
    await signOut(page);
    const first = authorization();
    await withoutAutofill(
      a,
      async () => {
        await page.goto(first.url);
        await page.getByLabel('Password').fill(h.tenant.user.password);
        await page.getByLabel('Username').fill(h.tenant.user.username);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL(atCallback);
      },
      () => Promise.resolve(),
    );
    expect((await tokensAt(page, first)).at.acr).toBe('urn:idp:acr:pwd');
    const second = authorization({ claims: JSON.stringify({ id_token: { acr: { essential: true, value: 'phr' } } }) });
    await page.goto(second.url);
    await page.getByRole('heading', { name: 'Confirm with your passkey' }).waitFor();
    await checkPage(page, 'passkey-step-up');
    await page.getByRole('button', { name: 'Use my passkey' }).click();
    const { id } = await tokensAt(page, second);
    expect(id.acr).toBe('phr');
  });

  it('a delegation that needs a fresh phishing-resistant sign-in: refused after a password sign-in, granted after the passkey', async () => {
    const { page } = a;
    // The tenant's default for every delegation policy (settings.nhe): a phishing-resistant sign-in within 10 minutes.
    const required = await api('PATCH', '', { settings: { nhe: { phishingResistantSignInMaxAgeMinutes: 10 } } });
    expect(required.status).toBe(200);
    const exchange = async (subjectToken: string) => {
      const res = await fetch(`${base}/auth/${t}/oidc/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(app.clientId, app.clientSecret),
        },
        body: new URLSearchParams({
          grant_type: TOKEN_EXCHANGE,
          subject_token: subjectToken,
          subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
          actor_token: h.tenant.nhe.identifier,
          actor_token_type: 'urn:vendor:token-type:nhe-id',
          resource: h.tenant.resource,
          scope: 'orders:read',
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    try {
      await signOut(page);
      const byPassword = authorization();
      await withoutAutofill(
        a,
        async () => {
          await page.goto(byPassword.url);
          await page.getByLabel('Username').fill(h.tenant.user.username);
          await page.getByLabel('Password').fill(h.tenant.user.password);
          await page.getByRole('button', { name: 'Sign in', exact: true }).click();
          await page.waitForURL(atCallback);
        },
        () => Promise.resolve(),
      );
      const password = await tokensAt(page, byPassword);
      expect(password.at.acr).toBe('urn:idp:acr:pwd');
      const refused = await exchange(password.accessToken);
      expect([refused.status, refused.body.error]).toEqual([400, 'access_denied']);
      expect(refused.body.error_description).toContain(
        'phishing-resistant sign-in (passkey) within the last 10 minutes',
      );

      await signOut(page);
      const byPasskey = authorization();
      await page.goto(byPasskey.url); // autofill signs in with the passkey
      const passkey = await tokensAt(page, byPasskey);
      expect(passkey.at.acr).toBe('phr');
      const granted = await exchange(passkey.accessToken);
      expect([granted.status, granted.body.error_description]).toEqual([200, undefined]);
      expect(decodeJwt(granted.body.access_token!)).toMatchObject({
        sub: h.tenant.user.id,
        act: { sub: `nhe:${h.tenant.nhe.identifier}` },
      });
    } finally {
      await api('PATCH', '', { settings: { nhe: { phishingResistantSignInMaxAgeMinutes: 0 } } });
    }
  });

  it('a replayed assertion is refused, and another origin gets no assertion for this RP ID', async () => {
    const { page } = a;
    await signOut(page);
    // An assertion made by the browser for an interaction but not submitted by the page: it is posted twice. The
    // login page is left at once (its autofill request would submit on its own); the browser makes the assertion on
    // a page of the same origin without scripts of its own (the discovery document).
    const interactionOf = async (): Promise<string> => {
      let path = '';
      await withoutAutofill(
        a,
        async () => {
          await page.goto(authorization().url);
          path = new URL(page.url()).pathname;
          await page.goto(`${base}/auth/${t}/.well-known/openid-configuration`);
        },
        () => Promise.resolve(),
      );
      return path;
    };
    const first = await interactionOf();
    const options = (await (await page.request.post(`${base}${first}/passkey/options`)).json()) as object;
    const assertion = await page.evaluate(
      async (o: { challenge: string; rpId: string }) => {
        const bytes = (s: string) =>
          Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
        const text = (b: ArrayBuffer) =>
          btoa(String.fromCharCode(...new Uint8Array(b)))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, '');
        const c = (await navigator.credentials.get({
          publicKey: { challenge: bytes(o.challenge), rpId: o.rpId, userVerification: 'required' },
        })) as PublicKeyCredential;
        const r = c.response as AuthenticatorAssertionResponse;
        return JSON.stringify({
          id: c.id,
          rawId: text(c.rawId),
          type: c.type,
          response: {
            clientDataJSON: text(r.clientDataJSON),
            authenticatorData: text(r.authenticatorData),
            signature: text(r.signature),
            ...(r.userHandle ? { userHandle: text(r.userHandle) } : {}),
          },
          clientExtensionResults: {},
        });
      },
      options as { challenge: string; rpId: string },
    );
    const post = (path: string) =>
      page.request.post(`${base}${path}/passkey`, { form: { credential: assertion }, maxRedirects: 0 });
    expect((await post(first)).status()).toBe(303);
    await signOut(page);
    const replay = await post(await interactionOf());
    expect(replay.status()).toBe(401);
    expect(await replay.text()).toContain('That passkey did not sign you in');
    // The same login page at another origin of the same server (127.0.0.1 instead of localhost): the browser refuses
    // to make an assertion for RP ID localhost there (WebAuthn L3 section 5.1.4.1 step 8), so nothing is signed.
    const elsewhere = `http://127.0.0.1:${new URL(base).port}`;
    await page.goto(`${elsewhere}/auth/${t}/passkeys/webauthn.js`);
    const refusal = await page.evaluate(async () => {
      try {
        await navigator.credentials.get({
          publicKey: { challenge: new Uint8Array(32), rpId: 'localhost', userVerification: 'required' },
        });
        return 'signed';
      } catch (err) {
        return (err as Error).name;
      }
    });
    expect(refusal).toBe('SecurityError');
  });

  it('a removed passkey no longer signs in', async () => {
    const { page } = a;
    await signOut(page);
    // The account page's sign-in: autofill signs in at once.
    await page.goto(`${base}/auth/${t}/account/passkeys`);
    await page.waitForURL(`${base}/auth/${t}/account/passkeys`);
    await page.getByRole('button', { name: 'Remove this passkey' }).click();
    await page.waitForURL(/done=removed/);
    expect(await page.locator('#no-passkeys').count()).toBe(1);
    expect(await h.db.models.WebauthnCredential.countDocuments({ tenantId: t })).toBe(0);
    await signOut(page);
    // The authenticator still holds the key: autofill offers it, and the server refuses it.
    await page.goto(authorization().url);
    await page.locator('#form-error').waitFor();
    expect(await page.locator('#form-error').textContent()).toContain('That passkey did not sign you in');
  });
});

it('passkey-only: no password field; an account without a password is set up with a one-time enrolment link', async () => {
  expect((await api('PATCH', '', { settings: { passkeys: { passkeyOnly: true } } })).status).toBe(200);
  const created = await api('POST', '/users', { username: 'kim', claims: { name: 'Kim Passkey' } });
  expect(created.status).toBe(201);
  const userId = String(created.body.id);
  const link = await api('POST', `/users/${userId}/passkeys/enrolment-link`);
  expect(link.status).toBe(201);
  const kim = await withAuthenticator();
  try {
    const { page } = kim;
    await page.goto(`${base}${String(link.body.path)}`);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.locator('#done').waitFor();
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await checkPage(page, 'passkey-enrolment-link');
    // The link was used up.
    const again = await page.request.get(`${base}${String(link.body.path)}`);
    expect(again.status()).toBe(400);
    const auth = authorization();
    await withoutAutofill(
      kim,
      async () => {
        await page.goto(auth.url);
        await page.getByRole('button', { name: 'Sign in with a passkey' }).waitFor();
        expect(await page.locator('input[type="password"]').count()).toBe(0);
        await checkPage(page, 'login-passkey-only');
      },
      () => page.getByRole('button', { name: 'Sign in with a passkey' }).click(),
    );
    const { at } = await tokensAt(page, auth);
    expect(at.sub).toBe(userId);
    // The administrator's view and reset.
    const listed = await api('GET', `/users/${userId}/passkeys`);
    expect(listed).toMatchObject({ status: 200 });
    expect((listed.body.items as unknown[]).length).toBe(1);
    expect((await api('DELETE', `/users/${userId}/passkeys`)).status).toBe(204);
    expect(((await api('GET', `/users/${userId}/passkeys`)).body.items as unknown[]).length).toBe(0);
    expect(kim.cspViolations).toEqual([]);
  } finally {
    await kim.context.close();
  }
});
