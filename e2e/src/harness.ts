/** Shared set-up of e2e test files: own database, own nats-server, the full topology, one seeded tenant. */
import { randomInt } from 'node:crypto';
import { connectDatabase, type Database } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase, seedDelegationTenant, startNatsServer, type RunningServer, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { browserlessLogin } from './clients/browserless-login';
import { startTopology, type Topology } from './topology';

export interface Harness {
  topology: Topology;
  nats: RunningServer;
  db: Database;
  tenant: SeededTenant;
  stop: () => Promise<void>;
}

export interface HarnessOptions {
  /** Extra environment of the oidc-core process (e.g. LOGOUT_PROMPT_SECONDS for a short countdown). */
  oidcEnv?: Record<string, string>;
  /** Extra environment of the nhe-delegation sidecar (e.g. ACTOR_JWKS_ALLOW_LOOPBACK for key sets served by the test). */
  sidecarEnv?: Record<string, string>;
  /** Public origin, router port and TLS of the topology (an https run as `npm start` makes it); default plain http on a free port. */
  publicBaseUrl?: string;
  routerPort?: number;
  tls?: { cert: string; key: string };
}

export async function startHarness(label: string, options: HarnessOptions = {}): Promise<Harness> {
  const testDb = await openTestDatabase(label);
  const nats = await startNatsServer();
  const topology = await startTopology({ mongoUri: testDb.uri, natsUrl: nats.url, stdio: process.env.E2E_LOGS ? 'inherit' : 'ignore', logLevel: process.env.E2E_LOGS ? 'info' : 'warn', extraEnv: options.oidcEnv || options.sidecarEnv ? { ...(options.oidcEnv ? { 'oidc-core': options.oidcEnv } : {}), ...(options.sidecarEnv ? { 'nhe-delegation': options.sidecarEnv } : {}) } : undefined, publicBaseUrl: options.publicBaseUrl, routerPort: options.routerPort, tls: options.tls });
  const db = await connectDatabase(testDb.uri, createLogger({ service: 'e2e', level: 'silent' }));
  await testDb.close();
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
  const tenant = await seedDelegationTenant(db.models, keyStore, {
    tenantId: randomInt(10_000, 1_000_000),
    tenantName: `e2e-${label}`,
    clientSecretPepper: topology.secrets.clientSecretPepper,
  });
  return {
    topology,
    nats,
    db,
    tenant,
    stop: async () => {
      await topology.stop();
      await nats.dispose();
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    },
  };
}

/** The seeded user's access token for the seeded resource server (authorization code + PKCE, by form posts). */
export async function seededUserToken(h: Harness): Promise<string> {
  const tokens = await browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    resource: h.tenant.resource,
  });
  return tokens.access_token;
}
