import { loadConfig, z, type Env } from '@idp/config';
import { parseArgs } from 'node:util';
import { DEFAULT_MAX_ROWS_PER_TENANT, MAX_BATCH_SIZE } from './retention';

export const configSchema = z.object({
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** MongoDB connection string, database name included. */
  MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI'),
  /** What started this run, recorded on the JobRun: the CronJob's schedule (default) or "run now" (manual). */
  JOB_TRIGGER: z.enum(['schedule', 'manual', 'cli']).default('schedule'),
});

const argsSchema = z.object({
  batchSize: z.coerce.number().int().min(1).max(MAX_BATCH_SIZE).optional(),
  limit: z.coerce.number().int().min(1).max(DEFAULT_MAX_ROWS_PER_TENANT).default(DEFAULT_MAX_ROWS_PER_TENANT),
  dryRun: z.boolean().default(false),
});

export type RetentionArgs = z.infer<typeof argsSchema>;

/**
 * `--batch-size N` (overrides the job's customOptions.batchSize, default 1000), `--limit N` (per-tenant cap,
 * at most 1,000,000), `--dry-run`.
 */
export function readArgs(argv: string[]): RetentionArgs {
  const { values } = parseArgs({
    args: argv,
    options: { 'batch-size': { type: 'string' }, limit: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    strict: true,
  });
  const parsed = argsSchema.safeParse({
    batchSize: values['batch-size'],
    limit: values.limit,
    dryRun: values['dry-run'],
  });
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .map((i) => `--${String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`)
        .join('; '),
    );
  return parsed.data;
}

export const readConfig = (env: Env = process.env) => loadConfig(configSchema, env);
