/**
 * TOTP second factor through the login pages: password then code, amr in the ID token, wrong codes and replayed
 * codes refused, TOTP failures counted by the account limit, no TOTP step without the password step.
 */
import { generateSecret } from 'otplib';
import { decodeJwt } from 'jose';
import { hashPassword } from '@idp/tokens';
import { currentTotp } from '../src/domain/totp';
import { AMR_PASSWORD, AMR_PASSWORD_TOTP, LOCKED_OUT, WRONG_TOTP } from '../src/routes/interactions';
import { escape } from '../src/views/pages';
import { Browser, followToRedirectUri, redeem, signIn, startAuthorize, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
const secret = generateSecret();
const PASSWORD = 'totp user password 1';

beforeAll(async () => {
  app = await startPagesApp('totp', { throttle: { maxFailuresPerAccount: 3, maxFailuresPerIp: 100, windowSeconds: 900 } });
  await app.db.models.User.create({ tenantId: app.tenant.tenantId, username: 'bob', passwordHash: await hashPassword(PASSWORD), totpSecret: secret, claims: { name: 'Bob' } });
  await app.db.models.User.create({ tenantId: app.tenant.tenantId, username: 'carol', passwordHash: await hashPassword(PASSWORD), totpSecret: generateSecret(), claims: {} });
});
/** amr the provider recorded on the user's session(s): what ID tokens and the claims helper read. */
async function sessionAmr(username: string): Promise<unknown[]> {
  const user = await app.db.models.User.findOne({ tenantId: app.tenant.tenantId, username }).lean();
  const sessions = await app.db.models.OidcPayload.find({ tenantId: app.tenant.tenantId, model: 'Session' }).lean();
  return sessions.map((s) => JSON.parse(s.payload) as { accountId?: string; amr?: unknown }).filter((p) => p.accountId === String(user!._id)).map((p) => p.amr);
}

afterAll(async () => {
  await app?.stop();
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

  const wrong = await browser.go(`${auth.interaction}/totp`, { form: { code: '000000' === (await currentTotp(secret)) ? '111111' : '000000' } });
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
  // The previous test used the current step's code; the same code again must fail.
  const { browser, auth } = await passwordStep('bob');
  const again = await browser.go(`${auth.interaction}/totp`, { form: { code: await currentTotp(secret) } });
  expect(again.status).toBe(401);
  expect(again.text).toContain(escape(WRONG_TOTP));
});

it('gives a password-only user amr pwd', async () => {
  const browser = new Browser(app.baseUrl, '203.0.113.51');
  const auth = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${auth.interaction}/login`, { form: { username: 'alice', password: app.tenant.user.password } });
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
