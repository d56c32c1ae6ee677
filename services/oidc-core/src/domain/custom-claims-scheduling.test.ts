/**
 * The sandbox pool's scheduling with real workers: tenant A floods the pool with `while (true) {}` (a tenant admin's
 * looping customizeUserInfoClaims script), tenant B's calls still start at once on the worker A may not take, B's
 * results all come back, A's overflow is refused for A only, and A never runs more than its cap.
 */
import {
  CustomClaimsSandbox,
  CustomClaimsScriptError,
  DEFAULT_MAX_QUEUED_PER_TENANT,
  defaultMaxRunningPerTenant,
  defaultPoolSize,
} from './custom-claims-sandbox';

const input = { user: { sub: 'u1', claims: {}, custom_claims: { dept: 'ops' } }, context: { tenantId: 2 } };

describe('sandbox scheduling across tenants', () => {
  const sandbox = new CustomClaimsSandbox({ size: 2 });
  afterAll(() => sandbox.close());

  beforeAll(async () => {
    // Both workers started and their WASM loaded, so what is timed is scheduling, not start-up.
    await Promise.all([
      sandbox.run('return {}', {}, undefined, { owner: 'x' }),
      sandbox.run('return {}', {}, undefined, { owner: 'y' }),
    ]);
  });

  it('has the documented defaults', () => {
    expect(sandbox.maxRunningPerTenant).toBe(1);
    expect(sandbox.maxQueuedPerTenant).toBe(DEFAULT_MAX_QUEUED_PER_TENANT);
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(2);
    expect(defaultMaxRunningPerTenant(8)).toBe(4);
    expect(defaultMaxRunningPerTenant(1)).toBe(1);
  });

  it("a tenant's while(true) flood neither delays nor drops another tenant's calls", async () => {
    const flood = Array.from({ length: DEFAULT_MAX_QUEUED_PER_TENANT + 30 }, () =>
      sandbox.run('while (true) {}', input, undefined, { owner: 'A' }).then(
        () => 'ok',
        (err: CustomClaimsScriptError) => err.reason,
      ),
    );
    let maxRunningA = 0;
    const sampler = setInterval(() => (maxRunningA = Math.max(maxRunningA, sandbox.load('A').running)), 5);
    await new Promise((r) => setTimeout(r, 100));
    // A's backlog is now DEFAULT_MAX_QUEUED_PER_TENANT scripts of at least 50 ms each, on one worker.
    expect(sandbox.load('A').queued).toBeGreaterThan(20);
    const latencies: number[] = [];
    const results = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      results.push(
        await sandbox.run(
          'return { dept: input.user.custom_claims.dept, tenant: input.context.tenantId };',
          input,
          undefined,
          { owner: 'B' },
        ),
      );
      latencies.push(performance.now() - started);
    }
    const outcomes = await Promise.all(flood);
    clearInterval(sampler);
    expect(results).toEqual(Array.from({ length: 10 }, () => ({ dept: 'ops', tenant: 2 })));
    // Behind A's FIFO backlog (the old pool) each would wait seconds; on the worker A may not take, milliseconds
    // (bounded loosely for a loaded 2-core test machine).
    expect(Math.max(...latencies)).toBeLessThan(500);
    // A's overflow was refused for A only, and A never held both workers.
    expect(outcomes.filter((o) => o === 'busy').length).toBeGreaterThanOrEqual(30 - 1);
    expect(outcomes.filter((o) => o === 'timeout').length).toBeGreaterThan(0);
    expect(outcomes).not.toContain('ok');
    expect(maxRunningA).toBe(1);
  }, 30_000);

  it('refuses over the queue bound with busy, for that tenant only', async () => {
    const small = new CustomClaimsSandbox({ size: 2, maxRunningPerTenant: 1, maxQueuedPerTenant: 2 });
    try {
      await Promise.all([
        small.run('return {}', {}, undefined, { owner: 'x' }),
        small.run('return {}', {}, undefined, { owner: 'y' }),
      ]);
      const a = Array.from({ length: 5 }, () =>
        small.run('while (true) {}', {}, undefined, { owner: 'A' }).catch((e: CustomClaimsScriptError) => e.reason),
      );
      await expect(small.run('return { b: 1 };', {}, undefined, { owner: 'B' })).resolves.toEqual({ b: 1 });
      const reasons = await Promise.all(a);
      // One running, two waiting, two refused.
      expect(reasons.filter((r) => r === 'busy')).toHaveLength(2);
      expect(reasons.filter((r) => r === 'timeout')).toHaveLength(3);
    } finally {
      await small.close();
    }
  }, 30_000);

  it('skips a waiting call whose gate says so, without running it', async () => {
    const skip = new CustomClaimsScriptError('busy', 'skipped');
    await expect(sandbox.run('return { ran: true };', {}, undefined, { owner: 'C', gate: () => skip })).rejects.toBe(
      skip,
    );
    await expect(
      sandbox.run('return { ran: true };', {}, undefined, { owner: 'C', gate: () => undefined }),
    ).resolves.toEqual({ ran: true });
  });
});
