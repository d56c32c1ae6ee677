import type { JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { KeyStore } from '@idp/tokens';
import { importEs256PrivateJwk } from './es256-jws';
import type { TenantKeyMaterial } from './tenant-keys';

/** Tenant keys, imported, for a short while in memory: rotation reaches the sidecar within `ttlMs` (or at once on invalidation). */
export function cachedKeys(
  keyStore: KeyStore,
  ttlMs: number,
): ((tenantId: number) => Promise<TenantKeyMaterial>) & { invalidate: (tenantId: number) => void } {
  const cache = new Map<number, { at: number; value: Promise<TenantKeyMaterial> }>();
  const get = (tenantId: number) => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = keyStore.load(tenantId).then((keys): TenantKeyMaterial => {
      const signing = keys.signing.find((k) => k.alg === 'ES256');
      if (!signing) throw new Error(`tenant ${tenantId} has no active ES256 key`);
      // Imported here, once per load: requests reuse the key objects until the entry expires or is invalidated.
      return {
        keySet: createLocalJWKSet(keys.publicJwks as JSONWebKeySet),
        signingKey: importEs256PrivateJwk({ ...signing } as JsonWebKey),
        signingKid: signing.kid,
      };
    });
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  return Object.assign(get, { invalidate: (tenantId: number) => void cache.delete(tenantId) });
}
