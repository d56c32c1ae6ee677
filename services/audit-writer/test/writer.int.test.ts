import { randomUUID } from 'node:crypto';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Database, TokenAuditDoc } from '@idp/db';
import {
  AUDIT_DEAD_LETTER_SUBJECT,
  AUDIT_STREAM,
  AUDIT_WRITER_DURABLE,
  auditSubject,
  connectNats,
  ensureAuditConsumer,
  ensureAuditStream,
  nheTokenIssuedSchema,
  publishAndAwaitAck,
  type JetStreamManager,
  type NatsHandle,
  type NheTokenIssued,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import { openTestDatabase, startNatsServer, type RunningServer } from '@idp/testing';
import { writeBatch, type WriterDeps } from '../src/writer';

const logger = createLogger({ service: 'test', level: 'silent' });

let nats: RunningServer;
let handle: NatsHandle;
let jsm: JetStreamManager;
let consumer: Consumer;
let db: Database;
let nextTenantId = 8100;
/** Every test uses tenant ids (and therefore subjects and rows) of its own. */
const tenantId = () => nextTenantId++;

beforeAll(async () => {
  [nats, db] = await Promise.all([startNatsServer(), openTestDatabase('auditwriter')]);
  handle = await connectNats(nats.url, logger, 'audit-writer-test');
  jsm = await ensureAuditStream(handle.nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
  await ensureAuditConsumer(jsm, 100);
  consumer = await handle.js.consumers.get(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
});

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (handle as typeof handle | undefined)?.close();
  await (db as typeof db | undefined)?.close();
  await (nats as typeof nats | undefined)?.dispose();
});

function event(tenant: number, overrides: Partial<NheTokenIssued> = {}): NheTokenIssued {
  return nheTokenIssuedSchema.parse({
    type: 'nhe.token.issued',
    jti: `jti-${randomUUID()}`,
    tenantId: tenant,
    userId: '665f1c2ab1e4a3d2c1b0a999',
    nheId: '665f1c2ab1e4a3d2c1b0a111',
    nheIdentifier: 'orders-agent',
    clientId: 'demo-app',
    clientNumericId: 42,
    resourceServer: 'https://api.orders.example',
    scopes: ['orders:read', 'orders:write'],
    ttl: 300,
    sourceIp: '203.0.113.7',
    issuedAt: '2025-06-15T12:34:56.789Z',
    ...overrides,
  });
}

/** The row the writer must store for an event: every field, dpopJkt only when bound. */
function expectedRow(e: NheTokenIssued): TokenAuditDoc {
  return {
    tenantId: e.tenantId,
    jti: e.jti,
    userId: e.userId,
    nheId: e.nheId,
    nheIdentifier: e.nheIdentifier,
    clientId: e.clientId,
    clientNumericId: e.clientNumericId,
    resourceServer: e.resourceServer,
    scopes: e.scopes,
    ttl: e.ttl,
    sourceIp: e.sourceIp,
    issuedAt: new Date(e.issuedAt),
    ...(e.dpopJkt ? { dpopJkt: e.dpopJkt } : {}),
    ...(e.actorAuth ? { actorAuth: e.actorAuth } : {}),
  };
}

async function rowsOf(tenant: number): Promise<Array<Record<string, unknown>>> {
  const docs = await db.models.TokenAudit.find({ tenantId: tenant }).sort({ jti: 1 }).lean();
  // Chain fields (seq, prevHash, hash, chainKey) are checked in chain.int.test.ts.
  return docs.map(({ _id, seq: _s, prevHash: _p, hash: _h, chainKey: _c, ...rest }) => rest);
}

const publish = (e: NheTokenIssued, msgId = e.jti) => publishAndAwaitAck(handle.js, auditSubject(e.tenantId), e, msgId);

/** Fetches exactly `n` messages from the durable consumer (fails if fewer arrive within the time limit). */
async function fetchN(n: number, timeoutMs = 5000): Promise<JsMsg[]> {
  const got: JsMsg[] = [];
  const deadline = Date.now() + timeoutMs;
  while (got.length < n && Date.now() < deadline) {
    const batch = await consumer.fetch({ max_messages: n - got.length, expires: 1000 });
    for await (const m of batch) got.push(m);
  }
  expect(got).toHaveLength(n);
  return got;
}

/** Nothing more is delivered by the durable consumer right now. */
async function expectNothingToFetch(): Promise<void> {
  const batch = await consumer.fetch({ max_messages: 10, expires: 1000 });
  const extra: string[] = [];
  for await (const m of batch) extra.push(m.subject);
  expect(extra).toEqual([]);
}

/** Waits (briefly) until the consumer has no outstanding acks and no undelivered messages. */
async function expectSettled(): Promise<void> {
  await handle.nc.flush();
  let info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
  const deadline = Date.now() + 3000;
  while ((info.num_ack_pending !== 0 || info.num_pending !== 0) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
  }
  expect({ num_ack_pending: info.num_ack_pending, num_pending: info.num_pending }).toEqual({
    num_ack_pending: 0,
    num_pending: 0,
  });
}

function deps(): WriterDeps & { onOutcome: jest.Mock } {
  return { models: db.models, js: handle.js, logger, onOutcome: jest.fn() };
}

/** Sum of the counts reported for one outcome. */
const outcomeCount = (d: { onOutcome: jest.Mock }, outcome: string) =>
  d.onOutcome.mock.calls.filter(([o]) => o === outcome).reduce((n, [, c]) => n + (c as number), 0);

describe('audit-writer writeBatch (real NATS JetStream and database)', () => {
  it('inserts one row per event with every field, and acks the whole batch', async () => {
    const t = tenantId();
    const events = [
      event(t),
      event(t, {
        dpopJkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        scopes: ['orders:read'],
        ttl: 60,
        actorAuth: { method: 'key', jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', jti: 'actor-1' },
      }),
      event(t, {
        scopes: [],
        sourceIp: '2001:db8::1',
        actorAuth: {
          method: 'workload',
          issuer: 'https://k8s.example',
          subject: 'system:serviceaccount:a:b',
          jti: 'actor-2',
        },
      }),
    ];
    for (const e of events) await publish(e);

    const msgs = await fetchN(events.length);
    const d = deps();
    await writeBatch(d, msgs);

    expect(await rowsOf(t)).toEqual(events.map(expectedRow).sort((a, b) => a.jti.localeCompare(b.jti)));
    expect((await rowsOf(t)).filter((r) => 'dpopJkt' in r)).toHaveLength(1);
    expect(outcomeCount(d, 'written')).toBe(3);
    await expectSettled();
    await expectNothingToFetch();
  });

  it('publishing the same jti twice is deduplicated by JetStream (msgID): one message, one row', async () => {
    const t = tenantId();
    const e = event(t);
    const first = await publish(e);
    const second = await publish(e);
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.seq).toBe(first.seq);

    const msgs = await fetchN(1);
    await writeBatch(deps(), msgs);

    expect(await rowsOf(t)).toEqual([expectedRow(e)]);
    await expectSettled();
    await expectNothingToFetch();
  });

  it('the same event delivered again (new message id, e.g. published again after the dedupe window) gets no second row and is acked', async () => {
    const t = tenantId();
    const e = event(t);
    await publish(e);

    const [firstDelivery] = await fetchN(1);
    await writeBatch(deps(), [firstDelivery!]);
    expect(await rowsOf(t)).toHaveLength(1);

    // JetStream only dedupes within the window: a copy under another message id reaches the writer again.
    await publish(e, `${e.jti}:again`);
    const [again] = await fetchN(1);
    const d = deps();
    await writeBatch(d, [again!]);

    expect(await rowsOf(t)).toEqual([expectedRow(e)]);
    expect(outcomeCount(d, 'duplicate')).toBe(1);
    expect(outcomeCount(d, 'retry')).toBe(0);
    await expectSettled();
    await expectNothingToFetch();
  });

  it('a real JetStream redelivery (nak after the row was stored) is acked without a second row', async () => {
    const t = tenantId();
    const e = event(t);
    await publish(e);

    const [delivery] = await fetchN(1);
    // The previous writer stored the row, then died before acking: the server redelivers.
    await db.models.TokenAudit.create(expectedRow(e));
    delivery!.nak();
    const [redelivered] = await fetchN(1);
    expect(redelivered!.info.redelivered).toBe(true);
    expect(redelivered!.info.streamSequence).toBe(delivery!.info.streamSequence);

    const d = deps();
    await writeBatch(d, [redelivered!]);

    expect(await rowsOf(t)).toEqual([expectedRow(e)]);
    expect(outcomeCount(d, 'duplicate')).toBe(1);
    await expectSettled();
    await expectNothingToFetch();
  });

  it('a batch mixing a duplicate and new events writes the new ones, keeps one row for the duplicate, and acks all', async () => {
    const t = tenantId();
    const dup = event(t);
    await db.models.TokenAudit.create(expectedRow(dup));
    const fresh = [event(t), event(t)];
    await publish(fresh[0]!);
    await publish(dup);
    await publish(fresh[1]!);

    const msgs = await fetchN(3);
    const d = deps();
    await writeBatch(d, msgs);

    expect(await rowsOf(t)).toEqual([dup, ...fresh].map(expectedRow).sort((a, b) => a.jti.localeCompare(b.jti)));
    expect(outcomeCount(d, 'written')).toBe(2);
    expect(outcomeCount(d, 'duplicate')).toBe(1);
    await expectSettled();
    await expectNothingToFetch();
  });

  it('malformed messages go to the dead-letter subject; valid messages of the same batch are written; nothing is redelivered', async () => {
    const t = tenantId();
    const subject = auditSubject(t);
    const valid = [event(t), event(t)];
    const invalidJson = `{"type":"nhe.token.issued","jti":"broken-${randomUUID()}"`;
    const failsSchema = JSON.stringify({ ...event(t), ttl: 0, unexpected: true });
    const missingField = JSON.stringify((({ userId: _u, ...rest }) => rest)(event(t)));

    await publish(valid[0]!);
    await handle.js.publish(subject, invalidJson, { msgID: `bad-json-${t}` });
    await handle.js.publish(subject, failsSchema, { msgID: `bad-schema-${t}` });
    await publish(valid[1]!);
    await handle.js.publish(subject, missingField, { msgID: `missing-field-${t}` });

    const msgs = await fetchN(5);
    const d = deps();
    await writeBatch(d, msgs);

    expect(await rowsOf(t)).toEqual(valid.map(expectedRow).sort((a, b) => a.jti.localeCompare(b.jti)));
    expect(outcomeCount(d, 'dead-letter')).toBe(3);
    expect(outcomeCount(d, 'written')).toBe(2);

    // Read the dead-letter subject back from the stream.
    const reader = await handle.js.consumers.get(AUDIT_STREAM, { filter_subjects: [AUDIT_DEAD_LETTER_SUBJECT] });
    const dead: string[] = [];
    const batch = await reader.fetch({ max_messages: 10, expires: 1000 });
    for await (const m of batch) {
      expect(m.subject).toBe(AUDIT_DEAD_LETTER_SUBJECT);
      dead.push(m.string());
    }
    expect(dead.sort()).toEqual([invalidJson, failsSchema, missingField].sort());
    const last = await jsm.streams.getMessage(AUDIT_STREAM, { last_by_subj: AUDIT_DEAD_LETTER_SUBJECT });
    expect(last?.string()).toBe(missingField);

    // The malformed messages were terminated and the valid ones acked: no redelivery.
    await expectSettled();
    await expectNothingToFetch();
  });

  // Regression: the event schema is the only validator. Mongoose's insertMany({ ordered: false }) used to drop a
  // row that its own schema refused (sourceIp "") and the message was acked without a row. Every message must
  // end up stored or dead-lettered.
  it('an event the event schema accepts is always stored before its ack (sourceIp "")', async () => {
    const t = tenantId();
    const e = { ...event(t), sourceIp: '' };
    await publishAndAwaitAck(handle.js, auditSubject(t), e, e.jti);

    const msgs = await fetchN(1);
    const d = deps();
    await writeBatch(d, msgs);

    const stored = (await rowsOf(t)).length;
    const reader = await handle.js.consumers.get(AUDIT_STREAM, { filter_subjects: [AUDIT_DEAD_LETTER_SUBJECT] });
    let deadLettered = 0;
    for await (const m of await reader.fetch({ max_messages: 100, expires: 1000 }))
      if (m.string().includes(e.jti)) deadLettered += 1;
    // Not acked (nak'ed or left pending) would also be acceptable: then it comes back within a few seconds.
    await handle.nc.flush();
    let comesBack = 0;
    for await (const m of await consumer.fetch({ max_messages: 1, expires: 3000 })) {
      comesBack += 1;
      m.term();
    }
    expect({ stored, deadLettered, comesBack }).not.toEqual({ stored: 0, deadLettered: 0, comesBack: 0 });
  });
});
