import type { JWTPayload } from 'jose';
import type { Models } from '@idp/db';
import { oauthErrors } from '@idp/errors';
import { CLAIM_GRANT_ID } from '@idp/tokens';
import type { GrantReader, GrantRecord } from './grant-cache';

/**
 * Reads a grant from node-oidc-provider's records in `oidc_payloads` (`{tenantId}:Grant:{id}`, JSON text): undefined
 * when there is none or it cannot be read. Through the driver, not a mongoose query: this read is on every exchange
 * (unless cached), and the query's casting and options cost the sidecar more than the driver's read itself.
 */
export function grantReader(models: Models): GrantReader {
  return async (tenantId, grantId) => {
    const doc = await models.OidcPayload.collection.findOne<{ payload?: unknown; expiresAt?: unknown }>(
      { _id: `${tenantId}:Grant:${grantId}` as never },
      { projection: { payload: 1, expiresAt: 1 } },
    );
    if (!doc || typeof doc.payload !== 'string') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(doc.payload);
    } catch {
      return undefined;
    }
    if (!parsed || typeof parsed !== 'object') return undefined;
    const grant = parsed as { clientId?: unknown; accountId?: unknown; exp?: unknown };
    return {
      clientId: grant.clientId,
      accountId: grant.accountId,
      exp: grant.exp,
      expiresAt: doc.expiresAt instanceof Date ? doc.expiresAt : undefined,
    };
  };
}

/**
 * The grant behind a user's JWT access token must still be live for the token to be exchanged: revoking the
 * refresh token, signing out (without offline_access), reusing a code or deleting the client's grants ends the
 * grant, and from then on its access tokens delegate nothing (introspection answers them inactive the same way).
 * A token that names no grant (issued before tokens carried the reference) is not checked: it expires within its
 * lifetime. `read` is grantReader, or the grant cache in front of it (domain/grant-cache.ts).
 */
export async function assertSubjectGrantLive(
  read: GrantReader,
  tenantId: number,
  payload: JWTPayload,
  clientId: string,
  userId: string,
): Promise<void> {
  const grantId = payload[CLAIM_GRANT_ID];
  if (grantId === undefined) return;
  const refused = () =>
    oauthErrors.invalidGrant('subject_token was issued under a grant that has ended (revoked or signed out)');
  if (typeof grantId !== 'string' || grantId.length > 128) throw refused();
  const grant: GrantRecord | undefined = await read(tenantId, grantId);
  if (!grant) throw refused();
  if (grant.expiresAt && grant.expiresAt.getTime() <= Date.now()) throw refused();
  if (grant.clientId !== clientId || grant.accountId !== userId) throw refused();
  if (typeof grant.exp === 'number' && grant.exp <= Math.floor(Date.now() / 1000)) throw refused();
}
