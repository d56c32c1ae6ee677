/**
 * Signing keys are created by whichever replica first serves a tenant (oidc-core and management both call
 * ensureKeys) and rotated through the management API, possibly by two admins or replicas at once: whatever the
 * interleaving, a tenant ends with exactly one active key per algorithm, and no key that may have signed a token
 * disappears from the JWKS.
 */
import { randomInt } from 'node:crypto';
import { openTestDatabase } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '../src';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let keyStore: KeyStore;

beforeAll(async () => {
  db = await openTestDatabase('keystore');
  keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const active = (tenantId: number, alg: 'ES256' | 'RS256') =>
  db.models.SigningKey.find({ tenantId, alg, status: 'active' }).lean();

it("replicas creating a new tenant's keys at once leave one active key per algorithm, the others still published", async () => {
  const tenantId = randomInt(3_000_000, 4_000_000);
  // Separate KeyStore instances, as separate replicas would have.
  const replicas = Array.from({ length: 5 }, () => new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40))));
  const results = await Promise.allSettled(replicas.map((k) => k.ensureKeys(tenantId)));
  expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
  for (const alg of ['ES256', 'RS256'] as const) {
    const all = await db.models.SigningKey.find({ tenantId, alg }).lean();
    expect(all.length).toBeGreaterThanOrEqual(1);
    expect(all.filter((k) => k.status === 'active')).toHaveLength(1);
    for (const k of all.filter((x) => x.status === 'retired'))
      expect(k.publishUntil!.getTime()).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
  }
  const keys = await keyStore.load(tenantId);
  expect(keys.signing.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
  // Every key created in the race is still published, so a token any of them signed verifies.
  expect(keys.publicJwks.keys).toHaveLength(await db.models.SigningKey.countDocuments({ tenantId }));
});

it('rotations at once leave exactly one active key, the newest, and report it', async () => {
  const tenantId = randomInt(3_000_000, 4_000_000);
  await keyStore.ensureKeys(tenantId);
  const [before] = await active(tenantId, 'ES256');
  const rotated = await Promise.all(Array.from({ length: 4 }, () => keyStore.rotate(tenantId, 'ES256', 600)));
  const now = await active(tenantId, 'ES256');
  expect(now).toHaveLength(1);
  const all = await db.models.SigningKey.find({ tenantId, alg: 'ES256' }).lean();
  expect(all).toHaveLength(5);
  const newest = all.reduce((a, b) =>
    b.createdAt > a.createdAt || (+b.createdAt === +a.createdAt && b.kid > a.kid) ? b : a,
  );
  expect(now[0]!.kid).toBe(newest.kid);
  // The last rotation to settle reports the key that is active; none reports a key that was never created.
  expect(rotated.map((r) => r.active.kid)).toContain(newest.kid);
  for (const r of rotated) expect(all.map((x) => x.kid)).toEqual(expect.arrayContaining([r.active.kid, r.created.kid]));
  expect(new Set(rotated.map((r) => r.created.kid)).size).toBe(4);
  const old = all.find((k) => k.kid === before!.kid)!;
  expect(old.status).toBe('retired');
  expect(old.publishUntil!.getTime()).toBeGreaterThan(Date.now() + 500 * 1000);
  // RS256 is untouched.
  expect(await active(tenantId, 'RS256')).toHaveLength(1);
  expect((await keyStore.load(tenantId)).signing.find((k) => k.alg === 'ES256')!.kid).toBe(newest.kid);
});

it('a single rotation retires the previous key for the window it is given', async () => {
  const tenantId = randomInt(3_000_000, 4_000_000);
  await keyStore.ensureKeys(tenantId);
  const [before] = await active(tenantId, 'RS256');
  const { created, active: after } = await keyStore.rotate(tenantId, 'RS256', 120);
  expect(after.kid).toBe(created.kid);
  expect(created.kid).not.toBe(before!.kid);
  const old = await db.models.SigningKey.findOne({ tenantId, kid: before!.kid }).lean();
  expect(old!.status).toBe('retired');
  const window = old!.publishUntil!.getTime() - old!.retiredAt!.getTime();
  expect(window).toBe(120_000);
  const keys = await keyStore.load(tenantId);
  expect(keys.signing.filter((k) => k.alg === 'RS256').map((k) => k.kid)).toEqual([created.kid]);
  expect(keys.retired.map((k) => k.kid)).toContain(before!.kid);
});

it('a rotation on a replica whose clock is behind still replaces the active key', async () => {
  const tenantId = randomInt(3_000_000, 4_000_000);
  await keyStore.ensureKeys(tenantId);
  const [before] = await active(tenantId, 'ES256');
  // The current key was stamped by a replica whose clock runs a minute ahead of this one.
  const ahead = new Date(Date.now() + 60_000);
  await db.models.SigningKey.updateOne({ tenantId, kid: before!.kid }, { $set: { createdAt: ahead } });
  const { created, active: after } = await keyStore.rotate(tenantId, 'ES256', 600);
  expect(after.kid).toBe(created.kid);
  expect(created.createdAt.getTime()).toBeGreaterThan(ahead.getTime());
  expect((await active(tenantId, 'ES256')).map((k) => k.kid)).toEqual([created.kid]);
  expect((await db.models.SigningKey.findOne({ tenantId, kid: before!.kid }).lean())!.status).toBe('retired');
});
