/**
 * What one request that a tenant's provider handles carries through all of its asynchronous work
 * (AsyncLocalStorage), for code the provider calls without the request in hand (its `fetch`):
 * - how the request waits on another server without holding its tenant's admission slot
 *   (routes/tenant-admission.ts);
 * - the outbound fetches it made, so that a second look-up of the same client in the same request (node-oidc-provider
 *   looks the client up again on its error path) reuses the first answer instead of fetching again
 *   (provider/outbound-fetches.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  /** Runs `wait` without the request's admission slot, and takes it back after; absent: keeps it. */
  outsideSlot?: <T>(wait: () => Promise<T>) => Promise<T>;
  /** The request's outbound fetches, by method and URL. */
  readonly fetched: Map<string, Promise<unknown>>;
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (the provider's handling of one request) with `scope` as its request scope. */
export function inRequestScope<T>(scope: RequestScope, work: () => T): T {
  return storage.run(scope, work);
}

/** The request scope of the running code; undefined outside a request (or before one was given a scope). */
export function requestScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Too many of the tenant's requests wait on other servers already: this one is refused instead of waiting too. */
export class TenantBusy extends Error {
  constructor() {
    super('too many requests of this tenant are waiting on outbound fetches; try again later');
    this.name = 'TenantBusy';
  }
}

/** Runs `wait` outside the current request's admission slot, if it holds one; rejects with TenantBusy when refused. */
export function outsideTenantSlot<T>(wait: () => Promise<T>): Promise<T> {
  const outside = storage.getStore()?.outsideSlot;
  return outside ? outside(wait) : wait();
}
