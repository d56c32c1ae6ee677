/**
 * Runs a client's `customizeUserInfoClaims` script (tenant-admin code) in QuickJS compiled to WebAssembly
 * (quickjs-emscripten). Never node:vm: the script has no process, require, network, file system or host objects;
 * only the ECMAScript built-ins of a bare QuickJS context and a deep-frozen copy of its input.
 *
 * Contract of the script: its source is the body of a function whose single parameter is `input`
 * (`{ user: { sub, claims, custom_claims }, context: { tenantId, clientId, scopes, ... } }`) and it returns a plain
 * JSON-serialisable object, which becomes the UserInfo `custom_claims` object for that response. Example:
 * `return { department: input.user.custom_claims.dept, tenant: input.context.tenantId };`
 *
 * Limits per call: `timeLimitMs` of run time, enforced inside QuickJS by an interrupt handler (CPU time of the
 * worker thread where Linux exposes it in /proc/thread-self/stat, so a busy machine does not fail honest scripts;
 * wall-clock time elsewhere); `memoryLimitBytes` of
 * heap and `maxStackBytes` of stack (QuickJS runtime limits); `maxOutputBytes` of returned JSON. QuickJS only polls
 * its interrupt handler between bytecodes, so a single long native built-in (or garbage collection thrashing at
 * the memory limit) could overrun the deadline: the interpreter therefore runs in a worker thread, and the host
 * terminates that worker when no answer arrived `hardKillGraceMs` after the time limit. The WASM module is
 * compiled once per worker and reused for every call; each call gets a fresh QuickJS runtime (its own heap).
 *
 * Scheduling: calls carry an owner (the tenant). Each owner has its own bounded queue, served round-robin
 * (tenant-fair-queue.ts), and at most `maxRunningPerTenant` of its calls run at once (half the pool by default), so
 * one tenant's slow or looping script can fill only its own queue and never every worker: another tenant's call
 * waits for at most one running call to finish. A call over its owner's queue bound is refused at once (`busy`).
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { TenantFairQueue } from './tenant-fair-queue';

/** `busy`: the owner's queue was full (or the call was skipped before it ran); nothing ran. */
export type SandboxFailure =
  'timeout' | 'memory' | 'threw' | 'invalid_return' | 'output_too_large' | 'syntax' | 'unavailable' | 'busy';

export class CustomClaimsScriptError extends Error {
  constructor(
    readonly reason: SandboxFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CustomClaimsScriptError';
  }
}

export interface SandboxLimits {
  timeLimitMs: number;
  memoryLimitBytes: number;
  maxStackBytes: number;
  maxOutputBytes: number;
  /** Wall-clock slack after timeLimitMs before the worker is terminated. */
  hardKillGraceMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  timeLimitMs: 50,
  memoryLimitBytes: 8 * 1024 * 1024,
  maxStackBytes: 256 * 1024,
  maxOutputBytes: 16 * 1024,
  // Wall-clock time: generous, because a worker of a busy node (or of a CPU-throttled container) may get little CPU
  // in that time, and a kill fails an honest script (and counts towards its breaker). A truly stuck call holds one
  // worker of its own tenant's share this long at most.
  hardKillGraceMs: 1000,
};

/** Largest script accepted (characters); longer scripts are refused without running. */
export const MAX_SCRIPT_LENGTH = 64 * 1024;

/**
 * The worker's program (plain CommonJS, so it runs the same from ts-jest and from dist). It loads the
 * release-sync QuickJS variant with require() (the package's own variant uses dynamic import(), which CommonJS
 * under jest cannot run; same files, same WASM), once, then serves one job at a time.
 */
const WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
// Answers go through the host's own port, which the host can read synchronously before a hard kill.
const answers = workerData.answers;
const { newQuickJSWASMModuleFromVariant } = require(workerData.quickjs);
const variant = {
  type: 'sync',
  importFFI: async () => require(workerData.ffi).QuickJSFFI,
  importModuleLoader: async () => require(workerData.loader).default,
};
const ready = newQuickJSWASMModuleFromVariant(variant);
const fs = require('node:fs');
// CPU time of this thread in ms (utime + stime, USER_HZ 100), or wall-clock time where /proc is not available.
let cpuClock = () => {
  const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
try { if (!Number.isFinite(cpuClock())) throw new Error('no thread cpu time'); } catch (_) { cpuClock = () => performance.now(); }
// V8 compiles a WASM function the first time it runs, so the first script of a fresh worker would pay for compiling
// QuickJS's parser, interpreter and JSON code (about 20 ms of CPU, 100 ms of wall-clock time here) inside its own time
// limit, and an honest script could time out. One warm-up run before reporting ready keeps start-up out of the limit.
const WARM_UP = { script: 'return { a: input.a, n: JSON.stringify([1.5, "x", null]).length };', inputJson: '{"a":{"b":[true,"y"]}}', limits: { timeLimitMs: 60000, memoryLimitBytes: 8388608, maxStackBytes: 262144, maxOutputBytes: 16384 } };
ready.then((quickjs) => { run(quickjs, WARM_UP); parentPort.postMessage({ ready: true }); }, (err) => parentPort.postMessage({ ready: false, message: String(err && err.message) }));

function wrap(script) {
  return '"use strict";\n(function () {\n' +
    '  const deepFreeze = (o) => { if (o && typeof o === "object") { Object.freeze(o); for (const k of Object.keys(o)) deepFreeze(o[k]); } return o; };\n' +
    '  const input = deepFreeze(JSON.parse(__input_json));\n' +
    '  const result = (function (input) {\n' + script + '\n  })(input);\n' +
    '  if (result === null || typeof result !== "object" || Array.isArray(result)) return "!" + (result === null ? "null" : Array.isArray(result) ? "array" : typeof result);\n' +
    '  return JSON.stringify(result);\n' +
    '})()';
}

function run(quickjs, job) {
  const { script, inputJson, limits } = job;
  const runtime = quickjs.newRuntime();
  let vm;
  try {
    runtime.setMemoryLimit(limits.memoryLimitBytes);
    runtime.setMaxStackSize(limits.maxStackBytes);
    // Thread CPU time has 10 ms resolution: the deadline is met at the first tick past the limit.
    const deadline = cpuClock() + limits.timeLimitMs;
    let timedOut = false;
    runtime.setInterruptHandler(() => (timedOut = timedOut || cpuClock() > deadline));
    vm = runtime.newContext();
    const json = vm.newString(inputJson);
    vm.setProp(vm.global, '__input_json', json);
    json.dispose();
    const result = vm.evalCode(wrap(script), 'customizeUserInfoClaims.js');
    if (result.error) {
      const e = vm.dump(result.error);
      result.error.dispose();
      const name = String((e && e.name) || 'Error');
      const message = String((e && e.message) || e || '').slice(0, 200);
      if (timedOut || /interrupted/i.test(message)) return { ok: false, reason: 'timeout', message: 'script exceeded ' + limits.timeLimitMs + ' ms' };
      if (/out of memory|stack overflow/i.test(message) || (name === 'RangeError' && /stack/i.test(message))) return { ok: false, reason: 'memory', message: 'script exceeded its memory or stack limit (' + message + ')' };
      if (name === 'SyntaxError') return { ok: false, reason: 'syntax', message: 'script does not compile: ' + message };
      return { ok: false, reason: 'threw', message: 'script threw ' + name + ': ' + message };
    }
    const text = vm.getString(result.value);
    result.value.dispose();
    if (text.startsWith('!')) return { ok: false, reason: 'invalid_return', message: 'script returned ' + text.slice(1) + ', not an object' };
    if (Buffer.byteLength(text) > limits.maxOutputBytes) return { ok: false, reason: 'output_too_large', message: 'script result is larger than ' + limits.maxOutputBytes + ' bytes' };
    return { ok: true, json: text };
  } catch (err) {
    return { ok: false, reason: 'memory', message: 'sandbox failure: ' + String(err && err.message).slice(0, 200) };
  } finally {
    try { if (vm) vm.dispose(); runtime.dispose(); } catch (_) { /* a runtime that ran out of memory may not free cleanly */ }
  }
}

parentPort.on('message', (job) => {
  ready.then(
    (quickjs) => answers.postMessage({ id: job.id, ...run(quickjs, job) }),
    (err) => answers.postMessage({ id: job.id, ok: false, reason: 'unavailable', message: 'QuickJS failed to load: ' + String(err && err.message) }),
  );
});
`;

type WorkerAnswer =
  { id: number; ok: true; json: string } | { id: number; ok: false; reason: SandboxFailure; message: string };

interface Job {
  id: number;
  owner: string;
  /** Asked when a worker takes the job: an error skips it (e.g. the script's breaker opened while it waited). */
  gate?: () => CustomClaimsScriptError | undefined;
  script: string;
  inputJson: string;
  limits: SandboxLimits;
  resolve: (value: Record<string, unknown>) => void;
  reject: (err: CustomClaimsScriptError) => void;
}

interface Slot {
  worker: Worker;
  /** Where the worker's answers arrive (a port of our own, so that a pending answer can be read synchronously). */
  answers: MessagePort;
  /** The worker has compiled the WASM module (jobs wait for this; the time limit never covers start-up). */
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export interface SandboxPoolOptions {
  /** Worker threads, started as load needs them (default: defaultPoolSize()). */
  size?: number;
  /** Calls of one owner (tenant) running at once (default: half the pool, at least 1). */
  maxRunningPerTenant?: number;
  /** Calls of one owner waiting for a worker; one more is refused with `busy` (default 100). */
  maxQueuedPerTenant?: number;
}

/** Workers by default: the CPUs this process may use (Node 22 follows the container's CPU quota), 2 to 16. */
export function defaultPoolSize(): number {
  return Math.min(16, Math.max(2, availableParallelism()));
}

export const DEFAULT_MAX_QUEUED_PER_TENANT = 100;

/** Half the pool, at least 1: a tenant never holds every worker of a pool of 2 or more. */
export function defaultMaxRunningPerTenant(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}

export interface RunOptions {
  /** Whose call it is (the tenant): the unit of fair scheduling and of the per-tenant caps. */
  owner?: string;
  /** See Job.gate. */
  gate?: () => CustomClaimsScriptError | undefined;
}

/**
 * A small pool of sandbox workers. Jobs queue per owner (bounded) when every worker is busy or the owner runs its
 * maximum; the time limit starts when a worker takes the job. A worker that overruns is terminated and replaced.
 */
export class CustomClaimsSandbox {
  private readonly slots: Slot[] = [];
  private readonly queue: TenantFairQueue<Job>;
  readonly size: number;
  readonly maxRunningPerTenant: number;
  readonly maxQueuedPerTenant: number;
  private nextId = 1;
  private closed = false;
  private readonly paths = {
    quickjs: require.resolve('quickjs-emscripten'),
    ffi: require.resolve('@jitl/quickjs-wasmfile-release-sync/ffi', { paths: [require.resolve('quickjs-emscripten')] }),
    loader: require.resolve('@jitl/quickjs-wasmfile-release-sync/emscripten-module', {
      paths: [require.resolve('quickjs-emscripten')],
    }),
  };

  constructor(options: SandboxPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultPoolSize()));
    this.maxRunningPerTenant = Math.min(
      this.size,
      Math.max(1, Math.floor(options.maxRunningPerTenant ?? defaultMaxRunningPerTenant(this.size))),
    );
    this.maxQueuedPerTenant = Math.max(0, Math.floor(options.maxQueuedPerTenant ?? DEFAULT_MAX_QUEUED_PER_TENANT));
    this.queue = new TenantFairQueue<Job>({
      maxRunningPerOwner: this.maxRunningPerTenant,
      maxQueuedPerOwner: this.maxQueuedPerTenant,
    });
  }

  run(
    script: string,
    input: unknown,
    limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
    options: RunOptions = {},
  ): Promise<Record<string, unknown>> {
    if (typeof script !== 'string' || script.length > MAX_SCRIPT_LENGTH) {
      return Promise.reject(
        new CustomClaimsScriptError('syntax', `script must be a string of at most ${MAX_SCRIPT_LENGTH} characters`),
      );
    }
    if (this.closed) return Promise.reject(new CustomClaimsScriptError('unavailable', 'sandbox is closed'));
    let inputJson: string;
    try {
      inputJson = JSON.stringify(input ?? {});
    } catch {
      return Promise.reject(new CustomClaimsScriptError('unavailable', 'sandbox input is not serialisable'));
    }
    const owner = options.owner ?? '';
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, owner, gate: options.gate, script, inputJson, limits, resolve, reject };
      if (!this.queue.enqueue(owner, job)) {
        reject(
          new CustomClaimsScriptError(
            'busy',
            `this tenant already has ${this.maxQueuedPerTenant} scripts waiting for the sandbox`,
          ),
        );
        return;
      }
      this.pump();
    });
  }

  /** Calls of `owner` waiting and running now (for tests and diagnostics). */
  load(owner: string): { queued: number; running: number } {
    return { queued: this.queue.queued(owner), running: this.queue.running(owner) };
  }

  /** Terminates every worker; pending and later calls fail with `unavailable`. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.drain()) job.reject(new CustomClaimsScriptError('unavailable', 'sandbox is closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.retire(s, 'sandbox is closed')));
  }

  private pump(): void {
    this.dispatch();
    // One spare worker (started or starting) while the pool may grow, so that the next tenant to arrive does not
    // wait for a worker to compile QuickJS behind the one that took the last free worker.
    if (this.slots.length < this.size && !this.closed && this.slots.every((s) => s.job)) this.spawn();
  }

  private dispatch(): void {
    while (this.queue.hasRunnable()) {
      const slot = this.slots.find((s) => s.ready && !s.job);
      if (!slot) {
        if (this.slots.length < this.size) this.spawn();
        return;
      }
      const next = this.queue.next()!;
      const job = next.job;
      const skipped = job.gate?.();
      if (skipped) {
        this.queue.done(job.owner);
        job.reject(skipped);
        continue;
      }
      slot.job = job;
      slot.timer = setTimeout(() => {
        // Timers run before I/O in each turn of the event loop: when this thread was busy for longer than the
        // deadline, the worker's answer may already be waiting behind this timer. Take it rather than kill a
        // worker that finished in time.
        const pending = receiveMessageOnPort(slot.answers);
        if (pending) {
          this.answered(slot, pending.message as WorkerAnswer);
          return;
        }
        void this.retire(
          slot,
          `script exceeded ${job.limits.timeLimitMs} ms and did not stop within ${job.limits.hardKillGraceMs} ms more (worker terminated)`,
          'timeout',
        );
        this.pump();
      }, job.limits.timeLimitMs + job.limits.hardKillGraceMs);
      slot.timer.unref();
      slot.worker.postMessage({ id: job.id, script: job.script, inputJson: job.inputJson, limits: job.limits });
    }
  }

  private spawn(): Slot {
    const { port1: answers, port2: workerAnswers } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...this.paths, answers: workerAnswers },
      transferList: [workerAnswers],
      // The worker's own V8 heap (the QuickJS heap lives in WASM memory, limited separately).
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    worker.unref();
    const slot: Slot = { worker, answers, ready: false };
    worker.on('message', (status: { ready: boolean; message?: string }) => {
      if (status.ready) {
        slot.ready = true;
        this.pump();
      } else {
        void this.retire(slot, `QuickJS failed to load: ${status.message}`);
        this.failStartup(`QuickJS failed to load: ${status.message}`);
      }
    });
    answers.on('message', (answer: WorkerAnswer) => this.answered(slot, answer));
    // After the listener, which refs the port again: the port alone should not keep the process alive (the worker is
    // unref'd too). A pool nobody closed still did in a standalone script here, before this change as after; close it.
    answers.unref();
    worker.on('error', (err) => {
      const wasReady = slot.ready;
      void this.retire(slot, 'sandbox worker failed', 'unavailable');
      if (!wasReady) this.failStartup(`sandbox worker failed to start: ${err.message}`);
      else this.pump();
    });
    worker.on('exit', () => {
      if (this.slots.includes(slot)) {
        void this.retire(slot, 'sandbox worker exited', 'unavailable');
        this.pump();
      }
    });
    this.slots.push(slot);
    return slot;
  }

  private answered(slot: Slot, answer: WorkerAnswer): void {
    const job = slot.job;
    if (!job || job.id !== answer.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    this.queue.done(job.owner);
    if (answer.ok) {
      try {
        job.resolve(JSON.parse(answer.json) as Record<string, unknown>);
      } catch {
        job.reject(new CustomClaimsScriptError('invalid_return', 'script result is not JSON'));
      }
    } else job.reject(new CustomClaimsScriptError(answer.reason, answer.message));
    this.pump();
  }

  /** No worker can start: fail what waits rather than queueing forever. */
  private failStartup(message: string): void {
    if (this.slots.some((s) => s.ready)) return;
    for (const job of this.queue.drain()) job.reject(new CustomClaimsScriptError('unavailable', message));
  }

  private async retire(slot: Slot, message: string, reason: SandboxFailure = 'unavailable'): Promise<void> {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      this.queue.done(job.owner);
      job.reject(new CustomClaimsScriptError(reason, message));
    }
    slot.answers.close();
    await slot.worker.terminate().catch(() => undefined);
  }
}

let shared: CustomClaimsSandbox | undefined;

/** The process-wide default sandbox pool (workers start on first use), for callers not given one. */
export function customClaimsSandbox(): CustomClaimsSandbox {
  shared ??= new CustomClaimsSandbox();
  return shared;
}

/** Runs `script` against `input` in the shared pool; rejects with CustomClaimsScriptError (and only that). */
export function runCustomClaimsScript(
  script: string,
  input: unknown,
  limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
  options: RunOptions = {},
): Promise<Record<string, unknown>> {
  return customClaimsSandbox().run(script, input, limits, options);
}
