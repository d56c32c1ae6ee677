import type { Models } from '@idp/db';
import { OAuthError } from '@idp/errors';

/** Whether a tenant is enabled (Tenant.enabled; a tenant stored before the field existed is), with its invalidation. */
export type TenantEnabledLookup = ((tenantId: number) => Promise<boolean>) & { invalidate(tenantId?: number): void };

/**
 * Tenant.enabled, read by primary key and kept `ttlMs` (main.ts drops an entry on the tenant's invalidation event, so
 * a disable reaches the sidecar at once while NATS is up, within `ttlMs` otherwise). An unknown tenant is not enabled.
 */
export function tenantEnabledLookup(models: Models, ttlMs: number): TenantEnabledLookup {
  const cache = new Map<number, { at: number; value: Promise<boolean> }>();
  const get = (tenantId: number): Promise<boolean> => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    if (cache.size > 10_000) cache.clear();
    const value = models.Tenant.findById(tenantId, { enabled: 1 })
      .lean<{ enabled?: boolean }>()
      .then((t) => t !== null && t.enabled !== false);
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
  return Object.assign(get, {
    invalidate: (tenantId?: number) => (tenantId === undefined ? cache.clear() : void cache.delete(tenantId)),
  });
}

/**
 * A disabled tenant exchanges nothing: 403 access_denied "tenant disabled", as oidc-core answers the tenant's token
 * endpoint (the sidecar is reached only through it, and refuses on its own all the same).
 */
export const tenantDisabledError = () => new OAuthError('access_denied', 'tenant disabled', 403);
