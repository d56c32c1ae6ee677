import type { JSONWebKeySet } from 'jose';
import type { Models } from '@idp/db';
import type { KeyStore } from '@idp/tokens';

/**
 * Whether a tenant exists and its public JWKS (to verify receivers' access tokens), cached for `ttlMs`; a failed
 * read is not cached.
 */
export function tenantLookup(models: Models, keyStore: KeyStore, ttlMs: number) {
  const cache = new Map<number, { at: number; value: Promise<JSONWebKeySet | undefined> }>();
  const jwks = (tenantId: number): Promise<JSONWebKeySet | undefined> => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = (async () => {
      if (!(await models.Tenant.exists({ _id: tenantId }))) return undefined;
      return (await keyStore.load(tenantId)).publicJwks as JSONWebKeySet;
    })();
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  return { jwks, exists: async (tenantId: number) => (await jwks(tenantId)) !== undefined };
}
