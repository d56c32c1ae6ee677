import type { JobDoc, JobRunDoc, Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import { z } from 'zod';
import {
  DEFAULT_BATCH_SIZE,
  JOB_NAME,
  JOB_TYPE,
  MAX_BATCH_SIZE,
  RetentionFailed,
  RetentionInterrupted,
  runRetention,
  toRunCount,
  type TenantOutcome,
} from './retention';

/** customOptions of the nhe-audit-retention job (the jobs API validates with the same schema). */
export const retentionCustomOptionsSchema = z
  .object({ batchSize: z.number().int().min(1).max(MAX_BATCH_SIZE).optional() })
  .strict();

export type JobTrigger = JobRunDoc['trigger'];

export interface RetentionJobOptions {
  trigger: JobTrigger;
  /** --batch-size given on the command line wins over the job's customOptions.batchSize. */
  batchSize?: number;
  maxRowsPerTenant: number;
  dryRun: boolean;
  now: Date;
  signal?: AbortSignal;
}

export type RetentionJobResult =
  | { status: 'succeeded'; runId: string; outcomes: TenantOutcome[] }
  | { status: 'failed' | 'interrupted'; runId: string; outcomes: TenantOutcome[]; error: string };

/** Batch size: command line, else the job row's customOptions.batchSize (validated), else 1000. */
export function resolveBatchSize(job: Pick<JobDoc, 'customOptions'> | null, cli?: number): number {
  if (cli !== undefined) return cli;
  const parsed = retentionCustomOptionsSchema.safeParse(job?.customOptions ?? {});
  if (!parsed.success) {
    throw new Error(
      `job ${JOB_NAME}: customOptions are not valid: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'customOptions'}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data.batchSize ?? DEFAULT_BATCH_SIZE;
}

/**
 * One run of the job as the CronJob (or management's in-process scheduler) starts it: records a JobRun with the
 * per-tenant counts, whatever the outcome. Never throws for a failed or interrupted run: the caller maps the
 * status to the exit code.
 */
/** A run still `running` after this long was killed without recording its outcome (SIGKILL, OOM, node loss). */
export const ABANDONED_AFTER_MS = 24 * 3_600_000;

export async function runRetentionJob(
  models: Models,
  logger: Logger,
  o: RetentionJobOptions,
): Promise<RetentionJobResult> {
  await models.JobRun.updateMany(
    { jobName: JOB_NAME, status: 'running', startedAt: { $lt: new Date(o.now.getTime() - ABANDONED_AFTER_MS) } },
    { $set: { status: 'failed', error: 'abandoned: the run ended without recording an outcome' } },
  );
  const run = await models.JobRun.create({
    jobName: JOB_NAME,
    type: JOB_TYPE,
    trigger: o.trigger,
    status: 'running',
    dryRun: o.dryRun,
    startedAt: new Date(),
    tenants: [],
    deleted: 0,
  });
  const runId = String(run._id);
  const finish = async (status: JobRunDoc['status'], outcomes: TenantOutcome[], error?: string) => {
    const tenants = outcomes.map(toRunCount);
    await models.JobRun.updateOne(
      { _id: run._id },
      {
        $set: {
          status,
          finishedAt: new Date(),
          tenants,
          deleted: o.dryRun ? 0 : tenants.reduce((n, t) => n + t.deleted, 0),
          ...(error ? { error } : {}),
        },
      },
    );
  };
  let outcomes: TenantOutcome[] = [];
  try {
    const job = await models.Job.findById(JOB_NAME).lean<JobDoc>();
    const batchSize = resolveBatchSize(job, o.batchSize);
    logger.info(
      { runId, trigger: o.trigger, batchSize, maxRowsPerTenant: o.maxRowsPerTenant, dryRun: o.dryRun },
      'retention run started',
    );
    outcomes = await runRetention(models, logger, {
      batchSize,
      maxRowsPerTenant: o.maxRowsPerTenant,
      dryRun: o.dryRun,
      now: o.now,
      signal: o.signal,
    });
    await finish('succeeded', outcomes);
    return { status: 'succeeded', runId, outcomes };
  } catch (err) {
    if (err instanceof RetentionInterrupted || err instanceof RetentionFailed) outcomes = err.outcomes;
    const status = err instanceof RetentionInterrupted ? 'interrupted' : 'failed';
    const error = (err as Error).message;
    await finish(status, outcomes, error).catch((e: unknown) =>
      logger.error({ err: (e as Error).message }, 'could not record the run'),
    );
    return { status, runId, outcomes, error };
  }
}
