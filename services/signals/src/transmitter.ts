import { connectDatabase } from '@idp/db';
import { connectNats, REVOCATION_COLLECTION, revocationStore } from '@idp/events';
import { listen } from '@idp/http';
import type { Logger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { Gauge } from 'prom-client';
import { createApp } from './app';
import type { Config } from './config';
import { cachedSigningKeys } from './domain/set-signer';
import type { FanOutDeps } from './fan-out';
import { startIssuerReceivers, type IssuerReceivers } from './issuer-receivers';
import { outboundSsfFetch } from './outbound-fetch';
import { PollWaiters } from './poll';
import { startPushWorker } from './push-worker';
import { ensureRevocationFeed, handleRevocationMessages, reconcile, runRevocationConsumer } from './revocation-feed';
import { retryUntilDeadline } from './startup-retry';
import { collections, deleteInactiveStreams, ensureIndexes } from './store/collections';
import { tenantLookup } from './tenants';

export interface Transmitter {
  /** The bound HTTP port. */
  port: number;
  /** Stops every loop, closes the server and the connections (what SIGTERM does). */
  stop: () => Promise<void>;
  /** The receivers of trusted issuers' Shared Signals (revocation across organisations). */
  issuers: IssuerReceivers;
}

/**
 * Starts the whole transmitter: indexes, the revocation feed (JetStream stream and durable consumer), the HTTP API,
 * the push worker and the reconciliation. main.ts calls it; integration tests call it to start, stop and restart
 * the process's work against the same MongoDB and NATS.
 */
export async function startTransmitter(config: Config, logger: Logger): Promise<Transmitter> {
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'signals' });
  const c = collections(db.connection);
  await ensureIndexes(c);
  const nats = await connectNats(config.NATS_URL, logger, 'signals');
  const consumer = await retryUntilDeadline(() => ensureRevocationFeed(nats.nc, config.SSF_STREAM_REPLICAS), {
    deadlineMs: 60_000,
    onRetry: (err, attempt, pauseMs) =>
      logger.warn(
        { err: (err as Error).message, attempt, pauseMs },
        'revocation feed not ready (JetStream cluster starting?), trying again',
      ),
  });
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(config.KEY_ENCRYPTION_KEY));
  const store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const tenants = tenantLookup(db.models, keyStore, config.KEY_CACHE_TTL_SECONDS * 1000);
  const waiters = new PollWaiters();
  const stop = new AbortController();
  let wakePush = () => undefined as void;
  const fanOut: FanOutDeps = {
    c,
    signingKey: cachedSigningKeys(keyStore, config.KEY_CACHE_TTL_SECONDS * 1000),
    issuerFor: (tenantId) => `${config.PUBLIC_BASE_URL}/auth/${tenantId}`,
    notify: (ids) => {
      waiters.notify(ids);
      wakePush();
    },
  };
  const pushPolicy = {
    allowLoopback: config.SSF_PUSH_ALLOW_LOOPBACK,
    allowPrivateNetworks: config.SSF_PUSH_ALLOW_PRIVATE_NETWORKS,
  };
  const { app, registry, onWritten, onPush } = createApp({
    logger,
    trustProxy: config.TRUST_PROXY,
    readiness: [
      { name: 'mongodb', check: db.ping },
      { name: 'nats', check: nats.ping },
    ],
    publicBaseUrl: config.PUBLIC_BASE_URL,
    tenantJwks: tenants.jwks,
    tenantExists: tenants.exists,
    c,
    fanOut,
    store,
    pushPolicy,
    maxStreamsPerClient: config.SSF_MAX_STREAMS_PER_CLIENT,
    inactivityTimeoutSeconds: config.SSF_STREAM_INACTIVITY_TIMEOUT_SECONDS,
    pollMaxEvents: config.SSF_POLL_MAX_EVENTS,
    pollWaitMs: config.SSF_POLL_WAIT_SECONDS * 1000,
    waiters,
  });
  const server = await listen(app, config.HOST, config.PORT, logger);

  const push = startPushWorker(
    {
      c,
      logger,
      policy: pushPolicy,
      timeoutMs: config.SSF_PUSH_TIMEOUT_MS,
      maxBackoffSeconds: config.SSF_PUSH_MAX_BACKOFF_SECONDS,
      onOutcome: onPush,
    },
    config.SSF_PUSH_INTERVAL_MS,
    stop.signal,
  );
  wakePush = push.wake;
  const consumerLoop = runRevocationConsumer(
    consumer,
    (msgs) => handleRevocationMessages({ ...fanOut, logger, onWritten }, msgs),
    logger,
    stop.signal,
  );
  const reconcileOnce = async () => {
    try {
      onWritten(await reconcile({ ...fanOut, store }));
      await c.events.deleteMany({ expiresAt: { $lte: new Date() } });
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'reconciliation failed; next pass retries');
    }
  };
  await reconcileOnce();
  const reconciler = setInterval(() => void reconcileOnce(), config.SSF_RECONCILE_INTERVAL_SECONDS * 1000);
  reconciler.unref();
  // SSF 1.0 inactivity_timeout: a crashed receiver's poll stream is deleted, so its slot is free again.
  const inactivity = config.SSF_STREAM_INACTIVITY_TIMEOUT_SECONDS;
  const sweepInactive = async () => {
    try {
      const deleted = await deleteInactiveStreams(c, inactivity);
      if (deleted) logger.info({ deleted, inactivityTimeoutSeconds: inactivity }, 'inactive poll streams deleted');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'deleting inactive streams failed; next pass retries');
    }
  };
  const sweeper = setInterval(() => void sweepInactive(), Math.min(60, Math.max(1, inactivity / 4)) * 1000);
  sweeper.unref();

  const issuers = startIssuerReceivers({
    models: db.models,
    connection: db.connection,
    nc: nats.nc,
    store,
    kek: keyStore.kek,
    logger,
    fetch: outboundSsfFetch({
      policy: {
        allowLoopback: config.UPSTREAM_ALLOW_LOOPBACK,
        allowPrivateNetworks: config.UPSTREAM_ALLOW_PRIVATE_NETWORKS,
      },
    }),
    maxEntriesPerEvent: config.SSF_ISSUER_MAX_ENTRIES_PER_EVENT,
    reloadIntervalMs: config.SSF_ISSUER_RELOAD_SECONDS * 1000,
  });

  // A subscription that keeps failing (the issuer unreachable, its stream limit reached) receives no revocation: say so.
  new Gauge({
    name: 'signals_issuer_subscriptions',
    help: "Trusted issuers' Shared Signals subscriptions by state (ok: last poll succeeded; failing: last attempt failed)",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const all = issuers.status();
      const failing = all.filter((s) => s.failing).length;
      this.set({ state: 'ok' }, all.length - failing);
      this.set({ state: 'failing' }, failing);
    },
  });

  let stopped: Promise<void> | undefined;
  const stopAll = async () => {
    stop.abort();
    clearInterval(reconciler);
    clearInterval(sweeper);
    await issuers.stop();
    await server.close();
    await Promise.all([consumerLoop, push.done]);
    await nats.close();
    await db.close();
  };
  return { port: server.port, stop: () => (stopped ??= stopAll()), issuers };
}
