// @ts-check
/**
 * What the benchmarks share: argument parsing, the store and NATS (e2e/dist/local-infra), a reference process
 * started on a free port, and the "ours vs ceiling at N connections" measurement with its table.
 */
const { spawn } = require('node:child_process');
const { cpus } = require('node:os');
const autocannon = require('autocannon');

/** `--name value` from argv, else the fallback. @param {string} name @param {string} fallback */
function arg(name, fallback) {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? String(args[i + 1]) : fallback;
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
const summary = (r) => ({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });

/**
 * Starts a node script that prints its listening port on its first stdout line; killed when this process exits.
 * @param {string} file @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<{ port: number, kill: () => void }>}
 */
async function startReference(file, env = process.env) {
  const child = spawn(process.execPath, [file], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  const port = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`${file} exited ${code}`)));
  });
  return { port, kill };
}

/**
 * Checks both targets answer 200, then for each connection count: a 2 s warm-up of each (not counted), then
 * `seconds` of ours and `seconds` of the ceiling. Returns one row per connection count with the ratio.
 * @param {{ ours: string, ceiling: string, auth: string, body: string, connectionSets: number[], seconds: number }} o
 */
async function compare(o) {
  for (const url of [o.ours, o.ceiling]) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: o.auth }, body: o.body });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  }
  const rows = [];
  for (const connections of o.connectionSets) {
    const point = (/** @type {string} */ url, /** @type {number} */ seconds) => load({ url, auth: o.auth, body: o.body, connections, seconds });
    await point(o.ours, 2);
    await point(o.ceiling, 2);
    const ours = summary(await point(o.ours, o.seconds));
    const ceiling = summary(await point(o.ceiling, o.seconds));
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
  const cell = (/** @type {any} */ s, /** @type {number} */ width) => `${String(s.rps).padStart(width)} ${String(s.p50).padStart(4)} ${String(s.p99).padStart(4)}`;
  process.stdout.write(`\n${title}, ${seconds}s per point (node ${process.version}, ${cpus().length} cores)\n`);
  process.stdout.write(`connections | ${labels[0].padStart(w[0])}  p50  p99 | ${labels[1].padStart(w[1])}  p50  p99 | ratio\n`);
  for (const r of rows) {
    process.stdout.write(`${String(r.connections).padStart(11)} | ${cell(r.ours, w[0])} | ${cell(r.ceiling, w[1])} | ${r.ratio}\n`);
    if (r.ours.non2xx || r.ceiling.non2xx || r.ours.errors) process.stdout.write(`  non-2xx: ours ${r.ours.non2xx} (errors ${r.ours.errors}), ceiling ${r.ceiling.non2xx}\n`);
  }
  process.stdout.write(`${JSON.stringify({ bench, seconds, rows })}\n`);
}

module.exports = { arg, load, summary, startReference, compare, printComparison };
