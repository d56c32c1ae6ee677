import { connectDatabase } from '@idp/db';
import { listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp } from './app';
import { readConfig } from './config';
import { bootstrapSystemTenant } from './domain/bootstrap';
import { tenantKeyLookup } from './auth/tenant-keys';

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
  const { app } = createApp({
    logger,
    models: db.models,
    trustProxy: config.TRUST_PROXY,
    bearer: { publicBaseUrl: config.PUBLIC_BASE_URL, tenantKeys: tenantKeyLookup(db.models, keyStore, 30_000) },
    readiness: [{ name: 'mongodb', check: db.ping }],
  });
  const server = await listen(app, config.HOST, config.PORT, logger);
  onShutdown(logger, async () => {
    await server.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`management failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
