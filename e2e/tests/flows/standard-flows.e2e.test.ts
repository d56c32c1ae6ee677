/**
 * The standard OAuth 2.0 / OpenID Connect flows, through the dev router with every service a process:
 * - openid-client (the certified relying-party library) runs authorization code + PKCE, refresh, device and
 *   client credentials (basic, post, private_key_jwt, DPoP) from discovery alone; browser steps are form posts.
 * - Negative checks modelled on the OpenID conformance suite.
 * - Two tenants on one host: a token, code, session cookie or client of one is useless at the other.
 * - Key rotation keeps retired public keys in the JWKS while tokens they signed are alive.
 */
import { randomInt } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { createClient, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { FormAgent } from '../../src/clients/form-agent';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const REDIRECT = 'http://127.0.0.1:8400/callback';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

let h: Harness;
let a: SeededTenant;
let b: SeededTenant;
let keyStore: KeyStore;
const clients: Record<string, { clientId: string; clientSecret: string }> = {};
let jwtClientKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const issuerOf = (t: SeededTenant) => `${h.topology.baseUrl}/auth/${t.tenantId}`;
const person = (t: SeededTenant) => ({ username: t.user.username, password: t.user.password });
const basic = basicAuth;

async function discover(
  t: SeededTenant,
  clientId: string,
  metadata?: Partial<oidc.ClientMetadata> | string,
  auth?: oidc.ClientAuth,
) {
  return oidc.discovery(new URL(issuerOf(t)), clientId, metadata, auth, { execute: [oidc.allowInsecureRequests] });
}

async function postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers };
}

/** Runs the browser part of an authorization request and returns the callback URL the browser lands on. */
async function authorize(
  config: oidc.Configuration,
  t: SeededTenant,
  params: Record<string, string>,
  agent = new FormAgent(),
) {
  const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, ...params });
  const end = await agent.drive(url.toString(), person(t), REDIRECT);
  return { callback: new URL(end.url), agent, end };
}

async function codeFlow(
  t: SeededTenant,
  clientId: string,
  secret: string | undefined,
  extra: Record<string, string> = {},
) {
  const config = await discover(t, clientId, secret, secret ? oidc.ClientSecretBasic(secret) : oidc.None());
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const { callback, agent } = await authorize(config, t, {
    scope: 'openid profile email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...extra,
  });
  return { config, verifier, state, nonce, callback, agent };
}

beforeAll(async () => {
  h = await startHarness('flows');
  a = h.tenant;
  keyStore = new KeyStore(h.db.models, new KeyEncryptionKey(h.topology.secrets.keyEncryptionKey));
  b = await seedDelegationTenant(h.db.models, keyStore, {
    tenantId: a.tenantId + randomInt(1, 1000),
    tenantName: 'second tenant',
    clientSecretPepper: h.topology.secrets.clientSecretPepper,
  });
  const pepper = h.topology.secrets.clientSecretPepper;
  const m = h.db.models;
  clients.spa = await createClient(m, pepper, {
    tenantId: a.tenantId,
    clientId: 'spa',
    name: 'Single-page app',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
  });
  clients.rs256 = await createClient(m, pepper, {
    tenantId: a.tenantId,
    clientId: 'rs256-app',
    name: 'RS256 app',
    grantTypes: ['authorization_code'],
    redirectUris: [REDIRECT],
    firstParty: true,
    idTokenSignedResponseAlg: 'RS256',
  });
  clients.tv = await createClient(m, pepper, {
    tenantId: a.tenantId,
    clientId: 'tv-app',
    name: 'TV app',
    tokenEndpointAuthMethod: 'none',
    grantTypes: [DEVICE_GRANT, 'refresh_token'],
    responseTypes: [],
  });
  const role = await m.Role.findOne({ tenantId: a.tenantId, name: 'orders-clerk' }).lean();
  clients.post = await createClient(m, pepper, {
    tenantId: a.tenantId,
    clientId: 'svc-post',
    name: 'Service (post)',
    tokenEndpointAuthMethod: 'client_secret_post',
    grantTypes: ['client_credentials'],
    roleIds: [String(role!._id)],
  });
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwtClientKey = privateKey;
  clients.jwt = await createClient(m, pepper, {
    tenantId: a.tenantId,
    clientId: 'svc-jwt',
    name: 'Service (private_key_jwt)',
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig', kid: 'svc-jwt-1' }] },
    grantTypes: ['client_credentials'],
    roleIds: [String(role!._id)],
  });
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

describe('openid-client against a tenant, from discovery only', () => {
  test('discovery lists what the tenant serves, under both path forms and the RFC 8414 forms', async () => {
    const config = await discover(a, a.client.clientId, a.client.clientSecret);
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(issuerOf(a));
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    // Exactly what a client can be registered with: a relying party that picks from these lists must succeed.
    expect([...(meta.grant_types_supported ?? [])].sort()).toEqual(
      [
        'authorization_code',
        'client_credentials',
        'refresh_token',
        DEVICE_GRANT,
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ].sort(),
    );
    expect(meta.response_types_supported).toEqual(['code']);
    expect([...(meta.token_endpoint_auth_methods_supported ?? [])].sort()).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'none',
      'private_key_jwt',
    ]);
    expect(meta.token_endpoint_auth_signing_alg_values_supported).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^HS/)]),
    );
    expect(meta.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256', 'RS256']));
    expect(meta.dpop_signing_alg_values_supported).toEqual(expect.arrayContaining(['ES256']));
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    expect(meta.device_authorization_endpoint).toBe(`${issuerOf(a)}/device/auth`);
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'offline_access', 'profile', 'email']));

    for (const path of [
      `/_api/auth/${a.tenantId}/.well-known/openid-configuration`,
      `/.well-known/oauth-authorization-server/auth/${a.tenantId}`,
      `/_api/.well-known/oauth-authorization-server/auth/${a.tenantId}`,
      `/auth/${a.tenantId}/.well-known/oauth-authorization-server`,
    ]) {
      const res = await fetch(`${h.topology.baseUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const doc = (await res.json()) as { issuer: string; token_endpoint: string };
      expect(doc.issuer).toBe(issuerOf(a)); // never the /_api form
      // Endpoints follow the form the document was fetched under, so a client behind the alias stays on it.
      const alias = path.startsWith('/_api/') ? '/_api' : '';
      expect(doc.token_endpoint).toBe(`${h.topology.baseUrl}${alias}/auth/${a.tenantId}/oidc/token`);
    }
    // openid-client's RFC 8414 discovery (well-known inserted before the issuer path) works too.
    const oauthConfig = await oidc.discovery(
      new URL(issuerOf(a)),
      a.client.clientId,
      a.client.clientSecret,
      undefined,
      {
        algorithm: 'oauth2',
        execute: [oidc.allowInsecureRequests],
      },
    );
    expect(oauthConfig.serverMetadata().issuer).toBe(issuerOf(a));
  });

  test('authorization code + PKCE: iss in the response, ID token validated, userinfo answers', async () => {
    const { config, verifier, state, nonce, callback } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    expect(callback.searchParams.get('iss')).toBe(issuerOf(a)); // RFC 9207
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({ iss: issuerOf(a), aud: a.client.clientId, sub: a.user.id, nonce });
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo).toMatchObject({ sub: a.user.id, email: 'alice@example.com', name: 'Alice Example' });
  });

  test('a client that asks for RS256 ID tokens gets them, verifiable through the JWKS', async () => {
    const { config, verifier, state, nonce, callback } = await codeFlow(
      a,
      clients.rs256!.clientId,
      clients.rs256!.clientSecret,
    );
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');
    await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(`${issuerOf(a)}/jwks`)), {
      issuer: issuerOf(a),
      audience: clients.rs256!.clientId,
    });
  });

  test('public client: consent page, offline_access, refresh tokens rotate and the old one dies', async () => {
    const { config, verifier, state, nonce, callback, agent } = await codeFlow(a, 'spa', undefined, {
      scope: 'openid offline_access',
      prompt: 'consent',
    });
    expect(agent.visited.some((u) => /\/interaction\/[^/]+\/confirm$/.test(u))).toBe(true); // third-party: consent was shown and given
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token); // rotation for public clients
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  test.each([
    ['public', 'spa'],
    ['confidential', 'seeded'],
  ])('%s client without PKCE is refused', async (_kind, which) => {
    const config =
      which === 'spa'
        ? await discover(a, 'spa', undefined, oidc.None())
        : await discover(a, a.client.clientId, a.client.clientSecret);
    const { callback } = await authorize(config, a, { scope: 'openid', state: 'xyz' });
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(callback.searchParams.get('state')).toBe('xyz');
  });

  test('device authorization: pending, slow_down, then tokens after the user approves from another agent', async () => {
    const config = await discover(a, 'tv-app', undefined, oidc.None());
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    expect(device.user_code).toMatch(/\S+/);
    expect(device.expires_in).toBeGreaterThan(0);
    expect(device.verification_uri).toBe(`${issuerOf(a)}/device`);

    const token = `${issuerOf(a)}/oidc/token`;
    const first = await postForm(token, {
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: 'tv-app',
    });
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    const second = await postForm(token, {
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: 'tv-app',
    });
    expect([second.status, second.body.error]).toEqual([400, 'slow_down']);

    // The person types the code on their phone (the form asks for it), signs in, consents, confirms.
    const end = await new FormAgent().drive(device.verification_uri, person(a), undefined, {
      user_code: device.user_code,
    });
    expect(end.status).toBe(200);
    // openid-client waits the RFC 8628 default interval (5 s) before polling, as a well-behaved device does.
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, device);
    expect(tokens.claims()).toMatchObject({ sub: a.user.id, aud: 'tv-app' });
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, a.user.id);
    expect(userinfo.name).toBe('Alice Example');
  }, 60_000);

  test('an expired device code answers expired_token', async () => {
    const config = await discover(a, 'tv-app', undefined, oidc.None());
    const device = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    const doc = await h.db.models.OidcPayload.findOne({
      tenantId: a.tenantId,
      model: 'DeviceCode',
      userCode: { $exists: true },
    })
      .sort({ _id: -1 })
      .lean();
    const stored = await h.db.models.OidcPayload.findOne({
      _id: `${a.tenantId}:DeviceCode:${device.device_code}`,
    }).lean();
    expect(stored ?? doc).toBeTruthy();
    const payload = JSON.parse(stored!.payload) as { exp: number };
    payload.exp = Math.floor(Date.now() / 1000) - 1;
    await h.db.models.OidcPayload.updateOne(
      { _id: stored!._id },
      { $set: { payload: JSON.stringify(payload), expiresAt: new Date(Date.now() - 1000) } },
    );
    const res = await postForm(`${issuerOf(a)}/oidc/token`, {
      grant_type: DEVICE_GRANT,
      device_code: device.device_code,
      client_id: 'tv-app',
    });
    expect([res.status, res.body.error]).toEqual([400, 'expired_token']);
  });

  test('client credentials with client_secret_basic, client_secret_post and private_key_jwt, and DPoP-bound', async () => {
    const viaBasic = await discover(
      a,
      a.admin.clientId,
      a.admin.clientSecret,
      oidc.ClientSecretBasic(a.admin.clientSecret),
    );
    const t1 = await oidc.clientCredentialsGrant(viaBasic, { resource: 'urn:idp:management', scope: 'auth.nhe.list' });
    const c1 = decodeJwt(t1.access_token);
    expect(c1).toMatchObject({ aud: 'urn:idp:management', client_id: a.admin.clientId });
    expect(String(c1.scope).split(' ')).toContain('auth.nhe.list');

    const viaPost = await discover(
      a,
      'svc-post',
      clients.post!.clientSecret,
      oidc.ClientSecretPost(clients.post!.clientSecret),
    );
    const t2 = await oidc.clientCredentialsGrant(viaPost, { resource: a.resource });
    expect(decodeJwt(t2.access_token)).toMatchObject({ aud: a.resource, scope: 'orders:read orders:write' });

    const viaJwt = await discover(
      a,
      'svc-jwt',
      { token_endpoint_auth_method: 'private_key_jwt' },
      oidc.PrivateKeyJwt({ key: jwtClientKey, kid: 'svc-jwt-1' }),
    );
    const t3 = await oidc.clientCredentialsGrant(viaJwt, { resource: a.resource });
    const claims3 = await jwtVerify(t3.access_token, createRemoteJWKSet(new URL(`${issuerOf(a)}/jwks`)), {
      issuer: issuerOf(a),
      audience: a.resource,
      typ: 'at+jwt',
    });
    expect(claims3.payload).toMatchObject({ client_id: 'svc-jwt', scope: 'orders:read orders:write' });

    const dpopKeys = await oidc.randomDPoPKeyPair('ES256');
    const t4 = await oidc.clientCredentialsGrant(
      viaPost,
      { resource: a.resource },
      { DPoP: oidc.getDPoPHandle(viaPost, dpopKeys) },
    );
    expect(t4.token_type.toLowerCase()).toBe('dpop');
    expect((decodeJwt(t4.access_token).cnf as { jkt?: string }).jkt).toMatch(/^[\w-]{43}$/);
  });

  test('a client configured to require DPoP gets no token without a proof', async () => {
    const role = await h.db.models.Role.findOne({ tenantId: a.tenantId, name: 'orders-clerk' }).lean();
    const strict = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
      tenantId: a.tenantId,
      clientId: 'svc-dpop',
      name: 'DPoP-only service',
      grantTypes: ['client_credentials'],
      roleIds: [String(role!._id)],
      requireDpop: true,
    });
    const config = await discover(a, strict.clientId, strict.clientSecret, oidc.ClientSecretBasic(strict.clientSecret));
    await expect(oidc.clientCredentialsGrant(config, { resource: a.resource })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const bound = await oidc.clientCredentialsGrant(
      config,
      { resource: a.resource },
      { DPoP: oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256')) },
    );
    expect(bound.token_type.toLowerCase()).toBe('dpop');
  });

  test('a DPoP-required client cannot get an unbound token through token exchange either', async () => {
    const strict = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
      tenantId: a.tenantId,
      clientId: 'agent-host-dpop',
      name: 'Agent host (DPoP only)',
      grantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:token-exchange'],
      redirectUris: [REDIRECT],
      firstParty: true,
      delegationEnabled: true,
      requireDpop: true,
    });
    const { verifier, callback } = await codeFlow(a, strict.clientId, strict.clientSecret, { resource: a.resource });
    const auth = { authorization: basic(strict.clientId, strict.clientSecret) };
    const tokenUrl = `${issuerOf(a)}/oidc/token`;
    // The authorization code grant itself already demands the proof for this client.
    const unbound = await postForm(
      tokenUrl,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
      auth,
    );
    expect([unbound.status, unbound.body.error]).toEqual([400, 'invalid_grant']);
    const exchange = await postForm(
      tokenUrl,
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: 'any',
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: a.nhe.identifier,
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: a.resource,
        scope: 'orders:read',
      },
      auth,
    );
    expect([exchange.status, exchange.body.error]).toEqual([400, 'invalid_dpop_proof']);
  });
});

describe('negative checks modelled on the OpenID conformance suite', () => {
  const authorizeUrl = (params: Record<string, string>) => `${issuerOf(a)}/authorize?${new URLSearchParams(params)}`;
  const validParams = () => ({
    client_id: a.client.clientId,
    response_type: 'code',
    redirect_uri: a.client.redirectUri,
    scope: 'openid',
    state: 'st-123',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });

  test.each([
    ['unregistered', 'https://evil.example/callback'],
    ['altered path', `${REDIRECT}/extra`],
    ['added query', `${REDIRECT}?x=1`],
    ['different port', 'http://127.0.0.1:8401/callback'],
  ])('%s redirect_uri: an error page, never a redirect', async (_name, redirectUri) => {
    const res = await fetch(authorizeUrl({ ...validParams(), redirect_uri: redirectUri }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/redirect_uri/);
  });

  test('missing response_type: an OAuth error with state, not a 5xx', async () => {
    const params: Record<string, string> = validParams();
    delete params.response_type;
    const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
    expect(res.status).toBeLessThan(500);
    const location = res.headers.get('location');
    if (location) {
      const url = new URL(location);
      expect(url.searchParams.get('error')).toBe('invalid_request');
      expect(url.searchParams.get('state')).toBe('st-123');
    } else {
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/response_type/);
    }
  });

  test('prompt=none without a session returns login_required with state intact', async () => {
    const res = await fetch(authorizeUrl({ ...validParams(), prompt: 'none' }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const url = new URL(res.headers.get('location')!);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('error')).toBe('login_required');
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(issuerOf(a));
  });

  test('a reused code fails and revokes what the first use issued', async () => {
    const { verifier, callback } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const code = callback.searchParams.get('code')!;
    const redeem = () =>
      postForm(
        `${issuerOf(a)}/oidc/token`,
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { authorization: basic(a.client.clientId, a.client.clientSecret) },
      );
    const first = await redeem();
    expect(first.status).toBe(200);
    const accessToken = String(first.body.access_token);
    const userinfoBefore = await fetch(`${issuerOf(a)}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(userinfoBefore.status).toBe(200);
    const second = await redeem();
    expect([second.status, second.body.error]).toEqual([400, 'invalid_grant']);
    const userinfoAfter = await fetch(`${issuerOf(a)}/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(userinfoAfter.status).toBe(401);
    const introspection = await postForm(
      `${issuerOf(a)}/token/introspection`,
      { token: accessToken },
      { authorization: basic(a.client.clientId, a.client.clientSecret) },
    );
    expect(introspection.body.active).toBe(false);
  });

  test('a code is bound to its client and to its PKCE verifier', async () => {
    const other = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
      tenantId: a.tenantId,
      clientId: `other-${randomInt(1e6)}`,
      name: 'Other app',
      grantTypes: ['authorization_code'],
      redirectUris: [REDIRECT],
    });
    const { verifier, callback } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const code = callback.searchParams.get('code')!;
    const token = `${issuerOf(a)}/oidc/token`;
    const asOther = await postForm(
      token,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: basic(other.clientId, other.clientSecret) },
    );
    expect([asOther.status, asOther.body.error]).toEqual([400, 'invalid_grant']);

    const { callback: cb2 } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const auth = { authorization: basic(a.client.clientId, a.client.clientSecret) };
    const noVerifier = await postForm(
      token,
      { grant_type: 'authorization_code', code: cb2.searchParams.get('code')!, redirect_uri: REDIRECT },
      auth,
    );
    expect(noVerifier.status).toBe(400);
    expect(['invalid_grant', 'invalid_request']).toContain(noVerifier.body.error);

    const { callback: cb3 } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const wrongVerifier = await postForm(
      token,
      {
        grant_type: 'authorization_code',
        code: cb3.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: 'x'.repeat(43),
      },
      auth,
    );
    expect([wrongVerifier.status, wrongVerifier.body.error]).toEqual([400, 'invalid_grant']);
  });

  test('wrong client secret is 401 invalid_client (basic and post); unknown tenant is a 404 JSON error', async () => {
    const token = `${issuerOf(a)}/oidc/token`;
    const wrongBasic = await postForm(
      token,
      { grant_type: 'client_credentials', resource: a.resource },
      { authorization: basic('svc-post', 'wrong') },
    );
    expect([wrongBasic.status, wrongBasic.body.error]).toEqual([401, 'invalid_client']);
    const wrongPost = await postForm(token, {
      grant_type: 'client_credentials',
      resource: a.resource,
      client_id: 'svc-post',
      client_secret: 'wrong',
    });
    expect([wrongPost.status, wrongPost.body.error]).toEqual([401, 'invalid_client']);
    for (const path of [
      '/auth/999999999/.well-known/openid-configuration',
      '/_api/auth/999999999/oidc/token',
      '/auth/not-a-number/authorize',
    ]) {
      const res = await fetch(`${h.topology.baseUrl}${path}`, { method: path.endsWith('token') ? 'POST' : 'GET' });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(((await res.json()) as { error: string }).error).toBe('not_found');
    }
  });
});

describe('two tenants on one host', () => {
  test('an access token of tenant A is refused by tenant B (userinfo and introspection)', async () => {
    const { config, verifier, state, nonce, callback } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const atA = await fetch(`${issuerOf(a)}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(atA.status).toBe(200);
    const atB = await fetch(`${issuerOf(b)}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(atB.status).toBe(401);
    const introspectB = await postForm(
      `${issuerOf(b)}/token/introspection`,
      { token: tokens.access_token },
      { authorization: basic(b.client.clientId, b.client.clientSecret) },
    );
    expect(introspectB.body.active).toBe(false);
    // A JWT access token of A for the shared API identifier does not verify against B's keys.
    const cc = await postForm(
      `${issuerOf(a)}/oidc/token`,
      { grant_type: 'client_credentials', resource: a.resource },
      { authorization: basic('svc-post', clients.post!.clientSecret) },
    );
    await expect(
      jwtVerify(String(cc.body.access_token), createRemoteJWKSet(new URL(`${issuerOf(b)}/jwks`))),
    ).rejects.toThrow();
  });

  test("tenant A's authorization code cannot be redeemed at tenant B (same client_id there)", async () => {
    const { verifier, callback } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    const res = await postForm(
      `${issuerOf(b)}/oidc/token`,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
      { authorization: basic(b.client.clientId, b.client.clientSecret) },
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
  });

  test("tenant A's session cookie signs nobody in at tenant B", async () => {
    const { agent } = await codeFlow(a, a.client.clientId, a.client.clientSecret);
    expect(agent.jar.header()).toMatch(new RegExp(`_session_${a.tenantId}=`));
    // Same browser, tenant A session alive: prompt=none at A succeeds, at B it is login_required.
    const params = (t: SeededTenant) =>
      new URLSearchParams({
        client_id: t.client.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        prompt: 'none',
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
    const atA = new URL((await agent.request(`${issuerOf(a)}/authorize?${params(a)}`)).headers.get('location')!);
    expect(atA.searchParams.get('code')).toBeTruthy();
    const atB = new URL((await agent.request(`${issuerOf(b)}/authorize?${params(b)}`)).headers.get('location')!);
    expect(atB.searchParams.get('error')).toBe('login_required');
  });

  test("tenant A's client credentials are not a client at tenant B", async () => {
    const res = await postForm(
      `${issuerOf(b)}/oidc/token`,
      { grant_type: 'client_credentials', resource: b.resource },
      { authorization: basic(a.admin.clientId, a.admin.clientSecret) },
    );
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
    const svc = await postForm(
      `${issuerOf(b)}/oidc/token`,
      { grant_type: 'client_credentials', resource: b.resource },
      { authorization: basic('svc-post', clients.post!.clientSecret) },
    );
    expect([svc.status, svc.body.error]).toEqual([401, 'invalid_client']);
  });
});

describe('signing key rotation', () => {
  test('a rotated key stays in the JWKS until what it signed expires; new tokens use the new key', async () => {
    const jwksUrl = `${issuerOf(a)}/jwks`;
    const before = await postForm(
      `${issuerOf(a)}/oidc/token`,
      { grant_type: 'client_credentials', resource: a.resource },
      { authorization: basic('svc-post', clients.post!.clientSecret) },
    );
    const oldKid = decodeProtectedHeader(String(before.body.access_token)).kid;

    // Rotated through the management API: the invalidation event rebuilds the tenant's provider, no restart.
    const admin = await clientCredentialsToken(
      h.topology.baseUrl,
      a.tenantId,
      a.admin.clientId,
      a.admin.clientSecret,
      'urn:idp:management',
    );
    const rotated = await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${a.tenantId}/signing-keys/rotations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alg: 'ES256' }),
    });
    expect(rotated.status).toBe(201);
    type Jwks = { keys: Array<{ kid: string; alg: string; d?: string; key_ops?: string[] }> };
    let jwks: Jwks = { keys: [] };
    for (let i = 0; i < 50 && jwks.keys.filter((k) => k.alg === 'ES256').length < 2; i++) {
      jwks = (await (await fetch(jwksUrl)).json()) as Jwks;
      if (jwks.keys.filter((k) => k.alg === 'ES256').length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    expect(jwks.keys.map((k) => k.kid)).toContain(oldKid);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
    expect(jwks.keys.filter((k) => k.alg === 'ES256')).toHaveLength(2);
    // Published unchanged (no key_ops added at retirement): a client's cached JWK stays the same key.
    expect(jwks.keys.find((k) => k.kid === oldKid)?.key_ops).toBeUndefined();

    const after = await postForm(
      `${issuerOf(a)}/oidc/token`,
      { grant_type: 'client_credentials', resource: a.resource },
      { authorization: basic('svc-post', clients.post!.clientSecret) },
    );
    const newKid = decodeProtectedHeader(String(after.body.access_token)).kid;
    expect(newKid).not.toBe(oldKid);
    const keySet = createRemoteJWKSet(new URL(jwksUrl));
    await jwtVerify(String(before.body.access_token), keySet, { issuer: issuerOf(a) });
    await jwtVerify(String(after.body.access_token), keySet, { issuer: issuerOf(a) });
  }, 60_000);
});
