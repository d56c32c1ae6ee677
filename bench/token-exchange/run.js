// @ts-check
/**
 * NHE token exchanges per second and p50/p99 latency through oidc-core + the nhe-delegation sidecar (separate
 * processes exactly as in a pod: client authentication in oidc-core, forward over loopback, subject-token
 * verification, facts from MongoDB, decision, ES256 signing, audit event published to JetStream and acked, with the
 * audit-writer consuming), at 1 and 32 connections, next to an express+jose "sign and respond" ceiling
 * (ceiling.js) measured in the same run, and the ratio. Targets (issue 5): ratio >= 0.5, p99 < 25 ms at 32.
 *
 *   npx tsc -b tsconfig.build.json && node bench/token-exchange/run.js [--duration 10] [--connections 1,32] [--writer off]
 *
 * Uses MONGODB_URI / NATS_URL when set, else starts FerretDB and nats-server from .tools/bin (scripts/tools.sh).
 */
const { join } = require('node:path');
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { createLogger } = require('@idp/logger');
const { seedDelegationTenant } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');
const { arg, compare, cpuPerRequest, cpuTimes, load, printComparison, startReference, summary } = require('../common');

const TENANT = 4243;
const seconds = Number(arg('duration', '10'));
const connectionSets = arg('connections', '1,32').split(',').map(Number);
/** `--writer off`: stop the audit-writer during the measurement (events wait in the stream), to see its share. */
const writer = arg('writer', 'on');
/** `--only sidecar`: measure the sidecar alone (quicker, for profiling work); default: both. */
const only = arg('only', 'all');

async function main() {
  const infra = await startLocalInfra(`idp_bench_te_${Date.now()}`);
  const mongoUri = infra.mongoUri;
  const topology = await startTopology({ mongoUri, natsUrl: infra.natsUrl, logLevel: 'warn', stdio: 'ignore' });
  if (writer === 'off') await topology.stopService('audit-writer');
  const db = await connectDatabase(mongoUri, createLogger({ service: 'bench', level: 'silent' }));
  /** @type {{ port: number, pid: number | undefined, kill: () => void } | undefined} */
  let ceiling;
  /** @type {{ port: number, pid: number | undefined, kill: () => void } | undefined} */
  let floor;
  try {
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
    const rows = only === 'sidecar' ? [] : await compare({
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
      sidecarOnly.push({ connections, ...summary(r), cpuMsPerRequest: cpuPerRequest(before, cpuTimes(sidecarPids()), r.requests.total) });
    }
    // The floor of oidc-core's share: bare node-oidc-provider authenticating the same client and dispatching the same
    // grant to a handler that answers at once (provider-floor.js). No tuning of oidc-core can go below it.
    floor = await startReference(join(__dirname, 'provider-floor.js'), { ...process.env, CLIENT_ID: tenant.client.clientId, CLIENT_SECRET: tenant.client.clientSecret });
    const floorRows = [];
    for (const connections of only === 'sidecar' ? [] : connectionSets) {
      const url = `http://127.0.0.1:${floor.port}/oidc/token`;
      await load({ url, auth, body, connections, seconds: 2 });
      const before = cpuTimes({ provider: floor.pid });
      const r = await load({ url, auth, body, connections, seconds });
      if (r.non2xx) throw new Error(`provider floor answered ${r.non2xx} non-2xx responses`);
      floorRows.push({ connections, ...summary(r), cpuMsPerRequest: cpuPerRequest(before, cpuTimes({ provider: floor.pid }), r.requests.total) });
    }
    const audited = await db.models.TokenAudit.countDocuments({ tenantId: TENANT });

    if (rows.length) printComparison('token-exchange', `NHE token exchanges/s (audit-writer ${writer})`, ['oidc-core+sidecar rps', 'express+jose ceiling rps'], seconds, rows);
    for (const r of sidecarOnly) {
      const cpu = Object.entries(r.cpuMsPerRequest).map(([k, v]) => `${k} ${v}`).join(', ');
      process.stdout.write(`sidecar alone, ${r.connections} connection(s): ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${r.non2xx ? `, non-2xx ${r.non2xx}` : ''}; CPU ms per request: ${cpu}\n`);
    }
    process.stdout.write(`${JSON.stringify({ bench: 'token-exchange/sidecar-alone', seconds, rows: sidecarOnly })}\n`);
    for (const r of floorRows) {
      const ceilingMs = rows.find((x) => x.connections === r.connections)?.ceiling.cpuMsPerRequest?.ceiling;
      process.stdout.write(
        `bare node-oidc-provider, same grant answered at once, ${r.connections} connection(s): ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; CPU ms per request: provider ${r.cpuMsPerRequest.provider}${ceilingMs ? ` (${+(r.cpuMsPerRequest.provider / ceilingMs).toFixed(2)} x the ceiling's)` : ''}\n`,
      );
    }
    if (floorRows.length) process.stdout.write(`${JSON.stringify({ bench: 'token-exchange/provider-floor', seconds, rows: floorRows })}\n`);
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

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
