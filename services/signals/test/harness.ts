/**
 * The transmitter started the way main.ts starts it (startTransmitter), against a real FerretDB database and a real
 * nats-server, plus what a receiver needs: tenants with keys, client-credentials-shaped access tokens for
 * `urn:idp:ssf`, a push endpoint that can go down and come back, and SET verification with the tenant's JWKS.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createLocalJWKSet, importJWK, jwtVerify, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Database } from '@idp/db';
import {
  connectNats,
  publishRevocation,
  REVOCATION_COLLECTION,
  revocationStore,
  type NatsHandle,
  type RevocationEntry,
  type RevocationInput,
  type RevocationStore,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import {
  freePort,
  openTestDatabase,
  seedDelegationTenant,
  startNatsServer,
  type RunningServer,
  type SeededTenant,
} from '@idp/testing';
import { KeyEncryptionKey, KeyStore, SSF_AUDIENCE, SSF_MANAGE_SCOPE } from '@idp/tokens';
import { configSchema, type Config } from '../src/config';
import { startTransmitter, type Transmitter } from '../src/transmitter';

export const PUBLIC_BASE_URL = 'https://id.example.test';
const logger = createLogger({ service: 'signals-test', level: 'silent' });

export interface Harness {
  db: Database & { uri: string };
  nats: RunningServer;
  publisher: NatsHandle;
  keyStore: KeyStore;
  store: RevocationStore;
  config: Config;
  transmitter: Transmitter;
  base: () => string;
  /** Stops the transmitter and starts a fresh one (new process state, same database and NATS). */
  restart: () => Promise<void>;
  stopTransmitter: () => Promise<void>;
  startTransmitter: () => Promise<void>;
  seedTenant: (tenantId: number) => Promise<SeededTenant>;
  /** A JWT access token of the tenant as oidc-core issues it for client credentials. */
  token: (
    tenantId: number,
    clientId: string,
    o?: { scope?: string; aud?: string; iss?: string; signWithTenant?: number; claims?: Record<string, unknown> },
  ) => Promise<string>;
  /** Publishes a kill-switch entry exactly as management does (persisted, then on NATS). */
  revoke: (input: RevocationInput) => Promise<RevocationEntry>;
  jwks: (tenantId: number) => Promise<JSONWebKeySet>;
  close: () => Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const [nats, db] = await Promise.all([startNatsServer(), openTestDatabase('signals')]);
  const kek = randomBytes(32).toString('base64url');
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey(kek));
  const publisher = await connectNats(nats.url, logger, 'management-stand-in');
  const store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
  const port = await freePort();
  const config = configSchema.parse({
    MONGODB_URI: db.uri,
    NATS_URL: nats.url,
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_BASE_URL,
    KEY_ENCRYPTION_KEY: kek,
    KEY_CACHE_TTL_SECONDS: '0',
    SSF_PUSH_INTERVAL_MS: '100',
    SSF_PUSH_MAX_BACKOFF_SECONDS: '1',
    SSF_PUSH_TIMEOUT_MS: '2000',
    SSF_PUSH_ALLOW_LOOPBACK: 'true',
    SSF_POLL_WAIT_SECONDS: '2',
    // The tests prove the NATS path on its own; the reconciliation runs at start (and when a test asks).
    SSF_RECONCILE_INTERVAL_SECONDS: '3600',
    ...env,
  });
  let transmitter: Transmitter | undefined = await startTransmitter(config, logger);
  const h: Harness = {
    db,
    nats,
    publisher,
    keyStore,
    store,
    config,
    get transmitter() {
      return transmitter!;
    },
    base: () => `http://127.0.0.1:${port}`,
    stopTransmitter: async () => {
      await transmitter?.stop();
      transmitter = undefined;
    },
    startTransmitter: async () => {
      transmitter = await startTransmitter(config, logger);
    },
    restart: async () => {
      await h.stopTransmitter();
      await h.startTransmitter();
    },
    seedTenant: (tenantId) =>
      seedDelegationTenant(db.models, keyStore, { tenantId, clientSecretPepper: 'pepper-'.padEnd(40, 'x') }),
    token: async (tenantId, clientId, o = {}) => {
      const keys = await keyStore.load(o.signWithTenant ?? tenantId);
      const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
      return new SignJWT({ client_id: clientId, scope: o.scope ?? SSF_MANAGE_SCOPE, ...o.claims })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(o.iss ?? `${PUBLIC_BASE_URL}/auth/${tenantId}`)
        .setAudience(o.aud ?? SSF_AUDIENCE)
        .setSubject(clientId)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(await importJWK(jwk, 'ES256'));
    },
    revoke: (input) => publishRevocation(publisher.nc, input, { store }),
    jwks: async (tenantId) => (await keyStore.load(tenantId)).publicJwks as JSONWebKeySet,
    close: async () => {
      await transmitter?.stop();
      await publisher.close();
      await db.close();
      await nats.dispose();
    },
  };
  return h;
}

/** Verifies a SET as a receiver does: the tenant's JWKS, `typ: secevent+jwt`, issuer and audience. */
export async function verifySet(
  set: string,
  jwks: JSONWebKeySet,
  o: { issuer: string; audience: string },
): Promise<{ payload: JWTPayload; header: Record<string, unknown> }> {
  const { payload, protectedHeader } = await jwtVerify(set, createLocalJWKSet(jwks), {
    typ: 'secevent+jwt',
    issuer: o.issuer,
    audience: o.audience,
    algorithms: ['ES256'],
  });
  return { payload, header: protectedHeader as Record<string, unknown> };
}

export interface PushReceiver {
  url: string;
  /** Every SET received, in order (a redelivery appears twice). */
  received: Array<{ set: string; contentType?: string; authorization?: string }>;
  /** Stops listening: connections are refused until `up()`. */
  down: () => Promise<void>;
  up: () => Promise<void>;
  /** Answer this status instead of 202 (undefined: 202). */
  status?: number;
  close: () => Promise<void>;
}

export async function startPushReceiver(): Promise<PushReceiver> {
  const port = await freePort();
  let server: Server | undefined;
  const r: PushReceiver = {
    url: `http://127.0.0.1:${port}/ssf/events`,
    received: [],
    up: () =>
      new Promise((resolve) => {
        server = createServer((req: IncomingMessage, res) => {
          let body = '';
          req.on('data', (c: Buffer) => (body += c.toString()));
          req.on('end', () => {
            if (r.status) {
              res
                .writeHead(r.status, { 'content-type': 'application/json' })
                .end(JSON.stringify({ err: 'invalid_request', description: 'test refusal' }));
              return;
            }
            r.received.push({
              set: body,
              contentType: req.headers['content-type'],
              authorization: req.headers.authorization,
            });
            res.writeHead(202).end();
          });
        });
        server.listen(port, '127.0.0.1', () => resolve());
      }),
    down: () =>
      new Promise((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
        server = undefined;
      }),
    close: () => r.down(),
  };
  await r.up();
  return r;
}

/** Polls `check` until it returns a truthy value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
  stepMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
