/**
 * A strict RFC 9068 ("JWT Profile for OAuth 2.0 Access Tokens") check, as a stock resource-server validator applies
 * it (Authlib's JWTBearerTokenValidator, jwx, ...), written from the RFC and independent of the product's own
 * verifier so that it can catch what the product gets wrong:
 * - section 2.1: a JWS (never `alg: none`, an asymmetric algorithm) with `typ: at+jwt`; the signature verifies with a
 *   key of the issuer's JWKS;
 * - section 2.2: `iss`, `exp`, `aud`, `sub`, `client_id`, `iat` and `jti` are present with their types
 *   (NumericDate numbers, strings, `aud` a string or a non-empty array of strings);
 * - sections 2.2.1 to 2.2.3: `auth_time`, `acr`, `amr`, `scope`, `groups`, `roles` and `entitlements`, when present,
 *   have their types;
 * - section 4: `iss` is the expected issuer, `aud` names the expected resource, `exp` is in the future and `iat` not
 *   in the future.
 * Returns every problem found (empty when the token conforms); `expectRfc9068AccessToken` throws with all of them.
 */
import { compactVerify, createLocalJWKSet, decodeProtectedHeader, type JSONWebKeySet } from 'jose';

export interface Rfc9068Expectations {
  /** The authorization server's issuer identifier. */
  issuer: string;
  /** The issuer's published keys (the document at its jwks_uri). */
  jwks: JSONWebKeySet;
  /** The resource the token must be for (one of its `aud` values), when known. */
  audience?: string;
  /** The OAuth client the token must have been issued to, when known. */
  clientId?: string;
  /** Allowed clock skew in seconds (default 0). */
  clockSkew?: number;
}

export interface Rfc9068Token {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

const SYMMETRIC = /^(HS|none$)/i;
const isNumericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((e) => typeof e === 'string');

/** The RFC 9068 problems of `token` (empty when it conforms). */
export async function rfc9068Problems(
  token: string,
  o: Rfc9068Expectations,
): Promise<{ problems: string[]; token?: Rfc9068Token }> {
  const problems: string[] = [];
  const parts = token.split('.');
  if (parts.length !== 3) return { problems: [`not a JWS in compact serialization (${parts.length} segments)`] };
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    return { problems: ['the protected header is not valid JSON'] };
  }
  if (header.typ !== 'at+jwt') problems.push(`header typ is ${JSON.stringify(header.typ)}, not "at+jwt" (section 2.1)`);
  if (typeof header.alg !== 'string' || SYMMETRIC.test(header.alg))
    problems.push(`header alg ${JSON.stringify(header.alg)} is not an asymmetric JWS algorithm (section 2.1)`);
  if ('crit' in header) problems.push('header carries crit, which a stock validator refuses');
  let parsed: unknown;
  try {
    const verified = await compactVerify(token, createLocalJWKSet(o.jwks));
    parsed = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch (err) {
    problems.push(`the signature does not verify with the issuer's JWKS (${(err as Error).message})`);
    return { problems };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { problems: [...problems, 'the payload is not a JSON object'] };
  const payload = parsed as Record<string, unknown>;

  // Section 2.2: required claims and their types.
  if (typeof payload.iss !== 'string') problems.push('iss is missing or not a string (section 2.2)');
  if (!isNumericDate(payload.exp)) problems.push('exp is missing or not a NumericDate (section 2.2)');
  const aud = payload.aud;
  if (!(typeof aud === 'string' && aud.length) && !(isStringArray(aud) && aud.length))
    problems.push('aud is missing, empty or not a string / array of strings (section 2.2)');
  if (typeof payload.sub !== 'string' || !payload.sub) problems.push('sub is missing or not a string (section 2.2)');
  if (typeof payload.client_id !== 'string' || !payload.client_id)
    problems.push('client_id is missing or not a string (section 2.2)');
  if (!isNumericDate(payload.iat)) problems.push('iat is missing or not a NumericDate (section 2.2)');
  if (typeof payload.jti !== 'string' || !payload.jti) problems.push('jti is missing or not a string (section 2.2)');

  // Sections 2.2.1 to 2.2.3: optional claims, typed when present.
  if ('auth_time' in payload && !isNumericDate(payload.auth_time))
    problems.push('auth_time is not a NumericDate (section 2.2.1)');
  if ('acr' in payload && typeof payload.acr !== 'string') problems.push('acr is not a string (section 2.2.1)');
  if ('amr' in payload && !isStringArray(payload.amr)) problems.push('amr is not an array of strings (section 2.2.1)');
  if (
    'scope' in payload &&
    (typeof payload.scope !== 'string' ||
      !/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/.test(payload.scope))
  ) {
    problems.push('scope is not a space-delimited string of scope tokens (section 2.2.3)');
  }
  for (const claim of ['groups', 'roles', 'entitlements'])
    if (claim in payload && !isStringArray(payload[claim]))
      problems.push(`${claim} is not an array of strings (section 2.2.3.1)`);

  // Section 4: validation by the resource server.
  const now = Math.floor(Date.now() / 1000);
  const skew = o.clockSkew ?? 0;
  if (payload.iss !== o.issuer)
    problems.push(
      `iss ${JSON.stringify(payload.iss)} is not the expected issuer ${JSON.stringify(o.issuer)} (section 4)`,
    );
  if (o.audience !== undefined) {
    const audiences = typeof aud === 'string' ? [aud] : isStringArray(aud) ? aud : [];
    if (!audiences.includes(o.audience))
      problems.push(`aud ${JSON.stringify(aud)} does not name ${JSON.stringify(o.audience)} (section 4)`);
  }
  if (o.clientId !== undefined && payload.client_id !== o.clientId)
    problems.push(`client_id ${JSON.stringify(payload.client_id)} is not ${JSON.stringify(o.clientId)}`);
  if (isNumericDate(payload.exp) && payload.exp <= now - skew) problems.push('exp is in the past (section 4)');
  if (isNumericDate(payload.iat) && payload.iat > now + skew) problems.push('iat is in the future');
  if (isNumericDate(payload.exp) && isNumericDate(payload.iat) && payload.exp <= payload.iat)
    problems.push('exp is not after iat');
  return { problems, token: { header, payload } };
}

/** Asserts that `token` is an RFC 9068 access token; returns its header and claims. */
export async function expectRfc9068AccessToken(token: string, o: Rfc9068Expectations): Promise<Rfc9068Token> {
  const { problems, token: parsed } = await rfc9068Problems(token, o);
  if (problems.length || !parsed) throw new Error(`not an RFC 9068 access token:\n- ${problems.join('\n- ')}`);
  return parsed;
}
