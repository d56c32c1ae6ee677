import { isDuplicateKeyError } from '@idp/errors';
import type { Models } from './models';

/** Lifetime of a replay record when the caller names none (a proof's acceptance window is shorter). */
const DEFAULT_TTL_MS = 5 * 60 * 1000;

/**
 * The DPoP proof replay cache shared by every replica and every verifier of a tenant (the sidecar's token
 * endpoint, the management API): one `oidc_payloads` record per accepted proof, `_id`
 * `{tenantId}:DPoPProof:{key}` with key `{jkt}:{jti}`, removed by the collection's TTL index after `expiresAt`.
 * The unique `_id` makes the check atomic: the second insert of a key fails, on whichever replica it runs.
 * Structurally a `ReplayStore` of @idp/resource-server (remember resolves true when the key was new).
 */
export function dpopProofReplayStore(
  models: Models,
  tenantId: number,
): { remember(key: string, expiresAt?: Date): Promise<boolean> } {
  return singleUseStore(models, tenantId, 'DPoPProof');
}

/**
 * The same store for another kind of single-use value (`kind` is the record's model, e.g. `ActorToken` for the
 * jti of actor tokens at token exchange): `{tenantId}:{kind}:{key}`, one unique insert per use, every replica.
 */
export function singleUseStore(
  models: Models,
  tenantId: number,
  kind: string,
): { remember(key: string, expiresAt?: Date): Promise<boolean> } {
  return {
    async remember(key, expiresAt) {
      try {
        // The driver's insert, not a mongoose document: this runs once per proof on the token-exchange hot path, and
        // the record has nothing to validate (bench/token-exchange/actor-proof.js).
        await models.OidcPayload.collection.insertOne({
          _id: `${tenantId}:${kind}:${key}` as never,
          tenantId,
          model: kind,
          payload: '{}',
          expiresAt: expiresAt ?? new Date(Date.now() + DEFAULT_TTL_MS),
        });
        return true;
      } catch (err) {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      }
    },
  };
}
