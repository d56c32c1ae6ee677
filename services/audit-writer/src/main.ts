import { connectDatabase } from '@idp/db';
import {
  AUDIT_STREAM,
  AUDIT_WRITER_DURABLE,
  auditConsumerLag,
  connectNats,
  ensureAuditConsumer,
  ensureAuditStream,
  ensureRefusalConsumer,
  ensureRefusalStream,
  REFUSAL_STREAM,
  REFUSAL_WRITER_DURABLE,
  retryUntilDeadline,
} from '@idp/events';
import { listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { createApp } from './app';
import { readConfig } from './config';
import { runConsumerLoop } from './consumer-loop';
import { writeBatch, type ChainTailCache } from './writer';
import { writeRefusalBatch } from './refusal-writer';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'audit-writer', level: config.LOG_LEVEL });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'audit-writer' });
  // The unique jti and chain-key indexes are what make redelivery and several replicas safe: create them first.
  await db.models.TokenAudit.createCollection().catch((err: unknown) => {
    if ((err as { code?: number } | null | undefined)?.code !== 48) throw err; // 48: NamespaceExists
  });
  await db.models.TokenAudit.createIndexes();
  // The refusal counters' unique key and the counted event ids are what make their redelivery safe.
  for (const model of [db.models.TokenRefusalCounter, db.models.TokenRefusalEvent]) {
    await model.createCollection().catch((err: unknown) => {
      if ((err as { code?: number } | null | undefined)?.code !== 48) throw err;
    });
    await model.createIndexes();
  }
  const nats = await connectNats(config.NATS_URL, logger, 'audit-writer');
  // The writer owns the streams and their durable consumers: created or updated here, idempotently. A replicated
  // JetStream that is electing a leader (a node restarting beside this one) answers "timeout" for a while: the steps
  // are tried again until the deadline rather than failing the process (startup-retry.ts).
  const streams = {
    replicas: config.AUDIT_STREAM_REPLICAS,
    duplicateWindowSeconds: config.AUDIT_DUPLICATE_WINDOW_SECONDS,
    maxAgeSeconds: config.AUDIT_STREAM_MAX_AGE_SECONDS,
  };
  const { jsm, consumer, refusalConsumer } = await retryUntilDeadline(
    async () => {
      const jsm = await ensureAuditStream(nats.nc, streams);
      await ensureAuditConsumer(jsm, config.AUDIT_MAX_ACK_PENDING);
      await ensureRefusalStream(nats.nc, streams);
      await ensureRefusalConsumer(jsm, config.AUDIT_MAX_ACK_PENDING);
      return {
        jsm,
        consumer: await nats.js.consumers.get(AUDIT_STREAM, AUDIT_WRITER_DURABLE),
        refusalConsumer: await nats.js.consumers.get(REFUSAL_STREAM, REFUSAL_WRITER_DURABLE),
      };
    },
    {
      deadlineMs: 60_000,
      onRetry: (err, attempt, pauseMs) =>
        logger.warn({ attempt, pauseMs, err: (err as Error).message }, 'JetStream not ready: trying again'),
    },
  );

  const { app, onOutcome, onRefusalOutcome } = createApp({
    logger,
    lag: () => auditConsumerLag(jsm),
    readiness: [
      { name: 'mongodb', check: db.ping },
      { name: 'nats', check: nats.ping },
    ],
  });
  const server = await listen(app, config.HOST, config.PORT, logger);
  const stop = new AbortController();
  const tails: ChainTailCache = new Map();
  const loop = runConsumerLoop(
    consumer,
    (msgs) => writeBatch({ models: db.models, js: nats.js, logger, onOutcome, tails }, msgs),
    { batchSize: config.AUDIT_BATCH_SIZE, fetchExpiresMs: 1000 },
    logger,
    stop.signal,
  );
  // The decision log's refusals: their own consumer and loop, so a backlog of either never holds up the other.
  const refusalLoop = runConsumerLoop(
    refusalConsumer,
    (msgs) => writeRefusalBatch({ models: db.models, js: nats.js, logger, onOutcome: onRefusalOutcome }, msgs),
    { batchSize: config.AUDIT_BATCH_SIZE, fetchExpiresMs: 1000 },
    logger,
    stop.signal,
  );
  onShutdown(logger, async () => {
    stop.abort();
    await loop;
    await refusalLoop;
    await server.close();
    await nats.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`audit-writer failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
