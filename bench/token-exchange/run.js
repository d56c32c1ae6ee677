// @ts-check
/**
 * NHE token exchanges per second and p50/p99 latency through oidc-core + the nhe-delegation sidecar (separate
 * processes exactly as in a pod: client authentication in oidc-core, forward over loopback, subject-token
 * verification, facts from MongoDB, decision, ES256 signing, audit event published to JetStream and acked, with the
 * audit-writer consuming), at 1 and 32 connections, next to an express+jose "sign and respond" ceiling
 * (ceiling.js) measured in the same run, and the ratio. Targets: ratio >= 0.5, p99 < 25 ms at 32.
 *
 *   npx tsc -b tsconfig.build.json && node bench/token-exchange/run.js [--duration 10] [--connections 1,32] [--writer off]
 *     [--only sidecar] [--stages off] [--stage-rounds 3] [--env TENANT_MAX_IN_FLIGHT=4,...]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { execFileSync, spawn } = require('node:child_process');
const { cpus } = require('node:os');
const { join } = require('node:path');
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { freePort, repoRoot, seedDelegationTenant, waitForPort } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');
const { run } = require('../reference-server');
const {
  arg,
  compare,
  cpuPerRequest,
  cpuTimes,
  load,
  oidcEnvArg,
  printComparison,
  startReference,
  summary,
} = require('../common');

const TENANT = 4243;
const seconds = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);
/** `--writer off`: stop the audit-writer during the measurement (events wait in the stream), to see its share. */
const writer = arg('writer', 'on');
/** `--only sidecar`: measure the sidecar alone (quicker, for profiling work); default: both. */
const only = arg('only', 'all');
/** `--stages off`: skip "each stage on a core of its own" (needs taskset and at least 2 cores). */
const stagesMode = arg('stages', 'on');
/** `--stage-rounds N`: how many interleaved rounds of the stage measurement (each stage's median round is reported). */
const stageRounds = Math.max(1, Math.floor(Number(arg('stage-rounds', '3'))) || 1);

/** Pins every thread of a process to one CPU (or a list such as "0-1"). @param {number | undefined} pid @param {string} cpu */
function pin(pid, cpu) {
  if (pid) execFileSync('taskset', ['-apc', cpu, String(pid)], { stdio: 'ignore' });
}

/**
 * Each stage of the exchange on a core of its own, as in a pod where oidc-core and the sidecar each have a CPU:
 * the stage's process is pinned to CPU 1 while the load generator and everything else stay on CPU 0, and is driven
 * to its capacity at the given connection count. Stages: oidc-core (a second oidc-core process answering through
 * stub-sidecar.js: client authentication, grant dispatch, the forward), the sidecar (called as oidc-core calls it,
 * the audit-writer stopped so that only the sidecar's own work and its JetStream publish + ack are measured), and
 * the express+jose ceiling. The pipeline sustains what its slowest stage does.
 * @param {{ topology: any, infra: any, ceiling: { port: number, pid: number | undefined }, auth: string, body: string, sidecarBody: string, connections: number }} o
 */
async function stages(o) {
  const all = `0-${cpus().length - 1}`;
  const others = [
    process.pid,
    o.infra.servers['nats-server']?.process.pid,
    o.infra.servers.ferretdb?.process.pid,
    ...Object.values(o.topology.services).map((s) => /** @type {any} */ (s).process.pid),
  ];
  const stub = await startReference(join(__dirname, 'stub-sidecar.js'));
  const port = await freePort();
  const core = spawn(process.execPath, [join(repoRoot(), 'services', 'oidc-core', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      ...o.topology.services['oidc-core'].env,
      PORT: String(port),
      SIDECAR_URL: `http://127.0.0.1:${stub.port}`,
    },
    stdio: 'ignore',
  });
  const wasWriterOn =
    o.topology.services['audit-writer'].process.exitCode === null &&
    o.topology.services['audit-writer'].process.signalCode === null;
  try {
    await waitForPort(port, 30_000, core);
    if (wasWriterOn) await o.topology.stopService('audit-writer');
    for (const pid of [...others, stub.pid, core.pid, o.ceiling.pid]) pin(pid, '0');
    const measure = async (
      /** @type {string} */ name,
      /** @type {number | undefined} */ pid,
      /** @type {any} */ request,
    ) => {
      pin(pid, '1');
      try {
        await load({ ...request, connections: o.connections, seconds: 2 });
        const before = cpuTimes({ [name]: pid });
        const r = await load({ ...request, connections: o.connections, seconds });
        if (r.non2xx) throw new Error(`${name} stage answered ${r.non2xx} non-2xx responses`);
        return {
          stage: name,
          ...summary(r),
          cpuMsPerRequest: cpuPerRequest(before, cpuTimes({ [name]: pid }), r.requests.total)[name],
        };
      } finally {
        pin(pid, '0');
      }
    };
    const targets = [
      [
        'oidc-core',
        core.pid,
        { url: `http://127.0.0.1:${port}/auth/${TENANT}/oidc/token`, auth: o.auth, body: o.body },
      ],
      [
        'sidecar',
        o.topology.services['nhe-delegation'].process.pid,
        {
          url: `http://127.0.0.1:${o.topology.services['nhe-delegation'].port}/internal/token-exchange`,
          body: o.sidecarBody,
          headers: { 'content-type': 'application/json', 'x-sidecar-secret': o.topology.secrets.sidecarSecret },
        },
      ],
      ['ceiling', o.ceiling.pid, { url: `http://127.0.0.1:${o.ceiling.port}/token`, auth: o.auth, body: o.body }],
    ];
    // Rounds interleave the stages, so that a noisy stretch of the machine (a shared VM) falls on all of them alike;
    // each stage's row is its median round (by throughput, p99 its median too).
    /** @type {Record<string, any[]>} */
    const runs = {};
    for (let round = 0; round < stageRounds; round++) {
      for (const [name, pid, request] of targets) (runs[name] ??= []).push(await measure(name, pid, request));
    }
    const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const rows = targets.map(([name]) => {
      const all = runs[name];
      return {
        ...all.find((r) => r.rps === median(all.map((x) => x.rps))),
        p99: median(all.map((x) => x.p99)),
        rounds: all.map((r) => ({ rps: r.rps, p50: r.p50, p99: r.p99 })),
      };
    });
    const ceilingRow = rows[2];
    const slowest = rows.slice(0, 2).reduce((a, b) => (b.rps < a.rps ? b : a));
    // The real pipeline, as near to a core each as two CPUs allow: oidc-core alone on CPU 1, the sidecar on CPU 0
    // with the load generator, nats-server and the store (the audit-writer still stopped).
    const oidcPid = o.topology.services['oidc-core'].process.pid;
    pin(oidcPid, '1');
    let pipeline;
    try {
      const request = {
        url: `http://127.0.0.1:${o.topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`,
        auth: o.auth,
        body: o.body,
        connections: o.connections,
      };
      await load({ ...request, seconds: 2 });
      const pids = { 'oidc-core': oidcPid, sidecar: o.topology.services['nhe-delegation'].process.pid };
      const before = cpuTimes(pids);
      const r = await load({ ...request, seconds });
      if (r.non2xx) throw new Error(`pipeline answered ${r.non2xx} non-2xx responses`);
      pipeline = { ...summary(r), cpuMsPerRequest: cpuPerRequest(before, cpuTimes(pids), r.requests.total) };
    } finally {
      pin(oidcPid, '0');
    }
    process.stdout.write(
      `\nEach stage on a core of its own (stage pinned to CPU 1, load generator and the rest on CPU 0), ${o.connections} connections, ${seconds}s, median of ${stageRounds} interleaved rounds:\n`,
    );
    for (const r of rows) {
      const each = r.rounds.map((/** @type {any} */ x) => `${x.rps}/${x.p99}`).join(', ');
      process.stdout.write(
        `  ${r.stage.padEnd(9)} ${String(r.rps).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  CPU ${r.cpuMsPerRequest} ms/request   (rounds, req/s / p99 ms: ${each})\n`,
      );
    }
    process.stdout.write(
      `  pipeline bound (its slowest stage, ${slowest.stage}): ${slowest.rps} req/s vs the ceiling's ${ceilingRow.rps}: ratio ${+(slowest.rps / ceilingRow.rps).toFixed(2)}\n`,
    );
    process.stdout.write(
      `  pipeline measured (oidc-core on CPU 1; sidecar, load generator, nats-server, store on CPU 0): ${pipeline.rps} req/s  p50 ${pipeline.p50} ms  p99 ${pipeline.p99} ms  ratio ${+(pipeline.rps / ceilingRow.rps).toFixed(2)}\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ bench: 'token-exchange/stages', seconds, connections: o.connections, rows, bound: +(slowest.rps / ceilingRow.rps).toFixed(2), pipeline })}\n`,
    );
  } finally {
    for (const pid of [...others, stub.pid, core.pid, o.ceiling.pid]) {
      try {
        pin(pid, all);
      } catch {
        // gone
      }
    }
    core.kill('SIGTERM');
    stub.kill();
    if (wasWriterOn) await o.topology.startService('audit-writer');
  }
}

async function main() {
  const infra = await startLocalInfra(`idp_bench_te_${Date.now()}`);
  const mongoUri = infra.mongoUri;
  const topology = await startTopology({
    mongoUri,
    natsUrl: infra.natsUrl,
    logLevel: 'warn',
    stdio: 'ignore',
    extraEnv: { 'oidc-core': oidcEnvArg() },
  });
  if (writer === 'off') await topology.stopService('audit-writer');
  const db = await connectDatabase(mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  /** @type {{ port: number, pid: number | undefined, kill: () => void } | undefined} */
  let ceiling;
  /** @type {{ port: number, pid: number | undefined, kill: () => void } | undefined} */
  let floor;
  try {
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(db.models, keyStore, {
      tenantId: TENANT,
      clientSecretPepper: topology.secrets.clientSecretPepper,
    });

    // The user's access token (as oidc-core issues it after a login), valid for the whole run.
    const keys = await keyStore.load(TENANT);
    const jwk = keys.signing.find((k) => k.alg === 'ES256');
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

    ceiling = await startReference(join(__dirname, 'ceiling.js'));

    const auth = `Basic ${Buffer.from(`${encodeURIComponent(tenant.client.clientId)}:${encodeURIComponent(tenant.client.clientSecret)}`).toString('base64')}`;
    const body = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: tenant.resource,
      scope: 'orders:read',
    }).toString();
    const rows =
      only === 'sidecar'
        ? []
        : await compare({
            ours: `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`,
            ceiling: `http://127.0.0.1:${ceiling.port}/token`,
            auth,
            body,
            connectionSets,
            seconds,
            pids: {
              ours: () => ({
                'oidc-core': topology.services['oidc-core'].process.pid,
                sidecar: topology.services['nhe-delegation'].process.pid,
                'audit-writer': writer === 'off' ? undefined : topology.services['audit-writer'].process.pid,
                'nats-server': infra.servers['nats-server']?.process.pid,
                ferretdb: infra.servers.ferretdb?.process.pid,
              }),
              ceiling: { ceiling: ceiling.pid },
            },
          });
    // The sidecar alone, called as oidc-core calls it (loopback, shared secret, the forwarded JSON): locates the cost.
    const sidecarBody = JSON.stringify({
      tenantId: TENANT,
      clientId: tenant.client.clientId,
      clientNumericId: tenant.client.numericId,
      params: Object.fromEntries(new URLSearchParams(body)),
      sourceIp: '127.0.0.1',
    });
    const sidecarOnly = [];
    const sidecarPids = () => ({
      sidecar: topology.services['nhe-delegation'].process.pid,
      'audit-writer': writer === 'off' ? undefined : topology.services['audit-writer'].process.pid,
      'nats-server': infra.servers['nats-server']?.process.pid,
      ferretdb: infra.servers.ferretdb?.process.pid,
    });
    for (const connections of connectionSets) {
      const before = cpuTimes(sidecarPids());
      const r = await load({
        url: `http://127.0.0.1:${topology.services['nhe-delegation'].port}/internal/token-exchange`,
        body: sidecarBody,
        headers: { 'content-type': 'application/json', 'x-sidecar-secret': topology.secrets.sidecarSecret },
        connections,
        seconds,
      });
      sidecarOnly.push({
        connections,
        ...summary(r),
        cpuMsPerRequest: cpuPerRequest(before, cpuTimes(sidecarPids()), r.requests.total),
      });
    }
    // The floor of oidc-core's share: bare node-oidc-provider authenticating the same client and dispatching the same
    // grant to a handler that answers at once (provider-floor.js). No tuning of oidc-core can go below it.
    floor = await startReference(join(__dirname, 'provider-floor.js'), {
      ...process.env,
      CLIENT_ID: tenant.client.clientId,
      CLIENT_SECRET: tenant.client.clientSecret,
    });
    const floorRows = [];
    for (const connections of only === 'sidecar' ? [] : connectionSets) {
      const url = `http://127.0.0.1:${floor.port}/oidc/token`;
      await load({ url, auth, body, connections, seconds: 2 });
      const before = cpuTimes({ provider: floor.pid });
      const r = await load({ url, auth, body, connections, seconds });
      if (r.non2xx) throw new Error(`provider floor answered ${r.non2xx} non-2xx responses`);
      floorRows.push({
        connections,
        ...summary(r),
        cpuMsPerRequest: cpuPerRequest(before, cpuTimes({ provider: floor.pid }), r.requests.total),
      });
    }
    const audited = await db.models.TokenAudit.countDocuments({ tenantId: TENANT });

    if (rows.length)
      printComparison(
        'token-exchange',
        `NHE token exchanges/s (audit-writer ${writer})`,
        ['oidc-core+sidecar rps', 'express+jose ceiling rps'],
        seconds,
        rows,
      );
    for (const r of sidecarOnly) {
      const cpu = Object.entries(r.cpuMsPerRequest)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      process.stdout.write(
        `sidecar alone, ${r.connections} connection(s): ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}; CPU ms per request: ${cpu}\n`,
      );
    }
    process.stdout.write(`${JSON.stringify({ bench: 'token-exchange/sidecar-alone', seconds, rows: sidecarOnly })}\n`);
    for (const r of floorRows) {
      const ceilingMs = rows.find((x) => x.connections === r.connections)?.ceiling.cpuMsPerRequest?.ceiling;
      process.stdout.write(
        `bare node-oidc-provider, same grant answered at once, ${r.connections} connection(s): ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; CPU ms per request: provider ${r.cpuMsPerRequest.provider}${ceilingMs ? ` (${+(r.cpuMsPerRequest.provider / ceilingMs).toFixed(2)} x the ceiling's)` : ''}\n`,
      );
    }
    if (floorRows.length)
      process.stdout.write(`${JSON.stringify({ bench: 'token-exchange/provider-floor', seconds, rows: floorRows })}\n`);
    if (stagesMode === 'on' && only !== 'sidecar') {
      if (cpus().length < 2)
        process.stdout.write('\n(each stage on a core of its own: skipped, this machine has one CPU)\n');
      else
        await stages({ topology, infra, ceiling, auth, body, sidecarBody, connections: Math.max(...connectionSets) });
    }
    process.stdout.write(`audit rows written so far (writer is asynchronous): ${audited}\n`);
  } finally {
    ceiling?.kill();
    floor?.kill();
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await topology.stop();
    await infra.stop();
  }
}

run(main);
