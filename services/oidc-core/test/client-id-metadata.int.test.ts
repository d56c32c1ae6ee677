/**
 * Client ID Metadata Documents, against oidc-core in-process with documents served by a local
 * https server: a code flow through openid-client with a document client (the host and same-origin logo on the
 * consent page, a first-party claim in the document ignored, any loopback port for a native client), and the
 * refusals: loopback and private addresses (literal, by name, through a resolver that points names at them; loopback
 * is the operator's choice, CIMD_ALLOW_LOOPBACK, and a tenant's stored allowLoopback widens nothing), a redirect to
 * another host, an oversize or slow document, a mismatched client_id, secrets, inline keys, http
 * redirect URIs of a web client, hosts outside the allowed patterns, a logo from another origin, and the admin
 * audiences.
 */
import { randomInt } from 'node:crypto';
import * as oidc from 'openid-client';
import { seedDelegationTenant } from '@idp/testing';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { startDocServer, testResolver, type DocServer } from './doc-server';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';

/** oidc-core as a developer runs it: the operator allows loopback fetches (CIMD_ALLOW_LOOPBACK). */
let app: PagesApp;
/** oidc-core as deployed: loopback refused, whatever a tenant's settings say. */
let strictApp: PagesApp;
let docs: DocServer;
/** Hosts localhost and *.test, 2 KiB documents (in `app`). */
let devTenant: number;
/** Defaults, any public host (in `strictApp`); its stored settings still say allowLoopback: true (an earlier version's). */
let strictTenant: number;
/** Client ID Metadata Documents off (the default). */
let offTenant: number;

const CALLBACK = 'http://127.0.0.1:8733/callback';

beforeAll(async () => {
  docs = await startDocServer();
  app = await startPagesApp('cimd', {
    outbound: { ca: docs.ca, resolve: testResolver, timeoutMs: 1000, allowLoopback: true },
  });
  strictApp = await startPagesApp('cimd-strict', { outbound: { ca: docs.ca, resolve: testResolver, timeoutMs: 1000 } });
  const m = app.db.models;
  devTenant = app.tenant.tenantId;
  await m.Tenant.updateOne(
    { _id: devTenant },
    {
      $set: {
        'settings.clientIdMetadataDocuments': {
          enabled: true,
          allowedHosts: ['localhost', '*.test'],
          maxDocumentBytes: 2048,
          cacheMaxSeconds: 600,
        },
      },
    },
  );
  strictTenant = strictApp.tenant.tenantId;
  await strictApp.db.models.Tenant.updateOne(
    { _id: strictTenant },
    { $set: { 'settings.clientIdMetadataDocuments': { enabled: true, allowLoopback: true } } },
  );
  strictApp.pool.clear();
  offTenant = randomInt(2_000_001, 3_000_000);
  await seedDelegationTenant(m, app.keyStore, { tenantId: offTenant, tenantName: 'Off', clientSecretPepper: PEPPER });
  app.pool.clear();
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await (strictApp as PagesApp | undefined)?.stop();
  await (docs as DocServer | undefined)?.stop();
});

/** The app serving `tenantId`'s requests. */
const baseOf = (tenantId: number) => (tenantId === strictTenant ? strictApp.baseUrl : app.baseUrl);

/** A valid public native client document for `url`. */
const doc = (url: string, extra: Record<string, unknown> = {}) => ({
  client_id: url,
  client_name: 'Example MCP Client',
  application_type: 'native',
  redirect_uris: [CALLBACK],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...extra,
});

/** The first step of an authorization request (no session): the provider's error page or the redirect to login. */
async function authorizeStart(
  tenantId: number,
  clientId: string,
  extra: Record<string, string> = {},
  browser = new Browser(baseOf(tenantId)),
) {
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    ...extra,
  });
  return browser.go(`/auth/${tenantId}/authorize?${params}`);
}

/** The document client is refused: the provider's error page says invalid_client (no redirect to an unknown client). */
async function expectRefused(tenantId: number, clientId: string, description?: RegExp) {
  const res = await authorizeStart(tenantId, clientId);
  expect(res.status).toBe(400);
  expect(res.location).toBeUndefined();
  expect(res.text).toContain('invalid_client');
  if (description) expect(res.text).toMatch(description);
}

/** Signs alice in for `clientId` and returns the consent page (its HTML and CSP) and where to confirm it. */
async function consentPage(tenantId: number, clientId: string, redirectUri = CALLBACK) {
  const browser = new Browser(app.baseUrl);
  const start = await authorizeStart(tenantId, clientId, { redirect_uri: redirectUri }, browser);
  expect(start.status).toBe(303);
  const interaction = new URL(start.location!, app.baseUrl).pathname;
  await browser.go(interaction);
  const login = await browser.go(`${interaction}/login`, {
    form: { username: app.tenant.user.username, password: app.tenant.user.password },
  });
  expect(login.status).toBe(303);
  let location = login.location;
  for (let i = 0; i < 5 && location; i++) {
    const res = await browser.go(location);
    if (res.status === 200)
      return {
        html: res.text,
        csp: res.headers.get('content-security-policy') ?? '',
        browser,
        path: new URL(location, app.baseUrl).pathname,
      };
    location = res.location;
  }
  throw new Error('no consent page');
}

describe('discovery', () => {
  it('advertises client_id_metadata_document_supported only where the tenant enables it', async () => {
    const get = async (t: number) =>
      (await (await fetch(`${baseOf(t)}/auth/${t}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
    expect((await get(devTenant)).client_id_metadata_document_supported).toBe(true);
    expect((await get(strictTenant)).client_id_metadata_document_supported).toBe(true);
    expect((await get(offTenant)).client_id_metadata_document_supported).toBeUndefined();
  });

  it('a tenant without the feature knows no URL client', async () => {
    const url = docs.url('/off/client.json');
    docs.json('/off/client.json', doc(url));
    await expectRefused(offTenant, url);
    expect(docs.hits.get('/off/client.json')).toBeUndefined();
  });
});

describe('a code flow with a metadata document client (openid-client)', () => {
  it('signs alice in after a consent page that names the host and shows the same-origin logo; the document cannot make itself first-party', async () => {
    const url = docs.url('/mcp/client.json');
    const logo = docs.url('/mcp/logo.png');
    docs.json('/mcp/client.json', doc(url, { logo_uri: logo, idp_first_party: true, idp_pkce_required: false }), {
      'cache-control': 'max-age=300',
    });
    const issuer = `${app.baseUrl}/auth/${devTenant}`;
    const config = await oidc.discovery(new URL(issuer), url, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    expect(config.serverMetadata().client_id_metadata_document_supported).toBe(true);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    // RFC 8252 section 7.3: a native client's loopback redirect matches on any port.
    const redirectUri = 'http://127.0.0.1:51234/callback';
    const authUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const browser = new Browser(app.baseUrl);
    const start = await browser.go(authUrl.toString());
    expect(start.status).toBe(303);
    const interaction = new URL(start.location!, app.baseUrl).pathname;
    const login = await browser.go(`${interaction}/login`, {
      form: { username: app.tenant.user.username, password: app.tenant.user.password },
    });
    let location = login.location;
    let consent: { text: string; headers: Headers } | undefined;
    let callback: URL | undefined;
    for (let i = 0; i < 10 && location && !callback; i++) {
      const target = new URL(location, app.baseUrl);
      if (target.toString().startsWith(redirectUri)) {
        callback = target;
        break;
      }
      const res = await browser.go(target.toString());
      if (res.status === 200) {
        consent = res;
        location = (await browser.go(`${target.pathname}/confirm`, { form: {} })).location;
      } else location = res.location;
    }
    // The consent page was shown: a third-party client's.
    expect(consent).toBeDefined();
    expect(consent!.text).toContain('Example MCP Client');
    expect(consent!.text).toMatch(
      new RegExp(`id="client-host">This application is <strong>localhost:${docs.port}</strong>`),
    );
    expect(consent!.text).toContain(`<img src="${logo}"`);
    expect(consent!.headers.get('content-security-policy')).toContain(`img-src 'self' data: ${logo}`);
    expect(callback).toBeDefined();
    const tokens = await oidc.authorizationCodeGrant(config, callback!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.aud).toBe(url);
    expect(tokens.claims()!.sub).toBeDefined();
    // Fetched once: the second use (token endpoint) came from the cache (Cache-Control max-age within the bound).
    expect(docs.hits.get('/mcp/client.json')).toBe(1);
    expect(docs.hits.get('/mcp/logo.png')).toBeUndefined();
    // The document's own idp_* properties are replaced: never first-party, PKCE required, no numeric id (no NHE
    // delegation), marked as a metadata document client.
    const { provider } = await app.pool.get(String(devTenant));
    const client = (await provider.Client.find(url)) as unknown as Record<string, unknown>;
    expect(client.idp_first_party).toBe(false);
    expect(client.idp_pkce_required).toBe(true);
    expect(client.idp_numeric_id).toBeUndefined();
    expect(client.idp_registration).toBe('metadata_document');
  });

  it('shows no logo from another origin than the client_id URL', async () => {
    const url = docs.url('/other-logo/client.json');
    const logo = docs.url('/other-logo/logo.png', 'docs.loopback.test');
    docs.json('/other-logo/client.json', doc(url, { logo_uri: logo }));
    const page = await consentPage(devTenant, url);
    expect(page.html).toContain(`localhost:${docs.port}`);
    expect(page.html).not.toContain('<img');
    expect(page.html).not.toContain('docs.loopback.test');
    expect(page.csp).toContain("img-src 'self' data:;");
  });

  it('gives a document client no token for the management API, whatever the user holds', async () => {
    const url = docs.url('/admin/client.json');
    docs.json('/admin/client.json', doc(url));
    const res = await authorizeStart(devTenant, url, { resource: MANAGEMENT_AUDIENCE });
    const to = new URL(res.location!, app.baseUrl);
    expect(to.origin + to.pathname).toBe(CALLBACK);
    expect(to.searchParams.get('error')).toBe('invalid_target');
  });
});

describe('SSRF: documents on addresses the tenant does not allow are never fetched', () => {
  it("refuses a literal loopback address when the operator does not allow loopback (the default), whatever the tenant's stored settings say", async () => {
    const url = docs.url('/ssrf/literal.json', '127.0.0.1');
    docs.json('/ssrf/literal.json', doc(url));
    await expectRefused(strictTenant, url);
    expect(docs.hits.get('/ssrf/literal.json')).toBeUndefined();
  });

  it('refuses localhost when loopback is not allowed', async () => {
    const url = docs.url('/ssrf/localhost.json');
    docs.json('/ssrf/localhost.json', doc(url));
    await expectRefused(strictTenant, url, /loopback/);
    expect(docs.hits.get('/ssrf/localhost.json')).toBeUndefined();
  });

  it('refuses localhost written as a fully qualified name (localhost.)', async () => {
    const url = docs.url('/ssrf/fqdn.json', 'localhost.');
    docs.json('/ssrf/fqdn.json', doc(url));
    await expectRefused(strictTenant, url, /loopback/);
    expect(docs.hits.get('/ssrf/fqdn.json')).toBeUndefined();
  });

  it('refuses a name that resolves to a loopback address (checked at connect time, not by the name)', async () => {
    const url = docs.url('/ssrf/by-name.json', 'docs.loopback.test');
    docs.json('/ssrf/by-name.json', doc(url));
    await expectRefused(strictTenant, url);
    expect(docs.hits.get('/ssrf/by-name.json')).toBeUndefined();
  });

  it.each([
    ['a private address', 'private.test'],
    ['the cloud metadata address', 'metadata.test'],
    ['a public and a private address', 'mixed.test'],
  ])('refuses a name that resolves to %s, even where loopback is allowed', async (_what, host) => {
    await expectRefused(devTenant, `https://${host}:${docs.port}/client.json`);
  });

  it('refuses hosts outside the allowed patterns without fetching', async () => {
    const url = docs.url('/ssrf/not-allowed.json', '127.0.0.1');
    docs.json('/ssrf/not-allowed.json', doc(url));
    await expectRefused(devTenant, url, /not allowed in this tenant/);
    expect(docs.hits.get('/ssrf/not-allowed.json')).toBeUndefined();
  });

  it('follows no redirect, to another host or at all', async () => {
    const url = docs.url('/ssrf/redirect.json');
    const target = docs.url('/ssrf/target.json', 'docs.loopback.test');
    docs.route('/ssrf/redirect.json', (_req, res) => {
      res.writeHead(302, { location: target });
      res.end();
    });
    docs.json('/ssrf/target.json', doc(url));
    await expectRefused(devTenant, url);
    // Asked once (the provider's second look-up on its error path reuses the answer), never followed.
    expect(docs.hits.get('/ssrf/redirect.json')).toBe(1);
    expect(docs.hits.get('/ssrf/target.json')).toBeUndefined();
  });

  it('refuses a document over the size cap', async () => {
    const url = docs.url('/big/client.json');
    docs.json('/big/client.json', doc(url, { client_name: 'x'.repeat(3000) }));
    await expectRefused(devTenant, url);
  });

  it('refuses a document that does not arrive in time', async () => {
    const url = docs.url('/slow/client.json');
    docs.route('/slow/client.json', (_req, res) => {
      const t = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(doc(url)));
      }, 4000);
      res.on('close', () => clearTimeout(t));
    });
    const started = Date.now();
    await expectRefused(devTenant, url);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('document validation', () => {
  it("accepts a document whose scope names API scopes (MCP clients' resource scopes): only its OpenID scopes count", async () => {
    const path = '/valid/api-scope.json';
    const url = docs.url(path);
    docs.json(path, doc(url, { scope: 'openid mcp:tools orders:read' }));
    const res = await authorizeStart(devTenant, url);
    expect(res.status).toBe(303);
    expect(res.location).toMatch(/\/interaction\//);
    // Its OpenID scopes are its allow list: a login scope outside it is refused (invalid_scope, to the client).
    const outside = await authorizeStart(devTenant, url, { scope: 'openid email' });
    expect(new URL(outside.location!).searchParams.get('error')).toBe('invalid_scope');
  });

  it.each([
    ['a client_id other than its URL', (url: string) => doc(url, { client_id: `${url}?other` })],
    ['a client_secret', (url: string) => doc(url, { client_secret: 'hunter2' })],
    [
      'a shared-secret authentication method',
      (url: string) => doc(url, { token_endpoint_auth_method: 'client_secret_post' }),
    ],
    [
      'private_key_jwt with inline keys instead of jwks_uri',
      (url: string) =>
        doc(url, {
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: {
            keys: [
              {
                kty: 'EC',
                crv: 'P-256',
                x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
                y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
              },
            ],
          },
        }),
    ],
    [
      'an http redirect URI of a web client',
      (url: string) => doc(url, { application_type: 'web', redirect_uris: ['http://app.example.com/cb'] }),
    ],
    [
      'a client_credentials grant',
      (url: string) => doc(url, { grant_types: ['authorization_code', 'client_credentials'] }),
    ],
  ])('refuses a document with %s', async (what, make) => {
    const path = `/invalid/${encodeURIComponent(what)}.json`;
    const url = docs.url(path);
    docs.json(path, make(url));
    await expectRefused(devTenant, url);
  });
});
