import type { JSONWebKeySet } from 'jose';
import type { Models } from '@idp/db';
import type { KeyStore } from '@idp/tokens';

/** Public keys (and the system flag) of a tenant, cached for `ttlMs`. */
export function tenantKeyLookup(models: Models, keyStore: KeyStore, ttlMs: number) {
  const cache = new Map<number, { at: number; value: Promise<{ jwks: JSONWebKeySet; system: boolean } | undefined> }>();
  return (tenantId: number) => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = (async () => {
      const tenant = await models.Tenant.findById(tenantId, { system: 1 }).lean();
      if (!tenant) return undefined;
      const keys = await keyStore.load(tenantId);
      return { jwks: keys.publicJwks as JSONWebKeySet, system: tenant.system === true };
    })();
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
}
