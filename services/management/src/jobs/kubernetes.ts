/**
 * Kubernetes backend: the CronJob `nhe-audit-retention` (from the chart) is the scheduler. Management patches
 * only that CronJob's spec.schedule and spec.suspend (JSON merge patch, with its annotation and the resourceVersion
 * it read as a precondition), reads it back for drift (jobs/drift.ts), and "run now" creates a Job from the
 * CronJob's jobTemplate, the way `kubectl create job --from=cronjob/...` does. The Role of management's
 * ServiceAccount allows get/patch on that one CronJob (resourceNames) and create on jobs: nothing else.
 *
 * @kubernetes/client-node is ESM-only; it is loaded with a dynamic import so this CommonJS service can use it.
 */
import type { BatchV1Api, V1CronJob, V1Job } from '@kubernetes/client-node';
import type { JobDoc } from '@idp/db';
import type { Logger } from '@idp/logger';
import { writersOf, type SchedulerState } from './drift';
import { SchedulerConflict, type JobRunner, type RunStart } from './runner';

export interface KubernetesOptions {
  namespace: string;
  /** CronJob per job name (the chart names it after the job). */
  cronJobName: (jobName: string) => string;
  /** API server URL and bearer token when not using the in-cluster service account (tests, out-of-cluster). */
  apiUrl?: string;
  token?: string;
  logger: Logger;
}

/**
 * Annotation management writes with every sync: the schedule and suspend flag it applied (JSON). Its presence marks
 * a CronJob management has adopted; one without it (freshly installed by the chart) takes the job row's values at
 * start, while an adopted one that differs from the row is reported as drift and left alone.
 */
export const APPLIED_ANNOTATION = 'idp.example/jobs-api-applied';

/** The service account's namespace when running in a pod. */
export const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

// Kept as a real import() in the CommonJS output (module nodenext).
const loadClient = () => import('@kubernetes/client-node');

export async function createKubernetesRunner(o: KubernetesOptions): Promise<JobRunner> {
  const k8s = await loadClient();
  const kc = new k8s.KubeConfig();
  if (o.apiUrl) {
    kc.loadFromOptions({
      // Plain http (a local API proxy or the tests' fake API server) has no certificate to verify; https is verified.
      clusters: [{ name: 'api', server: o.apiUrl, skipTLSVerify: o.apiUrl.startsWith('http:') }],
      users: [{ name: 'management', token: o.token ?? '' }],
      contexts: [{ name: 'ctx', cluster: 'api', user: 'management', namespace: o.namespace }],
      currentContext: 'ctx',
    });
  } else {
    kc.loadFromCluster();
  }
  const batch: BatchV1Api = kc.makeApiClient(k8s.BatchV1Api);
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

  return {
    backend: 'kubernetes',
    async sync(job: JobDoc, precondition?: { resourceVersion?: string | undefined }) {
      const name = o.cronJobName(job._id);
      const spec = { schedule: job.schedule, suspend: !job.enabled };
      try {
        await batch.patchNamespacedCronJob(
          {
            name,
            namespace: o.namespace,
            body: {
              // A resourceVersion in a merge patch is a precondition: the API server answers 409 if it moved on.
              metadata: {
                annotations: { [APPLIED_ANNOTATION]: JSON.stringify(spec) },
                ...(precondition?.resourceVersion ? { resourceVersion: precondition.resourceVersion } : {}),
              },
              spec,
            },
            fieldManager: 'idp-management',
          },
          mergePatch,
        );
      } catch (err) {
        if ((err as { code?: number }).code === 409)
          throw new SchedulerConflict(`CronJob ${name} changed while it was being updated`);
        throw err;
      }
      o.logger.info({ cronJob: name, ...spec }, 'CronJob kept in step with the job');
    },
    schedulerName: (job: JobDoc) => o.cronJobName(job._id),
    async inspect(job: JobDoc): Promise<SchedulerState> {
      const name = o.cronJobName(job._id);
      const cron: V1CronJob = await batch.readNamespacedCronJob({ name, namespace: o.namespace });
      return {
        name,
        schedule: cron.spec?.schedule,
        suspend: cron.spec?.suspend ?? false,
        resourceVersion: cron.metadata?.resourceVersion,
        adopted: cron.metadata?.annotations?.[APPLIED_ANNOTATION] !== undefined,
        writers: writersOf(cron.metadata?.managedFields),
      };
    },
    async runNow(job: JobDoc): Promise<RunStart> {
      const cronName = o.cronJobName(job._id);
      const cron: V1CronJob = await batch.readNamespacedCronJob({ name: cronName, namespace: o.namespace });
      const template = cron.spec?.jobTemplate;
      if (!template?.spec) throw new Error(`CronJob ${cronName} has no jobTemplate`);
      const spec = structuredClone(template.spec);
      // The run records itself as manual (audit-retention's JOB_TRIGGER).
      for (const c of spec.template.spec?.containers ?? [])
        c.env = [...(c.env ?? []).filter((e) => e.name !== 'JOB_TRIGGER'), { name: 'JOB_TRIGGER', value: 'manual' }];
      const suffix = `${Math.floor(Date.now() / 1000).toString(36)}${Math.floor(Math.random() * 36 ** 3)
        .toString(36)
        .padStart(3, '0')}`;
      const body: V1Job = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: `${cronName.slice(0, 52 - suffix.length)}-manual-${suffix}`,
          namespace: o.namespace,
          labels: { ...(template.metadata?.labels ?? {}), 'idp.example/trigger': 'manual' },
          annotations: { ...(template.metadata?.annotations ?? {}), 'cronjob.kubernetes.io/instantiate': 'manual' },
          ...(cron.metadata?.uid
            ? {
                ownerReferences: [
                  { apiVersion: 'batch/v1', kind: 'CronJob', name: cronName, uid: cron.metadata.uid, controller: true },
                ],
              }
            : {}),
        },
        spec,
      };
      const created = await batch.createNamespacedJob({ namespace: o.namespace, body, fieldManager: 'idp-management' });
      o.logger.info({ job: created.metadata?.name, cronJob: cronName }, 'retention Job created from the CronJob');
      return { backend: 'kubernetes', jobName: created.metadata?.name ?? body.metadata!.name! };
    },
    async close() {},
  };
}
