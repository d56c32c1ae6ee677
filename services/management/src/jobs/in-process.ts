/**
 * In-process backend (no Kubernetes): croner fires the job's schedule (UTC) and each run spawns the very
 * program the CronJob runs, services/audit-retention/dist/main.js, as a child process with MONGODB_URI and
 * JOB_TRIGGER. Spawning rather than importing runRetention keeps one code path for both backends (same
 * arguments, same exit codes, same SIGTERM handling, same JobRun record), keeps a long prune's memory and event
 * loop out of the API process, and lets management stop a run with SIGTERM on shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Cron } from 'croner';
import type { JobDoc } from '@idp/db';
import type { Logger } from '@idp/logger';
import type { JobRunner, RunStart } from './runner';

export interface InProcessOptions {
  /** Entry file of the job program per job name. */
  entryOf: (jobName: string) => string;
  /** Environment of the child (MONGODB_URI, LOG_LEVEL). */
  env: Record<string, string>;
  logger: Logger;
  /** Extra arguments (tests: --limit). */
  args?: string[];
  /**
   * Claims one scheduled tick (`<job>@<ISO time>`) across every management replica; only the replica whose claim
   * succeeds runs it. Without it every replica runs every tick (safe, each batch is idempotent, but wasteful).
   */
  claimTick?: (key: string) => Promise<boolean>;
}

export function createInProcessRunner(o: InProcessOptions): JobRunner & { running: () => number } {
  const timers = new Map<string, Cron>();
  const children = new Set<ChildProcess>();

  const start = (job: JobDoc, trigger: 'schedule' | 'manual'): ChildProcess => {
    const child = spawn(process.execPath, [o.entryOf(job._id), ...(o.args ?? [])], {
      env: { PATH: process.env.PATH ?? '', ...o.env, JOB_TRIGGER: trigger },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.add(child);
    child.on('exit', (code, signal) => {
      children.delete(child);
      o.logger[code === 0 ? 'info' : 'error']({ job: job._id, trigger, code, signal }, 'job run finished');
    });
    child.on('error', (err) => o.logger.error({ job: job._id, err: err.message }, 'job run could not start'));
    return child;
  };

  /** Replaces the job's timer (none while disabled); throws on a schedule croner refuses. */
  const schedule = (job: JobDoc): void => {
    timers.get(job._id)?.stop();
    timers.delete(job._id);
    if (!job.enabled) return;
    // protect: a run still going when the next tick fires is not started twice (like concurrencyPolicy Forbid).
    const timer: Cron = new Cron(job.schedule, { timezone: 'UTC', protect: true }, async () => {
      if (o.claimTick) {
        const tick = timer.currentRun() ?? new Date();
        tick.setMilliseconds(0);
        const claimed = await o.claimTick(`${job._id}@${tick.toISOString()}`).catch((err: unknown) => {
          o.logger.error(
            { job: job._id, err: err instanceof Error ? err.message : String(err) },
            'could not claim the scheduled run',
          );
          return false;
        });
        if (!claimed) return;
      }
      const child = start(job, 'schedule');
      await new Promise((r) => child.once('exit', r));
    });
    timers.set(job._id, timer);
    o.logger.info(
      { job: job._id, schedule: job.schedule, nextRun: timer.nextRun()?.toISOString() },
      'job scheduled in process',
    );
  };

  return {
    backend: 'in-process',
    running: () => children.size,
    sync(job) {
      // A schedule croner refuses is the promise's rejection, as JobRunner.sync promises.
      try {
        schedule(job);
      } catch (err) {
        return Promise.reject(err);
      }
      return Promise.resolve();
    },
    async runNow(job): Promise<RunStart> {
      const child = start(job, 'manual');
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      return { backend: 'in-process', pid: child.pid ?? 0 };
    },
    async close() {
      for (const t of timers.values()) t.stop();
      timers.clear();
      await Promise.all(
        [...children].map(
          (c) =>
            new Promise<void>((r) => {
              if (c.exitCode !== null || c.signalCode !== null) return r();
              const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
              c.once('exit', () => {
                clearTimeout(kill);
                r();
              });
              c.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
