/**
 * `npm start`: the whole system on this machine. Starts the MongoDB-compatible store and NATS (unless
 * MONGODB_URI / NATS_URL are set), every service as its own process with its container environment, the dev
 * router (plain http on 127.0.0.1:8080 by default; https when PUBLIC_BASE_URL is https, see dev-config.ts),
 * creates a demo tenant, and prints credentials and curl commands. Ctrl-C stops everything.
 */
import { ConfigError } from '@idp/config';
import { randomBytes } from 'node:crypto';
import { connectDatabase, type Models } from '@idp/db';
import { createLogger } from '@idp/logger';
import { repoRoot, seedDelegationTenant } from '@idp/testing';
import { hashPassword, KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { banner } from './dev-banner';
import { readDevConfig } from './dev-config';
import { routerCertificate } from './dev-tls';
import { startHaTopology } from './ha/ha-topology';
import { startLocalInfra } from './local-infra';
import { startTopology } from './topology';

const DEMO_TENANT_ID = 1001;

async function main(): Promise<void> {
  const config = readDevConfig(process.env, repoRoot());
  const certificate = config.tls.kind === 'none' ? undefined : await routerCertificate(config.tls);
  const ha = config.topology === 'ha';
  const infra = await startLocalInfra(`idp_demo_${Date.now()}`, process.env, { natsCluster: ha });
  const mongoUri = infra.mongoUri;
  const natsUrl = infra.natsUrl;
  const common = { mongoUri, natsUrl, routerPort: config.listenPort, routerHost: config.bindAddress, publicBaseUrl: config.publicBaseUrl, logLevel: config.logLevel, stdio: 'inherit' as const };
  const topology = await (ha
    ? startHaTopology({ ...common, natsCluster: infra.natsCluster })
    : startTopology({ ...common, tls: certificate && { cert: certificate.cert, key: certificate.key } })
  ).catch(async (err: unknown) => {
    await infra.stop();
    throw err;
  });
  const stopAll = async () => {
    await topology.stop();
    await infra.stop();
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write('\nstopping every process...\n');
      void stopAll().then(() => process.exit(0));
    });
  }

  const db = await connectDatabase(mongoUri, createLogger({ service: 'dev', level: 'silent' }));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
  const demo = await seedDelegationTenant(db.models, keyStore, {
    tenantId: DEMO_TENANT_ID,
    tenantName: 'demo',
    clientSecretPepper: topology.secrets.clientSecretPepper,
  });
  const consoleAdmin = await ensureConsoleAdmin(db.models, topology.systemTenantId);
  await db.close();

  const listenHost = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  if (ha && 'replicas' in topology) {
    process.stdout.write(
      `\nHA topology: NATS_URL=${natsUrl}; replicas ${topology.replicas.map((r) => r.name).join(', ')} behind a round-robin router\n`,
    );
  }
  process.stdout.write(
    banner({
      baseUrl: topology.baseUrl,
      listen: `${certificate ? 'https' : 'http'}://${listenHost}:${config.listenPort}`,
      demo,
      admin: { clientId: topology.secrets.bootstrapAdminClientId, clientSecret: topology.secrets.bootstrapAdminClientSecret },
      certificate,
      tlsUpstream: !certificate && topology.baseUrl.startsWith('https:'),
      nodeVersion: process.versions.node,
      console: { systemTenantId: topology.systemTenantId, ...consoleAdmin },
    }),
  );
}

/**
 * A person who signs in to the admin console (issue 18): `console-admin` in the system tenant with the system-admin
 * role that management's bootstrap keeps, and a password made for this run (printed in the banner).
 */
async function ensureConsoleAdmin(models: Models, systemTenantId: number): Promise<{ username: string; password: string }> {
  const username = 'console-admin';
  const password = randomBytes(12).toString('base64url');
  const role = await models.Role.findOne({ tenantId: systemTenantId, name: 'system-admin' }, { _id: 1 }).lean<{ _id: unknown }>();
  await models.User.updateOne(
    { tenantId: systemTenantId, username },
    { $set: { passwordHash: await hashPassword(password), enabled: true, ...(role ? { roleIds: [String(role._id)] } : {}) }, $setOnInsert: { tenantId: systemTenantId, username, claims: { name: 'Console administrator' } } },
    { upsert: true },
  );
  return { username, password };
}

main().catch((err: unknown) => {
  const message = err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`start failed: ${message}\n`);
  process.exit(1);
});
