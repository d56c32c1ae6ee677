import { boolEnv, commonEnv, intEnv, loadConfig, secretEnv, urlEnv, z, type Env } from '@idp/config';

export const configSchema = z.object({
  ...commonEnv,
  /** Loopback address to bind; the sidecar refuses any other. */
  HOST: z
    .enum(['127.0.0.1', '::1'], { message: 'the sidecar binds to loopback only (127.0.0.1 or ::1)' })
    .default('127.0.0.1'),
  /** Port on loopback. */
  PORT: intEnv(3100, 0, 65535),
  /** Same value as oidc-core's: issuers are `{PUBLIC_BASE_URL}/auth/{tenantId}`. */
  PUBLIC_BASE_URL: urlEnv(),
  /** Key-encryption key sealing tenants' private signing keys; same value as oidc-core's. */
  KEY_ENCRYPTION_KEY: secretEnv(32),
  /** Secret oidc-core presents on every call. */
  SIDECAR_SECRET: secretEnv(32),
  /** Milliseconds to wait for JetStream's ack of the audit event before answering 503. */
  AUDIT_PUBLISH_TIMEOUT_MS: intEnv(3000, 100, 60_000),
  /**
   * Refusals of the decision log published to JetStream at once (fire-and-forget, never awaited by a response);
   * past it new ones are dropped and counted in nhe_refusal_events_dropped_total. 0 publishes none.
   */
  REFUSAL_EVENTS_MAX_IN_FLIGHT: intEnv(256, 0, 10_000),
  /** Seconds tenant keys are cached in memory. */
  KEY_CACHE_TTL_SECONDS: intEnv(30, 0, 3600),
  /** Milliseconds the delegation facts are cached (dropped at once by NATS invalidations and revocations); 0 = off. */
  FACTS_CACHE_TTL_MS: intEnv(5000, 0, 60_000),
  /**
   * Milliseconds a subject token's grant lookup is kept (domain/grant-cache.ts); 0 (the default) reads the grant on
   * every exchange. With a TTL, a grant that ends is refused once its invalidation arrives (at once), and within the
   * TTL if that event is lost.
   */
  GRANT_CACHE_TTL_MS: intEnv(0, 0, 60_000),
  /** Seconds a fetched JWK Set (an NHE's jwks_uri, a workload issuer's) is kept, for actor tokens. */
  ACTOR_JWKS_CACHE_SECONDS: intEnv(300, 0, 86_400),
  /** Fetch JWK Sets from private-network addresses (RFC 1918, ULA): an in-cluster issuer such as the Kubernetes API server. */
  ACTOR_JWKS_ALLOW_PRIVATE_NETWORKS: boolEnv(false),
  /** Fetch JWK Sets from loopback, over http too: local development and tests only. */
  ACTOR_JWKS_ALLOW_LOOPBACK: boolEnv(false),
  /**
   * Where the single-use `jti` of actor tokens is recorded (shared by every replica): `jetstream` (a create-only
   * write to the IDP_SINGLE_USE stream over the connection the audit events already use) or `mongodb` (a unique
   * insert into oidc_payloads, as the DPoP proof replay cache).
   */
  ACTOR_JTI_STORE: z.enum(['jetstream', 'mongodb']).default('jetstream'),
  /** Replicas of the IDP_SINGLE_USE stream (as AUDIT_STREAM_REPLICAS: 3 on a 3-node JetStream cluster). */
  ACTOR_JTI_STREAM_REPLICAS: intEnv(1, 1, 5),
});

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
