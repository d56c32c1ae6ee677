import { randomUUID } from 'node:crypto';
import type { Database, TokenAuditDoc } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import {
  DEFAULT_BATCH_SIZE,
  DEFAULT_MAX_ROWS_PER_TENANT,
  runRetention,
  type RetentionOptions,
  type TenantOutcome,
} from '../src/retention';

const DAY_MS = 86_400_000;
const NOW = new Date('2025-06-15T12:00:00.000Z');
const logger = createLogger({ service: 'test', level: 'silent' });

let db: Database;
let nextTenantId = 7000;
/** Every test gets tenant ids of its own (the job walks every tenant of the database). */
const tenantId = () => nextTenantId++;

beforeAll(async () => {
  db = await openTestDatabase('retention');
});

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (db as typeof db | undefined)?.close();
});

afterEach(() => {
  jest.restoreAllMocks();
});

async function createTenant(id: number, nhe: { enabled?: boolean; auditRetentionDays?: number }): Promise<void> {
  await db.models.Tenant.create({ _id: id, name: `tenant-${id}`, settings: { nhe } });
}

const daysAgo = (days: number, extraMs = 0) => new Date(NOW.getTime() - days * DAY_MS + extraMs);

/** Inserts one audit row per date; returns their jtis in the same order. */
async function insertRows(tenant: number, dates: Date[]): Promise<string[]> {
  const rows: TokenAuditDoc[] = dates.map((issuedAt) => ({
    tenantId: tenant,
    jti: `jti-${tenant}-${randomUUID()}`,
    userId: 'user-1',
    nheId: 'nhe-1',
    nheIdentifier: 'orders-agent',
    clientId: 'demo-app',
    clientNumericId: 1,
    resourceServer: 'https://api.orders.example',
    scopes: ['orders:read'],
    ttl: 300,
    sourceIp: '127.0.0.1',
    issuedAt,
  }));
  await db.models.TokenAudit.insertMany(rows);
  return rows.map((r) => r.jti);
}

/** jtis of a tenant's remaining rows, oldest first. */
async function remaining(tenant: number): Promise<string[]> {
  const docs = await db.models.TokenAudit.find({ tenantId: tenant }, { jti: 1, issuedAt: 1 })
    .sort({ issuedAt: 1 })
    .lean();
  return docs.map((d) => d.jti);
}

function run(options: Partial<RetentionOptions> = {}): Promise<TenantOutcome[]> {
  return runRetention(db.models, logger, {
    batchSize: DEFAULT_BATCH_SIZE,
    maxRowsPerTenant: DEFAULT_MAX_ROWS_PER_TENANT,
    dryRun: false,
    now: NOW,
    ...options,
  });
}

function outcomeOf(outcomes: TenantOutcome[], tenant: number): TenantOutcome {
  const found = outcomes.filter((o) => o.tenantId === tenant);
  expect(found).toHaveLength(1);
  return found[0]!;
}

function pruned(outcomes: TenantOutcome[], tenant: number): Extract<TenantOutcome, { deleted: number }> {
  const o = outcomeOf(outcomes, tenant);
  if (o.status === 'skipped') throw new Error(`tenant ${tenant} was skipped (${o.reason})`);
  return o;
}

/** Sizes of the `_id: { $in }` lists the job deleted for one tenant, in call order. */
function spyDeleteBatches(tenant: number): () => number[] {
  const spy = jest.spyOn(db.models.TokenAudit, 'deleteMany');
  return () =>
    spy.mock.calls
      .map((c) => c[0] as { tenantId?: number; _id?: { $in?: unknown[] } } | undefined)
      .filter((f) => f?.tenantId === tenant)
      .map((f) => f?._id?.$in?.length ?? -1);
}

describe('audit retention (real database)', () => {
  it('skips tenants with NHE disabled, no settings, or a zero / negative retention, and leaves their rows alone', async () => {
    const disabled = tenantId();
    const zero = tenantId();
    const negative = tenantId();
    const noSettings = tenantId();
    await createTenant(disabled, { enabled: false, auditRetentionDays: 30 });
    await createTenant(zero, { enabled: true, auditRetentionDays: 0 });
    await createTenant(negative, { enabled: true, auditRetentionDays: -5 });
    // Written past mongoose, so the job's own defaults (enabled: false) apply.
    await db.models.Tenant.collection.insertOne({ _id: noSettings, name: `tenant-${noSettings}` } as never);
    const before = new Map<number, string[]>();
    for (const t of [disabled, zero, negative, noSettings]) {
      await insertRows(t, [daysAgo(1000), daysAgo(400), daysAgo(100), daysAgo(1)]);
      before.set(t, await remaining(t));
    }

    const outcomes = await run();

    expect(outcomeOf(outcomes, disabled)).toEqual({ tenantId: disabled, status: 'skipped', reason: 'nhe-disabled' });
    expect(outcomeOf(outcomes, zero)).toEqual({ tenantId: zero, status: 'skipped', reason: 'retention-not-positive' });
    expect(outcomeOf(outcomes, negative)).toEqual({
      tenantId: negative,
      status: 'skipped',
      reason: 'retention-not-positive',
    });
    expect(outcomeOf(outcomes, noSettings)).toEqual({
      tenantId: noSettings,
      status: 'skipped',
      reason: 'nhe-disabled',
    });
    for (const t of [disabled, zero, negative, noSettings]) expect(await remaining(t)).toEqual(before.get(t));
  });

  it("prunes a deleted tenant's rows by the retention days it had, even with NHE off, and keeps them when it had none", async () => {
    const gone = tenantId();
    const goneKeepAll = tenantId();
    await db.models.DeletedTenant.create({ _id: gone, name: 'gone', auditRetentionDays: 30, deletedAt: daysAgo(5) });
    await db.models.DeletedTenant.create({
      _id: goneKeepAll,
      name: 'gone-keep',
      auditRetentionDays: 0,
      deletedAt: daysAgo(5),
    });
    const [, , recent] = await insertRows(gone, [daysAgo(400), daysAgo(31), daysAgo(29)]);
    const kept = await insertRows(goneKeepAll, [daysAgo(400), daysAgo(1)]);

    const outcomes = await run();

    expect(pruned(outcomes, gone)).toMatchObject({ status: 'pruned', deleted: 2, cutoff: daysAgo(30).toISOString() });
    expect(await remaining(gone)).toEqual([recent]);
    expect(outcomeOf(outcomes, goneKeepAll)).toEqual({
      tenantId: goneKeepAll,
      status: 'skipped',
      reason: 'retention-not-positive',
    });
    expect(await remaining(goneKeepAll)).toEqual(kept);
  });

  it('uses the default of 90 days when the tenant enables NHE without setting auditRetentionDays', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true });
    const [, keep] = await insertRows(t, [daysAgo(90, -1), daysAgo(90)]);

    const o = pruned(await run(), t);

    expect(o.cutoff).toBe(daysAgo(90).toISOString());
    expect(o.deleted).toBe(1);
    expect(await remaining(t)).toEqual([keep]);
  });

  it('deletes rows older than now - auditRetentionDays: exactly at the cutoff is kept, 1 ms older is deleted', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 30 });
    const cutoff = daysAgo(30);
    const [, , atCutoff, newer, dayNewer] = await insertRows(t, [
      daysAgo(31), // a day past the cutoff
      new Date(cutoff.getTime() - 1), // 1 ms past the cutoff
      cutoff, // exactly now - 30 days: not older, kept
      new Date(cutoff.getTime() + 1),
      daysAgo(29),
    ]);

    const o = pruned(await run(), t);

    expect(o).toMatchObject({ status: 'pruned', cutoff: cutoff.toISOString(), deleted: 2, batches: 1, capped: false });
    expect(await remaining(t)).toEqual([atCutoff, newer, dayNewer]);
  });

  it('deletes in batches of batchSize (25 rows, batch 10 → 10 + 10 + 5)', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 10 });
    const old = Array.from({ length: 25 }, (_, i) => daysAgo(11, -i * 1000));
    const fresh = await insertRows(t, [daysAgo(9), daysAgo(5)]);
    await insertRows(t, old);
    const batches = spyDeleteBatches(t);

    const o = pruned(await run({ batchSize: 10 }), t);

    expect(o).toMatchObject({ status: 'pruned', deleted: 25, batches: 3, capped: false });
    expect(batches()).toEqual([10, 10, 5]);
    expect(await remaining(t)).toEqual(fresh);
  });

  it('an exact multiple of batchSize takes exactly that many batches (20 rows, batch 10 → 2)', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 10 });
    await insertRows(
      t,
      Array.from({ length: 20 }, (_, i) => daysAgo(20, i)),
    );
    const batches = spyDeleteBatches(t);

    const o = pruned(await run({ batchSize: 10 }), t);

    expect(o).toMatchObject({ deleted: 20, batches: 2, capped: false });
    expect(batches()).toEqual([10, 10]);
    expect(await remaining(t)).toEqual([]);
  });

  it('deletes at most maxRowsPerTenant per run, oldest first; the next runs delete the rest', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 10 });
    // 25 eligible rows, 1 hour apart, inserted newest first so insertion order is not the deletion order.
    const dates = Array.from({ length: 25 }, (_, i) => daysAgo(100, i * 3_600_000)).reverse();
    const jtisNewestFirst = await insertRows(t, dates);
    const oldestFirst = [...jtisNewestFirst].reverse();
    const fresh = await insertRows(t, [daysAgo(1)]);

    const batches = spyDeleteBatches(t);
    const first = pruned(await run({ batchSize: 4, maxRowsPerTenant: 10 }), t);
    expect(first).toMatchObject({ deleted: 10, capped: true, batches: 3 });
    expect(batches()).toEqual([4, 4, 2]);
    expect(await remaining(t)).toEqual([...oldestFirst.slice(10), ...fresh]);

    const second = pruned(await run({ batchSize: 4, maxRowsPerTenant: 10 }), t);
    expect(second).toMatchObject({ deleted: 10, capped: true });
    expect(await remaining(t)).toEqual([...oldestFirst.slice(20), ...fresh]);

    const third = pruned(await run({ batchSize: 4, maxRowsPerTenant: 10 }), t);
    expect(third).toMatchObject({ deleted: 5, capped: false });
    expect(await remaining(t)).toEqual(fresh);

    const fourth = pruned(await run({ batchSize: 4, maxRowsPerTenant: 10 }), t);
    expect(fourth).toMatchObject({ deleted: 0, batches: 0, capped: false });
    expect(await remaining(t)).toEqual(fresh);
  });

  it('dry run deletes nothing and reports how many rows a run would delete (within the cap)', async () => {
    const t = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 30 });
    await insertRows(t, [...Array.from({ length: 7 }, (_, i) => daysAgo(31 + i)), daysAgo(30), daysAgo(1), daysAgo(0)]);
    const before = await remaining(t);
    const deleteSpy = jest.spyOn(db.models.TokenAudit, 'deleteMany');

    const o = pruned(await run({ dryRun: true }), t);
    expect(o).toMatchObject({
      status: 'dry-run',
      cutoff: daysAgo(30).toISOString(),
      deleted: 7,
      batches: 0,
      capped: false,
    });

    const capped = pruned(await run({ dryRun: true, maxRowsPerTenant: 5 }), t);
    expect(capped).toMatchObject({ status: 'dry-run', deleted: 5, capped: true });

    expect(deleteSpy).not.toHaveBeenCalled();
    expect(await remaining(t)).toEqual(before);
  });

  it('each tenant is pruned with its own retention; rows of other tenants (and of unknown tenants) are untouched', async () => {
    const short = tenantId();
    const long = tenantId();
    const orphan = tenantId(); // rows exist, tenant record does not
    await createTenant(short, { enabled: true, auditRetentionDays: 30 });
    await createTenant(long, { enabled: true, auditRetentionDays: 365 });
    const [, shortKept] = await insertRows(short, [daysAgo(100), daysAgo(10)]);
    const longRows = await insertRows(long, [daysAgo(100), daysAgo(200), daysAgo(364)]);
    const orphanRows = await insertRows(orphan, [daysAgo(1000), daysAgo(100)]);
    const longBefore = await remaining(long);

    const outcomes = await run({ batchSize: 1 });

    expect(pruned(outcomes, short)).toMatchObject({ deleted: 1 });
    expect(pruned(outcomes, long)).toMatchObject({ deleted: 0, batches: 0 });
    expect(outcomes.find((o) => o.tenantId === orphan)).toBeUndefined();
    expect(await remaining(short)).toEqual([shortKept]);
    expect(await remaining(long)).toEqual(longBefore);
    expect(longBefore.sort()).toEqual([...longRows].sort());
    expect((await remaining(orphan)).sort()).toEqual([...orphanRows].sort());
  });

  it("prunes the decision log's refusals with the audit rows: counters whose hour ended before the cutoff, counted ids older than it", async () => {
    const t = tenantId();
    const other = tenantId();
    await createTenant(t, { enabled: true, auditRetentionDays: 30 });
    await createTenant(other, { enabled: true, auditRetentionDays: 365 });
    const cutoff = daysAgo(30);
    const hourOf = (d: Date) => new Date(Math.floor(d.getTime() / 3_600_000) * 3_600_000);
    const counter = (tenant: number, hour: Date, error: string) => ({
      tenantId: tenant,
      hour,
      nheIdentifier: 'orders-agent',
      error,
      gate: 'scope-exceeds-policy',
      count: 3,
      updatedAt: hour,
    });
    await db.models.TokenRefusalCounter.insertMany([
      counter(t, hourOf(daysAgo(31)), 'old'), // ended a day before the cutoff
      counter(t, new Date(hourOf(cutoff).getTime() - 3_600_000), 'ended'), // its hour ends at or before the cutoff
      counter(t, new Date(hourOf(cutoff).getTime() + 3_600_000), 'young'), // after the cutoff
      counter(other, hourOf(daysAgo(31)), 'other'), // another tenant, a year's retention
    ]);
    await db.models.TokenRefusalEvent.insertMany([
      { _id: `r-${t}-1`, tenantId: t, at: daysAgo(31) },
      { _id: `r-${t}-2`, tenantId: t, at: daysAgo(29) },
      { _id: `r-${other}-1`, tenantId: other, at: daysAgo(31) },
    ]);

    const dry = pruned(await run({ dryRun: true }), t);
    expect(dry).toMatchObject({ refusalsDeleted: 3 });
    expect(await db.models.TokenRefusalCounter.countDocuments({ tenantId: t })).toBe(3);

    const o = pruned(await run({ batchSize: 1 }), t);
    expect(o).toMatchObject({ status: 'pruned', refusalsDeleted: 3 });
    const left = await db.models.TokenRefusalCounter.find(
      { tenantId: { $in: [t, other] } },
      { error: 1, _id: 0 },
    ).lean();
    expect(left.map((c) => c.error).sort()).toEqual(['other', 'young']);
    const ids = await db.models.TokenRefusalEvent.find({ tenantId: { $in: [t, other] } }, { _id: 1 }).lean();
    expect(ids.map((e) => e._id).sort()).toEqual([`r-${other}-1`, `r-${t}-2`].sort());
  });
});
