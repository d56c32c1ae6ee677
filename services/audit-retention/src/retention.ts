import type { AuditChainAnchorDoc, JobRunTenantCount, Models, TenantDoc } from '@idp/db';
import { advanceChainAnchor, NHE_SETTINGS_DEFAULTS } from '@idp/db';
import type { Logger } from '@idp/logger';

export const JOB_NAME = 'nhe-audit-retention';
export const JOB_TYPE = 'NHE_AUDIT_RETENTION';
export const DEFAULT_BATCH_SIZE = 1000;
export const MAX_BATCH_SIZE = 100_000;
/** At most this many rows per tenant per run; the rest goes next run (spec, "Limits"). */
export const DEFAULT_MAX_ROWS_PER_TENANT = 1_000_000;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  batchSize: number;
  maxRowsPerTenant: number;
  dryRun: boolean;
  now: Date;
  /** Aborting stops the run between two batches (SIGTERM): every batch is complete or not started. */
  signal?: AbortSignal;
}

export type TenantOutcome =
  | { tenantId: number; status: 'skipped'; reason: 'nhe-disabled' | 'retention-not-positive' }
  | {
      tenantId: number;
      status: 'pruned' | 'dry-run';
      cutoff: string;
      deleted: number;
      batches: number;
      capped: boolean;
      durationMs: number;
      interrupted?: boolean;
      /** Refusal counters and counted refusal ids of the decision log deleted (or, dry run, that would be). */
      refusalsDeleted?: number;
    }
  | {
      tenantId: number;
      status: 'failed';
      cutoff: string;
      deleted: number;
      batches: number;
      durationMs: number;
      error: string;
    };

export class RetentionInterrupted extends Error {
  constructor(readonly outcomes: TenantOutcome[]) {
    super('retention run interrupted');
  }
}

export class RetentionFailed extends Error {
  constructor(readonly outcomes: TenantOutcome[]) {
    super(
      `retention failed for tenant(s) ${outcomes
        .filter((o) => o.status === 'failed')
        .map((o) => o.tenantId)
        .join(', ')}`,
    );
  }
}

/** The per-tenant counts a JobRun stores. */
export function toRunCount(o: TenantOutcome): JobRunTenantCount {
  switch (o.status) {
    case 'skipped':
      return {
        tenantId: o.tenantId,
        status: 'skipped',
        reason: o.reason,
        deleted: 0,
        batches: 0,
        capped: false,
        durationMs: 0,
      };
    case 'pruned':
    case 'dry-run':
      return {
        tenantId: o.tenantId,
        status: o.status,
        deleted: o.deleted,
        batches: o.batches,
        capped: o.capped,
        durationMs: o.durationMs,
        cutoff: o.cutoff,
      };
    case 'failed':
      return {
        tenantId: o.tenantId,
        status: 'failed',
        reason: o.error,
        deleted: o.deleted,
        batches: o.batches,
        capped: false,
        durationMs: o.durationMs,
        cutoff: o.cutoff,
      };
  }
}

interface TenantProgress {
  deleted: number;
  batches: number;
}

/**
 * Most rows one delete command may match. FerretDB's SQLite backend deletes the matched rows with one
 * `DELETE ... WHERE _id IN (?, ?, ...)` and fails above SQLite's 32,766 bound variables ("too many SQL variables"),
 * so a batch larger than this (customOptions.batchSize allows 100,000) is deleted in several commands. The batch is
 * still the unit of the anchor: its anchor is recorded before its first delete, and an abort is only honoured
 * between batches.
 */
export const MAX_ROWS_PER_DELETE = 25_000;

type ChainRow = { seq: number; hash: string; issuedAt: Date };

/** Reads up to `n` documents from a cursor (fewer at its end). */
async function take<T>(cursor: { next(): Promise<T | null> }, n: number): Promise<T[]> {
  const out: T[] = [];
  while (out.length < n) {
    const doc = await cursor.next();
    if (doc === null) break;
    out.push(doc);
  }
  return out;
}

/**
 * Rows written before the chain existed (no seq), oldest first by issuedAt, in one cursor pass: each batch is
 * deleted by `_id`.
 */
async function pruneLegacy(
  models: Models,
  tenantId: number,
  cutoff: Date,
  o: RetentionOptions,
  p: TenantProgress,
): Promise<boolean> {
  if (p.deleted >= o.maxRowsPerTenant) return true;
  const cursor = models.TokenAudit.find({ tenantId, seq: { $exists: false }, issuedAt: { $lt: cutoff } }, { _id: 1 })
    .sort({ issuedAt: 1 })
    .limit(o.maxRowsPerTenant - p.deleted)
    .batchSize(o.batchSize)
    .lean<Array<{ _id: unknown }>>()
    .cursor();
  try {
    while (p.deleted < o.maxRowsPerTenant) {
      if (o.signal?.aborted) return false;
      const rows = await take(cursor, Math.min(o.batchSize, o.maxRowsPerTenant - p.deleted));
      if (!rows.length) break;
      for (let i = 0; i < rows.length; i += MAX_ROWS_PER_DELETE) {
        const ids = rows.slice(i, i + MAX_ROWS_PER_DELETE).map((d) => d._id);
        p.deleted += (await models.TokenAudit.deleteMany({ tenantId, _id: { $in: ids } })).deletedCount;
      }
      p.batches += 1;
    }
  } finally {
    await cursor.close();
  }
  return true;
}

/**
 * Rows of the hash chain, in chain order, in one cursor pass sorted by seq (the `{tenantId, seq}` index on
 * MongoDB). Each batch is the next `batchSize` rows: rows at or below the anchor (left by a run killed between
 * recording its anchor and deleting) are deleted whatever their age; of the others the leading run issued before
 * the cutoff is kept, its last row recorded as the anchor, then the batch's seq range is deleted. The first row
 * not past the cutoff ends the pass: an old row chained after a younger one (delivery delays of seconds) waits for
 * the next run, so the chain never gets a hole.
 */
async function pruneChain(
  models: Models,
  tenantId: number,
  cutoff: Date,
  o: RetentionOptions,
  p: TenantProgress,
): Promise<boolean> {
  if (p.deleted >= o.maxRowsPerTenant) return true;
  const anchor = await models.AuditChainAnchor.findById(tenantId).lean<AuditChainAnchorDoc>();
  let anchoredSeq = anchor?.seq ?? 0;
  const cursor = models.TokenAudit.find({ tenantId, seq: { $gte: 1 } }, { seq: 1, hash: 1, issuedAt: 1, _id: 0 })
    .sort({ seq: 1 })
    .limit(o.maxRowsPerTenant - p.deleted)
    .batchSize(o.batchSize)
    .lean<ChainRow[]>()
    .cursor();
  try {
    while (p.deleted < o.maxRowsPerTenant) {
      if (o.signal?.aborted) return false;
      const size = Math.min(o.batchSize, o.maxRowsPerTenant - p.deleted);
      const rows = await take<ChainRow>(cursor, size);
      let n = 0;
      while (n < rows.length && (rows[n]!.seq <= anchoredSeq || rows[n]!.issuedAt < cutoff)) n += 1;
      if (n === 0) break;
      const last = rows[n - 1]!;
      if (last.seq > anchoredSeq) {
        await advanceChainAnchor(models, tenantId, last.seq, last.hash, o.now);
        anchoredSeq = last.seq;
      }
      for (let i = 0; i < n; i += MAX_ROWS_PER_DELETE) {
        const from = rows[i]!.seq;
        const to = rows[Math.min(i + MAX_ROWS_PER_DELETE, n) - 1]!.seq;
        p.deleted += (await models.TokenAudit.deleteMany({ tenantId, seq: { $gte: from, $lte: to } })).deletedCount;
      }
      p.batches += 1;
      if (n < rows.length || rows.length < size) break;
    }
  } finally {
    await cursor.close();
  }
  return true;
}

/**
 * Prunes one tenant, oldest first, never past the cap: first the rows written before the chain existed (no seq,
 * by issuedAt), then the hash chain in chain order. One cursor pass each, whatever the number of batches, rather
 * than a query per batch: on MongoDB both are index walks; on FerretDB (SQLite backend) every query that is not an
 * `_id` lookup decodes the whole collection, so this halves the work of a run there. Each batch's delete still costs
 * FerretDB one such scan (bench/README.md "bench/audit").
 */
async function pruneTenant(
  models: Models,
  tenantId: number,
  cutoff: Date,
  o: RetentionOptions,
  p: TenantProgress,
): Promise<boolean> {
  if (!(await pruneLegacy(models, tenantId, cutoff, o, p))) return false;
  return pruneChain(models, tenantId, cutoff, o, p);
}

const HOUR_MS = 3_600_000;

/**
 * The decision log's refusals (hourly counters, and the ids of the refusals counted) under the same cutoff as the
 * tenant's audit rows: a counter goes once its whole hour is before the cutoff. Deleted by `_id` in bounded batches
 * (FerretDB's SQLite backend cannot delete more than MAX_ROWS_PER_DELETE matched rows in one command); an abort is
 * honoured between batches. Returns the rows deleted, or false when aborted.
 */
export async function pruneRefusals(
  models: Models,
  tenantId: number,
  cutoff: Date,
  o: Pick<RetentionOptions, 'batchSize' | 'dryRun' | 'signal'>,
): Promise<{ deleted: number; completed: boolean }> {
  const targets = [
    { model: models.TokenRefusalCounter, filter: { tenantId, hour: { $lte: new Date(cutoff.getTime() - HOUR_MS) } } },
    { model: models.TokenRefusalEvent, filter: { tenantId, at: { $lt: cutoff } } },
  ];
  let deleted = 0;
  for (const { model, filter } of targets) {
    // The native collection: the counters' ids are ObjectIds, the counted events' are strings.
    const collection = model.collection;
    if (o.dryRun) {
      deleted += await collection.countDocuments(filter);
      continue;
    }
    const size = Math.min(o.batchSize, MAX_ROWS_PER_DELETE);
    for (;;) {
      if (o.signal?.aborted) return { deleted, completed: false };
      const ids = (
        await collection
          .find(filter, { projection: { _id: 1 } })
          .limit(size)
          .toArray()
      ).map((d) => d._id);
      if (!ids.length) break;
      deleted += (await collection.deleteMany({ tenantId, _id: { $in: ids } })).deletedCount;
      if (ids.length < size) break;
    }
  }
  return { deleted, completed: true };
}

/**
 * The nhe-audit-retention job: for every tenant with settings.nhe.enabled and auditRetentionDays > 0, deletes
 * audit rows issued before now - auditRetentionDays, oldest first, in batches, at most maxRowsPerTenant per run.
 * Deleted tenants (their tombstones) count as enabled, with the retention days they had when deleted.
 * Other tenants are skipped (and logged). A tenant that fails does not stop the others; the run then throws
 * RetentionFailed. Aborting stops between batches and throws RetentionInterrupted. Safe to re-run.
 */
export async function runRetention(models: Models, logger: Logger, o: RetentionOptions): Promise<TenantOutcome[]> {
  const outcomes: TenantOutcome[] = [];
  // As stored: a tenant written before settings (or a member of settings.nhe) existed lacks it; defaults stand in.
  const live = await models.Tenant.find({}, { settings: 1 }).lean<
    Array<Pick<TenantDoc, '_id'> & { settings?: { nhe?: Partial<TenantDoc['settings']['nhe']> } }>
  >();
  // A deleted tenant's rows stay until its last retention period has passed, whether or not delegation was on
  // when it was deleted (nothing can turn it on again): they are removed by this job and nothing else.
  const deleted = (await models.DeletedTenant.find({}, { auditRetentionDays: 1 }).lean()).map((d) => ({
    _id: d._id,
    settings: { nhe: { enabled: true, auditRetentionDays: d.auditRetentionDays } },
  }));
  const tenants = [...live, ...deleted].sort((a, b) => a._id - b._id);
  for (const tenant of tenants) {
    if (o.signal?.aborted) throw new RetentionInterrupted(outcomes);
    const nhe = { ...NHE_SETTINGS_DEFAULTS, ...(tenant.settings?.nhe ?? {}) };
    const tenantId = tenant._id;
    if (nhe.enabled !== true) {
      outcomes.push({ tenantId, status: 'skipped', reason: 'nhe-disabled' });
      logger.info({ tenantId, reason: 'nhe-disabled' }, 'tenant skipped');
      continue;
    }
    const days = Number(nhe.auditRetentionDays);
    if (!Number.isFinite(days) || !(days > 0)) {
      outcomes.push({ tenantId, status: 'skipped', reason: 'retention-not-positive' });
      logger.info({ tenantId, reason: 'retention-not-positive' }, 'tenant skipped');
      continue;
    }
    const started = Date.now();
    const cutoff = new Date(o.now.getTime() - days * DAY_MS);
    const progress: TenantProgress = { deleted: 0, batches: 0 };
    let completed = true;
    let refusalsDeleted = 0;
    try {
      if (o.dryRun)
        progress.deleted = Math.min(
          await models.TokenAudit.countDocuments({ tenantId, issuedAt: { $lt: cutoff } }),
          o.maxRowsPerTenant,
        );
      else completed = await pruneTenant(models, tenantId, cutoff, o, progress);
      if (completed) {
        const refusals = await pruneRefusals(models, tenantId, cutoff, o);
        refusalsDeleted = refusals.deleted;
        completed = refusals.completed;
      }
    } catch (err) {
      const failed: TenantOutcome = {
        tenantId,
        status: 'failed',
        cutoff: cutoff.toISOString(),
        ...progress,
        durationMs: Date.now() - started,
        error: (err as Error).message,
      };
      outcomes.push(failed);
      logger.error(failed, 'tenant failed');
      continue;
    }
    const outcome: TenantOutcome = {
      tenantId,
      status: o.dryRun ? 'dry-run' : 'pruned',
      cutoff: cutoff.toISOString(),
      deleted: progress.deleted,
      batches: progress.batches,
      capped: progress.deleted >= o.maxRowsPerTenant,
      durationMs: Date.now() - started,
      refusalsDeleted,
      ...(completed ? {} : { interrupted: true }),
    };
    outcomes.push(outcome);
    logger.info(outcome, o.dryRun ? 'tenant counted (dry run)' : completed ? 'tenant pruned' : 'tenant interrupted');
    if (!completed) throw new RetentionInterrupted(outcomes);
  }
  if (outcomes.some((x) => x.status === 'failed')) throw new RetentionFailed(outcomes);
  return outcomes;
}
