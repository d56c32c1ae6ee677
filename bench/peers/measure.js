// @ts-check
/**
 * How bench/peers measures one product (Keycloak, or this product's processes): the server under test pinned to one
 * CPU and this process (autocannon, the load generator) to another, a JIT warm-up per grant, then for each grant and
 * connection count 2 s of load not counted and `seconds` measured, with the CPU milliseconds per request of every
 * process of the server from /proc/<pid>/stat (user + system over all its threads; bench/common.js cpuTimes).
 */
const { execFileSync } = require('node:child_process');
const { cpus, loadavg } = require('node:os');
const { cpuPerRequest, cpuTimes, load, summary } = require('../common');

/** Pins every thread of a process (taskset -a) to a CPU list. @param {number | undefined} pid @param {string} cpu */
function pin(pid, cpu) {
  if (!pid) return;
  try {
    execFileSync('taskset', ['-apc', cpu, String(pid)], { stdio: 'ignore' });
  } catch {
    // the process is gone
  }
}

const allCpus = () => `0-${cpus().length - 1}`;

/**
 * @typedef {{ name: string, url: string, auth: string, body: string }} Grant
 * @typedef {{ product: string, grant: string, connections: number, rps: number, p50: number, p99: number, non2xx: number,
 *   errors: number, requests: number, cpuMsPerRequest: Record<string, number>, cpuMsTotal: number }} Row
 */

/**
 * Measures one product. `pids` are the processes whose CPU is summed (the product's path); `serverPids` every process
 * of the product, pinned to `serverCpu` for the whole measurement (unpinned after).
 * `settle`, where the product does work after answering (ours: the audit-writer's rows), waits until that work is done:
 * called before each measured window (so it starts with no backlog) and after it, before the CPU is read (so the work
 * its requests left behind is counted with them).
 * @param {{ product: string, grants: Grant[], pids: Record<string, number | undefined>, serverPids: Array<number | undefined>,
 *   serverCpu: string, loadCpu: string, warmupSeconds: number, seconds: number, connectionSets: number[],
 *   settle?: () => Promise<number>, progress?: (line: string) => void }} o
 * @returns {Promise<{ rows: Row[], answered: Record<string, number>, sent: Record<string, number> }>} the rows, and for each
 *   grant how many requests got a 2xx answer and how many were sent in all (the first check, warm-up and uncounted
 *   seconds included): the product issued at least `answered` tokens and at most `sent` (autocannon stops counting
 *   with requests still in flight)
 */
async function measureProduct(o) {
  const say = o.progress ?? ((/** @type {string} */ line) => process.stderr.write(`${line}\n`));
  const pinning = cpus().length >= 2;
  if (pinning) {
    for (const pid of o.serverPids) pin(pid, o.serverCpu);
    pin(process.pid, o.loadCpu);
  }
  /** @type {Record<string, number>} */
  const answered = Object.fromEntries(o.grants.map((g) => [g.name, 0]));
  /** @type {Record<string, number>} */
  const sent = Object.fromEntries(o.grants.map((g) => [g.name, 0]));
  const loadCounted = async (
    /** @type {Grant} */ g,
    /** @type {number} */ connections,
    /** @type {number} */ seconds,
  ) => {
    const r = await load({ url: g.url, auth: g.auth, body: g.body, connections, seconds });
    answered[g.name] += r['2xx'] ?? 0;
    sent[g.name] += r.requests.sent ?? 0;
    return r;
  };
  try {
    for (const g of o.grants) {
      const res = await fetch(g.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: g.auth },
        body: g.body,
      });
      if (res.status !== 200)
        throw new Error(`${o.product} ${g.name}: ${g.url} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      answered[g.name] += 1;
      sent[g.name] += 1;
    }
    const maxConnections = Math.max(...o.connectionSets);
    for (const g of o.grants) {
      if (o.warmupSeconds <= 0) break;
      say(
        `  ${o.product}: warming up ${g.name}, ${o.warmupSeconds}s at ${maxConnections} connections (load average ${loadavg()[0].toFixed(2)})`,
      );
      const r = await loadCounted(g, maxConnections, o.warmupSeconds);
      if (r.non2xx || r.errors) say(`  ${o.product}: warm-up of ${g.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
    /** @type {Row[]} */
    const rows = [];
    for (const g of o.grants) {
      for (const connections of o.connectionSets) {
        await loadCounted(g, connections, 2);
        await o.settle?.();
        const before = cpuTimes(o.pids);
        const r = await loadCounted(g, connections, o.seconds);
        const settleMs = (await o.settle?.()) ?? 0;
        const cpu = cpuPerRequest(before, cpuTimes(o.pids), r.requests.total);
        const total = Object.entries(cpu)
          .filter(([name]) => name !== 'load generator')
          .reduce((sum, [, ms]) => sum + ms, 0);
        const row = {
          product: o.product,
          grant: g.name,
          connections,
          ...summary(r),
          requests: r.requests.total,
          cpuMsPerRequest: cpu,
          cpuMsTotal: +total.toFixed(3),
          ...(o.settle ? { settleMs } : {}),
        };
        rows.push(row);
        say(
          `  ${o.product}: ${g.name}, ${connections} connection(s): ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, ${row.cpuMsTotal} CPU-ms/request${o.settle ? ` (CPU read ${settleMs} ms after the load, once the backlog was stored)` : ''} (load average ${loadavg()[0].toFixed(2)})`,
        );
      }
    }
    return { rows, answered, sent };
  } finally {
    if (pinning) {
      for (const pid of o.serverPids) pin(pid, allCpus());
      pin(process.pid, allCpus());
    }
  }
}

/**
 * Prints one table (a row per product, grant and connection count: req/s, p50, p99, CPU-ms per request summed and per
 * process) and the ratio per grant and connection count: `ours` summed CPU-ms per request over `peer`'s.
 * @param {Row[]} rows @param {{ ours: string, peer: string }} names
 * @returns {Array<{ grant: string, connections: number, ours: number, peer: number, ratio: number, peerOverOurs: number }>}
 */
function printTable(rows, names) {
  const w = Math.max(...rows.map((r) => r.product.length), 7);
  const out = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
  out(
    `${'grant'.padEnd(18)} ${'conns'.padStart(5)}  ${'product'.padEnd(w)} ${'req/s'.padStart(7)} ${'p50'.padStart(5)} ${'p99'.padStart(5)} ${'CPU-ms/req'.padStart(10)}  per process (CPU-ms/request)`,
  );
  for (const r of rows) {
    const per = Object.entries(r.cpuMsPerRequest)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    const bad = r.non2xx || r.errors ? `  [non-2xx ${r.non2xx}, errors ${r.errors}]` : '';
    out(
      `${r.grant.padEnd(18)} ${String(r.connections).padStart(5)}  ${r.product.padEnd(w)} ${String(r.rps).padStart(7)} ${String(r.p50).padStart(5)} ${String(r.p99).padStart(5)} ${String(r.cpuMsTotal).padStart(10)}  ${per}${bad}`,
    );
  }
  const ratios = [];
  for (const r of rows.filter((x) => x.product === names.ours)) {
    const peer = rows.find((x) => x.product === names.peer && x.grant === r.grant && x.connections === r.connections);
    if (!peer || !peer.cpuMsTotal || !r.cpuMsTotal) continue;
    ratios.push({
      grant: r.grant,
      connections: r.connections,
      ours: r.cpuMsTotal,
      peer: peer.cpuMsTotal,
      ratio: +(r.cpuMsTotal / peer.cpuMsTotal).toFixed(3),
      peerOverOurs: +(peer.cpuMsTotal / r.cpuMsTotal).toFixed(2),
    });
  }
  if (ratios.length) {
    out(`\nCPU-ms per request, ${names.ours} summed over its processes (load generator excluded) / ${names.peer}'s:`);
    for (const x of ratios)
      out(
        `  ${x.grant.padEnd(18)} ${String(x.connections).padStart(3)} connection(s): ${x.ours} / ${x.peer} = ${x.ratio} (1/${x.peerOverOurs} of ${names.peer}'s CPU)`,
      );
  }
  return ratios;
}

module.exports = { pin, measureProduct, printTable };
