/**
 * The configured public origin decides every URL: the Host header (or X-Forwarded-Host/-Proto, or the authority of an
 * absolute-form request target) never decides a URL. oidc-core trusts the proxy here (TRUST_PROXY on, as behind the
 * ingress), the worst case: discovery's endpoint URLs, the DPoP `htu` every grant expects (node-oidc-provider's own and
 * token exchange, checked by the real sidecar), the device verification URI and the sign-in and logout redirects and
 * form actions all stay on the configured origin. Discovery and the JWKS carry a short public Cache-Control.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { listen, type Listening } from '@idp/http';
import { createLogger } from '@idp/logger';
import {
  basicAuth,
  createClient,
  freePort,
  openTestDatabase,
  seedDelegationTenant,
  type SeededTenant,
} from '@idp/testing';
import {
  GRANT_TYPE_TOKEN_EXCHANGE,
  KeyEncryptionKey,
  KeyStore,
  MANAGEMENT_AUDIENCE,
  TOKEN_TYPE_ACCESS_TOKEN,
  TOKEN_TYPE_NHE_ID,
} from '@idp/tokens';
import { createApp as createSidecarApp } from '../../nhe-delegation/src/app';
import { cachedKeys } from '../../nhe-delegation/src/domain/key-cache';
import { createApp } from '../src/app';
import { sidecarForwarder } from '../src/provider/grants/sidecar-forwarder';
import { TenantPool } from '../src/tenants/tenant-pool';

const PEPPER = 'p'.repeat(40);
const SIDECAR_SECRET = 's'.repeat(40);
const EVIL = 'evil.example';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let keyStore: KeyStore;
let t: SeededTenant;
let T: number;
let port: number;
/** The configured PUBLIC_BASE_URL (the origin the test reaches the server at). */
let base: string;
let server: Server;
let sidecar: Listening;
let device: { clientId: string; clientSecret: string };

beforeAll(async () => {
  db = await openTestDatabase('public-origin');
  keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  T = randomInt(10_000, 1_000_000);
  t = await seedDelegationTenant(db.models, keyStore, { tenantId: T, clientSecretPepper: PEPPER });
  device = await createClient(db.models, PEPPER, {
    tenantId: T,
    clientId: 'tv',
    name: 'TV',
    grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'],
    responseTypes: [],
    firstParty: true,
  });
  const logger = createLogger({ service: 'test', level: (process.env.TEST_LOG as 'silent' | undefined) ?? 'silent' });
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  sidecar = await listen(
    createSidecarApp({
      logger,
      models: db.models,
      sidecarSecret: SIDECAR_SECRET,
      issuerFor: (tenantId) => `${base}/auth/${tenantId}`,
      keysFor: cachedKeys(keyStore, 30_000),
      publishIssued: () => Promise.resolve(),
      readiness: [],
    }).listener,
    '127.0.0.1',
    0,
    logger,
  );
  const pool = new TenantPool({
    models: db.models,
    keyStore,
    logger,
    publicBaseUrl: base,
    cookieKeys: ['c'.repeat(40)],
    clientSecretPepper: PEPPER,
    forwardTokenExchange: sidecarForwarder(`http://127.0.0.1:${sidecar.port}`, SIDECAR_SECRET, logger),
    // Behind the ingress: X-Forwarded-* comes from a trusted hop, and still decides no URL.
    trustProxy: true,
    maxTenants: 10,
    ttlMs: 60_000,
    negativeTtlMs: 1000,
  });
  const { listener } = createApp({
    logger,
    models: db.models,
    tenants: pool,
    readiness: [],
    trustProxy: true,
    kek: keyStore.kek,
  });
  server = await new Promise((res) => {
    const s = createServer(listener).listen(port, '127.0.0.1', () => res(s));
  });
});

afterAll(async () => {
  // Each is unset when beforeAll failed before assigning it.
  const started = { server, sidecar, db } as Partial<{ server: Server; sidecar: Listening; db: typeof db }>;
  started.server?.closeAllConnections();
  await new Promise((r) => started.server?.close(r));
  await started.sidecar?.close(100);
  await started.db?.connection.dropDatabase().catch(() => undefined);
  await started.db?.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: () => Record<string, unknown>;
}

/** A raw HTTP request to the server (fetch cannot set Host); `target` may be an absolute-form URL. */
function send(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: target,
        headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What an attacker (or a client behind a misrouting proxy) can put in the request. */
const SPOOFS: [string, Record<string, string>][] = [
  ['Host', { host: EVIL }],
  ['X-Forwarded-Host', { 'x-forwarded-host': EVIL }],
  ['X-Forwarded-Host and X-Forwarded-Proto', { host: EVIL, 'x-forwarded-host': EVIL, 'x-forwarded-proto': 'https' }],
  ['X-Forwarded-Proto', { 'x-forwarded-proto': 'https' }],
];

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('discovery', () => {
  const paths: [string, string][] = [
    ['/auth/{t}/.well-known/openid-configuration', '/auth/{t}'],
    ['/_api/auth/{t}/.well-known/openid-configuration', '/_api/auth/{t}'],
    ['/.well-known/oauth-authorization-server/auth/{t}', '/auth/{t}'],
    ['/auth/{t}/.well-known/oauth-authorization-server', '/auth/{t}'],
    ['http://evil.example/auth/{t}/.well-known/openid-configuration', '/auth/{t}'],
  ];
  it.each(SPOOFS)(
    'with %s spoofed, every endpoint URL is on the configured origin, on every discovery path',
    async (_name, spoof) => {
      for (const [template, mount] of paths) {
        const res = await send('GET', template.replace('{t}', String(T)), spoof);
        expect([template, res.status]).toEqual([template, 200]);
        const doc = res.json();
        expect(doc.issuer).toBe(`${base}/auth/${T}`);
        const urls = Object.entries(doc).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri');
        expect(urls.map(([k]) => k)).toEqual(
          expect.arrayContaining([
            'token_endpoint',
            'jwks_uri',
            'authorization_endpoint',
            'userinfo_endpoint',
            'introspection_endpoint',
            'revocation_endpoint',
            'end_session_endpoint',
            'device_authorization_endpoint',
          ]),
        );
        for (const [key, url] of urls)
          expect([template, key, url]).toEqual([
            template,
            key,
            expect.stringMatching(new RegExp(`^${base}${mount.replace('{t}', String(T))}/`)),
          ]);
        expect(res.text).not.toContain(EVIL);
        expect(res.text).not.toContain('https:');
      }
    },
  );

  it('discovery and the JWKS carry a short public Cache-Control; errors stay no-store', async () => {
    for (const prefix of ['', '/_api']) {
      const discovery = await send('GET', `${prefix}/auth/${T}/.well-known/openid-configuration`);
      expect([discovery.status, discovery.headers['cache-control']]).toEqual([200, 'public, max-age=300']);
      const rfc8414 = await send('GET', `${prefix}/.well-known/oauth-authorization-server/auth/${T}`);
      expect([rfc8414.status, rfc8414.headers['cache-control']]).toEqual([200, 'public, max-age=300']);
      const jwks = await send('GET', `${prefix}/auth/${T}/jwks`);
      expect([jwks.status, jwks.headers['cache-control']]).toEqual([200, 'public, max-age=60']);
      const head = await send('HEAD', `${prefix}/auth/${T}/jwks`);
      expect([head.status, head.headers['cache-control']]).toEqual([200, 'public, max-age=60']);
    }
    const wrongMethod = await send('POST', `/auth/${T}/jwks`);
    expect([wrongMethod.status, wrongMethod.headers['cache-control']]).toEqual([405, 'no-store']);
    const unknownTenant = await send('GET', '/auth/987654321/.well-known/openid-configuration');
    expect([unknownTenant.status, unknownTenant.headers['cache-control']]).toEqual([404, 'no-store']);
    // Other provider answers get no public caching.
    const token = await send(
      'POST',
      `/auth/${T}/oidc/token`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      form({ grant_type: 'client_credentials' }),
    );
    expect(token.headers['cache-control']).toBe('no-store');
  });
});

describe('DPoP htu', () => {
  let key: { privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; jwk: JWK; jkt: string };
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    key = { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
  });
  const proof = (htu: string) =>
    new SignJWT({ htm: 'POST', htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
      .sign(key.privateKey);

  const clientCredentials = async (path: string, htu: string, spoof: Record<string, string>) =>
    send(
      'POST',
      path,
      {
        ...spoof,
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(t.admin.clientId, t.admin.clientSecret),
        dpop: await proof(htu),
      },
      form({ grant_type: 'client_credentials', resource: MANAGEMENT_AUDIENCE, scope: 'auth.clients.read' }),
    );

  const subjectToken = async () => {
    const jwk = (await keyStore.load(T)).signing.find((k) => k.alg === 'ES256')!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: 'openid orders:read orders:write', client_id: t.client.clientId, sub: t.user.id })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`${base}/auth/${T}`)
      .setAudience(t.resource)
      .setIssuedAt(now - 10)
      .setExpirationTime(now + 600)
      .setJti(randomUUID())
      .sign(await importJWK(jwk, 'ES256'));
  };
  const tokenExchange = async (path: string, htu: string, spoof: Record<string, string>) =>
    send(
      'POST',
      path,
      {
        ...spoof,
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(t.client.clientId, t.client.clientSecret),
        dpop: await proof(htu),
      },
      form({
        grant_type: GRANT_TYPE_TOKEN_EXCHANGE,
        subject_token: await subjectToken(),
        subject_token_type: TOKEN_TYPE_ACCESS_TOKEN,
        actor_token: 'orders-agent',
        actor_token_type: TOKEN_TYPE_NHE_ID,
        resource: t.resource,
        scope: 'orders:read',
      }),
    );

  const grants: [string, typeof clientCredentials][] = [
    ['client_credentials (node-oidc-provider)', clientCredentials],
    ['token exchange (sidecar)', tokenExchange],
  ];

  describe.each(grants)('%s', (_name, grant) => {
    it.each(SPOOFS)(
      'a proof for the origin in %s is invalid_dpop_proof; one for the configured origin works',
      async (_spoofName, spoof) => {
        const sent: Partial<Record<string, string>> = spoof; // a spoof sets some of these headers only
        const evilOrigin = `${sent['x-forwarded-proto'] ?? 'http'}://${sent['x-forwarded-host'] ?? sent.host ?? `127.0.0.1:${port}`}`;
        for (const prefix of ['', '/_api']) {
          const path = `${prefix}/auth/${T}/oidc/token`;
          const evil = await grant(path, `${evilOrigin}${path}`, spoof);
          expect([path, evil.status, evil.json().error]).toEqual([path, 400, 'invalid_dpop_proof']);
          const good = await grant(path, `${base}${path}`, spoof);
          expect([path, good.status, good.json().token_type]).toEqual([path, 200, 'DPoP']);
          expect(decodeJwt(String(good.json().access_token)).cnf).toEqual({ jkt: key.jkt });
        }
      },
    );

    it('the htu is exactly the URL posted to: the other mount form is refused', async () => {
      const viaAlias = await grant(`/_api/auth/${T}/oidc/token`, `${base}/auth/${T}/oidc/token`, {});
      expect([viaAlias.status, viaAlias.json().error]).toEqual([400, 'invalid_dpop_proof']);
      const direct = await grant(`/auth/${T}/oidc/token`, `${base}/_api/auth/${T}/oidc/token`, {});
      expect([direct.status, direct.json().error]).toEqual([400, 'invalid_dpop_proof']);
    });

    it('an absolute-form request target does not lend its authority to the htu', async () => {
      const target = `http://${EVIL}/auth/${T}/oidc/token`;
      const evil = await grant(target, target, { host: EVIL });
      expect([evil.status, evil.json().error]).toEqual([400, 'invalid_dpop_proof']);
      const good = await grant(target, `${base}/auth/${T}/oidc/token`, { host: EVIL });
      expect([good.status, good.json().token_type]).toEqual([200, 'DPoP']);
    });
  });
});

describe('pages and redirects', () => {
  it.each(SPOOFS)(
    'with %s spoofed, sign-in, device and logout URLs stay on the configured origin',
    async (_name, spoof) => {
      const cookies = new Map<string, string>();
      const seen: string[] = [];
      const go = async (method: string, target: string, body?: Record<string, string>) => {
        const res = await send(
          method,
          target,
          {
            ...spoof,
            accept: 'text/html',
            cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
            ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          },
          body ? form(body) : undefined,
        );
        for (const line of res.headers['set-cookie'] ?? []) {
          const [pair] = line.split(';');
          const eq = pair!.indexOf('=');
          cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
        }
        if (res.headers.location) seen.push(res.headers.location);
        for (const m of res.text.matchAll(/(?:action|href)="([^"]+)"/g)) seen.push(m[1]!);
        return res;
      };
      // Sign-in (first-party client: no consent), following every redirect to the client's redirect URI.
      const params = new URLSearchParams({
        client_id: t.client.clientId,
        response_type: 'code',
        redirect_uri: t.client.redirectUri,
        scope: 'openid',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCgaXoWWpw9XnYtk0hV0Vh3M',
        code_challenge_method: 'S256',
        state: 'st',
      });
      let res = await go('GET', `/auth/${T}/authorize?${params}`);
      const loginPage = await go('GET', new URL(res.headers.location!, base).pathname);
      expect(loginPage.status).toBe(200);
      res = await go('POST', /action="([^"]+)"/.exec(loginPage.text)![1]!, {
        username: t.user.username,
        password: t.user.password,
      });
      for (let i = 0; i < 5 && res.headers.location && !res.headers.location.startsWith(t.client.redirectUri); i++) {
        const next = new URL(res.headers.location, base);
        expect(next.origin).toBe(base);
        res = await go('GET', `${next.pathname}${next.search}`);
      }
      const callback = new URL(res.headers.location!);
      expect(callback.searchParams.get('code')).toBeTruthy();
      expect(callback.searchParams.get('iss')).toBe(`${base}/auth/${T}`);

      // Device authorization: the verification URIs, and the code page's form.
      const auth = await send(
        'POST',
        `/auth/${T}/device/auth`,
        {
          ...spoof,
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(device.clientId, device.clientSecret),
        },
        form({ scope: 'openid' }),
      );
      const { verification_uri, verification_uri_complete } = auth.json() as {
        verification_uri: string;
        verification_uri_complete: string;
      };
      seen.push(verification_uri, verification_uri_complete);
      expect(verification_uri).toBe(`${base}/auth/${T}/device`);
      await go('GET', `/_api/auth/${T}/device`);

      // Logout: the provider's own confirmation form, our logout page's links and the redirects.
      await go('GET', `/auth/${T}/session/end?client_id=${t.client.clientId}`);
      await go('GET', `/auth/${T}/logout/confirm?client_id=${t.client.clientId}`);

      expect(seen.length).toBeGreaterThan(6);
      for (const url of seen) {
        expect(url).not.toContain(EVIL);
        // An inline resource (the pages' icon) names no origin at all.
        if (url.startsWith('data:')) continue;
        const absolute = new URL(url.replace(/&amp;/g, '&'), base);
        if (!absolute.href.startsWith(t.client.redirectUri)) expect([url, absolute.origin]).toEqual([url, base]);
      }
    },
  );
});
