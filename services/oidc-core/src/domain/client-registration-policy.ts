/**
 * What a client that introduces itself gets: a Client ID Metadata Document's client, or one registered through RFC
 * 7591 Dynamic Client Registration. Pure rules, used by provider/client-id-metadata.ts and
 * provider/registration.ts on the client metadata node-oidc-provider has already parsed and defaulted.
 */

/** Loopback hosts of RFC 8252 section 7.3 (any port); `localhost` too, which deployed MCP clients use. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes no redirect URI may use, native or not. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'blob:',
  'about:',
  'ws:',
  'wss:',
  'ftp:',
]);

export type ApplicationType = 'web' | 'native';

/**
 * Why a redirect URI is not acceptable for a self-introduced client of `applicationType`, or undefined.
 * - never a fragment, user info, a wildcard (`*` anywhere), or a non-absolute URI;
 * - native (RFC 8252): http only on a loopback host (any port at authorization, section 7.3), https on a host that
 *   is not loopback (claimed https, section 7.2), or a private-use scheme with a dot (reverse domain, section 7.1);
 * - web: https only, and matched exactly at authorization.
 */
export function redirectUriProblem(uri: string, applicationType: ApplicationType): string | undefined {
  if (typeof uri !== 'string' || uri.length > 2048) return 'must be a URI of at most 2048 characters';
  if (uri.includes('*')) return `${uri}: wildcards are not allowed`;
  if (uri.includes('#')) return `${uri}: must not contain a fragment`;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${uri}: must be an absolute URI`;
  }
  if (u.username || u.password) return `${uri}: must not carry user info`;
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `${uri}: the ${u.protocol.slice(0, -1)} scheme is not allowed`;
  const loopback = LOOPBACK_HOSTS.has(u.hostname.toLowerCase());
  if (applicationType === 'native') {
    if (u.protocol === 'http:')
      return loopback
        ? undefined
        : `${uri}: a native client may use http only on a loopback host (127.0.0.1, [::1] or localhost)`;
    if (u.protocol === 'https:')
      return loopback ? `${uri}: a native client's loopback redirect uses http (RFC 8252 section 7.3)` : undefined;
    // Private-use scheme: reverse domain name form (RFC 8252 section 7.1).
    return u.protocol.slice(0, -1).includes('.')
      ? undefined
      : `${uri}: a private-use scheme must be a reverse domain name (e.g. com.example.app:/callback)`;
  }
  if (u.protocol !== 'https:')
    return `${uri}: a web client's redirect URI must use https (register as application_type native for a loopback redirect)`;
  if (loopback)
    return `${uri}: a web client's redirect URI must not be a loopback host (register as application_type native)`;
  return undefined;
}

export interface SelfIntroducedClientPolicy {
  /** Grant types the client may have. */
  grantTypes: readonly string[];
  /** Client authentication methods it may use. */
  tokenEndpointAuthMethods: readonly string[];
  /**
   * Whether it may register the `id_token` and `id_token token` response types (and with them the `implicit` grant
   * type): only under the OpenID Dynamic profile (OpenID Connect Core 1.0 section 15.2), and only for registration.
   */
  idTokenResponseTypes?: boolean;
}

/** Response types a self-introduced client may register: the code flow, and under the profile the ID token ones. */
const CODE_ONLY = new Set(['code']);
const WITH_ID_TOKEN = new Set(['code', 'id_token', 'id_token token']);

/** The parts of node-oidc-provider's client metadata the policy reads. */
export interface ClientMetadataView {
  application_type?: unknown;
  grant_types?: unknown;
  response_types?: unknown;
  token_endpoint_auth_method?: unknown;
  redirect_uris?: unknown;
  post_logout_redirect_uris?: unknown;
  jwks?: unknown;
  jwks_uri?: unknown;
  client_secret?: unknown;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/**
 * Why the client's metadata is outside the policy (the first reason), or undefined. The metadata is the provider's
 * view after its own checks and defaults (grant_types authorization_code, token_endpoint_auth_method
 * client_secret_basic, application_type web when the client sent none).
 */
export function clientPolicyProblem(
  m: ClientMetadataView,
  policy: SelfIntroducedClientPolicy,
  o: { requireJwksUri?: boolean } = {},
): string | undefined {
  const applicationType = m.application_type === 'native' ? 'native' : 'web';
  const method = String(m.token_endpoint_auth_method ?? '');
  if (!policy.tokenEndpointAuthMethods.includes(method)) {
    return `token_endpoint_auth_method ${method} is not allowed; use ${policy.tokenEndpointAuthMethods.join(' or ')}`;
  }
  if (m.client_secret !== undefined) return 'a client secret is not allowed';
  const grants = strings(m.grant_types);
  if (method === 'private_key_jwt') {
    if (o.requireJwksUri && m.jwks !== undefined)
      return 'private_key_jwt keys must be published at jwks_uri, not inline';
    if (o.requireJwksUri ? m.jwks_uri === undefined : m.jwks_uri === undefined && m.jwks === undefined)
      return `private_key_jwt needs ${o.requireJwksUri ? 'jwks_uri' : 'jwks_uri or jwks'}`;
  }
  const responseTypes = strings(m.response_types);
  // node-oidc-provider adds `implicit` to the grant types of a client registering an id_token response type.
  const implicitAllowed = policy.idTokenResponseTypes === true && responseTypes.some((r) => r.startsWith('id_token'));
  const forbidden = grants.filter((g) => !policy.grantTypes.includes(g) && !(g === 'implicit' && implicitAllowed));
  if (forbidden.length)
    return `grant_types ${forbidden.join(', ')} not allowed; allowed: ${policy.grantTypes.join(', ')}`;
  // RFC 6749 section 4.4: the client credentials grant is for confidential clients only; a public client would mint
  // tokens for the tenant's APIs without authenticating.
  if (method === 'none' && grants.includes('client_credentials')) {
    return 'client_credentials needs a confidential client (RFC 6749 section 4.4): token_endpoint_auth_method none cannot use it; use private_key_jwt';
  }
  const allowedResponseTypes = policy.idTokenResponseTypes === true ? WITH_ID_TOKEN : CODE_ONLY;
  for (const r of responseTypes) if (!allowedResponseTypes.has(r)) return `response_types ${r} is not allowed`;
  const redirects = strings(m.redirect_uris);
  if (grants.includes('authorization_code') && !redirects.length) return 'redirect_uris must name at least one URI';
  if (redirects.length > 20) return 'at most 20 redirect_uris';
  for (const uri of [...redirects, ...strings(m.post_logout_redirect_uris)]) {
    const problem = redirectUriProblem(uri, applicationType);
    if (problem) return problem;
  }
  return undefined;
}

/** Client authentication methods that need a secret shared with the server: registration issues none. */
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

/** Whether `uri` is an http redirect URI on a loopback host (RFC 8252 sections 7.3 and 8.3; any port). */
function isLoopbackHttp(uri: unknown): boolean {
  if (typeof uri !== 'string') return false;
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/**
 * What the server records for a registration request body (RFC 7591 section 3.2.1: the server may replace requested
 * values, and the client uses those of the answer), before node-oidc-provider reads it. Returns the values replaced.
 * - A request that names no `application_type` and whose redirect URIs are all http on a loopback host is a native
 *   client (RFC 8252: loopback redirects are what native apps use, section 7.3; `localhost` works like them though
 *   it is not recommended, section 8.3), so its redirects match on any port at request time. node-oidc-provider
 *   would default it to `web`, whose redirect URIs must be https here.
 * - A secret-based `token_endpoint_auth_method` (client_secret_basic/post/jwt), or none at all (RFC 7591's default
 *   is client_secret_basic), becomes `none` where the policy allows public clients: registration issues no secrets,
 *   so such a client is public, and the answer tells it so. Not for a request asking for client_credentials, which
 *   needs a confidential client (RFC 6749 section 4.4): it is refused as it asked.
 */
export function registrableMetadata(
  body: Record<string, unknown>,
  policy: SelfIntroducedClientPolicy,
): Partial<Record<'application_type' | 'token_endpoint_auth_method', string>> {
  const replaced: Partial<Record<'application_type' | 'token_endpoint_auth_method', string>> = {};
  const redirects = body.redirect_uris;
  if (
    body.application_type === undefined &&
    Array.isArray(redirects) &&
    redirects.length > 0 &&
    redirects.every(isLoopbackHttp)
  ) {
    replaced.application_type = body.application_type = 'native';
  }
  const method = body.token_endpoint_auth_method;
  const grants = Array.isArray(body.grant_types) ? body.grant_types : [];
  const secretBased = method === undefined || (typeof method === 'string' && SECRET_METHODS.has(method));
  if (
    secretBased &&
    body.client_secret === undefined &&
    policy.tokenEndpointAuthMethods.includes('none') &&
    !grants.includes('client_credentials')
  ) {
    replaced.token_endpoint_auth_method = body.token_endpoint_auth_method = 'none';
  }
  return replaced;
}

/**
 * Whether `host` (a URL's hostname, lower case) matches one of the patterns: `example.com` exactly, or
 * `*.example.com` for any name below example.com (not example.com itself). An empty list allows every host.
 */
export function hostAllowed(patterns: readonly string[], host: string): boolean {
  if (!patterns.length) return true;
  const h = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((raw) => {
    const p = raw.toLowerCase();
    if (p.startsWith('*.')) return h.endsWith(p.slice(1)) && h.length > p.length - 1;
    return h === p;
  });
}
