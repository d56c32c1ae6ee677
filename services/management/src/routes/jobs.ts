/**
 * Jobs API (scope auth.jobs.*): the deployment's scheduled jobs, today nhe-audit-retention. Jobs are
 * deployment-wide, so only system-tenant admins reach them (access `system`).
 */
import { z } from 'zod';
import type { JobDoc, JobRunDoc } from '@idp/db';
import { toObjectId } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { emptyBody, isoDate } from '../openapi/schemas';
import type { JobService, SchedulerView } from '../jobs/service';

const jobName = z.string().max(64);
const TAG = 'Jobs';

const tenantCountSchema = z
  .object({
    tenantId: z.number().int(),
    status: z.enum(['pruned', 'dry-run', 'skipped', 'failed']),
    reason: z.string().optional(),
    deleted: z.number().int(),
    batches: z.number().int(),
    capped: z.boolean(),
    durationMs: z.number(),
    cutoff: isoDate.optional(),
  })
  .meta({ id: 'JobRunTenantCount' });

const runSchema = z
  .object({
    id: z.string(),
    jobName: z.string(),
    trigger: z.enum(['schedule', 'manual', 'cli']),
    status: z.enum(['running', 'succeeded', 'failed', 'interrupted']),
    dryRun: z.boolean(),
    startedAt: isoDate,
    finishedAt: isoDate.optional(),
    deleted: z.number().int(),
    tenants: z.array(tenantCountSchema),
    error: z.string().optional(),
  })
  .meta({ id: 'JobRun' });

const driftSchema = z
  .object({
    field: z.enum(['schedule', 'suspend']).describe('The CronJob field (spec.schedule, spec.suspend)'),
    expected: z.union([z.string(), z.boolean()]).describe('What the job says (suspend is the opposite of enabled)'),
    actual: z.union([z.string(), z.boolean()]).nullable().describe('What the CronJob holds'),
    manager: z
      .string()
      .optional()
      .describe('The field manager that last wrote it (metadata.managedFields), e.g. kubectl-edit or helm'),
    changedAt: isoDate.optional(),
  })
  .meta({ id: 'JobDrift' });

const kubernetesSchema = z
  .union([
    z.object({
      cronJob: z.string(),
      schedule: z.string().optional().describe("The CronJob's spec.schedule as the API server holds it"),
      suspend: z.boolean().describe("The CronJob's spec.suspend"),
      drift: z
        .array(driftSchema)
        .describe('Where the CronJob differs from the job (changed outside the jobs API); empty when in step'),
    }),
    z.object({ cronJob: z.string(), error: z.string().describe('The CronJob could not be read; drift unknown') }),
  ])
  .describe('Kubernetes backend only: the CronJob read back from the API server')
  .meta({ id: 'JobKubernetesState' });

const jobSchema = z
  .object({
    name: z.string(),
    type: z.enum(['NHE_AUDIT_RETENTION']),
    schedule: z.string().describe('Five-field cron expression, UTC'),
    enabled: z.boolean(),
    customOptions: z.record(z.string(), z.unknown()),
    backend: z
      .enum(['kubernetes', 'in-process'])
      .describe('kubernetes: a CronJob kept in step; in-process: management schedules it'),
    nextRunAt: isoDate.nullable(),
    lastRun: runSchema.nullable(),
    updatedAt: isoDate.optional(),
    kubernetes: kubernetesSchema.optional(),
  })
  .meta({ id: 'Job' });

const patchSchema = z
  .object({
    schedule: z.string().min(1).max(100).optional(),
    enabled: z.boolean().optional(),
    customOptions: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('nhe-audit-retention: { batchSize: 1..100000 }'),
    force: z
      .boolean()
      .optional()
      .describe(
        'Kubernetes: overwrite CronJob fields changed outside the jobs API (drift). Without it, a patch that would overwrite them is refused (409, listing them in `drift`)',
      ),
  })
  .strict();

function kubernetesView(k: SchedulerView) {
  if ('error' in k) return k;
  const { schedule, ...rest } = k;
  return { ...rest, ...(schedule === undefined ? {} : { schedule }) };
}

const iso = (d: Date | undefined) => (d ? new Date(d).toISOString() : undefined);

/** A run as stored: `deleted` and `tenants` are written as the run goes (a row from an interrupted start may lack them). */
function runView(
  r: Omit<JobRunDoc, 'deleted' | 'tenants'> & { deleted?: number; tenants?: JobRunDoc['tenants']; _id: unknown },
) {
  return {
    id: String(r._id),
    jobName: r.jobName,
    trigger: r.trigger,
    status: r.status,
    dryRun: r.dryRun,
    startedAt: iso(r.startedAt)!,
    ...(r.finishedAt ? { finishedAt: iso(r.finishedAt) } : {}),
    deleted: r.deleted ?? 0,
    tenants: (r.tenants ?? []).map((t) => ({ ...t })),
    ...(r.error ? { error: r.error } : {}),
  };
}

export function jobRoutes(deps: { jobs: JobService }): RouteDef[] {
  const { jobs } = deps;
  const view = async (job: JobDoc) => {
    const [runs, kubernetes] = await Promise.all([jobs.runs(job._id, 1), jobs.scheduler(job)]);
    const last = runs.at(0);
    // A row written before these members existed lacks them.
    const stored: { customOptions?: JobDoc['customOptions']; updatedAt?: Date } = job;
    return {
      name: job._id,
      type: job.type,
      schedule: job.schedule,
      enabled: job.enabled,
      customOptions: stored.customOptions ?? {},
      backend: jobs.backend,
      nextRunAt: jobs.nextRunAt(job)?.toISOString() ?? null,
      lastRun: last ? runView(last) : null,
      ...(stored.updatedAt ? { updatedAt: iso(stored.updatedAt) } : {}),
      ...(kubernetes ? { kubernetes: kubernetesView(kubernetes) } : {}),
    };
  };
  const params = z.object({ name: jobName }).strict();
  return [
    defineRoute({
      method: 'get',
      path: '/jobs',
      operationId: 'listJobs',
      summary: 'List scheduled jobs',
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.list',
      responses: {
        200: { description: 'The jobs', schema: z.object({ items: z.array(jobSchema) }).meta({ id: 'JobList' }) },
      },
      handler: async () => ({ status: 200, body: { items: await Promise.all((await jobs.list()).map(view)) } }),
    }),
    defineRoute({
      method: 'get',
      path: '/jobs/:name',
      operationId: 'getJob',
      summary: 'Get a job with its next and last run',
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.list',
      params,
      responses: { 200: { description: 'The job', schema: jobSchema } },
      handler: async ({ params: p }) => ({ status: 200, body: await view(await jobs.get(p.name)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/jobs/:name',
      operationId: 'updateJob',
      summary: "Change a job's schedule, enabled flag or custom options",
      description:
        'On Kubernetes the CronJob is read back, then its schedule and suspend flag are updated (with the resourceVersion read as a precondition), and the job is saved only once that worked: ' +
        'if the CronJob cannot be read or updated the job is left unchanged (503). If someone changed the CronJob outside the jobs API (`kubernetes.drift` of GET) and this patch would overwrite ' +
        "those fields, it is refused with 409 (`conflict`, the fields in `drift`) and nothing changes, unless `force` is true; setting those fields to the CronJob's own values adopts them without `force`. " +
        'A CronJob that changed between the read and the write is also a 409.',
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.update',
      params,
      body: patchSchema,
      responses: { 200: { description: 'The updated job', schema: jobSchema } },
      errors: [409, 503],
      handler: async ({ params: p, body, audit }) => {
        audit({
          job: p.name,
          changed: Object.keys(body).filter((k) => k !== 'force'),
          ...(body.force ? { force: true } : {}),
        });
        return { status: 200, body: await view(await jobs.patch(p.name, body)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/jobs/:name/run',
      operationId: 'runJobNow',
      summary: 'Start a run now',
      description:
        "On Kubernetes creates a Job from the CronJob's template; otherwise starts the job program. The run appears under /runs once it starts.",
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.run',
      params,
      body: emptyBody,
      responses: {
        202: {
          description: 'The run was started',
          schema: z
            .object({
              backend: z.enum(['kubernetes', 'in-process']),
              kubernetesJob: z.string().optional(),
              pid: z.number().int().optional(),
            })
            .meta({ id: 'JobRunStarted' }),
        },
      },
      errors: [503],
      handler: async ({ params: p, audit }) => {
        const started = await jobs.runNow(p.name);
        audit({ job: p.name, backend: started.backend });
        return {
          status: 202,
          body:
            started.backend === 'kubernetes'
              ? { backend: 'kubernetes', kubernetesJob: started.jobName }
              : { backend: 'in-process', pid: started.pid },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/jobs/:name/runs',
      operationId: 'listJobRuns',
      summary: 'Last runs of a job, newest first, with per-tenant counts',
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.list',
      params,
      query: z
        .object({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          before: isoDate.optional().describe('Runs started before this instant (paging)'),
        })
        .strict(),
      responses: {
        200: { description: 'Runs', schema: z.object({ items: z.array(runSchema) }).meta({ id: 'JobRunList' }) },
      },
      handler: async ({ params: p, query }) => ({
        status: 200,
        body: {
          items: (await jobs.runs(p.name, query.limit, query.before ? new Date(query.before) : undefined)).map(runView),
        },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/jobs/:name/runs/:runId',
      operationId: 'getJobRun',
      summary: 'One run of a job',
      tag: TAG,
      access: 'system',
      scope: 'auth.jobs.list',
      params: params.extend({ runId: z.string().max(64) }).strict(),
      responses: { 200: { description: 'The run', schema: runSchema } },
      handler: async ({ params: p }) => {
        const id = toObjectId(p.runId);
        if (!id) throw problems.notFound('run not found');
        return { status: 200, body: runView(await jobs.run(p.name, id)) };
      },
    }),
  ];
}
