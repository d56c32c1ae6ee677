/**
 * Names the product keeps for itself: resource-server identifiers that are, or read as, a built-in audience, and the
 * `auth.` scope prefix of the management API. A tenant's resource server named `urn:IDP:management` or
 * `urn:idp:management/`, or one that registers `auth.users.update`, would mint tokens that a lenient resource server
 * (one that normalises URIs, or checks only the scope name) takes for management tokens.
 */
import { MANAGEMENT_AUDIENCE, SSF_AUDIENCE } from '@idp/tokens';

/** Audiences of the product's own APIs (every tenant has them built in). */
export const RESERVED_AUDIENCES: readonly string[] = [MANAGEMENT_AUDIENCE, SSF_AUDIENCE];

/** Scope names beginning with this (any case) belong to the management API. */
export const RESERVED_SCOPE_PREFIX = 'auth.';

const UNRESERVED = /%([0-9A-Fa-f]{2})/g;

/**
 * A comparison key under which equivalent spellings of an identifier meet: the URL parser's normal form for
 * hierarchical URIs (scheme and host case, default port, dot segments), then everything lower-cased (URN
 * namespace ids are case-insensitive, and no tenant needs two identifiers that differ only in case),
 * percent-encoded unreserved characters decoded (RFC 3986 section 6.2.2.2), and trailing `/`, `?` and `#` (an
 * empty path, query or fragment) dropped.
 */
export function audienceKey(identifier: string): string {
  let s = identifier.trim();
  try {
    const u = new URL(s);
    // Special schemes (http, https, ...) get their normal form; opaque URIs (urn:) are left as written.
    if (u.host) s = u.href;
  } catch {
    // Not a URI: compared as written.
  }
  s = s.toLowerCase().replace(UNRESERVED, (m, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return /[a-z0-9\-._~]/i.test(c) ? c.toLowerCase() : m;
  });
  return s.replace(/[/?#]+$/, '');
}

const RESERVED_KEYS = new Set(RESERVED_AUDIENCES.map(audienceKey));

/** The built-in audience an identifier stands for after normalisation, or undefined. */
export function reservedAudienceOf(identifier: string): string | undefined {
  const key = audienceKey(identifier);
  return RESERVED_KEYS.has(key) ? RESERVED_AUDIENCES.find((a) => audienceKey(a) === key) : undefined;
}

/** Whether a scope name is the management API's to define. */
export const isReservedScope = (scope: string): boolean => scope.toLowerCase().startsWith(RESERVED_SCOPE_PREFIX);
