/** Shared set-up of e2e test files: own database, own nats-server, the full topology, one seeded tenant. */
import { randomInt } from 'node:crypto';
import { connectDatabase, type Database } from '@idp/db';
import { createLogger } from '@idp/logger';
import {
  openTestDatabase,
  seedDelegationTenant,
  startNatsServer,
  type RunningServer,
  type SeededTenant,
} from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { basicAuth, browserlessLogin, type LoginOptions, type TokenSet } from './clients/browserless-login';
import { startTopology, type Topology } from './topology';

export interface Harness {
  topology: Topology;
  nats: RunningServer;
  db: Database;
  tenant: SeededTenant;
  stop: () => Promise<void>;
}

export interface HarnessOptions {
  /** Extra environment of the oidc-core process (e.g. LOGOUT_PROMPT_SECONDS for a short countdown). */
  oidcEnv?: Record<string, string>;
  /** Extra environment of the nhe-delegation sidecar (e.g. ACTOR_JWKS_ALLOW_LOOPBACK for key sets served by the test). */
  sidecarEnv?: Record<string, string>;
  /** Extra environment of the signals service (e.g. UPSTREAM_ALLOW_LOOPBACK for a trusted issuer's transmitter on loopback). */
  signalsEnv?: Record<string, string>;
  /** Public origin, router port and TLS of the topology (an https run as `npm start` makes it); default plain http on a free port. */
  publicBaseUrl?: string;
  routerPort?: number;
  tls?: { cert: string; key: string };
}

export async function startHarness(label: string, options: HarnessOptions = {}): Promise<Harness> {
  const testDb = await openTestDatabase(label);
  let nats: RunningServer | undefined;
  let topology: Topology | undefined;
  let db: Database | undefined;
  try {
    const n = (nats = await startNatsServer());
    const t = (topology = await startTopology({
      mongoUri: testDb.uri,
      natsUrl: n.url,
      stdio: process.env.E2E_LOGS ? 'inherit' : 'ignore',
      logLevel: process.env.E2E_LOGS ? 'info' : 'warn',
      extraEnv:
        options.oidcEnv || options.sidecarEnv || options.signalsEnv
          ? {
              ...(options.oidcEnv ? { 'oidc-core': options.oidcEnv } : {}),
              ...(options.sidecarEnv ? { 'nhe-delegation': options.sidecarEnv } : {}),
              ...(options.signalsEnv ? { signals: options.signalsEnv } : {}),
            }
          : undefined,
      publicBaseUrl: options.publicBaseUrl,
      routerPort: options.routerPort,
      tls: options.tls,
    }));
    const d = (db = await connectDatabase(testDb.uri, createLogger({ service: 'e2e', level: 'silent' })));
    await testDb.close();
    const keyStore = new KeyStore(d.models, new KeyEncryptionKey(t.secrets.keyEncryptionKey));
    const tenant = await seedDelegationTenant(d.models, keyStore, {
      tenantId: randomInt(10_000, 1_000_000),
      tenantName: `e2e-${label}`,
      clientSecretPepper: t.secrets.clientSecretPepper,
    });
    return {
      topology: t,
      nats: n,
      db: d,
      tenant,
      stop: async () => {
        await t.stop();
        await n.dispose();
        await d.connection.dropDatabase().catch(() => undefined);
        await d.close();
      },
    };
  } catch (err) {
    // What did start is stopped: a nats-server or a service left running keeps jest from exiting after the failure.
    await topology?.stop().catch(() => undefined);
    await nats?.dispose().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await testDb.close().catch(() => undefined);
    throw err;
  }
}

/** The seeded user's tokens for the seeded resource server (authorization code + PKCE, by form posts). */
export function seededUserLogin(h: Harness, o: Pick<LoginOptions, 'scope' | 'prompt'> = {}): Promise<TokenSet> {
  return browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    resource: h.tenant.resource,
    ...o,
  });
}

/** The seeded user's access token for the seeded resource server. */
export async function seededUserToken(h: Harness): Promise<string> {
  return (await seededUserLogin(h)).access_token;
}

/** The spec's NHE token exchange of `subjectToken` by the seeded client for the seeded NHE (`orders:read`), through the router. */
export function postNheExchange(h: Harness, subjectToken: string): Promise<Response> {
  return fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
    }),
  });
}
