import { connectDatabase } from '@idp/db';
import { createLogger } from '@idp/logger';
import { readArgs, readConfig } from './config';
import { runRetentionJob } from './job';
import { JOB_NAME, JOB_TYPE } from './retention';

/** Exit codes: 0 done, 1 failed (a tenant or the run), 2 bad arguments/config, 143 interrupted by SIGTERM/SIGINT. */
async function main(): Promise<number> {
  let config, args;
  try {
    config = readConfig();
    args = readArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`audit-retention: ${(err as Error).message}\n`);
    return 2;
  }
  const logger = createLogger({ service: 'audit-retention', level: config.LOG_LEVEL }).child({
    job: JOB_NAME,
    jobType: JOB_TYPE,
  });
  // SIGTERM (pod eviction, CronJob deadline, management stopping) ends the run after the current batch.
  const stop = new AbortController();
  // A repeated signal does not kill the run mid-batch either (SIGKILL after the grace period still does).
  const onSignal = (signal: string) => {
    if (!stop.signal.aborted) logger.warn({ signal }, 'stopping after the current batch');
    stop.abort();
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'audit-retention' });
  try {
    const result = await runRetentionJob(db.models, logger, {
      trigger: config.JOB_TRIGGER,
      batchSize: args.batchSize,
      maxRowsPerTenant: args.limit,
      dryRun: args.dryRun,
      now: new Date(),
      signal: stop.signal,
    });
    const deleted = result.outcomes.reduce((n, o) => n + ('deleted' in o ? o.deleted : 0), 0);
    if (result.status === 'succeeded') {
      logger.info(
        { runId: result.runId, tenants: result.outcomes.length, deleted, dryRun: args.dryRun },
        'retention run finished',
      );
      return 0;
    }
    logger.error(
      { runId: result.runId, status: result.status, error: result.error, deleted },
      `retention run ${result.status}`,
    );
    return result.status === 'interrupted' ? 143 : 1;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`audit-retention failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
