/**
 * `npm start`: the whole system on this machine. Starts the MongoDB-compatible store and NATS (unless
 * MONGODB_URI / NATS_URL are set), every service as its own process with its container environment, the dev
 * router (plain http on 127.0.0.1:8080 by default; https when PUBLIC_BASE_URL is https, see dev-config.ts),
 * creates a demo tenant, runs the sample MCP server and Orders API beside it (demo/mcp-demo.ts), and prints
 * credentials and the demo's commands. Ctrl-C stops everything.
 */
import { ConfigError } from '@idp/config';
import { randomBytes } from 'node:crypto';
import { connectDatabase, type Models } from '@idp/db';
import { createLogger } from '@idp/logger';
import { repoRoot, seedDelegationTenant } from '@idp/testing';
import { hashPassword, KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { banner } from './dev-banner';
import { demoOidcCoreEnv, startMcpDemo, type McpDemo } from './demo/mcp-demo';
import { readDevConfig } from './dev-config';
import { routerCertificate } from './dev-tls';
import { startHaTopology } from './ha/ha-topology';
import { startLocalInfra, type LocalInfra } from './local-infra';
import { startTopology } from './topology';

const DEMO_TENANT_ID = 1001;
/** Where the demo application (at 127.0.0.1:8400, like its redirect URI) gets the browser back after sign-out. */
const DEMO_POST_LOGOUT_REDIRECT_URI = 'http://127.0.0.1:8400/signed-out';

async function main(): Promise<void> {
  const config = readDevConfig(process.env, repoRoot());
  const certificate = config.tls.kind === 'none' ? undefined : await routerCertificate(config.tls);
  const ha = config.topology === 'ha';
  // What is running, stopped in the reverse order of its start (sample APIs, services, then the store and NATS);
  // each is set once it has started, so a signal during start-up stops only what has.
  const running: {
    infra?: LocalInfra;
    topology?: Awaited<ReturnType<typeof startTopology>> | Awaited<ReturnType<typeof startHaTopology>>;
    mcpDemo?: McpDemo;
  } = {};
  let stopping = false;
  const stopAll = async () => {
    await running.mcpDemo?.stop();
    await running.topology?.stop();
    await running.infra?.stop();
  };
  // Handled from the start: what we start is out of the terminal's process group, so a signal that killed us would
  // leave it running. A signal during start-up stops what has started (anything starting then is killed as we
  // exit); a second Ctrl-C while stopping does not cut the stop short. SIGHUP: the terminal closed.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stdout.write('\nstopping every process...\n');
      void stopAll().finally(() => process.exit(0));
    });
  }

  const infra = await startLocalInfra(`idp_demo_${Date.now()}`, process.env, {
    natsCluster: ha,
    ownProcessGroup: true,
  });
  running.infra = infra;
  const mongoUri = infra.mongoUri;
  const natsUrl = infra.natsUrl;
  const common = {
    mongoUri,
    natsUrl,
    routerPort: config.listenPort,
    routerHost: config.bindAddress,
    publicBaseUrl: config.publicBaseUrl,
    logLevel: config.logLevel,
    stdio: 'inherit' as const,
    extraEnv: { 'oidc-core': demoOidcCoreEnv(config.bindAddress) },
  };
  const started = await (
    ha
      ? startHaTopology({ ...common, natsCluster: infra.natsCluster })
      : startTopology({
          ...common,
          ownProcessGroup: true,
          tls: certificate && { cert: certificate.cert, key: certificate.key },
        })
  ).catch(async (err: unknown) => {
    await infra.stop();
    throw err;
  });
  running.topology = started;

  const db = await connectDatabase(mongoUri, createLogger({ service: 'dev', level: 'silent' }));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(started.secrets.keyEncryptionKey));
  const demo = await seedDelegationTenant(db.models, keyStore, {
    tenantId: DEMO_TENANT_ID,
    tenantName: 'demo',
    clientSecretPepper: started.secrets.clientSecretPepper,
    postLogoutRedirectUri: DEMO_POST_LOGOUT_REDIRECT_URI,
  });
  const consoleAdmin = await ensureConsoleAdmin(db.models, started.systemTenantId);
  const mcpDemo = await startMcpDemo({
    models: db.models,
    demo,
    baseUrl: started.baseUrl,
    clientSecretPepper: started.secrets.clientSecretPepper,
    caFile: certificate?.generated ? certificate.trustFile : undefined,
  });
  running.mcpDemo = mcpDemo;
  await db.close();

  const listenHost = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  if (ha && 'replicas' in started) {
    process.stdout.write(
      `\nHA topology: NATS_URL=${natsUrl}; replicas ${started.replicas.map((r) => r.name).join(', ')} behind a round-robin router\n`,
    );
  }
  process.stdout.write(
    banner({
      baseUrl: started.baseUrl,
      listen: `${certificate ? 'https' : 'http'}://${listenHost}:${config.listenPort}`,
      demo,
      admin: {
        clientId: started.secrets.bootstrapAdminClientId,
        clientSecret: started.secrets.bootstrapAdminClientSecret,
      },
      certificate,
      tlsUpstream: !certificate && started.baseUrl.startsWith('https:'),
      nodeVersion: process.versions.node,
      console: { systemTenantId: started.systemTenantId, ...consoleAdmin },
      mcp: mcpDemo,
    }),
  );
}

/**
 * A person who signs in to the admin console: `console-admin` in the system tenant with the system-admin role that
 * management's bootstrap keeps, and a password made for this run (printed in the banner). Written through the model,
 * as the management API writes users, so the stored account has every field a reader expects.
 */
async function ensureConsoleAdmin(
  models: Models,
  systemTenantId: number,
): Promise<{ username: string; password: string }> {
  const username = 'console-admin';
  const password = randomBytes(12).toString('base64url');
  const role = await models.Role.findOne({ tenantId: systemTenantId, name: 'system-admin' }, { _id: 1 }).lean<{
    _id: unknown;
  }>();
  const fields = {
    passwordHash: await hashPassword(password),
    enabled: true,
    ...(role ? { roleIds: [String(role._id)] } : {}),
  };
  const existing = await models.User.findOne({ tenantId: systemTenantId, username });
  if (existing) await existing.set(fields).save();
  else
    await models.User.create({
      tenantId: systemTenantId,
      username,
      claims: { name: 'Console administrator' },
      ...fields,
    });
  return { username, password };
}

main().catch((err: unknown) => {
  const message =
    err instanceof ConfigError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
  process.stderr.write(`start failed: ${message}\n`);
  process.exit(1);
});
