import type { createLocalJWKSet, JWTPayload } from 'jose';
import { oauthErrors } from '@idp/errors';
import { ResourceServerError, verifyJwtAccessToken, type RefusalReason } from '@idp/resource-server';
import { CLAIM_NHE_DELEGATION } from '@idp/tokens';
import { actorChainOf, MAX_CHAIN_DEPTH_LIMIT, type ParentToken, type SignInFacts } from '@idp/delegation';

type KeySet = ReturnType<typeof createLocalJWKSet>;

export interface VerifiedSubject {
  userId: string;
  clientId: string;
  payload: JWTPayload;
  /** `cnf.jkt` of a DPoP-bound subject token: the exchange needs a proof made with that key. */
  jkt?: string;
  /** A delegation token handed on (a delegation chain): its actors, scopes, audience, exp, jti and iat. */
  parent?: ParentToken & { jti: string; iat: number; act: unknown };
}

/** What the exchange may hand on, asked only when the subject token is a delegation token (one read, rare path). */
export interface SubjectTokenOptions {
  /** The tenant's settings.nhe.maxChainDepth (1: no hand-on, the spec's behaviour). */
  maxChainDepth?: () => Promise<number>;
}

/** The invalid_grant description for each refusal of the shared verifier (the exchange's wording, kept stable). */
function describe(reason: RefusalReason, message: string): string {
  switch (reason) {
    case 'expired':
      return 'subject_token has expired';
    case 'claim_invalid':
    case 'not_yet_valid':
      return 'subject_token was not issued by this tenant';
    case 'non_canonical_encoding':
      return 'subject_token is not canonical base64url (padding or characters outside the alphabet)';
    case 'cnf_unsupported':
    case 'cnf_malformed':
      return message.replace(/^the access token /, 'subject_token ');
    default:
      return 'subject_token is not a valid access token of this tenant';
  }
}

/**
 * Verifies the user's access token with the shared verifier (@idp/resource-server): a canonical compact JWS signed
 * by this tenant's key, issued by this tenant, unexpired, a JWT access token (typ at+jwt), with no `cnf` member
 * other than `jkt`; then: for a human (not a client-credentials token), issued to the client that exchanges it,
 * and not itself an NHE token (no re-delegation) unless the tenant allows delegation chains (then
 * the delegation token's chain is returned as `parent`). Any failure is invalid_grant.
 */
export async function verifySubjectToken(
  token: string,
  keySet: KeySet,
  issuer: string,
  clientId: string,
  options: SubjectTokenOptions = {},
): Promise<VerifiedSubject> {
  // An access token requested without `resource` is opaque (good for UserInfo only): say what to do instead.
  if (/^[A-Za-z0-9_-]{20,}$/.test(token)) {
    throw oauthErrors.invalidGrant(
      'subject_token is an opaque access token: sign the user in with a resource parameter to get a JWT access token to exchange',
    );
  }
  let payload: JWTPayload;
  let jkt: string | undefined;
  try {
    const verified = await verifyJwtAccessToken(token, {
      key: keySet,
      issuer,
      typ: 'at+jwt',
      algorithms: ['ES256', 'RS256'],
    });
    payload = verified.payload;
    jkt = verified.binding?.jkt;
  } catch (err) {
    if (err instanceof ResourceServerError) throw oauthErrors.invalidGrant(describe(err.reason, err.message));
    throw err;
  }
  let parent: VerifiedSubject['parent'];
  if (payload[CLAIM_NHE_DELEGATION] === true || payload.act !== undefined) {
    // The spec: no re-delegation, unless the tenant allows delegation chains (settings.nhe.maxChainDepth above 1).
    const refused = () => oauthErrors.invalidGrant('subject_token is a delegated token and cannot be exchanged again');
    if (!options.maxChainDepth || (await options.maxChainDepth()) <= 1) throw refused();
    const actors = payload[CLAIM_NHE_DELEGATION] === true ? actorChainOf(payload.act, MAX_CHAIN_DEPTH_LIMIT) : null;
    const audience = typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud : [];
    if (
      !actors ||
      typeof payload.jti !== 'string' ||
      typeof payload.exp !== 'number' ||
      typeof payload.iat !== 'number' ||
      typeof payload.azp !== 'number'
    ) {
      throw oauthErrors.invalidGrant('subject_token is a delegated token whose act claim is not a chain of NHE actors');
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    parent = { actors, scopes, audience, exp: payload.exp, jti: payload.jti, iat: payload.iat, act: payload.act };
  }
  const sub = payload.sub;
  const tokenClient = payload.client_id;
  if (typeof sub !== 'string' || typeof tokenClient !== 'string' || sub === tokenClient) {
    throw oauthErrors.invalidGrant('subject_token does not represent a user');
  }
  if (tokenClient !== clientId) throw oauthErrors.invalidGrant('subject_token was issued to another client');
  return { userId: sub, clientId: tokenClient, payload, ...(jkt ? { jkt } : {}), ...(parent ? { parent } : {}) };
}

/**
 * The user's sign-in as the verified subject token states it (RFC 9068 section 2.2.1: `acr`, `amr`, `auth_time`),
 * for phishing-resistant delegation: its acr, its amr and its age (now minus auth_time). Members the token lacks or
 * has in another shape are left out (an unknown sign-in never meets a requirement).
 */
export function signInOf(payload: JWTPayload, nowSeconds = Date.now() / 1000): SignInFacts {
  return signInOfForwarded({ acr: payload.acr, amr: payload.amr, authTime: payload.auth_time }, nowSeconds);
}

/** The same facts from oidc-core's forwarded sign-in (an agent client's redeemed code: acr, amr, auth time). */
export function signInOfForwarded(
  payload: { acr?: unknown; amr?: unknown; authTime?: unknown },
  nowSeconds = Date.now() / 1000,
): SignInFacts {
  const amr = Array.isArray(payload.amr) ? payload.amr.filter((v): v is string => typeof v === 'string') : undefined;
  return {
    ...(typeof payload.acr === 'string' ? { acr: payload.acr } : {}),
    ...(amr ? { amr } : {}),
    ...(typeof payload.authTime === 'number' && Number.isFinite(payload.authTime)
      ? { ageSeconds: nowSeconds - payload.authTime }
      : {}),
  };
}
