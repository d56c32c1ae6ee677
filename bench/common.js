// @ts-check
/**
 * What the benchmarks share: argument parsing, the store and NATS (e2e/dist/local-infra), a reference process
 * started on a free port, and the "ours vs ceiling at N connections" measurement with its table.
 */
const { spawn } = require('node:child_process');
const { readFileSync } = require('node:fs');
const { cpus } = require('node:os');
const autocannon = require('autocannon');

/** `--name value` from argv, else the fallback. @param {string} name @param {string} fallback */
function arg(name, fallback) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? String(args[i + 1]) : fallback;
}

/**
 * `--env KEY=VALUE,KEY=VALUE`: environment variables for oidc-core (wins over the topology's), to compare settings
 * such as the per-tenant admission limits (TENANT_MAX_IN_FLIGHT) in the same session; `--sidecar-env` the same for
 * the nhe-delegation sidecar (GRANT_CACHE_TTL_MS, ...).
 * @returns {Record<string, string>}
 */
function oidcEnvArg(name = 'env') {
  return Object.fromEntries(
    arg(name, '')
      .split(',')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

/**
 * POSTs a body (a form unless `headers` say otherwise) for `seconds` over `connections` connections.
 * @param {{ url: string, auth?: string, body: string, connections: number, seconds: number, headers?: Record<string, string> }} o
 * @returns {Promise<any>}
 */
function load(o) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: o.url,
        method: 'POST',
        connections: o.connections,
        duration: o.seconds,
        headers: o.headers ?? { 'content-type': 'application/x-www-form-urlencoded', authorization: o.auth ?? '' },
        body: o.body,
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** @param {any} r */
const summary = (r) => ({
  rps: Math.round(r.requests.average),
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx,
  errors: r.errors,
});

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (user + system, ms) each process has used so far, read from /proc/<pid>/stat; the load generator is
 * this process. A pid that is gone reads as 0.
 * @param {Record<string, number | undefined>} pids
 * @returns {Record<string, number>}
 */
function cpuTimes(pids) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const [name, pid] of Object.entries(pids)) {
    if (!pid) continue;
    try {
      // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
      if (process.env.BENCH_CPU_SPLIT) out[`${name} sys`] = (Number(fields[12]) * 1000) / USER_HZ;
    } catch {
      out[name] = 0;
    }
  }
  const self = process.cpuUsage();
  out['load generator'] = (self.user + self.system) / 1000;
  return out;
}

/**
 * CPU milliseconds per request each process spent during a measured point (from two cpuTimes snapshots).
 * @param {Record<string, number>} before @param {Record<string, number>} after @param {number} requests
 * @returns {Record<string, number>}
 */
function cpuPerRequest(before, after, requests) {
  /** @type {Record<string, number>} */
  const out = {};
  for (const name of Object.keys(after))
    out[name] = requests ? +((after[name] - (before[name] ?? 0)) / requests).toFixed(3) : 0;
  return out;
}

/**
 * Starts a node script that prints its listening port on its first stdout line; killed when this process exits.
 * @param {string} file @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<{ port: number, pid: number | undefined, kill: () => void }>}
 */
async function startReference(file, env = process.env) {
  const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`${file} exited ${code}`)));
  });
  return { port, pid: child.pid, kill };
}

/**
 * Checks both targets answer 200, then for each connection count: a 2 s warm-up of each (not counted), then
 * `seconds` of ours and `seconds` of the ceiling. Returns one row per connection count with the ratio. With `pids`,
 * each row also carries the CPU milliseconds per request that every process of ours (and of the ceiling) used.
 * @param {{ ours: string, ceiling: string, auth: string, body: string, connectionSets: number[], seconds: number,
 *   pids?: { ours: () => Record<string, number | undefined>, ceiling: Record<string, number | undefined> } }} o
 */
async function compare(o) {
  for (const url of [o.ours, o.ceiling]) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: o.auth },
      body: o.body,
    });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  }
  const rows = [];
  for (const connections of o.connectionSets) {
    const point = (/** @type {string} */ url, /** @type {number} */ seconds) =>
      load({ url, auth: o.auth, body: o.body, connections, seconds });
    await point(o.ours, 2);
    await point(o.ceiling, 2);
    const measured = async (
      /** @type {string} */ url,
      /** @type {Record<string, number | undefined> | undefined} */ pids,
    ) => {
      const before = pids && cpuTimes(pids);
      const r = await point(url, o.seconds);
      const s = summary(r);
      return before && pids ? { ...s, cpuMsPerRequest: cpuPerRequest(before, cpuTimes(pids), r.requests.total) } : s;
    };
    const ours = await measured(o.ours, o.pids?.ours());
    const ceiling = await measured(o.ceiling, o.pids?.ceiling);
    rows.push({ connections, ours, ceiling, ratio: ceiling.rps ? +(ours.rps / ceiling.rps).toFixed(2) : 0 });
  }
  return rows;
}

/**
 * Prints the comparison as a table and one JSON line.
 * @param {string} bench @param {string} title @param {[string, string]} labels @param {number} seconds
 * @param {Array<{ connections: number, ours: any, ceiling: any, ratio: number }>} rows
 */
function printComparison(bench, title, labels, seconds, rows) {
  const w = labels.map((l) => Math.max(l.length + 4, 14));
  const cell = (/** @type {any} */ s, /** @type {number} */ width) =>
    `${String(s.rps).padStart(width)} ${String(s.p50).padStart(4)} ${String(s.p99).padStart(4)}`;
  const env = Object.entries(oidcEnvArg())
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  process.stdout.write(
    `\n${title}, ${seconds}s per point (node ${process.version}, ${cpus().length} cores${env ? `, oidc-core ${env}` : ''})\n`,
  );
  process.stdout.write(
    `connections | ${labels[0].padStart(w[0])}  p50  p99 | ${labels[1].padStart(w[1])}  p50  p99 | ratio\n`,
  );
  for (const r of rows) {
    process.stdout.write(
      `${String(r.connections).padStart(11)} | ${cell(r.ours, w[0])} | ${cell(r.ceiling, w[1])} | ${r.ratio}\n`,
    );
    if (r.ours.non2xx || r.ceiling.non2xx || r.ours.errors)
      process.stdout.write(`  non-2xx: ours ${r.ours.non2xx} (errors ${r.ours.errors}), ceiling ${r.ceiling.non2xx}\n`);
  }
  printCpu(rows);
  process.stdout.write(`${JSON.stringify({ bench, seconds, rows })}\n`);
}

/**
 * The CPU table: milliseconds of CPU per request in each process, for ours and the ceiling, and what one core per
 * process would sustain (1000 / the busiest process's ms per request), ours over the ceiling's. The load generator
 * is listed but left out of the per-core figure (it is not part of either server).
 * @param {Array<{ connections: number, ours: any, ceiling: any }>} rows
 */
function printCpu(rows) {
  if (!rows.some((r) => r.ours.cpuMsPerRequest)) return;
  process.stdout.write('\nCPU ms per request, by process (user + system from /proc; load generator = this process):\n');
  for (const r of rows) {
    const busiest = (/** @type {Record<string, number>} */ cpu) =>
      Object.entries(cpu)
        .filter(([name]) => name !== 'load generator')
        .reduce((a, b) => (b[1] > a[1] ? b : a), ['none', 0]);
    const fmt = (/** @type {Record<string, number>} */ cpu) =>
      Object.entries(cpu)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    const [oursName, oursMs] = busiest(r.ours.cpuMsPerRequest);
    const [, ceilingMs] = busiest(r.ceiling.cpuMsPerRequest);
    const perCore = (/** @type {number} */ ms) => (ms ? Math.round(1000 / ms) : 0);
    process.stdout.write(`  ${r.connections} connection(s): ours: ${fmt(r.ours.cpuMsPerRequest)}\n`);
    process.stdout.write(
      `  ${' '.repeat(String(r.connections).length)}                 ceiling: ${fmt(r.ceiling.cpuMsPerRequest)}\n`,
    );
    process.stdout.write(
      `  ${' '.repeat(String(r.connections).length)}                 one core per process: ours ${perCore(oursMs)} req/s (bound by ${oursName}), ceiling ${perCore(ceilingMs)} req/s, ratio ${ceilingMs && oursMs ? +(ceilingMs / oursMs).toFixed(2) : 0}\n`,
    );
  }
}

/** `--sidecar-env KEY=VALUE,...` (see oidcEnvArg). */
const sidecarEnvArg = () => oidcEnvArg('sidecar-env');

module.exports = {
  arg,
  oidcEnvArg,
  sidecarEnvArg,
  load,
  summary,
  startReference,
  compare,
  printComparison,
  cpuTimes,
  cpuPerRequest,
};
