import { join } from 'node:path';
import { connectDatabase } from '@idp/db';
import { connectNats, REVOCATION_COLLECTION, revocationStore, type NatsHandle } from '@idp/events';
import { listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp } from './app';
import { readConfig } from './config';
import { bootstrapSystemTenant } from './domain/bootstrap';
import { invalidationPublisher, revocationPublisher } from './domain/kill-switch';
import { tenantKeyLookup } from './auth/tenant-keys';
import { createJobRunner } from './jobs/backend';
import { counterTickClaim } from './jobs/tick-claim';
import { createJobService } from './jobs/service';
import { consoleRedirectUris, ensureConsoleClients } from './console/console-client';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'management', level: config.LOG_LEVEL });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'management' });
  await db.syncIndexes();
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(config.KEY_ENCRYPTION_KEY));
  await bootstrapSystemTenant(db.models, keyStore, {
    systemTenantId: config.SYSTEM_TENANT_ID,
    adminClientId: config.BOOTSTRAP_ADMIN_CLIENT_ID,
    adminClientSecret: config.BOOTSTRAP_ADMIN_CLIENT_SECRET,
    clientSecretPepper: config.CLIENT_SECRET_PEPPER,
  });
  // The admin console's client in every tenant (tenants from before the console; a changed PUBLIC_BASE_URL).
  await ensureConsoleClients(db.models, consoleRedirectUris(config.PUBLIC_BASE_URL));
  // NATS carries configuration invalidations and the NHE token kill switch. Without it management still works:
  // caches expire by TTL, and revocations are only persisted (verifiers reload them from MongoDB).
  let nats: NatsHandle | undefined;
  try {
    nats = await connectNats(config.NATS_URL, logger, 'management');
  } catch (err) {
    logger.warn(
      { err: (err as Error).message },
      'NATS unavailable: no invalidation events (caches expire by TTL); revocations persisted only',
    );
  }
  const jobRunner = await createJobRunner(config, logger, counterTickClaim(db.models));
  const jobs = createJobService({ models: db.models, runner: jobRunner, logger });
  await jobs.start();
  const store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const nc = nats?.nc;
  const { app } = createApp({
    logger,
    models: db.models,
    trustProxy: config.TRUST_PROXY,
    keyStore,
    clientSecretPepper: config.CLIENT_SECRET_PEPPER,
    bearer: { publicBaseUrl: config.PUBLIC_BASE_URL, tenantKeys: tenantKeyLookup(db.models, keyStore, 30_000) },
    readiness: [{ name: 'mongodb', check: db.ping }],
    jobs,
    bootstrapAdmin: { tenantId: config.SYSTEM_TENANT_ID, clientId: config.BOOTSTRAP_ADMIN_CLIENT_ID },
    console: {
      dir: config.CONSOLE_DIR ?? join(__dirname, '..', '..', '..', 'console', 'dist'),
      systemTenantId: config.SYSTEM_TENANT_ID,
    },
    ...(nc ? { publishInvalidation: invalidationPublisher(nc) } : {}),
    revoke: revocationPublisher({ ...(nc ? { nc } : {}), store, logger }),
  });
  const server = await listen(app, config.HOST, config.PORT, logger);
  onShutdown(logger, async () => {
    await server.close();
    await jobRunner.close();
    await nats?.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`management failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
