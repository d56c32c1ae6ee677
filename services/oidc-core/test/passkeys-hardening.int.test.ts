/**
 * Passkeys against oidc-core over real HTTP, the Relying Party rules beyond the ceremony itself:
 * - adding a passkey needs a recent authentication, not only a live session (NIST SP 800-63B section 6.1.2.1: a new
 *   authenticator is bound after the subscriber authenticates), so a stolen session cookie cannot add one;
 * - a discoverable sign-in must return the user handle (WebAuthn L3 section 7.2 step 6);
 * - `packed` self attestation is no evidence about the authenticator (section 8.2): it never counts as verified;
 * - recovery codes are stored per user (salted), so one user's code digest opens no other account;
 * - a passkey-only tenant takes no password anywhere, linking an upstream identity by password included;
 * - a response the browser never sends (wrong JSON types) is a refusal, never a 500.
 */
import { issueChallenge } from '../src/passkeys/challenges';
import { completeRegistration } from '../src/passkeys/ceremony';
import { passkeySettingsOf } from '../src/passkeys/settings';
import { Browser, followToRedirectUri, signIn, startAuthorize, startPagesApp, type PagesApp } from './pages-app';
import { SoftAuthenticator } from './passkeys-authenticator';

let app: PagesApp;
let origin: string;
let client: { clientId: string; clientSecret: string; redirectUri: string };

const tenantBase = () => `/auth/${app.tenant.tenantId}`;
const json = <T>(text: string) => JSON.parse(text) as T;

beforeAll(async () => {
  app = await startPagesApp('pkhardening');
  origin = app.baseUrl;
  client = app.tenant.client as unknown as typeof client;
  await app.db.models.Tenant.updateOne(
    { _id: app.tenant.tenantId },
    { $set: { 'settings.passkeys': { enabled: true } } },
  );
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
});

async function signedInBrowser(): Promise<Browser> {
  const browser = new Browser(app.baseUrl);
  await signIn(app, browser, client);
  return browser;
}

async function passkeysPage(browser: Browser): Promise<{ csrf: string; text: string }> {
  const page = await browser.go(`${tenantBase()}/account/passkeys`);
  expect(page.status).toBe(200);
  return { csrf: /name="csrf" value="([^"]+)"/.exec(page.text)![1]!, text: page.text };
}

async function enrol(browser: Browser, auth: SoftAuthenticator, mutate?: (c: Record<string, unknown>) => void) {
  const { csrf } = await passkeysPage(browser);
  const options = await browser.go(`${tenantBase()}/account/passkeys/options`, { form: { csrf } });
  expect(options.status).toBe(200);
  const credential = auth.register(json(options.text), origin);
  mutate?.(credential);
  return browser.go(`${tenantBase()}/account/passkeys`, {
    form: { csrf, name: 'key', credential: JSON.stringify(credential) },
  });
}

async function passkeyStart() {
  const start = await startAuthorize(app, new Browser(app.baseUrl), client);
  const options = await start.browser.go(`${start.interaction}/passkey/options`, { method: 'POST' });
  expect(options.status).toBe(200);
  return { ...start, options: json<{ challenge: string; rpId: string }>(options.text) };
}

/** Makes the browser's provider session look authenticated an hour ago (its stored loginTs). */
async function ageSession(): Promise<void> {
  const sessions = await app.db.models.OidcPayload.find({ tenantId: app.tenant.tenantId, model: 'Session' }).lean();
  for (const s of sessions) {
    const payload = JSON.parse(s.payload) as { loginTs?: number };
    payload.loginTs = Math.floor(Date.now() / 1000) - 3600;
    await app.db.models.OidcPayload.updateOne({ _id: s._id }, { $set: { payload: JSON.stringify(payload) } });
  }
}

describe('passkeys: relying-party hardening', () => {
  const key = new SoftAuthenticator();
  let recoveryCodes: string[] = [];

  it('enrols right after a sign-in (the recent authentication adding a passkey needs)', async () => {
    const res = await enrol(await signedInBrowser(), key);
    expect(res.status).toBe(200);
    recoveryCodes = [...res.text.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recoveryCodes).toHaveLength(10);
  });

  it('a session whose sign-in is old cannot add a passkey: the page asks for a new sign-in, the forms are refused', async () => {
    const browser = await signedInBrowser();
    const { csrf } = await passkeysPage(browser);
    await ageSession();
    const options = await browser.go(`${tenantBase()}/account/passkeys/options`, { form: { csrf } });
    expect(options.status).toBe(401);
    expect(options.text).toContain('needs a recent sign-in');
    // Nor remove one (which would switch off the agent-consent confirmation for this user).
    const removed = await browser.go(`${tenantBase()}/account/passkeys/${key.id}/remove`, { form: { csrf } });
    expect(removed.status).toBe(401);
    expect(await app.db.models.WebauthnCredential.countDocuments({ credentialId: key.id })).toBe(1);
    const stranger = new SoftAuthenticator();
    const posted = await browser.go(`${tenantBase()}/account/passkeys`, {
      form: {
        csrf,
        name: 'stolen',
        credential: JSON.stringify(
          stranger.register({ challenge: 'x', rp: { id: 'localhost' }, user: { id: 'eA' } }, origin),
        ),
      },
    });
    expect(posted.status).toBe(401);
    // The page sends the person through a new sign-in (prompt=login) even though the session is live.
    const page = await browser.go(`${tenantBase()}/account/passkeys`);
    expect(page.status).toBe(303);
    const authorize = new URL(page.location!, app.baseUrl);
    expect(authorize.pathname).toBe(`${tenantBase()}/authorize`);
    expect(authorize.searchParams.get('prompt')).toBe('login');
    const interaction = new URL((await browser.go(authorize.toString())).location!, app.baseUrl).pathname;
    const login = await browser.go(`${interaction}/login`, {
      form: { username: app.tenant.user.username, password: app.tenant.user.password },
    });
    expect(login.status).toBe(303);
    const back = await followToRedirectUri(browser, login.location, `${app.baseUrl}${tenantBase()}/account/passkeys`);
    expect(back.pathname).toBe(`${tenantBase()}/account/passkeys`);
    const fresh = await browser.go(`${tenantBase()}/account/passkeys/options`, {
      form: { csrf: (await passkeysPage(browser)).csrf },
    });
    expect(fresh.status).toBe(200);
  });

  it('a discoverable sign-in without a user handle is refused', async () => {
    const s = await passkeyStart();
    const assertion = key.assert(s.options, origin);
    delete (assertion.response as Record<string, unknown>).userHandle;
    const res = await s.browser.go(`${s.interaction}/passkey`, { form: { credential: JSON.stringify(assertion) } });
    expect(res.status).toBe(401);
  });

  it('packed self attestation is stored as not verified, even where the tenant asks for attestation', async () => {
    const tenantId = app.tenant.tenantId;
    const userId = app.tenant.user.id;
    const tenant = await app.db.models.Tenant.findById(tenantId).lean();
    const settings = {
      ...passkeySettingsOf(tenant!, `${app.baseUrl}${tenantBase()}`),
      attestation: 'direct' as const,
    };
    const selfAttested = new SoftAuthenticator({ attestation: 'packed-self' });
    const challenge = await issueChallenge(app.db.models, tenantId, 'register', { userId });
    const response = selfAttested.register(
      { challenge, rp: { id: settings.rpId }, user: { id: Buffer.from(userId).toString('base64url') } },
      origin,
    );
    const stored = await completeRegistration(app.db.models, tenantId, settings, userId, response, 'self');
    expect(stored.attestationFormat).toBe('packed');
    expect(stored.attestationVerified).toBe(false);
  });

  it("recovery codes are salted per user: alice's code digests copied to bob open nothing", async () => {
    const tenantId = app.tenant.tenantId;
    const bob = await app.db.models.User.create({ tenantId, username: 'bob-rc', passwordHash: 'x' });
    const alices = await app.db.models.PasskeyRecoveryCode.find({ tenantId, userId: app.tenant.user.id }).lean();
    expect(alices).toHaveLength(10);
    await app.db.models.PasskeyRecoveryCode.insertMany(
      alices.map((c) => ({ tenantId, userId: String(bob._id), digest: c.digest })),
    );
    const asBob = await startAuthorize(app, new Browser(app.baseUrl, '203.0.113.77'), client);
    const refused = await asBob.browser.go(`${asBob.interaction}/recovery`, {
      form: { username: 'bob-rc', code: recoveryCodes[0]! },
    });
    expect(refused.status).toBe(401);
    const asAlice = await startAuthorize(app, new Browser(app.baseUrl, '203.0.113.78'), client);
    const used = await asAlice.browser.go(`${asAlice.interaction}/recovery`, {
      form: { username: app.tenant.user.username, code: recoveryCodes[0]! },
    });
    expect(used.status).toBe(200);
  });

  it('answers malformed WebAuthn JSON with a refusal, never a 500', async () => {
    // Each built on a real assertion of a registered credential answering a live challenge, so that the checks after
    // the challenge and the credential lookup are reached.
    type Assertion = Record<string, unknown> & { response: Record<string, unknown> };
    const cases: Array<[string, (a: Assertion) => string]> = [
      ['not JSON', () => 'not json'],
      ['null', () => 'null'],
      ['an array', () => '[]'],
      ['a string', () => '"text"'],
      ['response null', (a) => JSON.stringify({ ...a, response: null })],
      ['rawId a number', (a) => JSON.stringify({ ...a, rawId: 7 })],
      ['userHandle a number', (a) => JSON.stringify({ ...a, response: { ...a.response, userHandle: 5 } })],
      ['userHandle an object', (a) => JSON.stringify({ ...a, response: { ...a.response, userHandle: { a: 1 } } })],
    ];
    for (const [what, make] of cases) {
      const s = await passkeyStart();
      const credential = make(key.assert(s.options, origin) as Assertion);
      const res = await s.browser.go(`${s.interaction}/passkey`, { form: { credential } });
      expect([what, res.status]).toEqual([what, 401]);
    }
    // Registration: transports that are not a list of strings.
    const browser = await signedInBrowser();
    const reg = await enrol(browser, new SoftAuthenticator(), (c) => {
      (c.response as Record<string, unknown>).transports = { $gt: '' };
    });
    expect(reg.status).toBe(400);
    for (const credential of [
      'x',
      'null',
      '{"id":1}',
      JSON.stringify({ id: 'a', rawId: 'a', type: 'public-key', response: [] }),
    ]) {
      const { csrf } = await passkeysPage(browser);
      const r = await browser.go(`${tenantBase()}/account/passkeys`, { form: { csrf, name: 'n', credential } });
      expect([credential, r.status]).toEqual([credential, 400]);
    }
  });

  it('a passkey-only tenant refuses to link an upstream identity by password', async () => {
    const tenantId = app.tenant.tenantId;
    await app.db.models.Tenant.updateOne({ _id: tenantId }, { $set: { 'settings.passkeys.passkeyOnly': true } });
    app.pool.evict(tenantId);
    try {
      const start = await startAuthorize(app, new Browser(app.baseUrl, '203.0.113.79'), client);
      const uid = start.interaction.split('/').pop()!;
      // The state the upstream callback leaves when the identity has no account here yet (upstream/routes.ts).
      const { provider } = await app.pool.get(String(tenantId));
      const interaction = await provider.Interaction.find(uid);
      interaction!.result = {
        ...(interaction!.result as Record<string, unknown>),
        idp_upstream_identity: {
          alias: 'corp',
          assertion: {
            issuer: 'https://corp.example',
            subject: 'u-1',
            claims: { email: 'alice@corp.example' },
            amr: [],
          },
          at: Math.floor(Date.now() / 1000),
        },
      };
      await interaction!.persist();
      const res = await start.browser.go(`${start.interaction}/upstream/link`, {
        form: { username: app.tenant.user.username, password: app.tenant.user.password },
      });
      expect(res.status).toBe(403);
      expect(res.text).toContain('passkeys only');
    } finally {
      await app.db.models.Tenant.updateOne({ _id: tenantId }, { $set: { 'settings.passkeys.passkeyOnly': false } });
      app.pool.evict(tenantId);
    }
  });
});
