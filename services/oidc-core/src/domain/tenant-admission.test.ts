import { TenantAdmission, type Admission } from './tenant-admission';

/**
 * Enters requests named `${tenant}${i}`, recording the order in which they start. Unless `alone`, a request of a
 * background tenant "Z" stays in flight, so the tenants under test contend and their cap applies.
 */
function harness(maxInFlight: number, maxQueued: number, o: { alone?: boolean; maxInFlightAlone?: number } = {}) {
  let clock = 0;
  const admission = new TenantAdmission(
    { maxInFlight, maxQueued, activeWindowMs: 1000, maxInFlightAlone: o.maxInFlightAlone ?? 1000 },
    () => clock,
  );
  const started: string[] = [];
  const enter = (tenant: string, name: string): Admission | undefined =>
    admission.enter(tenant, () => started.push(name));
  const background = o.alone ? undefined : admission.enter('Z', () => undefined);
  started.length = 0;
  return {
    admission,
    started,
    enter,
    background,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('TenantAdmission (per-tenant fair admission of requests)', () => {
  it('starts a request at once, synchronously, while its tenant is under the cap', () => {
    const { admission, started, enter } = harness(2, 10);
    const a0 = enter('A', 'a0')!;
    expect(started).toEqual(['a0']);
    expect(a0.waited).toBe(false);
    enter('A', 'a1');
    expect(started).toEqual(['a0', 'a1']);
    expect(admission.inFlight('A')).toBe(2);
    expect(admission.queued('A')).toBe(0);
  });

  it('caps the requests of one tenant handled at once; the rest wait and start in FIFO order as slots free', () => {
    const { admission, started, enter } = harness(2, 10);
    const tickets = Array.from({ length: 6 }, (_, i) => enter('A', `a${i}`)!);
    expect(started).toEqual(['a0', 'a1']);
    expect(admission.inFlight('A')).toBe(2);
    expect(admission.queued('A')).toBe(4);
    expect(tickets.map((t) => t.waited)).toEqual([false, false, true, true, true, true]);
    tickets[1]!.release();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    tickets[0]!.release();
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(admission.inFlight('A')).toBe(2);
    for (const t of tickets.slice(2)) t.release();
    expect(started).toEqual(['a0', 'a1', 'a2', 'a3', 'a4', 'a5']);
    expect(admission.inFlight('A')).toBe(0);
    expect(admission.tenants).toBe(1); // Z only
  });

  it("admits another tenant's request at once however long the first tenant's backlog (fairness)", () => {
    const { admission, started, enter } = harness(8, 1000);
    for (let i = 0; i < 64; i++) enter('A', `a${i}`);
    expect(admission.inFlight('A')).toBe(8);
    expect(admission.queued('A')).toBe(56);
    const b0 = enter('B', 'b0')!;
    expect(b0.waited).toBe(false);
    expect(started.at(-1)).toBe('b0');
    expect(admission.inFlight('B')).toBe(1);
    // B's own requests are capped by B's cap alone, never by A's.
    for (let i = 1; i < 8; i++) expect(enter('B', `b${i}`)!.waited).toBe(false);
    expect(enter('B', 'b8')!.waited).toBe(true);
    expect(admission.queued('A')).toBe(56);
  });

  it("frees a slot only for the releasing request's own tenant", () => {
    const { admission, started, enter } = harness(1, 10);
    const a0 = enter('A', 'a0')!;
    enter('A', 'a1');
    const b0 = enter('B', 'b0')!;
    enter('B', 'b1');
    b0.release();
    expect(started).toEqual(['a0', 'b0', 'b1']);
    expect(admission.queued('A')).toBe(1);
    a0.release();
    expect(started).toEqual(['a0', 'b0', 'b1', 'a1']);
  });

  it("refuses a request over its tenant's queue bound, without touching other tenants", () => {
    const { admission, started, enter } = harness(2, 3);
    for (let i = 0; i < 5; i++) expect(enter('A', `a${i}`)).toBeDefined();
    expect(enter('A', 'a5')).toBeUndefined();
    expect(started).not.toContain('a5');
    expect(admission.queued('A')).toBe(3);
    expect(enter('B', 'b0')).toBeDefined();
    expect(started).toContain('b0');
  });

  it('with a queue bound of 0, refuses at once past the cap', () => {
    const { enter } = harness(1, 0);
    expect(enter('A', 'a0')).toBeDefined();
    expect(enter('A', 'a1')).toBeUndefined();
  });

  it('counts a release only once (finish then close, or close twice)', () => {
    const { admission, started, enter } = harness(2, 10);
    const a0 = enter('A', 'a0')!;
    enter('A', 'a1');
    enter('A', 'a2');
    enter('A', 'a3');
    a0.release();
    a0.release();
    a0.release();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    expect(admission.inFlight('A')).toBe(2);
    expect(admission.queued('A')).toBe(1);
  });

  it('a waiting request given up (client gone) leaves the queue and never starts, nor takes a slot', () => {
    const { admission, started, enter } = harness(1, 10);
    const a0 = enter('A', 'a0')!;
    const a1 = enter('A', 'a1')!;
    const a2 = enter('A', 'a2')!;
    a1.release();
    expect(admission.queued('A')).toBe(1);
    a0.release();
    expect(started).toEqual(['a0', 'a2']);
    a1.release();
    expect(admission.inFlight('A')).toBe(1);
    a2.release();
    expect(admission.inFlight('A')).toBe(0);
    expect(admission.queued('A')).toBe(0);
  });

  it('aborted requests do not leak slots: after every request of a flood is released, the tenant holds nothing', () => {
    const { admission, enter, background } = harness(4, 100);
    const tickets = Array.from({ length: 50 }, (_, i) => enter('A', `a${i}`)!);
    // Some are given up while waiting, some while handled, in no particular order, some twice.
    for (const i of [10, 3, 49, 0, 20, 21, 22, 1, 2, 3, 10]) tickets[i]!.release();
    for (const t of tickets) t.release();
    expect(admission.inFlight('A')).toBe(0);
    expect(admission.queued('A')).toBe(0);
    background!.release();
    expect(admission.tenants).toBe(0);
    // The tenant gets its full cap again.
    enter('Z', 'z');
    const again = Array.from({ length: 4 }, (_, i) => enter('A', `again${i}`)!);
    expect(again.every((t) => !t.waited)).toBe(true);
  });

  it('a request released from inside its own start (the client was already gone) passes the slot on', () => {
    const { admission, started, enter } = harness(1, 10);
    const a0 = enter('A', 'a0')!;
    const a1: Admission = admission.enter('A', () => {
      started.push('a1');
      a1.release();
    })!;
    enter('A', 'a2');
    a0.release();
    expect(started).toEqual(['a0', 'a1', 'a2']);
    expect(admission.inFlight('A')).toBe(1);
    expect(admission.queued('A')).toBe(0);
  });

  describe('the cap gives way while no other tenant is active', () => {
    it('caps a tenant alone in the process at maxInFlightAlone only', () => {
      const { admission, started, enter } = harness(2, 10, { alone: true, maxInFlightAlone: 100 });
      for (let i = 0; i < 100; i++) expect(enter('A', `a${i}`)!.waited).toBe(false);
      expect(started).toHaveLength(100);
      expect(admission.inFlight('A')).toBe(100);
      expect(admission.contended('A')).toBe(false);
      expect(enter('A', 'a100')!.waited).toBe(true);
    });

    it('without maxInFlightAlone, a tenant alone is capped at maxInFlight', () => {
      const admission = new TenantAdmission({ maxInFlight: 2, maxQueued: 10 });
      const noop = () => undefined;
      expect(admission.enter('A', noop)!.waited).toBe(false);
      expect(admission.enter('A', noop)!.waited).toBe(false);
      expect(admission.enter('A', noop)!.waited).toBe(true);
    });

    it("caps the first tenant's new requests as soon as another tenant turns up, and admits the newcomer at once", () => {
      const { admission, started, enter } = harness(2, 10, { alone: true });
      const a = Array.from({ length: 5 }, (_, i) => enter('A', `a${i}`)!);
      const b0 = enter('B', 'b0')!;
      expect(b0.waited).toBe(false);
      expect(enter('A', 'a5')!.waited).toBe(true);
      // A's 5 handled requests finish; only the last one brings A under its cap of 2.
      for (const t of a.slice(0, 3)) t.release();
      expect(started).not.toContain('a5');
      a[3]!.release();
      expect(started.at(-1)).toBe('a5');
      expect(admission.inFlight('A')).toBe(2);
    });

    it('keeps the cap for the active window after the other tenant is answered, then lifts it', () => {
      const { admission, started, enter, advance } = harness(1, 10, { alone: true });
      enter('B', 'b0')!.release();
      const a0 = enter('A', 'a0')!;
      const a1 = enter('A', 'a1')!;
      expect(a1.waited).toBe(true);
      enter('A', 'a2');
      enter('A', 'a3');
      advance(999);
      expect(admission.contended('A')).toBe(true);
      a0.release();
      expect(started).toEqual(['b0', 'a0', 'a1']);
      advance(2);
      expect(admission.contended('A')).toBe(false);
      // Alone again: the next release starts every waiting request, and new ones start at once.
      a1.release();
      expect(started).toEqual(['b0', 'a0', 'a1', 'a2', 'a3']);
      expect(admission.inFlight('A')).toBe(2);
      expect(enter('A', 'a4')!.waited).toBe(false);
    });

    it('tells tenants apart among many: the most recent other tenant counts', () => {
      const { admission, enter, advance } = harness(1, 10, { alone: true });
      enter('B', 'b')!.release();
      advance(500);
      enter('C', 'c')!.release();
      advance(600);
      // B is outside the window, C inside it: for A, for B and for C another tenant is (or is not) active.
      expect(admission.contended('A')).toBe(true);
      expect(admission.contended('B')).toBe(true);
      expect(admission.contended('C')).toBe(false);
      advance(500);
      expect(admission.contended('A')).toBe(false);
    });
  });

  describe('a request waiting on an outbound fetch (suspend, resume)', () => {
    it('gives its slot to the next waiting request while it waits, and takes it back at once, above the cap; the queue waits until the tenant is back under', () => {
      const { admission, started, enter } = harness(2, 10);
      const [a0, a1, a2] = ['a0', 'a1', 'a2', 'a3'].map((name) => enter('A', name)!);
      expect(started).toEqual(['a0', 'a1']);
      expect(a0!.suspend()).toBe(true);
      // a0's slot went to a2 at once.
      expect(started).toEqual(['a0', 'a1', 'a2']);
      expect(admission.inFlight('A')).toBe(2);
      expect(admission.queued('A')).toBe(1);
      a0!.resume();
      // Back at once, though the tenant is at its cap: it may be what a2 waits on (a shared key-set refresh).
      expect(admission.inFlight('A')).toBe(3);
      a1!.release();
      // Still at its cap: a3 keeps waiting.
      expect(started).toEqual(['a0', 'a1', 'a2']);
      a2!.release();
      expect(started).toEqual(['a0', 'a1', 'a2', 'a3']);
      expect(admission.inFlight('A')).toBe(2);
      expect(admission.queued('A')).toBe(0);
    });

    it('no wait on a wait: requests that hold every slot while they await what a suspended request does let it finish', () => {
      const { admission, started, enter } = harness(2, 10);
      const fetcher = enter('A', 'fetcher')!;
      fetcher.suspend();
      const waiters = [enter('A', 'w1')!, enter('A', 'w2')!];
      expect(started).toEqual(['fetcher', 'w1', 'w2']);
      // The fetch is over: the fetcher goes on without waiting for w1 or w2, which wait on it.
      fetcher.resume();
      fetcher.release();
      for (const w of waiters) w.release();
      expect(admission.inFlight('A')).toBe(0);
      expect(admission.tenants).toBe(1); // Z only
    });

    it('eight suspended requests hold no slot: another request of the tenant starts at once', () => {
      const { admission, started, enter } = harness(2, 512);
      const fetching = Array.from({ length: 8 }, (_, i) => enter('A', `fetch${i}`)!);
      for (const t of fetching) expect(t.suspend()).toBe(true);
      expect(admission.inFlight('A')).toBe(0);
      expect(started).toContain('fetch7');
      enter('A', 'token');
      expect(started.at(-1)).toBe('token');
      expect(admission.inFlight('A')).toBe(1);
    });

    it('refuses to suspend more than maxAway requests of a tenant; a released or resumed one makes room', () => {
      const admission = new TenantAdmission({ maxInFlight: 2, maxQueued: 100, maxAway: 3 }, () => 0);
      admission.enter('Z', () => undefined);
      const a = Array.from({ length: 5 }, () => admission.enter('A', () => undefined)!);
      expect(a.map((t) => t.suspend())).toEqual([true, true, true, false, false]);
      // The refused ones still hold their slots.
      expect(admission.inFlight('A')).toBe(2);
      a[0]!.release();
      expect(a[3]!.suspend()).toBe(true);
      a[1]!.resume();
      expect(a[4]!.suspend()).toBe(true);
    });

    it('a request released while away leaks nothing; resume after release, and suspend of a queued or finished request, do nothing', () => {
      const { admission, enter } = harness(1, 10);
      const gone = enter('A', 'a0')!;
      gone.suspend();
      gone.release();
      gone.resume();
      expect(admission.inFlight('A')).toBe(0);
      expect(admission.queued('A')).toBe(0);
      expect(admission.tenants).toBe(1); // Z only
      const a1 = enter('A', 'a1')!;
      const a2 = enter('A', 'a2')!;
      expect(a2.suspend()).toBe(true);
      expect(admission.queued('A')).toBe(1);
      a1.release();
      a1.suspend();
      expect(admission.inFlight('A')).toBe(1);
    });
  });

  it('rejects limits that would admit nothing', () => {
    expect(() => new TenantAdmission({ maxInFlight: 0, maxQueued: 10 })).toThrow(TypeError);
    expect(() => new TenantAdmission({ maxInFlight: 1, maxQueued: -1 })).toThrow(TypeError);
    expect(() => new TenantAdmission({ maxInFlight: 1.5, maxQueued: 1 })).toThrow(TypeError);
    expect(() => new TenantAdmission({ maxInFlight: 1, maxQueued: 1, maxInFlightAlone: 0 })).toThrow(TypeError);
  });
});
