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
  BOOTSTRAP_ADMIN_CLIENT_ID: z.string().regex(/^[A-Za-z0-9._-]{3,64}$/).default('bootstrap-admin'),
  /** Its secret (>= 32 chars), from a Kubernetes Secret. */
  BOOTSTRAP_ADMIN_CLIENT_SECRET: secretEnv(32),
  /** Trust X-Forwarded-* from the ingress. */
  TRUST_PROXY: boolEnv(false),
});

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
