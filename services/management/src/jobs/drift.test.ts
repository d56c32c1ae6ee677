import { cronJobDrift, describeDrift, overwrittenBy, writersOf, type SchedulerState } from './drift';

const state = (over: Partial<SchedulerState> = {}): SchedulerState => ({
  name: 'nhe-audit-retention',
  schedule: '0 3 * * *',
  suspend: false,
  resourceVersion: '42',
  adopted: true,
  writers: {},
  ...over,
});
const job = { schedule: '0 3 * * *', enabled: true };

test("a CronJob holding the job's schedule and suspend = !enabled is in step", () => {
  expect(cronJobDrift(job, state())).toEqual([]);
  expect(cronJobDrift({ ...job, enabled: false }, state({ suspend: true }))).toEqual([]);
});

test("each differing field is reported with both values and who wrote the CronJob's", () => {
  const s = state({
    schedule: '*/5 * * * *',
    suspend: true,
    writers: { schedule: { manager: 'kubectl-edit', time: '2026-11-25T10:00:00.000Z' }, suspend: { manager: 'helm' } },
  });
  expect(cronJobDrift(job, s)).toEqual([
    {
      field: 'schedule',
      expected: '0 3 * * *',
      actual: '*/5 * * * *',
      manager: 'kubectl-edit',
      changedAt: '2026-11-25T10:00:00.000Z',
    },
    { field: 'suspend', expected: false, actual: true, manager: 'helm' },
  ]);
  expect(cronJobDrift(job, state({ schedule: undefined }))).toEqual([
    { field: 'schedule', expected: '0 3 * * *', actual: null },
  ]);
});

test("a change overwrites a drifted field unless it sets the CronJob's own value", () => {
  const drift = cronJobDrift(job, state({ schedule: '*/5 * * * *', suspend: true }));
  // Untouched fields keep the row's value: both would be overwritten.
  expect(overwrittenBy(job, drift).map((d) => d.field)).toEqual(['schedule', 'suspend']);
  // Adopting the schedule leaves only suspend.
  expect(overwrittenBy({ schedule: '*/5 * * * *', enabled: true }, drift).map((d) => d.field)).toEqual(['suspend']);
  // Adopting both overwrites nothing.
  expect(overwrittenBy({ schedule: '*/5 * * * *', enabled: false }, drift)).toEqual([]);
  expect(overwrittenBy(job, [])).toEqual([]);
});

test('managedFields: the latest writer of spec.schedule and spec.suspend', () => {
  const writers = writersOf([
    {
      manager: 'helm',
      time: '2026-11-25T09:00:00Z',
      fieldsV1: { 'f:spec': { 'f:schedule': {}, 'f:suspend': {}, 'f:jobTemplate': {} } },
    },
    {
      manager: 'idp-management',
      time: new Date('2026-11-25T09:30:00Z'),
      fieldsV1: { 'f:metadata': {}, 'f:spec': { 'f:suspend': {} } },
    },
    { manager: 'kubectl-edit', time: '2026-11-25T10:00:00Z', fieldsV1: { 'f:spec': { 'f:schedule': {} } } },
    { manager: 'kube-controller-manager', time: '2026-11-25T11:00:00Z', fieldsV1: { 'f:status': {} } },
    { time: '2026-11-25T12:00:00Z', fieldsV1: { 'f:spec': { 'f:schedule': {} } } },
  ]);
  expect(writers).toEqual({
    schedule: { manager: 'kubectl-edit', time: '2026-11-25T10:00:00.000Z' },
    suspend: { manager: 'idp-management', time: '2026-11-25T09:30:00.000Z' },
  });
  expect(writersOf(undefined)).toEqual({});
});

test('the problem detail names every drifted field, both values and the writer', () => {
  const d = describeDrift(
    'nhe-audit-retention',
    cronJobDrift(job, state({ schedule: '*/5 * * * *', writers: { schedule: { manager: 'kubectl-edit' } } })),
  );
  expect(d).toBe(
    'the CronJob nhe-audit-retention was changed outside the jobs API: schedule is "*/5 * * * *" there, the job says "0 3 * * *" (changed by kubectl-edit)',
  );
});
