// @ts-check
/**
 * Keycloak and this product side by side in one run: client credentials and token exchange at 1 and 32
 * connections, one product after the other, with the same load generator (autocannon in this process), the same
 * pinning (the server under test on one CPU, every one of its processes and threads; the load generator on another)
 * and the same durations (a JIT warm-up per grant, then 2 s not counted and `--duration` s measured per point). Prints
 * one table (req/s, p50, p99, CPU-ms per request per process and summed) with the ratio per grant (our summed CPU-ms
 * per request over Keycloak's), and one JSON line.
 *
 *   bash scripts/tools.sh keycloak && npx tsc -b tsconfig.build.json
 *   node bench/peers/run.js [--duration 10] [--warmup 30] [--connections 1,32] [--only keycloak|ours]
 *     [--order keycloak,ours] [--server-cpu 1] [--load-cpu 0] [--env TENANT_MAX_IN_FLIGHT=4,...] [--sidecar-env GRANT_CACHE_TTL_MS=5000,...]
 *
 * Keycloak (bench/peers/keycloak): `kc.sh start-dev` on loopback, standard token exchange v2, H2, realm set up through
 * the admin REST API. This product (bench/peers/ours.js): the whole topology as processes, FerretDB and nats-server
 * from .tools/bin unless MONGODB_URI / NATS_URL are set.
 */
const { cpus, loadavg } = require('node:os');
const { arg, oidcEnvArg, sidecarEnvArg } = require('../common');
const { run } = require('../reference-server');
const { configureRealm, keycloakPaths, startKeycloak } = require('./keycloak/keycloak');
const { measureProduct, printTable } = require('./measure');
const { startOurs } = require('./ours');

const KEYCLOAK = 'keycloak';
const OURS = 'ours';

/** @param {{ only?: string }} [defaults] */
async function runPeers(defaults = {}) {
  const seconds = Number(arg('duration', '10'));
  const warmupSeconds = Number(arg('warmup', '30'));
  const connectionSets = arg('connections', '1,32').split(',').map(Number);
  const only = arg('only', defaults.only ?? 'all');
  const order = arg('order', `${KEYCLOAK},${OURS}`)
    .split(',')
    .filter((p) => only === 'all' || p === only);
  const serverCpu = arg('server-cpu', '1');
  const loadCpu = arg('load-cpu', '0');
  const oidcEnv = oidcEnvArg();
  const sidecarEnv = sidecarEnvArg();
  const common = { serverCpu, loadCpu, warmupSeconds, seconds, connectionSets };
  const say = (/** @type {string} */ line) => process.stderr.write(`${line}\n`);
  /** @type {{ start: number[], end?: number[] }} */
  const loadAverages = { start: loadavg().map((x) => +x.toFixed(2)) };
  /** @type {import('./measure').Row[]} */
  const rows = [];
  /** @type {Record<string, string>} */
  const versions = { node: process.version };
  /** @type {Record<string, unknown>} */
  const notes = {};
  if (order.includes(KEYCLOAK)) {
    const paths = keycloakPaths();
    Object.assign(versions, { keycloak: paths.version, java: paths.javaVersion });
  }
  for (const product of order) {
    if (product === KEYCLOAK) {
      say(`keycloak ${versions.keycloak} (Java ${versions.java}): starting (start-dev)...`);
      const kc = await startKeycloak();
      try {
        say(
          `  started in ${(kc.startupMs / 1000).toFixed(1)}s at ${kc.baseUrl}; configuring the realm through the admin REST API`,
        );
        const grants = await configureRealm(kc);
        const javaPid = kc.javaPid();
        if (!javaPid) throw new Error('no java process under kc.sh');
        const measured = await measureProduct({
          product: KEYCLOAK,
          grants: [
            { name: 'client credentials', ...grants.clientCredentials },
            { name: 'token exchange', ...grants.tokenExchange },
          ],
          pids: { keycloak: javaPid },
          serverPids: [kc.pid, javaPid],
          ...common,
        });
        rows.push(...measured.rows);
      } finally {
        await kc.stop();
      }
    } else if (product === OURS) {
      say('ours: starting the topology...');
      const ours = await startOurs({ oidcEnv, sidecarEnv });
      try {
        const measured = await measureProduct({
          product: OURS,
          grants: [
            { name: 'client credentials', ...ours.clientCredentials },
            { name: 'token exchange', ...ours.tokenExchange },
          ],
          pids: ours.pids,
          serverPids: ours.serverPids,
          settle: ours.settle,
          ...common,
        });
        rows.push(...measured.rows);
        // One audit row per token: the writer is asynchronous, so wait (up to 30 s) until the count is at least the
        // exchanges answered 200 and stops moving. Requests still in flight when a load stopped were issued and
        // audited but not counted by autocannon, so the rows lie between the answered and the sent count.
        const exchanged = measured.answered['token exchange'];
        const sent = measured.sent['token exchange'];
        let audited = await ours.auditRows();
        for (let i = 0, last = -1; i < 60 && (audited < exchanged || audited !== last); i++) {
          last = audited;
          await new Promise((r) => setTimeout(r, 500));
          audited = await ours.auditRows();
        }
        notes.audit = { answered: exchanged, sent, rows: audited, consistent: audited >= exchanged && audited <= sent };
        if (ours.external.store || ours.external.nats) notes.external = ours.external;
      } finally {
        await ours.stop();
      }
    } else {
      throw new Error(`unknown product ${product} (--order keycloak,ours)`);
    }
  }
  loadAverages.end = loadavg().map((x) => +x.toFixed(2));
  const model = cpus()[0]?.model ?? '?';
  const out = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
  out(
    `\n${[versions.keycloak && `Keycloak ${versions.keycloak} (Java ${versions.java}, start-dev)`, order.includes(OURS) && `this product (node ${process.version})`].filter(Boolean).join(' vs ')}, ${cpus().length} CPUs (${model}); ` +
      `server on CPU ${serverCpu}, load generator on CPU ${loadCpu}; ${warmupSeconds}s warm-up per grant, then 2s + ${seconds}s per point; ` +
      `load average ${loadAverages.start.join(' ')} at the start, ${loadAverages.end?.join(' ')} at the end${
        Object.keys(oidcEnv).length
          ? `; oidc-core ${Object.entries(oidcEnv)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }${
        Object.keys(sidecarEnv).length
          ? `; sidecar ${Object.entries(sidecarEnv)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }`,
  );
  const ratios = printTable(rows, { ours: OURS, peer: KEYCLOAK });
  const audit = /** @type {{ answered: number, sent: number, rows: number, consistent: boolean } | undefined} */ (
    notes.audit
  );
  if (audit) {
    out(
      `our token exchanges in this run (warm-up included): ${audit.answered} answered 200, ${audit.sent} sent; audit rows: ${audit.rows} ` +
        `(${audit.consistent ? 'between the two: one per token issued' : 'NOT between the two: rows missing or extra'})`,
    );
  }
  out(
    JSON.stringify({
      bench: 'peers',
      versions,
      sidecarEnv,
      cpus: cpus().length,
      cpuModel: model,
      serverCpu,
      loadCpu,
      warmupSeconds,
      seconds,
      connectionSets,
      loadAverages,
      rows,
      ratios,
      ...notes,
    }),
  );
}

module.exports = { runPeers };

if (require.main === module) run(() => runPeers());
