/**
 * Circuit breaker of customizeUserInfoClaims scripts, one per tenant + client script. Only the failures that cost
 * the sandbox a worker's full time or memory count (`timeout`, `memory`): after `failureThreshold` of them in a row
 * the script is skipped (UserInfo answers without custom_claims at once) for `openMs`. Then one call is let through
 * as a probe (half-open): if the probe succeeds, or fails cheaply (threw, invalid return), the breaker closes; if it
 * times out or runs out of memory again, it opens again for twice as long (up to `maxOpenMs`). A script that is
 * replaced starts closed. Cheap failures never open the breaker and leave the count as it is; a success resets it.
 *
 * Pure (the clock is injected); the caller persists `snapshot()`s through `onChange` (transitions and failures).
 */

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** Consecutive timeout/memory failures that open the breaker (>= 1). */
  failureThreshold: number;
  /** How long the breaker stays open the first time, ms; doubled at each failed probe. */
  openMs: number;
  /** Longest open period, ms. */
  maxOpenMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = { failureThreshold: 5, openMs: 30_000, maxOpenMs: 10 * 60_000 };

/** Failures that open the breaker: the script used its whole time or memory budget. */
export const HEAVY_FAILURES: ReadonlySet<string> = new Set(['timeout', 'memory']);

export interface BreakerError {
  reason: string;
  message: string;
  at: number;
}

export interface BreakerSnapshot {
  state: BreakerState;
  consecutiveFailures: number;
  /** When the breaker last opened (ms since epoch), while it is not closed. */
  openedAt?: number;
  /** When the next probe may run, while open. */
  retryAt?: number;
  lastError?: BreakerError;
}

/** Who called `admit`: run it normally, run it as the probe, or skip it. */
export type Admission = 'run' | 'probe' | 'skip';

/** What changed, for the caller's persistence and logs. */
export type BreakerChange = 'opened' | 'half_opened' | 'closed' | 'failure' | 'reset';

/** Changes that are state transitions (persisted at once); `failure` and `reset` may be coalesced. */
export const BREAKER_TRANSITIONS: ReadonlySet<BreakerChange> = new Set(['opened', 'half_opened', 'closed']);

interface Entry {
  script: string;
  state: BreakerState;
  consecutive: number;
  opens: number;
  openedAt?: number;
  retryAt?: number;
  probing: boolean;
  lastError?: BreakerError;
}

export class ScriptBreaker {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: BreakerOptions = DEFAULT_BREAKER_OPTIONS,
    private readonly clock: () => number = Date.now,
    private readonly onChange?: (key: string, change: BreakerChange, snapshot: BreakerSnapshot, script: string) => void,
  ) {
    if (!(options.failureThreshold >= 1)) throw new TypeError('failureThreshold must be at least 1');
  }

  /** Whether a call of `script` under `key` may run now (and whether it is the half-open probe). */
  admit(key: string, script: string): Admission {
    const e = this.current(key, script);
    if (!e || e.state === 'closed') return 'run';
    if (e.state === 'open') {
      if (this.clock() < (e.retryAt ?? 0)) return 'skip';
      e.state = 'half_open';
      e.probing = true;
      this.emit(key, e, 'half_opened');
      return 'probe';
    }
    if (e.probing) return 'skip';
    e.probing = true;
    return 'probe';
  }

  /**
   * Whether a call admitted earlier (queued since) should still run when a worker takes it: a normal call not once
   * the breaker has opened, the probe always.
   */
  stillAdmitted(key: string, script: string, admission: Admission): boolean {
    if (admission === 'probe') return true;
    const e = this.current(key, script);
    return !e || e.state === 'closed';
  }

  /** The outcome of an admitted call: `ok`, or the sandbox's failure reason. */
  record(
    key: string,
    script: string,
    admission: Admission,
    outcome: { ok: true } | { ok: false; reason: string; message: string },
  ): void {
    let e = this.current(key, script);
    const probe = admission === 'probe';
    if (outcome.ok) {
      if (!e) return;
      this.close(key, e, probe || e.state !== 'closed' ? 'closed' : 'reset');
      return;
    }
    const heavy = HEAVY_FAILURES.has(outcome.reason);
    const now = this.clock();
    if (!heavy && !e) return;
    e ??= this.create(key, script);
    if (!heavy) {
      // Cheap failures: the probe proved the script no longer exhausts the sandbox; otherwise nothing changes,
      // except that a refused call (busy, unavailable) gives the probe back.
      if (probe && (outcome.reason === 'busy' || outcome.reason === 'unavailable')) e.probing = false;
      else if (probe) this.close(key, e, 'closed');
      return;
    }
    e.lastError = { reason: outcome.reason, message: outcome.message, at: now };
    e.consecutive++;
    if (probe || (e.state === 'closed' && e.consecutive >= this.options.failureThreshold)) {
      const wasOpen = e.state !== 'closed';
      e.opens = wasOpen ? e.opens + 1 : 1;
      e.state = 'open';
      e.probing = false;
      e.openedAt = now;
      e.retryAt = now + Math.min(this.options.maxOpenMs, this.options.openMs * 2 ** (e.opens - 1));
      this.emit(key, e, 'opened');
      return;
    }
    this.emit(key, e, 'failure');
  }

  snapshot(key: string, script?: string): BreakerSnapshot {
    const e = script === undefined ? this.entries.get(key) : this.current(key, script);
    return e ? view(e) : { state: 'closed', consecutiveFailures: 0 };
  }

  /** Scripts with a breaker entry (failing now or recently); closed scripts without failures are not kept. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry of `key` for this script; an entry of a script since replaced is dropped (a new script starts closed). */
  private current(key: string, script: string): Entry | undefined {
    const e = this.entries.get(key);
    if (e && e.script !== script) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private create(key: string, script: string): Entry {
    const e: Entry = { script, state: 'closed', consecutive: 0, opens: 0, probing: false };
    this.entries.set(key, e);
    return e;
  }

  /** Closes (after a good probe) or resets the count (a success after failures); nothing to say for a clean entry. */
  private close(key: string, e: Entry, change: 'closed' | 'reset'): void {
    const report = change === 'closed' || e.consecutive > 0;
    e.state = 'closed';
    e.consecutive = 0;
    e.opens = 0;
    e.probing = false;
    e.openedAt = undefined;
    e.retryAt = undefined;
    if (report) this.emit(key, e, change);
    // Nothing left to remember once closed (the persisted state keeps the last error for the management API).
    this.entries.delete(key);
  }

  private emit(key: string, e: Entry, change: BreakerChange): void {
    this.onChange?.(key, change, view(e), e.script);
  }
}

function view(e: Entry): BreakerSnapshot {
  return {
    state: e.state,
    consecutiveFailures: e.consecutive,
    ...(e.state !== 'closed' && e.openedAt !== undefined ? { openedAt: e.openedAt } : {}),
    ...(e.state === 'open' && e.retryAt !== undefined ? { retryAt: e.retryAt } : {}),
    ...(e.lastError ? { lastError: { ...e.lastError } } : {}),
  };
}
