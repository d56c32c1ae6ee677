import type { JobDoc, JobRunDoc, Models } from '@idp/db';
import { upsertRacing } from '@idp/db';
import { ProblemError, problems } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { cronProblem, nextRunOf } from './cron';
import { assertJobType, definitionOf, JOB_DEFINITIONS } from './definitions';
import { cronJobDrift, describeDrift, overwrittenBy, type Drift, type SchedulerState } from './drift';
import { SchedulerConflict, type JobRunner, type RunStart } from './runner';

export interface JobPatch {
  schedule?: string | undefined;
  enabled?: boolean | undefined;
  customOptions?: Record<string, unknown> | undefined;
  /** Overwrite values changed on the scheduler outside the jobs API (drift); without it such a patch is a 409. */
  force?: boolean | undefined;
}

/** The scheduler as read back for a job (GET): what it holds and where it differs from the row. */
export type SchedulerView =
  | { cronJob: string; schedule: string | undefined; suspend: boolean; drift: Drift[] }
  | { cronJob: string; error: string };

export interface JobService {
  /** Creates missing job rows with their defaults and applies every row to the runner. */
  start(): Promise<void>;
  list(): Promise<JobDoc[]>;
  get(name: string): Promise<JobDoc>;
  patch(name: string, patch: JobPatch): Promise<JobDoc>;
  runNow(name: string): Promise<RunStart>;
  runs(name: string, limit: number, before?: Date): Promise<Array<JobRunDoc & { _id: unknown }>>;
  run(name: string, runId: unknown): Promise<JobRunDoc & { _id: unknown }>;
  nextRunAt(job: JobDoc): Date | null;
  /** The scheduler read back (Kubernetes), undefined where management itself schedules. Never throws. */
  scheduler(job: JobDoc): Promise<SchedulerView | undefined>;
  readonly backend: JobRunner['backend'];
}

export function createJobService(deps: { models: Models; runner: JobRunner; logger: Logger }): JobService {
  const { models, runner, logger } = deps;
  const get = async (name: string) => {
    const job = definitionOf(name) ? await models.Job.findById(name).lean<JobDoc>() : null;
    if (!job) throw problems.notFound('job not found');
    return job;
  };
  return {
    backend: runner.backend,
    async start() {
      for (const d of JOB_DEFINITIONS) {
        // Replicas starting together may both insert: the loser's second upsert finds the row.
        await upsertRacing(() =>
          models.Job.updateOne(
            { _id: d.name },
            {
              $setOnInsert: {
                type: assertJobType(d.type),
                schedule: d.defaultSchedule,
                enabled: true,
                customOptions: {},
              },
            },
            { upsert: true },
          ).exec(),
        );
        const job = await models.Job.findById(d.name).lean<JobDoc>();
        if (!job) continue;
        try {
          // Read back first: a CronJob management adopted before and that differs from the row was changed outside
          // the jobs API; it is reported (GET /jobs/{name}, this log line), not overwritten. A CronJob never adopted
          // (fresh from the chart) takes the row's values.
          const state = runner.inspect ? await runner.inspect(job) : undefined;
          if (state?.adopted) {
            const drift = cronJobDrift(job, state);
            if (drift.length)
              logger.warn(
                { job: d.name, drift },
                `${describeDrift(state.name, drift)}; left as it is (PATCH the job with force to overwrite)`,
              );
            continue;
          }
          await runner.sync(job, { resourceVersion: state?.resourceVersion });
        } catch (err) {
          logger.error({ job: d.name, err: (err as Error).message }, 'could not apply the job to its scheduler');
        }
      }
    },
    list: () =>
      models.Job.find({ _id: { $in: JOB_DEFINITIONS.map((d) => d.name) } })
        .sort({ _id: 1 })
        .lean<JobDoc[]>(),
    get,
    async patch(name, patch) {
      const current = await get(name);
      const definition = definitionOf(name)!;
      const invalid: Array<{ name: string; reason: string }> = [];
      if (patch.schedule !== undefined) {
        const reason = cronProblem(patch.schedule);
        if (reason) invalid.push({ name: 'body.schedule', reason });
      }
      let customOptions = current.customOptions;
      if (patch.customOptions !== undefined) {
        const parsed = definition.customOptions.safeParse(patch.customOptions);
        if (parsed.success) customOptions = parsed.data;
        else
          for (const i of parsed.error.issues)
            invalid.push({
              name: ['body', 'customOptions', ...i.path.map(String)].join('.'),
              reason: i.code === 'unrecognized_keys' ? `unknown option(s): ${i.keys.join(', ')}` : i.message,
            });
      }
      if (invalid.length) throw problems.validation('the job patch is not valid', invalid);
      const next: JobDoc = {
        ...current,
        ...(patch.schedule !== undefined ? { schedule: patch.schedule.trim() } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        customOptions,
        updatedAt: new Date(),
      };
      // Read the scheduler back: a change made there outside the jobs API is not overwritten unless asked (force).
      let state: SchedulerState | undefined;
      if (runner.inspect) {
        try {
          state = await runner.inspect(current);
        } catch (err) {
          logger.error({ job: name, err: (err as Error).message }, "could not read the job's scheduler");
          throw problems.serviceUnavailable('the scheduler could not be read; the job was not changed');
        }
        // Drift on a CronJob never adopted (the chart's placeholder values) is taken over like at start.
        const overwritten = state.adopted ? overwrittenBy(next, cronJobDrift(current, state)) : [];
        if (overwritten.length && !patch.force) {
          throw new ProblemError(
            'conflict',
            409,
            `${describeDrift(state.name, overwritten)}. The job was not changed: send the CronJob's values for those fields to keep them, or "force": true to overwrite them`,
            { extra: { drift: overwritten } },
          );
        }
        if (overwritten.length)
          logger.warn({ job: name, overwritten }, `${describeDrift(state.name, overwritten)}; overwritten (force)`);
      }
      // Scheduler first: if Kubernetes refuses, the row stays as it was and the caller gets a 503 (409 if the
      // CronJob changed between the read above and the write: the resourceVersion precondition).
      try {
        await runner.sync(next, state ? { resourceVersion: state.resourceVersion } : undefined);
      } catch (err) {
        logger.error({ job: name, err: (err as Error).message }, 'could not apply the job to its scheduler');
        if (err instanceof SchedulerConflict)
          throw problems.conflict(
            'the CronJob changed while the job was being updated; the job was not changed, read it again and retry',
          );
        throw problems.serviceUnavailable('the scheduler could not be updated; the job was not changed');
      }
      await models.Job.updateOne(
        { _id: name },
        { $set: { schedule: next.schedule, enabled: next.enabled, customOptions: next.customOptions } },
      );
      return get(name);
    },
    async runNow(name) {
      const job = await get(name);
      try {
        return await runner.runNow(job);
      } catch (err) {
        logger.error({ job: name, err: (err as Error).message }, 'could not start a run');
        throw problems.serviceUnavailable('the run could not be started');
      }
    },
    async runs(name, limit, before) {
      await get(name);
      return models.JobRun.find({ jobName: name, ...(before ? { startedAt: { $lt: before } } : {}) })
        .sort({ startedAt: -1 })
        .limit(limit)
        .lean<Array<JobRunDoc & { _id: unknown }>>();
    },
    async run(name, runId) {
      await get(name);
      const run = runId
        ? await models.JobRun.findOne({ _id: runId, jobName: name }).lean<JobRunDoc & { _id: unknown }>()
        : null;
      if (!run) throw problems.notFound('run not found');
      return run;
    },
    nextRunAt: (job) => (job.enabled ? nextRunOf(job.schedule) : null),
    async scheduler(job) {
      if (!runner.inspect) return undefined;
      try {
        const state = await runner.inspect(job);
        return {
          cronJob: state.name,
          schedule: state.schedule,
          suspend: state.suspend,
          drift: cronJobDrift(job, state),
        };
      } catch (err) {
        const e = err as { code?: number; message?: string };
        return {
          cronJob: runner.schedulerName?.(job) ?? job._id,
          error: e.code ? `the API server answered ${e.code}` : 'the API server could not be reached',
        };
      }
    },
  };
}
