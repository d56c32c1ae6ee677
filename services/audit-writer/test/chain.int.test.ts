/**
 * The per-tenant hash chain written by the audit-writer: contiguous under concurrent replicas (real JetStream
 * consumers sharing one durable), and verification detects deleted, altered, re-linked and truncated rows.
 */
import { randomUUID } from 'node:crypto';
import {
  advanceChainAnchor,
  advanceChainHead,
  auditRowHash,
  chainHeadId,
  verifyAuditChain,
  type Database,
  type TokenAuditDoc,
} from '@idp/db';
import {
  AUDIT_STREAM,
  AUDIT_WRITER_DURABLE,
  auditSubject,
  connectNats,
  ensureAuditConsumer,
  ensureAuditStream,
  publishAndAwaitAck,
  type NatsHandle,
  type NheTokenIssued,
} from '@idp/events';
import { auditConsumerLag } from '@idp/events';
import { createLogger } from '@idp/logger';
import request from 'supertest';
import { createApp } from '../src/app';
import { openTestDatabase, startNatsServer, type RunningServer } from '@idp/testing';
import { runConsumerLoop } from '../src/consumer-loop';
import { appendToChain, nakDelayMs, toAuditRow, writeBatch } from '../src/writer';

const logger = createLogger({ service: 'test', level: (process.env.TEST_LOG as 'silent' | undefined) ?? 'silent' });
let nats: RunningServer;
let handle: NatsHandle;
let db: Database;
let nextTenant = 9100;
const tenantId = () => nextTenant++;

beforeAll(async () => {
  [nats, db] = await Promise.all([startNatsServer(), openTestDatabase('auditchain')]);
  await db.syncIndexes();
  handle = await connectNats(nats.url, logger, 'audit-chain-test');
  const jsm = await ensureAuditStream(handle.nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
  await ensureAuditConsumer(jsm, 1000);
});

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (handle as typeof handle | undefined)?.close();
  await (db as typeof db | undefined)?.close();
  await (nats as typeof nats | undefined)?.dispose();
});

function event(tenant: number, i: number): NheTokenIssued {
  return {
    type: 'nhe.token.issued',
    jti: `jti-${randomUUID()}`,
    tenantId: tenant,
    userId: `user-${i % 3}`,
    nheId: 'nhe-1',
    nheIdentifier: 'orders-agent',
    clientId: 'demo-app',
    clientNumericId: 42,
    resourceServer: 'https://api.orders.example',
    scopes: ['orders:read'],
    ttl: 300,
    sourceIp: '203.0.113.7',
    issuedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
  };
}

const chainOf = (t: number) =>
  db.models.TokenAudit.find({ tenantId: t })
    .sort({ seq: 1 })
    .lean<Array<TokenAuditDoc & { _id: unknown; seq: number }>>();

describe('hash chain', () => {
  it('rows carry seq 1..n, each prevHash is the previous hash, and the hash covers the row', async () => {
    const t = tenantId();
    const rows = Array.from({ length: 5 }, (_, i) => toAuditRow(event(t, i)));
    expect(await appendToChain(db.models, t, rows.slice(0, 2))).toEqual({ written: 2, duplicates: 0 });
    // A second call continues the chain; a jti already stored is a duplicate, not a second link.
    expect(await appendToChain(db.models, t, [rows[1]!, ...rows.slice(2)])).toEqual({ written: 3, duplicates: 1 });
    const chain = await chainOf(t);
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(chain.map((r) => r.jti)).toEqual(rows.map((r) => r.jti));
    expect(chain[0]!.prevHash).toBe('0'.repeat(64));
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.prevHash).toBe(chain[i - 1]!.hash);
    for (const r of chain) expect(r.hash).toBe(auditRowHash(r, r.seq, r.prevHash!));
    expect(await verifyAuditChain(db.models, t)).toMatchObject({
      valid: true,
      checked: 5,
      firstSeq: 1,
      lastSeq: 5,
      headSeq: 5,
      problems: [],
    });
  });

  it('a redelivered batch of 200 whose first event is already stored leaves no gap (the store stops an ordered insert at its first duplicate)', async () => {
    // After a nats-server restart the writer's acks can be lost: the next batch starts with events already stored.
    // FerretDB v1.24.2 went on inserting past its own 100-document batch after such a duplicate, so rows kept
    // positions the writer then relinked over (CI saw seq 701-800 missing); tools/ferretdb/ordered-insert.sed.
    const t = tenantId();
    const rows = Array.from({ length: 201 }, (_, i) => toAuditRow(event(t, i)));
    expect(await appendToChain(db.models, t, rows.slice(0, 1))).toEqual({ written: 1, duplicates: 0 });
    expect(await appendToChain(db.models, t, rows, 50, new Map())).toEqual({ written: 200, duplicates: 1 });
    const chain = await chainOf(t);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(new Set(chain.map((r) => r.jti)).size).toBe(201);
    expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 201, problems: [] });
  });

  it('two writer replicas on one durable consumer: every event written once, one contiguous valid chain per tenant', async () => {
    const tenants = [tenantId(), tenantId()];
    const events = Array.from({ length: 300 }, (_, i) => event(tenants[i % 2]!, i));
    const replicas = await Promise.all([0, 1].map(() => connectNats(nats.url, logger, 'replica')));
    const stop = new AbortController();
    const loops = replicas.map(async (r) => {
      const consumer = await r.js.consumers.get(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
      // Each replica caches its own chain tails, as main.ts does: stale after the other replica appends.
      const tails = new Map();
      return runConsumerLoop(
        consumer,
        (msgs) => writeBatch({ models: db.models, js: r.js, logger, tails }, msgs),
        { batchSize: 20, fetchExpiresMs: 1000 },
        logger,
        stop.signal,
      );
    });
    await Promise.all(events.map((e) => publishAndAwaitAck(handle.js, auditSubject(e.tenantId), e, e.jti)));
    const deadline = Date.now() + 30_000;
    while (
      (await db.models.TokenAudit.countDocuments({ tenantId: { $in: tenants } })) < events.length &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 200));
    stop.abort();
    await Promise.all(loops);
    await Promise.all(replicas.map((r) => r.close()));
    for (const t of tenants) {
      const chain = await chainOf(t);
      expect(chain).toHaveLength(150);
      expect(new Set(chain.map((r) => r.jti)).size).toBe(150);
      expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 150 });
    }
  }, 60_000);

  it("writers creating a tenant's chain head at the same moment do not fail (a lost upsert race is retried)", async () => {
    for (let round = 0; round < 5; round++) {
      const t = tenantId();
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => advanceChainHead(db.models, t, i + 1)),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(await db.models.Counter.countDocuments({ _id: chainHeadId(t) })).toBe(1);
    }
  });

  it('concurrent appends for one tenant never fork the chain', async () => {
    const t = tenantId();
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 10 }, (_, i) => toAuditRow(event(t, b * 10 + i))),
    );
    const results = await Promise.all(batches.map((rows) => appendToChain(db.models, t, rows)));
    expect(results.reduce((n, r) => n + r.written, 0)).toBe(60);
    const chain = await chainOf(t);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 60 });
  });

  describe('verification detects tampering', () => {
    async function freshChain(n = 6) {
      const t = tenantId();
      await appendToChain(
        db.models,
        t,
        Array.from({ length: n }, (_, i) => toAuditRow(event(t, i))),
      );
      return { t, chain: await chainOf(t) };
    }

    it('a deleted row in the middle', async () => {
      const { t, chain } = await freshChain();
      await db.models.TokenAudit.collection.deleteOne({ _id: chain[2]!._id as never });
      const v = await verifyAuditChain(db.models, t);
      expect(v.valid).toBe(false);
      expect(v.problems).toEqual([{ kind: 'missing', fromSeq: 3, toSeq: 3 }]);
    });

    it('an altered field (scopes widened) without re-hashing', async () => {
      const { t, chain } = await freshChain();
      await db.models.TokenAudit.collection.updateOne(
        { _id: chain[3]!._id as never },
        { $set: { scopes: ['orders:read', 'orders:admin'] } },
      );
      const v = await verifyAuditChain(db.models, t);
      expect(v.problems).toEqual([{ kind: 'altered', fromSeq: 4, toSeq: 4, jti: chain[3]!.jti }]);
    });

    it("a cross-domain row's provenance (the trusted issuer, its assertion's jti and act.sub) is kept and covered by the hash", async () => {
      const t = tenantId();
      const crossDomain = {
        direction: 'redeemed' as const,
        peer: 'https://idp.org-a.example',
        assertionJti: 'id-jag-1',
        subject: 'person-at-a',
        actor: 'nhe:orders-agent',
      };
      await appendToChain(db.models, t, [toAuditRow({ ...event(t, 0), crossDomain }), toAuditRow(event(t, 1))]);
      const chain = await chainOf(t);
      expect(chain[0]!.crossDomain).toEqual(crossDomain);
      expect(chain[1]!.crossDomain).toBeUndefined();
      expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, problems: [] });
      // Naming another agent of the issuer afterwards is an alteration.
      await db.models.TokenAudit.collection.updateOne(
        { _id: chain[0]!._id as never },
        { $set: { 'crossDomain.actor': 'nhe:someone-else' } },
      );
      expect((await verifyAuditChain(db.models, t)).problems).toEqual([
        { kind: 'altered', fromSeq: 1, toSeq: 1, jti: chain[0]!.jti },
      ]);
    });

    it('an altered row re-hashed by the attacker breaks the link to the next row', async () => {
      const { t, chain } = await freshChain();
      const row = { ...chain[1]!, userId: 'someone-else' };
      await db.models.TokenAudit.collection.updateOne(
        { _id: row._id as never },
        { $set: { userId: row.userId, hash: auditRowHash(row, row.seq, row.prevHash!) } },
      );
      const v = await verifyAuditChain(db.models, t);
      expect(v.problems).toEqual([{ kind: 'broken-link', fromSeq: 3, toSeq: 3, jti: chain[2]!.jti }]);
    });

    it('the newest rows deleted (tail truncated)', async () => {
      const { t, chain } = await freshChain();
      await db.models.TokenAudit.collection.deleteMany({ _id: { $in: [chain[4]!._id, chain[5]!._id] as never[] } });
      const v = await verifyAuditChain(db.models, t);
      expect(v.problems).toEqual([{ kind: 'truncated', fromSeq: 5, toSeq: 6 }]);
    });

    it('the oldest rows deleted without an anchor, but pruning with an anchor verifies', async () => {
      const { t, chain } = await freshChain();
      await db.models.TokenAudit.collection.deleteMany({ _id: { $in: [chain[0]!._id, chain[1]!._id] as never[] } });
      expect((await verifyAuditChain(db.models, t)).problems).toEqual([{ kind: 'missing', fromSeq: 1, toSeq: 2 }]);
      await advanceChainAnchor(db.models, t, 2, chain[1]!.hash!);
      expect(await verifyAuditChain(db.models, t)).toMatchObject({
        valid: true,
        checked: 4,
        firstSeq: 3,
        anchor: { seq: 2, hash: chain[1]!.hash },
      });
      // A forged anchor hash does not match the first remaining row.
      await db.models.AuditChainAnchor.updateOne({ _id: t }, { $set: { hash: 'f'.repeat(64) } });
      expect((await verifyAuditChain(db.models, t)).problems).toEqual([
        { kind: 'broken-link', fromSeq: 3, toSeq: 3, jti: chain[2]!.jti },
      ]);
    });

    it('a time range checks only the rows issued in it, including the link into it', async () => {
      const { t, chain } = await freshChain();
      await db.models.TokenAudit.collection.deleteOne({ _id: chain[0]!._id as never });
      const later = await verifyAuditChain(db.models, t, {
        from: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)),
        to: new Date(Date.UTC(2026, 0, 1, 0, 0, 4)),
      });
      expect(later).toMatchObject({ valid: true, checked: 3, firstSeq: 3, lastSeq: 5 });
      const early = await verifyAuditChain(db.models, t, {
        from: new Date(Date.UTC(2026, 0, 1, 0, 0, 1)),
        to: new Date(Date.UTC(2026, 0, 1, 0, 0, 2)),
      });
      expect(early.problems).toEqual([{ kind: 'missing', fromSeq: 1, toSeq: 1 }]);
    });
  });
});

test('nak back-off grows with the delivery count and is capped at 30 s', () => {
  expect([1, 2, 3, 4, 5, 6, 7, 50].map(nakDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test('consumer lag is exported as a metric read from the durable consumer (num_pending)', async () => {
  const jsm = await handle.js.jetstreamManager();
  const before = await auditConsumerLag(jsm);
  const t = tenantId();
  for (let i = 0; i < 3; i++) {
    const e = event(t, i);
    await publishAndAwaitAck(handle.js, auditSubject(t), e, e.jti);
  }
  const { app } = createApp({ logger, readiness: [], lag: () => auditConsumerLag(jsm) });
  const res = await request(app).get('/metrics');
  expect(res.status).toBe(200);
  const pending = Number(/^audit_writer_consumer_pending_messages(?:{[^}]*})? (\d+)$/m.exec(res.text)?.[1]);
  expect(pending).toBe(before.pending + 3);
  expect(res.text).toMatch(/^audit_writer_consumer_ack_pending_messages(?:{[^}]*})? \d+$/m);
});
