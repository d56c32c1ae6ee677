import type { DelegationFacts, DelegationRequest } from '@idp/delegation';

type Loader = (request: DelegationRequest) => Promise<DelegationFacts | null>;

export interface FactsCache {
  load: Loader;
  /** Drops every cached fact of the tenant (configuration changed, a revocation arrived). */
  invalidateTenant(tenantId: number): void;
  /** Drops everything (NATS reconnected: invalidations may have been missed). */
  clear(): void;
}

/**
 * Short-lived cache of the delegation facts (tenant, client, resource server, NHE, policies, user, permissions) of a
 * (tenant, client, user, NHE, resource) tuple. The facts are loaded from MongoDB on a miss; the requested scopes are
 * never cached. Freshness: every configuration change the management API makes publishes an invalidation on NATS
 * (idp.config.invalidate.<tenant>) and kill-switch changes a revocation (idp.nhe.revoked.<tenant>); both drop the
 * tenant's entries at once, a NATS reconnect drops all of them, and `ttlMs` bounds the rest. A token can only be
 * issued while NATS acks the audit event, so a sidecar cut off from invalidations issues nothing anyway.
 * A load that overlaps an invalidation is not stored (per-tenant generation counter).
 */
export function factsCache(loader: Loader, ttlMs: number, maxEntries = 10_000, now: () => number = Date.now): FactsCache {
  const byTenant = new Map<number, Map<string, { at: number; facts: DelegationFacts }>>();
  const generation = new Map<number, number>();
  let epoch = 0;
  let size = 0;
  const keyOf = (r: DelegationRequest) => JSON.stringify([r.clientId, r.userId, r.nheIdentifier, r.resource]);
  const dropTenant = (tenantId: number) => {
    const entries = byTenant.get(tenantId);
    if (entries) size -= entries.size;
    byTenant.delete(tenantId);
    generation.set(tenantId, (generation.get(tenantId) ?? 0) + 1);
  };
  return {
    async load(request) {
      if (ttlMs <= 0) return loader(request);
      const key = keyOf(request);
      const hit = byTenant.get(request.tenantId)?.get(key);
      if (hit && now() - hit.at < ttlMs) return { ...hit.facts, requestedScopes: request.requestedScopes };
      const gen = generation.get(request.tenantId) ?? 0;
      const startEpoch = epoch;
      const startedAt = now();
      const facts = await loader(request);
      if (facts && (generation.get(request.tenantId) ?? 0) === gen && epoch === startEpoch) {
        if (size >= maxEntries) {
          for (const t of [...byTenant.keys()]) dropTenant(t);
        }
        let entries = byTenant.get(request.tenantId);
        if (!entries) {
          entries = new Map();
          byTenant.set(request.tenantId, entries);
        }
        if (!entries.has(key)) size += 1;
        entries.set(key, { at: startedAt, facts });
      }
      return facts;
    },
    invalidateTenant: dropTenant,
    clear() {
      for (const t of [...byTenant.keys()]) dropTenant(t);
      // Loads in flight must not be stored either.
      epoch += 1;
    },
  };
}
