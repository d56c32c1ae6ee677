/**
 * The writer's consumer waits long enough for an ack: a message can sit up to a whole fetch window (1 s) in the
 * writer's fetch before its batch is written, so the first delivery's ack wait must be longer than that plus the
 * write. nats-server takes the consumer's first back-off value as that ack wait; it was 1 s (back-off 1, 2, 5, 10,
 * 30 s beside an ack_wait of 30 s that the server replaced), so a batch written more than 1 s after delivery was
 * sent again to whichever fetch was open: the other replica's, or the same replica's next one when the server had
 * not yet processed its acks (bench/memory: 489 duplicates in 269,000 exchanges, each one a lookup that FerretDB
 * answers by scanning the audit rows). Real nats-server and store, the writer's own loop and batch writer.
 */
import { randomUUID } from 'node:crypto';
import type { Database } from '@idp/db';
import {
  AUDIT_CONSUMER_BACKOFF_SECONDS,
  AUDIT_STREAM,
  AUDIT_WRITER_DURABLE,
  auditSubject,
  connectNats,
  ensureAuditConsumer,
  ensureAuditStream,
  publishAndAwaitAck,
  type NatsHandle,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import { openTestDatabase, startNatsServer, type RunningServer } from '@idp/testing';
import { runConsumerLoop } from '../src/consumer-loop';
import { writeBatch, type WriteOutcome } from '../src/writer';

const logger = createLogger({ service: 'test', level: 'silent' });
let nats: RunningServer;
let handle: NatsHandle;
let db: Database;

beforeAll(async () => {
  [nats, db] = await Promise.all([startNatsServer(), openTestDatabase('ackwait')]);
  await db.syncIndexes();
  handle = await connectNats(nats.url, logger, 'ack-wait-test');
  const jsm = await ensureAuditStream(handle.nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
  await ensureAuditConsumer(jsm, 1000);
});

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (handle as typeof handle | undefined)?.close();
  await (db as typeof db | undefined)?.close();
  await (nats as typeof nats | undefined)?.dispose();
});

test('the first ack wait covers a fetch window plus the write, and the server applies it', async () => {
  const info = await (await handle.js.jetstreamManager()).consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
  expect(AUDIT_CONSUMER_BACKOFF_SECONDS[0]).toBeGreaterThanOrEqual(5);
  expect(info.config.ack_wait).toBe(AUDIT_CONSUMER_BACKOFF_SECONDS[0]! * 1e9);
});

test('two writer replicas, one batch written slowly: its messages are not sent to the other replica meanwhile (no duplicate)', async () => {
  // Two replicas (the chart runs two): while one writes a batch, the other's fetch is open. A message whose ack
  // wait ends before its batch is written goes to that open fetch, and both replicas write it.
  const tenantId = 7301;
  const outcomes: Record<string, number> = {};
  const deliveries: number[] = [];
  const stop = new AbortController();
  const replicas = await Promise.all([0, 1].map(() => connectNats(nats.url, logger, 'ack-wait-replica')));
  const loops = replicas.map(async (r) =>
    runConsumerLoop(
      await r.js.consumers.get(AUDIT_STREAM, AUDIT_WRITER_DURABLE),
      async (msgs) => {
        deliveries.push(...msgs.map((m) => m.info.deliveryCount));
        await new Promise((resolve) => setTimeout(resolve, 1500)); // a store under load: the batch takes 1.5 s
        await writeBatch(
          {
            models: db.models,
            js: r.js,
            logger,
            onOutcome: (o: WriteOutcome, n) => n > 0 && (outcomes[o] = (outcomes[o] ?? 0) + n),
          },
          msgs,
        );
      },
      { batchSize: 200, fetchExpiresMs: 1000 }, // main.ts's
      logger,
      stop.signal,
    ),
  );
  await new Promise((r) => setTimeout(r, 300)); // both replicas have a fetch open
  const jti = `jti-${randomUUID()}`;
  await publishAndAwaitAck(
    handle.js,
    auditSubject(tenantId),
    {
      type: 'nhe.token.issued',
      jti,
      tenantId,
      userId: 'u-1',
      nheId: 'n-1',
      nheIdentifier: 'orders-agent',
      clientId: 'demo-app',
      clientNumericId: 42,
      resourceServer: 'https://api.orders.example',
      scopes: ['orders:read'],
      ttl: 300,
      sourceIp: '203.0.113.7',
      issuedAt: new Date().toISOString(),
    },
    jti,
  );
  // Long enough for a 1 s ack wait to have sent it to the other replica and for that one to have written it.
  await new Promise((r) => setTimeout(r, 5000));
  stop.abort();
  await Promise.all(loops);
  await Promise.all(replicas.map((r) => r.close()));
  expect(deliveries).toEqual([1]);
  expect(outcomes).toEqual({ written: 1 });
  expect(await db.models.TokenAudit.countDocuments({ tenantId })).toBe(1);
}, 20_000);
