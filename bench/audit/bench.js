#!/usr/bin/env node
/**
 * bench/audit: audit-writer rows/s next to a raw insertMany of the same rows (same server, same run), and
 * retention rows/s with peak RSS while pruning. Runs the built code (npx tsc -b tsconfig.build.json first).
 *
 *   node bench/audit/bench.js                      # sizes from the environment, defaults below
 *   BENCH_WRITER_ROWS=20000 BENCH_RETENTION_ROWS=1000000 MONGODB_URI=mongodb://host/bench node bench/audit/bench.js
 *
 * MONGODB_URI / NATS_URL: use these servers; otherwise a local FerretDB and nats-server are started (tools/).
 * The database named in MONGODB_URI gets three scratch databases with suffixes; they are dropped at the end.
 */
const { randomUUID } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { performance } = require('node:perf_hooks');
const { chainTail, connectDatabase, linkRows } = require('@idp/db');
const {
  AUDIT_STREAM,
  AUDIT_WRITER_DURABLE,
  auditSubject,
  connectNats,
  ensureAuditConsumer,
  ensureAuditStream,
} = require('@idp/events');
const { createLogger } = require('@idp/logger');
const { ensureTools, startFerretDb, startNatsServer, withDatabase } = require('@idp/testing');
const { runConsumerLoop } = require('@idp/audit-writer/dist/consumer-loop');
const { toAuditRow, writeBatch } = require('@idp/audit-writer/dist/writer');
const { runRetention } = require('@idp/audit-retention/dist/retention');

const WRITER_ROWS = Number(process.env.BENCH_WRITER_ROWS ?? 5000);
const RETENTION_ROWS = Number(process.env.BENCH_RETENTION_ROWS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_WRITER_BATCH ?? 200); // the writer's default AUDIT_BATCH_SIZE
const RETENTION_BATCH = Number(process.env.BENCH_RETENTION_BATCH ?? 1000); // the job's default batch size
const TENANTS = Number(process.env.BENCH_TENANTS ?? 4);
const logger = createLogger({ service: 'bench', level: 'silent' });

function event(tenantId, i) {
  return {
    type: 'nhe.token.issued',
    jti: `bench-${randomUUID()}`,
    tenantId,
    userId: `user-${i % 50}`,
    nheId: 'nhe-1',
    nheIdentifier: 'orders-agent',
    clientId: 'demo-app',
    clientNumericId: 42,
    resourceServer: 'https://api.orders.example',
    scopes: ['orders:read'],
    ttl: 300,
    sourceIp: '203.0.113.7',
    issuedAt: new Date(Date.now() - (WRITER_ROWS - i)).toISOString(),
  };
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

async function main() {
  const started = [];
  let mongoBase = process.env.MONGODB_URI;
  let natsUrl = process.env.NATS_URL;
  if (!mongoBase || !natsUrl) ensureTools('ferretdb', 'nats-server');
  if (!mongoBase) {
    const s = await startFerretDb();
    started.push(s);
    mongoBase = s.url;
  }
  if (!natsUrl) {
    const s = await startNatsServer();
    started.push(s);
    natsUrl = s.url;
  }
  const suffix = Date.now().toString(36);
  const dbs = [];
  const open = async (name) => {
    const db = await connectDatabase(withDatabase(mongoBase, `bench_audit_${name}_${suffix}`), logger);
    await db.syncIndexes();
    dbs.push(db);
    return db;
  };
  try {
    console.log(
      `store: ${process.env.MONGODB_URI ? 'MONGODB_URI' : 'local FerretDB (SQLite)'}; nats: ${process.env.NATS_URL ? 'NATS_URL' : 'local nats-server'}`,
    );
    console.log(
      `writer: ${fmt(WRITER_ROWS)} events over ${TENANTS} tenants, batch ${BATCH}; retention: ${fmt(RETENTION_ROWS)} rows, batch ${RETENTION_BATCH}`,
    );

    // 1. The writer: events pre-loaded in JetStream, then drained by one writer (fetch -> chain append -> ack).
    const writerDb = await open('writer');
    const nats = await connectNats(natsUrl, logger, 'bench');
    const jsm = await ensureAuditStream(nats.nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
    await jsm.streams.purge(AUDIT_STREAM);
    await jsm.consumers.delete(AUDIT_STREAM, AUDIT_WRITER_DURABLE).catch(() => undefined);
    await ensureAuditConsumer(jsm, 1000);
    const events = Array.from({ length: WRITER_ROWS }, (_, i) => event(1000 + (i % TENANTS), i));
    for (let i = 0; i < events.length; i += 500) {
      await Promise.all(
        events
          .slice(i, i + 500)
          .map((e) => nats.js.publish(auditSubject(e.tenantId), JSON.stringify(e), { msgID: e.jti })),
      );
    }
    const consumer = await nats.js.consumers.get(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
    const stop = new AbortController();
    let written = 0;
    const tails = new Map();
    const t0 = performance.now();
    const loop = runConsumerLoop(
      consumer,
      (msgs) =>
        writeBatch(
          {
            models: writerDb.models,
            js: nats.js,
            logger,
            tails,
            onOutcome: (o, n) => {
              if (o === 'written') written += n;
            },
          },
          msgs,
        ),
      { batchSize: BATCH, fetchExpiresMs: 1000 },
      logger,
      stop.signal,
    );
    while (written < WRITER_ROWS) await new Promise((r) => setTimeout(r, 20));
    const writerMs = performance.now() - t0;
    stop.abort();
    await loop;
    await nats.close();

    // 2. Raw insertMany of the same rows, same batch size, same write concern, into an empty collection.
    const rawDb = await open('raw');
    const rows = events.map(toAuditRow);
    const t1 = performance.now();
    for (let i = 0; i < rows.length; i += BATCH) {
      await rawDb.models.TokenAudit.collection.insertMany(
        rows.slice(i, i + BATCH).map((r) => ({ ...r })),
        { ordered: false, writeConcern: { w: 'majority' } },
      );
    }
    const rawMs = performance.now() - t1;
    console.log(
      `writer (JetStream fetch + hash chain + insert + ack): ${fmt((WRITER_ROWS / writerMs) * 1000)} rows/s (${fmt(writerMs)} ms)`,
    );
    console.log(
      `raw insertMany of the same rows:                    ${fmt((WRITER_ROWS / rawMs) * 1000)} rows/s (${fmt(rawMs)} ms)`,
    );
    console.log(`writer / raw: ${((rawMs / writerMs) * 100).toFixed(1)} %`);

    // 3. Retention over RETENTION_ROWS chained rows of one tenant, all past the cutoff.
    const retDb = await open('retention');
    const tenantId = 2000;
    await retDb.models.Tenant.create({
      _id: tenantId,
      name: 'bench',
      settings: { nhe: { enabled: true, auditRetentionDays: 30 } },
    });
    const old = Date.now() - 100 * 86_400_000;
    const ts = performance.now();
    // The chain tail is carried in memory: asking the store for it per chunk is a full scan on FerretDB.
    let tail = await chainTail(retDb.models, tenantId);
    for (let i = 0; i < RETENTION_ROWS; i += 10_000) {
      const chunk = Array.from({ length: Math.min(10_000, RETENTION_ROWS - i) }, (_, j) =>
        toAuditRow({ ...event(tenantId, i + j), issuedAt: new Date(old + i + j).toISOString() }),
      );
      const linked = linkRows(chunk, tail);
      tail = { seq: linked.at(-1).seq, hash: linked.at(-1).hash };
      await retDb.models.TokenAudit.collection.insertMany(linked, { ordered: false });
    }
    console.log(`seeded ${fmt(RETENTION_ROWS)} rows in ${fmt(performance.now() - ts)} ms`);
    global.gc?.();
    // The job's RSS (this process), and FerretDB's when it was started here (it sorts the tenant's rows in memory).
    const storePid = process.env.MONGODB_URI ? undefined : started[0]?.process?.pid;
    const storeRss = () => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${storePid}/status`, 'utf8'))[1]) * 1024;
      } catch {
        return 0;
      }
    };
    const rssBefore = process.memoryUsage().rss;
    const storeBefore = storePid ? storeRss() : 0;
    let peak = rssBefore;
    let storePeak = storeBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
      if (storePid) storePeak = Math.max(storePeak, storeRss());
    }, 25);
    const t2 = performance.now();
    const [outcome] = await runRetention(retDb.models, logger, {
      batchSize: RETENTION_BATCH,
      maxRowsPerTenant: 1_000_000,
      dryRun: false,
      now: new Date(),
    });
    const retMs = performance.now() - t2;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const mib = (n) => (n / 1048576).toFixed(1);
    if (outcome.status !== 'pruned') throw new Error(`retention: ${JSON.stringify(outcome)}`);
    console.log(
      `retention: ${fmt(outcome.deleted)} rows in ${outcome.batches} batches, ${fmt((outcome.deleted / retMs) * 1000)} rows/s (${fmt(retMs)} ms)`,
    );
    console.log(
      `retention peak RSS (job process): ${mib(peak)} MiB (before the run ${mib(rssBefore)} MiB, +${mib(peak - rssBefore)} MiB)`,
    );
    if (storePid)
      console.log(`FerretDB peak RSS during retention: ${mib(storePeak)} MiB (before ${mib(storeBefore)} MiB)`);
  } finally {
    for (const db of dbs) {
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    }
    for (const s of started) await s.dispose();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
