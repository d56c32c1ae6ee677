import type { JobDoc, JobRunDoc, Models } from '@idp/db';
import { upsertRacing } from '@idp/db';
import { problems } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { cronProblem, nextRunOf } from './cron';
import { assertJobType, definitionOf, JOB_DEFINITIONS } from './definitions';
import type { JobRunner, RunStart } from './runner';

export interface JobPatch {
  schedule?: string | undefined;
  enabled?: boolean | undefined;
  customOptions?: Record<string, unknown> | undefined;
}

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
            { $setOnInsert: { type: assertJobType(d.type), schedule: d.defaultSchedule, enabled: true, customOptions: {} } },
            { upsert: true },
          ).exec(),
        );
        const job = await models.Job.findById(d.name).lean<JobDoc>();
        // The row is the source of truth: a CronJob edited by hand is put back in step at start.
        if (job) await runner.sync(job).catch((err: unknown) => logger.error({ job: d.name, err: (err as Error).message }, 'could not apply the job to its scheduler'));
      }
    },
    list: () => models.Job.find({ _id: { $in: JOB_DEFINITIONS.map((d) => d.name) } }).sort({ _id: 1 }).lean<JobDoc[]>(),
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
      // Scheduler first: if Kubernetes refuses, the row stays as it was and the caller gets a 503.
      try {
        await runner.sync(next);
      } catch (err) {
        logger.error({ job: name, err: (err as Error).message }, 'could not apply the job to its scheduler');
        throw problems.serviceUnavailable('the scheduler could not be updated; the job was not changed');
      }
      await models.Job.updateOne({ _id: name }, { $set: { schedule: next.schedule, enabled: next.enabled, customOptions: next.customOptions } });
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
      const run = runId ? await models.JobRun.findOne({ _id: runId, jobName: name }).lean<JobRunDoc & { _id: unknown }>() : null;
      if (!run) throw problems.notFound('run not found');
      return run;
    },
    nextRunAt: (job) => (job.enabled ? nextRunOf(job.schedule) : null),
  };
}
