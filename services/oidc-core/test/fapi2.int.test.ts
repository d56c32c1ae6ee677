/**
 * FAPI 2.0 Security Profile for a tenant that asks for it (`settings.security.profile: "fapi2"`), each
 * rule replayed as the conformance suite's `fapi2-security-profile-final` plan (private_key_jwt, DPoP) does, through
 * openid-client (the certified relying-party library) and raw HTTP where the protocol itself is under test, against
 * oidc-core in-process with a FAPI tenant and a standard tenant side by side in one pool.
 */
import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import * as oidc from 'openid-client';
import { DEFAULT_DPOP_ALGORITHMS } from '@idp/resource-server';
import { basicAuth, createClient, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { exchangeSidecar } from './exchange-sidecar';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';

const REDIRECT = 'http://127.0.0.1:8420/cb';
const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const RESOURCE = 'https://api.orders.example';

const sidecar = exchangeSidecar();
let app: PagesApp;
let fapiTenant: number;
let standard: SeededTenant;
type KeyPair = { privateKey: CryptoKey; publicKey: CryptoKey; kid: string };
let ecKey: KeyPair;
let rsaKey: KeyPair;
let secretClient: { clientId: string; clientSecret: string };

async function clientKey(alg: 'ES256' | 'PS256'): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, publicKey, kid: randomUUID() };
}
/** The client's registered JWKS: the public key, with no `alg`, so the profile's algorithm list alone decides. */
async function jwks(...keys: KeyPair[]) {
  return {
    keys: await Promise.all(keys.map(async (k) => ({ ...(await exportJWK(k.publicKey)), kid: k.kid, use: 'sig' }))),
  };
}

beforeAll(async () => {
  app = await startPagesApp('fapi2', { forwardTokenExchange: sidecar.forwarder });
  fapiTenant = app.tenant.tenantId;
  const m = app.db.models;
  ecKey = await clientKey('ES256');
  rsaKey = await clientKey('PS256');
  const base = {
    tenantId: fapiTenant,
    redirectUris: [REDIRECT],
    firstParty: true,
    tokenEndpointAuthMethod: 'private_key_jwt' as const,
  };
  const grants = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE, GRANT_TYPE_TOKEN_EXCHANGE];
  await createClient(m, PEPPER, {
    ...base,
    clientId: 'fapi-ec',
    name: 'FAPI client (EC key)',
    grantTypes: grants,
    responseTypes: ['code'],
    jwks: await jwks(ecKey),
    delegationEnabled: true,
  });
  await createClient(m, PEPPER, {
    ...base,
    clientId: 'fapi-rsa',
    name: 'FAPI client (RSA key)',
    grantTypes: grants,
    responseTypes: ['code'],
    jwks: await jwks(rsaKey),
  });
  await createClient(m, PEPPER, {
    ...base,
    clientId: 'fapi-rs256-id-token',
    name: 'Wants RS256 ID tokens',
    grantTypes: grants,
    responseTypes: ['code'],
    jwks: await jwks(ecKey),
    idTokenSignedResponseAlg: 'RS256',
  });
  secretClient = await createClient(m, PEPPER, {
    tenantId: fapiTenant,
    clientId: 'secret-basic',
    name: 'Client secret',
    grantTypes: ['authorization_code', 'client_credentials'],
    redirectUris: [REDIRECT],
    firstParty: true,
  });
  await createClient(m, PEPPER, {
    tenantId: fapiTenant,
    clientId: 'public-spa',
    name: 'Public',
    grantTypes: ['authorization_code'],
    redirectUris: [REDIRECT],
    tokenEndpointAuthMethod: 'none',
    firstParty: true,
  });
  // What PATCH /tenants/{t} {settings:{security:{profile:"fapi2"}}} writes; its `tenant` invalidation evicts the
  // provider (tenants/invalidation.ts), as this does.
  await m.Tenant.updateOne({ _id: fapiTenant }, { $set: { 'settings.security.profile': 'fapi2' } });
  app.pool.evict(fapiTenant);
  standard = await seedDelegationTenant(m, app.keyStore, {
    tenantId: randomInt(1_000_001, 2_000_000),
    tenantName: 'Standard',
    clientSecretPepper: PEPPER,
    redirectUri: REDIRECT,
  });
}, 60_000);
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

const issuer = (t = fapiTenant) => `${app.baseUrl}/auth/${t}`;
const tokenEndpoint = (t = fapiTenant) => `${issuer(t)}/oidc/token`;
const parEndpoint = (t = fapiTenant) => `${issuer(t)}/request`;

/** A client assertion (RFC 7523) signed with the given key and algorithm, `aud` as given (default: the issuer). */
async function assertion(
  clientId: string,
  key: KeyPair,
  o: { alg?: string; aud?: string | string[] } = {},
): Promise<Record<string, string>> {
  const jwt = await new SignJWT({})
    .setProtectedHeader({ alg: o.alg ?? (key === rsaKey ? 'PS256' : 'ES256'), kid: key.kid })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(o.aud ?? issuer())
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key.privateKey);
  return {
    client_id: clientId,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: jwt,
  };
}

/** A DPoP proof (RFC 9449) for a POST to `htu`. */
async function dpopProof(
  key: { privateKey: CryptoKey; publicKey: CryptoKey },
  htu: string,
  alg = 'ES256',
): Promise<string> {
  return new SignJWT({ htm: 'POST', htu })
    .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: (await exportJWK(key.publicKey)) as JWK })
    .setJti(randomUUID())
    .setIssuedAt()
    .sign(key.privateKey);
}

async function post(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/** The browser part: sign alice in and return where the browser lands (the redirect URI) or the page. */
async function browse(
  url: URL | string,
  browser = new Browser(app.baseUrl),
  user = app.tenant.user,
): Promise<{ callback?: URL; status: number; page?: string }> {
  let res = await browser.go(url.toString());
  for (let i = 0; i < 10; i++) {
    if (!res.location) return { status: res.status, page: res.text };
    const next = new URL(res.location, app.baseUrl);
    if (next.toString().startsWith(REDIRECT)) return { callback: next, status: res.status };
    if (/\/interaction\/[^/]+$/.test(next.pathname)) {
      const page = await browser.go(next.pathname);
      res = /name="password"/.test(page.text)
        ? await browser.go(`${next.pathname}/login`, { form: { username: user.username, password: user.password } })
        : await browser.go(`${next.pathname}/confirm`, { form: {} });
    } else res = await browser.go(next.toString());
  }
  throw new Error('too many redirects');
}

/** A pushed authorization request by raw HTTP with the given client authentication; returns the PAR response. */
async function push(
  auth: Record<string, string>,
  params: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return post(
    parEndpoint(),
    { response_type: 'code', scope: 'openid offline_access', resource: RESOURCE, ...params, ...auth },
    headers,
  );
}

/** A code for `fapi-ec` through PAR (raw HTTP) and the browser; with its PKCE verifier. */
async function codeByPar(scope = 'openid offline_access'): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const par = await push(await assertion('fapi-ec', ecKey), {
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    prompt: 'consent',
    scope,
  });
  expect(par.status).toBe(201);
  const { callback } = await browse(
    `${issuer()}/authorize?${new URLSearchParams({ client_id: 'fapi-ec', request_uri: par.body.request_uri! })}`,
  );
  expect(callback?.searchParams.get('iss')).toBe(issuer());
  return { code: callback!.searchParams.get('code')!, verifier };
}

describe('discovery of a FAPI 2.0 tenant', () => {
  it('advertises PAR required, private_key_jwt only, PS256/ES256/EdDSA, PKCE S256, iss in responses, ES256 ID tokens', async () => {
    const doc = (await (await fetch(`${issuer()}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      require_pushed_authorization_requests: true,
      pushed_authorization_request_endpoint: parEndpoint(),
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
      revocation_endpoint_auth_methods_supported: ['private_key_jwt'],
      revocation_endpoint_auth_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
      introspection_endpoint_auth_methods_supported: ['private_key_jwt'],
      introspection_endpoint_auth_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
      dpop_signing_alg_values_supported: ['PS256', 'ES256', 'EdDSA'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      id_token_signing_alg_values_supported: ['ES256'],
    });
    // A DPoP-bound token's key proves itself at an API with an algorithm the provider accepted: the resource-server
    // SDK's default accepts every one of them.
    expect(DEFAULT_DPOP_ALGORITHMS).toEqual(expect.arrayContaining(doc.dpop_signing_alg_values_supported as string[]));
  });
});

describe('pushed authorization requests', () => {
  it('a plain authorization request is refused, at the redirect URI with iss and without a code', async () => {
    const { challenge } = pkcePair();
    const params = new URLSearchParams({
      client_id: 'fapi-ec',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const { callback } = await browse(`${issuer()}/authorize?${params}`);
    expect(Object.fromEntries(callback!.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'Pushed Authorization Request must be used',
      state: 'st',
      iss: issuer(),
    });
  });

  it('a pushed request without redirect_uri is refused, even though the client has a single registered one; so is one without PKCE', async () => {
    const { challenge } = pkcePair();
    const noRedirect = await push(await assertion('fapi-ec', ecKey), {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect([noRedirect.status, noRedirect.body.error, noRedirect.body.request_uri]).toEqual([
      400,
      'invalid_request',
      undefined,
    ]);
    expect(noRedirect.body.error_description).toMatch(/redirect_uri/);
    const noPkce = await push(await assertion('fapi-ec', ecKey), { redirect_uri: REDIRECT });
    expect([noPkce.status, noPkce.body.error, noPkce.body.request_uri]).toEqual([400, 'invalid_request', undefined]);
    expect(noPkce.body.error_description).toMatch(/PKCE/);
    const plain = await push(await assertion('fapi-ec', ecKey), {
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'plain',
    });
    expect([plain.status, plain.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('the code flow: PAR + private_key_jwt + DPoP + PKCE', () => {
  it.each([
    ['fapi-ec', 'ES256'],
    ['fapi-rsa', 'PS256'],
  ] as const)(
    'works through openid-client for %s (%s assertions), with DPoP-bound tokens; a refresh needs a proof too',
    async (clientId, alg) => {
      const key = alg === 'ES256' ? ecKey : rsaKey;
      const config = await oidc.discovery(
        new URL(issuer()),
        clientId,
        { id_token_signed_response_alg: 'ES256' },
        oidc.PrivateKeyJwt({ key: key.privateKey, kid: key.kid }),
        { execute: [oidc.allowInsecureRequests] },
      );
      const dpopKeys = await oidc.randomDPoPKeyPair('ES256');
      const DPoP = oidc.getDPoPHandle(config, dpopKeys);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const url = await oidc.buildAuthorizationUrlWithPAR(
        config,
        {
          redirect_uri: REDIRECT,
          scope: 'openid offline_access',
          resource: RESOURCE,
          prompt: 'consent',
          state,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        },
        { DPoP },
      );
      expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const { callback } = await browse(url);
      // RFC 9207: the issuer in the authorization response (openid-client checks it too).
      expect(callback?.searchParams.get('iss')).toBe(issuer());
      const tokens = await oidc.authorizationCodeGrant(
        config,
        callback!,
        { expectedState: state, pkceCodeVerifier: verifier, idTokenExpected: true },
        undefined,
        { DPoP },
      );
      expect(tokens.token_type.toLowerCase()).toBe('dpop');
      const jkt = await calculateJwkThumbprint(await exportJWK(dpopKeys.publicKey));
      expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: RESOURCE, client_id: clientId, cnf: { jkt } });
      expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
      expect(tokens.refresh_token).toBeTruthy();
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { resource: RESOURCE }, { DPoP });
      expect(refreshed.token_type.toLowerCase()).toBe('dpop');
      expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });
    },
  );
});

describe('every token DPoP-bound', () => {
  it('a token request without a DPoP proof is refused, never answered with a Bearer token; with one it is DPoP', async () => {
    const { code, verifier } = await codeByPar();
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier };
    const bare = await post(tokenEndpoint(), { ...form, ...(await assertion('fapi-ec', ecKey)) });
    expect([bare.status, bare.body.error, bare.body.access_token, bare.body.token_type]).toEqual([
      400,
      'invalid_grant',
      undefined,
      undefined,
    ]);
    // The proof was all it lacked: the same code, still unused, with one.
    const bound = await post(
      tokenEndpoint(),
      { ...form, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(await generateKeyPair('ES256'), tokenEndpoint()) },
    );
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('a refresh without a DPoP proof is refused', async () => {
    const { code, verifier } = await codeByPar();
    const dpopKey = await generateKeyPair('ES256');
    const tokens = await post(
      tokenEndpoint(),
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        ...(await assertion('fapi-ec', ecKey)),
      },
      { DPoP: await dpopProof(dpopKey, tokenEndpoint()) },
    );
    expect([tokens.status, tokens.body.token_type]).toEqual([200, 'DPoP']);
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token! };
    const bare = await post(tokenEndpoint(), { ...refresh, ...(await assertion('fapi-ec', ecKey)) });
    expect([bare.status, bare.body.error, bare.body.access_token]).toEqual([400, 'invalid_grant', undefined]);
    const bound = await post(
      tokenEndpoint(),
      { ...refresh, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(dpopKey, tokenEndpoint()) },
    );
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('client credentials: refused without a proof, DPoP-bound with one', async () => {
    const form = { grant_type: 'client_credentials', resource: RESOURCE };
    const bare = await post(tokenEndpoint(), { ...form, ...(await assertion('fapi-ec', ecKey)) });
    expect([bare.status, bare.body.error, bare.body.access_token]).toEqual([400, 'invalid_grant', undefined]);
    const dpopKey = await generateKeyPair('ES256');
    const bound = await post(
      tokenEndpoint(),
      { ...form, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(dpopKey, tokenEndpoint()) },
    );
    expect([bound.status, bound.body.token_type]).toEqual([200, 'DPoP']);
    expect(decodeJwt(bound.body.access_token!).cnf).toEqual({
      jkt: await calculateJwkThumbprint(await exportJWK(dpopKey.publicKey)),
    });
  });

  it('device code: polling without a proof is refused before anything else is said', async () => {
    const device = await post(`${issuer()}/device/auth`, { scope: 'openid', ...(await assertion('fapi-ec', ecKey)) });
    expect(device.status).toBe(200);
    const bare = await post(tokenEndpoint(), {
      grant_type: DEVICE_CODE,
      device_code: device.body.device_code!,
      ...(await assertion('fapi-ec', ecKey)),
    });
    expect([bare.status, bare.body.error]).toEqual([400, 'invalid_grant']);
    // With a proof the same poll is merely pending.
    const pending = await post(
      tokenEndpoint(),
      { grant_type: DEVICE_CODE, device_code: device.body.device_code!, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(await generateKeyPair('ES256'), tokenEndpoint()) },
    );
    expect(pending.body.error).toBe('authorization_pending');
  });

  it('token exchange (forwarded to the sidecar): refused without a proof or with a proof signed RS256; with a proof the NHE token is DPoP-bound', async () => {
    // alice's DPoP-bound token for the Orders API, through PAR.
    const { code, verifier } = await codeByPar('openid orders:read');
    const dpopKey = await generateKeyPair('ES256');
    const user = await post(
      tokenEndpoint(),
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
        ...(await assertion('fapi-ec', ecKey)),
      },
      { DPoP: await dpopProof(dpopKey, tokenEndpoint()) },
    );
    expect([user.status, user.body.token_type]).toEqual([200, 'DPoP']);
    expect(String(decodeJwt(user.body.access_token!).scope).split(' ')).toContain('orders:read');
    const form = {
      grant_type: GRANT_TYPE_TOKEN_EXCHANGE,
      subject_token: user.body.access_token!,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-agent',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: RESOURCE,
      scope: 'orders:read',
    };
    const bare = await post(tokenEndpoint(), { ...form, ...(await assertion('fapi-ec', ecKey)) });
    expect([bare.status, bare.body.error, bare.body.access_token]).toEqual([400, 'invalid_dpop_proof', undefined]);
    // An RS256 proof: not a FAPI 2.0 algorithm (oidc-core refuses it before forwarding).
    const rsa = await generateKeyPair('RS256');
    const rs256 = await post(
      tokenEndpoint(),
      { ...form, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(rsa, tokenEndpoint(), 'RS256') },
    );
    expect([rs256.status, rs256.body.error, rs256.body.access_token]).toEqual([400, 'invalid_dpop_proof', undefined]);
    const bound = await post(
      tokenEndpoint(),
      { ...form, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(dpopKey, tokenEndpoint()) },
    );
    expect([bound.status, bound.body.error, bound.body.token_type]).toEqual([200, undefined, 'DPoP']);
    expect(decodeJwt(bound.body.access_token!)).toMatchObject({
      act: { sub: expect.stringContaining('orders-agent') },
      cnf: { jkt: await calculateJwkThumbprint(await exportJWK(dpopKey.publicKey)) },
    });
  });

  it('a DPoP proof signed RS256 is refused at the token endpoint too', async () => {
    const rsa = await generateKeyPair('RS256');
    const res = await post(
      tokenEndpoint(),
      { grant_type: 'client_credentials', resource: RESOURCE, ...(await assertion('fapi-ec', ecKey)) },
      { DPoP: await dpopProof(rsa, tokenEndpoint(), 'RS256') },
    );
    expect([res.status, res.body.error]).toEqual([400, 'invalid_dpop_proof']);
  });
});

describe('client authentication: private_key_jwt only, aud exactly the issuer, PS256/ES256/EdDSA', () => {
  const cc = { grant_type: 'client_credentials', resource: RESOURCE };
  const withProof = async () => ({ DPoP: await dpopProof(await generateKeyPair('ES256'), tokenEndpoint()) });

  it('a client_secret_basic client is refused with invalid_client at the token and PAR endpoints; so is a public client', async () => {
    const token = await post(tokenEndpoint(), cc, {
      authorization: basicAuth(secretClient.clientId, secretClient.clientSecret),
      ...(await withProof()),
    });
    expect([token.status, token.body.error, token.body.access_token]).toEqual([401, 'invalid_client', undefined]);
    const { challenge } = pkcePair();
    const pkce = { redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' };
    const par = await push({ client_id: secretClient.clientId }, pkce, {
      authorization: basicAuth(secretClient.clientId, secretClient.clientSecret),
    });
    expect([par.status, par.body.error, par.body.request_uri]).toEqual([401, 'invalid_client', undefined]);
    const post_ = await push({ client_id: secretClient.clientId, client_secret: secretClient.clientSecret }, pkce);
    expect([post_.status, post_.body.error]).toEqual([401, 'invalid_client']);
    const pub = await push({ client_id: 'public-spa' }, pkce);
    expect([pub.status, pub.body.error, pub.body.request_uri]).toEqual([401, 'invalid_client', undefined]);
    // A private_key_jwt client whose record asks for RS256 ID tokens (not allowed under the profile) is refused too.
    const rs256IdToken = await post(
      tokenEndpoint(),
      { ...cc, ...(await assertion('fapi-rs256-id-token', ecKey)) },
      await withProof(),
    );
    expect([rs256IdToken.status, rs256IdToken.body.error]).toEqual([401, 'invalid_client']);
  });

  it('an assertion whose aud is the token endpoint URL, an array (even one holding the issuer) or the PAR endpoint URL is refused; aud = issuer passes', async () => {
    for (const aud of [tokenEndpoint(), [issuer(), tokenEndpoint()], [issuer()], parEndpoint()]) {
      const res = await post(
        tokenEndpoint(),
        { ...cc, ...(await assertion('fapi-ec', ecKey, { aud })) },
        await withProof(),
      );
      expect([JSON.stringify(aud), res.status, res.body.error, res.body.access_token]).toEqual([
        JSON.stringify(aud),
        401,
        'invalid_client',
        undefined,
      ]);
    }
    // At the PAR endpoint, its own URL as aud is refused as well.
    const { challenge } = pkcePair();
    const pkce = { redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256' };
    const par = await push(await assertion('fapi-ec', ecKey, { aud: parEndpoint() }), pkce);
    expect([par.status, par.body.error, par.body.request_uri]).toEqual([401, 'invalid_client', undefined]);
    expect((await push(await assertion('fapi-ec', ecKey), pkce)).status).toBe(201);
    const ok = await post(tokenEndpoint(), { ...cc, ...(await assertion('fapi-ec', ecKey)) }, await withProof());
    expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
  });

  it('an RS256 assertion is refused; the same RSA key signing PS256 passes', async () => {
    // The same private key, usable for RS256 signatures.
    const rs256Key = {
      ...rsaKey,
      privateKey: (await importJWK(await exportJWK(rsaKey.privateKey), 'RS256')) as CryptoKey,
    };
    const rs256 = await post(
      tokenEndpoint(),
      { ...cc, ...(await assertion('fapi-rsa', rs256Key, { alg: 'RS256' })) },
      await withProof(),
    );
    expect([rs256.status, rs256.body.error, rs256.body.access_token]).toEqual([401, 'invalid_client', undefined]);
    const ps256 = await post(
      tokenEndpoint(),
      { ...cc, ...(await assertion('fapi-rsa', rsaKey, { alg: 'PS256' })) },
      await withProof(),
    );
    expect([ps256.status, ps256.body.token_type]).toEqual([200, 'DPoP']);
  });
});

describe('a tenant without the setting', () => {
  it('is unchanged beside a FAPI tenant: every auth method advertised, plain authorization requests, Bearer tokens for client_secret_basic', async () => {
    const t = standard.tenantId;
    const doc = (await (await fetch(`${issuer(t)}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(doc.token_endpoint_auth_methods_supported).toEqual([
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
      'none',
    ]);
    expect(doc.token_endpoint_auth_signing_alg_values_supported).toContain('RS256');
    expect(doc.require_pushed_authorization_requests).toBeUndefined();
    const { verifier, challenge } = pkcePair();
    const params = new URLSearchParams({
      client_id: standard.client.clientId,
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const { callback } = await browse(`${issuer(t)}/authorize?${params}`, new Browser(app.baseUrl), standard.user);
    const code = callback?.searchParams.get('code');
    expect(code).toBeTruthy();
    const res = await post(
      tokenEndpoint(t),
      { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: basicAuth(standard.client.clientId, standard.client.clientSecret) },
    );
    expect([res.status, res.body.token_type]).toEqual([200, 'Bearer']);
  });

  it('turning the profile off again (and evicting, as the tenant invalidation does) gives the standard behaviour back', async () => {
    const m = app.db.models;
    await m.Tenant.updateOne({ _id: fapiTenant }, { $set: { 'settings.security.profile': 'standard' } });
    app.pool.evict(fapiTenant);
    try {
      const res = await post(
        tokenEndpoint(),
        { grant_type: 'client_credentials', resource: RESOURCE },
        { authorization: basicAuth(secretClient.clientId, secretClient.clientSecret) },
      );
      expect([res.status, res.body.token_type]).toEqual([200, 'Bearer']);
    } finally {
      await m.Tenant.updateOne({ _id: fapiTenant }, { $set: { 'settings.security.profile': 'fapi2' } });
      app.pool.evict(fapiTenant);
    }
  });
});
