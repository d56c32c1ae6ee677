import { connectDatabase } from '@idp/db';
import { auditSubject, connectNats, publishAndAwaitAck } from '@idp/events';
import { listen, onShutdown } from '@idp/http';
import { createLogger } from '@idp/logger';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp } from './app';
import { readConfig } from './config';
import { cachedKeys } from './domain/key-cache';

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'nhe-delegation', level: config.LOG_LEVEL });
  const db = await connectDatabase(config.MONGODB_URI, logger, { appName: 'nhe-delegation' });
  const nats = await connectNats(config.NATS_URL, logger, 'nhe-delegation');
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(config.KEY_ENCRYPTION_KEY));
  const { app } = createApp({
    logger,
    models: db.models,
    sidecarSecret: config.SIDECAR_SECRET,
    issuerFor: (tenantId) => `${config.PUBLIC_BASE_URL}/auth/${tenantId}`,
    keysFor: cachedKeys(keyStore, config.KEY_CACHE_TTL_SECONDS * 1000),
    publishIssued: async (event) => {
      await publishAndAwaitAck(nats.js, auditSubject(event.tenantId), event, event.jti, config.AUDIT_PUBLISH_TIMEOUT_MS);
    },
    readiness: [
      { name: 'mongodb', check: db.ping },
      { name: 'nats', check: nats.ping },
    ],
  });
  const server = await listen(app, config.HOST, config.PORT, logger);
  onShutdown(logger, async () => {
    await server.close();
    await nats.close();
    await db.close();
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`nhe-delegation failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
