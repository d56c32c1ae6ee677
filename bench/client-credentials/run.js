// @ts-check
/**
 * Client-credentials tokens per second against one oidc-core process (tenant resolved from the pool, client and
 * RBAC read from the store, ES256 JWT access token) and, in the same run, against a bare node-oidc-provider with
 * its in-memory adapter (bare-provider.js). Prints both and their ratio: the cost of tenancy and MongoDB.
 *
 *   npm run build && node bench/client-credentials/run.js [--duration 10] [--connections 1,32]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { createClient, ensureTools, seedDelegationTenant, startFerretDb, startNatsServer, withDatabase } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startTopology } = require('../../e2e/dist/topology');

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const duration = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);

/** @param {string} url @param {string} auth @param {string} body @param {number} connections @param {number} [seconds] */
function load(url, auth, body, connections, seconds = duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        connections,
        duration: seconds,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
        body,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** @param {any} r */
const summary = (r) => ({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });

async function main() {
  const owned = [];
  if (!process.env.MONGODB_URI || !process.env.NATS_URL) ensureTools('ferretdb', 'nats-server');
  let mongoBase = process.env.MONGODB_URI;
  if (!mongoBase) {
    const s = await startFerretDb({ quiet: true });
    owned.push(s);
    mongoBase = s.url;
  }
  let natsUrl = process.env.NATS_URL;
  if (!natsUrl) {
    const s = await startNatsServer({ quiet: true });
    owned.push(s);
    natsUrl = s.url;
  }
  const mongoUri = withDatabase(mongoBase, `idp_bench_cc_${Date.now()}`);
  const topology = await startTopology({ mongoUri, natsUrl, logLevel: 'warn', stdio: 'ignore' });
  const db = await connectDatabase(mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
  const tenant = await seedDelegationTenant(db.models, keyStore, { tenantId: 4242, clientSecretPepper: topology.secrets.clientSecretPepper });
  const role = await db.models.Role.findOne({ tenantId: 4242, name: 'orders-clerk' }).lean();
  const svc = await createClient(db.models, topology.secrets.clientSecretPepper, {
    tenantId: 4242,
    clientId: 'bench',
    name: 'bench',
    grantTypes: ['client_credentials'],
    roleIds: [String(role?._id)],
  });

  const bare = spawn(process.execPath, [join(__dirname, 'bare-provider.js')], { env: { ...process.env, CLIENT_SECRET: svc.clientSecret, RESOURCE: tenant.resource }, stdio: ['ignore', 'pipe', 'inherit'] });
  const barePort = await new Promise((resolve, reject) => {
    bare.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    bare.once('exit', (code) => reject(new Error(`bare provider exited ${code}`)));
  });

  process.once('exit', () => bare.kill('SIGTERM'));
  const auth = `Basic ${Buffer.from(`bench:${encodeURIComponent(svc.clientSecret)}`).toString('base64')}`;
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: tenant.resource }).toString();
  const oidcUrl = `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/4242/oidc/token`;
  const bareUrl = `http://127.0.0.1:${barePort}/oidc/token`;

  // Sanity: both answer with a token before measuring.
  for (const url of [oidcUrl, bareUrl]) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  }

  const rows = [];
  for (const connections of connectionSets) {
    // Short warm-up of both (JIT, pools, caches), not counted.
    await load(oidcUrl, auth, body, connections, 2);
    await load(bareUrl, auth, body, connections, 2);
    const ours = summary(await load(oidcUrl, auth, body, connections));
    const ceiling = summary(await load(bareUrl, auth, body, connections));
    rows.push({ connections, ours, ceiling, ratio: ceiling.rps ? +(ours.rps / ceiling.rps).toFixed(2) : 0 });
  }

  process.stdout.write(`\nclient_credentials tokens/s, ${duration}s per point (node ${process.version}, ${require('node:os').cpus().length} cores)\n`);
  process.stdout.write('connections | oidc-core rps  p50  p99 | bare provider rps  p50  p99 | ratio\n');
  for (const r of rows) {
    process.stdout.write(
      `${String(r.connections).padStart(11)} | ${String(r.ours.rps).padStart(13)} ${String(r.ours.p50).padStart(4)} ${String(r.ours.p99).padStart(4)} | ${String(r.ceiling.rps).padStart(17)} ${String(r.ceiling.p50).padStart(4)} ${String(r.ceiling.p99).padStart(4)} | ${r.ratio}\n`,
    );
    if (r.ours.non2xx || r.ceiling.non2xx) process.stdout.write(`  non-2xx: oidc-core ${r.ours.non2xx}, bare ${r.ceiling.non2xx}\n`);
  }
  process.stdout.write(`${JSON.stringify({ bench: 'client-credentials', duration, rows })}\n`);

  bare.kill('SIGTERM');
  await db.connection.dropDatabase().catch(() => undefined);
  await db.close();
  await topology.stop();
  await Promise.all(owned.map((s) => s.dispose()));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
