import { boolEnv, commonEnv, intEnv, loadConfig, secretEnv, urlEnv, z, type Env } from '@idp/config';

export const configSchema = z.object({
  ...commonEnv,
  /** Address to bind. */
  HOST: z.string().default('0.0.0.0'),
  /** Port to listen on (0 picks a free one). */
  PORT: intEnv(3000, 0, 65535),
  /** Public origin users reach the service at (scheme://host[:port], no path); issuers are `{PUBLIC_BASE_URL}/auth/{tenantId}`, and every endpoint URL and DPoP `htu` is built on it, never on Host or X-Forwarded-Host. */
  PUBLIC_BASE_URL: urlEnv().refine(
    isOrigin,
    'must be an http(s) origin (scheme://host[:port]) without path, query, fragment or credentials: the service routes from /',
  ),
  /** Key-encryption key sealing tenants' private signing keys (>= 32 chars). */
  KEY_ENCRYPTION_KEY: secretEnv(32),
  /** Key of the keyed SHA-256 digest of client secrets (>= 32 chars); shared with management. */
  CLIENT_SECRET_PEPPER: secretEnv(32),
  /** Comma-separated cookie signing keys, newest first (each >= 32 chars). */
  COOKIE_KEYS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().min(32, 'each cookie key must be at least 32 characters')).min(1)),
  /** URL of the nhe-delegation sidecar on loopback. */
  SIDECAR_URL: urlEnv().default('http://127.0.0.1:3100'),
  /** Shared secret oidc-core presents to the sidecar (>= 32 chars). */
  SIDECAR_SECRET: secretEnv(32),
  /** Trust X-Forwarded-For (the client address) and X-Forwarded-Proto (our pages' cookies) from the ingress. Enable only behind a proxy that overwrites them. URLs never follow forwarded headers. */
  TRUST_PROXY: boolEnv(false),
  /** With TRUST_PROXY: how many proxies in front of the service append to X-Forwarded-For (1: the ingress controller; 2: a load balancer that appends too, in front of it). The client address is the entry that many places from the right, never one the client wrote; every per-address limit and audit row uses it. */
  TRUST_PROXY_HOPS: intEnv(1, 1, 10),
  /** Most tenants whose providers stay in memory at once. */
  TENANT_POOL_SIZE: intEnv(500, 1),
  /** Seconds before a cached tenant provider is rebuilt from the database. */
  TENANT_CACHE_TTL_SECONDS: intEnv(60, 1),
  /** Seconds the logout confirmation page counts down before signing out by itself (spec default 30). */
  LOGOUT_PROMPT_SECONDS: intEnv(30, 1, 3600),
  /** Failed sign-ins (password or TOTP) per account name within LOGIN_FAILURE_WINDOW_SECONDS before it is locked. */
  LOGIN_MAX_FAILURES_PER_ACCOUNT: intEnv(5, 1),
  /** Failed sign-ins per client IP address (per tenant) within the window before that address is locked. */
  LOGIN_MAX_FAILURES_PER_IP: intEnv(50, 1),
  /** Sliding window of the failed sign-in limits, in seconds; a lock ends when old failures leave the window. */
  LOGIN_FAILURE_WINDOW_SECONDS: intEnv(900, 1, 86_400),
  /** Worker threads running customizeUserInfoClaims scripts; 0 = from the CPU count (os.availableParallelism(), 2 to 16). */
  CUSTOM_CLAIMS_POOL_SIZE: intEnv(0, 0, 256),
  /** Scripts of one tenant running at once; 0 = half the pool (at least 1), so one tenant never holds every worker. */
  CUSTOM_CLAIMS_MAX_RUNNING_PER_TENANT: intEnv(0, 0, 256),
  /** Scripts of one tenant waiting for a worker; beyond it that tenant's UserInfo answers without custom_claims. */
  CUSTOM_CLAIMS_MAX_QUEUED_PER_TENANT: intEnv(100, 0, 10_000),
  /** Timeouts or memory failures in a row after which a client's script is skipped (its circuit breaker opens). */
  CUSTOM_CLAIMS_BREAKER_FAILURES: intEnv(5, 1, 1000),
  /** Seconds a script is skipped the first time its breaker opens; doubled at each failed retry, up to 10 minutes. */
  CUSTOM_CLAIMS_BREAKER_OPEN_SECONDS: intEnv(30, 1, 3600),
  /** Requests of one tenant handled at once by this process (every route under /auth/{tenantId} and /_api/auth/{tenantId}) while other tenants are active in it (one had a request within the last second); its further requests wait in the tenant's own FIFO queue, so one tenant's flood cannot crowd out the others. */
  TENANT_MAX_IN_FLIGHT: intEnv(2, 1, 10_000),
  /** Requests of one tenant handled at once while it is the only tenant active in this process (at least TENANT_MAX_IN_FLIGHT): room for one tenant's full throughput, and a bound on what another tenant's first request waits beside. */
  TENANT_MAX_IN_FLIGHT_ALONE: intEnv(32, 1, 10_000),
  /** Requests of one tenant waiting for a slot; one more is answered 503 temporarily_unavailable with Retry-After. */
  TENANT_MAX_QUEUED: intEnv(512, 0, 100_000),
  /** Requests of one tenant waiting on outbound fetches at once (away from their admission slots); one more is refused at once with invalid_client "try again later". A request whose fetch is over takes its slot back at once, so this also bounds how far above TENANT_MAX_IN_FLIGHT a tenant can briefly be. */
  TENANT_MAX_AWAY: intEnv(16, 0, 10_000),
  /** Outbound fetches (Client ID Metadata Documents, clients' jwks_uri) of one tenant in flight at once in this process; one more is refused at once with invalid_client "try again later". A request waiting on a fetch holds none of its tenant's admission slots. */
  OUTBOUND_FETCH_MAX_IN_FLIGHT_PER_TENANT: intEnv(4, 1, 1000),
  /** DEVELOPMENT ONLY: outbound fetches (Client ID Metadata Documents, clients' jwks_uri) may reach loopback hosts, over http too, for every tenant. An operator's choice: no tenant setting can allow it. */
  CIMD_ALLOW_LOOPBACK: boolEnv(false),
  /** DEVELOPMENT ONLY: upstream identity providers (sign-in through OpenID Connect or SAML 2.0) may be on loopback hosts, over http too. An operator's choice: no tenant setting can allow it. */
  UPSTREAM_ALLOW_LOOPBACK: boolEnv(false),
  /** Upstream identity providers may be on private-network addresses (RFC 1918, unique local, CGNAT): an identity provider inside the cluster or reached over a private link. An operator's choice: no tenant setting can allow it. */
  UPSTREAM_ALLOW_PRIVATE_NETWORKS: boolEnv(false),
});

/** An http(s) URL that is an origin only (what urlEnv leaves once trailing slashes are dropped). */
function isOrigin(value: string): boolean {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  return (
    (u.protocol === 'http:' || u.protocol === 'https:') &&
    u.pathname === '/' &&
    !u.search &&
    !u.hash &&
    !u.username &&
    !u.password &&
    !/[?#]/.test(value)
  );
}

export type Config = z.infer<typeof configSchema>;

export const readConfig = (env: Env = process.env): Config => loadConfig(configSchema, env);
