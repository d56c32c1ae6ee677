/**
 * Where a verifier records the DPoP proofs it has accepted (RFC 9449 section 11.1). Bring your own: with more than
 * one instance behind a load balancer the store must be shared (a database insert with a unique key, Redis
 * `SET NX PX`, ...), or a proof replayed to another instance passes.
 */
export interface ReplayStore {
  /**
   * Records `key` until `expiresAt` (the moment the proof stops being acceptable anyway). Resolves true when the
   * key was new, false when it was already recorded. Rejects when the store cannot answer (the request fails).
   */
  remember(key: string, expiresAt: Date): Promise<boolean>;
}

/**
 * An in-process ReplayStore for a single instance and for tests: a map swept of expired keys as it is used.
 * `maxEntries` bounds its memory; when full it refuses new keys (fails closed) until entries expire.
 */
export function memoryReplayStore(
  options: { maxEntries?: number; now?: () => number } = {},
): ReplayStore & { size(): number } {
  const maxEntries = options.maxEntries ?? 100_000;
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  let nextSweep = 0;
  const sweep = (t: number) => {
    for (const [k, exp] of seen) if (exp <= t) seen.delete(k);
    nextSweep = t + 1000;
  };
  return {
    // The store's contract is a promise: the executor turns a throw (a full store) into a rejection, as before.
    remember: (key, expiresAt) =>
      new Promise<boolean>((resolve) => {
        const t = now();
        if (t >= nextSweep || seen.size >= maxEntries) sweep(t);
        const exp = seen.get(key);
        if (exp !== undefined && exp > t) return resolve(false);
        if (seen.size >= maxEntries) throw new Error('DPoP replay store is full');
        seen.set(key, expiresAt.getTime());
        resolve(true);
      }),
    size: () => seen.size,
  };
}
