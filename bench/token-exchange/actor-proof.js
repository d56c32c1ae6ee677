// @ts-check
/**
 * The NHE token exchange with the actor proven (actor_token_type urn:ietf:params:oauth:token-type:jwt,
 * signed by the NHE's registered ES256 key) next to the spec's exchange (actor_token_type nhe-id) in the same run,
 * through oidc-core + the sidecar as processes (the whole topology, audit-writer consuming): req/s, p50/p99, the CPU
 * milliseconds per request of each process, and the ratio proof / plain. Every proven request carries a fresh actor
 * JWT (its jti is single use), signed before the point is measured; rounds alternate plain and proof so drift hits
 * both. Also prints what one ES256 verification costs in this process, the floor of the difference.
 *
 * Two ratios, both 1.0 when the proof costs nothing: proof / plain req/s, and plain / proof CPU milliseconds per
 * exchange (all server processes: oidc-core, sidecar, audit-writer, nats-server, FerretDB; the load generator left
 * out), i.e. the throughput the CPU allows, the figure a busy machine moves least.
 * `--stores jetstream,mongodb` measures each place the actor tokens' single-use jti can be kept (the sidecar's
 * ACTOR_JTI_STORE), restarting the sidecar between them; plain is measured again beside each. The load average
 * (1 min) is printed with each point.
 *
 *   npx tsc -b tsconfig.build.json && node bench/token-exchange/actor-proof.js [--duration 10] [--connections 1,32] [--rounds 2]
 *     [--stores jetstream,mongodb] [--cpu-prof DIR]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { randomUUID } = require('node:crypto');
const { loadavg } = require('node:os');
const autocannon = require('autocannon');
const { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { seedDelegationTenant } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');
const { run } = require('../reference-server');
const { arg, cpuPerRequest, cpuTimes, summary } = require('../common');

const TENANT = 4244;
const seconds = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);
const rounds = Math.max(1, Number(arg('rounds', '2')) || 1);
/** `--cpu-prof DIR`: the sidecar writes a V8 CPU profile there when it stops (node --cpu-prof). */
const cpuProfDir = arg('cpu-prof', '');
const stores = arg('stores', 'jetstream').split(',').filter(Boolean);
/** Processes whose CPU counts as the server's (the load generator is not). */
const SERVER = ['oidc-core', 'sidecar', 'audit-writer', 'nats-server', 'ferretdb'];

/**
 * autocannon POSTing `bodies()` (a fresh body per request when it is a function).
 * @param {{ url: string, auth: string, body: string | (() => string), connections: number, seconds: number }} o
 * @returns {Promise<any>}
 */
function load(o) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: o.auth };
  const next = o.body;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: o.url,
        method: 'POST',
        connections: o.connections,
        duration: o.seconds,
        headers,
        ...(typeof next === 'function'
          ? { requests: [{ setupRequest: (/** @type {any} */ req) => ({ ...req, body: next() }) }] }
          : { body: next }),
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** Median of a list of numbers. @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const infra = await startLocalInfra(`idp_bench_actor_${Date.now()}`);
  const topology = await startTopology({
    mongoUri: infra.mongoUri,
    natsUrl: infra.natsUrl,
    logLevel: 'warn',
    stdio: 'ignore',
    ...(cpuProfDir
      ? { extraEnv: { 'nhe-delegation': { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${cpuProfDir}` } } }
      : {}),
  });
  const db = await connectDatabase(infra.mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  try {
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(db.models, keyStore, {
      tenantId: TENANT,
      clientSecretPepper: topology.secrets.clientSecretPepper,
    });
    const issuer = `${topology.baseUrl}/auth/${TENANT}`;

    // The NHE's own key, registered inline (the sidecar imports it once and keeps it).
    const agent = await generateKeyPair('ES256', { extractable: true });
    const agentJwk = { ...(await exportJWK(agent.publicKey)), kid: 'agent-1', alg: 'ES256', use: 'sig' };
    await db.models.Nhe.updateOne(
      { tenantId: TENANT, identifier: tenant.nhe.identifier },
      { $set: { jwks: { keys: [agentJwk] } } },
    );

    const keys = await keyStore.load(TENANT);
    const jwk = keys.signing.find((k) => k.alg === 'ES256');
    if (!jwk) throw new Error('no ES256 key');
    const now = Math.floor(Date.now() / 1000);
    const subjectToken = await new SignJWT({ scope: 'orders:read orders:write', client_id: tenant.client.clientId })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(tenant.user.id)
      .setAudience(tenant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .setJti('bench-subject')
      .sign(await importJWK(jwk, 'ES256'));
    const auth = `Basic ${Buffer.from(`${encodeURIComponent(tenant.client.clientId)}:${encodeURIComponent(tenant.client.clientSecret)}`).toString('base64')}`;
    const form = (/** @type {string} */ actorToken, /** @type {string} */ actorTokenType) =>
      new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: actorToken,
        actor_token_type: actorTokenType,
        resource: tenant.resource,
        scope: 'orders:read',
      }).toString();
    const plainBody = form(tenant.nhe.identifier, 'urn:vendor:token-type:nhe-id');
    /** Signs `n` actor JWTs (fresh jti each, valid 5 minutes). @param {number} n */
    async function actorBodies(n) {
      const out = [];
      const iat = Math.floor(Date.now() / 1000);
      for (let i = 0; i < n; i++) {
        const jwt = await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: 'agent-1', typ: 'JWT' })
          .setIssuer(tenant.nhe.identifier)
          .setSubject(tenant.nhe.identifier)
          .setAudience(issuer)
          .setIssuedAt(iat)
          .setExpirationTime(iat + 300)
          .setJti(randomUUID())
          .sign(agent.privateKey);
        out.push(form(jwt, 'urn:ietf:params:oauth:token-type:jwt'));
      }
      return out;
    }

    const url = `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`;
    const pids = () => ({
      'oidc-core': topology.services['oidc-core'].process.pid,
      sidecar: topology.services['nhe-delegation'].process.pid,
      'audit-writer': topology.services['audit-writer'].process.pid,
      'nats-server': infra.servers['nats-server']?.process.pid,
      ferretdb: infra.servers.ferretdb?.process.pid,
    });
    /** @param {string | (() => string)} body @param {number} connections */
    async function point(body, connections) {
      const before = cpuTimes(pids());
      // Monotonic microseconds (the clock of a V8 CPU profile's timestamps): a --cpu-prof profile split by point.
      const from = Number(process.hrtime.bigint() / 1000n);
      const r = await load({ url, auth, body, connections, seconds });
      const to = Number(process.hrtime.bigint() / 1000n);
      const cpu = cpuPerRequest(before, cpuTimes(pids()), r.requests.total);
      const server = +SERVER.reduce((sum, name) => sum + (cpu[name] ?? 0), 0).toFixed(3);
      return {
        ...summary(r),
        total: r.requests.total,
        cpuMsPerRequest: { ...cpu, server },
        load1: +loadavg()[0].toFixed(1),
        ...(cpuProfDir ? { window: [from, to] } : {}),
      };
    }

    const rows = [];
    for (const store of stores) {
      // The sidecar again, with this jti store (the topology keeps the env object it starts the service with).
      topology.services['nhe-delegation'].env.ACTOR_JTI_STORE = store;
      await topology.stopService('nhe-delegation');
      await topology.startService('nhe-delegation');
      for (const body of [plainBody, (await actorBodies(1))[0]]) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth },
          body,
        });
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
      }
      for (const connections of connectionSets) {
        await load({ url, auth, body: plainBody, connections, seconds: 2 }); // warm-up
        /** @type {any[]} */ const plain = [];
        /** @type {any[]} */ const proof = [];
        for (let round = 0; round < rounds; round++) {
          const p = await point(plainBody, connections);
          plain.push(p);
          // Enough fresh actor JWTs for this point (plain's pace + 50 %), signed before it starts.
          const pool = await actorBodies(Math.ceil(p.rps * seconds * 1.5) + 500);
          let i = 0;
          const q = await point(() => pool[i++ % pool.length], connections);
          if (i > pool.length)
            process.stdout.write(
              `(pool of ${pool.length} actor JWTs reused: the later requests were refused as replays)\n`,
            );
          proof.push(q);
        }
        const pick = (/** @type {any[]} */ xs) => xs.find((x) => x.rps === median(xs.map((y) => y.rps)));
        const a = pick(plain);
        const b = pick(proof);
        rows.push({
          store,
          connections,
          plain: a,
          proof: b,
          ratio: +(b.rps / a.rps).toFixed(2),
          cpuRatio: +(a.cpuMsPerRequest.server / b.cpuMsPerRequest.server).toFixed(2),
          serverCpuDeltaMs: +(b.cpuMsPerRequest.server - a.cpuMsPerRequest.server).toFixed(3),
          sidecarCpuDeltaMs: +(b.cpuMsPerRequest.sidecar - a.cpuMsPerRequest.sidecar).toFixed(3),
        });
      }
    }

    // One ES256 verification in this process (jose, imported key): the floor of what a proof can add.
    const verifyKey = await importJWK(agentJwk, 'ES256');
    const sample = (await actorBodies(1))[0];
    const token = new URLSearchParams(sample).get('actor_token') ?? '';
    const n = 3000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await jwtVerify(token, verifyKey, { algorithms: ['ES256'] });
    const verifyMs = Number(process.hrtime.bigint() - t0) / 1e6 / n;

    process.stdout.write(
      `\nNHE token exchange, nhe-id (plain) vs actor JWT (proof), through oidc-core + sidecar, ${seconds}s per point, median of ${rounds} round(s)\n`,
    );
    process.stdout.write(
      'jti store | connections | plain rps  p50  p99 load | proof rps  p50  p99 load | rps ratio | server CPU ms/req plain / proof (delta) ratio | sidecar CPU ms/req plain / proof (delta)\n',
    );
    for (const r of rows) {
      const cell = (/** @type {any} */ s) =>
        `${String(s.rps).padStart(9)} ${String(s.p50).padStart(4)} ${String(s.p99).padStart(4)} ${String(s.load1).padStart(4)}`;
      const c = (/** @type {any} */ s) => s.cpuMsPerRequest;
      process.stdout.write(
        `${r.store.padStart(9)} | ${String(r.connections).padStart(11)} | ${cell(r.plain)} | ${cell(r.proof)} | ${String(r.ratio).padStart(9)} | ${c(r.plain).server} / ${c(r.proof).server} (+${r.serverCpuDeltaMs}) ${r.cpuRatio} | ${c(r.plain).sidecar} / ${c(r.proof).sidecar} (+${r.sidecarCpuDeltaMs})${r.proof.non2xx ? `, proof non-2xx ${r.proof.non2xx}` : ''}\n`,
      );
    }
    process.stdout.write(
      'CPU ratio = plain / proof server CPU ms per exchange (1.0: the proof costs nothing), the throughput the CPU allows\n',
    );
    process.stdout.write(`one ES256 jwtVerify in this process: ${verifyMs.toFixed(3)} ms\n`);
    process.stdout.write(
      `${JSON.stringify({ bench: 'token-exchange/actor-proof', seconds, rounds, verifyMs: +verifyMs.toFixed(3), rows })}\n`,
    );
  } finally {
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    await topology.stop();
    await infra.stop();
  }
}

run(main);
