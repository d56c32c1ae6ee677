/**
 * The ledger's kill switch in oidc-core's process (issue 18): the same path as the management API's
 * (services/management domain/kill-switch.ts): the entry is persisted first (introspection reads the store), then
 * published on NATS (every verifier's deny list, the Shared Signals transmitter). Without NATS only the store is
 * written (verifiers reload it); a publish not confirmed within `timeoutMs` fails the action (503, retry revokes again).
 */
import { buildRevocationEntry, publishInvalidation, publishRevocation, type NatsConnection, type RevocationInput, type RevocationStore } from '@idp/events';

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
