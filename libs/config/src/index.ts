import { readFileSync } from 'node:fs';
import { z } from 'zod';

export { z };

export type Env = Record<string, string | undefined>;

/** Thrown when the environment does not satisfy a service's schema; the message names every bad key. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** "true"/"false"/"1"/"0"/"yes"/"no" → boolean, with a default. */
export const boolEnv = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? defaultValue : ['true', '1', 'yes'].includes(v)));

/** Integer from a string, with bounds and a default. */
export const intEnv = (defaultValue: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(defaultValue);

/** Absolute URL with no trailing slash. */
export const urlEnv = () =>
  z
    .string()
    .url()
    .transform((v) => v.replace(/\/+$/, ''));

/** A secret of at least `minLength` characters (read from `<KEY>_FILE` when that is set, see loadConfig). */
export const secretEnv = (minLength = 32) => z.string().min(minLength, `must be at least ${minLength} characters`);

/**
 * Parses `env` against `schema` once. For every key `K` of the schema, `K_FILE` (a path) is read when `K` is not
 * set, so Kubernetes secrets can be mounted as files. Throws ConfigError naming every failing key.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: Env = process.env): z.output<S> {
  const input: Env = {};
  for (const key of Object.keys(schema.shape)) {
    const fileKey = `${key}_FILE`;
    if (env[key] !== undefined) input[key] = env[key];
    else if (env[fileKey]) input[key] = readFileSync(env[fileKey] as string, 'utf8').trim();
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  return result.data;
}

/** The keys every service shares. Spread into a service schema. */
export const commonEnv = {
  /** pino level: fatal, error, warn, info, debug, trace, silent. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** MongoDB connection string, database name included. */
  MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URI'),
  /** NATS server URL(s), comma-separated. */
  NATS_URL: z.string().min(1),
};
