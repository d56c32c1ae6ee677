import { boolEnv, commonEnv, intEnv, loadConfig, secretEnv, urlEnv, z, type Env } from '@idp/config';

export const configSchema = z.object({
  ...commonEnv,
  /** Port of the transmitter's HTTP API (SSF metadata, stream management, poll) and health and metrics. */
  PORT: intEnv(3400, 0, 65535),
  /** Address to bind. */
  HOST: z.string().default('0.0.0.0'),
  /** Same value as oidc-core's: issuers are `{PUBLIC_BASE_URL}/auth/{tenantId}`. */
  PUBLIC_BASE_URL: urlEnv(),
  /** Key-encryption key sealing tenants' private signing keys (SETs are signed with the tenant's key); same value as oidc-core's. */
  KEY_ENCRYPTION_KEY: secretEnv(32),
  /** Trust X-Forwarded-* from one proxy hop (the ingress). */
  TRUST_PROXY: boolEnv(false),
  /** Replicas (1-5) of the IDP_REVOCATIONS stream that captures the kill-switch subjects (1 locally, 3 in the chart). */
  SSF_STREAM_REPLICAS: intEnv(1, 1, 5),
  /** Seconds between reconciliations of the fan-out against the persisted kill-switch entries (nhe_revocations). */
  SSF_RECONCILE_INTERVAL_SECONDS: intEnv(30, 1, 3600),
  /** Streams one receiver (client) may hold in its tenant. */
  SSF_MAX_STREAMS_PER_CLIENT: intEnv(5, 1, 100),
  /**
   * Seconds a poll stream lives without any request of its receiver (a poll, a read, an update), then is deleted with
   * its events (SSF 1.0 section 8.1.1 `inactivity_timeout`, reported in the stream configuration): a receiver that
   * crashed without deleting its stream frees its slot (SSF_MAX_STREAMS_PER_CLIENT).
   */
  SSF_STREAM_INACTIVITY_TIMEOUT_SECONDS: intEnv(900, 1, 30 * 24 * 3600),
  /** Events a poll returns at most (the receiver's maxEvents is capped to this). */
  SSF_POLL_MAX_EVENTS: intEnv(100, 1, 1000),
  /** Seconds a long poll (returnImmediately false) waits for events before answering an empty set. */
  SSF_POLL_WAIT_SECONDS: intEnv(15, 0, 55),
  /** Milliseconds between passes of the push worker over streams with events to deliver. */
  SSF_PUSH_INTERVAL_MS: intEnv(1000, 50, 60_000),
  /** Milliseconds one push request may take (connect to last byte). */
  SSF_PUSH_TIMEOUT_MS: intEnv(5000, 100, 60_000),
  /** Longest back-off, in seconds, between push attempts to a failing receiver. */
  SSF_PUSH_MAX_BACKOFF_SECONDS: intEnv(300, 1, 3600),
  /**
   * Allow push endpoints on loopback hosts, over http too (local development and tests). Never in production: a
   * receiver could aim the transmitter at the cluster's own services.
   */
  SSF_PUSH_ALLOW_LOOPBACK: boolEnv(false),
  /** Allow push endpoints that resolve to private-network addresses (a receiver inside the same network). */
  SSF_PUSH_ALLOW_PRIVATE_NETWORKS: boolEnv(false),
  /** Seconds tenant keys are cached in memory (rotation reaches SETs within this). */
  KEY_CACHE_TTL_SECONDS: intEnv(30, 0, 3600),
  /**
   * Seconds between reloads of the trusted issuers whose Shared Signals transmitters this service polls (revocation
   * across organisations); a change through the management API is also picked up at once (its invalidation event).
   */
  SSF_ISSUER_RELOAD_SECONDS: intEnv(30, 1, 3600),
  /** Kill-switch entries one trusted issuer's revocation may create here at most (one per token; more are logged). */
  SSF_ISSUER_MAX_ENTRIES_PER_EVENT: intEnv(1000, 1, 100_000),
  /**
   * DEVELOPMENT ONLY: trusted issuers' Shared Signals transmitters (and token endpoints, key sets) may be on loopback
   * hosts, over http too. Same key and meaning as oidc-core's: the operator's policy, no tenant setting can allow it.
   */
  UPSTREAM_ALLOW_LOOPBACK: boolEnv(false),
  /** Trusted issuers' transmitters may be on private-network addresses (RFC 1918, unique local, CGNAT); as oidc-core's. */
  UPSTREAM_ALLOW_PRIVATE_NETWORKS: boolEnv(false),
});

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
