/** Set-up of the HA e2e tests: own database, a 3-node JetStream cluster, the HA topology, one seeded tenant. */
import { randomInt } from 'node:crypto';
import { connectDatabase, type Database } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import type { ServiceName } from '../topology';
import { startHaTopology, type HaTopology } from './ha-topology';
import { startNatsCluster, type NatsCluster } from './nats-cluster';

export interface HaHarness {
  topology: HaTopology;
  nats: NatsCluster;
  db: Database;
  tenant: SeededTenant;
  stop: () => Promise<void>;
}

export interface HaHarnessOptions {
  extraEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** How the cluster's last node can be cut off (nats-cluster.ts): in a network namespace where possible. */
  natsPartition?: 'netns' | 'routes';
}

export async function startHaHarness(label: string, options: HaHarnessOptions = {}): Promise<HaHarness> {
  const testDb = await openTestDatabase(label);
  const nats = await startNatsCluster({ partition: options.natsPartition ?? 'routes' });
  let topology: HaTopology;
  try {
    topology = await startHaTopology({
      mongoUri: testDb.uri,
      natsUrl: nats.url,
      natsCluster: nats,
      stdio: process.env.E2E_LOGS ? 'inherit' : 'ignore',
      logLevel: process.env.E2E_LOGS ? 'info' : 'warn',
      extraEnv: options.extraEnv,
    });
  } catch (err) {
    await nats.stop();
    throw err;
  }
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
      await nats.stop();
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    },
  };
}
