/**
 * TOTP enrolment through the management API: the secret is returned once (with its otpauth URI), stored only
 * sealed with the key-encryption key for this tenant and user, never shown by GET or the list and never logged;
 * a second enrolment is refused until a reset; other tenants cannot enrol or reset.
 */
import { generate } from 'otplib';
import { KeyEncryptionKey, MANAGEMENT_SCOPES, openTotpSecret } from '@idp/tokens';
import { checkTotp } from '../../oidc-core/src/domain/totp';
import { startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
let userId: string;
beforeAll(async () => {
  h = await startHarness('mgmtusertotp');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
  userId = (
    await h.call('post', `/auth/admin/tenants/${A}/users`, adminA, {
      username: 'mulder@example.com',
      password: 'the truth is out there',
    })
  ).body.id;
});
afterAll(async () => h.close());

const totp = (tenantId: number, id = userId) => `/auth/admin/tenants/${tenantId}/users/${id}/totp`;
const stored = async () => (await h.db.models.User.findById(userId).lean())!;

let secret: string;

it('enrols: the secret and otpauth URI once; stored sealed for this tenant and user', async () => {
  const res = await h.call('post', totp(A), adminA);
  expect(res.status).toBe(201);
  expect(res.headers['cache-control']).toBe('no-store');
  secret = res.body.secret;
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(res.body).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30 });
  const uri = new URL(res.body.otpauthUri);
  expect([uri.protocol, uri.host, decodeURIComponent(uri.pathname)]).toEqual([
    'otpauth:',
    'totp',
    '/a:mulder@example.com',
  ]);
  expect(Object.fromEntries(uri.searchParams)).toEqual({
    secret,
    issuer: 'a',
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });

  const sealed = (await stored()).totpSecret!;
  expect(sealed).toBeTruthy();
  expect(sealed).not.toContain(secret);
  expect(openTotpSecret(h.keyStore.kek, A, userId, sealed)).toBe(secret);
  // The associated data binds tenant and user; another key opens nothing.
  expect(() => openTotpSecret(h.keyStore.kek, B, userId, sealed)).toThrow();
  expect(() => openTotpSecret(h.keyStore.kek, A, '0'.repeat(24), sealed)).toThrow();
  expect(() => openTotpSecret(new KeyEncryptionKey('z'.repeat(40)), A, userId, sealed)).toThrow();
  // What oidc-core verifies against: a code generated from the returned secret is valid.
  expect(await checkTotp(openTotpSecret(h.keyStore.kek, A, userId, sealed), await generate({ secret }))).toBeDefined();
});

it('never shows the secret again: GET and the list say only that the user is enrolled; the log has no secret', async () => {
  const got = await h.call('get', `/auth/admin/tenants/${A}/users/${userId}`, adminA);
  expect(got.body.totpEnrolled).toBe(true);
  const listed = await h.call('get', `/auth/admin/tenants/${A}/users`, adminA);
  const sealed = (await stored()).totpSecret!;
  for (const text of [got.text, listed.text, h.logs.join('\n')]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(sealed);
  }
  expect(h.logs.some((l) => l.includes('enrolUserTotp') && l.includes('"totpEnrolled":true'))).toBe(true);
});

it('refuses a second enrolment (409) and keeps the first secret', async () => {
  const before = (await stored()).totpSecret;
  const again = await h.call('post', totp(A), adminA);
  expect(again.status).toBe(409);
  expect(again.text).not.toContain(secret);
  expect((await stored()).totpSecret).toBe(before);
});

it('concurrent enrolments: the others get 409, and the stored secret is one that was handed out', async () => {
  expect((await h.call('delete', totp(A), adminA)).status).toBe(204);
  const results = await Promise.all([
    h.call('post', totp(A), adminA),
    h.call('post', totp(A), adminA),
    h.call('post', totp(A), adminA),
  ]);
  const ok = results.filter((r) => r.status === 201);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
  const storedSecret = openTotpSecret(h.keyStore.kek, A, userId, (await stored()).totpSecret!);
  expect(ok.map((r) => r.body.secret)).toContain(storedSecret);
  secret = storedSecret;
});

it('another tenant cannot enrol or reset the user', async () => {
  const before = (await stored()).totpSecret;
  expect((await h.call('post', totp(B), adminB)).status).toBe(404);
  expect((await h.call('post', totp(A), adminB)).status).toBe(404);
  expect((await h.call('delete', totp(A), adminB)).status).toBe(404);
  expect((await stored()).totpSecret).toBe(before);
});

it('needs auth.users.update, refuses a body, 404 for an unknown user', async () => {
  const reader = await h.token(A, ['auth.users.list']);
  const denied = await h.call('post', totp(A), reader);
  expect([denied.status, denied.body.required_scope]).toEqual([403, 'auth.users.update']);
  expect((await h.call('post', totp(A), adminA, { secret: 'JBSWY3DPEHPK3PXP' })).status).toBe(400);
  expect((await h.call('post', totp(A, 'ffffffffffffffffffffffff'), adminA)).status).toBe(404);
});

it('reset removes the secret and the last used time step; the user can enrol again with a new secret', async () => {
  await h.db.models.User.updateOne({ _id: userId }, { $set: { totpLastTimeStep: 123 } });
  expect((await h.call('delete', totp(A), adminA)).status).toBe(204);
  const after = await stored();
  expect([after.totpSecret, after.totpLastTimeStep]).toEqual([undefined, undefined]);
  expect((await h.call('get', `/auth/admin/tenants/${A}/users/${userId}`, adminA)).body.totpEnrolled).toBe(false);
  const again = await h.call('post', totp(A), adminA);
  expect(again.status).toBe(201);
  expect(again.body.secret).not.toBe(secret);
});
