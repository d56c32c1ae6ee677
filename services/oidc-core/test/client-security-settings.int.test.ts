/**
 * A client's protocol security settings at the provider (PKCE, DPoP-bound tokens and PAR, per client), through
 * openid-client (the certified relying-party library) and raw HTTP against oidc-core in-process:
 * - PKCE is required unless a confidential client's record says `pkceRequired: false`; a public client needs it
 *   whatever its record says; a code_challenge that is sent is enforced; prompt=none without a session gets
 *   login_required for a client allowed without PKCE (oidcc-prompt-none-not-logged-in);
 * - `requireDpop` (the API's dpopBoundAccessTokens): a token request or a refresh without a DPoP proof is refused;
 * - `requirePushedAuthorizationRequests`: a plain authorization request is refused, the PAR flow works.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { basicAuth, createClient } from '@idp/testing';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
const REDIRECT = 'http://127.0.0.1:8410/cb';
type Client = { clientId: string; clientSecret: string };
const clients: Record<'noPkce' | 'pkce' | 'spa' | 'dpop' | 'par', Client> = {} as never;

beforeAll(async () => {
  app = await startPagesApp('client-security');
  const base = {
    tenantId: app.tenant.tenantId,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
    firstParty: true,
  };
  const m = app.db.models;
  clients.noPkce = await createClient(m, PEPPER, { ...base, clientId: 'no-pkce', name: 'Confidential without PKCE' });
  clients.pkce = await createClient(m, PEPPER, { ...base, clientId: 'with-pkce', name: 'Confidential, default' });
  clients.spa = await createClient(m, PEPPER, {
    ...base,
    clientId: 'spa',
    name: 'Public',
    tokenEndpointAuthMethod: 'none',
  });
  clients.dpop = await createClient(m, PEPPER, {
    ...base,
    clientId: 'dpop-bound',
    name: 'DPoP-bound',
    requireDpop: true,
  });
  clients.par = await createClient(m, PEPPER, { ...base, clientId: 'par-only', name: 'PAR only' });
  const set = (clientId: string, $set: Record<string, unknown>) =>
    m.Client.updateOne({ tenantId: app.tenant.tenantId, clientId }, { $set });
  await set('no-pkce', { pkceRequired: false });
  // A public client whose record says false (a client that became public outside the API): ignored.
  await set('spa', { pkceRequired: false });
  await set('par-only', { requirePushedAuthorizationRequests: true });
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

const issuer = () => `${app.baseUrl}/auth/${app.tenant.tenantId}`;

function discover(
  client: Client,
  auth = client.clientSecret ? oidc.ClientSecretBasic(client.clientSecret) : oidc.None(),
) {
  return oidc.discovery(
    new URL(issuer()),
    client.clientId,
    client.clientSecret ? undefined : { token_endpoint_auth_method: 'none' },
    auth,
    { execute: [oidc.allowInsecureRequests] },
  );
}

/** The browser part: sign alice in if asked, and return where the browser lands (the redirect URI) or the page. */
async function browse(
  url: URL | string,
  browser = new Browser(app.baseUrl),
): Promise<{ callback?: URL; status: number; page?: string }> {
  let res = await browser.go(url.toString());
  for (let i = 0; i < 10; i++) {
    if (!res.location) return { status: res.status, page: res.text };
    const next = new URL(res.location, app.baseUrl);
    if (next.toString().startsWith(REDIRECT)) return { callback: next, status: res.status };
    if (/\/interaction\/[^/]+$/.test(next.pathname)) {
      // The sign-in page, or (prompt=consent) the consent page, answered as a person would.
      const page = await browser.go(next.pathname);
      res = /name="password"/.test(page.text)
        ? await browser.go(`${next.pathname}/login`, {
            form: { username: app.tenant.user.username, password: app.tenant.user.password },
          })
        : await browser.go(`${next.pathname}/confirm`, { form: {} });
    } else res = await browser.go(next.toString());
  }
  throw new Error('too many redirects');
}

/** A raw authorization request (GET), parameters as given. */
function authorizeUrl(clientId: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    state: 'st',
    nonce: 'n',
    ...extra,
  });
  return `${issuer()}/authorize?${params}`;
}

const pkcePair = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function tokenRequest(client: Client, form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${issuer()}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(client.clientSecret ? { authorization: basicAuth(client.clientId, client.clientSecret) } : {}),
      ...headers,
    },
    body: new URLSearchParams({ ...(client.clientSecret ? {} : { client_id: client.clientId }), ...form }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const PKCE_POLICY = 'Authorization Server policy requires PKCE to be used for this request';

describe('PKCE per client', () => {
  it('a confidential client allowed without PKCE completes the code flow through openid-client, with nonce and state', async () => {
    const config = await discover(clients.noPkce);
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid profile', state, nonce });
    expect(url.searchParams.has('code_challenge')).toBe(false);
    const { callback } = await browse(url);
    expect(callback?.searchParams.get('code')).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(config, callback!, {
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.claims()?.nonce).toBe(nonce);
  });

  it('a confidential client with the default gets invalid_request without PKCE (raw HTTP and openid-client), and completes the flow with it', async () => {
    const { callback } = await browse(authorizeUrl(clients.pkce.clientId));
    expect(Object.fromEntries(callback!.searchParams)).toMatchObject({
      error: 'invalid_request',
      error_description: PKCE_POLICY,
      state: 'st',
    });
    const config = await discover(clients.pkce);
    const noPkce = await browse(
      oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 's2' }),
    );
    expect(noPkce.callback?.searchParams.get('error')).toBe('invalid_request');
    const verifier = oidc.randomPKCECodeVerifier();
    const withPkce = await browse(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        state: 's3',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }),
    );
    const tokens = await oidc.authorizationCodeGrant(config, withPkce.callback!, {
      expectedState: 's3',
      pkceCodeVerifier: verifier,
    });
    expect(tokens.access_token).toBeTruthy();
  });

  it('a public client never can, whatever its record says', async () => {
    const { callback } = await browse(authorizeUrl(clients.spa.clientId));
    expect(Object.fromEntries(callback!.searchParams)).toMatchObject({
      error: 'invalid_request',
      error_description: PKCE_POLICY,
    });
    const config = await discover(clients.spa);
    const url = oidc.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 's4' });
    expect((await browse(url)).callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('prompt=none without a session: login_required for the client allowed without PKCE (oidcc-prompt-none-not-logged-in)', async () => {
    const { callback } = await browse(authorizeUrl(clients.noPkce.clientId, { prompt: 'none' }));
    expect(Object.fromEntries(callback!.searchParams)).toMatchObject({ error: 'login_required', state: 'st' });
    // The default client still needs PKCE first.
    const strict = await browse(authorizeUrl(clients.pkce.clientId, { prompt: 'none' }));
    expect(strict.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('a code_challenge that is sent is enforced for a client allowed without PKCE: a wrong or missing verifier is invalid_grant', async () => {
    for (const verifierSent of ['wrong', 'none', 'right'] as const) {
      const { verifier, challenge } = pkcePair();
      const { callback } = await browse(
        authorizeUrl(clients.noPkce.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
      );
      const code = callback!.searchParams.get('code')!;
      expect(code).toBeTruthy();
      const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT };
      if (verifierSent === 'wrong') form.code_verifier = pkcePair().verifier;
      if (verifierSent === 'right') form.code_verifier = verifier;
      const res = await tokenRequest(clients.noPkce, form);
      if (verifierSent === 'right') expect([res.status, typeof res.body.access_token]).toEqual([200, 'string']);
      else expect([res.status, res.body.error]).toEqual([400, 'invalid_grant']);
    }
    // A plain challenge method is still refused.
    const plain = await browse(
      authorizeUrl(clients.noPkce.clientId, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }),
    );
    expect(plain.callback?.searchParams.get('error')).toBe('invalid_request');
  });

  it('a code redeemed without PKCE by a client that sent no challenge cannot be redeemed twice', async () => {
    const { callback } = await browse(authorizeUrl(clients.noPkce.clientId));
    const form = {
      grant_type: 'authorization_code',
      code: callback!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
    };
    expect((await tokenRequest(clients.noPkce, form)).status).toBe(200);
    expect((await tokenRequest(clients.noPkce, form)).body.error).toBe('invalid_grant');
  });
});

describe("dpop_bound_access_tokens (the record's requireDpop)", () => {
  it('a token request without a DPoP proof is refused; with one the tokens are DPoP-bound, and a refresh needs a proof too', async () => {
    const config = await discover(clients.dpop);
    const verifier = oidc.randomPKCECodeVerifier();
    const authorize = async (state: string) =>
      (
        await browse(
          oidc.buildAuthorizationUrl(config, {
            redirect_uri: REDIRECT,
            scope: 'openid offline_access',
            prompt: 'consent',
            state,
            code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
          }),
        )
      ).callback!;
    // Without DPoP: refused by openid-client's token request and by a raw one alike, never answered with a Bearer
    // token.
    await expect(
      oidc.authorizationCodeGrant(config, await authorize('d1'), { expectedState: 'd1', pkceCodeVerifier: verifier }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    const raw = await tokenRequest(clients.dpop, {
      grant_type: 'authorization_code',
      code: (await authorize('d2')).searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect([raw.status, raw.body.error, raw.body.token_type]).toEqual([400, 'invalid_grant', undefined]);
    // With a proof.
    const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const tokens = await oidc.authorizationCodeGrant(
      config,
      await authorize('d3'),
      { expectedState: 'd3', pkceCodeVerifier: verifier },
      undefined,
      { DPoP },
    );
    expect(tokens.token_type.toLowerCase()).toBe('dpop');
    expect(tokens.refresh_token).toBeTruthy();
    const refreshRaw = await tokenRequest(clients.dpop, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect([refreshRaw.status, refreshRaw.body.error]).toEqual([400, 'invalid_grant']);
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP });
    expect(refreshed.token_type.toLowerCase()).toBe('dpop');
  });

  it('a client without the setting still gets Bearer tokens without a proof', async () => {
    const { verifier, challenge } = pkcePair();
    const { callback } = await browse(
      authorizeUrl(clients.pkce.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    const res = await tokenRequest(clients.pkce, {
      grant_type: 'authorization_code',
      code: callback!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect([res.status, res.body.token_type]).toEqual([200, 'Bearer']);
  });
});

describe('require_pushed_authorization_requests', () => {
  it('a plain authorization request is refused; the PAR flow through openid-client works', async () => {
    const { challenge } = pkcePair();
    const plain = await browse(
      authorizeUrl(clients.par.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    // Refused at the redirect URI (the client and its redirect_uri are known), with no code.
    expect(Object.fromEntries(plain.callback!.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'Pushed Authorization Request must be used',
      state: 'st',
      iss: issuer(),
    });

    const config = await discover(clients.par);
    expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(`${issuer()}/request`);
    const verifier = oidc.randomPKCECodeVerifier();
    const url = await oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      state: 'p1',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const { callback } = await browse(url);
    const tokens = await oidc.authorizationCodeGrant(config, callback!, {
      expectedState: 'p1',
      pkceCodeVerifier: verifier,
    });
    expect(tokens.access_token).toBeTruthy();
  });

  it('the PAR endpoint answers under the /_api alias too; other clients may still use plain requests', async () => {
    const { challenge } = pkcePair();
    const res = await fetch(`${app.baseUrl}/_api/auth/${app.tenant.tenantId}/request`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clients.par.clientId, clients.par.clientSecret),
      },
      body: new URLSearchParams({
        client_id: clients.par.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    });
    const body = (await res.json()) as { request_uri?: string; expires_in?: number };
    expect([res.status, body.request_uri]).toEqual([201, expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/)]);
    // The request_uri it hands out starts the flow at the alias's authorization endpoint.
    const viaAlias = await browse(
      `${app.baseUrl}/_api/auth/${app.tenant.tenantId}/authorize?${new URLSearchParams({ client_id: clients.par.clientId, request_uri: body.request_uri! })}`,
    );
    expect(viaAlias.callback?.searchParams.get('code')).toBeTruthy();
    const { callback } = await browse(
      authorizeUrl(clients.pkce.clientId, { code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(callback?.searchParams.get('code')).toBeTruthy();
  });
});
