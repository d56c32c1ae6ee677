/**
 * What the consent page shows of a client that registered itself (RFC 7591 section 2: `logo_uri`, `policy_uri`,
 * `tos_uri`; Dynamic Client Registration 1.0 section 2 asks the OP to display them to the End-User). Only https URLs:
 * the logo is loaded by the person's browser under the page's CSP (img-src grants that one origin for that page),
 * never fetched by the server; the links open without a referrer or an opener.
 */

export interface ClientPresentation {
  logoUri?: string;
  policyUri?: string;
  tosUri?: string;
}

const MAX_URI_LENGTH = 2048;

/**
 * A host name of letters, digits, `-`, `_` and dots, or an IP literal. The URL parser accepts hosts such as `*` or
 * `a;b`; in the page's CSP `*` would be a wildcard (CSP Level 3 section 2.3.1, host-part: the logo's path on every
 * host) and the others are no valid source, so such a URL is not shown.
 */
export const PLAIN_HOST = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?$|^\[[0-9a-f:.]+\]$/;

/** The URL when it is an absolute https URL with a plain host and without user info; undefined otherwise. */
export function httpsUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URI_LENGTH) return undefined;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && !u.username && !u.password && PLAIN_HOST.test(u.hostname) ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** node-oidc-provider's client (camel-cased metadata) as the consent page reads it. */
export function registeredClientPresentation(
  client: { logoUri?: unknown; policyUri?: unknown; tosUri?: unknown } | undefined,
): ClientPresentation {
  const logoUri = httpsUrl(client?.logoUri);
  const policyUri = httpsUrl(client?.policyUri);
  const tosUri = httpsUrl(client?.tosUri);
  return {
    ...(logoUri ? { logoUri } : {}),
    ...(policyUri ? { policyUri } : {}),
    ...(tosUri ? { tosUri } : {}),
  };
}
