/**
 * The relying-party side of upstream OpenID Connect sign-in, through openid-client: the authorization request
 * (state, nonce and PKCE kept here, in the interaction), the code exchange with the upstream OP's checks (ID token
 * signature, `iss` = that OP's issuer, `aud`, nonce, and RFC 9207's `iss` response parameter wherever the OP
 * advertises it: the mix-up defence when a tenant has several providers), and RP-initiated logout towards the OP.
 *
 * Every request to the OP goes through the SSRF-safe outbound client (libs/http outbound.ts) under the platform's
 * policy (UPSTREAM_ALLOW_LOOPBACK / UPSTREAM_ALLOW_PRIVATE_NETWORKS): no tenant setting widens it.
 */
import { createPublicKey, createPrivateKey, generateKeyPairSync, webcrypto, type JsonWebKey } from 'node:crypto';
import * as oidc from 'openid-client';
import { LRUCache } from 'lru-cache';
import type { UpstreamOidcSettings, UpstreamProviderDoc } from '@idp/db';
import { outboundRequest, type OutboundPolicy } from '@idp/http';
import type { KeyEncryptionKey } from '@idp/tokens';
import { outsideTenantSlot } from '../tenants/request-scope';

export class UpstreamError extends Error {
  constructor(
    /** OAuth-style code shown on the error page and logged: never the upstream's secret material. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** Associated data of a provider's sealed secret: a sealed value copied to another provider or tenant does not open. */
export const sealedSecretContext = (
  tenantId: number,
  alias: string,
  what: 'client_secret' | 'private_jwk' | 'sp_key',
) => `upstream:${tenantId}:${alias}:${what}`;

/** openid-client's fetch over the SSRF-safe outbound client: no redirects, bounded time and size. */
export function upstreamFetch(policy: OutboundPolicy): oidc.CustomFetch {
  return async (url, options) => {
    const body =
      options.body === undefined || options.body === null
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : options.body instanceof URLSearchParams
            ? options.body.toString()
            : options.body instanceof Uint8Array
              ? Buffer.from(options.body)
              : options.body instanceof ArrayBuffer
                ? Buffer.from(options.body)
                : undefined;
    const answer = await outsideTenantSlot(() =>
      outboundRequest(url, {
        method: options.method,
        headers: options.headers,
        ...(body !== undefined ? { body } : {}),
        timeoutMs: 5_000,
        connectTimeoutMs: 2_000,
        maxResponseBytes: 512 * 1024,
        policy,
      }),
    );
    if (answer.truncated) throw new UpstreamError('temporarily_unavailable', 'the upstream provider answered too much');
    const headers = new Headers();
    for (const [k, v] of Object.entries(answer.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
    }
    // A Response cannot carry a body with these statuses.
    const empty = answer.status === 204 || answer.status === 304;
    return new Response(empty ? null : answer.body, { status: answer.status, headers });
  };
}

/** A new private_key_jwt key for a provider (ES256): the private JWK to seal, and its public JWK to publish. */
export function generateClientKey(): { privateJwk: JsonWebKey; publicJwk: JsonWebKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { privateJwk: privateKey.export({ format: 'jwk' }), publicJwk: publicKey.export({ format: 'jwk' }) };
}

/** The public half of a sealed private JWK, with the key id the client assertions carry. */
export function publicJwkOf(
  privateJwk: JsonWebKey,
  kid: string,
): JsonWebKey & { kid: string; use: string; alg: string } {
  const pub = createPublicKey(createPrivateKey({ key: privateJwk, format: 'jwk' })).export({ format: 'jwk' });
  return { ...pub, kid, use: 'sig', alg: 'ES256' };
}

export const clientKeyId = (tenantId: number, alias: string) => `upstream-${tenantId}-${alias}`;

interface CacheEntry {
  config: oidc.Configuration;
}

/** Discovered configurations by tenant, alias and the provider's last update: a change is picked up at once. */
const configurations = new LRUCache<string, CacheEntry>({ max: 1000, ttl: 10 * 60_000 });

async function clientAuthOf(
  tenantId: number,
  provider: UpstreamProviderDoc,
  settings: UpstreamOidcSettings,
  kek: KeyEncryptionKey,
): Promise<oidc.ClientAuth> {
  const open = (sealed: string | undefined, what: 'client_secret' | 'private_jwk') => {
    if (!sealed) throw new UpstreamError('server_error', `the provider ${provider.alias} has no ${what}`);
    return kek.decrypt(sealed, sealedSecretContext(tenantId, provider.alias, what));
  };
  switch (settings.clientAuthMethod) {
    case 'client_secret_basic':
      return oidc.ClientSecretBasic(open(settings.clientSecretSealed, 'client_secret'));
    case 'client_secret_post':
      return oidc.ClientSecretPost(open(settings.clientSecretSealed, 'client_secret'));
    case 'private_key_jwt': {
      const jwk = JSON.parse(open(settings.privateJwkSealed, 'private_jwk')) as JsonWebKey;
      // openid-client signs with WebCrypto keys only (not node:crypto KeyObjects); not extractable.
      const key = await webcrypto.subtle.importKey(
        'jwk',
        jwk as webcrypto.JsonWebKey,
        { name: 'ECDSA', namedCurve: 'P-256' },
        false,
        ['sign'],
      );
      return oidc.PrivateKeyJwt({ key, kid: clientKeyId(tenantId, provider.alias) }, {});
    }
  }
}

/** The provider's openid-client configuration: discovery (cached), explicit endpoints over it, our client auth. */
export async function oidcConfiguration(
  tenantId: number,
  provider: UpstreamProviderDoc,
  kek: KeyEncryptionKey,
  policy: OutboundPolicy,
): Promise<oidc.Configuration> {
  const settings = provider.oidc;
  if (!settings) throw new UpstreamError('server_error', `the provider ${provider.alias} is not an OpenID provider`);
  const key = `${tenantId}:${provider.alias}:${new Date(provider.updatedAt).getTime()}`;
  const cached = configurations.get(key);
  if (cached) return cached.config;
  const fetchFn = upstreamFetch(policy);
  const clientAuth = await clientAuthOf(tenantId, provider, settings, kek);
  const explicit = {
    ...(settings.authorizationEndpoint ? { authorization_endpoint: settings.authorizationEndpoint } : {}),
    ...(settings.tokenEndpoint ? { token_endpoint: settings.tokenEndpoint } : {}),
    ...(settings.userinfoEndpoint ? { userinfo_endpoint: settings.userinfoEndpoint } : {}),
    ...(settings.jwksUri ? { jwks_uri: settings.jwksUri } : {}),
    ...(settings.endSessionEndpoint ? { end_session_endpoint: settings.endSessionEndpoint } : {}),
  };
  const clientMetadata: Partial<oidc.ClientMetadata> = {
    ...(settings.clientAuthMethod === 'private_key_jwt' ? { token_endpoint_auth_signing_alg: 'ES256' } : {}),
  };
  let config: oidc.Configuration;
  const insecure = policy.allowLoopback && new URL(settings.issuer).protocol === 'http:';
  if (settings.authorizationEndpoint && settings.tokenEndpoint && settings.jwksUri) {
    config = new oidc.Configuration(
      { issuer: settings.issuer, ...explicit },
      settings.clientId,
      clientMetadata,
      clientAuth,
    );
    config[oidc.customFetch] = fetchFn;
    if (insecure) oidc.allowInsecureRequests(config);
  } else {
    const discoveryUrl = new URL(settings.discoveryUrl ?? settings.issuer);
    try {
      config = await oidc.discovery(discoveryUrl, settings.clientId, clientMetadata, clientAuth, {
        [oidc.customFetch]: fetchFn,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
    } catch (err) {
      throw new UpstreamError(
        'temporarily_unavailable',
        `the discovery document of ${provider.alias} could not be read: ${(err as Error).message}`,
      );
    }
    const meta = config.serverMetadata();
    // Discovery must describe the configured issuer exactly (OpenID Connect Discovery 1.0 section 4.3).
    if (meta.issuer !== settings.issuer)
      throw new UpstreamError('server_error', `the discovery document of ${provider.alias} names another issuer`);
    if (Object.keys(explicit).length) {
      // The metadata as data (serverMetadata() adds helper methods), with the explicit endpoints over it.
      const discovered = JSON.parse(JSON.stringify(meta)) as oidc.ServerMetadata;
      config = new oidc.Configuration({ ...discovered, ...explicit }, settings.clientId, clientMetadata, clientAuth);
      config[oidc.customFetch] = fetchFn;
      if (insecure) oidc.allowInsecureRequests(config);
    }
  }
  configurations.set(key, { config });
  return config;
}

/** What the interaction keeps between the redirect to the OP and its answer. */
export interface OidcPending {
  alias: string;
  state: string;
  nonce: string;
  codeVerifier?: string;
  at: number;
}

export async function authorizationRedirect(
  config: oidc.Configuration,
  settings: UpstreamOidcSettings,
  redirectUri: string,
  extra: { loginHint?: string; prompt?: string; maxAge?: number },
): Promise<{ url: URL; pending: Omit<OidcPending, 'alias' | 'at'> }> {
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = settings.pkce ? oidc.randomPKCECodeVerifier() : undefined;
  const params: Record<string, string> = {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: [...new Set(['openid', ...settings.scopes])].join(' '),
    state,
    nonce,
    ...(codeVerifier
      ? { code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256' }
      : {}),
    ...(settings.acrValues?.length ? { acr_values: settings.acrValues.join(' ') } : {}),
    ...(extra.loginHint ? { login_hint: extra.loginHint } : {}),
    ...(extra.prompt ? { prompt: extra.prompt } : {}),
    ...(extra.maxAge !== undefined ? { max_age: String(extra.maxAge) } : {}),
  };
  return {
    url: oidc.buildAuthorizationUrl(config, params),
    pending: { state, nonce, ...(codeVerifier ? { codeVerifier } : {}) },
  };
}

export interface OidcSignInResult {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  idToken: string;
}

/**
 * The OP's answer at our redirect URI: the code exchanged with every check openid-client makes (state, RFC 9207 iss
 * when the OP supports it, ID token signature, iss, aud, azp, exp, nonce; PKCE), then UserInfo if asked for.
 */
export async function finishAuthorization(
  config: oidc.Configuration,
  settings: UpstreamOidcSettings,
  callbackUrl: URL,
  redirectUri: string,
  pending: OidcPending,
  /** The client's max_age: the upstream's auth_time must be within it (openid-client checks). */
  maxAge?: number,
): Promise<OidcSignInResult> {
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(
      config,
      callbackUrl,
      {
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
        ...(pending.codeVerifier ? { pkceCodeVerifier: pending.codeVerifier } : {}),
        ...(maxAge !== undefined ? { maxAge } : {}),
      },
      { redirect_uri: redirectUri },
    );
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    // The OP's own error (after state was checked): its code only, never its free text on our page.
    if (err instanceof oidc.AuthorizationResponseError)
      throw new UpstreamError('access_denied', `the upstream provider refused the sign-in (${err.error.slice(0, 64)})`);
    throw new UpstreamError('access_denied', `the upstream sign-in could not be verified: ${reasonOf(err)}`);
  }
  const idClaims = tokens.claims();
  const idToken = tokens.id_token;
  if (!idClaims || !idToken) throw new UpstreamError('access_denied', 'the upstream provider returned no ID token');
  let claims: Record<string, unknown> = { ...idClaims };
  if (settings.fetchUserinfo && config.serverMetadata().userinfo_endpoint) {
    try {
      const {
        amr: _amr,
        acr: _acr,
        auth_time: _authTime,
        ...info
      } = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      // The ID token's claims win: they are signed; UserInfo only adds what it lacks, and never how or when the
      // person authenticated (that is a fact of this sign-in's ID token only).
      claims = { ...info, ...claims };
    } catch (err) {
      throw new UpstreamError('access_denied', `the upstream UserInfo could not be read: ${(err as Error).message}`);
    }
  }
  const subjectValue = claims[settings.subjectClaim];
  if (typeof subjectValue !== 'string' || !subjectValue)
    throw new UpstreamError('access_denied', `the upstream sign-in carries no ${settings.subjectClaim} claim`);
  return { issuer: idClaims.iss, subject: subjectValue, claims, idToken };
}

/** The upstream ID token kept for logout (id_token_hint) is a credential: stored sealed, bound to its provider. */
const idTokenContext = (tenantId: number, alias: string) => `upstream-id-token:${tenantId}:${alias}`;
export const sealIdToken = (kek: KeyEncryptionKey, tenantId: number, alias: string, idToken: string) =>
  kek.encrypt(idToken, idTokenContext(tenantId, alias));
/** The ID token, or undefined when it does not open (written by an older version, or for another provider). */
export function openIdToken(
  kek: KeyEncryptionKey,
  tenantId: number,
  alias: string,
  sealed: string,
): string | undefined {
  try {
    return kek.decrypt(sealed, idTokenContext(tenantId, alias));
  } catch {
    return undefined;
  }
}

/** openid-client's message, with the claim a failed comparison names (its cause): "nonce", "iss", "aud"... */
function reasonOf(err: unknown): string {
  const e = err as { message?: unknown; error?: unknown; cause?: { claim?: unknown; cause?: { claim?: unknown } } };
  const claim = e.cause?.claim ?? e.cause?.cause?.claim;
  // An OAuth error the OP answered at its token endpoint (invalid_client, invalid_grant...): its code.
  const detail = typeof claim === 'string' ? claim : typeof e.error === 'string' ? e.error.slice(0, 64) : undefined;
  return `${typeof e.message === 'string' ? e.message : 'unknown error'}${detail ? ` (${detail})` : ''}`;
}

/** RP-initiated logout at the OP (OpenID Connect RP-Initiated Logout 1.0), or undefined when it has none. */
export function endSessionUrl(
  config: oidc.Configuration,
  idTokenHint: string | undefined,
  postLogoutRedirectUri: string,
  state: string,
): URL | undefined {
  if (!config.serverMetadata().end_session_endpoint) return undefined;
  return oidc.buildEndSessionUrl(config, {
    post_logout_redirect_uri: postLogoutRedirectUri,
    state,
    ...(idTokenHint ? { id_token_hint: idTokenHint } : { client_id: config.clientMetadata().client_id }),
  });
}
