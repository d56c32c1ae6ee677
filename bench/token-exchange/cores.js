// @ts-check
/**
 * The exchange pipeline with each process on its own core, against the express+jose ceiling on a core of its own,
 * in one run (the target: "p99 at 32 connections at most 1.5x the ceiling's, throughput at least 0.8 of it, with each
 * process on its own core"). Needs 8 CPUs or more; on fewer it still runs (CPUs are reused, modulo their count)
 * and says that its figures are not the layout's.
 *
 *   npx tsc -b tsconfig.build.json && node bench/token-exchange/cores.js [--duration 10] [--warmup 10] [--rounds 3]
 *     [--connections 32] [--gomaxprocs 1] [--env K=V,...] [--sidecar-env GRANT_CACHE_TTL_MS=5000,...]
 *
 * Layout (taskset -a, every thread of each process): CPU 0 the load generator (autocannon in this process), 1 the
 * ceiling, 2 oidc-core, 3 the nhe-delegation sidecar, 4 the audit-writer, 5 nats-server, 6 FerretDB, 7 management
 * and signals (idle, off the path). The request is bench/peers' real NHE exchange (bench/peers/ours.js): the subject
 * token names a stored grant, so the sidecar reads it as every real exchange does; each token's audit event is acked
 * by JetStream before the answer and stored by the writer. Pipeline and ceiling are measured in interleaved rounds
 * (2 s not counted, then `--duration` s each); each one's row is its median round by req/s, its p99 the median p99.
 * After each pipeline round the writer's backlog is stored before the CPU is read. At the end: one audit row per
 * exchange issued.
 *
 * nats-server and FerretDB are Go programs: pinned after they start, they would keep one scheduler thread per CPU
 * of the machine on their one core. They start with GOMAXPROCS=1 (`--gomaxprocs`, 0 leaves it unset), what Go
 * (1.25 and later) sets by itself in a container limited to one CPU.
 */
const { execFileSync } = require('node:child_process');
const { cpus, loadavg } = require('node:os');
const { join } = require('node:path');
const { run } = require('../reference-server');
const { arg, cpuPerRequest, cpuTimes, load, oidcEnvArg, sidecarEnvArg, startReference, summary } = require('../common');
const { startOurs } = require('../peers/ours');

const LAYOUT = {
  'load generator': 0,
  ceiling: 1,
  'oidc-core': 2,
  sidecar: 3,
  'audit-writer': 4,
  'nats-server': 5,
  ferretdb: 6,
  idle: 7,
};
/** The targets at 32 connections, each process on its own core. */
const TARGET = { throughput: 0.8, p99: 1.5 };

/** @param {number | undefined} pid @param {number | string} cpu */
function pin(pid, cpu) {
  if (!pid) return;
  try {
    execFileSync('taskset', ['-apc', String(cpu), String(pid)], { stdio: 'ignore' });
  } catch {
    // gone
  }
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function main() {
  const seconds = Number(arg('duration', '10'));
  const warmup = Number(arg('warmup', '10'));
  const rounds = Math.max(1, Number(arg('rounds', '3')) || 1);
  const connectionSets = arg('connections', '32').split(',').map(Number);
  const gomaxprocs = arg('gomaxprocs', '1');
  if (gomaxprocs !== '0') process.env.GOMAXPROCS = gomaxprocs;
  const n = cpus().length;
  const cpu = (/** @type {keyof typeof LAYOUT} */ name) => LAYOUT[name] % n;
  const say = (/** @type {string} */ s) => process.stderr.write(`${s}\n`);
  const start = loadavg().map((x) => +x.toFixed(2));
  say('starting the topology and the ceiling...');
  const ours = await startOurs({ oidcEnv: oidcEnvArg(), sidecarEnv: sidecarEnvArg() });
  const ceiling = await startReference(join(__dirname, 'ceiling.js'));
  const topologyIdle = ours.serverPids.filter((p) => !Object.values(ours.pids).includes(p));
  let answered = 0;
  let sent = 0;
  try {
    pin(process.pid, cpu('load generator'));
    pin(ceiling.pid, cpu('ceiling'));
    for (const [name, pid] of Object.entries(ours.pids)) pin(pid, cpu(/** @type {keyof typeof LAYOUT} */ (name)));
    for (const pid of topologyIdle) pin(pid, cpu('idle'));
    const pipelineRequest = ours.tokenExchange;
    const ceilingRequest = {
      url: `http://127.0.0.1:${ceiling.port}/token`,
      auth: pipelineRequest.auth,
      body: pipelineRequest.body,
    };
    for (const r of [pipelineRequest, ceilingRequest]) {
      const res = await fetch(r.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: r.auth },
        body: r.body,
      });
      if (res.status !== 200) throw new Error(`${r.url} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    answered += 1;
    sent += 1;
    const counted = async (/** @type {number} */ connections, /** @type {number} */ s) => {
      const r = await load({ ...pipelineRequest, connections, seconds: s });
      answered += r['2xx'] ?? 0;
      sent += r.requests.sent ?? 0;
      return r;
    };
    const top = Math.max(...connectionSets);
    say(`warming up ${warmup}s each at ${top} connections`);
    await counted(top, warmup);
    await load({ ...ceilingRequest, connections: top, seconds: warmup });
    const results = [];
    for (const connections of connectionSets) {
      /** @type {any[]} */
      const pipeline = [];
      /** @type {any[]} */
      const ceil = [];
      for (let round = 0; round < rounds; round++) {
        await counted(connections, 2);
        await ours.settle();
        const pids = { ...ours.pids };
        const before = cpuTimes(pids);
        const r = await counted(connections, seconds);
        const settleMs = await ours.settle();
        pipeline.push({
          ...summary(r),
          cpuMsPerRequest: cpuPerRequest(before, cpuTimes(pids), r.requests.total),
          settleMs,
        });
        await load({ ...ceilingRequest, connections, seconds: 2 });
        const cBefore = cpuTimes({ ceiling: ceiling.pid });
        const c = await load({ ...ceilingRequest, connections, seconds });
        ceil.push({
          ...summary(c),
          cpuMsPerRequest: cpuPerRequest(cBefore, cpuTimes({ ceiling: ceiling.pid }), c.requests.total),
        });
        const p = pipeline[round];
        say(
          `  ${connections} connections, round ${round + 1}: pipeline ${p.rps} req/s p99 ${p.p99} ms (settled in ${p.settleMs} ms); ceiling ${ceil[round].rps} req/s p99 ${ceil[round].p99} ms`,
        );
      }
      const row = (/** @type {any[]} */ xs) => ({
        ...xs.find((x) => x.rps === median(xs.map((y) => y.rps))),
        p99: median(xs.map((x) => x.p99)),
        rounds: xs.map((x) => ({ rps: x.rps, p50: x.p50, p99: x.p99 })),
      });
      const p = row(pipeline);
      const c = row(ceil);
      const throughput = +(p.rps / c.rps).toFixed(2);
      const p99 = +(p.p99 / c.p99).toFixed(2);
      results.push({
        connections,
        pipeline: p,
        ceiling: c,
        throughput,
        p99,
        met: { throughput: throughput >= TARGET.throughput, p99: p99 <= TARGET.p99 },
      });
    }
    const audit = await ours.auditRows();
    const model = cpus()[0]?.model ?? '?';
    const out = (/** @type {string} */ s) => process.stdout.write(`${s}\n`);
    out(
      `\nThe exchange pipeline, each process on its own core, vs the express+jose ceiling (node ${process.version}, ${n} CPUs, ${model}); ${warmup}s warm-up, ${rounds} interleaved rounds of 2s + ${seconds}s; GOMAXPROCS ${process.env.GOMAXPROCS ?? 'unset'}${
        Object.keys(sidecarEnvArg()).length
          ? `; sidecar ${Object.entries(sidecarEnvArg())
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      }; load average ${start.join(' ')} at the start`,
    );
    if (n < 8)
      out(
        `  NOTE: ${n} CPUs, fewer than the layout's 8: processes share CPUs (modulo ${n}), so these are not one-core-each figures`,
      );
    out(
      `  layout: ${Object.entries(LAYOUT)
        .map(([k, v]) => `${k} ${v % n}`)
        .join(', ')}`,
    );
    for (const r of results) {
      out(
        `  ${r.connections} connections: pipeline ${r.pipeline.rps} req/s, p50 ${r.pipeline.p50} ms, p99 ${r.pipeline.p99} ms | ceiling ${r.ceiling.rps} req/s, p50 ${r.ceiling.p50} ms, p99 ${r.ceiling.p99} ms`,
      );
      out(
        `    throughput ${r.throughput} of the ceiling's (target >= ${TARGET.throughput}: ${r.met.throughput ? 'met' : 'NOT met'}); p99 ${r.p99}x the ceiling's (target <= ${TARGET.p99}: ${r.met.p99 ? 'met' : 'NOT met'})`,
      );
      out(
        `    rounds, req/s / p99 ms: pipeline ${r.pipeline.rounds.map((x) => `${x.rps}/${x.p99}`).join(', ')}; ceiling ${r.ceiling.rounds.map((x) => `${x.rps}/${x.p99}`).join(', ')}`,
      );
      const busy = Object.entries(r.pipeline.cpuMsPerRequest).map(
        ([k, v]) => `${k} ${v} (${Math.round((v * r.pipeline.rps) / 10)}% of a core)`,
      );
      out(
        `    CPU-ms per exchange (and each process's use of its core): ${busy.join(', ')}; ceiling ${r.ceiling.cpuMsPerRequest.ceiling}`,
      );
    }
    out(
      `  exchanges this run: ${answered} answered 200, ${sent} sent; audit rows ${audit} (${audit >= answered && audit <= sent ? 'one per token issued' : 'NOT between the two'})`,
    );
    out(
      JSON.stringify({
        bench: 'token-exchange/cores',
        node: process.version,
        gomaxprocs: process.env.GOMAXPROCS ?? null,
        sidecarEnv: sidecarEnvArg(),
        cpus: n,
        cpuModel: model,
        layout: LAYOUT,
        seconds,
        warmup,
        rounds,
        results,
        audit: { answered, sent, rows: audit },
      }),
    );
  } finally {
    ceiling.kill();
    await ours.stop();
  }
}

run(main);
