import type { KeyStore } from '@idp/tokens';
import type { TenantKeyMaterial } from './exchange';

/** Tenant keys for a short while in memory: rotation reaches the sidecar within `ttlMs`. */
export function cachedKeys(keyStore: KeyStore, ttlMs: number): ((tenantId: number) => Promise<TenantKeyMaterial>) & { invalidate: (tenantId: number) => void } {
  const cache = new Map<number, { at: number; value: Promise<TenantKeyMaterial> }>();
  const get = (tenantId: number) => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = keyStore.load(tenantId).then((keys) => {
      const signing = keys.signing.find((k) => k.alg === 'ES256');
      if (!signing) throw new Error(`tenant ${tenantId} has no active ES256 key`);
      return { publicJwks: keys.publicJwks as TenantKeyMaterial['publicJwks'], signing };
    });
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  return Object.assign(get, { invalidate: (tenantId: number) => void cache.delete(tenantId) });
}
