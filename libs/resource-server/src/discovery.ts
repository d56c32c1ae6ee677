/**
 * Authorization server metadata discovery: OpenID Connect Discovery 1.0 (`{issuer}/.well-known/openid-configuration`)
 * first, then RFC 8414 (`{origin}/.well-known/oauth-authorization-server{path}`). A document counts only when its
 * `issuer` is the configured issuer character for character (RFC 8414 section 3.3, OIDC Discovery section 4.3) and
 * its `jwks_uri` is an absolute https URL (http only when the issuer itself is http, for development).
 */
import { VerifierUnavailableError } from './errors';

/** The members of the authorization server's metadata the verifier reads; the rest is kept as is. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri: string;
  dpop_signing_alg_values_supported?: string[];
  scopes_supported?: string[];
  [member: string]: unknown;
}

/** A fetch the verifier may use instead of the global one (the argument shapes jose's `customFetch` uses too). */
export type FetchLike = (
  url: string,
  init: { method: 'GET'; headers: Headers; redirect: 'manual'; signal: AbortSignal },
) => Promise<Response>;

export interface DiscoveryOptions {
  fetch?: FetchLike;
  /** Per request, in milliseconds (default 5000). */
  timeoutMs?: number;
}

/** The two places the metadata of `issuer` may live, in the order they are tried. */
export function discoveryUrls(issuer: string): [oidc: string, rfc8414: string] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

const MAX_DOCUMENT = 256 * 1024;

async function fetchDocument(url: string, o: DiscoveryOptions): Promise<unknown> {
  const fetchImpl: FetchLike = o.fetch ?? ((u, init) => globalThis.fetch(u, init));
  const res = await fetchImpl(url, {
    method: 'GET',
    headers: new Headers({ accept: 'application/json' }),
    redirect: 'manual',
    signal: AbortSignal.timeout(o.timeoutMs ?? 5000),
  });
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new Error(`${url} answered ${res.status}`);
  }
  const text = await res.text();
  if (text.length > MAX_DOCUMENT) throw new Error(`${url} is larger than ${MAX_DOCUMENT} characters`);
  return JSON.parse(text) as unknown;
}

/** Checks one metadata document against the configured issuer; a string says why it does not count. */
export function metadataProblem(doc: unknown, issuer: string): string | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return 'is not a JSON object';
  const m = doc as Record<string, unknown>;
  if (m.issuer !== issuer) return `names issuer ${JSON.stringify(m.issuer)}, not ${JSON.stringify(issuer)}`;
  if (typeof m.jwks_uri !== 'string') return 'has no jwks_uri';
  let jwks: URL;
  try {
    jwks = new URL(m.jwks_uri);
  } catch {
    return 'has a jwks_uri that is not an absolute URL';
  }
  const issuerHttps = issuer.startsWith('https:');
  if (jwks.protocol !== 'https:' && (issuerHttps || jwks.protocol !== 'http:'))
    return 'has a jwks_uri that is not https';
  const algs = m.dpop_signing_alg_values_supported;
  if (algs !== undefined && (!Array.isArray(algs) || algs.some((a) => typeof a !== 'string')))
    return 'has a malformed dpop_signing_alg_values_supported';
  return undefined;
}

/**
 * Fetches and checks the metadata of `issuer`. Rejects with VerifierUnavailableError naming every place tried and
 * why each did not count (unreachable, not 200, not JSON, another issuer, no usable jwks_uri).
 */
export async function discoverMetadata(issuer: string, o: DiscoveryOptions = {}): Promise<AuthorizationServerMetadata> {
  const problems: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    let doc: unknown;
    try {
      doc = await fetchDocument(url, o);
    } catch (err) {
      problems.push(err instanceof Error ? err.message : `${url}: ${String(err)}`);
      continue;
    }
    const problem = metadataProblem(doc, issuer);
    if (!problem) return doc as AuthorizationServerMetadata;
    problems.push(`${url} ${problem}`);
  }
  throw new VerifierUnavailableError(`the metadata of ${issuer} could not be discovered: ${problems.join('; ')}`);
}
