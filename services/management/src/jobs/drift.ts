/**
 * Drift between a job row and the scheduler that runs it (the Kubernetes CronJob). The row is what the jobs API
 * says; the CronJob is what actually runs. Someone may change the CronJob outside the product (`kubectl edit`, a
 * `helm upgrade` that puts the chart's values back, another controller): the jobs API then reports the difference
 * (GET) and refuses to overwrite it silently (PATCH answers 409 unless the caller sets `force`).
 */
import type { JobDoc } from '@idp/db';

/** A field of the CronJob the jobs API keeps in step. */
export type DriftField = 'schedule' | 'suspend';

/** What the scheduler holds, read back from it (runner.inspect). */
export interface SchedulerState {
  /** The CronJob's name. */
  name: string;
  schedule: string | undefined;
  /** spec.suspend; absent counts as false (the Kubernetes default). */
  suspend: boolean;
  resourceVersion: string | undefined;
  /** Whether management has applied a job row to this CronJob before (its annotation is there). */
  adopted: boolean;
  /** Who last wrote each field (managedFields: the field manager and the time of its write). */
  writers: Partial<Record<DriftField, { manager: string; time?: string | undefined }>>;
}

export interface Drift {
  field: DriftField;
  /** What the job row says (suspend = !enabled). */
  expected: string | boolean;
  /** What the CronJob holds. */
  actual: string | boolean | null;
  /** The field manager that last wrote the CronJob's value, when the API server records it. */
  manager?: string;
  changedAt?: string;
}

/** The CronJob's values the row implies. */
export const desiredOf = (job: Pick<JobDoc, 'schedule' | 'enabled'>): { schedule: string; suspend: boolean } => ({
  schedule: job.schedule,
  suspend: !job.enabled,
});

/** The fields where the CronJob differs from the row (empty: in step). */
export function cronJobDrift(job: Pick<JobDoc, 'schedule' | 'enabled'>, state: SchedulerState): Drift[] {
  const want = desiredOf(job);
  const out: Drift[] = [];
  const add = (field: DriftField, expected: string | boolean, actual: string | boolean | undefined) => {
    if (expected === actual) return;
    const w = state.writers[field];
    out.push({
      field,
      expected,
      actual: actual ?? null,
      ...(w ? { manager: w.manager, ...(w.time ? { changedAt: w.time } : {}) } : {}),
    });
  };
  add('schedule', want.schedule, state.schedule);
  add('suspend', want.suspend, state.suspend);
  return out;
}

/**
 * The drifted fields a change would overwrite: those where the value about to be written differs from what the
 * CronJob holds now. A PATCH that sets a drifted field to the CronJob's own value (adopting it) overwrites nothing.
 */
export function overwrittenBy(next: Pick<JobDoc, 'schedule' | 'enabled'>, drift: Drift[]): Drift[] {
  const want = desiredOf(next);
  return drift.filter((d) => want[d.field] !== d.actual);
}

interface ManagedFieldsEntry {
  manager?: string | undefined;
  time?: Date | string | undefined;
  fieldsV1?: unknown;
}

/** The latest writer of spec.schedule and spec.suspend according to metadata.managedFields. */
export function writersOf(managedFields: readonly ManagedFieldsEntry[] | undefined): SchedulerState['writers'] {
  const writers: SchedulerState['writers'] = {};
  const stamp = (t: Date | string | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
  for (const entry of managedFields ?? []) {
    const spec = (entry.fieldsV1 as Record<string, Record<string, unknown> | undefined> | undefined)?.['f:spec'];
    if (!spec || !entry.manager) continue;
    for (const field of ['schedule', 'suspend'] as const) {
      if (!(`f:${field}` in spec)) continue;
      const time = stamp(entry.time);
      const prev = writers[field];
      if (!prev || (time && (!prev.time || time > prev.time))) writers[field] = { manager: entry.manager, time };
    }
  }
  return writers;
}

/** The problem detail naming the drifted fields. */
export function describeDrift(cronJob: string, drift: Drift[]): string {
  const parts = drift.map(
    (d) =>
      `${d.field} is ${JSON.stringify(d.actual)} there, the job says ${JSON.stringify(d.expected)}${d.manager ? ` (changed by ${d.manager}${d.changedAt ? ` at ${d.changedAt}` : ''})` : ''}`,
  );
  return `the CronJob ${cronJob} was changed outside the jobs API: ${parts.join('; ')}`;
}
