import { TenantFairQueue } from './tenant-fair-queue';

/** Takes jobs until none is runnable, marking each done at once when `finish` is set. */
function takeAll(q: TenantFairQueue<string>, finish = true): string[] {
  const out: string[] = [];
  for (let n = q.next(); n; n = q.next()) {
    out.push(n.job);
    if (finish) q.done(n.owner);
  }
  return out;
}

describe('TenantFairQueue (the sandbox scheduler)', () => {
  it('serves owners round-robin, not first come first served', () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 10, maxQueuedPerOwner: 100 });
    for (let i = 0; i < 5; i++) q.enqueue('A', `a${i}`);
    q.enqueue('B', 'b0');
    q.enqueue('B', 'b1');
    q.enqueue('C', 'c0');
    expect(takeAll(q)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'a3', 'a4']);
  });

  it("puts a newcomer's job right after the job now being served, whatever the backlog ahead of it", () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 1, maxQueuedPerOwner: 1000 });
    for (let i = 0; i < 999; i++) q.enqueue('A', `a${i}`);
    const first = q.next()!;
    expect(first.job).toBe('a0');
    q.enqueue('B', 'b0');
    q.done('A');
    expect(q.next()!.job).toBe('b0');
  });

  it('caps the jobs of one owner running at once; others still start', () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 2, maxQueuedPerOwner: 100 });
    for (let i = 0; i < 5; i++) q.enqueue('A', `a${i}`);
    expect(takeAll(q, false)).toEqual(['a0', 'a1']);
    expect(q.running('A')).toBe(2);
    expect(q.hasRunnable()).toBe(false);
    q.enqueue('B', 'b0');
    expect(q.hasRunnable()).toBe(true);
    expect(takeAll(q, false)).toEqual(['b0']);
    q.done('A');
    expect(takeAll(q, false)).toEqual(['a2']);
  });

  it('refuses an owner over its queue bound, and only that owner', () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 1, maxQueuedPerOwner: 3 });
    expect([1, 2, 3, 4, 5].map((i) => q.enqueue('A', `a${i}`))).toEqual([true, true, true, false, false]);
    expect(q.queued('A')).toBe(3);
    expect([1, 2, 3].map((i) => q.enqueue('B', `b${i}`))).toEqual([true, true, true]);
    // Running jobs do not take queue places: A gets one place back per job started.
    q.next();
    expect(q.enqueue('A', 'a6')).toBe(true);
    expect(q.enqueue('A', 'a7')).toBe(false);
    expect(q.size).toBe(6);
  });

  it('forgets idle owners and drains what waits', () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 1, maxQueuedPerOwner: 10 });
    q.enqueue('A', 'a0');
    q.enqueue('A', 'a1');
    q.enqueue('B', 'b0');
    const n = q.next()!;
    expect(q.drain().sort()).toEqual(['a1', 'b0']);
    expect(q.size).toBe(0);
    expect(q.running('A')).toBe(1);
    q.done(n.owner);
    q.done(n.owner); // a second done is ignored
    expect(q.running('A')).toBe(0);
    expect(q.next()).toBeUndefined();
  });

  it('refuses limits that would stall or make no sense', () => {
    expect(() => new TenantFairQueue({ maxRunningPerOwner: 0, maxQueuedPerOwner: 1 })).toThrow(TypeError);
    expect(() => new TenantFairQueue({ maxRunningPerOwner: 1, maxQueuedPerOwner: -1 })).toThrow(TypeError);
  });
});

describe('TenantFairQueue: an owner holding workers goes after one that holds none', () => {
  it('starts the idle owner first when a worker frees up', () => {
    const q = new TenantFairQueue<string>({ maxRunningPerOwner: 3, maxQueuedPerOwner: 100 });
    for (let i = 0; i < 10; i++) q.enqueue('A', `a${i}`);
    expect([q.next()!.job, q.next()!.job]).toEqual(['a0', 'a1']); // A holds two workers
    q.enqueue('B', 'b0');
    q.enqueue('C', 'c0');
    expect([q.next()!.job, q.next()!.job, q.next()!.job]).toEqual(['b0', 'c0', 'a2']);
  });
});
