/**
 * Fair admission of HTTP requests per tenant: no tenant's flood may starve the others. While more than one tenant is
 * active in this process, at most `maxInFlight` requests of one tenant are handled at once; the tenant's further
 * requests wait in that tenant's own FIFO queue (at most `maxQueued`; one more is refused) and start, in order, as its
 * handled requests finish. So a flood of one tenant's requests holds a bounded share of the event loop, the database
 * connections and the sandbox, and another tenant's request is admitted at once: it never waits behind the flooding
 * tenant's backlog, only beside its few handled requests.
 *
 * The cap gives way when nobody needs the room: a tenant alone in the process (no other tenant has a request handled
 * or waiting, nor had one admitted within `activeWindowMs`) may have up to `maxInFlightAlone` requests handled, so
 * one tenant's throughput is what it was without admission (a small cap on in-flight requests costs a pipeline such
 * as token exchange, oidc-core -> sidecar -> JetStream, about half its throughput: bench/README.md). When another
 * tenant turns up, the first one's new requests queue until it is back under `maxInFlight`; the newcomer's first
 * request waits beside at most `maxInFlightAlone` of the first tenant's, its later ones beside `maxInFlight`.
 *
 * A request that waits on another server (an outbound fetch: a client's metadata document or key set) does no work
 * here while it waits, so it gives its slot up for that time (`suspend`): a slow or silent server chosen by an
 * outsider holds none of the tenant's slots. At most `maxAway` requests of a tenant are away at once (one more is
 * refused, and its request fails fast), and a request whose wait is over takes its slot back at once (`resume`),
 * even above the cap: it was admitted already, and making it queue could make it wait on requests that wait on it
 * (requests of one client share one key-set refresh, made by whichever came first). The tenant's new requests then
 * queue until it is back under its cap, so the excess is bounded by `maxAway`.
 *
 * Pure bookkeeping (an injected clock, no timers, no I/O), unit-tested directly.
 */

export interface TenantAdmissionLimits {
  /** Requests of one tenant handled at once while other tenants are active (>= 1). */
  maxInFlight: number;
  /** Requests of a tenant handled at once while it is the only one active (default and at least `maxInFlight`). */
  maxInFlightAlone?: number;
  /** Requests of one tenant waiting for a slot (>= 0); one more is refused. */
  maxQueued: number;
  /** Milliseconds after its last admitted request that a tenant still counts as active (default 1000). */
  activeWindowMs?: number;
  /** Requests of one tenant away from their slots at once, waiting on other servers (default 16). */
  maxAway?: number;
}

/** One admitted or waiting request. */
export interface Admission {
  /** Whether it waited in its tenant's queue before it started. */
  readonly waited: boolean;
  /**
   * The request is over (answered, its connection closed, or given up while waiting): frees its slot for the
   * tenant's next waiting request, or leaves the queue. Idempotent: only the first call counts.
   */
  release(): void;
  /**
   * The request waits on something outside this process (an outbound fetch) and does no work meanwhile: its slot
   * goes to the tenant's next waiting request. False, and nothing changes, when `maxAway` of the tenant's requests
   * are away already (the caller refuses the request). Nothing (true) for a request not being handled.
   */
  suspend(): boolean;
  /**
   * The wait is over: the request holds a slot again, at once, even when that puts the tenant above its cap (the
   * tenant's queued requests start only once it is back under). Nothing for a request not suspended.
   */
  resume(): void;
}

interface Lane {
  running: number;
  queue: Ticket[];
  /** Suspended requests (Admission.suspend). */
  away: number;
}

const WAITING = 0;
const RUNNING = 1;
const DONE = 2;
/** Admitted, and away from its slot (Admission.suspend). */
const SUSPENDED = 3;

class Ticket implements Admission {
  state = WAITING;
  waited = false;
  constructor(
    private readonly admission: TenantAdmission,
    readonly tenant: string,
    public start: () => void,
  ) {}

  release(): void {
    this.admission.release(this);
  }

  suspend(): boolean {
    return this.admission.suspend(this);
  }

  resume(): void {
    this.admission.resume(this);
  }
}

/** A tenant and when its last request was admitted. */
interface Seen {
  tenant: string;
  at: number;
}

export class TenantAdmission {
  /** Tenants with a request handled or waiting (none other is kept). */
  private readonly lanes = new Map<string, Lane>();
  /** The two tenants most recently admitted, distinct, newest first: enough to tell whether another is active. */
  private latest: Seen | undefined;
  private previous: Seen | undefined;
  private readonly windowMs: number;
  private readonly aloneCap: number;
  private readonly maxAway: number;

  constructor(
    private readonly limits: TenantAdmissionLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(Number.isInteger(limits.maxInFlight) && limits.maxInFlight >= 1))
      throw new TypeError('maxInFlight must be an integer of at least 1');
    if (!(Number.isInteger(limits.maxQueued) && limits.maxQueued >= 0))
      throw new TypeError('maxQueued must be an integer of at least 0');
    if (
      limits.maxInFlightAlone !== undefined &&
      !(Number.isInteger(limits.maxInFlightAlone) && limits.maxInFlightAlone >= 1)
    )
      throw new TypeError('maxInFlightAlone must be an integer of at least 1');
    this.aloneCap = Math.max(limits.maxInFlight, limits.maxInFlightAlone ?? limits.maxInFlight);
    this.windowMs = limits.activeWindowMs ?? 1000;
    if (!(this.windowMs >= 0)) throw new TypeError('activeWindowMs must be at least 0');
    this.maxAway = limits.maxAway ?? 16;
    if (!(Number.isInteger(this.maxAway) && this.maxAway >= 0))
      throw new TypeError('maxAway must be an integer of at least 0');
  }

  /**
   * A request of `tenant`: `start` runs now (synchronously, before this returns) when the tenant is under its cap,
   * or later, when one of the tenant's handled requests releases its slot and every request queued before it has
   * started. Undefined (and `start` never runs) when the tenant's queue is full.
   */
  enter(tenant: string, start: () => void): Admission | undefined {
    let lane = this.lanes.get(tenant);
    if (!lane) {
      lane = { running: 0, queue: [], away: 0 };
      this.lanes.set(tenant, lane);
    }
    const ticket = new Ticket(this, tenant, start);
    if (lane.queue.length === 0 && lane.running < this.cap(tenant)) {
      lane.running++;
      ticket.state = RUNNING;
      this.seen(tenant);
      start();
      return ticket;
    }
    if (lane.queue.length >= this.limits.maxQueued) {
      this.dropIfIdle(tenant, lane);
      return undefined;
    }
    ticket.waited = true;
    lane.queue.push(ticket);
    return ticket;
  }

  /** Requests of `tenant` being handled. */
  inFlight(tenant: string): number {
    return this.lanes.get(tenant)?.running ?? 0;
  }

  /** Requests of `tenant` waiting for a slot. */
  queued(tenant: string): number {
    return this.lanes.get(tenant)?.queue.length ?? 0;
  }

  /** Tenants with a request handled or waiting. */
  get tenants(): number {
    return this.lanes.size;
  }

  /** Whether a tenant other than `tenant` is active: has requests handled or waiting, or had one admitted lately. */
  contended(tenant: string): boolean {
    if (this.lanes.size > (this.lanes.has(tenant) ? 1 : 0)) return true;
    const other = this.latest?.tenant === tenant ? this.previous : this.latest;
    return other !== undefined && this.now() - other.at < this.windowMs;
  }

  /** @internal through Admission.release */
  release(ticket: Ticket): void {
    const was = ticket.state;
    if (was === DONE) return;
    ticket.state = DONE;
    const lane = this.lanes.get(ticket.tenant)!;
    if (was === SUSPENDED) {
      // Away, it held no slot and no place in the queue.
      lane.away--;
    } else if (was === WAITING) {
      const i = lane.queue.indexOf(ticket);
      if (i >= 0) lane.queue.splice(i, 1);
    } else {
      lane.running--;
      this.startWaiting(ticket.tenant, lane);
    }
    this.dropIfIdle(ticket.tenant, lane);
  }

  /** @internal through Admission.suspend */
  suspend(ticket: Ticket): boolean {
    if (ticket.state !== RUNNING) return true;
    const lane = this.lanes.get(ticket.tenant)!;
    if (lane.away >= this.maxAway) return false;
    ticket.state = SUSPENDED;
    lane.away++;
    lane.running--;
    this.startWaiting(ticket.tenant, lane);
    return true;
  }

  /** @internal through Admission.resume */
  resume(ticket: Ticket): void {
    if (ticket.state !== SUSPENDED) return;
    const lane = this.lanes.get(ticket.tenant)!;
    lane.away--;
    lane.running++;
    ticket.state = RUNNING;
    this.seen(ticket.tenant);
  }

  /** The oldest waiting requests take the freed slots (more than one when the tenant is alone again: its cap rose). */
  private startWaiting(tenant: string, lane: Lane): void {
    while (lane.queue.length && lane.running < this.cap(tenant)) {
      const next = lane.queue.shift()!;
      lane.running++;
      next.state = RUNNING;
      this.seen(tenant);
      next.start();
    }
  }

  private dropIfIdle(tenant: string, lane: Lane): void {
    if (lane.running === 0 && lane.queue.length === 0 && lane.away === 0 && this.lanes.get(tenant) === lane)
      this.lanes.delete(tenant);
  }

  private cap(tenant: string): number {
    return this.contended(tenant) ? this.limits.maxInFlight : this.aloneCap;
  }

  private seen(tenant: string): void {
    const at = this.now();
    if (this.latest?.tenant === tenant) this.latest.at = at;
    else {
      this.previous = this.latest;
      this.latest = { tenant, at };
    }
  }
}
