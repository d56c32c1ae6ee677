/**
 * Single-use values in JetStream (actor tokens' jti) over a real nats-server: two connections stand for
 * two replicas; a value is accepted once whichever replica sees it, concurrent uses included; values of another
 * tenant or kind never collide; a record leaves with the stream's max_age; a value that must be kept longer than
 * max_age is refused rather than risked; NATS unreachable or
 * no stream rejects (never "new").
 */
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { testNats } from '@idp/testing';
import { ensureSingleUseStream, jetStreamSingleUseStore } from '../src';

let nats: Awaited<ReturnType<typeof testNats>>;
let a: NatsConnection;
let b: NatsConnection;
const run = randomUUID().slice(0, 8);
const STREAM = `TEST_SINGLE_USE_${run}`;
const PREFIX = `test-single-use.${run}`;

beforeAll(async () => {
  nats = await testNats();
  a = await connect({ servers: nats.url });
  b = await connect({ servers: nats.url });
  await ensureSingleUseStream(a, { replicas: 1, maxAgeSeconds: 600, name: STREAM, subjectPrefix: PREFIX });
  // Idempotent: a second replica starting runs it again.
  await ensureSingleUseStream(b, { replicas: 1, maxAgeSeconds: 600, name: STREAM, subjectPrefix: PREFIX });
});
afterAll(async () => {
  const jsm = await jetstreamManager(a);
  await jsm.streams.delete(STREAM).catch(() => undefined);
  await jsm.streams.delete(`${STREAM}_SHORT`).catch(() => undefined);
  await a.close();
  await b.close();
  await nats.server?.stop();
});

const store = (
  nc: NatsConnection,
  tenantId = 1,
  kind = 'actor-jti',
  over: { maxAgeSeconds?: number; subjectPrefix?: string } = {},
) =>
  jetStreamSingleUseStore(jetstream(nc), {
    kind,
    tenantId,
    maxAgeSeconds: over.maxAgeSeconds ?? 600,
    subjectPrefix: over.subjectPrefix ?? PREFIX,
    timeoutMs: 2000,
  });

it('a value is new once, on whichever replica sees it; another tenant or kind is another value', async () => {
  const key = `iss-hash:${randomUUID()}`;
  const inFive = new Date(Date.now() + 300_000);
  expect(await store(a).remember(key, inFive)).toBe(true);
  expect(await store(b).remember(key, inFive)).toBe(false);
  expect(await store(a).remember(key, inFive)).toBe(false);
  expect(await store(b, 2).remember(key, inFive)).toBe(true);
  expect(await store(b, 1, 'other-kind').remember(key, inFive)).toBe(true);
  // Characters a subject cannot carry (dots, wildcards, spaces) are fine: the subject holds the key's hash.
  expect(await store(a).remember('a.b *>\u00e9', inFive)).toBe(true);
  expect(await store(b).remember('a.b *>\u00e9', inFive)).toBe(false);
});

it('concurrent uses of one value on two replicas: exactly one is accepted', async () => {
  for (let round = 0; round < 5; round++) {
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store(i % 2 ? a : b).remember(key)));
    expect(results.filter(Boolean)).toHaveLength(1);
  }
});

it('the stream keeps one record per value (a second write never replaces the first) and ages records out', async () => {
  const jsm = await jetstreamManager(a);
  const info = await jsm.streams.info(STREAM);
  expect(info.config).toMatchObject({
    name: STREAM,
    max_msgs_per_subject: 1,
    discard: 'new',
    discard_new_per_subject: true,
    max_age: 600 * 1e9,
    storage: 'file',
  });
  // A short max_age: the value is new again once its record is gone.
  const SHORT = `${STREAM}_SHORT`;
  await ensureSingleUseStream(a, { replicas: 1, maxAgeSeconds: 1, name: SHORT, subjectPrefix: `${PREFIX}-short` });
  const short = store(a, 1, 'actor-jti', { maxAgeSeconds: 1, subjectPrefix: `${PREFIX}-short` });
  const key = randomUUID();
  expect(await short.remember(key)).toBe(true);
  expect(await short.remember(key)).toBe(false);
  const until = Date.now() + 10_000;
  let again = false;
  while (!again && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 300));
    again = await short.remember(key);
  }
  expect(again).toBe(true);
}, 20_000);

it('a value that must be kept longer than max_age is refused, not accepted unchecked', async () => {
  await expect(
    store(a, 1, 'actor-jti', { maxAgeSeconds: 60 }).remember(randomUUID(), new Date(Date.now() + 120_000)),
  ).rejects.toThrow(/longer than the stream's max_age/);
  expect(() => jetStreamSingleUseStore(jetstream(a), { kind: 'a.b', tenantId: 1, maxAgeSeconds: 60 })).toThrow(
    /one subject token/,
  );
});

it('without NATS the check fails (rejects), it never answers "new"', async () => {
  const c = await connect({ servers: nats.url });
  const s = store(c);
  await c.close();
  await expect(s.remember(randomUUID())).rejects.toThrow();
  // No stream listening on the subjects (not created, deleted): no responders, a rejection too.
  await expect(store(a, 1, 'actor-jti', { subjectPrefix: `${PREFIX}-none` }).remember(randomUUID())).rejects.toThrow();
});
