// @ts-check
/**
 * Token exchanges per second through the HA topology (e2e/src/ha: a 3-node JetStream cluster with IDP_AUDIT on 3
 * replicas, two oidc-core + sidecar replicas, two writers, management and signals twice, the round-robin router)
 * next to the single topology (one process per service, one nats-server, the dev router), in the same run on the
 * same store: at 32 and 128 connections, requests/s, p50/p99 latency, non-2xx, the CPU milliseconds per request of
 * every process (each replica on its own line), and the replica count. Prints a table and one JSON line.
 *
 *   npx tsc -b tsconfig.build.json && node bench/ha/run.js [--duration 10] [--connections 32,128] [--only ha|single]
 *
 * Both topologies are measured through their router (the ingress stand-in), as clients reach them; the router runs
 * in this process, so its CPU is in the "load generator" figure for both. Uses MONGODB_URI
 * when set, else FerretDB from .tools/bin; NATS is always started here (one server, then the cluster).
 */
const { cpus } = require('node:os');
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { ensureTools, seedDelegationTenant, startFerretDb, startNatsServer, withDatabase } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startTopology } = require('../../e2e/dist/topology');
const { startHaTopology } = require('../../e2e/dist/ha/ha-topology');
const { startNatsCluster } = require('../../e2e/dist/ha/nats-cluster');
const { arg, cpuPerRequest, cpuTimes, load, summary } = require('../common');

const TENANT = 4244;
const seconds = Number(arg('duration', '10'));
const connectionSets = arg('connections', '32,128').split(',').map(Number);
const only = arg('only', 'both');

/**
 * Seeds the bench tenant and returns the exchange request (a user's access token as oidc-core issues it, valid for the run).
 * @param {string} mongoUri @param {{ baseUrl: string, secrets: any }} topology
 */
async function exchangeRequest(mongoUri, topology) {
  const db = await connectDatabase(mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  try {
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(db.models, keyStore, {
      tenantId: TENANT,
      clientSecretPepper: topology.secrets.clientSecretPepper,
    });
    const keys = await keyStore.load(TENANT);
    const jwk = keys.signing.find((/** @type {any} */ k) => k.alg === 'ES256');
    if (!jwk) throw new Error('no ES256 key');
    const now = Math.floor(Date.now() / 1000);
    const subjectToken = await new SignJWT({ scope: 'orders:read orders:write', client_id: tenant.client.clientId })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`${topology.baseUrl}/auth/${TENANT}`)
      .setSubject(tenant.user.id)
      .setAudience(tenant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .setJti('bench-subject')
      .sign(await importJWK(jwk, 'ES256'));
    return {
      url: `${topology.baseUrl}/auth/${TENANT}/oidc/token`,
      auth: `Basic ${Buffer.from(`${encodeURIComponent(tenant.client.clientId)}:${encodeURIComponent(tenant.client.clientSecret)}`).toString('base64')}`,
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: tenant.nhe.identifier,
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: tenant.resource,
        scope: 'orders:read',
      }).toString(),
    };
  } finally {
    await db.close();
  }
}

/**
 * Warm-up (2 s, not counted), then `seconds` per connection count with the CPU of every process.
 * @param {{ url: string, auth: string, body: string }} req @param {() => Record<string, number | undefined>} pids
 */
async function measure(req, pids) {
  const first = await fetch(req.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: req.auth },
    body: req.body,
  });
  if (first.status !== 200) throw new Error(`${req.url} answered ${first.status}: ${await first.text()}`);
  const rows = [];
  for (const connections of connectionSets) {
    await load({ ...req, connections, seconds: 2 });
    const before = cpuTimes(pids());
    const r = await load({ ...req, connections, seconds });
    rows.push({
      connections,
      ...summary(r),
      cpuMsPerRequest: cpuPerRequest(before, cpuTimes(pids()), r.requests.total),
    });
  }
  return rows;
}

async function main() {
  ensureTools('ferretdb', 'nats-server');
  const ferret = process.env.MONGODB_URI ? undefined : await startFerretDb({ quiet: true });
  const mongoBase = process.env.MONGODB_URI ?? /** @type {any} */ (ferret).url;
  /** @type {any[]} */
  const results = [];
  try {
    if (only !== 'ha') {
      const nats = await startNatsServer({ quiet: true });
      const mongoUri = withDatabase(mongoBase, `idp_bench_ha_single_${Date.now()}`);
      const topology = await startTopology({ mongoUri, natsUrl: nats.url, logLevel: 'warn', stdio: 'ignore' });
      try {
        const req = await exchangeRequest(mongoUri, topology);
        const pids = () => ({
          ...Object.fromEntries(
            Object.values(topology.services).map((s) => [
              s.name === 'nhe-delegation' ? 'sidecar' : s.name,
              s.process.pid,
            ]),
          ),
          'nats-server': nats.process.pid,
          ferretdb: ferret?.process.pid,
        });
        results.push({
          topology: 'single',
          replicas: { oidc: 1, management: 1, 'audit-writer': 1, signals: 1, nats: 1, streamReplicas: 1 },
          rows: await measure(req, pids),
        });
      } finally {
        await topology.stop();
        await nats.dispose();
      }
    }
    if (only !== 'single') {
      const cluster = await startNatsCluster();
      const mongoUri = withDatabase(mongoBase, `idp_bench_ha_ha_${Date.now()}`);
      const topology = await startHaTopology({
        mongoUri,
        natsUrl: cluster.url,
        natsCluster: cluster,
        logLevel: 'warn',
        stdio: 'ignore',
      });
      try {
        const req = await exchangeRequest(mongoUri, topology);
        const pids = () => ({
          ...Object.fromEntries(topology.processes().map((p) => [p.name.replace('nhe-delegation', 'sidecar'), p.pid])),
          ferretdb: ferret?.process.pid,
        });
        /** @type {Record<string, number>} */
        const replicas = {};
        for (const r of topology.replicas) replicas[r.workload] = (replicas[r.workload] ?? 0) + 1;
        results.push({
          topology: 'ha',
          replicas: { ...replicas, nats: cluster.nodes.length, streamReplicas: 3 },
          rows: await measure(req, pids),
        });
      } finally {
        await topology.stop();
        await cluster.stop();
      }
    }
  } finally {
    await ferret?.dispose();
  }

  process.stdout.write(
    `\nToken exchanges through the router, single vs HA topology, ${seconds}s per point (node ${process.version}, ${cpus().length} cores)\n`,
  );
  process.stdout.write(
    'topology | replicas (oidc pairs, writers, NATS nodes) | connections |  req/s |  p50 |  p99 | non-2xx\n',
  );
  for (const t of results) {
    for (const r of t.rows) {
      process.stdout.write(
        `${t.topology.padEnd(8)} | ${`${t.replicas.oidc}, ${t.replicas['audit-writer']}, ${t.replicas.nats}`.padEnd(41)} | ${String(r.connections).padStart(11)} | ${String(r.rps).padStart(6)} | ${String(r.p50).padStart(4)} | ${String(r.p99).padStart(4)} | ${r.non2xx}${r.errors ? ` (errors ${r.errors})` : ''}\n`,
      );
    }
  }
  process.stdout.write('\nCPU ms per request, by process (user + system from /proc; load generator = this process):\n');
  for (const t of results) {
    for (const r of t.rows) {
      const total = Object.entries(r.cpuMsPerRequest)
        .filter(([k]) => k !== 'load generator')
        .reduce((a, [, v]) => a + v, 0);
      process.stdout.write(
        `  ${t.topology} at ${r.connections}: ${Object.entries(r.cpuMsPerRequest)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}; servers in all ${+total.toFixed(3)}\n`,
      );
    }
  }
  process.stdout.write(`${JSON.stringify({ bench: 'ha', seconds, cores: cpus().length, results })}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
