import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '@idp/logger';
import type { Config } from '../config';
import { createInProcessRunner } from './in-process';
import { createKubernetesRunner, IN_CLUSTER_NAMESPACE_FILE } from './kubernetes';
import type { JobRunner } from './runner';

/** Entry file of the retention program: the audit-retention workspace's dist/main.js (same file as the image's). */
export function retentionEntry(): string {
  return join(require.resolve('@idp/audit-retention/package.json'), '..', 'dist', 'main.js');
}

/** The runner the configuration asks for (JOBS_BACKEND; `auto` = kubernetes inside a pod). */
export async function createJobRunner(
  config: Config,
  logger: Logger,
  claimTick?: (key: string) => Promise<boolean>,
): Promise<JobRunner> {
  const kubernetes =
    config.JOBS_BACKEND === 'kubernetes' || (config.JOBS_BACKEND === 'auto' && !!config.KUBERNETES_SERVICE_HOST);
  if (kubernetes) {
    const namespace = config.JOBS_K8S_NAMESPACE ?? readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim();
    logger.info({ namespace, cronJob: config.JOBS_K8S_CRONJOB_NAME }, 'jobs run as Kubernetes CronJobs');
    return createKubernetesRunner({
      namespace,
      cronJobName: () => config.JOBS_K8S_CRONJOB_NAME,
      ...(config.JOBS_K8S_API_URL ? { apiUrl: config.JOBS_K8S_API_URL, token: config.JOBS_K8S_TOKEN ?? '' } : {}),
      logger,
    });
  }
  logger.info('jobs run in process (no Kubernetes)');
  return createInProcessRunner({
    entryOf: () => retentionEntry(),
    env: { MONGODB_URI: config.MONGODB_URI, LOG_LEVEL: config.LOG_LEVEL },
    logger,
    ...(claimTick ? { claimTick } : {}),
  });
}
