import type { JSONWebKeySet } from 'jose';
import type { Models } from '@idp/db';
import { OAuthError } from '@idp/errors';
import type { KeyStore } from '@idp/tokens';

/**
 * Whether a tenant exists and its public JWKS (to verify receivers' access tokens), cached for `ttlMs`; a failed
 * read is not cached. A disabled tenant (Tenant.enabled false) rejects with 403 access_denied "tenant disabled", as
 * oidc-core answers every endpoint of it: its transmitter metadata, stream management and polling stop with the rest
 * (its receivers' access tokens stay valid until they expire otherwise). The rejection is not cached either, so
 * enabling the tenant again applies at the next request.
 */
export function tenantLookup(models: Models, keyStore: KeyStore, ttlMs: number) {
  const cache = new Map<number, { at: number; value: Promise<JSONWebKeySet | undefined> }>();
  const jwks = (tenantId: number): Promise<JSONWebKeySet | undefined> => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = (async () => {
      const tenant = await models.Tenant.findById(tenantId, { enabled: 1 }).lean<{ enabled?: boolean }>();
      if (!tenant) return undefined;
      if (tenant.enabled === false) throw new OAuthError('access_denied', 'tenant disabled', 403);
      return (await keyStore.load(tenantId)).publicJwks as JSONWebKeySet;
    })();
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  return { jwks, exists: async (tenantId: number) => (await jwks(tenantId)) !== undefined };
}
