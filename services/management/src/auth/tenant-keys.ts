import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Models } from '@idp/db';
import type { KeyStore } from '@idp/tokens';

/** The tenant's public keys, imported once per cached entry (never per request), and its system flag; none while disabled. */
export type TenantKeys = { keySet: ReturnType<typeof createLocalJWKSet>; system: boolean } | undefined;

/** Fastest re-read of a tenant's keys forced by a token with an unknown kid (bounds the cost of forged kids). */
const MIN_REFRESH_INTERVAL_MS = 5_000;

/**
 * Public keys (and the system flag) of a tenant, cached for `ttlMs`. `refresh` drops a cached entry older than
 * 5 seconds: a token signed by a key rotated in after the entry was cached verifies at once instead of after the TTL.
 */
export function tenantKeyLookup(models: Models, keyStore: KeyStore, ttlMs: number) {
  const cache = new Map<number, { at: number; value: Promise<TenantKeys> }>();
  const get = (tenantId: number): Promise<TenantKeys> => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = (async () => {
      const tenant = await models.Tenant.findById(tenantId, { system: 1, enabled: 1 }).lean();
      // A disabled tenant's tokens are refused like an unknown tenant's (the system tenant is never disabled).
      if (!tenant || tenant.enabled === false) return undefined;
      const keys = await keyStore.load(tenantId);
      return { keySet: createLocalJWKSet(keys.publicJwks as JSONWebKeySet), system: tenant.system === true };
    })();
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  const refresh = (tenantId: number): boolean => {
    const hit = cache.get(tenantId);
    if (!hit || Date.now() - hit.at < MIN_REFRESH_INTERVAL_MS) return false;
    cache.delete(tenantId);
    return true;
  };
  return Object.assign(get, { refresh });
}
