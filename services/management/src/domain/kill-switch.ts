import {
  buildRevocationEntry,
  publishInvalidation,
  publishRevocation,
  type InvalidationKindName,
  type NatsConnection,
  type RevocationInput,
  type RevocationStore,
} from '@idp/events';
import { problems } from '@idp/errors';
import type { Logger } from '@idp/logger';

/** Rejects when `promise` has not settled within `ms` (NATS flush() waits for a reconnect). */
export function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * The kill switch of issued NHE tokens: each entry is persisted (verifiers reload the store) and then published on
 * NATS. Without NATS only the store is written. When the publish is not confirmed within `timeoutMs` the write
 * answers 503: the change itself is saved, and retrying the request revokes again (the routes revoke on every
 * disabling write, not only on a state change).
 */
export function revocationPublisher(o: {
  nc?: NatsConnection;
  store: RevocationStore;
  logger: Logger;
  timeoutMs?: number;
}) {
  return async (input: RevocationInput): Promise<void> => {
    if (!o.nc) {
      await o.store.save(buildRevocationEntry(input));
      return;
    }
    try {
      await within(o.timeoutMs ?? 5_000, publishRevocation(o.nc, input, { store: o.store }), 'revocation publish');
    } catch (err) {
      o.logger.error(
        { err: (err as Error).message, tenantId: input.tenantId, reason: input.reason },
        'kill switch not confirmed',
      );
      throw problems.serviceUnavailable(
        'the change was saved but revoking issued tokens could not be confirmed; retry the request',
      );
    }
  };
}

/** Configuration invalidations, bounded in time (a lost one is covered by the caches' TTLs). */
export function invalidationPublisher(nc: NatsConnection, timeoutMs = 2_000) {
  return (e: { tenantId: number; kind: InvalidationKindName; id?: string }) =>
    within(timeoutMs, publishInvalidation(nc, e), 'invalidation publish');
}
