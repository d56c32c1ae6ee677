import { connectDatabase } from '@idp/db';
import { connectNats, REVOCATION_COLLECTION, revocationStore, type NatsHandle } from '@idp/events';
import { disablePretenuring, listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp } from './app';
import { grantEndedPublisher, ledgerRevoker, userInvalidator } from './account/revoke';
import { cibaRequestedSubject } from './provider/ciba';
import { LoginThrottle } from './domain/login-throttle';
import { readConfig } from './config';
import { sidecarForwarder } from './provider/grants/sidecar-forwarder';
import { CustomClaimsRunner } from './provider/claims-custom';
import { ScriptStateWriter } from './provider/custom-claims-state';
import { CustomClaimsSandbox } from './domain/custom-claims-sandbox';
import { evictOnInvalidation } from './tenants/invalidation';
import { TenantPool } from './tenants/tenant-pool';

async function main(): Promise<void> {
  disablePretenuring();
  const config = readConfig();
  const logger = createLogger({ service: 'oidc-core', level: config.LOG_LEVEL });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'oidc-core' });
  const kek = new KeyEncryptionKey(config.KEY_ENCRYPTION_KEY);
  const keyStore = new KeyStore(db.models, kek);
  // One sandbox pool for every tenant, scheduled fairly per tenant, with a circuit breaker per client script.
  const customClaims = new CustomClaimsRunner({
    sandbox: new CustomClaimsSandbox({
      size: config.CUSTOM_CLAIMS_POOL_SIZE || undefined,
      maxRunningPerTenant: config.CUSTOM_CLAIMS_MAX_RUNNING_PER_TENANT || undefined,
      maxQueuedPerTenant: config.CUSTOM_CLAIMS_MAX_QUEUED_PER_TENANT,
    }),
    breaker: {
      failureThreshold: config.CUSTOM_CLAIMS_BREAKER_FAILURES,
      openMs: config.CUSTOM_CLAIMS_BREAKER_OPEN_SECONDS * 1000,
    },
    state: new ScriptStateWriter(db.models, { log: logger }),
    log: logger,
  });
  // The ledger's and the adapter's NATS publishes go through the connection made below, once it is up.
  let nats: NatsHandle | undefined;
  const pool = new TenantPool({
    models: db.models,
    keyStore,
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    cookieKeys: config.COOKIE_KEYS,
    clientSecretPepper: config.CLIENT_SECRET_PEPPER,
    forwardTokenExchange: sidecarForwarder(config.SIDECAR_URL, config.SIDECAR_SECRET, logger),
    trustProxy: config.TRUST_PROXY,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    maxTenants: config.TENANT_POOL_SIZE,
    ttlMs: config.TENANT_CACHE_TTL_SECONDS * 1000,
    negativeTtlMs: 5000,
    logoutPromptSeconds: config.LOGOUT_PROMPT_SECONDS,
    customClaims,
    upstreamPolicy: {
      allowLoopback: config.UPSTREAM_ALLOW_LOOPBACK,
      allowPrivateNetworks: config.UPSTREAM_ALLOW_PRIVATE_NETWORKS,
    },
    outbound: {
      allowLoopback: config.CIMD_ALLOW_LOOPBACK,
      maxInFlightPerTenant: config.OUTBOUND_FETCH_MAX_IN_FLIGHT_PER_TENANT,
    },
    // A new backchannel authentication request (CIBA): a core NATS message for notifiers; never waited for.
    cibaNotify: (event) => {
      try {
        nats?.nc.publish(cibaRequestedSubject(event.tenantId), JSON.stringify(event));
      } catch (err) {
        logger.warn({ err, tenantId: event.tenantId }, 'ciba: notification not published');
      }
    },
    grantEnded: grantEndedPublisher(
      () => nats?.nc,
      (err) => logger.warn({ err }, 'grant invalidation not published; sidecar grant caches expire it'),
    ),
  });
  const loginThrottle = new LoginThrottle(db.models, {
    maxFailuresPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
  });
  // The user's ledger revokes through the kill switch (store, then NATS once connected below).
  const revocations = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const { listener } = createApp({
    logger,
    models: db.models,
    tenants: pool,
    trustProxy: config.TRUST_PROXY,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    readiness: [{ name: 'mongodb', check: db.ping }],
    kek,
    loginThrottle,
    upstreamPolicy: {
      allowLoopback: config.UPSTREAM_ALLOW_LOOPBACK,
      allowPrivateNetworks: config.UPSTREAM_ALLOW_PRIVATE_NETWORKS,
    },
    admission: {
      maxInFlight: config.TENANT_MAX_IN_FLIGHT,
      maxInFlightAlone: config.TENANT_MAX_IN_FLIGHT_ALONE,
      maxQueued: config.TENANT_MAX_QUEUED,
      maxAway: config.TENANT_MAX_AWAY,
    },
    account: {
      revocations,
      revoke: ledgerRevoker({ nc: () => nats?.nc, store: revocations }),
      invalidateUser: userInvalidator(() => nats?.nc),
    },
  });
  // Configuration changes made by the management API evict the tenant at once; without NATS the pool's TTL applies.
  try {
    nats = await connectNats(config.NATS_URL, logger, 'oidc-core');
    evictOnInvalidation(nats.nc, pool, logger);
  } catch (err) {
    logger.warn(
      { err: (err as Error).message },
      'NATS unavailable: tenant configuration changes apply after TENANT_CACHE_TTL_SECONDS',
    );
  }
  const server = await listen(listener, config.HOST, config.PORT, logger);
  // Backstop for stores without TTL indexes (FerretDB): expired provider records are removed every minute.
  // Readers already ignore expired records, so this only bounds storage.
  const sweeper = setInterval(() => {
    db.models.OidcPayload.deleteMany({ expiresAt: { $lt: new Date() } }).catch((err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'sweep failed'),
    );
    loginThrottle
      .sweep()
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'login throttle sweep failed'));
  }, 60_000);
  sweeper.unref();
  onShutdown(logger, async () => {
    clearInterval(sweeper);
    await server.close();
    await customClaims.close();
    await nats?.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  // Configuration errors are the common case: print them plainly (no stack) and exit non-zero.
  process.stderr.write(`oidc-core failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
