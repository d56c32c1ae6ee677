/**
 * The Jobs dialog (spec: the retention job "is scheduled and enabled like any other scheduled job in the admin Jobs
 * dialog"), on the console's list + detail pattern: the open job's page (`#/jobs/<name>`; nhe-audit-retention when
 * none is named) with its schedule, enabled flag and customOptions.batchSize edited through the editor (a PATCH of
 * what changed, the API's reasons at the fields), its last runs (rows deleted, batches per tenant), "Run now", and the
 * Kubernetes CronJob as it is after a change; below, every scheduled job in a list (status, schedule, next run).
 */
import { useCallback, useEffect, useState } from 'react';
import { call, type Schemas } from '../api';
import {
  ConfirmButton,
  EditCheck,
  EditNumber,
  EditText,
  ProblemBox,
  ResourceList,
  SaveBar,
  StatusBadge,
  detailHref,
  useDetailRoute,
  useEditor,
  useLimits,
} from '../resource-ui';
import { Busy, fmtDate, useAction, useConsole } from '../ui';

type Job = Schemas['Job'];
type Run = NonNullable<Schemas['JobRun']>;

const FIRST = 'nhe-audit-retention';
const byName = (a: Job, b: Job) =>
  a.name === FIRST ? -1 : b.name === FIRST ? 1 : a.name.localeCompare(b.name, undefined, { numeric: true });

export function JobsScreen() {
  const { api } = useConsole();
  const [selected] = useDetailRoute('jobs');
  const [jobs, setJobs] = useState<Job[] | undefined>();
  const [reloadKey, setReloadKey] = useState(0);
  const load = useAction();
  const reload = useCallback(async () => {
    const list = await load.run(() => call(api.GET('/auth/admin/jobs')));
    if (list) setJobs([...list.items].sort(byName));
  }, [api]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
  }, [reload]);
  // The jobs are few and the API has no paging for them: the list pages and sorts what it read.
  const listPage = useCallback(() => Promise.resolve({ items: jobs ?? [], nextCursor: null }), [jobs]);
  const open = jobs?.find((j) => j.name === (selected ?? FIRST)) ?? jobs?.[0];
  return (
    <section aria-labelledby="screen-heading">
      <p>Scheduled jobs of the deployment. Times are UTC; a schedule is a five-field cron expression.</p>
      <ProblemBox problem={load.problem} />
      {jobs === undefined ? <Busy busy={load.busy} label="Loading jobs…" /> : null}
      {selected && jobs && !jobs.some((j) => j.name === selected) ? (
        <p className="problem" role="alert">
          There is no job {selected}.
        </p>
      ) : null}
      {open ? (
        <JobDetail
          key={open.name}
          job={open}
          onChanged={(j) => {
            setJobs((all) => all?.map((x) => (x.name === j.name ? j : x)));
            setReloadKey((n) => n + 1);
          }}
        />
      ) : null}
      {jobs ? (
        <>
          <h2>All jobs</h2>
          <ResourceList<Job>
            label="Jobs"
            load={listPage}
            reloadKey={reloadKey}
            rowKey={(j) => j.name}
            rowAttrs={(j) => ({ 'data-job-row': j.name })}
            columns={[
              {
                header: 'Name',
                sortValue: (j) => j.name,
                render: (j) => <a href={detailHref('jobs', j.name)}>{j.name}</a>,
              },
              { header: 'Type', sortValue: (j) => j.type, render: (j) => j.type },
              {
                header: 'Status',
                sortValue: (j) => (j.enabled ? 1 : 0),
                render: (j) => <StatusBadge on={j.enabled} />,
              },
              { header: 'Schedule', render: (j) => <code>{j.schedule}</code> },
              {
                header: 'Next run',
                sortValue: (j) => (j.enabled ? String(j.nextRunAt ?? '') : ''),
                render: (j) => (j.enabled ? fmtDate(j.nextRunAt) : 'never (disabled)'),
              },
              {
                header: 'Backend',
                render: (j) => (j.backend === 'kubernetes' ? 'Kubernetes CronJob' : 'in process'),
              },
            ]}
          />
        </>
      ) : null}
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

/** What the job's page edits: the PATCH body's schedule and enabled, and customOptions.batchSize. */
interface JobDraft extends Record<string, unknown> {
  schedule: string;
  enabled: boolean;
  batchSize: number | undefined;
}

const toDraft = (j: Job): JobDraft => ({
  schedule: j.schedule,
  enabled: j.enabled,
  batchSize: typeof j.customOptions.batchSize === 'number' ? j.customOptions.batchSize : undefined,
});

const LABELS: Record<string, string> = { schedule: 'schedule', enabled: 'enabled', batchSize: 'batch size' };

function JobDetail(props: { job: Job; onChanged: (j: Job) => void }) {
  const { api } = useConsole();
  const { job } = props;
  const [runs, setRuns] = useState<Run[]>([]);
  const runNow = useAction();
  const limits = useLimits('updateJob');
  const ed = useEditor<Job, JobDraft>({
    item: job,
    toDraft,
    what: (j) => `job ${j.name}`,
    labels: LABELS,
    save: (patch) => {
      const body: { schedule?: string; enabled?: boolean; customOptions?: Record<string, unknown> } = {};
      if (patch.schedule !== undefined) body.schedule = patch.schedule;
      if (patch.enabled !== undefined) body.enabled = patch.enabled;
      // customOptions is replaced whole: the other options stay as they are; a cleared batch size is the default.
      if ('batchSize' in patch) {
        const customOptions: Record<string, unknown> = { ...job.customOptions };
        if (typeof patch.batchSize === 'number') customOptions.batchSize = patch.batchSize;
        else delete customOptions.batchSize;
        body.customOptions = customOptions;
      }
      return call(api.PATCH('/auth/admin/jobs/{name}', { params: { path: { name: job.name } }, body }));
    },
    onSaved: props.onChanged,
  });
  const d = ed.draft;
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
      {d ? (
        <form
          aria-label={`Settings of ${job.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            void ed.save();
          }}
        >
          <EditText
            label="Schedule (cron, UTC)"
            name="body.schedule"
            problem={ed.problem}
            limits={limits('schedule')}
            value={d.schedule}
            onChange={(v) => ed.set('schedule', v)}
            hint="Five fields: minute hour day-of-month month day-of-week, e.g. 30 3 * * * (daily at 03:30 UTC)."
          />
          <EditCheck
            label="Enabled"
            name="body.enabled"
            problem={ed.problem}
            checked={d.enabled}
            onChange={(v) => ed.set('enabled', v)}
            hint="Disabled: the CronJob is suspended and no scheduled run starts; Run now still works."
          />
          <EditNumber
            label="Batch size (customOptions.batchSize)"
            name="body.customOptions"
            problem={ed.problem}
            limits={{ min: 1, max: 100_000 }}
            value={d.batchSize}
            onChange={(v) => ed.set('batchSize', v)}
            hint="Rows deleted per batch; empty: the default 1000."
          />
          <ProblemBox problem={ed.problem} shownFields={shown} />
          <SaveBar scope="auth.jobs.update" editor={ed} what="job" />
        </form>
      ) : null}
      <div className="actions">
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
      <p role="status" aria-live="polite" className="progress" data-testid="run-progress">
        {progress}
      </p>
      <ProblemBox problem={runNow.problem} />
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
