#!/usr/bin/env node
/**
 * bench/ciba: what 1,000 concurrent pending backchannel authentication requests (OpenID CIBA Core 1.0) cost: store
 * writes per request and per poll, bytes stored per pending request, oidc-core heap held while they wait, and the
 * request rate; beside a baseline from the same run, 1,000 pending device authorizations (RFC 8628), node-oidc-provider's
 * other "waiting for the person" grant, through the same app, store and adapter. Runs the built code
 * (npx tsc -b tsconfig.build.json first) in one process: oidc-core's app and the nhe-delegation sidecar on loopback
 * ports (the CIBA check before the person is asked is a sidecar call), store writes counted by mongoose's debug hook.
 *
 *   node --expose-gc bench/ciba/bench.js                 # 1,000 requests, 50 in flight
 *   BENCH_REQUESTS=5000 BENCH_CONCURRENCY=100 node --expose-gc bench/ciba/bench.js
 *
 * MONGODB_URI: use this server; otherwise a local FerretDB is started (tools/).
 */
const { randomInt } = require('node:crypto');
const { createServer } = require('node:http');
const { performance } = require('node:perf_hooks');
const mongoose = require('mongoose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { KeyEncryptionKey, KeyStore, hashPassword } = require('@idp/tokens');
const { createClient, ensureTools, seedDelegationTenant, startFerretDb, withDatabase } = require('@idp/testing');
const { createApp } = require('@idp/oidc-core/dist/app');
const { TenantPool } = require('@idp/oidc-core/dist/tenants/tenant-pool');
const { LoginThrottle } = require('@idp/oidc-core/dist/domain/login-throttle');
const { sidecarForwarder } = require('@idp/oidc-core/dist/provider/grants/sidecar-forwarder');
const { createApp: createSidecarApp } = require('@idp/nhe-delegation/dist/app');
const { cachedKeys } = require('@idp/nhe-delegation/dist/domain/key-cache');

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** People asked: 5 requests each by default (the tenant's default per-person limit of pending requests). */
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? Math.ceil(REQUESTS / 5));
const PEPPER = 'p'.repeat(40);
const SECRET = 'bench-sidecar-secret-'.padEnd(48, 'x');
const logger = createLogger({ service: 'bench', level: 'silent' });
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** Store operations by collection and method, from mongoose's debug hook (every query and write the models make). */
const ops = new Map();
mongoose.set('debug', (collection, method) => {
  const key = `${collection}.${method}`;
  ops.set(key, (ops.get(key) ?? 0) + 1);
});
const WRITES = new Set([
  'insertOne',
  'insertMany',
  'replaceOne',
  'updateOne',
  'updateMany',
  'findOneAndUpdate',
  'deleteOne',
  'deleteMany',
  'bulkWrite',
]);
function snapshot() {
  const out = { writes: 0, reads: 0, byOp: {} };
  for (const [k, v] of ops) {
    const method = k.split('.').pop();
    if (WRITES.has(method)) out.writes += v;
    else out.reads += v;
    out.byOp[k] = v;
  }
  return out;
}
function diff(a, b) {
  const byOp = {};
  for (const [k, v] of Object.entries(b.byOp)) if (v - (a.byOp[k] ?? 0)) byOp[k] = v - (a.byOp[k] ?? 0);
  return { writes: b.writes - a.writes, reads: b.reads - a.reads, byOp };
}
function heapMiB() {
  global.gc?.();
  global.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

async function pool(n, concurrency, task) {
  let next = 0;
  let failed = 0;
  let done = 0;
  const t0 = performance.now();
  const statuses = {};
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const status = await task(i).catch(() => 0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        done++;
        if (process.env.BENCH_PROGRESS && done % 100 === 0)
          process.stderr.write(`  ${done}/${n} at ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
        if (status !== 200) failed++;
      }
    }),
  );
  return { failed, statuses };
}

const basic = (id, secret) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

async function main() {
  const started = [];
  // No NATS: no token is minted here (the sidecar's CIBA check and the store are what a pending request costs).
  let mongoBase = process.env.MONGODB_URI;
  if (!mongoBase) {
    ensureTools('ferretdb');
    const s = await startFerretDb();
    started.push(s);
    mongoBase = s.url;
  }
  const db = await connectDatabase(withDatabase(mongoBase, `bench_ciba_${Date.now().toString(36)}`), logger);
  await db.syncIndexes();
  const servers = [];
  try {
    const { models } = db;
    const keyStore = new KeyStore(models, new KeyEncryptionKey('k'.repeat(40)));
    const T = randomInt(10_000, 1_000_000);
    const tenant = await seedDelegationTenant(models, keyStore, { tenantId: T, clientSecretPepper: PEPPER });
    await models.Tenant.updateOne(
      { _id: T },
      {
        $set: {
          'settings.backchannelAuthentication': {
            enabled: true,
            requestLifetimeSeconds: 600,
            maxPendingPerUser: 5,
            pollIntervalSeconds: 5,
          },
        },
      },
    );
    // PEOPLE people, each with up to 5 pending requests (the per-person limit), all in one group the NHE's policy names.
    const group = await models.Group.create({ tenantId: T, name: 'bench-people' });
    const role = await models.Role.findOne({ tenantId: T, name: 'orders-clerk' }).lean();
    const passwordHash = await hashPassword('bench password 1');
    const people = Array.from({ length: PEOPLE }, (_, i) => ({
      tenantId: T,
      username: `person-${i}`,
      passwordHash,
      roleIds: [String(role._id)],
      groupIds: [String(group._id)],
      claims: {},
    }));
    for (let i = 0; i < people.length; i += 500) await models.User.insertMany(people.slice(i, i + 500));
    await models.DelegationPolicy.create({
      tenantId: T,
      nheId: tenant.nhe.id,
      target: { type: 'group', id: String(group._id) },
      allowedScopes: ['orders:read', 'orders:write'],
    });
    const ciba = await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'bench-ciba',
      name: 'Bench CIBA',
      grantTypes: ['urn:openid:params:grant-type:ciba'],
      delegationEnabled: true,
    });
    await models.Client.updateOne(
      { tenantId: T, clientId: 'bench-ciba' },
      { $set: { backchannelTokenDeliveryMode: 'poll', 'config.nhe.allowedNheIdentifiers': ['orders-agent'] } },
    );
    const device = await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'bench-device',
      name: 'Bench Device',
      grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
    });

    // The sidecar (no NATS needed for check-only requests: no token is minted here).
    let base = '';
    const { listener: sidecarListener } = createSidecarApp({
      logger,
      models,
      sidecarSecret: SECRET,
      issuerFor: (t) => `${base}/auth/${t}`,
      keysFor: cachedKeys(keyStore, 30_000),
      publishIssued: async () => undefined,
      readiness: [],
    });
    const sidecar = createServer(sidecarListener);
    await new Promise((r) => sidecar.listen(0, '127.0.0.1', r));
    servers.push(sidecar);
    const tenantPool = new TenantPool({
      models,
      keyStore,
      logger,
      get publicBaseUrl() {
        return base;
      },
      cookieKeys: ['c'.repeat(40)],
      clientSecretPepper: PEPPER,
      forwardTokenExchange: sidecarForwarder(`http://127.0.0.1:${sidecar.address().port}`, SECRET, logger),
      trustProxy: false,
      maxTenants: 10,
      ttlMs: 600_000,
      negativeTtlMs: 1000,
    });
    const { listener } = createApp({
      logger,
      models,
      tenants: tenantPool,
      readiness: [],
      trustProxy: false,
      kek: keyStore.kek,
      loginThrottle: new LoginThrottle(models, { maxFailuresPerAccount: 5, maxFailuresPerIp: 50, windowSeconds: 900 }),
      admission: { maxInFlight: 10_000, maxQueued: 10_000 },
    });
    const app = createServer(listener);
    await new Promise((r) => app.listen(0, '127.0.0.1', r));
    servers.push(app);
    base = `http://127.0.0.1:${app.address().port}`;
    const post = (path, form, client) =>
      fetch(`${base}/auth/${T}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basic(client.clientId, client.clientSecret),
        },
        body: new URLSearchParams(form),
      });
    // Warm the tenant's provider and the client caches (not measured).
    await (await fetch(`${base}/auth/${T}/.well-known/openid-configuration`)).text();

    const stored = async (model) => {
      const docs = await models.OidcPayload.find({ tenantId: T, model }, { payload: 1 }).lean();
      const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d.payload) + 120, 0); // + the record's other fields
      return { count: docs.length, bytesPerRequest: docs.length ? bytes / docs.length : 0 };
    };

    /** One phase: N requests, N pending afterwards; store ops, heap, time. */
    async function phase(name, model, send) {
      const heap0 = heapMiB();
      const ops0 = snapshot();
      const t0 = performance.now();
      const result = await pool(REQUESTS, CONCURRENCY, send);
      const seconds = (performance.now() - t0) / 1000;
      const ops1 = snapshot();
      const heap1 = heapMiB();
      const s = await stored(model);
      const d = diff(ops0, ops1);
      return {
        name,
        requests: REQUESTS,
        failed: result.failed,
        statuses: result.statuses,
        perSecond: REQUESTS / seconds,
        pending: s.count,
        bytesStoredPerPending: s.bytesPerRequest,
        writesPerRequest: d.writes / REQUESTS,
        readsPerRequest: d.reads / REQUESTS,
        heapDeltaMiB: heap1 - heap0,
        ops: d.byOp,
      };
    }

    const baseline = await phase('device authorization (baseline)', 'DeviceCode', async () => {
      const res = await post('/device/auth', { client_id: device.clientId, scope: 'openid' }, device);
      await res.arrayBuffer();
      return res.status;
    });
    const ids = [];
    const pending = await phase('backchannel authentication (CIBA)', 'BackchannelAuthenticationRequest', async (i) => {
      const res = await post(
        '/backchannel',
        {
          scope: 'openid orders:read',
          login_hint: `person-${i % PEOPLE}`,
          binding_message: `Refund order ${i}?`,
          resource: 'https://api.orders.example',
          actor_token: 'orders-agent',
          actor_token_type: 'urn:vendor:token-type:nhe-id',
          authorization_details: JSON.stringify([
            { type: 'urn:idp:agent-action', actions: ['orders.refund'], identifier: `order-${i}` },
          ]),
        },
        ciba,
      );
      const body = await res.json();
      if (body.auth_req_id) ids.push(body.auth_req_id);
      return res.status;
    });
    // Polls: the first one in time (authorization_pending), a second at once (slow_down).
    const opsBeforePolls = snapshot();
    let slowDowns = 0;
    await pool(ids.length, CONCURRENCY, async (i) => {
      for (let k = 0; k < 2; k++) {
        const res = await post(
          '/oidc/token',
          { grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: ids[i] },
          ciba,
        );
        const body = await res.json();
        if (body.error === 'slow_down') slowDowns++;
      }
      return 200;
    });
    const polls = diff(opsBeforePolls, snapshot());

    const rows = [baseline, pending];
    const out = (s) => process.stdout.write(`${s}\n`);
    out(
      `\n${fmt(REQUESTS)} pending requests for ${fmt(PEOPLE)} people, ${CONCURRENCY} in flight, one process (oidc-core app + sidecar), store: ${process.env.MONGODB_URI ? 'MONGODB_URI' : 'local FerretDB'}\n`,
    );
    out(
      '| phase | req/s | failed | pending after | bytes stored / pending | store writes / request | store reads / request | oidc-core heap delta (MiB) |',
    );
    out('|---|---|---|---|---|---|---|---|');
    for (const r of rows)
      out(
        `| ${r.name} | ${fmt(r.perSecond)} | ${r.failed} | ${fmt(r.pending)} | ${fmt(r.bytesStoredPerPending)} | ${r.writesPerRequest.toFixed(2)} | ${r.readsPerRequest.toFixed(2)} | ${r.heapDeltaMiB.toFixed(1)} |`,
      );
    out(
      `\nCIBA polls: ${fmt(ids.length * 2)} (two per request, back to back): ${slowDowns} slow_down; store writes / poll ${(polls.writes / (ids.length * 2)).toFixed(2)}, reads / poll ${(polls.reads / (ids.length * 2)).toFixed(2)}`,
    );
    out(`store ops of the CIBA phase: ${JSON.stringify(pending.ops)}`);
    out(`store ops of the baseline: ${JSON.stringify(baseline.ops)}`);
    out(
      JSON.stringify({
        bench: 'ciba',
        requests: REQUESTS,
        concurrency: CONCURRENCY,
        baseline,
        ciba: pending,
        polls: { count: ids.length * 2, slowDowns, writes: polls.writes, reads: polls.reads },
      }),
    );
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
    for (const s of started) await s.dispose();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
