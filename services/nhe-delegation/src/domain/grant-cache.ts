/**
 * What the sidecar needs of a node-oidc-provider grant to exchange a token issued under it (domain/subject-grant.ts),
 * read by primary key from `oidc_payloads`, optionally kept for `ttlMs` (GRANT_CACHE_TTL_MS; 0, the default, reads
 * on every exchange). That read is the dearest part of an exchange after the signatures: about a third of its CPU
 * summed over the sidecar and the store (bench/README.md).
 *
 * Freshness with a TTL, as the delegation facts: a grant that ends through oidc-core (refresh token revoked,
 * sign-out, code reuse, a dynamically registered client deleted) publishes a `grant` invalidation, and the
 * management API's changes publish theirs; either drops the entry at once (`grant` with an id drops that grant,
 * any other invalidation of the tenant drops all of the tenant's), a NATS reconnect drops everything, and the TTL
 * bounds what a lost event leaves. Only live grants are kept: a missing or unreadable one is read again next time.
 * The grant's expiry is checked on every use. Concurrent lookups of one grant share a read; a read in flight when
 * its tenant or grant is invalidated is not kept.
 */

/** A grant as the exchange checks it. */
export interface GrantRecord {
  clientId: unknown;
  accountId: unknown;
  /** The grant's own expiry (seconds), when it has one. */
  exp: unknown;
  /** The store record's expiry. */
  expiresAt: Date | undefined;
}

export type GrantReader = (tenantId: number, grantId: string) => Promise<GrantRecord | undefined>;

export interface GrantCache {
  read: GrantReader;
  /** Drops one grant of the tenant, or (no id) every grant of the tenant. */
  invalidate(tenantId: number, grantId?: string): void;
  /** Drops everything (NATS reconnected: invalidations may have been missed). */
  clear(): void;
}

/** `now` is a monotonic clock (milliseconds): a wall clock stepped back would make old entries look fresh. */
export function grantCache(
  reader: GrantReader,
  ttlMs: number,
  maxEntries = 10_000,
  now: () => number = () => performance.now(),
): GrantCache {
  const byTenant = new Map<number, Map<string, { at: number; grant: Promise<GrantRecord | undefined> }>>();
  let size = 0;
  const dropTenant = (tenantId: number) => {
    size -= byTenant.get(tenantId)?.size ?? 0;
    byTenant.delete(tenantId);
  };
  return {
    async read(tenantId, grantId) {
      if (ttlMs <= 0) return reader(tenantId, grantId);
      const hit = byTenant.get(tenantId)?.get(grantId);
      if (hit && now() - hit.at < ttlMs) return hit.grant;
      if (size >= maxEntries) {
        byTenant.clear();
        size = 0;
      }
      let entries = byTenant.get(tenantId);
      if (!entries) {
        entries = new Map();
        byTenant.set(tenantId, entries);
      }
      if (!entries.has(grantId)) size += 1;
      const grant = reader(tenantId, grantId);
      const entry = { at: now(), grant };
      entries.set(grantId, entry);
      // Only a live grant is kept; a failed or empty read is dropped (if it is still this entry).
      const forget = () => {
        const current = byTenant.get(tenantId);
        if (current?.get(grantId) === entry) {
          current.delete(grantId);
          size -= 1;
        }
      };
      grant.then((g) => (g ? undefined : forget()), forget);
      return grant;
    },
    invalidate(tenantId, grantId) {
      if (grantId === undefined) {
        dropTenant(tenantId);
        return;
      }
      const entries = byTenant.get(tenantId);
      if (entries?.delete(grantId)) size -= 1;
    },
    clear() {
      byTenant.clear();
      size = 0;
    },
  };
}
