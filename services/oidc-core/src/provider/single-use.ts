/**
 * Single use across replicas: true the first time `what` happens to a stored record (a redemption, a decision), false
 * after. A unique `_id` insert, not a conditional update: FerretDB loses concurrent conditional updates
 * (docs/operators/local-store.md), a duplicate key it does not, and MongoDB is atomic either way, so exactly one of two
 * replicas wins. The marker expires with the record (at the latest a day later); the store's sweeper removes it.
 */
import type { Models } from '@idp/db';
import { isDuplicateKeyError } from '@idp/errors';

const DEFAULT_MARKER_TTL_MS = 86_400_000;

export async function firstTimeFor(
  models: Models,
  tenantId: number,
  model: string,
  what: string,
  id: string,
  expiresAt?: Date,
): Promise<boolean> {
  try {
    await models.OidcPayload.collection.insertOne({
      _id: `${tenantId}:${model}Once:${what}:${id}` as never,
      tenantId,
      model: `${model}Once`,
      payload: '{}',
      expiresAt:
        expiresAt && expiresAt.getTime() > Date.now() ? expiresAt : new Date(Date.now() + DEFAULT_MARKER_TTL_MS),
    });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}
