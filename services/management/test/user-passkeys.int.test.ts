/**
 * settings.passkeys and a user's passkeys through the management API: off by default; strict validation; the RP ID is
 * fixed once the tenant has an enrolled passkey (problem+json naming the field and why); an administrator lists a
 * user's passkeys, removes one or all (with the recovery codes), and makes a one-time enrolment link only where
 * passkeys are on. Every response is validated against the OpenAPI document by the harness.
 */
import { createHash } from 'node:crypto';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let adminA: string;
let userId: string;
beforeAll(async () => {
  h = await startHarness('mgmtpasskeys');
  adminA = await h.token(h.tenants.a, [...MANAGEMENT_SCOPES]);
  const user = await h.db.models.User.create({ tenantId: h.tenants.a, username: 'pk-user', passwordHash: 'x' });
  userId = String(user._id);
});
afterAll(async () => h.close());

const t = () => `/auth/admin/tenants/${h.tenants.a}`;
const enrolled = (credentialId: string) =>
  h.db.models.WebauthnCredential.create({
    tenantId: h.tenants.a,
    userId,
    credentialId,
    publicKey: 'AQID',
    counter: 0,
    deviceType: 'multiDevice',
    backedUp: true,
    name: credentialId,
  });

it('is off by default; an enrolment link is refused while it is off', async () => {
  const got = await h.call('get', t(), adminA);
  expect(got.body.settings.passkeys).toEqual({
    enabled: false,
    rpId: null,
    passkeyOnly: false,
    userVerification: 'required',
    attestation: 'none',
    confirmAgentConsent: false,
  });
  const link = await h.call('post', `${t()}/users/${userId}/passkeys/enrolment-link`, adminA);
  expect(link.status).toBe(409);
});

it('validates strictly', async () => {
  const bad = await h.call('patch', t(), adminA, {
    settings: { passkeys: { rpId: 'https://idp.example', userVerification: 'discouraged' } },
  });
  expect(bad.status).toBe(400);
  expect(invalidNames(bad).sort()).toEqual(['body.settings.passkeys.rpId', 'body.settings.passkeys.userVerification']);
});

it('the RP ID can change until the first enrolment, then management refuses and says why', async () => {
  const on = await h.call('patch', t(), adminA, { settings: { passkeys: { enabled: true, rpId: 'idp.example' } } });
  expect([on.status, on.body.settings.passkeys.rpId]).toEqual([200, 'idp.example']);
  await enrolled('cred-1');
  const refused = await h.call('patch', t(), adminA, { settings: { passkeys: { rpId: 'other.example' } } });
  expect([refused.status, invalidNames(refused)]).toEqual([400, ['body.settings.passkeys.rpId']]);
  expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(JSON.stringify(refused.body)).toContain('WebAuthn section 5.1.3');
  // The same value again, and other settings, are fine.
  const same = await h.call('patch', t(), adminA, {
    settings: { passkeys: { rpId: 'idp.example', passkeyOnly: true } },
  });
  expect([same.status, same.body.settings.passkeys.passkeyOnly]).toEqual([200, true]);
});

it('lists, removes one, removes all with the recovery codes; makes a one-time enrolment link', async () => {
  await enrolled('cred-2');
  await h.db.models.PasskeyRecoveryCode.create({ tenantId: h.tenants.a, userId, digest: 'd'.repeat(64) });
  const listed = await h.call('get', `${t()}/users/${userId}/passkeys`, adminA);
  expect(listed.status).toBe(200);
  expect(listed.body.items.map((p: { credentialId: string }) => p.credentialId)).toEqual(['cred-1', 'cred-2']);
  expect(listed.body.recoveryCodesLeft).toBe(1);
  expect((await h.call('delete', `${t()}/users/${userId}/passkeys/cred-1`, adminA)).status).toBe(204);
  expect((await h.call('delete', `${t()}/users/${userId}/passkeys/cred-1`, adminA)).status).toBe(404);
  expect((await h.call('delete', `${t()}/users/${userId}/passkeys`, adminA)).status).toBe(204);
  const after = await h.call('get', `${t()}/users/${userId}/passkeys`, adminA);
  expect([after.body.items, after.body.recoveryCodesLeft]).toEqual([[], 0]);
  const link = await h.call('post', `${t()}/users/${userId}/passkeys/enrolment-link`, adminA);
  expect(link.status).toBe(201);
  const token = new URL(String(link.body.path), 'http://x').searchParams.get('token')!;
  const stored = await h.db.models.WebauthnChallenge.findOne({
    tenantId: h.tenants.a,
    purpose: 'enrolment-link',
  }).lean();
  expect(stored).toMatchObject({ userId, value: createHash('sha256').update(token).digest('hex') });
});

it("deleting a user deletes its passkeys, recovery codes and enrolment links, and no one else's", async () => {
  const doomed = await h.db.models.User.create({ tenantId: h.tenants.a, username: 'pk-doomed', passwordHash: 'x' });
  const doomedId = String(doomed._id);
  const tenantId = h.tenants.a;
  expect((await h.call('patch', t(), adminA, { settings: { passkeys: { enabled: true } } })).status).toBe(200);
  await h.db.models.WebauthnCredential.create({
    tenantId,
    userId: doomedId,
    credentialId: 'cred-doomed',
    publicKey: 'AQID',
    counter: 0,
    deviceType: 'singleDevice',
    name: 'doomed',
  });
  await h.db.models.PasskeyRecoveryCode.create({ tenantId, userId: doomedId, digest: 'e'.repeat(64) });
  expect((await h.call('post', `${t()}/users/${doomedId}/passkeys/enrolment-link`, adminA)).status).toBe(201);
  await enrolled('cred-survivor');
  expect((await h.call('delete', `${t()}/users/${doomedId}`, adminA)).status).toBe(204);
  const { WebauthnCredential, PasskeyRecoveryCode, WebauthnChallenge } = h.db.models;
  expect(await WebauthnCredential.countDocuments({ tenantId, userId: doomedId })).toBe(0);
  expect(await PasskeyRecoveryCode.countDocuments({ tenantId, userId: doomedId })).toBe(0);
  expect(await WebauthnChallenge.countDocuments({ tenantId, userId: doomedId })).toBe(0);
  expect(await WebauthnCredential.countDocuments({ tenantId, userId })).toBeGreaterThan(0);
});

it('deleting a tenant deletes the passkey data left in it', async () => {
  const sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
  const gone = (await h.call('post', '/auth/admin/tenants', sys, { name: 'pk-short-lived' })).body.id as number;
  await h.db.models.WebauthnCredential.create({
    tenantId: gone,
    userId: 'old-user',
    credentialId: 'cred-left',
    publicKey: 'AQID',
    counter: 0,
    deviceType: 'singleDevice',
    name: 'left',
  });
  await h.db.models.PasskeyRecoveryCode.create({ tenantId: gone, userId: 'old-user', digest: 'f'.repeat(64) });
  await h.db.models.WebauthnChallenge.create({
    tenantId: gone,
    purpose: 'enrolment-link',
    value: 'v'.repeat(64),
    userId: 'old-user',
    expiresAt: new Date(Date.now() + 60_000),
  });
  expect((await h.call('delete', `/auth/admin/tenants/${gone}`, sys)).status).toBe(204);
  expect(await h.db.models.WebauthnCredential.countDocuments({ tenantId: gone })).toBe(0);
  expect(await h.db.models.PasskeyRecoveryCode.countDocuments({ tenantId: gone })).toBe(0);
  expect(await h.db.models.WebauthnChallenge.countDocuments({ tenantId: gone })).toBe(0);
});
