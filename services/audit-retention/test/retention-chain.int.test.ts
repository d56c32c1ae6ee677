/**
 * Retention over hash-chained rows (as the audit-writer writes them), with a controlled clock: chain-order
 * pruning, the anchor it records (so the rest of the chain still verifies), batch size from the job's
 * customOptions, the per-tenant cap, interruption and re-run, and the JobRun record with per-tenant counts.
 */
import { randomUUID } from 'node:crypto';
import { chainTail, linkRows, verifyAuditChain, type Database, type TokenAuditDoc } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { resolveBatchSize, runRetentionJob } from '../src/job';
import { JOB_NAME, MAX_ROWS_PER_DELETE, runRetention } from '../src/retention';

const DAY_MS = 86_400_000;
const NOW = new Date('2026-03-01T00:00:00.000Z');
const logger = createLogger({ service: 'test', level: 'silent' });
const daysAgo = (d: number, ms = 0) => new Date(NOW.getTime() - d * DAY_MS + ms);

let db: Database;
let next = 17_000;
const tenantId = () => next++;

beforeAll(async () => {
  db = await openTestDatabase('retentionchain');
  await db.syncIndexes();
});
// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (db as typeof db | undefined)?.close();
});
afterEach(async () => {
  jest.restoreAllMocks();
  await db.models.Job.deleteMany({});
  // Each test's tenants stop taking part in later runs.
  await db.models.Tenant.updateMany({}, { $set: { 'settings.nhe.enabled': false } });
});

async function tenant(days: number) {
  const id = tenantId();
  await db.models.Tenant.create({
    _id: id,
    name: `t-${id}`,
    settings: { nhe: { enabled: true, auditRetentionDays: days } },
  });
  return id;
}

const row = (t: number, issuedAt: Date): TokenAuditDoc => ({
  tenantId: t,
  jti: `jti-${randomUUID()}`,
  userId: 'u',
  nheId: 'n',
  nheIdentifier: 'agent',
  clientId: 'c',
  clientNumericId: 1,
  resourceServer: 'https://api.example',
  scopes: ['a'],
  ttl: 60,
  sourceIp: '127.0.0.1',
  issuedAt,
});

/** Appends chained rows issued at `dates` (in that chain order); returns their jtis. */
async function append(t: number, dates: Date[]): Promise<string[]> {
  const rows = dates.map((issuedAt) => row(t, issuedAt));
  const linked = linkRows(rows, await chainTail(db.models, t));
  await db.models.TokenAudit.collection.insertMany(linked.map((r) => ({ ...r })));
  await db.models.Counter.updateOne(
    { _id: `audit-chain-head:${t}` },
    { $max: { seq: linked.at(-1)!.seq } },
    { upsert: true },
  );
  return rows.map((r) => r.jti);
}

const left = async (t: number) =>
  (await db.models.TokenAudit.find({ tenantId: t }).sort({ seq: 1 }).lean()).map((r) => r.jti);
const opts = { batchSize: 1000, maxRowsPerTenant: 1_000_000, dryRun: false, now: NOW };

it('prunes in chain order up to the exact cutoff, records the anchor, and the remaining chain verifies', async () => {
  const t = await tenant(30);
  const cutoff = daysAgo(30);
  const jtis = await append(t, [daysAgo(40), daysAgo(31), new Date(cutoff.getTime() - 1), cutoff, daysAgo(29)]);
  const [o] = (await runRetention(db.models, logger, opts)).filter((x) => x.tenantId === t);
  expect(o).toMatchObject({ status: 'pruned', cutoff: cutoff.toISOString(), deleted: 3, batches: 1 });
  expect(await left(t)).toEqual(jtis.slice(3));
  const anchor = await db.models.AuditChainAnchor.findById(t).lean();
  expect(anchor).toMatchObject({ seq: 3 });
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 2, firstSeq: 4, headSeq: 5 });
  // New rows keep chaining after the pruned prefix.
  await append(t, [daysAgo(0)]);
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 3, lastSeq: 6 });
});

it('a tenant whose every row is pruned keeps chaining from the anchor', async () => {
  const t = await tenant(1);
  await append(t, [daysAgo(5), daysAgo(4)]);
  await runRetention(db.models, logger, opts);
  expect(await left(t)).toEqual([]);
  await append(t, [daysAgo(0)]);
  const rows = await db.models.TokenAudit.find({ tenantId: t }).lean();
  expect(rows.map((r) => r.seq)).toEqual([3]);
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 1, anchor: { seq: 2 } });
});

it('an old row chained after a younger one waits for the next run (the chain never gets a hole)', async () => {
  const t = await tenant(10);
  const jtis = await append(t, [daysAgo(20), daysAgo(9), daysAgo(11)]);
  await runRetention(db.models, logger, opts);
  expect(await left(t)).toEqual(jtis.slice(1));
  expect((await verifyAuditChain(db.models, t)).valid).toBe(true);
});

it('batch size comes from the job customOptions.batchSize; the cap stops the run and the next run continues', async () => {
  const t = await tenant(10);
  const jtis = await append(
    t,
    Array.from({ length: 23 }, (_, i) => daysAgo(50, i)),
  );
  await db.models.Job.create({
    _id: JOB_NAME,
    type: 'NHE_AUDIT_RETENTION',
    schedule: '0 3 * * *',
    enabled: true,
    customOptions: { batchSize: 4 },
  });
  const spy = jest.spyOn(db.models.TokenAudit, 'deleteMany');
  const first = await runRetentionJob(db.models, logger, {
    trigger: 'manual',
    maxRowsPerTenant: 10,
    dryRun: false,
    now: NOW,
  });
  expect(first.status).toBe('succeeded');
  expect(first.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 10, batches: 3, capped: true });
  expect(spy.mock.calls.filter(([f]) => (f as { tenantId?: number }).tenantId === t)).toHaveLength(3);
  expect(await left(t)).toEqual(jtis.slice(10));
  const run = await db.models.JobRun.findById(first.runId).lean();
  expect(run).toMatchObject({
    jobName: JOB_NAME,
    type: 'NHE_AUDIT_RETENTION',
    trigger: 'manual',
    status: 'succeeded',
    dryRun: false,
  });
  expect(run!.tenants.find((c) => c.tenantId === t)).toMatchObject({
    status: 'pruned',
    deleted: 10,
    batches: 3,
    capped: true,
  });
  expect(run!.finishedAt).toBeInstanceOf(Date);

  const second = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    maxRowsPerTenant: 10,
    dryRun: false,
    now: NOW,
  });
  expect(second.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 10, capped: true });
  const third = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    maxRowsPerTenant: 10,
    dryRun: false,
    now: NOW,
  });
  expect(third.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 3, capped: false });
  expect(await left(t)).toEqual([]);
  expect((await verifyAuditChain(db.models, t)).valid).toBe(true);
});

it('customOptions.batchSize is validated; a bad value fails the run with a clear message and deletes nothing', async () => {
  expect(resolveBatchSize(null)).toBe(1000);
  expect(resolveBatchSize({ customOptions: { batchSize: 250 } })).toBe(250);
  expect(resolveBatchSize({ customOptions: { batchSize: 250 } }, 7)).toBe(7);
  for (const bad of [
    { batchSize: 0 },
    { batchSize: 1.5 },
    { batchSize: '100' },
    { batchSize: 100_001 },
    { other: 1 },
  ]) {
    expect(() => resolveBatchSize({ customOptions: bad })).toThrow(/customOptions are not valid/);
  }
  const t = await tenant(1);
  await append(t, [daysAgo(3)]);
  await db.models.Job.create({
    _id: JOB_NAME,
    type: 'NHE_AUDIT_RETENTION',
    schedule: '0 3 * * *',
    enabled: true,
    customOptions: { batchSize: -1 },
  });
  const result = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    maxRowsPerTenant: 10,
    dryRun: false,
    now: NOW,
  });
  expect(result).toMatchObject({ status: 'failed', error: expect.stringMatching(/batchSize/) });
  expect(await left(t)).toHaveLength(1);
  expect(await db.models.JobRun.findById(result.runId).lean()).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/batchSize/),
  });
});

it('interrupted between batches: the run is recorded as interrupted, and a re-run finishes the job without double counting', async () => {
  const t = await tenant(10);
  await append(
    t,
    Array.from({ length: 30 }, (_, i) => daysAgo(20, i)),
  );
  const stop = new AbortController();
  let batches = 0;
  const real = db.models.TokenAudit.deleteMany.bind(db.models.TokenAudit);
  jest.spyOn(db.models.TokenAudit, 'deleteMany').mockImplementation(((filter: never) => {
    if (++batches === 2) stop.abort(); // SIGTERM arrives during the second batch
    return real(filter);
  }) as never);
  const interrupted = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    batchSize: 5,
    maxRowsPerTenant: 1000,
    dryRun: false,
    now: NOW,
    signal: stop.signal,
  });
  expect(interrupted.status).toBe('interrupted');
  expect(interrupted.outcomes.find((o) => o.tenantId === t)).toMatchObject({
    deleted: 10,
    batches: 2,
    interrupted: true,
  });
  expect(await left(t)).toHaveLength(20);
  expect(await db.models.JobRun.findById(interrupted.runId).lean()).toMatchObject({
    status: 'interrupted',
    deleted: 10,
  });
  jest.restoreAllMocks();

  const rerun = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    batchSize: 5,
    maxRowsPerTenant: 1000,
    dryRun: false,
    now: NOW,
  });
  expect(rerun.status).toBe('succeeded');
  expect(rerun.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 20 });
  expect(await left(t)).toEqual([]);
});

it('a crash between recording the anchor and deleting (killed mid-batch) is finished by the next run', async () => {
  const t = await tenant(10);
  const jtis = await append(
    t,
    Array.from({ length: 6 }, (_, i) => daysAgo(20, i)),
  );
  const rows = await db.models.TokenAudit.find({ tenantId: t }).sort({ seq: 1 }).lean();
  // The killed run had recorded the anchor at seq 3 but not deleted rows 1-3.
  await db.models.AuditChainAnchor.create({ _id: t, seq: 3, hash: rows[2]!.hash!, prunedAt: NOW });
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 3 });
  const [o] = (await runRetention(db.models, logger, { ...opts, maxRowsPerTenant: 4 })).filter((x) => x.tenantId === t);
  expect(o).toMatchObject({ deleted: 4, capped: true });
  expect(await left(t)).toEqual(jtis.slice(4));
  expect((await verifyAuditChain(db.models, t)).valid).toBe(true);
});

it('SIGTERM in the middle of the cursor pass: anchor at the last whole batch, no hole, a re-run with another batch size finishes it', async () => {
  const t = await tenant(10);
  const jtis = await append(t, [...Array.from({ length: 17 }, (_, i) => daysAgo(30, i)), daysAgo(5), daysAgo(11)]);
  const stop = new AbortController();
  const real = db.models.AuditChainAnchor.updateOne.bind(db.models.AuditChainAnchor);
  let anchors = 0;
  // SIGTERM arrives while the third batch records its anchor: that batch still completes, the fourth never starts.
  jest.spyOn(db.models.AuditChainAnchor, 'updateOne').mockImplementation(((...args: never[]) => {
    if (++anchors === 3) stop.abort();
    return (real as (...a: never[]) => unknown)(...args);
  }) as never);
  const first = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    batchSize: 4,
    maxRowsPerTenant: 1000,
    dryRun: false,
    now: NOW,
    signal: stop.signal,
  });
  expect(first.status).toBe('interrupted');
  expect(first.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 12, batches: 3, interrupted: true });
  expect(await left(t)).toEqual(jtis.slice(12));
  expect(await db.models.AuditChainAnchor.findById(t).lean()).toMatchObject({ seq: 12 });
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, firstSeq: 13, headSeq: 19 });
  jest.restoreAllMocks();

  const rerun = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    batchSize: 3,
    maxRowsPerTenant: 1000,
    dryRun: false,
    now: NOW,
  });
  expect(rerun.status).toBe('succeeded');
  // Rows 13-17 in two batches (3 + 2); row 18 is younger than the cutoff, so row 19 (older, chained after it) stays.
  expect(rerun.outcomes.find((o) => o.tenantId === t)).toMatchObject({ deleted: 5, batches: 2, capped: false });
  expect(await left(t)).toEqual(jtis.slice(17));
  expect(await db.models.AuditChainAnchor.findById(t).lean()).toMatchObject({ seq: 17 });
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 2, firstSeq: 18 });
});

it('a leftover anchored batch larger than the new batch size is deleted batch by batch before the anchor moves on', async () => {
  const t = await tenant(10);
  const jtis = await append(t, [...Array.from({ length: 7 }, (_, i) => daysAgo(20, i)), daysAgo(1)]);
  const rows = await db.models.TokenAudit.find({ tenantId: t }).sort({ seq: 1 }).lean();
  // A run with batch 5 was killed after recording its anchor at seq 5 and before deleting rows 1-5.
  await db.models.AuditChainAnchor.create({ _id: t, seq: 5, hash: rows[4]!.hash!, prunedAt: NOW });
  const spy = jest.spyOn(db.models.AuditChainAnchor, 'updateOne');
  const [o] = (await runRetention(db.models, logger, { ...opts, batchSize: 2 })).filter((x) => x.tenantId === t);
  expect(o).toMatchObject({ deleted: 7, batches: 4, capped: false });
  // Batches {1,2} and {3,4} are below the anchor (no anchor write); {5,6} moves it to 6, {7} to 7.
  expect(spy.mock.calls.map(([f]) => (f as unknown as { _id: number })._id === t)).toEqual([true, true]);
  expect(await left(t)).toEqual(jtis.slice(7));
  expect(await db.models.AuditChainAnchor.findById(t).lean()).toMatchObject({ seq: 7, hash: rows[6]!.hash });
  expect(await verifyAuditChain(db.models, t)).toMatchObject({ valid: true, checked: 1, firstSeq: 8 });
});

it('legacy rows (no seq) go first, oldest first, and the cap carries over into the chain pass', async () => {
  const t = await tenant(10);
  const legacy = [daysAgo(40), daysAgo(60), daysAgo(50), daysAgo(2)].map((issuedAt) => row(t, issuedAt));
  await db.models.TokenAudit.collection.insertMany(legacy.map((r) => ({ ...r })));
  const chained = await append(
    t,
    Array.from({ length: 5 }, (_, i) => daysAgo(30, i)),
  );
  const first = (await runRetention(db.models, logger, { ...opts, batchSize: 2, maxRowsPerTenant: 5 })).find(
    (x) => x.tenantId === t,
  );
  // Legacy: {60, 50} then {40} (the one 2 days old stays); chain: {1, 2}, where the cap stops the run.
  expect(first).toMatchObject({ deleted: 5, batches: 3, capped: true });
  const remainingJtis = (await db.models.TokenAudit.find({ tenantId: t }, { jti: 1 }).lean()).map((r) => r.jti).sort();
  expect(remainingJtis).toEqual([legacy[3]!.jti, ...chained.slice(2)].sort());
  expect(await db.models.AuditChainAnchor.findById(t).lean()).toMatchObject({ seq: 2 });
  const second = (await runRetention(db.models, logger, { ...opts, batchSize: 2, maxRowsPerTenant: 5 })).find(
    (x) => x.tenantId === t,
  );
  expect(second).toMatchObject({ deleted: 3, batches: 2, capped: false });
  expect((await db.models.TokenAudit.find({ tenantId: t }, { jti: 1 }).lean()).map((r) => r.jti)).toEqual([
    legacy[3]!.jti,
  ]);
  expect((await verifyAuditChain(db.models, t)).valid).toBe(true);
});

it(`a batch larger than ${MAX_ROWS_PER_DELETE} rows is deleted in several commands (FerretDB's SQLite backend fails one above 32,766)`, async () => {
  const t = await tenant(10);
  const n = 33_000; // one delete of them all fails on FerretDB: "too many SQL variables"
  const linked = linkRows(
    Array.from({ length: n }, (_, i) => ({ ...row(t, daysAgo(20, i)) })),
    await chainTail(db.models, t),
  );
  for (let i = 0; i < n; i += 11_000) await db.models.TokenAudit.collection.insertMany(linked.slice(i, i + 11_000));
  await db.models.Counter.updateOne({ _id: `audit-chain-head:${t}` }, { $max: { seq: n } }, { upsert: true });
  const young = await append(t, [daysAgo(1)]);
  const spy = jest.spyOn(db.models.TokenAudit, 'deleteMany');
  const [o] = (await runRetention(db.models, logger, { ...opts, batchSize: 100_000 })).filter((x) => x.tenantId === t);
  expect(o).toMatchObject({ status: 'pruned', deleted: n, batches: 1, capped: false });
  expect(spy.mock.calls.map(([f]) => (f as unknown as { seq: { $gte: number; $lte: number } }).seq)).toEqual([
    { $gte: 1, $lte: MAX_ROWS_PER_DELETE },
    { $gte: MAX_ROWS_PER_DELETE + 1, $lte: n },
  ]);
  expect(n - MAX_ROWS_PER_DELETE).toBeLessThan(MAX_ROWS_PER_DELETE);
  expect(await left(t)).toEqual(young);
  expect(await db.models.AuditChainAnchor.findById(t).lean()).toMatchObject({ seq: n });
}, 120_000);

it('a tenant that fails does not stop the others; the run fails and records which tenant', async () => {
  const bad = await tenant(10);
  const good = await tenant(10);
  await append(bad, [daysAgo(20)]);
  await append(good, [daysAgo(20)]);
  const real = db.models.AuditChainAnchor.findById.bind(db.models.AuditChainAnchor);
  jest.spyOn(db.models.AuditChainAnchor, 'findById').mockImplementation(((id: number) => {
    if (id === bad) throw new Error('connection reset');
    return real(id);
  }) as never);
  const result = await runRetentionJob(db.models, logger, {
    trigger: 'schedule',
    maxRowsPerTenant: 1000,
    dryRun: false,
    now: NOW,
  });
  expect(result.status).toBe('failed');
  expect(result.outcomes.find((o) => o.tenantId === bad)).toMatchObject({
    status: 'failed',
    error: 'connection reset',
  });
  expect(result.outcomes.find((o) => o.tenantId === good)).toMatchObject({ status: 'pruned', deleted: 1 });
  expect(await left(good)).toEqual([]);
  expect(await left(bad)).toHaveLength(1);
});

it('a run left "running" by a killed process is marked failed (abandoned) by the next run after 24 h', async () => {
  const stale = await db.models.JobRun.create({
    jobName: JOB_NAME,
    type: 'NHE_AUDIT_RETENTION',
    trigger: 'schedule',
    status: 'running',
    dryRun: false,
    startedAt: new Date(NOW.getTime() - 25 * 3_600_000),
    tenants: [],
    deleted: 0,
  });
  const recent = await db.models.JobRun.create({
    jobName: JOB_NAME,
    type: 'NHE_AUDIT_RETENTION',
    trigger: 'manual',
    status: 'running',
    dryRun: false,
    startedAt: new Date(NOW.getTime() - 3_600_000),
    tenants: [],
    deleted: 0,
  });
  await runRetentionJob(db.models, logger, { trigger: 'schedule', maxRowsPerTenant: 10, dryRun: true, now: NOW });
  expect(await db.models.JobRun.findById(stale._id).lean()).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/abandoned/),
  });
  expect(await db.models.JobRun.findById(recent._id).lean()).toMatchObject({ status: 'running' });
});
