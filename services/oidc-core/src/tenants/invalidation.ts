import { subscribeInvalidations, type NatsConnection } from '@idp/events';
import type { Logger } from '@idp/logger';

/**
 * Evicts a tenant's provider from the pool when the management API changes its configuration (tenant settings,
 * clients, resource servers, keys, NHEs, policies, users, groups, roles): the next request rebuilds it from the
 * database. Events missed while NATS is away are covered by the pool's TTL (TENANT_CACHE_TTL_SECONDS); a reconnect
 * evicts every tenant, since invalidations may have been missed meanwhile.
 */
export function evictOnInvalidation(nc: NatsConnection, pool: { evict(tenantId: number): void; clear?(): void }, logger: Logger): { unsubscribe(): void } {
  const sub = subscribeInvalidations(
    nc,
    (e) => {
      pool.evict(e.tenantId);
      logger.debug({ tenantId: e.tenantId, kind: e.kind }, 'tenant configuration invalidated');
    },
    { onInvalid: (err) => logger.warn({ err: (err as Error)?.message }, 'invalid configuration invalidation message dropped') },
  );
  let closed = false;
  void (async () => {
    for await (const s of nc.status()) {
      if (closed) break;
      if (s.type === 'reconnect') pool.clear?.();
    }
  })().catch(() => undefined);
  return {
    unsubscribe: () => {
      closed = true;
      sub.unsubscribe();
    },
  };
}
