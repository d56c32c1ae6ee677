// @ts-check
/**
 * Profiles every process on the token-exchange path under bench/peers' load, to show where the CPU goes:
 *
 *   npx tsc -b tsconfig.build.json
 *   node bench/profile/run.js [--warmup 10] [--duration 10] [--connections 32] [--profile on|off] [--interval 1000]
 *     [--out /tmp/idp-profile] [--grant exchange|cc] [--top 20] [--alone oidc-core|sidecar|audit-writer]
 *     [--node-options "--max-semi-space-size=32"] [--sidecar-env GRANT_CACHE_TTL_MS=5000,...]
 *
 * Starts this product as bench/peers/ours.js does (the whole topology as processes, FerretDB and nats-server from
 * .tools/bin), with V8's sampling profiler in oidc-core, the nhe-delegation sidecar and the audit-writer
 * (`NODE_OPTIONS=--require bench/profile/cpu-prof.js` through the topology's extraEnv: Node 20 refuses `--cpu-prof` in
 * NODE_OPTIONS; each writes its .cpuprofile when it exits on SIGTERM), pins the server's processes to CPU 1 and this
 * process (autocannon) to CPU 0 as bench/peers does, loads `--warmup` s, then 2 s not counted, then `--duration` s
 * measured. For the measured window it prints the CPU-ms per request of every process from /proc (user + system, all
 * threads) and per thread name (the JS thread, V8's GC/compiler workers, libuv's pool, ...), then each Node process's
 * profile summarised over that window only (bench/profile/summarize.js with --from/--to on the monotonic clock).
 * `--profile off` measures the same without the profiler (its overhead shows in the /proc figures).
 *
 * The sampling profiler takes its samples on a timer, also while the thread waits for the CPU: when several busy
 * processes share one CPU (the default pinning, as bench/peers), a frame where the thread is often preempted (writev,
 * which wakes the peer process) collects samples that are not its CPU time. `--alone NAME` gives that process a CPU
 * of its own (every other process and the load generator share the other), so that its samples follow its CPU time;
 * profile each process alone for the shares, and take the CPU-ms per request from the default pinning.
 */
const { mkdirSync, readdirSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { cpus, loadavg } = require('node:os');
const topologyModule = require('../../e2e/dist/topology');
const { arg, cpuPerRequest, cpuTimes, load, sidecarEnvArg, summary } = require('../common');
const { pin } = require('../peers/measure');
const { summarize } = require('./summarize');

const warmup = Number(arg('warmup', '10'));
const duration = Number(arg('duration', '10'));
const connections = Number(arg('connections', '32'));
const profile = arg('profile', 'on') !== 'off';
const interval = Number(arg('interval', '1000'));
const outDir = arg('out', '/tmp/idp-profile');
const grantName = arg('grant', 'exchange');
const top = Number(arg('top', '20'));
/** `--alone oidc-core|sidecar|audit-writer`: that process alone on CPU 1, every other one and the load on CPU 0. */
const alone = arg('alone', '');
/** `--node-options "..."`: extra Node flags for the three Node processes on the path (an experiment's V8 settings). */
const nodeOptions = arg('node-options', '');

const PROFILED = { 'oidc-core': 'oidc-core', 'nhe-delegation': 'sidecar', 'audit-writer': 'audit-writer' };

// bench/peers/ours.js passes extraEnv for oidc-core only; wrap startTopology before it is loaded so that the three
// Node processes on the path start with the profiler.
const original = topologyModule.startTopology;
topologyModule.startTopology = (/** @type {any} */ o) => {
  if (!profile && !nodeOptions) return original(o);
  /** @type {Record<string, Record<string, string>>} */
  const extraEnv = { ...(o.extraEnv ?? {}) };
  for (const [service, label] of Object.entries(PROFILED)) {
    if (!profile) {
      extraEnv[service] = { ...(extraEnv[service] ?? {}), NODE_OPTIONS: nodeOptions };
      continue;
    }
    const dir = join(outDir, label);
    mkdirSync(dir, { recursive: true });
    extraEnv[service] = {
      ...(extraEnv[service] ?? {}),
      NODE_OPTIONS: `${nodeOptions} --require ${join(__dirname, 'cpu-prof.js')}`.trim(),
      CPU_PROF_DIR: dir,
      CPU_PROF_INTERVAL: String(interval),
    };
  }
  return original({ ...o, extraEnv });
};
const { startOurs } = require('../peers/ours');

/** CPU ms per thread name of a process (/proc/<pid>/task/<tid>/stat), summed over threads of the same name. */
function threadTimes(/** @type {number | undefined} */ pid) {
  /** @type {Record<string, number>} */
  const out = {};
  if (!pid) return out;
  /** @type {string[]} */
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name =
        tid === String(pid)
          ? 'main (JS) thread'
          : `other threads (${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, 'N')})`;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / 100;
    } catch {
      // the thread ended
    }
  }
  return out;
}

async function main() {
  rmSync(outDir, { recursive: true, force: true });
  const ours = await startOurs({ sidecarEnv: sidecarEnvArg() });
  const g = grantName === 'cc' ? ours.clientCredentials : ours.tokenExchange;
  const pinning = cpus().length >= 2;
  try {
    const res = await fetch(g.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: g.auth },
      body: g.body,
    });
    if (res.status !== 200) throw new Error(`${g.url} answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    if (pinning) {
      const alonePid = alone ? /** @type {Record<string, number | undefined>} */ (ours.pids)[alone] : undefined;
      if (alone && !alonePid) throw new Error(`--alone ${alone}: no such process`);
      for (const pid of ours.serverPids) pin(pid, alonePid ? (pid === alonePid ? '1' : '0') : '1');
      pin(process.pid, '0');
    }
    process.stderr.write(
      `warming up ${warmup}s at ${connections} connections (load average ${loadavg()[0].toFixed(2)})\n`,
    );
    if (warmup > 0) await load({ url: g.url, auth: g.auth, body: g.body, connections, seconds: warmup });
    await load({ url: g.url, auth: g.auth, body: g.body, connections, seconds: 2 });
    const nodePids = {
      'oidc-core': ours.pids['oidc-core'],
      sidecar: ours.pids.sidecar,
      'audit-writer': ours.pids['audit-writer'],
    };
    // No audit backlog at the start; the backlog the window leaves is stored before the CPU is read (bench/peers/ours.js).
    await ours.settle();
    const threadsBefore = Object.fromEntries(Object.entries(nodePids).map(([k, pid]) => [k, threadTimes(pid)]));
    const before = cpuTimes(ours.pids);
    const from = Number(process.hrtime.bigint() / 1000n);
    const r = await load({ url: g.url, auth: g.auth, body: g.body, connections, seconds: duration });
    const settleMs = await ours.settle();
    const to = Number(process.hrtime.bigint() / 1000n);
    const cpu = cpuPerRequest(before, cpuTimes(ours.pids), r.requests.total);
    const threadsAfter = Object.fromEntries(Object.entries(nodePids).map(([k, pid]) => [k, threadTimes(pid)]));
    const n = r.requests.total;
    const s = summary(r);
    const total = Object.entries(cpu)
      .filter(([k]) => k !== 'load generator')
      .reduce((a, [, v]) => a + v, 0);
    const out = (/** @type {string} */ l) => process.stdout.write(`${l}\n`);
    out(
      `\n${grantName}, ${connections} connections, ${duration} s, profiler ${profile ? `on (${interval} µs)` : 'off'}, ${alone ? `${alone} alone on CPU 1, the rest on CPU 0` : 'the server on CPU 1, the load on CPU 0'}: ${s.rps} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, ${n} requests, non-2xx ${s.non2xx}, errors ${s.errors}; load average ${loadavg()[0].toFixed(2)}`,
    );
    out(
      `CPU-ms per request from /proc (all threads, read ${settleMs} ms after the load once the audit backlog was stored): ${Object.entries(
        cpu,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; summed (load generator excluded) ${total.toFixed(3)}`,
    );
    for (const [k, after] of Object.entries(threadsAfter)) {
      const b = threadsBefore[k];
      const parts = Object.entries(after)
        .map(([t, ms]) => [t, (ms - (b[t] ?? 0)) / n])
        .filter(([, v]) => Number(v) > 0)
        .sort((x, y) => Number(y[1]) - Number(x[1]));
      out(`  ${k} by thread (CPU-ms/request): ${parts.map(([t, v]) => `${t} ${Number(v).toFixed(3)}`).join(', ')}`);
    }
    /** @type {any} */
    const json = {
      bench: 'profile',
      alone: alone || undefined,
      grant: grantName,
      connections,
      duration,
      profile,
      interval,
      ...s,
      requests: n,
      cpuMsPerRequest: cpu,
      cpuMsTotal: +total.toFixed(3),
      settleMs,
      window: { from, to },
      profiles: {},
    };
    await ours.stop();
    if (pinning) pin(process.pid, `0-${cpus().length - 1}`);
    if (profile) {
      for (const label of Object.values(PROFILED)) {
        const dir = join(outDir, label);
        const files = readdirSync(dir)
          .filter((f) => f.endsWith('.cpuprofile'))
          .map((f) => join(dir, f));
        if (!files.length) {
          out(`\n${label}: no profile written`);
          continue;
        }
        const p = summarize(files, { from, to });
        // Group shares from the profile, in CPU-ms per request of the process's JS thread measured from /proc.
        const jsThread =
          ((threadsAfter[label]?.['main (JS) thread'] ?? 0) - (threadsBefore[label]?.['main (JS) thread'] ?? 0)) / n;
        out(
          `\n${label}: ${p.totalMs.toFixed(0)} ms sampled on the JS thread in ${p.wallMs.toFixed(0)} ms (${(p.totalMs / n).toFixed(4)} ms/request; /proc says ${jsThread.toFixed(4)}); shares below in /proc's CPU-ms/request (${files.join(' ')})`,
        );
        const groups = [...p.byGroup.entries()].sort((a, b) => b[1] - a[1]);
        const ms = (/** @type {number} */ x) => ((x / p.totalMs) * jsThread).toFixed(4);
        for (const [grp, v] of groups)
          out(`  ${(((v / p.totalMs) * 100).toFixed(1) + '%').padStart(6)}  ${ms(v)} ms/req  ${grp}`);
        out(`  top ${top} frames by self time:`);
        for (const [k, v] of [...p.byFunction.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, top))
          out(`  ${(((v.ms / p.totalMs) * 100).toFixed(1) + '%').padStart(6)}  ${ms(v.ms)} ms/req  ${k}  [${v.group}]`);
        json.profiles[label] = {
          files,
          sampledMsPerRequest: +(p.totalMs / n).toFixed(4),
          jsThreadCpuMsPerRequest: +jsThread.toFixed(4),
          groups: Object.fromEntries(groups.map(([grp, v]) => [grp, +ms(v)])),
        };
      }
    }
    out(JSON.stringify(json));
  } catch (err) {
    await ours.stop().catch(() => undefined);
    throw err;
  } finally {
    if (pinning) pin(process.pid, `0-${cpus().length - 1}`);
  }
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
