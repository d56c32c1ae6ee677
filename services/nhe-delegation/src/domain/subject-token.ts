import { jwtVerify, type createLocalJWKSet, type JWTPayload } from 'jose';

type KeySet = ReturnType<typeof createLocalJWKSet>;
import { oauthErrors } from '@idp/errors';
import { CLAIM_NHE_DELEGATION } from '@idp/tokens';

export interface VerifiedSubject {
  userId: string;
  clientId: string;
  payload: JWTPayload;
}

/**
 * Verifies the user's access token: signed by this tenant's key, issued by this tenant, unexpired, a JWT access
 * token (typ at+jwt), for a human (not a client-credentials token), issued to the client that exchanges it, and
 * not itself an NHE token (no re-delegation). Any failure is invalid_grant.
 */
export async function verifySubjectToken(token: string, keySet: KeySet, issuer: string, clientId: string): Promise<VerifiedSubject> {
  // An access token requested without `resource` is opaque (good for UserInfo only): say what to do instead.
  if (/^[A-Za-z0-9_-]{20,}$/.test(token)) {
    throw oauthErrors.invalidGrant('subject_token is an opaque access token: sign the user in with a resource parameter to get a JWT access token to exchange');
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keySet, { issuer, typ: 'at+jwt', algorithms: ['ES256', 'RS256'] }));
  } catch (err) {
    const code = (err as { code?: string }).code;
    const reason = code === 'ERR_JWT_EXPIRED' ? 'subject_token has expired' : code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' ? 'subject_token was not issued by this tenant' : 'subject_token is not a valid access token of this tenant';
    throw oauthErrors.invalidGrant(reason);
  }
  if (payload[CLAIM_NHE_DELEGATION] === true || payload.act !== undefined) {
    throw oauthErrors.invalidGrant('subject_token is a delegated token and cannot be exchanged again');
  }
  const sub = payload.sub;
  const tokenClient = payload.client_id;
  if (typeof sub !== 'string' || typeof tokenClient !== 'string' || sub === tokenClient) {
    throw oauthErrors.invalidGrant('subject_token does not represent a user');
  }
  if (tokenClient !== clientId) throw oauthErrors.invalidGrant('subject_token was issued to another client');
  return { userId: sub, clientId: tokenClient, payload };
}
