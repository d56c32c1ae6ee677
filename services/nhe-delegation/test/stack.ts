/**
 * In-process oidc-core + nhe-delegation sidecar over real HTTP on loopback, real FerretDB and real NATS JetStream:
 * the token endpoint a client calls is oidc-core's, which authenticates the client and forwards to the sidecar
 * with the shared secret, exactly as in a pod.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { importJWK, SignJWT } from 'jose';
import {
  auditSubject,
  ensureAuditStream,
  ensureSingleUseStream,
  jetStreamSingleUseStore,
  publishAndAwaitAck,
  refusalSubject,
} from '@idp/events';
import { listen, type Listening } from '@idp/http';
import { createLogger } from '@idp/logger';
import { freePort, openTestDatabase, seedDelegationTenant, testNats, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import express from 'express';
import { sidecarForwarder } from '../../oidc-core/src/provider/grants/sidecar-forwarder';
import { TenantPool } from '../../oidc-core/src/tenants/tenant-pool';
import { createApp as createSidecarApp } from '../src/app';
import type { JwksFetcher } from '../src/domain/actor-directory';
import { cachedKeys } from '../src/domain/key-cache';

export const SIDECAR_SECRET = 'sidecar-secret-'.padEnd(48, 'x');
export const PEPPER = 'pepper-'.padEnd(40, 'p');

export interface Stack {
  db: Awaited<ReturnType<typeof openTestDatabase>>;
  nats: Awaited<ReturnType<typeof testNats>>;
  nc: NatsConnection;
  jsm: JetStreamManager;
  keyStore: KeyStore;
  baseUrl: string;
  sidecarUrl: string;
  /** A second sidecar (another "replica") sharing the database. */
  sidecar2Url: string;
  /** Every log line the sidecars and oidc-core wrote (level info). */
  logs: string[];
  seed: (tenantId: number) => Promise<SeededTenant>;
  /** Signs an access token with the tenant's ES256 key, shaped like node-oidc-provider's user access tokens. */
  userToken: (
    tenantId: number,
    claims?: Record<string, unknown>,
    opts?: { iss?: string; expOffset?: number; signTenant?: number },
  ) => Promise<string>;
  close: () => Promise<void>;
}

/**
 * `actorJtiStore`: where the sidecars keep actor tokens' single-use jti, as main.ts does: `jetstream` (default, the
 * service's default; each sidecar over its own NATS connection, as replicas are) or `mongodb`.
 */
export async function startStack(
  label: string,
  options: { level?: string; fetchJwks?: JwksFetcher; actorJtiStore?: 'jetstream' | 'mongodb' } = {},
): Promise<Stack> {
  const logs: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: options.level ?? 'info',
    destination: { write: (line: string) => void logs.push(line) },
  });
  const db = await openTestDatabase(label);
  const nats = await testNats();
  const nc = await connect({ servers: nats.url });
  const js = jetstream(nc, { timeout: 2000 });
  await ensureAuditStream(nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
  const jsm = await jetstreamManager(nc);
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const issuerFor = (t: number) => `${baseUrl}/auth/${t}`;

  await ensureSingleUseStream(nc, { replicas: 1, maxAgeSeconds: 600 });
  const replicaConnections: NatsConnection[] = [];
  const sidecar = async () => {
    const own = await connect({ servers: nats.url });
    replicaConnections.push(own);
    const ownJs = jetstream(own, { timeout: 2000 });
    return createSidecarApp({
      logger,
      models: db.models,
      sidecarSecret: SIDECAR_SECRET,
      issuerFor,
      keysFor: cachedKeys(keyStore, 30_000),
      publishIssued: async (event) => {
        await publishAndAwaitAck(js, auditSubject(event.tenantId), event, event.jti, 1500);
      },
      // The decision log's refusals, fire-and-forget as main.ts publishes them.
      publishRefusal: async (event) => {
        await publishAndAwaitAck(ownJs, refusalSubject(event.tenantId), event, event.id, 1500);
      },
      readiness: [],
      ...(options.fetchJwks ? { fetchJwks: options.fetchJwks } : {}),
      ...(options.actorJtiStore !== 'mongodb'
        ? {
            actorJtiStore: (tenantId: number) =>
              jetStreamSingleUseStore(ownJs, { kind: 'actor-jti', tenantId, maxAgeSeconds: 600, timeoutMs: 1500 }),
          }
        : {}),
    }).listener;
  };
  const servers: Listening[] = [];
  const s1 = await listen(await sidecar(), '127.0.0.1', 0, logger);
  const s2 = await listen(await sidecar(), '127.0.0.1', 0, logger);
  servers.push(s1, s2);
  const sidecarUrl = `http://127.0.0.1:${s1.port}`;

  const pool = new TenantPool({
    models: db.models,
    keyStore,
    logger,
    publicBaseUrl: baseUrl,
    cookieKeys: ['c'.repeat(40)],
    clientSecretPepper: PEPPER,
    forwardTokenExchange: sidecarForwarder(sidecarUrl, SIDECAR_SECRET, logger),
    trustProxy: false,
    maxTenants: 100,
    ttlMs: 600_000,
    negativeTtlMs: 1000,
  });
  // oidc-core's tenant mount (src/app.ts without the interaction pages, which this flow never visits).
  const app = express();
  app.set('trust proxy', false);
  app.use(['/auth/:tenantId', '/_api/auth/:tenantId'], (req, res) => {
    pool.get(String(req.params.tenantId)).then(
      (tenant) => void tenant.callback(req, res),
      () => res.status(404).json({ error: 'not_found', error_description: 'unknown tenant' }),
    );
  });
  servers.push(await listen(app, '127.0.0.1', port, logger));

  return {
    db,
    nats,
    nc,
    jsm,
    keyStore,
    baseUrl,
    sidecarUrl,
    sidecar2Url: `http://127.0.0.1:${s2.port}`,
    logs,
    seed: (tenantId) => seedDelegationTenant(db.models, keyStore, { tenantId, clientSecretPepper: PEPPER }),
    async userToken(tenantId, claims = {}, opts = {}) {
      const keys = await keyStore.load(opts.signTenant ?? tenantId);
      const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ scope: 'openid orders:read orders:write', client_id: 'demo-app', ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(opts.iss ?? issuerFor(tenantId))
        .setAudience('https://api.orders.example')
        .setIssuedAt(now - 10)
        .setExpirationTime(now + (opts.expOffset ?? 600))
        .setJti(`ut-${Math.random().toString(36).slice(2)}`)
        .sign(await importJWK(jwk, 'ES256'));
    },
    async close() {
      for (const s of servers) await s.close(100);
      for (const c of replicaConnections) await c.close();
      await nc.close();
      await nats.server?.dispose();
      await db.connection.dropDatabase();
      await db.close();
    },
  };
}
