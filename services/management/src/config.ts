import { boolEnv, commonEnv, intEnv, loadConfig, secretEnv, urlEnv, z, type Env } from '@idp/config';

export const configSchema = z.object({
  ...commonEnv,
  /** Address to bind. */
  HOST: z.string().default('0.0.0.0'),
  /** Port to listen on. */
  PORT: intEnv(3200, 0, 65535),
  /** Same value as oidc-core's: tokens are accepted from issuers `{PUBLIC_BASE_URL}/auth/{tenantId}` only. */
  PUBLIC_BASE_URL: urlEnv(),
  /** Key-encryption key sealing tenants' private signing keys; same value as oidc-core's. */
  KEY_ENCRYPTION_KEY: secretEnv(32),
  /** Key of the keyed SHA-256 digest of client secrets; same value as oidc-core's. */
  CLIENT_SECRET_PEPPER: secretEnv(32),
  /** Numeric id of the system tenant, whose admins reach every tenant. */
  SYSTEM_TENANT_ID: intEnv(1, 0),
  /** client_id of the first admin client of the system tenant. */
  BOOTSTRAP_ADMIN_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{3,64}$/)
    .default('bootstrap-admin'),
  /** Its secret (>= 32 chars), from a Kubernetes Secret. */
  BOOTSTRAP_ADMIN_CLIENT_SECRET: secretEnv(32),
  /** Trust X-Forwarded-* from the ingress. */
  TRUST_PROXY: boolEnv(false),
  /**
   * Where scheduled jobs run: `kubernetes` keeps the CronJobs in step through the Kubernetes API, `in-process`
   * schedules and spawns them here, `auto` picks kubernetes when KUBERNETES_SERVICE_HOST is set (in a pod).
   */
  JOBS_BACKEND: z.enum(['auto', 'kubernetes', 'in-process']).default('auto'),
  /** Namespace of the CronJobs (default: the pod's service-account namespace). */
  JOBS_K8S_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .max(63)
    .optional(),
  /** Name of the retention CronJob (the chart's, `nhe-audit-retention` unless prefixed). */
  JOBS_K8S_CRONJOB_NAME: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/)
    .max(52)
    .default('nhe-audit-retention'),
  /** Kubernetes API URL when not using the in-cluster service account (out-of-cluster runs, tests). */
  JOBS_K8S_API_URL: z.url().optional(),
  /** Bearer token for JOBS_K8S_API_URL. */
  JOBS_K8S_TOKEN: z.string().optional(),
  /**
   * Folder of the built admin console (console/dist; served under /auth/admin/console/). Default: console/dist of
   * this checkout or image (three levels above dist/main.js).
   */
  CONSOLE_DIR: z.string().min(1).optional(),
  /** Set by Kubernetes in every pod; used by JOBS_BACKEND=auto. */
  KUBERNETES_SERVICE_HOST: z.string().optional(),
});

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
