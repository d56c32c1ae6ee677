/**
 * Limits on the outbound fetches of the tenants' providers (Client ID Metadata Documents, the `jwks_uri` of clients
 * that authenticate with private_key_jwt, `sector_identifier_uri`), per process. Each of those URLs is chosen by
 * someone outside the tenant's control (a client_id URL in an authorization request, a registered client's
 * metadata), so a slow or silent server there must cost the tenant as little as possible:
 * - a request waiting on a fetch does not hold its tenant's admission slot (tenants/request-scope.ts
 *   outsideTenantSlot), and takes it back once the answer is in; at most TENANT_MAX_AWAY requests of a tenant wait
 *   so at once, one more is refused at once;
 * - at most `maxInFlightPerTenant` fetches of one tenant are in flight at once; one more is refused at once ("try
 *   again later") instead of waiting;
 * - one fetch per request and URL: node-oidc-provider looks a client up again on its error path, and that second
 *   look-up gets the first one's answer (the request scope's `fetched`); concurrent requests for the same URL share
 *   one fetch;
 * - a URL whose fetch failed (no answer in time, refused address, oversize answer, a status other than 2xx) is
 *   refused without fetching for `failureTtlMs` (at most `maxFailures` URLs remembered, least recently used first).
 */
import { LRUCache } from 'lru-cache';
import { outsideTenantSlot, requestScope, TenantBusy } from '../tenants/request-scope';

export interface OutboundFetchLimits {
  /** Fetches of one tenant in flight at once in this process (OUTBOUND_FETCH_MAX_IN_FLIGHT_PER_TENANT). */
  maxInFlightPerTenant: number;
  /** How long a failed URL is refused without fetching, ms (default 30 s). */
  failureTtlMs?: number;
  /** Failed URLs remembered, every tenant together (default 10,000). */
  maxFailures?: number;
}

export const DEFAULT_OUTBOUND_FETCH_LIMITS: Required<OutboundFetchLimits> = {
  maxInFlightPerTenant: 4,
  failureTtlMs: 30_000,
  maxFailures: 10_000,
};

/** One answer, kept as data so that every request that shares it builds its own Response. */
export interface FetchedAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** A fetch refused without being made (the tenant's fetches at their limit, or the URL failed lately). */
export class OutboundFetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundFetchRefused';
  }
}

const key = (tenantId: number, method: string, url: string) => `${tenantId} ${method.toUpperCase()} ${url}`;

export class OutboundFetches {
  private readonly limits: Required<OutboundFetchLimits>;
  /** Fetches in flight per tenant. */
  private readonly inFlight = new Map<number, number>();
  /** GET fetches in flight, by tenant and URL (shared by concurrent requests). */
  private readonly pending = new Map<string, Promise<FetchedAnswer>>();
  /** URLs whose last fetch failed, with why. */
  private readonly failures: LRUCache<string, string>;

  constructor(limits: Partial<OutboundFetchLimits> = {}) {
    const d = DEFAULT_OUTBOUND_FETCH_LIMITS;
    this.limits = {
      maxInFlightPerTenant: limits.maxInFlightPerTenant ?? d.maxInFlightPerTenant,
      failureTtlMs: limits.failureTtlMs ?? d.failureTtlMs,
      maxFailures: limits.maxFailures ?? d.maxFailures,
    };
    if (!(Number.isInteger(this.limits.maxInFlightPerTenant) && this.limits.maxInFlightPerTenant >= 1))
      throw new TypeError('maxInFlightPerTenant must be an integer of at least 1');
    this.failures = new LRUCache({ max: this.limits.maxFailures, ttl: this.limits.failureTtlMs });
  }

  /** Fetches of `tenantId` in flight now. */
  inFlightOf(tenantId: number): number {
    return this.inFlight.get(tenantId) ?? 0;
  }

  /**
   * Why a GET of `url` for `tenantId` would be refused now, or undefined when it may go ahead (it was fetched in
   * this request already, or a fetch of it is in flight and it may share that, or there is room). Waits (outside
   * the request's slot) for a fetch of the same URL in flight, and tells its failure.
   */
  async refusal(tenantId: number, url: string): Promise<string | undefined> {
    const k = key(tenantId, 'GET', url);
    if (requestScope()?.fetched.has(k)) return undefined;
    const shared = this.pending.get(k);
    if (shared) {
      const busy = await outsideTenantSlot(() => shared.then(noop, noop)).then(noop, (err: unknown) =>
        err instanceof TenantBusy ? err.message : undefined,
      );
      if (busy) return busy;
    }
    const failed = this.failures.get(k);
    if (failed !== undefined) return failedLately(failed, this.limits.failureTtlMs);
    if (!this.pending.has(k) && this.inFlightOf(tenantId) >= this.limits.maxInFlightPerTenant) return tooMany();
    return undefined;
  }

  /**
   * The answer to one request of `tenantId`, made by `exchange` under the limits above; rejects with
   * OutboundFetchRefused when refused without fetching, or with the exchange's error.
   */
  fetch(tenantId: number, method: string, url: string, exchange: () => Promise<FetchedAnswer>): Promise<FetchedAnswer> {
    const k = key(tenantId, method, url);
    if (method.toUpperCase() !== 'GET')
      return refusedWhenBusy(outsideTenantSlot(() => this.limited(tenantId, k, exchange)));
    const scope = requestScope();
    const earlier = scope?.fetched.get(k) as Promise<FetchedAnswer> | undefined;
    if (earlier) return earlier;
    const answer = this.shared(tenantId, k, exchange);
    scope?.fetched.set(k, answer);
    // Told to the caller; the request's memo keeps it for a second look-up only.
    answer.catch(noop);
    return answer;
  }

  private async shared(tenantId: number, k: string, exchange: () => Promise<FetchedAnswer>): Promise<FetchedAnswer> {
    const failed = this.failures.get(k);
    if (failed !== undefined) throw new OutboundFetchRefused(failedLately(failed, this.limits.failureTtlMs));
    // Away from the slot before the fetch starts: a request refused for that starts nothing.
    return refusedWhenBusy(
      outsideTenantSlot(() => {
        const inFlight = this.pending.get(k);
        if (inFlight) return inFlight;
        const answer = this.limited(tenantId, k, exchange);
        this.pending.set(k, answer);
        const forget = () => {
          if (this.pending.get(k) === answer) this.pending.delete(k);
        };
        answer.then(forget, forget);
        return answer;
      }),
    );
  }

  private async limited(tenantId: number, k: string, exchange: () => Promise<FetchedAnswer>): Promise<FetchedAnswer> {
    const running = this.inFlightOf(tenantId);
    if (running >= this.limits.maxInFlightPerTenant) throw new OutboundFetchRefused(tooMany());
    this.inFlight.set(tenantId, running + 1);
    try {
      const answer = await exchange();
      if (answer.status < 200 || answer.status > 299) this.failures.set(k, `answered ${answer.status}`);
      return answer;
    } catch (err) {
      this.failures.set(k, failure(err));
      throw err;
    } finally {
      const left = this.inFlightOf(tenantId) - 1;
      if (left > 0) this.inFlight.set(tenantId, left);
      else this.inFlight.delete(tenantId);
    }
  }
}

function noop(): void {}

/** The tenant had too many requests away from their slots: the fetch is refused like any other over a limit. */
function refusedWhenBusy<T>(p: Promise<T>): Promise<T> {
  return p.catch((err: unknown) => {
    throw err instanceof TenantBusy ? new OutboundFetchRefused(err.message) : err;
  });
}

/** What a failed exchange is remembered as: told in later refusals, so nothing about the network beyond its kind. */
function failure(err: unknown): string {
  const e = err as Error | null | undefined;
  if (e?.name === 'OutboundUrlError') return e.message;
  if (/timed out|not established/.test(e?.message ?? '')) return 'no answer in time';
  if (e?.message === 'response too large') return 'answer too large';
  return 'no answer';
}

function tooMany(): string {
  return 'too many outbound fetches in progress for this tenant; try again later';
}

function failedLately(why: string, ttlMs: number): string {
  return `its last fetch failed (${why}) and is not retried for ${Math.round(ttlMs / 1000)} s; try again later`;
}
