/**
 * TOTP second factor through the login pages: password then code, amr in the ID token, wrong codes and replayed
 * codes refused, TOTP failures counted by the account limit, no TOTP step without the password step. Secrets are
 * stored sealed (@idp/tokens sealTotpSecret): a user enrolled through the management API signs in with a code from
 * the secret it returned; a value sealed for another tenant or user, or a legacy plain one, accepts no code.
 */
import { generateSecret } from 'otplib';
import { decodeJwt, importJWK, SignJWT } from 'jose';
import request from 'supertest';
import { createLogger } from '@idp/logger';
import { hashPassword, MANAGEMENT_AUDIENCE, sealTotpSecret } from '@idp/tokens';
import { createApp as createManagementApp } from '../../management/src/app';
import { tenantKeyLookup } from '../../management/src/auth/tenant-keys';
import { currentTotp, verifyUserTotp } from '../src/domain/totp';
import { AMR_PASSWORD, AMR_PASSWORD_TOTP, LOCKED_OUT, WRONG_TOTP } from '../src/routes/interactions';
import { escape } from '../src/views/pages';
import {
  Browser,
  followToRedirectUri,
  redeem,
  signIn,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';

let app: PagesApp;
const secret = generateSecret();
const PASSWORD = 'totp user password 1';

/** A user whose stored TOTP secret is `store(userId)` (sealed, unless a test stores something else). */
async function createTotpUser(username: string, store: (userId: string) => string): Promise<string> {
  const user = await app.db.models.User.create({
    tenantId: app.tenant.tenantId,
    username,
    passwordHash: await hashPassword(PASSWORD),
    claims: {},
  });
  await app.db.models.User.updateOne({ _id: user._id }, { $set: { totpSecret: store(String(user._id)) } });
  return String(user._id);
}
const sealed = (s: string, tenantId?: number) => (userId: string) =>
  sealTotpSecret(app.keyStore.kek, tenantId ?? app.tenant.tenantId, userId, s);

beforeAll(async () => {
  app = await startPagesApp('totp', {
    throttle: { maxFailuresPerAccount: 3, maxFailuresPerIp: 100, windowSeconds: 900 },
  });
  await createTotpUser('bob', sealed(secret));
  await createTotpUser('carol', sealed(generateSecret()));
});
/** amr the provider recorded on the user's session(s): what ID tokens and the claims helper read. */
async function sessionAmr(username: string): Promise<unknown[]> {
  const user = await app.db.models.User.findOne({ tenantId: app.tenant.tenantId, username }).lean();
  const sessions = await app.db.models.OidcPayload.find({ tenantId: app.tenant.tenantId, model: 'Session' }).lean();
  return sessions
    .map((s) => JSON.parse(s.payload) as { accountId?: string; amr?: unknown })
    .filter((p) => p.accountId === String(user!._id))
    .map((p) => p.amr);
}

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

async function passwordStep(username: string, ip = '203.0.113.50') {
  const browser = new Browser(app.baseUrl, ip);
  const auth = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${auth.interaction}/login`, { form: { username, password: PASSWORD } });
  return { browser, auth, res };
}

it('asks for the code after the password and signs in with amr pwd+otp+mfa', async () => {
  const { browser, auth, res } = await passwordStep('bob');
  expect(res.status).toBe(303);
  const page = await browser.go(res.location!);
  expect(page.status).toBe(200);
  expect(page.text).toContain('Enter your verification code');
  expect(page.text).toContain('autocomplete="one-time-code"');

  const wrong = await browser.go(`${auth.interaction}/totp`, {
    form: { code: '000000' === (await currentTotp(secret)) ? '111111' : '000000' },
  });
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain(escape(WRONG_TOTP));

  const ok = await browser.go(`${auth.interaction}/totp`, { form: { code: await currentTotp(secret) } });
  expect(ok.status).toBe(303);
  const callback = await followToRedirectUri(browser, ok.location, app.tenant.client.redirectUri);
  expect(await sessionAmr('bob')).toEqual([AMR_PASSWORD_TOTP]);
  const tokens = await redeem(app, app.tenant.client, callback.searchParams.get('code')!, auth.verifier);
  expect(decodeJwt(tokens.id_token).sub).toBeTruthy();
});

it('refuses a code that was already used (replay)', async () => {
  // One code, accepted once, then sent again: refused whether or not a 30 s step boundary passed in between (the
  // one-use marker is keyed by the step the code matched).
  const replaySecret = generateSecret();
  await createTotpUser('rita', sealed(replaySecret));
  const code = await currentTotp(replaySecret);
  const first = await passwordStep('rita');
  const ok = await first.browser.go(`${first.auth.interaction}/totp`, { form: { code } });
  expect(ok.status).toBe(303);
  const { browser, auth } = await passwordStep('rita');
  const again = await browser.go(`${auth.interaction}/totp`, { form: { code } });
  expect(again.status).toBe(401);
  expect(again.text).toContain(escape(WRONG_TOTP));
});

it('accepts one code once even when it is submitted many times at the same instant', async () => {
  const concurrentSecret = generateSecret();
  const userId = await createTotpUser('dave', sealed(concurrentSecret));
  const code = await currentTotp(concurrentSecret);
  const results = await Promise.all(
    Array.from({ length: 8 }, () => verifyUserTotp(app.db.models, app.keyStore.kek, app.tenant.tenantId, userId, code)),
  );
  expect(results.filter(Boolean)).toHaveLength(1);
});

it('gives a password-only user amr pwd', async () => {
  const browser = new Browser(app.baseUrl, '203.0.113.51');
  const auth = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${auth.interaction}/login`, {
    form: { username: 'alice', password: app.tenant.user.password },
  });
  const callback = await followToRedirectUri(browser, res.location, app.tenant.client.redirectUri);
  expect(callback.searchParams.get('code')).toBeTruthy();
  expect(await sessionAmr('alice')).toContainEqual(AMR_PASSWORD);
});

it('counts wrong codes toward the account limit; the right password does not reset them', async () => {
  const { browser, auth } = await passwordStep('carol', '203.0.113.60');
  expect((await browser.go(`${auth.interaction}/totp`, { form: { code: '123456' } })).status).toBe(401);
  expect((await browser.go(`${auth.interaction}/totp`, { form: { code: 'abc' } })).status).toBe(401);
  // Password again (right): earlier TOTP failures stay counted.
  const second = await passwordStep('carol', '203.0.113.61');
  expect((await second.browser.go(`${second.auth.interaction}/totp`, { form: { code: '654321' } })).status).toBe(401);
  const locked = await second.browser.go(`${second.auth.interaction}/totp`, { form: { code: '111111' } });
  expect(locked.status).toBe(429);
  expect(locked.text).toContain(escape(LOCKED_OUT));
});

it('has no TOTP step without the password step', async () => {
  const browser = new Browser(app.baseUrl, '203.0.113.70');
  const auth = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${auth.interaction}/totp`, { form: { code: await currentTotp(secret) } });
  expect(res.status).toBe(400);
  expect(res.text).toContain('Enter your username and password again');
  expect(res.location).toBeUndefined();
});

it('does not ask a password-only session for a code on the next sign-in', async () => {
  const browser = new Browser(app.baseUrl, '203.0.113.71');
  const url = await signIn(app, browser, app.tenant.client);
  expect(url.searchParams.get('code')).toBeTruthy();
});

describe('secrets at rest', () => {
  it('a user enrolled through the management API signs in with a code from the secret it returned', async () => {
    const tenantId = app.tenant.tenantId;
    const management = createManagementApp({
      logger: createLogger({ service: 'test', level: 'silent' }),
      models: app.db.models,
      readiness: [],
      trustProxy: false,
      keyStore: app.keyStore,
      clientSecretPepper: 'p'.repeat(40),
      bearer: { publicBaseUrl: app.baseUrl, tenantKeys: tenantKeyLookup(app.db.models, app.keyStore, 0) },
    }).app;
    const jwk = (await app.keyStore.load(tenantId)).signing.find((k) => k.alg === 'ES256')!;
    const token = await new SignJWT({ scope: 'auth.users.create auth.users.update', client_id: 'admin' })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`${app.baseUrl}/auth/${tenantId}`)
      .setAudience(MANAGEMENT_AUDIENCE)
      .setSubject('admin')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await importJWK(jwk, 'ES256'));
    const admin = (method: 'post', path: string, body?: object) => {
      const agent = request(management);
      return agent[method](`/auth/admin/tenants/${tenantId}${path}`).set('authorization', `Bearer ${token}`).send(body);
    };
    const created = await admin('post', '/users', { username: 'erin', password: PASSWORD });
    expect(created.status).toBe(201);
    const enrolled = await admin('post', `/users/${created.body.id}/totp`);
    expect(enrolled.status).toBe(201);
    const stored = (await app.db.models.User.findById(created.body.id).lean())!.totpSecret!;
    expect(stored).not.toContain(enrolled.body.secret);

    const { browser, auth, res } = await passwordStep('erin', '203.0.113.80');
    expect(res.status).toBe(303);
    const ok = await browser.go(`${auth.interaction}/totp`, {
      form: { code: await currentTotp(enrolled.body.secret) },
    });
    expect(ok.status).toBe(303);
    const callback = await followToRedirectUri(browser, ok.location, app.tenant.client.redirectUri);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(await sessionAmr('erin')).toEqual([AMR_PASSWORD_TOTP]);
  });

  it.each([
    ['sealed for another tenant', 'frank', (s: string) => sealed(s, app.tenant.tenantId + 1)],
    [
      'sealed for another user',
      'grace',
      (s: string) => () => sealTotpSecret(app.keyStore.kek, app.tenant.tenantId, '0'.repeat(24), s),
    ],
    ['stored plain (legacy base32)', 'heidi', (s: string) => () => s],
  ])('a secret %s accepts no code, not even the right one', async (_what, username, store) => {
    const own = generateSecret();
    await createTotpUser(username, store(own));
    const { browser, auth, res } = await passwordStep(username, '203.0.113.90');
    expect(res.status).toBe(303);
    const refused = await browser.go(`${auth.interaction}/totp`, { form: { code: await currentTotp(own) } });
    expect(refused.status).toBe(401);
    expect(refused.text).toContain(escape(WRONG_TOTP));
  });
});
