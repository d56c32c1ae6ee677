/* Starts (or reuses) the MongoDB-compatible store for the whole jest run. NATS servers are started per test file
   that needs one (each file gets its own stream state). */
import { ensureTools, startFerretDb, type RunningServer } from './infra';

declare global {
  var __IDP_FERRETDB__: RunningServer | undefined;
}

export default async function globalSetup(): Promise<void> {
  ensureTools('ferretdb', 'nats-server');
  if (process.env.MONGODB_URI) {
    process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
    return;
  }
  const server = await startFerretDb();
  globalThis.__IDP_FERRETDB__ = server;
  process.env.TEST_MONGODB_URI = server.url;
}
