/**
 * Codes are redeemed once across replicas (provider/adapter.ts consume): node-oidc-provider reads a code, checks its
 * `consumed`, then consumes it, so two token requests with the same authorization code on two replicas can both have
 * read it unconsumed. The store lets exactly one consume pass; the other is invalid_grant (RFC 6749 section 4.1.2:
 * a code is used once). Deterministic here: both "replicas" read before either consumes.
 */
import { openTestDatabase } from '@idp/testing';
import { createAdapterFactory } from '../src/provider/adapter';

const T = 4712;
let db: Awaited<ReturnType<typeof openTestDatabase>>;

beforeAll(async () => {
  db = await openTestDatabase('adapter-single-use');
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

test.each([
  ['AuthorizationCode', 'authorization code'],
  ['DeviceCode', 'device code'],
])('a %s read by two replicas is consumed by one; the other gets invalid_grant', async (model, label) => {
  const one = createAdapterFactory(db.models, T)(model);
  const two = createAdapterFactory(db.models, T)(model);
  await one.upsert('c1', { jti: 'c1', kind: model, clientId: 'app', accountId: 'u', grantId: 'g1' } as never, 60);
  const [a, b] = [await one.find('c1'), await two.find('c1')];
  expect([a?.consumed, b?.consumed]).toEqual([undefined, undefined]);
  await one.consume('c1');
  await expect(two.consume('c1')).rejects.toMatchObject({
    error: 'invalid_grant',
    error_detail: `${label} already used`,
  });
  expect((await one.find('c1'))?.consumed).toEqual(expect.any(Number));
  // Another code is not affected.
  await one.upsert('c2', { jti: 'c2', kind: model, clientId: 'app', accountId: 'u', grantId: 'g1' } as never, 60);
  await expect(two.consume('c2')).resolves.toBeUndefined();
});

test('other records are consumed as before (a refresh token twice: the provider decides what reuse means)', async () => {
  const rt = createAdapterFactory(db.models, T)('RefreshToken');
  await rt.upsert('r1', { jti: 'r1', kind: 'RefreshToken', clientId: 'app', accountId: 'u' } as never, 60);
  await rt.consume('r1');
  await expect(rt.consume('r1')).resolves.toBeUndefined();
});
