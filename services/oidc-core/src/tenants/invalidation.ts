import { onNatsStatus, subscribeInvalidations, type InvalidationKindName, type NatsConnection } from '@idp/events';
import type { Logger } from '@idp/logger';

/**
 * Whether a change of this kind is held by a tenant's provider (its configuration, key set, or record caches:
 * clients, resource servers, client role permissions). Users, groups, NHEs and policies are read fresh on every
 * use, so their changes need no rebuild (a bulk user import must not rebuild the tenant once per user).
 */
export function providerHolds(kind: InvalidationKindName): boolean {
  switch (kind) {
    case 'tenant':
    case 'client':
    case 'resource-server':
    case 'keys':
    case 'role':
      return true;
    case 'nhe':
    case 'policy':
    case 'user':
    case 'group':
    case 'grant':
      return false;
    default: {
      const unknown: never = kind;
      return unknown;
    }
  }
}

/**
 * Evicts a tenant's provider from the pool when the management API changes what the provider holds (tenant settings,
 * clients, resource servers, keys, roles): the next request rebuilds it from the database. Events missed while NATS is
 * away are covered by the pool's TTL (TENANT_CACHE_TTL_SECONDS); a reconnect evicts every tenant, since invalidations
 * may have been missed meanwhile.
 */
export function evictOnInvalidation(
  nc: NatsConnection,
  pool: { evict(tenantId: number): void; clear?(): void },
  logger: Logger,
): { unsubscribe(): void } {
  const sub = subscribeInvalidations(
    nc,
    (e) => {
      if (!providerHolds(e.kind)) return;
      pool.evict(e.tenantId);
      logger.debug({ tenantId: e.tenantId, kind: e.kind }, 'tenant configuration invalidated');
    },
    {
      onInvalid: (err) =>
        logger.warn(
          { err: (err as Error | null | undefined)?.message },
          'invalid configuration invalidation message dropped',
        ),
    },
  );
  const stopStatus = onNatsStatus(nc, ['reconnect'], () => pool.clear?.());
  return {
    unsubscribe: () => {
      stopStatus();
      sub.unsubscribe();
    },
  };
}
