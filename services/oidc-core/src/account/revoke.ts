/**
 * The ledger's kill switch in oidc-core's process: the same path as the management API's (services/management
 * domain/kill-switch.ts): the entry is persisted first (introspection reads the store), then published on NATS (every
 * verifier's deny list, the Shared Signals transmitter). Without NATS only the store is written (verifiers reload it);
 * a publish not confirmed within `timeoutMs` fails the action (503, retry revokes again).
 */
import {
  buildRevocationEntry,
  publishInvalidation,
  publishRevocation,
  type NatsConnection,
  type RevocationInput,
  type RevocationStore,
} from '@idp/events';

export function ledgerRevoker(o: { nc: () => NatsConnection | undefined; store: RevocationStore; timeoutMs?: number }) {
  return async (input: RevocationInput): Promise<void> => {
    const nc = o.nc();
    if (!nc) {
      await o.store.save(buildRevocationEntry(input));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        publishRevocation(nc, input, { store: o.store }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('revocation publish timed out')), o.timeoutMs ?? 5_000);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** A configuration invalidation of kind `user` (the sidecars drop the tenant's cached delegation facts); no NATS: nothing. */
export function userInvalidator(nc: () => NatsConnection | undefined, timeoutMs = 2_000) {
  return async (tenantId: number, userId: string): Promise<void> => {
    const c = nc();
    if (!c) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        publishInvalidation(c, { tenantId, kind: 'user', id: userId }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('invalidation publish timed out')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * A configuration invalidation of kind `grant` when a grant ends (the provider's adapter), so that sidecars caching
 * grant lookups (GRANT_CACHE_TTL_MS) refuse its tokens at once. Best effort: the grant is already gone from the
 * store, and a lost event is covered by the cache's TTL, so a failure is logged, never thrown (ending a grant must
 * not fail because NATS is away). Awaited up to `timeoutMs`, so the event is on its way before the answer is.
 */
export function grantEndedPublisher(
  nc: () => NatsConnection | undefined,
  log: (err: string) => void,
  timeoutMs = 1_000,
) {
  return async (tenantId: number, grantId: string | undefined): Promise<void> => {
    const c = nc();
    if (!c) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        publishInvalidation(c, { tenantId, kind: 'grant', ...(grantId ? { id: grantId } : {}) }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('grant invalidation publish timed out')), timeoutMs);
        }),
      ]);
    } catch (err) {
      log((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
  };
}
