import { connectDatabase } from '@idp/db';
import { createLogger } from '@idp/logger';
import { readArgs, readConfig } from './config';
import { JOB_NAME, JOB_TYPE, runRetention } from './retention';

/** One-shot: prune, log per tenant, exit 0; exit 1 on any failure (the CronJob records it). */
async function main(): Promise<void> {
  const config = readConfig();
  const args = readArgs(process.argv.slice(2));
  const logger = createLogger({ service: 'audit-retention', level: config.LOG_LEVEL }).child({ job: JOB_NAME, jobType: JOB_TYPE });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'audit-retention' });
  try {
    const outcomes = await runRetention(db.models, logger, { batchSize: args.batchSize, maxRowsPerTenant: args.limit, dryRun: args.dryRun, now: new Date() });
    const deleted = outcomes.reduce((n, o) => n + ('deleted' in o ? o.deleted : 0), 0);
    logger.info({ tenants: outcomes.length, deleted, dryRun: args.dryRun }, 'retention run finished');
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`audit-retention failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
