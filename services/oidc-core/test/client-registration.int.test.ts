/**
 * Dynamic Client Registration (RFC 7591 / 7592) against oidc-core in-process: initial access
 * tokens (none, unknown, spent, expired, multi use; a refused registration does not spend one), the tenant's policy
 * (grant types, authentication methods, redirect URI tricks), our client properties out of reach, the per-address
 * limit held in the store (counted for the address under the trusted hop, whatever X-Forwarded-For the client
 * forges), what stock MCP hosts send (loopback redirects without application_type: native; a secret-based or no
 * authentication method: none), client_credentials never for a public client, RFC 7592 read/update/delete with the
 * registration access token and refused without it, a code flow through openid-client with a registered client, and
 * the reason given when the user holds no role on the API asked for.
 */
import { randomBytes, randomInt } from 'node:crypto';
import * as oidc from 'openid-client';
import { seedDelegationTenant } from '@idp/testing';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { initialAccessTokenDigest } from '../src/provider/registration';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
/** initial-access-token mode, default policy. */
let iatTenant: number;
/** open mode. */
let openTenant: number;
/** open mode, rate limit 3 per hour. */
let limitedTenant: number;
/** registration off (the default). */
let offTenant: number;
/** open mode, a policy allowing client_credentials beside public clients. */
let ccTenant: number;

const NATIVE = {
  application_type: 'native',
  redirect_uris: ['http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  client_name: 'CLI agent',
};

beforeAll(async () => {
  // The providers trust the proxy as in production (TRUST_PROXY on for the app and every tenant's provider).
  app = await startPagesApp('dcr', { providersTrustProxy: true });
  const m = app.db.models;
  iatTenant = app.tenant.tenantId;
  await m.Tenant.updateOne(
    { _id: iatTenant },
    {
      $set: {
        'settings.registration': {
          mode: 'initial-access-token',
          rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 },
        },
      },
    },
  );
  openTenant = randomInt(1_000_001, 2_000_000);
  await seedDelegationTenant(m, app.keyStore, { tenantId: openTenant, tenantName: 'Open', clientSecretPepper: PEPPER });
  await m.Tenant.updateOne(
    { _id: openTenant },
    { $set: { 'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 } } } },
  );
  limitedTenant = randomInt(3_000_001, 4_000_000);
  await seedDelegationTenant(m, app.keyStore, {
    tenantId: limitedTenant,
    tenantName: 'Limited',
    clientSecretPepper: PEPPER,
  });
  await m.Tenant.updateOne(
    { _id: limitedTenant },
    { $set: { 'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 3, windowSeconds: 3600 } } } },
  );
  offTenant = randomInt(2_000_001, 3_000_000);
  await seedDelegationTenant(m, app.keyStore, { tenantId: offTenant, tenantName: 'Off', clientSecretPepper: PEPPER });
  ccTenant = randomInt(4_000_001, 5_000_000);
  await seedDelegationTenant(m, app.keyStore, {
    tenantId: ccTenant,
    tenantName: 'Machines',
    clientSecretPepper: PEPPER,
  });
  await m.Tenant.updateOne(
    { _id: ccTenant },
    {
      $set: {
        'settings.registration': {
          mode: 'open',
          grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
          tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
          rateLimit: { maxPerWindow: 1000, windowSeconds: 3600 },
        },
      },
    },
  );
  app.pool.clear();
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

/** An initial access token as the management API stores it. */
async function issueIat(o: { maxUses?: number; expiresInSeconds?: number } = {}): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await app.db.models.InitialAccessToken.create({
    tenantId: iatTenant,
    tokenId: randomBytes(8).toString('hex'),
    digest: initialAccessTokenDigest(token),
    maxUses: o.maxUses ?? 1,
    expiresAt: new Date(Date.now() + (o.expiresInSeconds ?? 3600) * 1000),
    createdAt: new Date(),
  });
  return token;
}

async function register(
  tenantId: number,
  body: Record<string, unknown>,
  token?: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${app.baseUrl}/auth/${tenantId}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const metadataOf = async (tenantId: number) =>
  (await (await fetch(`${app.baseUrl}/auth/${tenantId}/.well-known/openid-configuration`)).json()) as Record<
    string,
    unknown
  >;

describe('discovery', () => {
  it('advertises registration_endpoint only where registration is on', async () => {
    expect((await metadataOf(iatTenant)).registration_endpoint).toBe(`${app.baseUrl}/auth/${iatTenant}/reg`);
    expect((await metadataOf(openTenant)).registration_endpoint).toBe(`${app.baseUrl}/auth/${openTenant}/reg`);
    expect((await metadataOf(offTenant)).registration_endpoint).toBeUndefined();
    expect((await register(offTenant, NATIVE)).status).toBe(404);
  });
});

describe('initial access tokens', () => {
  it('refuses a registration without a token or with an unknown one', async () => {
    const none = await register(iatTenant, NATIVE);
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('invalid_token');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
    expect((await register(iatTenant, NATIVE, 'not-a-token')).status).toBe(401);
  });

  it('spends a single-use token once; a refused registration does not spend it', async () => {
    const token = await issueIat();
    const refused = await register(iatTenant, { ...NATIVE, grant_types: ['client_credentials'] }, token);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_client_metadata');
    const first = await register(iatTenant, NATIVE, token);
    expect(first.status).toBe(201);
    const again = await register(iatTenant, NATIVE, token);
    expect(again.status).toBe(401);
    expect(again.body.error_description).toMatch(/spent/);
  });

  it('refuses an expired token and honours a multi-use one up to its count, concurrently too', async () => {
    const expired = await issueIat({ expiresInSeconds: -1 });
    expect((await register(iatTenant, NATIVE, expired)).status).toBe(401);
    const multi = await issueIat({ maxUses: 2 });
    const results = await Promise.all([1, 2, 3, 4].map(() => register(iatTenant, NATIVE, multi)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 401, 401]);
  });
});

describe('the registration policy', () => {
  it.each([
    ['token exchange', { grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'] }],
    [
      'client credentials (not allowed by the default policy)',
      { grant_types: ['client_credentials'], response_types: [], redirect_uris: [] },
    ],
    [
      'a client secret of its own choosing',
      { token_endpoint_auth_method: 'client_secret_basic', client_secret: 'chosen-by-the-client-0123456789' },
    ],
    [
      'a web client with an http redirect URI',
      { application_type: 'web', redirect_uris: ['http://app.example.com/cb'] },
    ],
    [
      'a web client with a loopback redirect URI',
      { application_type: 'web', redirect_uris: ['http://127.0.0.1:8080/cb'] },
    ],
    ['a native client with http off loopback', { redirect_uris: ['http://app.example.com/cb'] }],
    [
      'a client of no application_type with a loopback and an https redirect URI (web)',
      { application_type: undefined, redirect_uris: ['http://127.0.0.1/cb', 'https://app.example.com/cb'] },
    ],
    ['a fragment', { application_type: 'web', redirect_uris: ['https://app.example.com/cb#x'] }],
    ['a wildcard', { application_type: 'web', redirect_uris: ['https://*.example.com/cb'] }],
  ])('refuses %s', async (_what, change) => {
    const res = await register(openTenant, { ...NATIVE, ...change });
    expect(res.status).toBe(400);
    expect(['invalid_client_metadata', 'invalid_redirect_uri']).toContain(res.body.error);
  });

  it('registers a third-party client whatever it claims, and answers without our own properties', async () => {
    const res = await register(openTenant, {
      ...NATIVE,
      idp_first_party: true,
      idp_numeric_id: 1,
      idp_pkce_required: false,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).filter((k) => k.startsWith('idp_'))).toEqual([]);
    const doc = await app.db.models.Client.findOne({
      tenantId: openTenant,
      clientId: String(res.body.client_id),
    }).lean();
    expect(doc).toMatchObject({
      registration: 'dynamic',
      firstParty: false,
      roleIds: [],
      tokenEndpointAuthMethod: 'none',
      config: { nhe: { delegationEnabled: false } },
    });
    expect(doc!.registeredMetadata).not.toContain('idp_');
  });

  it("registers a client whose scope names API scopes (as MCP clients send the resource's scopes_supported): only its OpenID scopes are kept", async () => {
    const withApi = await register(openTenant, { ...NATIVE, scope: 'openid mcp:tools orders:read email' });
    expect(withApi.status).toBe(201);
    expect(withApi.body.scope).toBe('openid email');
    const onlyApi = await register(openTenant, { ...NATIVE, scope: 'mcp:tools' });
    expect(onlyApi.status).toBe(201);
    expect(onlyApi.body.scope).toBeUndefined();
    // RFC 7592 update: the same replacement.
    const updated = await fetch(String(onlyApi.body.registration_client_uri), {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${String(onlyApi.body.registration_access_token)}`,
      },
      body: JSON.stringify({ ...NATIVE, client_id: onlyApi.body.client_id, scope: 'profile mcp:tools' }),
    });
    expect(updated.status).toBe(200);
    expect(((await updated.json()) as Record<string, unknown>).scope).toBe('profile');
    // A body that is not JSON is still refused as before.
    const broken = await fetch(`${app.baseUrl}/auth/${openTenant}/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"redirect_uris":',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as Record<string, unknown>).error).toBe('invalid_request');
  });

  it('matches redirect URIs: a native loopback on any port, nothing else', async () => {
    const web = await register(openTenant, {
      ...NATIVE,
      application_type: 'web',
      redirect_uris: ['https://app.example.com/cb'],
    });
    const native = await register(openTenant, NATIVE);
    const start = (clientId: unknown, redirectUri: string, extra: Record<string, string> = {}) =>
      new Browser(app.baseUrl).go(
        `/auth/${openTenant}/authorize?${new URLSearchParams({ client_id: String(clientId), response_type: 'code', redirect_uri: redirectUri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', ...extra })}`,
      );
    expect((await start(native.body.client_id, 'http://127.0.0.1:51515/callback')).status).toBe(303);
    expect((await start(native.body.client_id, 'http://127.0.0.1:51515/other')).status).toBe(400);
    expect((await start(native.body.client_id, 'http://localhost:51515/callback')).status).toBe(400);
    expect((await start(web.body.client_id, 'https://app.example.com/cb')).status).toBe(303);
    expect((await start(web.body.client_id, 'https://app.example.com/cb/more')).status).toBe(400);
    expect((await start(web.body.client_id, 'https://app.example.com:444/cb')).status).toBe(400);
    // No management API tokens for a registered client, whatever the user holds.
    const admin = await start(native.body.client_id, 'http://127.0.0.1:51515/callback', {
      resource: MANAGEMENT_AUDIENCE,
    });
    expect(new URL(admin.location!).searchParams.get('error')).toBe('invalid_target');
  });
});

describe('what stock MCP hosts send', () => {
  /** The MCP SDK's example metadata: a loopback redirect URI, no application_type, client_secret_post. */
  const HOST = {
    client_name: 'MCP host',
    redirect_uris: ['http://localhost:8090/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };

  it.each([
    ['127.0.0.1 with a port', ['http://127.0.0.1:33418/callback']],
    ['localhost (RFC 8252 section 8.3)', ['http://localhost:8090/callback']],
    ['[::1] and 127.0.0.1', ['http://[::1]:4000/cb', 'http://127.0.0.1/cb']],
  ])(
    'records a client of no application_type whose redirect URIs are all loopback http (%s) as native',
    async (_what, redirectUris) => {
      const res = await register(openTenant, {
        ...HOST,
        token_endpoint_auth_method: 'none',
        redirect_uris: redirectUris,
      });
      expect(res.status).toBe(201);
      expect(res.body.application_type).toBe('native');
      const doc = await app.db.models.Client.findOne({
        tenantId: openTenant,
        clientId: String(res.body.client_id),
      }).lean();
      expect(JSON.parse(doc!.registeredMetadata!).application_type).toBe('native');
    },
  );

  it('matches such a client on any port at request time (RFC 8252 section 7.3)', async () => {
    const res = await register(openTenant, {
      ...HOST,
      token_endpoint_auth_method: 'none',
      redirect_uris: ['http://127.0.0.1/callback'],
    });
    const start = (redirectUri: string) =>
      new Browser(app.baseUrl).go(
        `/auth/${openTenant}/authorize?${new URLSearchParams({ client_id: String(res.body.client_id), response_type: 'code', redirect_uri: redirectUri, scope: 'openid', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`,
      );
    expect((await start('http://127.0.0.1:49152/callback')).status).toBe(303);
    expect((await start('http://127.0.0.1:49152/elsewhere')).status).toBe(400);
  });

  it.each([
    ['no token_endpoint_auth_method (RFC 7591 default client_secret_basic)', undefined],
    ['client_secret_post (the MCP SDK example)', 'client_secret_post'],
    ['client_secret_basic', 'client_secret_basic'],
  ])('replaces %s by none in the answer (RFC 7591 section 3.2.1) and issues no secret', async (_what, method) => {
    const res = await register(openTenant, { ...HOST, ...(method ? { token_endpoint_auth_method: method } : {}) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ token_endpoint_auth_method: 'none', application_type: 'native' });
    expect(res.body.client_secret).toBeUndefined();
    const doc = await app.db.models.Client.findOne({
      tenantId: openTenant,
      clientId: String(res.body.client_id),
    }).lean();
    expect(doc).toMatchObject({ tokenEndpointAuthMethod: 'none', registration: 'dynamic' });
  });

  it('keeps a secret method where the policy allows no public client (refused as asked)', async () => {
    await app.db.models.Tenant.updateOne(
      { _id: iatTenant },
      { $set: { 'settings.registration.tokenEndpointAuthMethods': ['private_key_jwt'] } },
    );
    app.pool.evict(iatTenant);
    try {
      const res = await register(
        iatTenant,
        { ...HOST, token_endpoint_auth_method: 'client_secret_post' },
        await issueIat(),
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        error: 'invalid_client_metadata',
        error_description: expect.stringMatching(/client_secret_post is not allowed; use private_key_jwt/),
      });
    } finally {
      await app.db.models.Tenant.updateOne(
        { _id: iatTenant },
        { $unset: { 'settings.registration.tokenEndpointAuthMethods': 1 } },
      );
      app.pool.evict(iatTenant);
    }
  });
});

describe('client_credentials is for confidential clients (RFC 6749 section 4.4)', () => {
  const MACHINE = {
    client_name: 'Batch job',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
  };

  it.each([
    [
      'token_endpoint_auth_method none',
      { token_endpoint_auth_method: 'none' },
      /client_credentials needs a confidential client/,
    ],
    [
      'a secret-based method (not replaced by none)',
      { token_endpoint_auth_method: 'client_secret_basic' },
      /client_secret_basic is not allowed/,
    ],
    ['no method (not replaced by none)', {}, /client_secret_basic is not allowed/],
    [
      'none beside the code flow',
      {
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'client_credentials'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/cb'],
      },
      /client_credentials needs a confidential client/,
    ],
  ])('refuses client_credentials with %s, even where the policy allows both', async (_what, change, reason) => {
    const res = await register(ccTenant, { ...MACHINE, ...change });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_client_metadata');
    expect(res.body.error_description).toMatch(reason);
  });

  it('registers client_credentials with private_key_jwt, and a public code-flow client, under the same policy', async () => {
    const jwks = {
      keys: [
        {
          kty: 'EC',
          crv: 'P-256',
          x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
          y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
          use: 'sig',
          kid: 'k1',
        },
      ],
    };
    const machine = await register(ccTenant, { ...MACHINE, token_endpoint_auth_method: 'private_key_jwt', jwks });
    expect(machine.status).toBe(201);
    expect(machine.body).toMatchObject({
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
    });
    expect((await register(ccTenant, NATIVE)).status).toBe(201);
  });

  it('refuses an update that makes a public client use client_credentials', async () => {
    const created = await register(ccTenant, NATIVE);
    const res = await fetch(String(created.body.registration_client_uri), {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${String(created.body.registration_access_token)}`,
      },
      body: JSON.stringify({
        ...NATIVE,
        client_id: created.body.client_id,
        grant_types: ['authorization_code', 'client_credentials'],
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Record<string, unknown>).error_description).toMatch(
      /client_credentials needs a confidential client/,
    );
  });
});

describe('rate limit per source address', () => {
  it('refuses registrations over the limit, across a rebuilt provider (the count is in the store)', async () => {
    const m = app.db.models;
    await m.LoginFailure.deleteMany({ tenantId: limitedTenant });
    expect((await register(limitedTenant, NATIVE)).status).toBe(201);
    expect((await register(limitedTenant, NATIVE)).status).toBe(201);
    // A new provider instance, as another replica would have: nothing of the count is in memory.
    app.pool.evict(limitedTenant);
    expect((await register(limitedTenant, NATIVE)).status).toBe(201);
    const over = await register(limitedTenant, NATIVE);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts the address the trusted hop appended, never one the client forges in X-Forwarded-For', async () => {
    const m = app.db.models;
    await m.LoginFailure.deleteMany({ tenantId: limitedTenant });
    // The ingress appends the address it saw (198.51.100.7) to whatever the client sent; each request forges another.
    const forged = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}, 198.51.100.7` });
    for (let n = 1; n <= 3; n++) expect((await register(limitedTenant, NATIVE, undefined, forged(n))).status).toBe(201);
    const over = await register(limitedTenant, NATIVE, undefined, forged(4));
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('temporarily_unavailable');
    expect(await m.LoginFailure.countDocuments({ tenantId: limitedTenant, key: 'reg:ip:198.51.100.7' })).toBe(3);
    expect(await m.LoginFailure.countDocuments({ tenantId: limitedTenant, key: /^reg:ip:203\.0\.113\./ })).toBe(0);
    // Another address behind the same ingress still registers.
    expect((await register(limitedTenant, NATIVE, undefined, { 'x-forwarded-for': '198.51.100.8' })).status).toBe(201);
  });
});

describe('RFC 7592 client management', () => {
  it('reads, updates and deletes with the registration access token, and refuses without it', async () => {
    const created = await register(openTenant, NATIVE);
    const uri = String(created.body.registration_client_uri);
    const rat = String(created.body.registration_access_token);
    expect(uri).toBe(`${app.baseUrl}/auth/${openTenant}/reg/${created.body.client_id}`);
    const call = (method: string, token?: string, body?: unknown) =>
      fetch(uri, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });

    expect((await call('GET')).status).toBe(401);
    expect((await call('GET', 'wrong')).status).toBe(401);
    const read = await call('GET', rat);
    expect(read.status).toBe(200);
    const readBody = (await read.json()) as Record<string, unknown>;
    expect(readBody).toMatchObject({
      client_id: created.body.client_id,
      redirect_uris: NATIVE.redirect_uris,
      application_type: 'native',
    });
    expect(Object.keys(readBody).filter((k) => k.startsWith('idp_'))).toEqual([]);

    // An update is held to the policy as a registration is.
    const forbidden = await call('PUT', rat, {
      ...NATIVE,
      client_id: created.body.client_id,
      grant_types: ['authorization_code', 'client_credentials'],
    });
    expect(forbidden.status).toBe(400);
    const updated = await call('PUT', rat, {
      ...NATIVE,
      client_id: created.body.client_id,
      redirect_uris: ['http://127.0.0.1/cb2'],
      client_name: 'Renamed',
    });
    expect(updated.status).toBe(200);
    const next = String(((await updated.json()) as Record<string, unknown>).registration_access_token);
    expect(next).not.toBe(rat);
    expect((await call('GET', rat)).status).toBe(401);
    const doc = await app.db.models.Client.findOne({
      tenantId: openTenant,
      clientId: String(created.body.client_id),
    }).lean();
    expect(doc).toMatchObject({ name: 'Renamed', redirectUris: ['http://127.0.0.1/cb2'], registration: 'dynamic' });

    expect((await call('DELETE')).status).toBe(401);
    expect((await call('DELETE', next)).status).toBe(204);
    expect(
      await app.db.models.Client.exists({ tenantId: openTenant, clientId: String(created.body.client_id) }),
    ).toBeNull();
    expect((await call('GET', next)).status).toBe(401);
  });

  it('does not reach a managed client', async () => {
    const res = await fetch(`${app.baseUrl}/auth/${iatTenant}/reg/${app.tenant.client.clientId}`, {
      headers: { authorization: 'Bearer anything' },
    });
    expect(res.status).toBe(401);
  });
});

describe('a code flow with a registered client (openid-client)', () => {
  it('registers with an initial access token, signs alice in after consent, redeems the code', async () => {
    const issuer = `${app.baseUrl}/auth/${iatTenant}`;
    const token = await issueIat();
    const created = await register(iatTenant, NATIVE, token);
    expect(created.status).toBe(201);
    const config = await oidc.discovery(new URL(issuer), String(created.body.client_id), undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const redirectUri = 'http://127.0.0.1:40123/callback';
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const browser = new Browser(app.baseUrl);
    const start = await browser.go(url.toString());
    const interaction = new URL(start.location!, app.baseUrl).pathname;
    const login = await browser.go(`${interaction}/login`, {
      form: { username: app.tenant.user.username, password: app.tenant.user.password },
    });
    let location = login.location;
    let consent = '';
    let callback: URL | undefined;
    for (let i = 0; i < 10 && location && !callback; i++) {
      const target = new URL(location, app.baseUrl);
      if (target.toString().startsWith(redirectUri)) callback = target;
      else {
        const res = await browser.go(target.toString());
        if (res.status === 200) {
          consent = res.text;
          location = (await browser.go(`${target.pathname}/confirm`, { form: {} })).location;
        } else location = res.location;
      }
    }
    expect(consent).toContain('CLI agent');
    expect(consent).toContain('id="client-registered"');
    const tokens = await oidc.authorizationCodeGrant(config, callback!, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      idTokenExpected: true,
    });
    expect(tokens.claims()!.aud).toBe(created.body.client_id);
  });
});

describe('a user with no role on the API asked for', () => {
  it('ends sign-in with access_denied and an error_description that says why', async () => {
    const resource = 'https://mcp.example.com/mcp';
    await app.db.models.ResourceServer.create({
      tenantId: openTenant,
      identifier: resource,
      name: 'MCP server',
      scopes: ['mcp:tools'],
      config: { accessToken: { lifetime: 600 } },
    });
    app.pool.evict(openTenant);
    const created = await register(openTenant, NATIVE);
    const redirectUri = 'http://127.0.0.1:40124/callback';
    // As an MCP client asks: the MCP server's scope and the resource indicator, no OpenID scope.
    const query = {
      client_id: String(created.body.client_id),
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'mcp:tools',
      resource,
      state: 's1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const browser = new Browser(app.baseUrl);
    const start = await browser.go(`/auth/${openTenant}/authorize?${new URLSearchParams(query)}`);
    const interaction = new URL(start.location!, app.baseUrl).pathname;
    let location = (
      await browser.go(`${interaction}/login`, {
        form: { username: app.tenant.user.username, password: app.tenant.user.password },
      })
    ).location;
    let callback: URL | undefined;
    for (let i = 0; i < 10 && location && !callback; i++) {
      const target = new URL(location, app.baseUrl);
      if (target.toString().startsWith(redirectUri)) callback = target;
      else {
        const res = await browser.go(target.toString());
        location =
          res.status === 200 ? (await browser.go(`${target.pathname}/confirm`, { form: {} })).location : res.location;
      }
    }
    expect(callback).toBeDefined();
    expect(callback!.searchParams.get('error')).toBe('access_denied');
    expect(callback!.searchParams.get('error_description')).toBe(
      `the user holds no role that grants a scope of ${resource} (an administrator gives an API's scopes to users through roles)`,
    );
    expect(callback!.searchParams.get('state')).toBe('s1');
    expect(callback!.searchParams.get('code')).toBeNull();
  });
});
