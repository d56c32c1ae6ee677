/**
 * Passkeys (WebAuthn) against oidc-core over real HTTP, with a software authenticator that builds every response by
 * hand (passkeys-authenticator.ts): enrolment on the account page, sign-in on the login page, step-up, recovery codes,
 * and the refusals WebAuthn L3 section 7.2 asks of a Relying Party: a challenge answers one ceremony only, a credential
 * of another tenant or user is refused, as is a wrong RP ID or origin, a signature counter that goes backwards, and an
 * assertion without user verification where it is required. amr (RFC 8176) and acr (OpenID EAP phr) are read from the
 * ID token and the JWT access token.
 */
import { decodeJwt } from 'jose';
import { verifyRegistrationResponse } from '@simplewebauthn/server';
import { ACR_PHR, ACR_PWD } from '../src/domain/acr';
import { createClient } from '@idp/testing';
import {
  Browser,
  followToRedirectUri,
  PEPPER,
  redeem,
  signIn,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';
import { SoftAuthenticator } from './passkeys-authenticator';

const AGENT_REDIRECT = 'https://agent.example/cb';
let app: PagesApp;
let origin: string;
let rpId: string;
let client: { clientId: string; clientSecret: string; redirectUri: string };

const tenantBase = () => `/auth/${app.tenant.tenantId}`;
const json = <T>(text: string) => JSON.parse(text) as T;

beforeAll(async () => {
  app = await startPagesApp('passkeys');
  origin = app.baseUrl;
  rpId = new URL(app.baseUrl).hostname;
  client = app.tenant.client as unknown as typeof client;
  await app.db.models.Tenant.updateOne(
    { _id: app.tenant.tenantId },
    { $set: { 'settings.passkeys': { enabled: true, confirmAgentConsent: true } } },
  );
  // An agent client (an NHE names it in agentClients), third party: its consent page asks for the passkey.
  await createClient(app.db.models, PEPPER, {
    tenantId: app.tenant.tenantId,
    clientId: 'mcp-agent',
    name: 'mcp-agent',
    grantTypes: ['authorization_code'],
    redirectUris: [AGENT_REDIRECT],
    firstParty: false,
  });
  await app.db.models.Nhe.updateOne(
    { tenantId: app.tenant.tenantId, identifier: 'orders-agent' },
    { $set: { agentClients: ['mcp-agent'] } },
  );
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
});

/** A signed-in browser of alice (password). */
async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(app.baseUrl);
  await signIn(app, browser, client);
  return browser;
}

/** Enrols `auth` on alice's passkeys page; returns the page the registration answered with. */
async function enrol(
  browser: Browser,
  auth: SoftAuthenticator,
  name = 'Test key',
): Promise<{ status: number; text: string }> {
  const page = await browser.go(`${tenantBase()}/account/passkeys`);
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
  const options = await browser.go(`${tenantBase()}/account/passkeys/options`, { form: { csrf } });
  expect(options.status).toBe(200);
  const credential = auth.register(json(options.text), origin);
  return browser.go(`${tenantBase()}/account/passkeys`, {
    form: { csrf, name, credential: JSON.stringify(credential) },
  });
}

/** Starts an authorization request; returns the interaction and request options of its passkey sign-in. */
async function passkeyStart(browser = new Browser(app.baseUrl), extra: Record<string, string> = {}) {
  const start = await startAuthorize(app, browser, client, {
    scope: 'openid orders:read',
    resource: app.tenant.resource,
    ...extra,
  });
  const options = await browser.go(`${start.interaction}/passkey/options`, { method: 'POST' });
  expect(options.status).toBe(200);
  return {
    ...start,
    options: json<{ challenge: string; rpId: string; allowCredentials?: Array<{ id: string }> }>(options.text),
  };
}

/** Posts an assertion to the interaction; on success follows to the code and redeems it. */
async function finish(
  start: Awaited<ReturnType<typeof passkeyStart>>,
  credential: Record<string, unknown>,
): Promise<{ status: number; text: string; tokens?: { id_token: string; access_token: string } }> {
  const res = await start.browser.go(`${start.interaction}/passkey`, {
    form: { credential: JSON.stringify(credential) },
  });
  if (res.status !== 303) return { status: res.status, text: res.text };
  // To the redirect URI, allowing the consent page where the request asks for claims (the acr claim request).
  let location = res.location;
  for (let i = 0; i < 10 && location && !location.startsWith(client.redirectUri); i++) {
    const url = new URL(location, app.baseUrl);
    const page = await start.browser.go(url.toString());
    location =
      page.status === 200 && /\/interaction\/[^/]+$/.test(url.pathname)
        ? (await start.browser.go(`${url.pathname}/confirm`, { form: {} })).location
        : page.location;
  }
  const callback = await followToRedirectUri(start.browser, location, client.redirectUri);
  const code = callback.searchParams.get('code');
  if (!code) return { status: 400, text: callback.search };
  return { status: 303, text: '', tokens: await redeem(app, client, code, start.verifier) };
}

describe('passkeys', () => {
  const deviceBound = new SoftAuthenticator();
  let recoveryCodes: string[] = [];

  it('enrols a discoverable passkey on the account page, with recovery codes shown once', async () => {
    const browser = await signedInBrowser();
    const res = await enrol(browser, deviceBound, 'Laptop');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Your passkey was added');
    recoveryCodes = [...res.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recoveryCodes).toHaveLength(10);
    const stored = await app.db.models.WebauthnCredential.findOne({ credentialId: deviceBound.id }).lean();
    expect(stored).toMatchObject({
      tenantId: app.tenant.tenantId,
      userId: app.tenant.user.id,
      deviceType: 'singleDevice',
      name: 'Laptop',
    });
    // A second passkey comes without new codes (they were shown once).
    const again = await enrol(browser, new SoftAuthenticator({ synced: true }), 'Phone');
    expect(again.status).toBe(200);
    expect(again.text).not.toContain('Your recovery codes');
  });

  it('signs in with a device-bound passkey: amr hwk user mfa and acr phr in the ID token and the access token', async () => {
    // The ID token states acr when asked (acr_values, OpenID Connect Core 3.1.2.1) and amr with the amr scope.
    const start = await passkeyStart(undefined, { acr_values: ACR_PHR, scope: 'openid amr orders:read' });
    const done = await finish(start, deviceBound.assert(start.options, origin));
    expect(done.status).toBe(303);
    const id = decodeJwt(done.tokens!.id_token);
    const at = decodeJwt(done.tokens!.access_token);
    expect(id.sub).toBe(app.tenant.user.id);
    expect(id.acr).toBe(ACR_PHR);
    expect(id.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(at.acr).toBe(ACR_PHR);
    expect(at.amr).toEqual(['hwk', 'user', 'mfa']);
    expect(typeof at.auth_time).toBe('number');
    const stored = await app.db.models.WebauthnCredential.findOne({ credentialId: deviceBound.id }).lean();
    expect(stored?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('a synced passkey (counter 0 forever) signs in again and again with amr swk', async () => {
    const synced = new SoftAuthenticator({ synced: true, counter: 'zero' });
    await enrol(await signedInBrowser(), synced, 'Synced');
    for (let i = 0; i < 2; i++) {
      const start = await passkeyStart();
      const done = await finish(start, synced.assert(start.options, origin));
      expect(done.status).toBe(303);
      expect(decodeJwt(done.tokens!.access_token).amr).toEqual(['swk', 'user', 'mfa']);
    }
  });

  it('refuses a challenge used twice (a replayed assertion)', async () => {
    // A synced key (counter 0 forever): only the challenge can stop a replay.
    const synced = new SoftAuthenticator({ synced: true, counter: 'zero' });
    await enrol(await signedInBrowser(), synced, 'Replay');
    const first = await passkeyStart();
    const assertion = synced.assert(first.options, origin);
    expect((await finish(first, assertion)).status).toBe(303);
    // The same assertion on a new interaction: its challenge was used (and was another interaction's).
    const second = await passkeyStart();
    const replay = await finish(second, assertion);
    expect(replay.status).toBe(401);
    expect(replay.text).toContain('That passkey did not sign you in');
    // One challenge, two answers on one interaction: a refused first attempt uses it up, the second is refused too.
    const third = await passkeyStart();
    const stranger = new SoftAuthenticator();
    stranger.register({ challenge: 'x', rp: { id: rpId }, user: { id: 'eA' } }, origin);
    expect((await finish(third, stranger.assert(third.options, origin))).status).toBe(401);
    expect((await finish(third, synced.assert(third.options, origin))).status).toBe(401);
  });

  it('refuses a wrong RP ID and a foreign origin', async () => {
    const s1 = await passkeyStart();
    expect((await finish(s1, deviceBound.assert(s1.options, origin, { rpId: 'evil.example' }))).status).toBe(401);
    const s2 = await passkeyStart();
    expect((await finish(s2, deviceBound.assert(s2.options, origin, { origin: 'https://evil.example' }))).status).toBe(
      401,
    );
  });

  it('refuses a signature counter that goes backwards', async () => {
    const counting = new SoftAuthenticator();
    await enrol(await signedInBrowser(), counting, 'Counting');
    const s1 = await passkeyStart();
    expect((await finish(s1, counting.assert(s1.options, origin, { counter: 10 }))).status).toBe(303);
    const s2 = await passkeyStart();
    expect((await finish(s2, counting.assert(s2.options, origin, { counter: 5 }))).status).toBe(401);
    const stored = await app.db.models.WebauthnCredential.findOne({ credentialId: counting.id }).lean();
    expect(stored?.counter).toBe(10);
  });

  it('refuses an assertion without user verification where it is required', async () => {
    const noUv = new SoftAuthenticator({ userVerified: false });
    // Registration without UV is refused too (userVerification required).
    const refused = await enrol(await signedInBrowser(), noUv, 'No UV');
    expect(refused.status).toBe(400);
    // A registered key that later answers without UV.
    const key = new SoftAuthenticator();
    await enrol(await signedInBrowser(), key, 'Later no UV');
    (key.o as { userVerified?: boolean }).userVerified = false;
    const s = await passkeyStart();
    expect((await finish(s, key.assert(s.options, origin))).status).toBe(401);
  });

  it('refuses a credential of another tenant', async () => {
    const elsewhere = new SoftAuthenticator();
    // The same key enrolled in another tenant (as that tenant's enrolment stores it): unknown in this one.
    const jwk = elsewhere.publicKey.export({ format: 'jwk' });
    expect(jwk.kty).toBe('EC');
    const other = await startPagesApp('passkeysother');
    try {
      await other.db.models.Tenant.updateOne(
        { _id: other.tenant.tenantId },
        { $set: { 'settings.passkeys': { enabled: true } } },
      );
      const b = new Browser(other.baseUrl);
      await signIn(other, b, other.tenant.client as unknown as typeof client);
      const page = await b.go(`/auth/${other.tenant.tenantId}/account/passkeys`);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
      const options = await b.go(`/auth/${other.tenant.tenantId}/account/passkeys/options`, { form: { csrf } });
      const reg = await b.go(`/auth/${other.tenant.tenantId}/account/passkeys`, {
        form: { csrf, name: 'x', credential: JSON.stringify(elsewhere.register(json(options.text), other.baseUrl)) },
      });
      expect(reg.status).toBe(200);
      // Same host (127.0.0.1), so the RP ID matches: only the tenant differs. Copy it into this test's store under
      // the other tenant's id, as one shared database would hold it.
      const stored = await other.db.models.WebauthnCredential.findOne({ credentialId: elsewhere.id }).lean();
      await app.db.models.WebauthnCredential.create({ ...stored, _id: undefined, tenantId: other.tenant.tenantId });
    } finally {
      await other.stop();
    }
    const s = await passkeyStart();
    expect((await finish(s, elsewhere.assert(s.options, origin))).status).toBe(401);
  });

  it('step-up: a password session asked for an essential phr confirms with its own passkey only', async () => {
    const browser = await signedInBrowser();
    const claims = JSON.stringify({ id_token: { acr: { essential: true, value: ACR_PHR } } });
    const start = await startAuthorize(app, browser, client, {
      claims,
      scope: 'openid orders:read',
      resource: app.tenant.resource,
    });
    const page = await browser.go(start.interaction);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Confirm with your passkey');
    const options = json<{ challenge: string; rpId: string; allowCredentials: Array<{ id: string }> }>(
      (await browser.go(`${start.interaction}/passkey/options`, { method: 'POST' })).text,
    );
    expect(options.allowCredentials.map((c) => c.id)).toContain(deviceBound.id);
    // Another user's passkey is refused in alice's step-up.
    const bobKey = new SoftAuthenticator();
    const bob = await app.db.models.User.create({ tenantId: app.tenant.tenantId, username: 'bob', passwordHash: 'x' });
    await app.db.models.WebauthnCredential.create({
      tenantId: app.tenant.tenantId,
      userId: String(bob._id),
      credentialId: bobKey.id,
      publicKey: await registeredPublicKey(bobKey, String(bob._id)),
      counter: 0,
      deviceType: 'singleDevice',
      name: 'bob',
    });
    const wrong = await browser.go(`${start.interaction}/passkey`, {
      form: { credential: JSON.stringify(bobKey.assert(options, origin)) },
    });
    expect(wrong.status).toBe(401);
    const again = json<{ challenge: string; rpId: string }>(
      (await browser.go(`${start.interaction}/passkey/options`, { method: 'POST' })).text,
    );
    const done = await finish({ ...start, options: { ...again } }, deviceBound.assert(again, origin));
    expect(done.status).toBe(303);
    expect(decodeJwt(done.tokens!.id_token).acr).toBe(ACR_PHR);
  });

  it('a recovery code signs in once, with a single-factor acr, and says to enrol again', async () => {
    const browser = new Browser(app.baseUrl);
    const start = await startAuthorize(app, browser, client, { acr_values: ACR_PWD });
    const code = recoveryCodes[0]!;
    const page = await browser.go(`${start.interaction}/recovery`, { form: { username: 'alice', code } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Enrol a passkey again');
    const cont = await browser.go(`${start.interaction}/recovery/continue`, { form: {} });
    const callback = await followToRedirectUri(browser, cont.location, client.redirectUri);
    const tokens = await redeem(app, client, callback.searchParams.get('code')!, start.verifier);
    expect(decodeJwt(tokens.id_token).acr).toBe(ACR_PWD);
    const second = await startAuthorize(app, new Browser(app.baseUrl), client);
    const reused = await second.browser.go(`${second.interaction}/recovery`, { form: { username: 'alice', code } });
    expect(reused.status).toBe(401);
  });

  it('an agent consent needs a fresh confirmation with the user’s own passkey (confirmAgentConsent)', async () => {
    const browser = await signedInBrowser();
    const agent = { clientId: 'mcp-agent', redirectUri: AGENT_REDIRECT };
    const extra = { scope: 'openid orders:read', resource: app.tenant.resource };
    const first = await startAuthorize(app, browser, agent, extra);
    const page = await browser.go(first.interaction);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Allowing an agent needs a confirmation with your passkey');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // Allow without the confirmation: refused.
    const bare = await browser.go(`${first.interaction}/confirm`, { form: {} });
    const refused = await followToRedirectUri(browser, bare.location, AGENT_REDIRECT);
    expect(refused.searchParams.get('error')).toBe('access_denied');
    // With an assertion of the user's passkey, bound to this interaction: the code is issued.
    const second = await startAuthorize(app, browser, agent, extra);
    expect((await browser.go(second.interaction)).status).toBe(200);
    const options = json<{ challenge: string; rpId: string; allowCredentials: Array<{ id: string }> }>(
      (await browser.go(`${second.interaction}/passkey/confirm-options`, { method: 'POST' })).text,
    );
    expect(options.allowCredentials.map((c) => c.id)).toContain(deviceBound.id);
    const allowed = await browser.go(`${second.interaction}/confirm`, {
      form: { credential: JSON.stringify(deviceBound.assert(options, origin)) },
    });
    const granted = await followToRedirectUri(browser, allowed.location, AGENT_REDIRECT);
    expect(granted.searchParams.get('code')).toBeTruthy();
  });

  it('advertises phr in discovery only where passkeys are on', async () => {
    const meta = json<{ acr_values_supported: string[] }>(
      (await new Browser(app.baseUrl).go(`${tenantBase()}/.well-known/openid-configuration`)).text,
    );
    expect(meta.acr_values_supported).toEqual(['urn:idp:acr:pwd', 'urn:idp:acr:mfa', 'phr']);
  });
});

/** The COSE public key of `auth` as enrolment would store it: a registration verified by the library's own parser. */
async function registeredPublicKey(auth: SoftAuthenticator, userId: string): Promise<string> {
  const challenge = 'c'.repeat(43);
  const reg = auth.register(
    { challenge, rp: { id: rpId }, user: { id: Buffer.from(userId).toString('base64url') } },
    origin,
  );
  const v = await verifyRegistrationResponse({
    response: reg as never,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpId,
  });
  if (!v.verified) throw new Error('registration did not verify');
  return Buffer.from(v.registrationInfo.credential.publicKey).toString('base64url');
}
