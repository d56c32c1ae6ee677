import { LRUCache } from 'lru-cache';

/** How long one tenant's provider reuses records it read from the store (clients, resource servers, client roles). */
export const RECORD_CACHE_MS = 5_000;

/**
 * A short-lived, bounded read-through cache of store lookups, one per tenant provider. It holds the promise, so
 * concurrent requests share one query; a failed lookup is not kept. An invalidation event rebuilds the tenant's
 * provider and with it this cache; without the event a change applies within `ttlMs`.
 */
export function recordCache<T>(
  ttlMs = RECORD_CACHE_MS,
  max = 1_000,
): ((key: string, load: () => PromiseLike<T>) => Promise<T>) & { forget(key: string): void } {
  const entries = new LRUCache<string, Promise<T>>({ max, ttl: ttlMs });
  const read = (key: string, load: () => PromiseLike<T>) => {
    const hit = entries.get(key);
    if (hit) return hit;
    // A real promise: a thenable such as a mongoose Query would run again on every await of the cached value.
    const value = Promise.resolve(load());
    entries.set(key, value);
    value.catch(() => entries.delete(key));
    return value;
  };
  /** Drops a key this replica changed itself (a registered client's update or deletion). */
  return Object.assign(read, { forget: (key: string) => void entries.delete(key) });
}
