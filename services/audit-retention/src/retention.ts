import type { Models, TenantDoc } from '@idp/db';
import { NHE_SETTINGS_DEFAULTS } from '@idp/db';
import type { Logger } from '@idp/logger';

export const JOB_NAME = 'nhe-audit-retention';
export const JOB_TYPE = 'NHE_AUDIT_RETENTION';
export const DEFAULT_BATCH_SIZE = 1000;
/** At most this many rows per tenant per run; the rest goes next run (spec, "Limits"). */
export const DEFAULT_MAX_ROWS_PER_TENANT = 1_000_000;
const DAY_MS = 86_400_000;

export interface RetentionOptions {
  batchSize: number;
  maxRowsPerTenant: number;
  dryRun: boolean;
  now: Date;
}

export type TenantOutcome =
  | { tenantId: number; status: 'skipped'; reason: 'nhe-disabled' | 'retention-not-positive' }
  | { tenantId: number; status: 'pruned' | 'dry-run'; cutoff: string; deleted: number; batches: number; capped: boolean; durationMs: number };

/**
 * The nhe-audit-retention job: for every tenant with settings.nhe.enabled and auditRetentionDays > 0, deletes
 * audit rows issued before now - auditRetentionDays, oldest first, in batches, at most maxRowsPerTenant per run.
 * Safe to interrupt and re-run: each batch is a self-contained delete of rows already past the cutoff.
 */
export async function runRetention(models: Models, logger: Logger, o: RetentionOptions): Promise<TenantOutcome[]> {
  const outcomes: TenantOutcome[] = [];
  const tenants = await models.Tenant.find({}, { settings: 1 }).sort({ _id: 1 }).lean<TenantDoc[]>();
  for (const tenant of tenants) {
    const nhe = { ...NHE_SETTINGS_DEFAULTS, ...(tenant.settings?.nhe ?? {}) };
    const tenantId = tenant._id;
    if (!nhe.enabled) {
      outcomes.push({ tenantId, status: 'skipped', reason: 'nhe-disabled' });
      logger.info({ tenantId, reason: 'nhe-disabled' }, 'tenant skipped');
      continue;
    }
    if (!(nhe.auditRetentionDays > 0)) {
      outcomes.push({ tenantId, status: 'skipped', reason: 'retention-not-positive' });
      logger.info({ tenantId, reason: 'retention-not-positive' }, 'tenant skipped');
      continue;
    }
    const started = Date.now();
    const cutoff = new Date(o.now.getTime() - nhe.auditRetentionDays * DAY_MS);
    const filter = { tenantId, issuedAt: { $lt: cutoff } };
    let deleted = 0;
    let batches = 0;
    if (o.dryRun) {
      deleted = Math.min(await models.TokenAudit.countDocuments(filter), o.maxRowsPerTenant);
    } else {
      while (deleted < o.maxRowsPerTenant) {
        const size = Math.min(o.batchSize, o.maxRowsPerTenant - deleted);
        const ids = await models.TokenAudit.find(filter, { _id: 1 }).sort({ issuedAt: 1, _id: 1 }).limit(size).lean();
        if (!ids.length) break;
        const result = await models.TokenAudit.deleteMany({ tenantId, _id: { $in: ids.map((d) => d._id) } });
        deleted += result.deletedCount;
        batches += 1;
        if (ids.length < size) break;
      }
    }
    const outcome: TenantOutcome = {
      tenantId,
      status: o.dryRun ? 'dry-run' : 'pruned',
      cutoff: cutoff.toISOString(),
      deleted,
      batches,
      capped: deleted >= o.maxRowsPerTenant,
      durationMs: Date.now() - started,
    };
    outcomes.push(outcome);
    logger.info(outcome, o.dryRun ? 'tenant counted (dry run)' : 'tenant pruned');
  }
  return outcomes;
}
