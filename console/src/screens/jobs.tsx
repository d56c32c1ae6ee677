/**
 * The Jobs dialog (spec: the retention job "is scheduled and enabled like any other scheduled job in the admin Jobs
 * dialog"): every scheduled job, nhe-audit-retention first, with its schedule, enabled flag, customOptions.batchSize,
 * its last runs (rows deleted, batches per tenant), "Run now", and the Kubernetes CronJob as it is after a change.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, type Schemas } from '../api';
import { ConfirmButton, ProblemBox } from '../resource-ui';
import { Busy, CheckField, fmtDate, ScopedButton, TextField, useAction, useConsole } from '../ui';

type Job = Schemas['Job'];
type Run = NonNullable<Schemas['JobRun']>;

export function JobsScreen() {
  const { api } = useConsole();
  const [jobs, setJobs] = useState<Job[] | undefined>();
  const load = useAction();
  const reload = useCallback(async () => {
    const list = await load.run(() => call(api.GET('/auth/admin/jobs')));
    if (list)
      setJobs(
        [...list.items].sort((a, b) =>
          a.name === 'nhe-audit-retention' ? -1 : b.name === 'nhe-audit-retention' ? 1 : a.name.localeCompare(b.name),
        ),
      );
  }, [api]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
  }, [reload]);
  return (
    <section aria-labelledby="screen-heading">
      <p>Scheduled jobs of the deployment. Times are UTC; a schedule is a five-field cron expression.</p>
      <ProblemBox problem={load.problem} />
      {jobs === undefined ? <Busy busy={load.busy} label="Loading jobs…" /> : null}
      {jobs?.map((job) => (
        <JobCard
          key={job.name}
          job={job}
          onChanged={(j) => setJobs((all) => all?.map((x) => (x.name === j.name ? j : x)))}
        />
      ))}
    </section>
  );
}

function batchSizeOf(job: Job): string {
  const v = job.customOptions.batchSize;
  return typeof v === 'number' ? String(v) : '';
}

/** The CronJob as the backend keeps it after this job's settings (schedule, suspend = not enabled). */
function cronJobYaml(job: Job): string {
  const k = job.kubernetes;
  return [
    'apiVersion: batch/v1',
    'kind: CronJob',
    'metadata:',
    `  name: ${k?.cronJob ?? job.name}`,
    'spec:',
    `  schedule: "${job.schedule}"`,
    '  timeZone: Etc/UTC',
    `  suspend: ${!job.enabled}`,
    '  concurrencyPolicy: Forbid',
    '  jobTemplate:',
    '    spec:',
    '      template:',
    '        spec:',
    '          containers:',
    `            - name: ${job.name}`,
    `              # customOptions (batchSize ${batchSizeOf(job) || 'default 1000'}) are read from the job's record at each run`,
  ].join('\n');
}

function JobCard(props: { job: Job; onChanged: (j: Job) => void }) {
  const { api } = useConsole();
  const { job } = props;
  const [schedule, setSchedule] = useState(job.schedule);
  const [enabled, setEnabled] = useState(job.enabled);
  const [batchSize, setBatchSize] = useState(batchSizeOf(job));
  const [runs, setRuns] = useState<Run[]>([]);
  const [saved, setSaved] = useState('');
  const save = useAction();
  const runNow = useAction();
  const [progress, setProgress] = useState('');

  const loadRuns = useCallback(async () => {
    const r = await call(
      api.GET('/auth/admin/jobs/{name}/runs', { params: { path: { name: job.name }, query: { limit: 10 } } }),
    ).catch(() => undefined);
    const items = (r?.items ?? []).filter((x): x is Run => x !== null);
    if (r) setRuns(items);
    return items;
  }, [api, job.name]);
  useEffect(() => {
    void loadRuns();
  }, [loadRuns]);

  const onSave = async () => {
    setSaved('');
    const customOptions: Record<string, unknown> = { ...job.customOptions };
    if (batchSize.trim() === '') delete customOptions.batchSize;
    else customOptions.batchSize = Number(batchSize);
    const updated = await save.run(() =>
      call(
        api.PATCH('/auth/admin/jobs/{name}', {
          params: { path: { name: job.name } },
          body: { schedule, enabled, customOptions },
        }),
      ),
    );
    if (updated) {
      props.onChanged(updated);
      setSaved(`Saved at ${fmtDate(updated.updatedAt)}.`);
    }
  };

  const onRunNow = async () => {
    const before = new Set(runs.map((r) => r.id));
    const started = await runNow.run(() =>
      call(api.POST('/auth/admin/jobs/{name}/run', { params: { path: { name: job.name } }, body: {} })),
    );
    if (!started) return;
    setProgress(
      started.backend === 'kubernetes'
        ? `Started Kubernetes Job ${started.kubernetesJob ?? ''}; waiting for the run…`
        : 'Started; waiting for the run…',
    );
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const items = await loadRuns();
      const fresh = items.find((r) => !before.has(r.id));
      if (fresh && fresh.status !== 'running') {
        setProgress(`Run finished: ${fresh.status}, ${fresh.deleted} rows deleted.`);
        const j = await call(api.GET('/auth/admin/jobs/{name}', { params: { path: { name: job.name } } })).catch(
          () => undefined,
        );
        if (j) props.onChanged(j);
        return;
      }
      if (fresh) setProgress(`Running since ${fmtDate(fresh.startedAt)}…`);
    }
    setProgress('The run has not finished yet; its result will appear under Last runs.');
  };

  const shown = ['body.schedule', 'body.enabled', 'body.customOptions'];
  return (
    <article className="card job" aria-labelledby={`job-${job.name}`} data-job={job.name}>
      <h2 id={`job-${job.name}`}>{job.name}</h2>
      <dl className="facts">
        <dt>Type</dt>
        <dd>{job.type}</dd>
        <dt>Backend</dt>
        <dd>
          {job.backend === 'kubernetes' ? 'Kubernetes CronJob kept in step' : 'in-process scheduler (management)'}
        </dd>
        <dt>Next run</dt>
        <dd data-testid="next-run">{job.enabled ? fmtDate(job.nextRunAt) : 'never (disabled)'}</dd>
      </dl>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void onSave();
        }}
      >
        <TextField
          label="Schedule (cron, UTC)"
          name="body.schedule"
          problem={save.problem}
          value={schedule}
          onChange={setSchedule}
          hint="Five fields: minute hour day-of-month month day-of-week, e.g. 30 3 * * * (daily at 03:30 UTC)."
        />
        <CheckField
          label="Enabled"
          name="body.enabled"
          problem={save.problem}
          checked={enabled}
          onChange={setEnabled}
          hint="Disabled: the CronJob is suspended and no scheduled run starts; Run now still works."
        />
        <TextField
          label="Batch size (customOptions.batchSize)"
          name="body.customOptions"
          problem={save.problem}
          value={batchSize}
          onChange={setBatchSize}
          type="number"
          hint="Rows deleted per batch, 1 to 100000; empty: the default 1000."
        />
        <ProblemBox problem={save.problem} shownFields={shown} />
        <div className="actions">
          <ScopedButton scope="auth.jobs.update" type="submit" busy={save.busy}>
            Save job
          </ScopedButton>
          <ConfirmButton
            scope="auth.jobs.run"
            className="secondary"
            label={runNow.busy ? 'Working…' : 'Run now'}
            question={`Run ${job.name} now?`}
            consequence={
              job.name === 'nhe-audit-retention'
                ? "It deletes, now, every tenant's token-audit rows older than that tenant's audit retention (settings.nhe.auditRetentionDays; 0 keeps them). What it deleted cannot be brought back."
                : 'It runs now, outside its schedule.'
            }
            confirm="Really run it now"
            onConfirm={onRunNow}
          />
        </div>
        <p role="status" className="saved">
          {saved}
        </p>
        <p role="status" aria-live="polite" className="progress" data-testid="run-progress">
          {progress}
        </p>
        <ProblemBox problem={runNow.problem} />
      </form>
      <h3>CronJob after this change</h3>
      <pre className="yaml" data-testid="cronjob" tabIndex={0} aria-label="The Kubernetes CronJob">
        {cronJobYaml(job)}
      </pre>
      {job.kubernetes ? (
        'error' in job.kubernetes ? (
          <p className="problem">
            The CronJob {job.kubernetes.cronJob} could not be read: {job.kubernetes.error}
          </p>
        ) : (
          <p data-testid="cronjob-state">
            In the cluster: schedule <code>{job.kubernetes.schedule ?? '—'}</code>, suspend{' '}
            <code>{String(job.kubernetes.suspend)}</code>
            {job.kubernetes.drift.length
              ? ` — drift: ${job.kubernetes.drift.map((d) => `${d.field} is ${String(d.actual)}, expected ${String(d.expected)}${d.manager ? ` (changed by ${d.manager})` : ''}`).join('; ')}`
              : ' — in step.'}
          </p>
        )
      ) : (
        <p className="hint">
          This deployment schedules the job in process (no Kubernetes API): the CronJob above is what the chart's
          CronJob is kept at on Kubernetes.
        </p>
      )}
      <h3>Last runs</h3>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Last runs of ${job.name}`}>
        <table className="runs">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Trigger</th>
              <th scope="col">Status</th>
              <th scope="col">Rows deleted</th>
              <th scope="col">Per tenant (deleted / batches)</th>
            </tr>
          </thead>
          <tbody>
            {runs.length === 0 ? (
              <tr>
                <td colSpan={5}>No runs yet.</td>
              </tr>
            ) : (
              runs.map((r) => (
                <tr key={r.id} data-run={r.id} data-status={r.status}>
                  <td>{fmtDate(r.startedAt)}</td>
                  <td>
                    {r.trigger}
                    {r.dryRun ? ' (dry run)' : ''}
                  </td>
                  <td>
                    {r.status}
                    {r.error ? `: ${r.error}` : ''}
                  </td>
                  <td data-testid="run-deleted">{r.deleted}</td>
                  <td>
                    {r.tenants.length
                      ? r.tenants.map((t) => `${t.tenantId}: ${t.deleted} / ${t.batches} ${t.status}`).join('; ')
                      : '—'}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </article>
  );
}
