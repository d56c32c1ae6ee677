import type { JWTPayload } from 'jose';
import type { Models } from '@idp/db';
import { oauthErrors } from '@idp/errors';
import { CLAIM_GRANT_ID } from '@idp/tokens';

/**
 * The grant behind a user's JWT access token must still be live for the token to be exchanged: revoking the
 * refresh token, signing out (without offline_access), reusing a code or deleting the client's grants ends the
 * grant, and from then on its access tokens delegate nothing (introspection answers them inactive the same way).
 * The grant is node-oidc-provider's record in `oidc_payloads` (`{tenantId}:Grant:{id}`, JSON text). A token that
 * names no grant (issued before tokens carried the reference) is not checked: it expires within its lifetime.
 */
export async function assertSubjectGrantLive(models: Models, tenantId: number, payload: JWTPayload, clientId: string, userId: string): Promise<void> {
  const grantId = payload[CLAIM_GRANT_ID];
  if (grantId === undefined) return;
  const refused = () => oauthErrors.invalidGrant('subject_token was issued under a grant that has ended (revoked or signed out)');
  if (typeof grantId !== 'string' || grantId.length > 128) throw refused();
  const doc = await models.OidcPayload.findById(`${tenantId}:Grant:${grantId}`, { payload: 1, expiresAt: 1 }).lean<{ payload?: string; expiresAt?: Date }>();
  if (!doc || typeof doc.payload !== 'string') throw refused();
  if (doc.expiresAt && doc.expiresAt.getTime() <= Date.now()) throw refused();
  let grant: { clientId?: unknown; accountId?: unknown; exp?: unknown };
  try {
    grant = JSON.parse(doc.payload) as typeof grant;
  } catch {
    throw refused();
  }
  if (grant.clientId !== clientId || grant.accountId !== userId) throw refused();
  if (typeof grant.exp === 'number' && grant.exp <= Math.floor(Date.now() / 1000)) throw refused();
}
