import type { JobDoc } from '@idp/db';
import type { SchedulerState } from './drift';

/** How a run was started: the Kubernetes Job created, or the local process spawned. */
export type RunStart = { backend: 'kubernetes'; jobName: string } | { backend: 'in-process'; pid: number };

/**
 * Where jobs actually run. On Kubernetes the CronJob is the scheduler and management only keeps its schedule and
 * suspend flag in step with the job row; elsewhere management schedules and runs the program itself.
 */
export interface JobRunner {
  readonly backend: 'kubernetes' | 'in-process';
  /**
   * Applies the row's schedule and enabled flag (at start and for every PATCH). With `resourceVersion` the write
   * is refused (SchedulerConflict) if the scheduler changed since it was read.
   */
  sync(job: JobDoc, precondition?: { resourceVersion?: string | undefined }): Promise<void>;
  /** Reads the scheduler back (Kubernetes: the CronJob), for drift; absent where management is the scheduler. */
  inspect?(job: JobDoc): Promise<SchedulerState>;
  /** The scheduler object's name (Kubernetes: the CronJob), where there is one. */
  schedulerName?(job: JobDoc): string;
  /** Starts one run now, whatever the schedule says. */
  runNow(job: JobDoc): Promise<RunStart>;
  /** Stops timers and waits for (or terminates) local runs. */
  close(): Promise<void>;
}

/** A runner for apps built without one (tests of other routes): keeps no schedule, cannot start runs. */
export const detachedRunner: JobRunner = {
  backend: 'in-process',
  sync: () => Promise.resolve(),
  runNow: () => Promise.reject(new Error('no job runner configured')),
  close: () => Promise.resolve(),
};

/** The scheduler changed between the read and the write (Kubernetes 409 on a resourceVersion precondition). */
export class SchedulerConflict extends Error {
  override readonly name = 'SchedulerConflict';
}
