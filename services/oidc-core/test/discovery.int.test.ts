/**
 * The discovery document, member by member against RFC 8414 section 2 and OpenID Connect Discovery
 * 1.0 section 3, with exact values; and the client authentication it advertises for revocation and introspection is
 * what those endpoints accept (each method tried, client_secret_jwt refused).
 */
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { DEFAULT_DPOP_ALGORITHMS } from '@idp/resource-server';
import { basicAuth, createClient } from '@idp/testing';
import { SCOPE_CLAIMS, SUPPORTED_SCOPES } from '../src/provider/claims';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
let t: number;
let issuer: string;

const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
const AUTH_ALGS = ['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'];

beforeAll(async () => {
  app = await startPagesApp('discovery');
  t = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${t}`;
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

async function discovery(path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${app.baseUrl}${path}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as Record<string, unknown>;
}

const sorted = (v: unknown) => [...(v as string[])].sort();

describe('the document', () => {
  it('has exactly these members and values', async () => {
    const doc = await discovery(`/auth/${t}/.well-known/openid-configuration`);
    const { scopes_supported, claims_supported, ...rest } = doc;
    expect(rest).toEqual({
      // RFC 8414 section 2 / OpenID Connect Discovery 1.0 section 3
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/oidc/token`,
      userinfo_endpoint: `${issuer}/me`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      response_modes_supported: ['form_post', 'fragment', 'query'],
      grant_types_supported: [
        'authorization_code',
        'refresh_token',
        'client_credentials',
        'urn:ietf:params:oauth:grant-type:device_code',
        'urn:ietf:params:oauth:grant-type:token-exchange',
      ],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      token_endpoint_auth_methods_supported: AUTH_METHODS,
      token_endpoint_auth_signing_alg_values_supported: AUTH_ALGS,
      claim_types_supported: ['normal'],
      // OpenID Connect Core 5.5 (the claims parameter) and 3.1.2.1 (acr_values; domain/acr.ts)
      claims_parameter_supported: true,
      acr_values_supported: ['urn:idp:acr:pwd', 'urn:idp:acr:mfa'],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      // Token exchange's actor_token_type values, a vendor member
      'org.vendor.actor_token_types_supported': [
        'urn:vendor:token-type:nhe-id',
        'urn:ietf:params:oauth:token-type:jwt',
      ],
      // The deepest delegation chain the tenant issues: 1 by default (no re-delegation)
      'org.vendor.max_chain_depth': 1,
      // RFC 7009 / RFC 7662 endpoints, with their client authentication (RFC 8414 section 2)
      revocation_endpoint: `${issuer}/token/revocation`,
      revocation_endpoint_auth_methods_supported: AUTH_METHODS,
      revocation_endpoint_auth_signing_alg_values_supported: AUTH_ALGS,
      introspection_endpoint: `${issuer}/token/introspection`,
      introspection_endpoint_auth_methods_supported: AUTH_METHODS,
      introspection_endpoint_auth_signing_alg_values_supported: AUTH_ALGS,
      // RFC 7636, RFC 8628, RFC 9126, RFC 9207, RFC 9449
      code_challenge_methods_supported: ['S256'],
      device_authorization_endpoint: `${issuer}/device/auth`,
      pushed_authorization_request_endpoint: `${issuer}/request`,
      authorization_response_iss_parameter_supported: true,
      dpop_signing_alg_values_supported: ['ES256', 'Ed25519', 'EdDSA'],
      // OpenID Connect RP-Initiated Logout 1.0
      end_session_endpoint: `${issuer}/logout/confirm`,
    });
    // The spec's scope table, and every claim it releases plus the provider's own.
    expect(scopes_supported).toEqual(SUPPORTED_SCOPES);
    expect(sorted(claims_supported)).toEqual(
      [...new Set(['sub', 'sid', 'auth_time', 'acr', ...Object.values(SCOPE_CLAIMS).flat()])].sort(),
    );
    // A DPoP-bound token's key proves itself at an API with an algorithm the provider accepted: the resource-server
    // SDK's default accepts every one of them.
    expect(DEFAULT_DPOP_ALGORITHMS).toEqual(expect.arrayContaining(rest.dpop_signing_alg_values_supported as string[]));
  });

  it('is the same document at the RFC 8414 locations', async () => {
    const oidc = await discovery(`/auth/${t}/.well-known/openid-configuration`);
    expect(await discovery(`/.well-known/oauth-authorization-server/auth/${t}`)).toEqual(oidc);
    expect(await discovery(`/auth/${t}/.well-known/oauth-authorization-server`)).toEqual(oidc);
  });

  it('under /_api: the same issuer, the endpoints under the alias', async () => {
    const doc = await discovery(`/_api/auth/${t}/.well-known/openid-configuration`);
    expect(doc.issuer).toBe(issuer);
    expect(doc.revocation_endpoint).toBe(`${app.baseUrl}/_api/auth/${t}/token/revocation`);
    expect(doc.introspection_endpoint_auth_methods_supported).toEqual(AUTH_METHODS);
  });
});

describe('revocation and introspection accept every advertised method, and only those', () => {
  let postSecret = '';
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;

  beforeAll(async () => {
    keys = await generateKeyPair('ES256', { extractable: true });
    const common = { tenantId: t, grantTypes: ['authorization_code'], redirectUris: ['http://127.0.0.1:8400/cb'] };
    postSecret = (
      await createClient(app.db.models, PEPPER, {
        ...common,
        clientId: 'm-post',
        name: 'Post',
        tokenEndpointAuthMethod: 'client_secret_post',
      })
    ).clientSecret;
    await createClient(app.db.models, PEPPER, {
      ...common,
      clientId: 'm-public',
      name: 'Public',
      tokenEndpointAuthMethod: 'none',
    });
    await createClient(app.db.models, PEPPER, {
      ...common,
      clientId: 'm-jwt',
      name: 'JWT',
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), alg: 'ES256', use: 'sig', kid: 'm-jwt-1' }] },
    });
  });

  const assertion = (aud: string) =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'm-jwt-1' })
      .setIssuer('m-jwt')
      .setSubject('m-jwt')
      .setAudience(aud)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(keys.privateKey);

  async function call(
    endpoint: 'token/revocation' | 'token/introspection',
    method: string,
  ): Promise<{ status: number; body: string }> {
    const url = `${issuer}/${endpoint}`;
    let init: { headers: Record<string, string>; body: URLSearchParams };
    switch (method) {
      case 'client_secret_basic':
        init = {
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret),
          },
          body: new URLSearchParams({ token: 'unknown' }),
        };
        break;
      case 'client_secret_post':
        init = {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: 'unknown', client_id: 'm-post', client_secret: postSecret }),
        };
        break;
      case 'private_key_jwt':
        init = {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            token: 'unknown',
            client_id: 'm-jwt',
            client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
            client_assertion: await assertion(issuer),
          }),
        };
        break;
      case 'none':
        init = {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: 'unknown', client_id: 'm-public' }),
        };
        break;
      default:
        throw new Error(method);
    }
    const res = await fetch(url, { method: 'POST', ...init });
    return { status: res.status, body: await res.text() };
  }

  it.each(AUTH_METHODS.flatMap((m) => [['token/revocation', m] as const, ['token/introspection', m] as const]))(
    '%s accepts %s',
    async (endpoint, method) => {
      const res = await call(endpoint, method);
      expect(res.status).toBe(200);
      if (endpoint === 'token/introspection') expect(JSON.parse(res.body)).toEqual({ active: false });
    },
  );

  it.each(['token/revocation', 'token/introspection'])(
    '%s refuses a client_secret_jwt assertion and a wrong secret (401 invalid_client)',
    async (endpoint) => {
      const hs = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('m-jwt')
        .setSubject('m-jwt')
        .setAudience(issuer)
        .setJti(randomUUID())
        .setIssuedAt()
        .setExpirationTime('1m')
        .sign(new TextEncoder().encode('s'.repeat(32)));
      const jwt = await fetch(`${issuer}/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: 'unknown',
          client_id: 'm-jwt',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: hs,
        }),
      });
      expect(jwt.status).toBe(401);
      expect(((await jwt.json()) as { error: string }).error).toBe('invalid_client');
      const wrong = await fetch(`${issuer}/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: 'unknown', client_id: 'm-post', client_secret: 'wrong' }),
      });
      expect(wrong.status).toBe(401);
    },
  );
});
