import { ScriptBreaker, type BreakerChange, type BreakerSnapshot } from './custom-claims-breaker';

const timeout = { ok: false as const, reason: 'timeout', message: 'script exceeded 50 ms' };
const memory = { ok: false as const, reason: 'memory', message: 'out of memory' };
const threw = { ok: false as const, reason: 'threw', message: 'script threw Error: boom' };
const ok = { ok: true as const };

function setup(threshold = 3) {
  let now = 1_000_000;
  const changes: Array<{ change: BreakerChange; snap: BreakerSnapshot }> = [];
  const b = new ScriptBreaker(
    { failureThreshold: threshold, openMs: 30_000, maxOpenMs: 100_000 },
    () => now,
    (_k, change, snap) => changes.push({ change, snap }),
  );
  return { b, changes, advance: (ms: number) => (now += ms), now: () => now };
}

/** Admits and records one call. */
function call(
  b: ScriptBreaker,
  outcome: Parameters<ScriptBreaker['record']>[3],
  key = '7:app',
  script = 'while(true){}',
) {
  const admission = b.admit(key, script);
  if (admission !== 'skip') b.record(key, script, admission, outcome);
  return admission;
}

describe('ScriptBreaker', () => {
  it('opens after the threshold of timeouts or memory failures in a row, then skips', () => {
    const { b, changes, now } = setup(3);
    expect([call(b, timeout), call(b, memory)]).toEqual(['run', 'run']);
    expect(b.snapshot('7:app').state).toBe('closed');
    expect(call(b, timeout)).toBe('run');
    const snap = b.snapshot('7:app');
    expect(snap).toMatchObject({
      state: 'open',
      consecutiveFailures: 3,
      openedAt: now(),
      retryAt: now() + 30_000,
      lastError: { reason: 'timeout', at: now() },
    });
    expect(changes.map((c) => c.change)).toEqual(['failure', 'failure', 'opened']);
    expect(call(b, ok)).toBe('skip');
    expect(call(b, ok)).toBe('skip');
  });

  it('half-opens after the open period: one probe runs, the others are skipped meanwhile', () => {
    const { b, advance } = setup(1);
    call(b, timeout);
    advance(30_000);
    expect(b.admit('7:app', 'while(true){}')).toBe('probe');
    expect(b.snapshot('7:app').state).toBe('half_open');
    expect(b.admit('7:app', 'while(true){}')).toBe('skip');
  });

  it('closes when the probe succeeds', () => {
    const { b, changes, advance } = setup(1);
    call(b, timeout);
    advance(30_000);
    expect(call(b, ok)).toBe('probe');
    expect(b.snapshot('7:app')).toEqual({ state: 'closed', consecutiveFailures: 0 });
    expect(changes.map((c) => c.change)).toEqual(['opened', 'half_opened', 'closed']);
    // The closed state keeps the last error for the management API.
    expect(changes.at(-1)!.snap).toMatchObject({ state: 'closed', lastError: { reason: 'timeout' } });
    expect(call(b, ok)).toBe('run');
    expect(b.size).toBe(0);
  });

  it('closes when the probe fails cheaply (it no longer exhausts the sandbox)', () => {
    const { b, advance } = setup(1);
    call(b, memory);
    advance(30_000);
    expect(call(b, threw)).toBe('probe');
    expect(b.snapshot('7:app').state).toBe('closed');
  });

  it('opens again, twice as long each time up to the maximum, when the probe times out', () => {
    const { b, advance, now } = setup(1);
    call(b, timeout);
    const periods: number[] = [];
    for (let i = 0; i < 4; i++) {
      advance(b.snapshot('7:app').retryAt! - now());
      expect(call(b, timeout)).toBe('probe');
      periods.push(b.snapshot('7:app').retryAt! - now());
    }
    expect(periods).toEqual([60_000, 100_000, 100_000, 100_000]);
  });

  it('gives the probe back when the call was refused before it ran (busy)', () => {
    const { b, advance } = setup(1);
    call(b, timeout);
    advance(30_000);
    expect(call(b, { ok: false, reason: 'busy', message: 'queue full' })).toBe('probe');
    expect(b.snapshot('7:app').state).toBe('half_open');
    expect(b.admit('7:app', 'while(true){}')).toBe('probe');
  });

  it('counts only consecutive heavy failures: a success resets the count, cheap failures leave it', () => {
    const { b, changes } = setup(3);
    call(b, timeout);
    call(b, timeout);
    call(b, threw);
    expect(b.snapshot('7:app').consecutiveFailures).toBe(2);
    call(b, ok);
    expect(b.snapshot('7:app').consecutiveFailures).toBe(0);
    expect(changes.map((c) => c.change)).toEqual(['failure', 'failure', 'reset']);
    call(b, timeout);
    call(b, timeout);
    expect(b.snapshot('7:app').state).toBe('closed');
  });

  it('keeps one breaker per tenant + client: another script is not skipped', () => {
    const { b } = setup(1);
    call(b, timeout, '7:app');
    expect(call(b, ok, '7:app')).toBe('skip');
    expect(call(b, ok, '7:other')).toBe('run');
    expect(call(b, ok, '8:app')).toBe('run');
  });

  it('starts closed again when the script is replaced', () => {
    const { b } = setup(1);
    call(b, timeout, '7:app', 'while(true){}');
    expect(call(b, ok, '7:app', 'while(true){}')).toBe('skip');
    expect(call(b, ok, '7:app', 'return {};')).toBe('run');
  });

  it('skips calls that were queued before the breaker opened, but never the probe', () => {
    const { b, advance } = setup(1);
    const queued = b.admit('7:app', 's');
    call(b, timeout, '7:app', 's');
    expect(b.stillAdmitted('7:app', 's', queued)).toBe(false);
    advance(30_000);
    const probe = b.admit('7:app', 's');
    expect(probe).toBe('probe');
    expect(b.stillAdmitted('7:app', 's', probe)).toBe(true);
    expect(b.stillAdmitted('7:app', 's', 'run')).toBe(false);
  });
});
