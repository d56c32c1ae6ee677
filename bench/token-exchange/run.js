// @ts-check
/**
 * NHE token exchanges per second and p50/p99 latency through oidc-core + the nhe-delegation sidecar (separate
 * processes exactly as in a pod: client authentication in oidc-core, forward over loopback, subject-token
 * verification, facts from MongoDB, decision, ES256 signing, audit event published to JetStream and acked, with the
 * audit-writer consuming), at 1 and 32 connections, next to an express+jose "sign and respond" ceiling
 * (ceiling.js) measured in the same run, and the ratio. Targets (issue 5): ratio >= 0.5, p99 < 25 ms at 32.
 *
 *   npx tsc -b tsconfig.build.json && node bench/token-exchange/run.js [--duration 10] [--connections 1,32]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const autocannon = require('autocannon');
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { ensureTools, seedDelegationTenant, startFerretDb, startNatsServer, withDatabase } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startTopology } = require('../../e2e/dist/topology');

const TENANT = 4243;
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const duration = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);

/** @param {string} url @param {string} auth @param {string} body @param {number} connections @param {number} [seconds] */
function load(url, auth, body, connections, seconds = duration) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: 'POST', connections, duration: seconds, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** @param {any} r */
const summary = (r) => ({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors });

async function main() {
  const owned = [];
  if (!process.env.MONGODB_URI || !process.env.NATS_URL) ensureTools('ferretdb', 'nats-server');
  let mongoBase = process.env.MONGODB_URI;
  if (!mongoBase) {
    const s = await startFerretDb({ quiet: true });
    owned.push(s);
    mongoBase = s.url;
  }
  let natsUrl = process.env.NATS_URL;
  if (!natsUrl) {
    const s = await startNatsServer({ quiet: true });
    owned.push(s);
    natsUrl = s.url;
  }
  const mongoUri = withDatabase(mongoBase, `idp_bench_te_${Date.now()}`);
  const topology = await startTopology({ mongoUri, natsUrl, logLevel: 'warn', stdio: 'ignore' });
  const db = await connectDatabase(mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
  const tenant = await seedDelegationTenant(db.models, keyStore, { tenantId: TENANT, clientSecretPepper: topology.secrets.clientSecretPepper });

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

  const ceiling = spawn(process.execPath, [join(__dirname, 'ceiling.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ceilingPort = await new Promise((resolve, reject) => {
    ceiling.stdout.once('data', (d) => resolve(Number(String(d).trim())));
    ceiling.once('exit', (code) => reject(new Error(`ceiling exited ${code}`)));
  });

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
  const oidcUrl = `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`;
  const ceilingUrl = `http://127.0.0.1:${ceilingPort}/token`;

  for (const url of [oidcUrl, ceilingUrl]) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: auth }, body });
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  }

  const rows = [];
  for (const connections of connectionSets) {
    await load(oidcUrl, auth, body, connections, 2);
    await load(ceilingUrl, auth, body, connections, 2);
    const ours = summary(await load(oidcUrl, auth, body, connections));
    const top = summary(await load(ceilingUrl, auth, body, connections));
    rows.push({ connections, ours, ceiling: top, ratio: top.rps ? +(ours.rps / top.rps).toFixed(2) : 0 });
  }
  const audited = await db.models.TokenAudit.countDocuments({ tenantId: TENANT });

  process.stdout.write(`\nNHE token exchanges/s, ${duration}s per point (node ${process.version}, ${require('node:os').cpus().length} cores)\n`);
  process.stdout.write('connections | oidc-core+sidecar rps  p50  p99 | express+jose ceiling rps  p50  p99 | ratio\n');
  for (const r of rows) {
    process.stdout.write(
      `${String(r.connections).padStart(11)} | ${String(r.ours.rps).padStart(21)} ${String(r.ours.p50).padStart(4)} ${String(r.ours.p99).padStart(4)} | ${String(r.ceiling.rps).padStart(24)} ${String(r.ceiling.p50).padStart(4)} ${String(r.ceiling.p99).padStart(4)} | ${r.ratio}\n`,
    );
    if (r.ours.non2xx || r.ceiling.non2xx || r.ours.errors) process.stdout.write(`  non-2xx: ours ${r.ours.non2xx} (errors ${r.ours.errors}), ceiling ${r.ceiling.non2xx}\n`);
  }
  process.stdout.write(`audit rows written so far (writer is asynchronous): ${audited}\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'token-exchange', duration, rows })}\n`);

  ceiling.kill('SIGTERM');
  await db.connection.dropDatabase().catch(() => undefined);
  await db.close();
  await topology.stop();
  await Promise.all(owned.map((s) => s.dispose()));
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
