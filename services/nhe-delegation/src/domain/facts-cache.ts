import { chainFactsOf, type DelegationFacts, type DelegationRequest } from '@idp/delegation';

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
 * (tenant, client, user, NHE, resource) tuple. The facts are loaded from MongoDB on a miss; the requested scopes and
 * the subject token's consented scopes are never cached. Concurrent requests for the same tuple share one load (the
 * entry holds the promise), so an expiring entry under load costs one set of queries, not one per request in
 * flight. Freshness: every configuration change the management API makes publishes an invalidation on NATS
 * (idp.config.invalidate.<tenant>) and kill-switch
 * changes a revocation (idp.nhe.revoked.<tenant>); both drop the tenant's entries at once, a NATS reconnect drops
 * all of them, and `ttlMs` bounds the rest. A token can only be issued while NATS acks the audit event, so a sidecar
 * cut off from invalidations issues nothing anyway. A load in flight when its tenant is invalidated is not kept:
 * its entry is dropped with the others, and requests after the invalidation start a new load.
 */
/** `now` is a monotonic clock (milliseconds): a wall clock stepped back would make old entries look fresh. */
export function factsCache(
  loader: Loader,
  ttlMs: number,
  maxEntries = 10_000,
  now: () => number = () => performance.now(),
): FactsCache {
  const byTenant = new Map<number, Map<string, { at: number; facts: Promise<DelegationFacts | null> }>>();
  let size = 0;
  // A hand-on (a delegation chain) also loads its parent chain's NHEs and policies: the chain is part of the key.
  const keyOf = (r: DelegationRequest) =>
    JSON.stringify([
      r.clientId,
      r.userId,
      r.nheIdentifier,
      r.resource,
      ...(r.parent ? [r.parent.actors.map((a) => a.identifier)] : []),
    ]);
  const dropTenant = (tenantId: number) => {
    const entries = byTenant.get(tenantId);
    if (entries) size -= entries.size;
    byTenant.delete(tenantId);
  };
  // The request's own scopes are never cached: what it asks for and what its subject token was consented for.
  // So are a parent token's own values (its scopes, audience, expiry and each actor's proof), and the subject token's
  // sign-in (its acr and age: phishing-resistant delegation), which is this request's alone.
  const withScopes = (facts: DelegationFacts | null, request: DelegationRequest): DelegationFacts | null => {
    if (!facts) return null;
    const { signIn: _cached, ...rest } = facts;
    return {
      ...rest,
      requestedScopes: request.requestedScopes,
      consentedScopes: new Set(request.consentedScopes ?? []),
      ...(request.parent && facts.chain ? { chain: chainFactsOf(request.parent, facts.chain.actors) } : {}),
      ...(request.signIn ? { signIn: request.signIn } : {}),
    };
  };
  return {
    async load(request) {
      if (ttlMs <= 0) return loader(request);
      const key = keyOf(request);
      const hit = byTenant.get(request.tenantId)?.get(key);
      if (hit && now() - hit.at < ttlMs) return withScopes(await hit.facts, request);
      if (size >= maxEntries) {
        for (const t of [...byTenant.keys()]) dropTenant(t);
      }
      let entries = byTenant.get(request.tenantId);
      if (!entries) {
        entries = new Map();
        byTenant.set(request.tenantId, entries);
      }
      const entry = { at: now(), facts: loader(request) };
      if (!entries.has(key)) size += 1;
      entries.set(key, entry);
      // A failed or empty load is not kept (unless an invalidation already replaced the map or the entry).
      const forget = () => {
        const current = byTenant.get(request.tenantId);
        if (current?.get(key) === entry) {
          current.delete(key);
          size -= 1;
        }
      };
      entry.facts.then((facts) => (facts ? undefined : forget()), forget);
      return withScopes(await entry.facts, request);
    },
    invalidateTenant: dropTenant,
    clear() {
      for (const t of [...byTenant.keys()]) dropTenant(t);
    },
  };
}
