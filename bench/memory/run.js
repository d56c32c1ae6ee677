// @ts-check
/**
 * Memory under a long run of token exchanges (the target: "the RSS of each process after a million exchanges is within
 * 10% of its RSS after the first hundred thousand; every cache bounded"):
 *
 *   npx tsc -b tsconfig.build.json
 *   node bench/memory/run.js [--exchanges 1000000] [--connections 32] [--segment 20] [--sidecar-env GRANT_CACHE_TTL_MS=5000]
 *
 * Starts this product as bench/peers/ours.js does (every service as a process, FerretDB, nats-server; a real grant
 * read per exchange) and sends the spec's NHE exchange in segments of `--segment` seconds until `--exchanges` have
 * been answered 200. After each segment it reads VmRSS of every process on the path from /proc/<pid>/status; the
 * checkpoint is the first segment that ends past a tenth of the exchanges, the end is the last one. It prints a line
 * per segment, then per process the RSS at the checkpoint and at the end and their ratio (the target: at most 1.10),
 * and one JSON line. Not part of the test command: a million exchanges take about 28 minutes on the 2-core machine.
 */
const { readFileSync } = require('node:fs');
const { cpus, loadavg } = require('node:os');
const { arg, load, sidecarEnvArg } = require('../common');
const { startOurs } = require('../peers/ours');

const exchanges = Number(arg('exchanges', '1000000'));
const connections = Number(arg('connections', '32'));
const segment = Number(arg('segment', '20'));

/** A field of /proc/<pid>/status in MiB (0 when the process is gone). @param {number | undefined} pid */
function statusMiB(pid, field = 'VmRSS') {
  if (!pid) return 0;
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? +(Number(m[1]) / 1024).toFixed(1) : 0;
  } catch {
    return 0;
  }
}
const rssMiB = (/** @type {number | undefined} */ pid) => statusMiB(pid);

async function main() {
  const say = (/** @type {string} */ s) => process.stderr.write(`${s}\n`);
  say(`memory: starting the topology (${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)})`);
  const ours = await startOurs({ sidecarEnv: sidecarEnvArg() });
  try {
    const g = ours.tokenExchange;
    const sample = () => Object.fromEntries(Object.entries(ours.pids).map(([k, pid]) => [k, rssMiB(pid)]));
    const atStart = sample();
    let done = 0;
    let failed = 0;
    /** @type {Record<string, number> | undefined} */
    let checkpoint;
    let checkpointAt = 0;
    /** @type {Array<{ exchanges: number, rps: number, p99: number, settleMs: number, rss: Record<string, number>, storeAnonFile: number[], writer: Record<string, number> }>} */
    const segments = [];
    const started = Date.now();
    while (done < exchanges) {
      const r = await load({ url: g.url, auth: g.auth, body: g.body, connections, seconds: segment });
      done += r['2xx'] ?? 0;
      failed += (r.non2xx ?? 0) + (r.errors ?? 0);
      const settleMs = await ours.settle();
      const rss = sample();
      // The store's RSS split into anonymous memory (its heap) and file pages (SQLite's files mapped), and what the
      // writer did (a duplicate or a retry re-reads rows by jti and the chain's tail: queries FerretDB scans).
      const storeAnonFile = [statusMiB(ours.pids.ferretdb, 'RssAnon'), statusMiB(ours.pids.ferretdb, 'RssFile')];
      const writer = await ours.writerOutcomes().catch(() => ({}));
      segments.push({
        exchanges: done,
        rps: Math.round(r.requests.average),
        p99: r.latency.p99,
        settleMs,
        rss,
        storeAnonFile,
        writer,
      });
      say(
        `  ${done} exchanges (${Math.round(r.requests.average)}/s, p99 ${r.latency.p99} ms, ${failed} failed, settled in ${settleMs} ms): RSS MiB ${Object.entries(
          rss,
        )
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}` +
          ` (store anon ${storeAnonFile[0]}, file ${storeAnonFile[1]}); writer ${JSON.stringify(writer)}`,
      );
      if (!checkpoint && done >= exchanges / 10) {
        checkpoint = rss;
        checkpointAt = done;
      }
    }
    const end = segments[segments.length - 1]?.rss ?? {};
    const out = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
    out(
      `\n${done} token exchanges at ${connections} connections in ${Math.round((Date.now() - started) / 1000)} s (${failed} not answered 200); RSS (MiB) at the start, after ${checkpointAt}, after ${done}, end/checkpoint (target <= 1.10):`,
    );
    /** @type {Record<string, { start: number, checkpoint: number, end: number, ratio: number }>} */
    const table = {};
    for (const k of Object.keys(end)) {
      const c = checkpoint?.[k] ?? 0;
      table[k] = {
        start: atStart[k] ?? 0,
        checkpoint: c,
        end: end[k] ?? 0,
        ratio: c ? +((end[k] ?? 0) / c).toFixed(3) : 0,
      };
      out(
        `  ${k.padEnd(14)} ${String(table[k].start).padStart(8)} ${String(c).padStart(8)} ${String(end[k]).padStart(8)}  ${table[k].ratio}${table[k].ratio > 1.1 ? '  OVER' : ''}`,
      );
    }
    // countDocuments with a filter makes FerretDB read every row (minutes at 250,000): count the collection instead.
    const audited = await ours.auditRowsTotal();
    out(`audit rows: ${audited} for ${done} exchanges answered 200 (warm-up check included)`);
    out(
      JSON.stringify({
        bench: 'memory',
        node: process.version,
        sidecarEnv: sidecarEnvArg(),
        exchanges: done,
        failed,
        connections,
        checkpointAt,
        rss: table,
        auditRows: audited,
        segments,
      }),
    );
  } finally {
    await ours.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
