import {
  customClaimsSandbox,
  CustomClaimsSandbox,
  CustomClaimsScriptError,
  DEFAULT_SANDBOX_LIMITS,
  runCustomClaimsScript,
  type SandboxFailure,
} from './custom-claims-sandbox';

/**
 * The time limit plus the hard-kill slack (the worker is terminated then, whatever the script does), plus
 * scheduling noise on a shared, heavily loaded 2-core test machine.
 */
const limit = DEFAULT_SANDBOX_LIMITS.timeLimitMs + DEFAULT_SANDBOX_LIMITS.hardKillGraceMs + 700;

const input = {
  user: { sub: 'u1', claims: { email: 'a@example.com' }, custom_claims: { dept: 'ops' } },
  context: { tenantId: 7, clientId: 'app' },
};

async function failure(script: string): Promise<{ reason: SandboxFailure; ms: number }> {
  const started = performance.now();
  try {
    await runCustomClaimsScript(script, input);
  } catch (err) {
    expect(err).toBeInstanceOf(CustomClaimsScriptError);
    return { reason: (err as CustomClaimsScriptError).reason, ms: performance.now() - started };
  }
  throw new Error('the script was expected to fail');
}

describe('customizeUserInfoClaims sandbox', () => {
  beforeAll(async () => {
    // Start the workers and load the WASM module so the timed cases measure the script only.
    await Promise.all([runCustomClaimsScript('return {}', {}), runCustomClaimsScript('return {}', {})]);
  });

  afterAll(() => customClaimsSandbox().close());

  it('returns the object the script builds from its input', async () => {
    await expect(
      runCustomClaimsScript(
        'return { department: input.user.custom_claims.dept, tenant: input.context.tenantId, mail: input.user.claims.email };',
        input,
      ),
    ).resolves.toEqual({ department: 'ops', tenant: 7, mail: 'a@example.com' });
  });

  it('gives the script a frozen copy: writes to the input throw and never reach the caller', async () => {
    const original = structuredClone(input);
    expect((await failure('input.user.claims.email = "x"; return {};')).reason).toBe('threw');
    expect((await failure('input.user.custom_claims.added = 1; return {};')).reason).toBe('threw');
    expect(input).toEqual(original);
  });

  it('stops an infinite loop at the time limit', async () => {
    const { reason, ms } = await failure('while (true) {}');
    expect(reason).toBe('timeout');
    expect(ms).toBeLessThan(limit);
  });

  it.each([
    ['growing arrays', 'const a = []; while (true) a.push(new Array(100000).fill("xxxxxxxx"));'],
    ['doubling strings', 'let s = "x"; while (true) s = s + s;'],
    ['one huge allocation', 'return { a: new Array(1e9).fill(0) };'],
  ])('stops a memory bomb (%s) within the limits', async (_label, script) => {
    const { reason, ms } = await failure(script);
    expect(['memory', 'timeout', 'threw']).toContain(reason);
    expect(ms).toBeLessThan(limit);
  });

  it('keeps working after a worker had to be terminated', async () => {
    await failure('const a = []; while (true) a.push(new Array(100000).fill("x"));');
    await expect(runCustomClaimsScript('return { ok: true };', {})).resolves.toEqual({ ok: true });
  });

  it('stops unbounded recursion at the stack limit', async () => {
    const { reason, ms } = await failure('const f = () => f(); f();');
    expect(['memory', 'threw']).toContain(reason);
    expect(ms).toBeLessThan(limit);
  });

  it.each([
    ['process', 'return { v: process.env };'],
    ['require', 'return { v: require("fs").readFileSync("/etc/passwd", "utf8") };'],
    ['fetch', 'fetch("http://example.com"); return {};'],
    ['globalThis.process', 'return { v: globalThis.process.pid };'],
    ['constructor escape', 'return { v: (function(){}).constructor("return process")().pid };'],
    ['std/os modules', 'return { v: std.loadFile("/etc/passwd") };'],
  ])('has no way to reach the host: %s', async (_label, script) => {
    expect(['threw', 'syntax']).toContain((await failure(script)).reason);
  });

  it('exposes nothing of the host on globalThis', async () => {
    const names = await runCustomClaimsScript('return { names: Object.getOwnPropertyNames(globalThis) };', {});
    const list = names.names as string[];
    for (const host of ['process', 'require', 'module', 'Buffer', 'fetch', 'XMLHttpRequest', 'std', 'os', 'setTimeout'])
      expect(list).not.toContain(host);
  });

  it('reports a script that throws', async () => {
    expect((await failure('throw new Error("nope")')).reason).toBe('threw');
  });

  it.each([
    ['a string', 'return "claims";', 'invalid_return'],
    ['an array', 'return [1, 2];', 'invalid_return'],
    ['null', 'return null;', 'invalid_return'],
    ['nothing', 'const x = 1;', 'invalid_return'],
    ['a number', 'return 42;', 'invalid_return'],
  ])('refuses %s as the result', async (_label, script, reason) => {
    expect((await failure(script)).reason).toBe(reason);
  });

  it('refuses a script that does not compile', async () => {
    expect((await failure('return {')).reason).toBe('syntax');
  });

  it('refuses an oversized result', async () => {
    expect((await failure('return { big: "x".repeat(100000) };')).reason).toBe('output_too_large');
  });

  it('keeps calls isolated from each other', async () => {
    await runCustomClaimsScript('globalThis.leak = 1; return {};', {});
    await expect(runCustomClaimsScript('return { leaked: typeof globalThis.leak };', {})).resolves.toEqual({
      leaked: 'undefined',
    });
  });
});

describe('the hard kill and a host that was busy', () => {
  it('takes an answer that arrived in time rather than killing the worker when the host thread was blocked', async () => {
    const sandbox = new CustomClaimsSandbox({ size: 1 });
    try {
      const limits = { ...DEFAULT_SANDBOX_LIMITS, timeLimitMs: 50, hardKillGraceMs: 50 };
      await sandbox.run('return {}', {}, limits);
      const call = sandbox.run('return { dept: input.dept };', { dept: 'ops' }, limits);
      // The worker answers within milliseconds on its own thread, while this thread is busy (in a check-phase
      // callback) for longer than the deadline: the next turn of the event loop runs the due hard-kill timer before
      // it reads the answer that has been waiting since.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          const until = performance.now() + 4 * (limits.timeLimitMs + limits.hardKillGraceMs);
          while (performance.now() < until) {
            /* a host thread busy with other requests */
          }
          resolve();
        }),
      );
      await expect(call).resolves.toEqual({ dept: 'ops' });
      // The worker was kept: a loop is still stopped by its own deadline.
      await expect(sandbox.run('while (true) {}', {}, limits)).rejects.toMatchObject({ reason: 'timeout' });
      await expect(sandbox.run('return { ok: 1 };', {}, limits)).resolves.toEqual({ ok: 1 });
    } finally {
      await sandbox.close();
    }
  });
});
