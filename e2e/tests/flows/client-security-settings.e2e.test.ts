/**
 * A client's protocol security settings set through the management API and used through the dev router (the route
 * table), every service a process (per-client security settings, as FAPI asks per client), with openid-client:
 * - `pkceRequired: false` on a confidential client: the code flow without PKCE; turned back on, the next request
 *   without PKCE gets invalid_request (the change reaches oidc-core through NATS invalidation); a public client
 *   cannot be given it (400);
 * - `requirePushedAuthorizationRequests`: a plain request is refused at the redirect URI; PAR works, under the
 *   issuer's path and under the /_api alias;
 * - `dpopBoundAccessTokens`: a token request without a DPoP proof is refused; with one the token is DPoP-bound.
 */
import * as oidc from 'openid-client';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { FormAgent } from '../../src/clients/form-agent';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const REDIRECT = 'http://127.0.0.1:8400/callback';
let h: Harness;
let api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: Record<string, unknown> }>;
const secrets: Record<string, string> = {};

beforeAll(async () => {
  h = await startHarness('client-security');
  const base = h.topology.baseUrl;
  const T = h.tenant.tenantId;
  const admin = await clientCredentialsToken(
    base,
    T,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
  );
  api = async (method, path, body) => {
    const res = await fetch(`${base}/auth/admin/tenants/${T}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.access_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  };
  const app = (clientId: string, extra: Record<string, unknown>) => ({
    clientId,
    name: clientId,
    firstParty: true,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
    ...extra,
  });
  for (const [clientId, extra] of [
    ['e2e-no-pkce', { pkceRequired: false }],
    ['e2e-par-only', { requirePushedAuthorizationRequests: true }],
    ['e2e-dpop', { dpopBoundAccessTokens: true }],
  ] as const) {
    const res = await api('POST', '/clients', app(clientId, extra));
    expect({ clientId, status: res.status }).toEqual({ clientId, status: 201 });
    expect(res.body).toMatchObject(extra);
    secrets[clientId] = res.body.clientSecret as string;
  }
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

const issuer = () => `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
const person = () => ({ username: h.tenant.user.username, password: h.tenant.user.password });

function discover(clientId: string, alias = false) {
  const secret = secrets[clientId]!;
  // Discovery under the alias hands out the alias's endpoints (the issuer stays the same).
  const url = alias
    ? new URL(`${h.topology.baseUrl}/_api/auth/${h.tenant.tenantId}/.well-known/openid-configuration`)
    : new URL(issuer());
  return oidc.discovery(url, clientId, secret, oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests],
  });
}

async function land(url: URL): Promise<URL> {
  return new URL((await new FormAgent().drive(url.toString(), person(), REDIRECT)).url);
}

test('pkceRequired false: the code flow without PKCE; a public client cannot have it; back on, PKCE is asked again', async () => {
  const config = await discover('e2e-no-pkce');
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const callback = await land(
    oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', state, nonce }),
  );
  const tokens = await oidc.authorizationCodeGrant(config, callback, {
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  expect(tokens.claims()?.sub).toBeTruthy();

  const spa = await api('POST', '/clients', {
    clientId: 'e2e-spa',
    name: 'spa',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code'],
    redirectUris: [REDIRECT],
    pkceRequired: false,
  });
  expect([spa.status, (spa.body.invalid_params as Array<{ name: string }>).map((p) => p.name)]).toEqual([
    400,
    ['body.pkceRequired'],
  ]);

  expect((await api('PATCH', '/clients/e2e-no-pkce', { pkceRequired: true })).status).toBe(200);
  let error: string | null = null;
  for (let i = 0; i < 50 && error !== 'invalid_request'; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    error = (
      await land(oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 'again' }))
    ).searchParams.get('error');
  }
  expect(error).toBe('invalid_request');
});

test.each([false, true])(
  'requirePushedAuthorizationRequests: a plain request is refused, PAR works (under /_api: %s)',
  async (alias) => {
    const config = await discover('e2e-par-only', alias);
    const meta = config.serverMetadata();
    const prefix = alias ? `${h.topology.baseUrl}/_api/auth/${h.tenant.tenantId}` : issuer();
    expect([meta.issuer, meta.pushed_authorization_request_endpoint]).toEqual([issuer(), `${prefix}/request`]);
    const verifier = oidc.randomPKCECodeVerifier();
    const params = {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'par',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    const plain = await land(oidc.buildAuthorizationUrl(config, params));
    expect([plain.searchParams.get('error'), plain.searchParams.get('code')]).toEqual(['invalid_request', null]);
    const pushed = await oidc.buildAuthorizationUrlWithPAR(config, params);
    expect(pushed.toString().startsWith(`${prefix}/authorize?`)).toBe(true);
    const tokens = await oidc.authorizationCodeGrant(config, await land(pushed), {
      expectedState: 'par',
      pkceCodeVerifier: verifier,
    });
    expect(tokens.access_token).toBeTruthy();
  },
);

test('dpopBoundAccessTokens: a token request without a DPoP proof is refused; with one the token is DPoP-bound', async () => {
  const config = await discover('e2e-dpop');
  const verifier = oidc.randomPKCECodeVerifier();
  const challenge = await oidc.calculatePKCECodeChallenge(verifier);
  const authorize = (state: string) =>
    land(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
  await expect(
    oidc.authorizationCodeGrant(config, await authorize('d1'), { expectedState: 'd1', pkceCodeVerifier: verifier }),
  ).rejects.toMatchObject({ error: 'invalid_grant' });
  const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const tokens = await oidc.authorizationCodeGrant(
    config,
    await authorize('d2'),
    { expectedState: 'd2', pkceCodeVerifier: verifier },
    undefined,
    { DPoP },
  );
  expect(tokens.token_type.toLowerCase()).toBe('dpop');
});
