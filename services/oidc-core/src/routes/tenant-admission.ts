import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter } from 'prom-client';
import { OAuthError } from '@idp/errors';
import { TenantAdmission, type Admission, type TenantAdmissionLimits } from '../domain/tenant-admission';
import { inRequestScope, TenantBusy, type RequestScope } from '../tenants/request-scope';

export const tenantRequestsQueued = new Counter({
  name: 'idp_tenant_requests_queued_total',
  help: "Requests of a tenant that waited in the tenant's queue because TENANT_MAX_IN_FLIGHT of its requests were being handled",
  labelNames: ['tenant'] as const,
});

export const tenantRequestsRejected = new Counter({
  name: 'idp_tenant_requests_rejected_total',
  help: "Requests of a tenant refused with 503 temporarily_unavailable because the tenant's queue held TENANT_MAX_QUEUED requests",
  labelNames: ['tenant'] as const,
});

export const tenantRequestsQueueSeconds = new Counter({
  name: 'idp_tenant_request_queue_wait_seconds_total',
  help: "Seconds a tenant's requests spent waiting in the tenant's queue, summed (divide by idp_tenant_requests_queued_total for the mean)",
  labelNames: ['tenant'] as const,
});

/**
 * Admits one request of a resolved tenant: `handle` runs now, or once a slot of the tenant frees up; `refuse` gets
 * the 503 when the tenant's queue is full. The slot is held until the response closes (answered, or the client
 * gone) and the work handed to `holdSlotUntil` is done; a request whose client leaves while it waits leaves the
 * queue. While that work waits on another server (tenants/request-scope.ts outsideTenantSlot: outbound fetches), the
 * slot is given up, and taken back at once when the wait is over (domain/tenant-admission.ts).
 */
export type AdmitTenantRequest = (
  req: IncomingMessage,
  res: ServerResponse,
  tenantId: string,
  handle: () => void,
  refuse: (err: OAuthError) => void,
) => void;

/** Defaults measured with bench/custom-claims-fairness and the single-tenant benches (bench/README.md). */
export const DEFAULT_TENANT_ADMISSION: TenantAdmissionLimits = { maxInFlight: 2, maxInFlightAlone: 32, maxQueued: 512 };

const HOLD = Symbol('tenant admission hold');
const SCOPE = Symbol('tenant admission request scope');
type Held = IncomingMessage & { [HOLD]?: (work: Promise<unknown>) => void; [SCOPE]?: RequestScope };

/**
 * Runs `work` (the provider's handling of the request) in the request's scope (tenants/request-scope.ts) and keeps
 * the request's slot until it settles, even if the client goes away first: otherwise a client that aborts each
 * request once admitted would leave its handling running without a slot, and one tenant could run any number of them
 * at once. The slot is not held while the work waits on another server (outsideTenantSlot). A request that was not
 * admitted only runs.
 */
export function holdSlotUntil(req: IncomingMessage, work: () => Promise<unknown>): void {
  const held = req as Held;
  const running = inRequestScope(held[SCOPE] ?? { fetched: new Map() }, work);
  held[HOLD]?.(running);
}

/**
 * Whether the request's body has arrived (or it has none): all of it, or as much as the request buffers before the
 * socket is paused (a body larger than that is read by its handler). Until then a request takes no slot, so a
 * client that sends its body slowly (or never) cannot hold a tenant's slots and stall that tenant's other requests;
 * a request is admitted with its body in hand, and its handling does not wait on the network.
 */
function bodyReceived(req: IncomingMessage): boolean {
  if (req.complete) return true;
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return true;
  return req.readableLength >= req.readableHighWaterMark;
}

/**
 * Calls `then` once the body has arrived, without consuming it: a 'readable' listener is told of each chunk as it
 * is buffered (nothing is read), and is removed again, which puts the stream back as it was for the handler's body
 * parser. Nothing is called if the client goes away first.
 */
function whenBodyReceived(req: IncomingMessage, then: () => void): void {
  const check = () => {
    if (!bodyReceived(req)) return;
    req.removeListener('readable', check);
    then();
  };
  req.on('readable', check);
}

/** Seconds a refused client is told to wait before it retries. */
const RETRY_AFTER_SECONDS = 1;

export function tenantAdmission(
  limits: TenantAdmissionLimits = DEFAULT_TENANT_ADMISSION,
): AdmitTenantRequest & { admission: TenantAdmission } {
  const admission = new TenantAdmission(limits);
  const admit: AdmitTenantRequest = (req, res, tenantId, handle, refuse) => {
    // The client went away while the tenant was resolved: nothing to answer, and no 'close' is coming to release.
    if (res.destroyed) return;
    if (bodyReceived(req)) enter(req, res, tenantId, handle, refuse);
    else whenBodyReceived(req, () => res.destroyed || enter(req, res, tenantId, handle, refuse));
  };
  const enter: AdmitTenantRequest = (req, res, tenantId, handle, refuse) => {
    let queuedAt = 0;
    // What keeps the slot: the response until it closes, and each piece of work handed to holdSlotUntil.
    let holds = 1;
    // Assigned once below, but read by these closures while admission.enter runs the request synchronously (a const
    // would still be in its temporal dead zone there and throw).
    // eslint-disable-next-line prefer-const -- see above
    let ticket: Admission | undefined;
    const drop = () => {
      if (--holds === 0) ticket?.release();
    };
    (req as Held)[HOLD] = (work) => {
      holds++;
      work.then(drop, drop);
    };
    // Waits on other servers, counted (a request may wait on several at once): the slot is given up when the first
    // starts and taken back, at once, when the last is over. Refused when the tenant has too many requests away.
    let outside = 0;
    const outsideSlot = async <T>(wait: () => Promise<T>): Promise<T> => {
      if (outside === 0 && ticket && !ticket.suspend()) throw new TenantBusy();
      outside++;
      try {
        return await wait();
      } finally {
        if (--outside === 0) ticket?.resume();
      }
    };
    // The request's own scope, also for its start: a queued request is started by another request's release, whose
    // asynchronous context it must not inherit.
    const scope: RequestScope = { outsideSlot, fetched: new Map() };
    (req as Held)[SCOPE] = scope;
    ticket = admission.enter(tenantId, () => {
      if (queuedAt) tenantRequestsQueueSeconds.inc({ tenant: tenantId }, (performance.now() - queuedAt) / 1000);
      inRequestScope(scope, handle);
    });
    if (!ticket) {
      delete (req as Held)[HOLD];
      delete (req as Held)[SCOPE];
      tenantRequestsRejected.inc({ tenant: tenantId });
      refuse(
        new OAuthError('temporarily_unavailable', 'too many concurrent requests for this tenant, retry later', 503, {
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
        }),
      );
      return;
    }
    if (ticket.waited) {
      queuedAt = performance.now();
      tenantRequestsQueued.inc({ tenant: tenantId });
    }
    // 'close' follows 'finish' on every response, and comes alone when the connection closes first.
    res.once('close', drop);
  };
  return Object.assign(admit, { admission });
}
