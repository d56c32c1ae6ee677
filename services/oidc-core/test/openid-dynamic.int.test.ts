/**
 * The OpenID Dynamic profile (settings.openidDynamicProfile) against oidc-core over real HTTP, and what every tenant
 * gets with it:
 * - discovery says what the profile adds only where it is on (request objects by value and by reference, signed
 *   UserInfo, the id_token response types);
 * - a confidential client registers (RFC 7591) with its keys, a UserInfo signing algorithm and the PKCE choice, and
 *   openid-client 6 runs the code flow with a signed request object (JAR), without PKCE, and verifies the signed
 *   UserInfo; a public client still needs PKCE, and so does a confidential one that chose it or registered without
 *   the profile;
 * - request_uri by reference is fetched over https through the outbound layer; http, unreachable or unsigned objects
 *   are refused in the requested response mode;
 * - the id_token and `id_token token` response types for a client that registered them, never for an agent client,
 *   never where the profile is off;
 * - errors in the requested response mode where the profile is off (form_post and fragment inside a request object);
 * - the consent page shows a registered client's logo (https only, CSP img-src for that URL only), policy and terms
 *   links, escaped;
 * - after a key rotation the retired key is published exactly as before, without key_ops.
 */
import { randomInt } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import * as oidc from 'openid-client';
import { seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { startDocServer, testResolver, type DocServer } from './doc-server';

let app: PagesApp;
let docs: DocServer;
/** The profile on, registration open. */
let on: number;
/** The profile off (the default), registration open. */
let off: SeededTenant;

const RP = 'https://rp.example.test/cb';
let rpKey: CryptoKey;
let rpJwk: JWK;

beforeAll(async () => {
  docs = await startDocServer();
  app = await startPagesApp('oidd', {
    outbound: { ca: docs.ca, resolve: testResolver, timeoutMs: 1000, allowLoopback: true },
  });
  on = app.tenant.tenantId;
  await app.db.models.Tenant.updateOne(
    { _id: on },
    {
      $set: {
        'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 } },
        'settings.openidDynamicProfile': { enabled: true },
      },
    },
  );
  off = await seedDelegationTenant(app.db.models, app.keyStore, {
    tenantId: randomInt(1_000_001, 2_000_000),
    tenantName: 'Plain',
    clientSecretPepper: PEPPER,
  });
  await app.db.models.Tenant.updateOne(
    { _id: off.tenantId },
    { $set: { 'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 } } } },
  );
  const pair = await generateKeyPair('ES256', { extractable: true });
  rpKey = pair.privateKey;
  rpJwk = { ...(await exportJWK(pair.publicKey)), kid: 'rp-1', alg: 'ES256', use: 'sig' };
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
  await (docs as DocServer | undefined)?.stop();
});

const issuerOf = (tenantId: number) => `${app.baseUrl}/auth/${tenantId}`;

async function register(tenantId: number, body: Record<string, unknown>) {
  const res = await fetch(`${issuerOf(tenantId)}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const confidential = (extra: Record<string, unknown> = {}) => ({
  application_type: 'web',
  redirect_uris: [RP],
  token_endpoint_auth_method: 'private_key_jwt',
  jwks: { keys: [rpJwk] },
  response_types: ['code'],
  grant_types: ['authorization_code'],
  client_name: 'Dynamic RP',
  ...extra,
});

/** A request object signed with the RP's key (Core section 6.1). */
const requestObject = (clientId: string, tenantId: number, claims: Record<string, unknown>) =>
  new SignJWT({ client_id: clientId, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'rp-1', typ: 'oauth-authz-req+jwt' })
    .setIssuer(clientId)
    .setAudience(issuerOf(tenantId))
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(rpKey);

/** Signs alice in from an authorization URL and allows consent; the answer that reaches the RP, and the consent page. */
async function signIn(url: string, redirectUri = RP) {
  const browser = new Browser(app.baseUrl);
  const start = await browser.go(url);
  if (!start.location || start.location.startsWith(redirectUri)) return { first: start, consent: undefined };
  const interaction = new URL(start.location, app.baseUrl).pathname;
  const login = await browser.go(`${interaction}/login`, {
    form: { username: app.tenant.user.username, password: app.tenant.user.password },
  });
  let location = login.location;
  let consent: { text: string; headers: Headers } | undefined;
  for (let i = 0; i < 10 && location; i++) {
    const target = new URL(location, app.baseUrl);
    if (target.toString().startsWith(redirectUri)) return { first: start, callback: target, consent };
    const res = await browser.go(target.toString());
    if (res.status === 200) {
      consent = res;
      location = (await browser.go(`${target.pathname}/confirm`, { form: {} })).location;
    } else location = res.location;
  }
  throw new Error('the sign-in did not reach the redirect URI');
}

const discoveryOf = async (tenantId: number) =>
  (await (await fetch(`${issuerOf(tenantId)}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;

describe('discovery', () => {
  it('advertises request objects, request_uri, signed UserInfo and the id_token response types where the profile is on', async () => {
    const d = await discoveryOf(on);
    expect(d.request_parameter_supported).toBe(true);
    expect(d.request_uri_parameter_supported).toBe(true);
    expect(d.require_request_uri_registration).toBe(false);
    expect(d.request_object_signing_alg_values_supported).toEqual(['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA']);
    expect(d.userinfo_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect(d.response_types_supported).toEqual(['code', 'id_token', 'id_token token']);
  });

  it('says none of it where the profile is off; the vendor fields stay in both', async () => {
    const d = await discoveryOf(off.tenantId);
    expect(d.request_parameter_supported).toBe(false);
    expect(d.request_uri_parameter_supported).toBe(false);
    expect(d.request_object_signing_alg_values_supported).toBeUndefined();
    expect(d.userinfo_signing_alg_values_supported).toBeUndefined();
    expect(d.response_types_supported).toEqual(['code']);
    for (const t of [d, await discoveryOf(on)]) {
      expect(t['org.vendor.actor_token_types_supported']).toBeDefined();
      expect(t['org.vendor.max_chain_depth']).toBeDefined();
    }
  });
});

describe('a confidential client registered under the profile (openid-client 6)', () => {
  it('runs the code flow with a signed request object and no PKCE, and verifies the signed UserInfo', async () => {
    const created = await register(on, confidential({ userinfo_signed_response_alg: 'RS256' }));
    expect(created.status).toBe(201);
    // The choice it did not send is recorded, and the answer says so (RFC 7591 section 3.2.1).
    expect(created.body['org.vendor.require_pkce']).toBe(false);
    const clientId = String(created.body.client_id);
    const config = await oidc.discovery(
      new URL(issuerOf(on)),
      clientId,
      { userinfo_signed_response_alg: 'RS256', id_token_signed_response_alg: 'ES256' },
      oidc.PrivateKeyJwt({ key: rpKey, kid: 'rp-1' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: RP, scope: 'openid email', state, nonce },
      { key: rpKey, kid: 'rp-1' },
    );
    // Only the request object and client_id travel outside it.
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request']);
    const { callback } = await signIn(url.toString());
    expect(callback!.searchParams.get('code')).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(config, callback!, {
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const sub = tokens.claims()!.sub;
    // openid-client requires an application/jwt answer signed with RS256 by the issuer's keys.
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo.sub).toBe(sub);
    // The raw answer: a JWT for this client, from this issuer.
    const raw = await fetch(`${issuerOf(on)}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(raw.headers.get('content-type')).toMatch(/^application\/jwt/);
    const claims = decodeJwt(await raw.text());
    expect([claims.iss, claims.aud, claims.sub]).toEqual([issuerOf(on), clientId, sub]);
  });

  it('a confidential client that chose PKCE, a public client, and a client registered without the profile need it', async () => {
    const chose = await register(on, confidential({ 'org.vendor.require_pkce': true }));
    expect(chose.body['org.vendor.require_pkce']).toBe(true);
    const pub = await register(on, {
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
      'org.vendor.require_pkce': false,
    });
    expect(pub.status).toBe(201);
    expect(pub.body['org.vendor.require_pkce']).toBeUndefined();
    const plain = await register(off.tenantId, confidential({ 'org.vendor.require_pkce': false }));
    expect(plain.status).toBe(201);
    expect(plain.body['org.vendor.require_pkce']).toBeUndefined();
    for (const [tenantId, clientId, redirectUri] of [
      [on, String(chose.body.client_id), RP],
      [on, String(pub.body.client_id), 'http://127.0.0.1/cb'],
      [off.tenantId, String(plain.body.client_id), RP],
    ] as const) {
      const q = new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: redirectUri,
        state: 'p',
      });
      const res = await new Browser(app.baseUrl).go(`${issuerOf(tenantId)}/authorize?${q}`);
      const back = new URL(res.location!);
      expect([clientId, back.searchParams.get('error'), back.searchParams.get('error_description')]).toEqual([
        clientId,
        'invalid_request',
        'Authorization Server policy requires PKCE to be used for this request',
      ]);
    }
  });

  it('a non-boolean PKCE choice is invalid_client_metadata', async () => {
    const res = await register(on, confidential({ 'org.vendor.require_pkce': 'no' }));
    expect([res.status, res.body.error]).toEqual([400, 'invalid_client_metadata']);
  });

  it('outside the profile the member is ignored like any unknown metadata, whatever its value', async () => {
    const res = await register(off.tenantId, confidential({ 'org.vendor.require_pkce': 'no' }));
    expect(res.status).toBe(201);
    expect(res.body['org.vendor.require_pkce']).toBeUndefined();
  });

  it('a client that registered without PKCE needs it again once the profile is turned off', async () => {
    const created = await register(on, confidential());
    expect(created.body['org.vendor.require_pkce']).toBe(false);
    const clientId = String(created.body.client_id);
    const q = new URLSearchParams({ client_id: clientId, response_type: 'code', scope: 'openid', redirect_uri: RP });
    const go = async () => (await new Browser(app.baseUrl).go(`${issuerOf(on)}/authorize?${q}`)).location ?? '';
    // Under the profile it goes on to sign-in.
    expect(new URL(await go(), app.baseUrl).pathname).toMatch(/\/interaction\//);
    await app.db.models.Tenant.updateOne({ _id: on }, { $set: { 'settings.openidDynamicProfile.enabled': false } });
    app.pool.evict(on);
    try {
      expect(new URL(await go()).searchParams.get('error_description')).toBe(
        'Authorization Server policy requires PKCE to be used for this request',
      );
    } finally {
      await app.db.models.Tenant.updateOne({ _id: on }, { $set: { 'settings.openidDynamicProfile.enabled': true } });
      app.pool.evict(on);
    }
  });
});

describe('request objects', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = String((await register(on, confidential())).body.client_id);
  });
  const authorize = (tenantId: number, params: Record<string, string>) =>
    new Browser(app.baseUrl).go(`${issuerOf(tenantId)}/authorize?${new URLSearchParams(params)}`);

  it('request_uri: the object is fetched over https and the request goes on to sign-in', async () => {
    const jwt = await requestObject(clientId, on, {
      response_type: 'code',
      redirect_uri: RP,
      scope: 'openid',
      state: 'by-reference',
    });
    docs.route('/ro/1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' });
      res.end(jwt);
    });
    const res = await authorize(on, {
      client_id: clientId,
      response_type: 'code',
      scope: 'openid',
      request_uri: `${docs.url('/ro/1')}#cache-key`,
    });
    expect(docs.hits.get('/ro/1')).toBe(1);
    expect(res.status).toBe(303);
    expect(new URL(res.location!, app.baseUrl).pathname).toMatch(/\/interaction\//);
  });

  it.each([
    ['an http URL', () => 'http://127.0.0.1:9/ro', /https/],
    ['an unreachable one', () => docs.url('/missing'), /answered 404/],
    ['one that answers no JWS', () => docs.url('/not-a-jwt'), /signed request object/],
  ])('request_uri: %s is invalid_request_uri, back to the client', async (_what, uri, description) => {
    docs.route('/not-a-jwt', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
    const res = await authorize(on, {
      client_id: clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: RP,
      state: 'u',
      request_uri: uri(),
    });
    const back = new URL(res.location!);
    expect(back.origin + back.pathname).toBe(RP);
    expect(back.searchParams.get('error')).toBe('invalid_request_uri');
    expect(back.searchParams.get('error_description')).toMatch(description);
    expect(back.searchParams.get('state')).toBe('u');
  });

  it('request_uri: nothing is fetched for a request without a client_id the tenant knows', async () => {
    docs.route('/ro/anyone', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' });
      res.end('a.b.c');
    });
    const requests: Array<Record<string, string>> = [
      { client_id: 'dyn_nobody', response_type: 'code', scope: 'openid', request_uri: docs.url('/ro/anyone') },
      { response_type: 'code', scope: 'openid', request_uri: docs.url('/ro/anyone') },
    ];
    for (const params of requests) {
      const res = await authorize(on, params);
      // Refused by the provider for the client (an error page, never a redirect), before any request_uri is read.
      expect([res.status, res.location]).toEqual([400, undefined]);
      expect(res.text).toMatch(/invalid_client|invalid_request/);
    }
    expect(docs.hits.get('/ro/anyone')).toBeUndefined();
  });

  it("request_uri fetches in flight never take the slots a client's jwks_uri needs", async () => {
    // A client whose keys are fetched from its jwks_uri when its request object is verified.
    docs.json('/rp-jwks', { keys: [rpJwk] });
    const byUri = await register(on, { ...confidential(), jwks: undefined, jwks_uri: docs.url('/rp-jwks') });
    expect(byUri.status).toBe(201);
    const byUriId = String(byUri.body.client_id);
    // As many slow request_uri fetches as the tenant may have in flight (4 by default), all held at once.
    const slow = [0, 1, 2, 3].map((i) => `/slow-ro/${i}`);
    for (const path of slow)
      docs.route(path, (_req, res) => {
        setTimeout(() => {
          res.writeHead(404);
          res.end();
        }, 700);
      });
    const held = slow.map((path) =>
      authorize(on, {
        client_id: clientId,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: RP,
        request_uri: docs.url(path),
      }),
    );
    for (let i = 0; i < 50 && !slow.every((path) => docs.hits.get(path) === 1); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(slow.map((path) => docs.hits.get(path))).toEqual([1, 1, 1, 1]);
    const jwt = await requestObject(byUriId, on, { response_type: 'code', redirect_uri: RP, scope: 'openid' });
    const res = await authorize(on, {
      client_id: byUriId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: RP,
      request: jwt,
    });
    // Verified with the keys of its jwks_uri: on to sign-in, not refused for want of a fetch slot.
    expect(docs.hits.get('/rp-jwks')).toBe(1);
    expect([res.status, new URL(res.location!, app.baseUrl).pathname]).toEqual([
      303,
      expect.stringMatching(/\/interaction\//),
    ]);
    for (const answer of await Promise.all(held))
      expect(new URL(answer.location!).searchParams.get('error')).toBe('invalid_request_uri');
  });

  it('an unsigned request object (alg none) is refused in the response mode it asks for', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: RP,
        response_mode: 'fragment',
        state: 'n',
      }),
    ).toString('base64url');
    const res = await authorize(on, {
      client_id: clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: RP,
      request: `${header}.${payload}.`,
    });
    const fragment = new URLSearchParams(new URL(res.location!).hash.slice(1));
    expect([fragment.get('error'), fragment.get('state')]).toEqual(['invalid_request_object', 'n']);
  });

  it('a request object signed with another key is refused', async () => {
    const other = await generateKeyPair('ES256');
    const jwt = await new SignJWT({ client_id: clientId, response_type: 'code', redirect_uri: RP, scope: 'openid' })
      .setProtectedHeader({ alg: 'ES256', kid: 'rp-1' })
      .setIssuer(clientId)
      .setAudience(issuerOf(on))
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(other.privateKey);
    const res = await authorize(on, {
      client_id: clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: RP,
      request: jwt,
    });
    expect(new URL(res.location!).searchParams.get('error')).toBe('invalid_request_object');
  });
});

describe('errors in the requested response mode where the profile is off', () => {
  const authorize = (params: Record<string, string>) =>
    new Browser(app.baseUrl).go(`${issuerOf(off.tenantId)}/authorize?${new URLSearchParams(params)}`);
  const unsignedObject = (claims: Record<string, unknown>) =>
    `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;

  it('a request object asking for form_post gets request_not_supported as a form post', async () => {
    const res = await authorize({
      client_id: off.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: off.client.redirectUri,
      request: unsignedObject({ response_mode: 'form_post', state: 'fp-1', redirect_uri: off.client.redirectUri }),
    });
    // The provider keeps the error's status on the auto-submitting form the browser renders.
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.text).toMatch(/<form method="post" action=/);
    expect(res.text).toContain(`action="${off.client.redirectUri}"`);
    expect(res.text).toMatch(/name="error" value="request_not_supported"/);
    expect(res.text).toMatch(/name="state" value="fp-1"/);
  });

  it('and one asking for fragment gets it in the fragment', async () => {
    const res = await authorize({
      client_id: off.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: off.client.redirectUri,
      request: unsignedObject({ response_mode: 'fragment', state: 'fr-1' }),
    });
    const back = new URL(res.location!);
    expect(back.search).toBe('');
    const fragment = new URLSearchParams(back.hash.slice(1));
    expect([fragment.get('error'), fragment.get('state')]).toEqual(['request_not_supported', 'fr-1']);
  });

  it('a response_mode, state and redirect_uri of the request itself win over the object', async () => {
    const res = await authorize({
      client_id: off.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: off.client.redirectUri,
      response_mode: 'query',
      state: 'mine',
      request: unsignedObject({
        response_mode: 'form_post',
        state: 'theirs',
        redirect_uri: 'https://attacker.example/cb',
      }),
    });
    const back = new URL(res.location!);
    expect(back.origin + back.pathname).toBe(off.client.redirectUri);
    expect([back.searchParams.get('error'), back.searchParams.get('state')]).toEqual(['request_not_supported', 'mine']);
  });

  it('an unregistered redirect_uri in the object is never used: the error stays on the error page', async () => {
    const res = await authorize({
      client_id: off.client.clientId,
      response_type: 'code',
      scope: 'openid',
      request: unsignedObject({ response_mode: 'form_post', state: 'x', redirect_uri: 'https://attacker.example/cb' }),
    });
    expect([res.status, res.location]).toEqual([400, undefined]);
    expect(res.text).toContain('invalid_redirect_uri');
    expect(res.text).not.toContain('attacker.example');
  });

  it('request_uri is not fetched where the profile is off', async () => {
    const res = await authorize({
      client_id: off.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: off.client.redirectUri,
      request_uri: docs.url('/off-tenant'),
    });
    expect(new URL(res.location!).searchParams.get('error')).toBe('request_uri_not_supported');
    expect(docs.hits.get('/off-tenant')).toBeUndefined();
  });
});

describe('the id_token and `id_token token` response types', () => {
  it('a client that registered them gets an ID token (and an access token) in the fragment', async () => {
    const created = await register(on, {
      application_type: 'web',
      redirect_uris: [RP],
      token_endpoint_auth_method: 'none',
      response_types: ['id_token', 'id_token token'],
      grant_types: ['implicit'],
      client_name: 'Implicit RP',
    });
    expect(created.status).toBe(201);
    expect(created.body.grant_types).toEqual(['implicit']);
    const clientId = String(created.body.client_id);
    for (const responseType of ['id_token', 'id_token token']) {
      const q = new URLSearchParams({
        client_id: clientId,
        response_type: responseType,
        scope: 'openid',
        redirect_uri: RP,
        nonce: `n-${responseType}`,
        state: 's',
      });
      const { callback } = await signIn(`${issuerOf(on)}/authorize?${q}`);
      const fragment = new URLSearchParams(callback!.hash.slice(1));
      const idToken = decodeJwt(fragment.get('id_token')!);
      expect([idToken.aud, idToken.nonce, fragment.get('state')]).toEqual([clientId, `n-${responseType}`, 's']);
      expect(Boolean(fragment.get('access_token'))).toBe(responseType === 'id_token token');
      expect(fragment.get('code')).toBeNull();
    }
  });

  it('an agent client never gets them, whatever it registered', async () => {
    const created = await register(on, {
      application_type: 'web',
      redirect_uris: [RP],
      token_endpoint_auth_method: 'none',
      response_types: ['id_token'],
    });
    const clientId = String(created.body.client_id);
    await app.db.models.Nhe.updateOne(
      { tenantId: on, identifier: app.tenant.nhe.identifier },
      { $set: { agentClients: [clientId] } },
    );
    try {
      const q = new URLSearchParams({
        client_id: clientId,
        response_type: 'id_token',
        scope: 'openid',
        redirect_uri: RP,
        nonce: 'n',
        state: 'a',
      });
      const res = await new Browser(app.baseUrl).go(`${issuerOf(on)}/authorize?${q}`);
      const fragment = new URLSearchParams(new URL(res.location!).hash.slice(1));
      expect([fragment.get('error'), fragment.get('state')]).toEqual(['unauthorized_client', 'a']);
    } finally {
      await app.db.models.Nhe.updateOne(
        { tenantId: on, identifier: app.tenant.nhe.identifier },
        { $set: { agentClients: [] } },
      );
    }
  });

  it('are not registrable, nor served, where the profile is off', async () => {
    const res = await register(off.tenantId, {
      application_type: 'web',
      redirect_uris: [RP],
      token_endpoint_auth_method: 'none',
      response_types: ['id_token'],
    });
    expect(res.status).toBe(400);
    const q = new URLSearchParams({
      client_id: off.client.clientId,
      response_type: 'id_token',
      scope: 'openid',
      redirect_uri: off.client.redirectUri,
      nonce: 'n',
    });
    const answer = await new Browser(app.baseUrl).go(`${issuerOf(off.tenantId)}/authorize?${q}`);
    const fragment = new URLSearchParams(new URL(answer.location!).hash.slice(1));
    expect(fragment.get('error')).toBe('unsupported_response_type');
  });
});

describe('the consent page of a registered client', () => {
  it('shows its name, https logo (img-src for that URL only), policy and terms links, escaped', async () => {
    const created = await register(on, {
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/consent'],
      token_endpoint_auth_method: 'none',
      client_name: 'Tools <b>"RP"</b>',
      logo_uri: 'https://cdn.rp.example.test/logo.png?a=1&b=2',
      policy_uri: 'https://rp.example.test/privacy',
      tos_uri: 'https://rp.example.test/terms',
    });
    expect(created.status).toBe(201);
    const q = new URLSearchParams({
      client_id: String(created.body.client_id),
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://127.0.0.1/consent',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { consent } = await signIn(`${issuerOf(on)}/authorize?${q}`, 'http://127.0.0.1/consent');
    expect(consent!.text).toContain('<img src="https://cdn.rp.example.test/logo.png?a&#61;1&#38;b&#61;2"');
    expect(consent!.text).toContain('Tools &#60;b&#62;&#34;RP&#34;&#60;/b&#62;');
    expect(consent!.text).not.toContain('<b>"RP"</b>');
    expect(consent!.text).toMatch(
      /<a id="client-policy" href="https:\/\/rp\.example\.test\/privacy" target="_blank" rel="noopener noreferrer">/,
    );
    expect(consent!.text).toMatch(
      /<a id="client-tos" href="https:\/\/rp\.example\.test\/terms"[^>]*rel="noopener noreferrer"/,
    );
    const csp = consent!.headers.get('content-security-policy')!;
    // Exactly the logo's URL (a source expression carries no query), never the whole origin.
    expect(csp).toMatch(/img-src 'self' data: https:\/\/cdn\.rp\.example\.test\/logo\.png;/);
  });

  it('shows no logo or link that is not https', async () => {
    const created = await register(on, {
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/consent2'],
      token_endpoint_auth_method: 'none',
      client_name: 'Plain RP',
      logo_uri: 'http://cdn.rp.example.test/logo.png',
      policy_uri: 'http://rp.example.test/privacy',
    });
    const q = new URLSearchParams({
      client_id: String(created.body.client_id),
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://127.0.0.1/consent2',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { consent } = await signIn(`${issuerOf(on)}/authorize?${q}`, 'http://127.0.0.1/consent2');
    expect(consent!.text).toContain('Plain RP');
    expect(consent!.text).not.toContain('id="client-logo"');
    expect(consent!.text).not.toContain('id="client-policy"');
    expect(consent!.headers.get('content-security-policy')).not.toContain('rp.example.test');
  });

  it('shows no logo whose host is no plain host name (a CSP wildcard `*`), and names none in img-src', async () => {
    const created = await register(on, {
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/consent3'],
      token_endpoint_auth_method: 'none',
      client_name: 'Wildcard RP',
      logo_uri: 'https://*/logo.png',
    });
    expect(created.status).toBe(201);
    const q = new URLSearchParams({
      client_id: String(created.body.client_id),
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://127.0.0.1/consent3',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const { consent } = await signIn(`${issuerOf(on)}/authorize?${q}`, 'http://127.0.0.1/consent3');
    expect(consent!.text).toContain('Wildcard RP');
    expect(consent!.text).not.toContain('id="client-logo"');
    expect(consent!.headers.get('content-security-policy')).toMatch(/img-src 'self' data:;/);
  });
});

describe('key rotation', () => {
  it('publishes the retired key exactly as it was published while it signed, until it is dropped', async () => {
    const jwks = async () =>
      ((await (await fetch(`${issuerOf(off.tenantId)}/jwks`)).json()) as { keys: Array<Record<string, unknown>> }).keys;
    const before = await jwks();
    const es256 = before.find((k) => k.alg === 'ES256')!;
    const rotated = await app.keyStore.rotate(off.tenantId, 'ES256', 3600);
    app.pool.evict(off.tenantId);
    const after = await jwks();
    expect(after.find((k) => k.kid === es256.kid)).toEqual(es256);
    expect(after.find((k) => k.kid === rotated.created.kid)).toBeDefined();
    for (const k of after) expect(k.key_ops).toBeUndefined();
    // The retired key no longer signs: a new ID token names the new key.
    expect(after.map((k) => k.kid)).toContain(rotated.active.kid);
  });
});
