import type { JobDoc } from '@idp/db';

/** How a run was started: the Kubernetes Job created, or the local process spawned. */
export type RunStart = { backend: 'kubernetes'; jobName: string } | { backend: 'in-process'; pid: number };

/**
 * Where jobs actually run. On Kubernetes the CronJob is the scheduler and management only keeps its schedule and
 * suspend flag in step with the job row; elsewhere management schedules and runs the program itself.
 */
export interface JobRunner {
  readonly backend: 'kubernetes' | 'in-process';
  /** Applies the row's schedule and enabled flag (called at start and after every PATCH). */
  sync(job: JobDoc): Promise<void>;
  /** Starts one run now, whatever the schedule says. */
  runNow(job: JobDoc): Promise<RunStart>;
  /** Stops timers and waits for (or terminates) local runs. */
  close(): Promise<void>;
}

/** A runner for apps built without one (tests of other routes): keeps no schedule, cannot start runs. */
export const detachedRunner: JobRunner = {
  backend: 'in-process',
  sync: async () => undefined,
  runNow: async () => {
    throw new Error('no job runner configured');
  },
  close: async () => undefined,
};
