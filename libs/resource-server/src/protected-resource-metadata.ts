/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata: the document an API publishes so that a client holding only the
 * API's URL (or a 401 with `resource_metadata`) learns which authorization server issues its tokens, which scopes it
 * knows and how tokens must be presented. Framework-neutral: a builder and the well-known URL of a resource.
 */

export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

export interface ProtectedResourceMetadataOptions {
  /** The resource identifier: an https URL without fragment (the `aud` of its tokens; http only on loopback). */
  resource: string;
  /** Issuers of the authorization servers that issue tokens for it. */
  authorizationServers: readonly string[];
  /** Scopes the resource uses (recommended). */
  scopesSupported?: readonly string[];
  /** DPoP proof algorithms accepted (RFC 9728 `dpop_signing_alg_values_supported`). */
  dpopSigningAlgValuesSupported?: readonly string[];
  /** True when every token must be DPoP-bound. */
  dpopBoundAccessTokensRequired?: boolean;
  /** Human-readable name. */
  resourceName?: string;
  /** URL of documentation for developers. */
  resourceDocumentation?: string;
  /** How tokens may be sent (default ["header"]: the Authorization header only). */
  bearerMethodsSupported?: ReadonlyArray<'header' | 'body' | 'query'>;
}

/** The document (RFC 9728 section 2), member names as the RFC spells them. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  scopes_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  resource_name?: string;
  resource_documentation?: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** Parses an https URL (http on loopback hosts only), without fragment or credentials; a TypeError names `what` otherwise. */
export function secureUrl(value: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new TypeError(`${what} must be an absolute URL`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK.test(u.hostname)))
    throw new TypeError(`${what} must be an https URL (http only on loopback)`);
  if (u.hash || value.includes('#')) throw new TypeError(`${what} must not contain a fragment`);
  if (u.username || u.password) throw new TypeError(`${what} must not contain credentials`);
  return u;
}

/** The path of a resource's metadata: the well-known prefix, then the resource's path (RFC 9728 section 3.1). */
export function protectedResourceMetadataPath(resource: string): string {
  const u = secureUrl(resource, 'resource');
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return `${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/** The URL of a resource's metadata, e.g. `https://api.example/orders` → `https://api.example/.well-known/oauth-protected-resource/orders`. */
export function protectedResourceMetadataUrl(resource: string): string {
  const u = secureUrl(resource, 'resource');
  return `${u.origin}${protectedResourceMetadataPath(resource)}${u.search}`;
}

/** Builds and checks the document. Configuration mistakes are TypeErrors. */
export function protectedResourceMetadata(o: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  secureUrl(o.resource, 'resource');
  if (!o.authorizationServers.length) throw new TypeError('authorizationServers: at least one issuer is required');
  o.authorizationServers.forEach((s, i) => secureUrl(s, `authorizationServers[${i}]`));
  if (o.resourceDocumentation !== undefined) secureUrl(o.resourceDocumentation, 'resourceDocumentation');
  return {
    resource: o.resource,
    authorization_servers: [...o.authorizationServers],
    bearer_methods_supported: [...(o.bearerMethodsSupported ?? ['header'])],
    ...(o.scopesSupported ? { scopes_supported: [...o.scopesSupported] } : {}),
    ...(o.dpopSigningAlgValuesSupported?.length
      ? { dpop_signing_alg_values_supported: [...o.dpopSigningAlgValuesSupported] }
      : {}),
    ...(o.dpopBoundAccessTokensRequired !== undefined
      ? { dpop_bound_access_tokens_required: o.dpopBoundAccessTokensRequired }
      : {}),
    ...(o.resourceName !== undefined ? { resource_name: o.resourceName } : {}),
    ...(o.resourceDocumentation !== undefined ? { resource_documentation: o.resourceDocumentation } : {}),
  };
}
