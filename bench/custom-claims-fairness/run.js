// @ts-check
/**
 * Fairness of the customizeUserInfoClaims sandbox across tenants: one tenant's script must not slow another's. One real oidc-core (the whole
 * topology as processes, FerretDB, NATS). Tenant A's client has the script `while (true) {}`; tenant B's client a
 * working script. B's users call UserInfo one after the other (`--b-connections` loops), and every answer is checked
 * for B's custom_claims. In the same run:
 *
 *   1. B alone;
 *   2. B while A floods UserInfo with a harmless script at `--connections` (64) concurrent calls: the cost of A's
 *      HTTP load alone, for reference;
 *   3. B while A floods UserInfo with `while (true) {}` at 64 concurrent calls (the attack; production defaults, so
 *      the breaker opens after 5 timeouts and A's script is skipped from then on);
 *   4. and 5. the same as 1 and 3 on a second oidc-core process whose breaker never opens
 *      (CUSTOM_CLAIMS_BREAKER_FAILURES=1000): what the fair scheduling alone does, A's script running all along.
 *
 * It prints B's p50/p99 (ms) in each phase, A's request rate and what A's scripts did (from /metrics), and the
 * target: B's p99 under attack at most 2x its p99 alone, and B never without its custom_claims.
 *
 *   npx tsc -b tsconfig.build.json && node bench/custom-claims-fairness/run.js [--duration 10] [--connections 64] [--b-connections 1] [--env TENANT_MAX_IN_FLIGHT=4,...]
 *
 * `--env` sets oidc-core environment variables (both processes), to compare settings such as the per-tenant
 * admission limits (TENANT_MAX_IN_FLIGHT, TENANT_MAX_QUEUED) or the sandbox's.
 *
 * UserInfo is called with JWT access tokens for the tenant's UserInfo audience (as oidc-core issues them with
 * `resource={issuer}/me`), signed here with the tenant's key, so no login is needed. Uses MONGODB_URI / NATS_URL when
 * set, else starts FerretDB and nats-server from .tools/bin.
 */
const { spawn } = require('node:child_process');
const { availableParallelism, cpus } = require('node:os');
const { join } = require('node:path');
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { createClient, freePort, repoRoot, seedDelegationTenant, waitForPort } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');
const { run } = require('../reference-server');
const { arg, cpuTimes, oidcEnvArg } = require('../common');

const TENANT_A = 5201;
const TENANT_B = 5202;
const seconds = Number(arg('duration', '10'));
const connections = Number(arg('connections', '64'));
const bConnections = Number(arg('b-connections', '1'));
const oidcEnv = oidcEnvArg();
const LOOP = 'while (true) {}';
const HARMLESS = 'return { ok: true };';
const MAPPER = 'return { dept: input.user.custom_claims.dept, tenant: input.context.tenantId };';

/** @param {number[]} xs @param {number} q */
const pct = (xs, q) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((q / 100) * xs.length) - 1)] : 0;
const r1 = (/** @type {number} */ x) => Math.round(x * 10) / 10;

/**
 * B's calls for `ms` milliseconds over `loops` sequential loops; every answer must carry B's custom_claims.
 * @param {string} url @param {string} token @param {number} ms @param {number} loops @param {unknown} expected
 */
async function bystander(url, token, ms, loops, expected) {
  const latencies = [];
  let lost = 0;
  let non200 = 0;
  const want = JSON.stringify(expected);
  const end = performance.now() + ms;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        const body = /** @type {Record<string, unknown>} */ (await res.json());
        latencies.push(performance.now() - started);
        if (res.status !== 200) non200++;
        else if (JSON.stringify(body.custom_claims) !== want) lost++;
      }
    }),
  );
  return {
    calls: latencies.length,
    p50: r1(pct(latencies, 50)),
    p99: r1(pct(latencies, 99)),
    max: r1(Math.max(...latencies)),
    lost,
    non200,
  };
}

/** Tenant A's flood in a child process (flood.js). @param {string} url @param {string} token */
function flood(url, token) {
  const child = spawn(
    process.execPath,
    [join(__dirname, 'flood.js'), url, token, String(connections), String(seconds)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`flood.js exited ${code}`))));
  });
}

/**
 * Counters of tenant A's scripts from /metrics, and the per-tenant admission's: requests of A and of B that waited
 * for one of their tenant's in-flight slots, and A's refused for a full queue. @param {number} port
 */
async function scriptCounters(port) {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  /** @type {Record<string, number>} */
  const out = { timeout: 0, memory: 0, busy: 0, skipped: 0, aQueued: 0, aRejected: 0, bQueued: 0 };
  for (const line of text.split('\n')) {
    if (line.startsWith(`idp_tenant_requests_queued_total{`) && line.includes(`tenant="${TENANT_B}"`))
      out.bQueued += Number(line.split(' ').at(-1));
    if (!line.includes(`tenant="${TENANT_A}"`)) continue;
    const value = Number(line.split(' ').at(-1));
    if (line.startsWith('idp_custom_claims_script_skipped_total')) out.skipped += value;
    if (line.startsWith('idp_tenant_requests_queued_total{')) out.aQueued += value;
    if (line.startsWith('idp_tenant_requests_rejected_total{')) out.aRejected += value;
    const m = /^idp_custom_claims_script_errors_total\{[^}]*reason="([a-z_]+)"/.exec(line);
    if (m) out[m[1]] = (out[m[1]] ?? 0) + value;
  }
  return out;
}

/** @param {Record<string, number>} before @param {Record<string, number>} after */
const delta = (before, after) => Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));

/** Processes whose CPU share each phase reports. @type {Record<string, number | undefined>} */
const watched = {};

/**
 * One phase: B's calls for `seconds`, with A's flood at the same time when `aToken` is given.
 * @param {string} label @param {number} port @param {{ b: string, a?: string, expected: unknown }} t
 */
async function phase(label, port, t) {
  const base = `http://127.0.0.1:${port}`;
  const before = await scriptCounters(port);
  const cpuBefore = cpuTimes(watched);
  const started = performance.now();
  const [b, a] = await Promise.all([
    bystander(`${base}/auth/${TENANT_B}/me`, t.b, seconds * 1000, bConnections, t.expected),
    t.a ? flood(`${base}/auth/${TENANT_A}/me`, t.a) : Promise.resolve(undefined),
  ]);
  const elapsed = performance.now() - started;
  const cpuAfter = cpuTimes(watched);
  // Share of one CPU each process used during the phase (1.0 = a whole core).
  const cpu = Object.fromEntries(
    Object.keys(cpuAfter).map((k) => [k, +((cpuAfter[k] - (cpuBefore[k] ?? 0)) / elapsed).toFixed(2)]),
  );
  if (a?.cpuMs !== undefined) cpu["A's flood"] = +(a.cpuMs / elapsed).toFixed(2);
  const scripts = delta(before, await scriptCounters(port));
  // Let A's last queued scripts and the breaker settle before the next phase.
  await new Promise((r) => setTimeout(r, 1500));
  return { label, b, a, scripts, cpu };
}

async function main() {
  const infra = await startLocalInfra(`idp_bench_ccf_${Date.now()}`);
  const topology = await startTopology({
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    logLevel: 'warn',
    stdio: 'ignore',
    extraEnv: { 'oidc-core': oidcEnv },
  });
  const db = await connectDatabase(infra.mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let second;
  try {
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const pepper = topology.secrets.clientSecretPepper;
    /** @type {Record<string, string>} */
    const tokens = {};
    for (const [tenantId, clients] of /** @type {Array<[number, Record<string, string>]>} */ ([
      [TENANT_A, { looping: LOOP, harmless: HARMLESS }],
      [TENANT_B, { scripted: MAPPER }],
    ])) {
      const tenant = await seedDelegationTenant(db.models, keyStore, { tenantId, clientSecretPepper: pepper });
      await db.models.User.updateOne(
        { tenantId, _id: tenant.user.id },
        { $set: { customClaims: { dept: `dept-${tenantId}` } } },
      );
      const keys = await keyStore.load(tenantId);
      const jwk = keys.signing.find((k) => k.alg === 'ES256');
      if (!jwk) throw new Error('no ES256 key');
      const issuer = `${topology.baseUrl}/auth/${tenantId}`;
      for (const [clientId, script] of Object.entries(clients)) {
        await createClient(db.models, pepper, {
          tenantId,
          clientId,
          name: clientId,
          grantTypes: ['authorization_code'],
          redirectUris: ['https://app.example/cb'],
          firstParty: true,
        });
        await db.models.Client.updateOne(
          { tenantId, clientId },
          { $set: { 'config.customizeUserInfoClaims': script } },
        );
        const now = Math.floor(Date.now() / 1000);
        tokens[clientId] = await new SignJWT({
          client_id: clientId,
          'org.vendor.userinfo.scope': 'openid email custom_claims',
        })
          .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
          .setIssuer(issuer)
          .setSubject(tenant.user.id)
          .setAudience(`${issuer}/me`)
          .setIssuedAt(now)
          .setExpirationTime(now + 3600)
          .setJti(`bench-${clientId}`)
          .sign(await importJWK(jwk, 'ES256'));
      }
    }
    const expected = { dept: `dept-${TENANT_B}`, tenant: TENANT_B };

    // The second oidc-core: same environment, its own port, a breaker that never opens.
    const secondPort = await freePort();
    const env = {
      ...topology.services['oidc-core'].env,
      PORT: String(secondPort),
      CUSTOM_CLAIMS_BREAKER_FAILURES: '1000',
    };
    second = spawn(process.execPath, [join(repoRoot(), 'services', 'oidc-core', 'dist', 'main.js')], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'ignore',
    });
    await waitForPort(secondPort, 30_000, second);

    const mainPort = topology.services['oidc-core'].port;
    Object.assign(watched, {
      'oidc-core': topology.services['oidc-core'].process.pid,
      'oidc-core 2': second.pid,
      ferretdb: infra.servers.ferretdb?.process.pid,
    });
    for (const port of [mainPort, secondPort]) {
      // Warm-up: the tenants' providers built, the sandbox workers started, the JIT warm.
      const res = await fetch(`http://127.0.0.1:${port}/auth/${TENANT_B}/me`, {
        headers: { authorization: `Bearer ${tokens.scripted}` },
      });
      if (res.status !== 200) throw new Error(`UserInfo answered ${res.status}: ${await res.text()}`);
      await bystander(`http://127.0.0.1:${port}/auth/${TENANT_B}/me`, tokens.scripted, 2000, bConnections, expected);
    }

    const rows = [
      await phase('B alone', mainPort, { b: tokens.scripted, expected }),
      await phase('B + A flooding, harmless script', mainPort, { b: tokens.scripted, a: tokens.harmless, expected }),
      await phase('B + A flooding, while(true){}', mainPort, { b: tokens.scripted, a: tokens.looping, expected }),
      await phase('B alone (breaker never opens)', secondPort, { b: tokens.scripted, expected }),
      await phase('B + A flooding, while(true){} (breaker never opens)', secondPort, {
        b: tokens.scripted,
        a: tokens.looping,
        expected,
      }),
    ];

    process.stdout.write(
      `\ncustomizeUserInfoClaims fairness, ${seconds}s per phase, A at ${connections} connections, B at ${bConnections} (node ${process.version}, ${cpus().length} cores, availableParallelism ${availableParallelism()}, oidc-core defaults${
        Object.keys(oidcEnv).length
          ? ` but ${Object.entries(oidcEnv)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''
      })\n`,
    );
    process.stdout.write(
      'phase                                                |  B calls  p50 ms  p99 ms  max ms  lost  non-200 |  A req/s  A p99 | A scripts: timeout memory busy skipped | queued A/B, A refused\n',
    );
    for (const r of rows) {
      const a = r.a
        ? `${String(r.a.rps).padStart(8)} ${String(r.a.p99).padStart(6)}`
        : `${'-'.padStart(8)} ${'-'.padStart(6)}`;
      const s = r.scripts;
      process.stdout.write(
        `${r.label.padEnd(52)} | ${String(r.b.calls).padStart(8)} ${String(r.b.p50).padStart(7)} ${String(r.b.p99).padStart(7)} ${String(r.b.max).padStart(7)} ${String(r.b.lost).padStart(5)} ${String(r.b.non200).padStart(8)} | ${a} | ${s.timeout} ${s.memory} ${s.busy} ${s.skipped} | ${s.aQueued}/${s.bQueued}, ${s.aRejected}\n`,
      );
    }
    process.stdout.write(
      "\nCPU used per phase, in cores (oidc-core 2: the process whose breaker never opens; load generator: B's loop; A's flood: its own process, autocannon):\n",
    );
    for (const r of rows)
      process.stdout.write(
        `  ${r.label.padEnd(52)} ${Object.entries(r.cpu)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}\n`,
      );
    const verdict = (/** @type {any} */ alone, /** @type {any} */ attacked) => ({
      p99Ratio: alone.b.p99 ? +(attacked.b.p99 / alone.b.p99).toFixed(2) : 0,
      p50Ratio: alone.b.p50 ? +(attacked.b.p50 / alone.b.p50).toFixed(2) : 0,
      lost: attacked.b.lost + alone.b.lost,
    });
    const prod = verdict(rows[0], rows[2]);
    const sched = verdict(rows[3], rows[4]);
    const reference = verdict(rows[0], rows[1]);
    const ok = (/** @type {any} */ v) => (v.p99Ratio <= 2 && v.lost === 0 ? 'met' : 'NOT met');
    process.stdout.write(`\ntarget (B's p99 under attack <= 2x alone, no custom_claims lost):\n`);
    process.stdout.write(
      `  production defaults:  p99 x${prod.p99Ratio} (p50 x${prod.p50Ratio}), lost ${prod.lost}: ${ok(prod)}\n`,
    );
    process.stdout.write(
      `  breaker never opens:  p99 x${sched.p99Ratio} (p50 x${sched.p50Ratio}), lost ${sched.lost}: ${ok(sched)}\n`,
    );
    process.stdout.write(
      `  reference, A's harmless flood (HTTP load only): p99 x${reference.p99Ratio} (p50 x${reference.p50Ratio})\n`,
    );
    process.stdout.write(
      `${JSON.stringify({ bench: 'custom-claims-fairness', seconds, connections, bConnections, env: oidcEnv, cores: cpus().length, rows, targets: { production: prod, breakerNeverOpens: sched, harmlessReference: reference } })}\n`,
    );
  } finally {
    second?.kill('SIGTERM');
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await topology.stop();
    await infra.stop();
  }
}

run(main);
