import { commonEnv, intEnv, loadConfig, z, type Env } from '@idp/config';

export const configSchema = z.object({
  ...commonEnv,
  /** Port of the health and metrics endpoints. */
  PORT: intEnv(3300, 0, 65535),
  /** Address to bind the health and metrics endpoints. */
  HOST: z.string().default('0.0.0.0'),
  /** Replicas of the IDP_AUDIT stream (1 locally, 3 in the chart). */
  AUDIT_STREAM_REPLICAS: intEnv(1, 1, 5),
  /** Duplicate-detection window of the stream, seconds (>= 120). */
  AUDIT_DUPLICATE_WINDOW_SECONDS: intEnv(120, 120, 86_400),
  /** How long events stay in the stream, seconds. */
  AUDIT_STREAM_MAX_AGE_SECONDS: intEnv(7 * 86_400, 3600),
  /** Messages per fetch and per insertMany. */
  AUDIT_BATCH_SIZE: intEnv(200, 1, 5000),
  /** Unacknowledged messages the consumer may hold at once. */
  AUDIT_MAX_ACK_PENDING: intEnv(1000, 1, 100_000),
});

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
