/** Kill-switch deny list: publish over real NATS, persist in FerretDB, rebuild after a restart, expire. */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { openTestDatabase, testNats } from '@idp/testing';
import {
  DenyList,
  REVOCATION_COLLECTION,
  buildRevocationEntry,
  publishRevocation,
  revocationStore,
  startDenyList,
} from '../src';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let nats: Awaited<ReturnType<typeof testNats>>;
let nc: NatsConnection;

beforeAll(async () => {
  db = await openTestDatabase('revocations');
  nats = await testNats();
  nc = await connect({ servers: nats.url });
});
afterAll(async () => {
  await nc.close();
  await nats.server?.stop();
  await db.connection.dropDatabase();
  await db.close();
});

const collection = () => db.connection.collection(REVOCATION_COLLECTION);
const token = (over: Partial<Parameters<DenyList['match']>[0]> = {}) => ({
  tenantId: 7,
  nheIdentifier: 'bot',
  jti: 'j1',
  azp: 3,
  sub: 'u1',
  iat: Math.floor(Date.now() / 1000) - 5,
  ...over,
});

it('matches by every selector, only tokens issued before the revocation, and forgets expired entries', () => {
  let now = Date.now();
  const list = new DenyList(() => now);
  list.add(
    buildRevocationEntry({ tenantId: 7, nheIdentifier: 'bot', reason: 'nhe.disabled', maxTokenLifetimeSeconds: 60 }),
  );
  expect(list.isRevoked(token())).toBe(true);
  expect(list.isRevoked(token({ nheIdentifier: 'other' }))).toBe(false);
  // Delegation chains: an agent anywhere in the act chain revokes the token handed on below it.
  expect(list.isRevoked(token({ nheIdentifier: 'tool', actorChain: ['tool', 'bot'] }))).toBe(true);
  expect(list.isRevoked(token({ nheIdentifier: 'tool', actorChain: ['tool', 'planner'] }))).toBe(false);
  expect(list.isRevoked(token({ tenantId: 8 }))).toBe(false);
  expect(list.isRevoked(token({ iat: Math.floor(now / 1000) + 2 }))).toBe(false); // minted after a re-enable
  list.add(buildRevocationEntry({ tenantId: 9, jti: 'jx', reason: 'token.revoked' }));
  expect(list.isRevoked(token({ tenantId: 9, jti: 'jx', iat: Math.floor(now / 1000) + 100 }))).toBe(true);
  list.add(buildRevocationEntry({ tenantId: 10, clientNumericId: 4, reason: 'client.delegation.disabled' }));
  expect(list.isRevoked(token({ tenantId: 10, azp: 4 }))).toBe(true);
  expect(list.isRevoked(token({ tenantId: 10, azp: 5 }))).toBe(false);
  now += 121_000; // past the 60 s the caller named: still revoked, since a lowered hardMax must not shorten it
  expect(list.isRevoked(token())).toBe(true);
  now += 840_000; // past the 900 s ceiling + 60 s skew
  expect(list.isRevoked(token())).toBe(false);
});

it('delivers over NATS to a live list and rebuilds a restarted list from MongoDB', async () => {
  const store = revocationStore(collection());
  const live = await startDenyList({ nc, store });
  try {
    await publishRevocation(nc, { tenantId: 7, nheIdentifier: 'bot', reason: 'nhe.deleted' }, { store });
    for (let i = 0; i < 50 && live.denyList.size === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(live.denyList.isRevoked(token())).toBe(true);
  } finally {
    live.close();
  }
  // A process started after the publish never saw the message: it rebuilds from the store.
  const restarted = await startDenyList({ nc, store });
  try {
    expect(restarted.denyList.isRevoked(token())).toBe(true);
    expect(restarted.denyList.isRevoked(token({ nheIdentifier: 'x' }))).toBe(false);
  } finally {
    restarted.close();
  }
  // One tenant's entries only, when asked for (introspection reads its own tenant's list).
  await store.save(buildRevocationEntry({ tenantId: 8, nheIdentifier: 'other-bot', reason: 'nhe.deleted' }));
  expect((await store.active(new Date(), 8)).map((e) => [e.tenantId, e.nheIdentifier])).toEqual([[8, 'other-bot']]);
  expect((await store.active()).map((e) => e.tenantId).sort()).toEqual([7, 8]);
  await store.prune(new Date(Date.now() + 3600_000));
  expect(await store.active()).toHaveLength(0);
});

it('an entry persisted while a verifier was cut off from NATS is loaded when it reconnects', async () => {
  if (!nats.server) return; // shared NATS_URL: this file cannot restart the server
  const store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const verifierNc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const live = await startDenyList({ nc: verifierNc, store, reloadIntervalMs: 600_000 });
  try {
    await nats.server.stop();
    // The management API wrote the entry; its NATS message never reached this verifier.
    await store.save(buildRevocationEntry({ tenantId: 11, nheIdentifier: 'bot', reason: 'nhe.disabled' }));
    expect(live.denyList.isRevoked(token({ tenantId: 11 }))).toBe(false);
    await nats.server.restart();
    for (let i = 0; i < 100 && !live.denyList.isRevoked(token({ tenantId: 11 })); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(live.denyList.isRevoked(token({ tenantId: 11 }))).toBe(true);
  } finally {
    live.close();
    await verifierNc.close();
  }
});
