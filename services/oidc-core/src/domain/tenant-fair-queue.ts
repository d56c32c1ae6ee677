/**
 * The sandbox's scheduler: one FIFO queue per owner (a tenant), served round-robin, with a cap on how many jobs of
 * one owner run at once and on how many wait. So one tenant can fill only its own queue and, with a running cap
 * below the pool size, never every worker: another tenant's job waits at most for one job to finish, never behind
 * the first tenant's backlog. Pure bookkeeping (no timers, no workers), so its rules are unit-tested directly.
 */

export interface FairQueueLimits {
  /** Jobs of one owner running at once (>= 1). */
  maxRunningPerOwner: number;
  /** Jobs of one owner waiting (>= 0); one more is refused. */
  maxQueuedPerOwner: number;
}

interface OwnerState<J> {
  queue: J[];
  running: number;
  /** Serial number of the last time one of its jobs started (0: never, or not since it was last idle). */
  lastServed: number;
}

export class TenantFairQueue<J> {
  private readonly owners = new Map<string, OwnerState<J>>();
  /** Owners with waiting jobs. */
  private ring: string[] = [];
  private waiting = 0;
  private served = 0;

  constructor(private readonly limits: FairQueueLimits) {
    if (!(limits.maxRunningPerOwner >= 1)) throw new TypeError('maxRunningPerOwner must be at least 1');
    if (!(limits.maxQueuedPerOwner >= 0)) throw new TypeError('maxQueuedPerOwner must be at least 0');
  }

  /** Queues a job; false (nothing queued) when the owner's queue is full. */
  enqueue(owner: string, job: J): boolean {
    const s = this.state(owner);
    if (s.queue.length >= this.limits.maxQueuedPerOwner) {
      this.forget(owner, s);
      return false;
    }
    s.queue.push(job);
    this.waiting++;
    if (s.queue.length === 1) this.ring.push(owner);
    return true;
  }

  /**
   * The next job to run: among owners with a waiting job and below their running cap, the one with the fewest jobs
   * running, ties broken round-robin (least recently served first). So an owner that has nothing running goes
   * before one that already holds workers, however long the latter's backlog. The job counts as running (until
   * `done`).
   */
  next(): { owner: string; job: J } | undefined {
    let pick = -1;
    let best: OwnerState<J> | undefined;
    for (let i = 0; i < this.ring.length; i++) {
      const s = this.owners.get(this.ring[i]!)!;
      if (s.running >= this.limits.maxRunningPerOwner) continue;
      if (!best || s.running < best.running || (s.running === best.running && s.lastServed < best.lastServed)) {
        pick = i;
        best = s;
      }
    }
    if (!best) return undefined;
    const owner = this.ring[pick]!;
    const job = best.queue.shift()!;
    this.waiting--;
    best.running++;
    best.lastServed = ++this.served;
    if (!best.queue.length) this.ring.splice(pick, 1);
    return { owner, job };
  }

  /** Whether `next()` would return a job now. */
  hasRunnable(): boolean {
    return this.ring.some((o) => this.owners.get(o)!.running < this.limits.maxRunningPerOwner);
  }

  /** A job that `next()` returned has finished (whatever its outcome). */
  done(owner: string): void {
    const s = this.owners.get(owner);
    if (!s || s.running === 0) return;
    s.running--;
    this.forget(owner, s);
  }

  /** Removes and returns every waiting job (running ones stay counted until `done`). */
  drain(): J[] {
    const out: J[] = [];
    for (const owner of this.ring) {
      const s = this.owners.get(owner)!;
      out.push(...s.queue.splice(0));
      this.forget(owner, s);
    }
    this.ring = [];
    this.waiting = 0;
    return out;
  }

  /** Jobs waiting, over every owner. */
  get size(): number {
    return this.waiting;
  }

  queued(owner: string): number {
    return this.owners.get(owner)?.queue.length ?? 0;
  }

  running(owner: string): number {
    return this.owners.get(owner)?.running ?? 0;
  }

  private state(owner: string): OwnerState<J> {
    let s = this.owners.get(owner);
    if (!s) {
      s = { queue: [], running: 0, lastServed: 0 };
      this.owners.set(owner, s);
    }
    return s;
  }

  /** Idle owners are not kept (the map holds only owners with work). */
  private forget(owner: string, s: OwnerState<J>): void {
    if (s.running === 0 && s.queue.length === 0) this.owners.delete(owner);
  }
}
