// @ts-check
/**
 * This product as bench/peers measures it: the whole topology as processes (e2e/dist/topology, FerretDB and
 * nats-server from .tools/bin unless MONGODB_URI / NATS_URL are set), one seeded tenant, and the two requests:
 *
 * - client credentials: a confidential client with a role on the seeded Orders API asks for
 *   `grant_type=client_credentials&resource=https://api.orders.example` (client_secret_basic), as bench/client-credentials;
 * - token exchange: the spec's NHE exchange (a user's ES256 access token as subject_token, the agent's nhe-id as
 *   actor_token), as bench/token-exchange: oidc-core, the sidecar, the JetStream publish and ack, the audit-writer's row.
 *
 * The processes on the path, whose CPU is summed: oidc-core, sidecar (nhe-delegation), audit-writer, nats-server,
 * FerretDB. management and signals are pinned with them but idle (not on the path).
 *
 * The subject token is what oidc-core issues after a login, grant included: it names its grant
 * (`org.vendor.grant.id`) and the grant's record is in the store, so every exchange reads it as a real one does (the
 * sidecar refuses tokens whose grant has ended). `settle()` waits until the audit-writer has stored every event
 * published so far (the durable consumer has nothing pending and nothing unacknowledged): the writer runs behind the
 * load when every process shares one CPU, and the CPU it spends catching up belongs to the requests measured.
 */
const { importJWK, SignJWT } = require('jose');
const { connectDatabase } = require('@idp/db');
const { AUDIT_STREAM, AUDIT_WRITER_DURABLE, connectNats } = require('@idp/events');
const { createLogger } = require('@idp/logger');
const { createClient, seedDelegationTenant } = require('@idp/testing');
const { KeyEncryptionKey, KeyStore } = require('@idp/tokens');
const { startLocalInfra } = require('../../e2e/dist/local-infra');
const { startTopology } = require('../../e2e/dist/topology');

const TENANT = 4260;

/** @param {{ oidcEnv?: Record<string, string>, sidecarEnv?: Record<string, string> }} [o] */
async function startOurs(o = {}) {
  const infra = await startLocalInfra(`idp_bench_peers_${Date.now()}`);
  /** @type {any} */
  let topology;
  /** @type {any} */
  let db;
  /** @type {any} */
  let nats;
  const stop = async () => {
    await nats?.close().catch(() => undefined);
    await db?.connection.dropDatabase().catch(() => undefined);
    await db?.close();
    await topology?.stop();
    await infra.stop();
  };
  try {
    topology = await startTopology({
      mongoUri: infra.mongoUri,
      natsUrl: infra.natsUrl,
      logLevel: 'warn',
      stdio: 'ignore',
      extraEnv: { 'oidc-core': o.oidcEnv ?? {}, 'nhe-delegation': o.sidecarEnv ?? {} },
    });
    db = await connectDatabase(infra.mongoUri, createLogger({ service: 'bench', level: 'silent' }));
    const keyStore = new KeyStore(db.models, new KeyEncryptionKey(topology.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(db.models, keyStore, {
      tenantId: TENANT,
      clientSecretPepper: topology.secrets.clientSecretPepper,
    });
    const role = await db.models.Role.findOne({ tenantId: TENANT, name: 'orders-clerk' }).lean();
    const svc = await createClient(db.models, topology.secrets.clientSecretPepper, {
      tenantId: TENANT,
      clientId: 'bench-cc',
      name: 'bench-cc',
      grantTypes: ['client_credentials'],
      roleIds: [String(role?._id)],
    });
    // The user's access token, as oidc-core issues it after a login, valid for the whole run.
    const keys = await keyStore.load(TENANT);
    const jwk = keys.signing.find((/** @type {any} */ k) => k.alg === 'ES256');
    if (!jwk) throw new Error('no ES256 key');
    const now = Math.floor(Date.now() / 1000);
    const grantId = 'bench-peers-grant';
    await db.models.OidcPayload.create({
      _id: `${TENANT}:Grant:${grantId}`,
      tenantId: TENANT,
      model: 'Grant',
      payload: JSON.stringify({
        jti: grantId,
        kind: 'Grant',
        clientId: tenant.client.clientId,
        accountId: tenant.user.id,
        iat: now,
        exp: now + 7200,
      }),
      expiresAt: new Date((now + 7200) * 1000),
    });
    const subjectToken = await new SignJWT({
      scope: 'orders:read orders:write',
      client_id: tenant.client.clientId,
      ...(process.env.BENCH_NO_GRANT ? {} : { 'org.vendor.grant.id': grantId }),
    })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`${topology.baseUrl}/auth/${TENANT}`)
      .setSubject(tenant.user.id)
      .setAudience(tenant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .setJti('bench-peers-subject')
      .sign(await importJWK(jwk, 'ES256'));
    const basic = (/** @type {string} */ id, /** @type {string} */ secret) =>
      `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    const tokenUrl = `http://127.0.0.1:${topology.services['oidc-core'].port}/auth/${TENANT}/oidc/token`;
    const clientCredentials = {
      url: tokenUrl,
      auth: basic('bench-cc', svc.clientSecret),
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: tenant.resource }).toString(),
    };
    const tokenExchange = {
      url: tokenUrl,
      auth: basic(tenant.client.clientId, tenant.client.clientSecret),
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: subjectToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: tenant.nhe.identifier,
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: tenant.resource,
        scope: 'orders:read',
      }).toString(),
    };
    const pid = (/** @type {string} */ name) => topology.services[name].process.pid;
    /** The processes on the path (their CPU is summed); FerretDB and nats-server only when this run started them. */
    const pids = {
      'oidc-core': pid('oidc-core'),
      sidecar: pid('nhe-delegation'),
      'audit-writer': pid('audit-writer'),
      'nats-server': infra.servers['nats-server']?.process.pid,
      ferretdb: infra.servers.ferretdb?.process.pid,
    };
    const serverPids = [...Object.values(pids), pid('management'), pid('signals')];
    const auditRows = () => db.models.TokenAudit.countDocuments({ tenantId: TENANT });
    /** Every row of the collection (only this tenant writes any): FerretDB counts them without reading each row. */
    const auditRowsTotal = () => db.models.TokenAudit.estimatedDocumentCount();
    nats = await connectNats(infra.natsUrl, createLogger({ service: 'bench', level: 'silent' }), 'bench-peers');
    const jsm = await nats.js.jetstreamManager();
    /** Waits (up to 60 s) until the writer has stored every audit event published so far; the milliseconds waited. */
    const settle = async () => {
      const started = Date.now();
      for (;;) {
        const info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
        if ((info.num_pending === 0 && info.num_ack_pending === 0) || Date.now() - started > 60_000)
          return Date.now() - started;
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    /** The audit-writer's message counters by outcome (written, duplicate, retry, dead-letter), from its /metrics. */
    const writerOutcomes = async () => {
      const text = await (await fetch(`http://127.0.0.1:${topology.services['audit-writer'].port}/metrics`)).text();
      /** @type {Record<string, number>} */
      const out = {};
      for (const m of text.matchAll(/^audit_writer_messages_total\{outcome="([a-z-]+)"[^}]*\} (\d+)/gm))
        out[m[1]] = Number(m[2]);
      return out;
    };
    return {
      mongoUri: infra.mongoUri,
      clientCredentials,
      tokenExchange,
      pids,
      serverPids,
      auditRows,
      auditRowsTotal,
      settle,
      writerOutcomes,
      external: { store: !infra.servers.ferretdb, nats: !infra.servers['nats-server'] },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startOurs };
