// @ts-check
/**
 * Client-credentials tokens per second against one oidc-core process (tenant resolved from the pool, client and
 * RBAC read from the store, ES256 JWT access token) and, in the same run, against a bare node-oidc-provider with
 * its in-memory adapter (bare-provider.js). Prints both and their ratio: the cost of tenancy and MongoDB.
 *
 *   npm run build && node bench/client-credentials/run.js [--duration 10] [--connections 1,32] [--env TENANT_MAX_IN_FLIGHT=4,...]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { join } = require('node:path');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { createClient, seedDelegationTenant } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');
const { run } = require('../reference-server');
const { arg, compare, oidcEnvArg, printComparison, startReference } = require('../common');

const TENANT = 4242;
const seconds = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);

async function main() {
  const infra = await startLocalInfra(`idp_bench_cc_${Date.now()}`);
  const topology = await startTopology({
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    logLevel: 'warn',
    stdio: 'ignore',
    extraEnv: { 'oidc-core': oidcEnvArg() },
  });
  const db = await connectDatabase(infra.mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  try {
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(db.models, keyStore, {
      tenantId: TENANT,
      clientSecretPepper: topology.secrets.clientSecretPepper,
    });
    const role = await db.models.Role.findOne({ tenantId: TENANT, name: 'orders-clerk' }).lean();
    const svc = await createClient(db.models, topology.secrets.clientSecretPepper, {
      tenantId: TENANT,
      clientId: 'bench',
      name: 'bench',
      grantTypes: ['client_credentials'],
      roleIds: [String(role?._id)],
    });
    const bare = await startReference(join(__dirname, 'bare-provider.js'), {
      ...process.env,
      CLIENT_SECRET: svc.clientSecret,
      RESOURCE: tenant.resource,
    });
    const rows = await compare({
      ours: `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`,
      ceiling: `http://127.0.0.1:${bare.port}/oidc/token`,
      auth: `Basic ${Buffer.from(`bench:${encodeURIComponent(svc.clientSecret)}`).toString('base64')}`,
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: tenant.resource }).toString(),
      connectionSets,
      seconds,
      pids: {
        ours: () => ({
          'oidc-core': topology.services['oidc-core'].process.pid,
          ferretdb: infra.servers.ferretdb?.process.pid,
        }),
        ceiling: { 'bare provider': bare.pid },
      },
    });
    bare.kill();
    printComparison(
      'client-credentials',
      'client_credentials tokens/s',
      ['oidc-core rps', 'bare provider rps'],
      seconds,
      rows,
    );
  } finally {
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await topology.stop();
    await infra.stop();
  }
}

run(main);
