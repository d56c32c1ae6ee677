/**
 * oidc-core as a real HTTP server on a loopback port over a fresh test database with one seeded tenant, for the
 * page, logout, TOTP and login-throttle integration tests. Browser steps are plain HTTP with a cookie jar.
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@idp/logger';
import { basicAuth, createClient, openTestDatabase, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { createApp, type AppDeps, type TenantResolver } from '../src/app';
import type { TenantAdmission, TenantAdmissionLimits } from '../src/domain/tenant-admission';
import { LoginThrottle, type LoginThrottleOptions } from '../src/domain/login-throttle';
import { TenantPool } from '../src/tenants/tenant-pool';
import type { CustomClaimsRunner } from '../src/provider/claims-custom';
import type { TokenExchangeForwarder } from '../src/provider/grants/token-exchange';
import type { OutboundOptions } from '../src/provider/client-id-metadata';

export const PEPPER = 'p'.repeat(40);

export interface PagesApp {
  baseUrl: string;
  db: Awaited<ReturnType<typeof openTestDatabase>>;
  keyStore: KeyStore;
  tenant: SeededTenant;
  pool: TenantPool;
  /** A second confidential auth-code client ("Second App") with a registered post-logout URI. */
  second: { clientId: string; clientSecret: string; redirectUri: string };
  postLogoutUri: string;
  /** The app's per-tenant admission (one tenant's flood never queues another tenant's requests). */
  admission: TenantAdmission;
  stop: () => Promise<void>;
}

export async function startPagesApp(
  label: string,
  o: {
    throttle?: LoginThrottleOptions;
    clock?: () => number;
    logoutPromptSeconds?: number;
    customClaims?: (db: Awaited<ReturnType<typeof openTestDatabase>>) => CustomClaimsRunner;
    /** Token exchange's forwarder (default: none, the grant answers with an error); gets the database and the base URL. */
    forwardTokenExchange?: (
      db: Awaited<ReturnType<typeof openTestDatabase>>,
      keyStore: KeyStore,
      baseUrl: () => string,
    ) => Promise<TokenExchangeForwarder>;
    /** Outbound requests of the providers (metadata documents): CAs of a local https server, a resolver, a time bound. */
    outbound?: OutboundOptions;
    /** Per-tenant admission limits (default: the app's). */
    admission?: TenantAdmissionLimits;
    /** What the app resolves tenants with (default: the pool itself), to wrap the pool's tenants. */
    tenants?: (pool: TenantPool) => TenantResolver;
    /** The ledger page's kill switch (default: the app's, store only). */
    account?: (db: Awaited<ReturnType<typeof openTestDatabase>>) => AppDeps['account'];
    /** The providers trust the proxy as the app does (main.ts passes TRUST_PROXY to both); default: only the app. */
    providersTrustProxy?: boolean;
    /** The operator's policy for what tenants configure (trusted issuers' key sets, upstream providers). */
    upstreamPolicy?: import('@idp/http').OutboundPolicy;
  } = {},
): Promise<PagesApp> {
  const db = await openTestDatabase(label);
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  const tenant = await seedDelegationTenant(db.models, keyStore, {
    tenantId: randomInt(10_000, 1_000_000),
    tenantName: `Acme ${label}`,
    clientSecretPepper: PEPPER,
  });
  const postLogoutUri = 'http://127.0.0.1:8400/logged-out';
  await db.models.Client.updateOne(
    { tenantId: tenant.tenantId, clientId: tenant.client.clientId },
    { $set: { postLogoutRedirectUris: [postLogoutUri] } },
  );
  const secondRedirect = 'http://127.0.0.1:8401/callback';
  const second = await createClient(db.models, PEPPER, {
    tenantId: tenant.tenantId,
    clientId: 'second-app',
    name: 'Second App',
    grantTypes: ['authorization_code'],
    redirectUris: [secondRedirect],
    postLogoutRedirectUris: ['http://127.0.0.1:8401/bye'],
    firstParty: true,
  });
  const logger = createLogger({ service: 'test', level: (process.env.TEST_LOG as 'silent' | undefined) ?? 'silent' });
  let baseUrl = '';
  const pool = new TenantPool({
    models: db.models,
    keyStore,
    logger,
    get publicBaseUrl() {
      return baseUrl;
    },
    cookieKeys: ['c'.repeat(40)],
    clientSecretPepper: PEPPER,
    forwardTokenExchange: o.forwardTokenExchange
      ? await o.forwardTokenExchange(db, keyStore, () => baseUrl)
      : () => Promise.reject(new Error('not used')),
    trustProxy: o.providersTrustProxy ?? false,
    maxTenants: 10,
    ttlMs: 60_000,
    negativeTtlMs: 1000,
    logoutPromptSeconds: o.logoutPromptSeconds,
    customClaims: o.customClaims?.(db),
    outbound: o.outbound,
    ...(o.upstreamPolicy ? { upstreamPolicy: o.upstreamPolicy } : {}),
  });
  const { listener, admission } = createApp({
    logger,
    models: db.models,
    tenants: o.tenants ? o.tenants(pool) : pool,
    admission: o.admission,
    readiness: [],
    trustProxy: true,
    kek: keyStore.kek,
    loginThrottle: new LoginThrottle(
      db.models,
      o.throttle ?? { maxFailuresPerAccount: 5, maxFailuresPerIp: 50, windowSeconds: 900 },
      o.clock,
    ),
    ...(o.account ? { account: o.account(db) } : {}),
  });
  const server: Server = await new Promise((res) => {
    const s = createServer(listener).listen(0, '127.0.0.1', () => res(s));
  });
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    db,
    keyStore,
    tenant,
    pool,
    second: { ...second, redirectUri: secondRedirect },
    postLogoutUri,
    admission,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await db.connection.dropDatabase().catch(() => undefined);
      await db.close();
    },
  };
}

/** A browser's cookie jar and navigation by hand (redirects are returned, not followed). */
export class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(
    readonly baseUrl: string,
    /** Sent as X-Forwarded-For (the app trusts loopback proxies), to act as a given client IP. */
    readonly ip = '203.0.113.10',
  ) {}

  async go(
    url: string,
    init: { method?: string; form?: Record<string, string> } = {},
  ): Promise<{ status: number; location?: string; text: string; headers: Headers }> {
    const res = await fetch(new URL(url, this.baseUrl), {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      redirect: 'manual',
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'x-forwarded-for': this.ip,
        accept: 'text/html',
        ...(init.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: res.status,
      location: res.headers.get('location') ?? undefined,
      text: await res.text(),
      headers: res.headers,
    };
  }

  hasCookie(name: string): boolean {
    return this.cookies.has(name);
  }
}

export interface AuthorizeResult {
  browser: Browser;
  /** The interaction page URL the login form is posted under. */
  interaction: string;
  verifier: string;
}

/** Starts an authorization request and returns the interaction (login page) URL. */
export async function startAuthorize(
  app: PagesApp,
  browser: Browser,
  client: { clientId: string; redirectUri: string },
  extra: Record<string, string> = {},
): Promise<AuthorizeResult> {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope: 'openid profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    nonce: 'n',
    ...extra,
  });
  const res = await browser.go(`/auth/${app.tenant.tenantId}/authorize?${params}`);
  if (!res.location) throw new Error(`authorize answered ${res.status}: ${res.text.slice(0, 200)}`);
  return { browser, interaction: new URL(res.location, app.baseUrl).pathname, verifier };
}

/** Follows redirects until the client's redirect URI (returned) or a page (throws). */
export async function followToRedirectUri(
  browser: Browser,
  location: string | undefined,
  redirectUri: string,
): Promise<URL> {
  for (let i = 0; i < 10 && location; i++) {
    const url = new URL(location, browser.baseUrl);
    if (url.toString().startsWith(redirectUri)) return url;
    location = (await browser.go(url.toString())).location;
  }
  throw new Error('did not reach the redirect URI');
}

/** Full login of alice (password only) for a client; returns the authorization code URL. */
export async function signIn(
  app: PagesApp,
  browser: Browser,
  client: { clientId: string; redirectUri: string },
  password = app.tenant.user.password,
): Promise<URL> {
  const { interaction } = await startAuthorize(app, browser, client);
  const res = await browser.go(`${interaction}/login`, { form: { username: app.tenant.user.username, password } });
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  return followToRedirectUri(browser, res.location, client.redirectUri);
}

/** Redeems a code at the token endpoint. */
export async function redeem(
  app: PagesApp,
  client: { clientId: string; clientSecret: string; redirectUri: string },
  code: string,
  verifier: string,
): Promise<{ id_token: string; access_token: string }> {
  const res = await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    }),
  });
  const body = (await res.json()) as { id_token: string; access_token: string; error?: string };
  if (!res.ok) throw new Error(`token: ${body.error}`);
  return body;
}
