/**
 * Persists the circuit-breaker state of customizeUserInfoClaims scripts (libs/db CustomClaimsScriptState) so that
 * the management API, another process, can show it. Writes are bounded, never one per call: a transition (opened,
 * half-opened, closed) is written at once; failures and resets are coalesced to at most one write per script every
 * `minIntervalMs` (the last one always lands); at most one write per script is in flight. A failed write is logged
 * and dropped: the breaker itself lives in memory and never waits for the store.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { CustomClaimsScriptStateDoc, Models } from '@idp/db';
import { BREAKER_TRANSITIONS, type BreakerChange, type BreakerSnapshot } from '../domain/custom-claims-breaker';

export interface StateWriterLog {
  warn: (obj: object, msg: string) => void;
}

export interface ScriptStateReport {
  tenantId: number;
  clientId: string;
  script: string;
  change: BreakerChange;
  snapshot: BreakerSnapshot;
}

interface Slot {
  lastWriteAt: number;
  inFlight: boolean;
  pending?: { doc: CustomClaimsScriptStateDoc; force: boolean };
  timer?: NodeJS.Timeout;
}

export function scriptSha256(script: string): string {
  return createHash('sha256').update(script).digest('hex');
}

export class ScriptStateWriter {
  private readonly slots = new LRUCache<string, Slot>({ max: 10_000 });
  /** Writes done (for tests and the benchmark: proves the bound). */
  writes = 0;

  constructor(
    private readonly models: Pick<Models, 'CustomClaimsScriptState'>,
    private readonly options: { minIntervalMs?: number; log?: StateWriterLog; clock?: () => number } = {},
  ) {}

  private get interval(): number {
    return this.options.minIntervalMs ?? 5000;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  report(r: ScriptStateReport): void {
    const key = `${r.tenantId}:${r.clientId}`;
    const s = r.snapshot;
    const doc: CustomClaimsScriptStateDoc = {
      tenantId: r.tenantId,
      clientId: r.clientId,
      scriptSha256: scriptSha256(r.script),
      state: s.state,
      consecutiveFailures: s.consecutiveFailures,
      ...(s.openedAt !== undefined ? { openedAt: new Date(s.openedAt) } : {}),
      ...(s.retryAt !== undefined ? { retryAt: new Date(s.retryAt) } : {}),
      ...(s.lastError
        ? { lastError: { reason: s.lastError.reason, message: s.lastError.message, at: new Date(s.lastError.at) } }
        : {}),
      updatedAt: new Date(this.now()),
    };
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { lastWriteAt: -Infinity, inFlight: false };
      this.slots.set(key, slot);
    }
    slot.pending = { doc, force: BREAKER_TRANSITIONS.has(r.change) || Boolean(slot.pending?.force) };
    this.schedule(slot);
  }

  /** Resolves when nothing is pending or in flight (tests). */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.slots.values()].some((s) => s.inFlight || s.pending);
      if (!busy) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private schedule(slot: Slot): void {
    if (slot.inFlight || !slot.pending) return;
    const wait = slot.pending.force ? 0 : slot.lastWriteAt + this.interval - this.now();
    if (wait <= 0) {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = undefined;
      void this.flush(slot);
      return;
    }
    if (slot.timer) return;
    slot.timer = setTimeout(() => {
      slot.timer = undefined;
      this.schedule(slot);
    }, wait);
    slot.timer.unref();
  }

  private async flush(slot: Slot): Promise<void> {
    const pending = slot.pending;
    if (!pending) return;
    slot.pending = undefined;
    slot.inFlight = true;
    slot.lastWriteAt = this.now();
    const { tenantId, clientId, ...rest } = pending.doc;
    const $unset: Record<string, 1> = {};
    for (const k of ['openedAt', 'retryAt', 'lastError'] as const) if (rest[k] === undefined) $unset[k] = 1;
    const update = { $set: rest, ...(Object.keys($unset).length ? { $unset } : {}) };
    try {
      this.writes++;
      await this.models.CustomClaimsScriptState.updateOne({ tenantId, clientId }, update, { upsert: true }).catch(
        async (err: unknown) => {
          // Two replicas inserting the first state at once: the loser updates the winner's row.
          if ((err as { code?: unknown } | null | undefined)?.code !== 11000) throw err;
          await this.models.CustomClaimsScriptState.updateOne({ tenantId, clientId }, update);
        },
      );
    } catch (err) {
      this.options.log?.warn(
        {
          event: 'custom_claims.script_state_write_failed',
          tenantId,
          client_id: clientId,
          error: (err as Error).message,
        },
        'could not record the script breaker state',
      );
    } finally {
      slot.inFlight = false;
      this.schedule(slot);
    }
  }
}
