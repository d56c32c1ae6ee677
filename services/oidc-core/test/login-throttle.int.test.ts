/**
 * Failed sign-in limits per account name and per IP, through the login form against the real store: messages
 * and statuses never tell whether an account exists, a locked account refuses even its right password,
 * concurrent guesses cannot exceed the limit, and a lock ends when the window passes.
 */
import { LoginThrottle } from '../src/domain/login-throttle';
import { LOCKED_OUT, WRONG_CREDENTIALS } from '../src/routes/interactions';
import { escape } from '../src/views/pages';
import { Browser, followToRedirectUri, startAuthorize, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
const WINDOW = 600;
/** The throttle's clock: tests move it forward instead of waiting for the window to pass. */
let offsetMs = 0;

beforeAll(async () => {
  app = await startPagesApp('throttle', {
    throttle: { maxFailuresPerAccount: 3, maxFailuresPerIp: 8, windowSeconds: WINDOW },
    clock: () => Date.now() + offsetMs,
  });
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

let ipCounter = 1;
const freshIp = () => `198.51.100.${ipCounter++}`;

async function attempt(ip: string, username: string, password: string) {
  const browser = new Browser(app.baseUrl, ip);
  const { interaction } = await startAuthorize(app, browser, app.tenant.client);
  const res = await browser.go(`${interaction}/login`, { form: { username, password } });
  return { ...res, browser };
}

it('answers an unknown name exactly like a wrong password, and locks both after the limit', async () => {
  const ip = freshIp();
  for (const name of ['alice', 'nobody-here']) {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await attempt(ip, name, 'wrong password'));
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 429]);
    expect(results[0]!.text).toContain(escape(WRONG_CREDENTIALS));
    expect(results[3]!.text).toContain(escape(LOCKED_OUT));
    expect(Number(results[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(results[3]!.headers.get('retry-after'))).toBeLessThanOrEqual(WINDOW);
    expect(results[3]!.text).not.toContain(escape(WRONG_CREDENTIALS));
  }
  // Locked: the right password is refused too, with the same message.
  const right = await attempt(freshIp(), 'alice', app.tenant.user.password);
  expect(right.status).toBe(429);
  expect(right.text).toContain(escape(LOCKED_OUT));
});

it('unlocks when the failures leave the window, and a success clears the account failures', async () => {
  // Just before the window ends alice is still locked; just after, she is not.
  offsetMs += (WINDOW - 5) * 1000;
  expect((await attempt(freshIp(), 'alice', app.tenant.user.password)).status).toBe(429);
  offsetMs += 10 * 1000;
  const ip = freshIp();
  expect((await attempt(ip, 'alice', 'bad')).status).toBe(401);
  expect((await attempt(ip, 'alice', 'bad')).status).toBe(401);
  const ok = await attempt(ip, 'alice', app.tenant.user.password);
  expect(ok.status).toBe(303);
  const callback = await followToRedirectUri(ok.browser, ok.location, app.tenant.client.redirectUri);
  expect(callback.searchParams.get('code')).toBeTruthy();
  // Two earlier failures were cleared: three more are allowed before the lock.
  const after = [];
  for (let i = 0; i < 4; i++) after.push((await attempt(ip, 'alice', 'bad')).status);
  expect(after).toEqual([401, 401, 401, 429]);
});

it('limits one IP across many account names', async () => {
  const ip = freshIp();
  const statuses = [];
  for (let i = 0; i < 9; i++) statuses.push((await attempt(ip, `user-${i}`, 'bad')).status);
  expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401, 401, 429]);
  // Another address is not affected.
  expect((await attempt(freshIp(), 'user-x', 'bad')).status).toBe(401);
});

it('lets no more than the limit of concurrent guesses reach the password check', async () => {
  const name = 'concurrent-target';
  const statuses = await Promise.all(
    Array.from({ length: 10 }, (_, i) => attempt(`192.0.2.${i + 1}`, name, 'bad').then((r) => r.status)),
  );
  expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(3);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
  expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
});

it('keeps records per tenant and removes expired ones on sweep', async () => {
  const { LoginFailure } = app.db.models;
  expect(await LoginFailure.countDocuments({ tenantId: app.tenant.tenantId + 1 })).toBe(0);
  expect(await LoginFailure.countDocuments({ tenantId: app.tenant.tenantId })).toBeGreaterThan(0);
  // Stored keys are digests: the names typed are not kept.
  expect(await LoginFailure.countDocuments({ key: { $regex: 'nobody-here' } })).toBe(0);
  const later = Date.now() + offsetMs + (WINDOW + 1) * 1000;
  expect(await new LoginThrottle(app.db.models, undefined, () => later).sweep()).toBeGreaterThan(0);
  expect(await LoginFailure.countDocuments({ tenantId: app.tenant.tenantId })).toBe(0);
});
