import { connectDatabase } from '@idp/db';
import { loadDelegationFacts } from '@idp/delegation';
import {
  auditSubject,
  connectNats,
  ensureSingleUseStream,
  jetStreamSingleUseStore,
  onNatsStatus,
  publishAndAwaitAck,
  refusalSubject,
  REVOCATION_COLLECTION,
  type NheTokenRefused,
  revocationStore,
  subscribeInvalidations,
  subscribeRevocations,
} from '@idp/events';
import { disablePretenuring, listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp } from './app';
import { readConfig } from './config';
import { cachedKeys } from './domain/key-cache';
import { factsCache } from './domain/facts-cache';
import { grantCache } from './domain/grant-cache';
import { grantReader } from './domain/subject-grant';
import { actorDirectory } from './domain/actor-directory';
import { tenantEnabledLookup } from './domain/tenant-enabled';
import { safeJwksFetcher } from './domain/jwks-fetch';

async function main(): Promise<void> {
  disablePretenuring();
  const config = readConfig();
  const logger = createLogger({ service: 'nhe-delegation', level: config.LOG_LEVEL });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'nhe-delegation' });
  const nats = await connectNats(config.NATS_URL, logger, 'nhe-delegation');
  // Actor tokens' jti (single use): kept until the token could no longer pass (exp - iat <= 300 s, 30 s of skew
  // each side, 60 s more), well within the stream's max_age.
  const jtiMaxAgeSeconds = 600;
  // Created or updated before listening, retried in the background when that fails (a JetStream cluster still
  // electing its leader): until then an exchange with an actor JWT answers 503 (no stream, no check), the others
  // are unaffected, and the sidecar starts anyway (at most 5 s later).
  let stopping = false;
  if (config.ACTOR_JTI_STORE === 'jetstream') {
    const ensured = (async () => {
      for (let attempt = 1; !stopping; attempt++) {
        try {
          await ensureSingleUseStream(nats.nc, {
            replicas: config.ACTOR_JTI_STREAM_REPLICAS,
            maxAgeSeconds: jtiMaxAgeSeconds,
          });
          return;
        } catch (err) {
          logger.warn(
            { err: (err as Error | undefined)?.message, attempt },
            "the IDP_SINGLE_USE stream (actor tokens' jti) could not be created yet; retrying",
          );
          await new Promise((r) => setTimeout(r, Math.min(5000, 500 * attempt)).unref());
        }
      }
    })();
    await Promise.race([ensured, new Promise((r) => setTimeout(r, 5000).unref())]);
  }
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(config.KEY_ENCRYPTION_KEY));
  const facts = factsCache((r) => loadDelegationFacts(db.models, r), config.FACTS_CACHE_TTL_MS);
  const grants = grantCache(grantReader(db.models), config.GRANT_CACHE_TTL_MS);
  const keys = cachedKeys(keyStore, config.KEY_CACHE_TTL_SECONDS * 1000);
  const actors = actorDirectory(db.models, {
    fetchJwks: safeJwksFetcher({
      policy: {
        allowLoopback: config.ACTOR_JWKS_ALLOW_LOOPBACK,
        allowPrivateNetworks: config.ACTOR_JWKS_ALLOW_PRIVATE_NETWORKS,
      },
    }),
    ttlMs: config.FACTS_CACHE_TTL_MS,
    jwksTtlMs: config.ACTOR_JWKS_CACHE_SECONDS * 1000,
  });
  const tenantEnabled = tenantEnabledLookup(db.models, config.FACTS_CACHE_TTL_MS);
  const invalid = (err: unknown) =>
    logger.warn({ err: (err as Error | undefined)?.message }, 'invalid invalidation/revocation message ignored');
  const subs = [
    subscribeInvalidations(
      nats.nc,
      (e) => {
        // A grant that ended concerns only the grant cache; any other change drops the tenant's cached grants too.
        if (e.kind === 'grant') {
          grants.invalidate(e.tenantId, e.id);
          return;
        }
        grants.invalidate(e.tenantId);
        facts.invalidateTenant(e.tenantId);
        actors.invalidateTenant(e.tenantId);
        if (e.kind === 'tenant') tenantEnabled.invalidate(e.tenantId);
        if (e.kind === 'keys' || e.kind === 'tenant') keys.invalidate(e.tenantId);
      },
      { onInvalid: invalid },
    ),
    subscribeRevocations(nats.nc, (e) => facts.invalidateTenant(e.tenantId), { onInvalid: invalid }),
  ];
  // Invalidations published while the connection was down are lost: start over.
  onNatsStatus(nats.nc, ['reconnect', 'disconnect'], () => {
    facts.clear();
    grants.clear();
    actors.clear();
    tenantEnabled.invalidate();
  });
  // Expired kill-switch entries are removed here (FerretDB has no TTL index; readers ignore expired rows anyway).
  const revocations = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const pruner = setInterval(() => {
    revocations
      .prune()
      .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'pruning expired revocations failed'));
  }, 10 * 60_000);
  pruner.unref();
  const { listener } = createApp({
    logger,
    models: db.models,
    sidecarSecret: config.SIDECAR_SECRET,
    issuerFor: (tenantId) => `${config.PUBLIC_BASE_URL}/auth/${tenantId}`,
    keysFor: keys,
    loadFacts: facts.load,
    readGrant: grants.read,
    actors,
    tenantEnabled,
    ...(config.ACTOR_JTI_STORE === 'jetstream'
      ? {
          actorJtiStore: (tenantId: number) =>
            jetStreamSingleUseStore(nats.js, {
              kind: 'actor-jti',
              tenantId,
              maxAgeSeconds: jtiMaxAgeSeconds,
              timeoutMs: config.AUDIT_PUBLISH_TIMEOUT_MS,
            }),
        }
      : {}),
    publishIssued: async (event) => {
      await publishAndAwaitAck(
        nats.js,
        auditSubject(event.tenantId),
        event,
        event.jti,
        config.AUDIT_PUBLISH_TIMEOUT_MS,
      );
    },
    // The decision log's refusals: fire-and-forget on their own bounded stream (IDP_REFUSALS) (app.ts bounds what is in flight).
    ...(config.REFUSAL_EVENTS_MAX_IN_FLIGHT > 0
      ? {
          publishRefusal: async (event: NheTokenRefused) => {
            await publishAndAwaitAck(
              nats.js,
              refusalSubject(event.tenantId),
              event,
              event.id,
              config.AUDIT_PUBLISH_TIMEOUT_MS,
            );
          },
          refusalMaxInFlight: config.REFUSAL_EVENTS_MAX_IN_FLIGHT,
        }
      : {}),
    readiness: [
      { name: 'mongodb', check: db.ping },
      { name: 'nats', check: nats.ping },
    ],
  });
  const server = await listen(listener, config.HOST, config.PORT, logger);
  onShutdown(logger, async () => {
    stopping = true;
    await server.close();
    clearInterval(pruner);
    for (const sub of subs) sub.unsubscribe();
    await nats.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`nhe-delegation failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
