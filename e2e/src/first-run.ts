/**
 * `npm start` as a person runs it, for the tests that check what a first run prints and that every credential and
 * command of the banner works as printed: the built `e2e/dist/dev.js` (what `npm start` runs after building) in its
 * own process group with the environment of a shell, on a free port, its stdout and stderr kept whole. `interrupt()`
 * is Ctrl-C in the terminal: SIGINT to every process of the group at once.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot } from '@idp/testing';

export interface FirstRun {
  /** The public origin (http://127.0.0.1:{port}). */
  baseUrl: string;
  /** Everything the process group wrote on stdout and stderr so far, in order. */
  output: () => string;
  /** The banner: from its first line to the end of the output when it was printed. */
  banner: string;
  /** Ctrl-C: SIGINT to the whole process group; resolves with the exit code once `npm start` has exited. */
  interrupt: (timeoutMs?: number) => Promise<number | null>;
  /** The processes `npm start` started (its children: services, sample APIs, the store, NATS), by pid. */
  children: () => number[];
  /**
   * Stops whatever is left: SIGTERM to `npm start` (which stops what it started, in order), SIGKILL to its group
   * after `timeoutMs`. What it started is in process groups of its own, so a SIGKILL alone would leave it running.
   */
  stop: (timeoutMs?: number) => Promise<void>;
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const BANNER_START = 'Identity provider running';

/** Starts `npm start`'s entry and resolves once the banner is printed (rejects with the output if it exits first). */
export async function startFirstRun(env: Record<string, string> = {}, timeoutMs = 150_000): Promise<FirstRun> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(repoRoot(), 'e2e', 'dist', 'dev.js')], {
    cwd: repoRoot(),
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      TMPDIR: process.env.TMPDIR ?? '/tmp',
      PUBLIC_PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone.
    }
  };
  const banner = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`no banner within ${timeoutMs} ms:\n${text.slice(-4000)}`)),
      timeoutMs,
    );
    const check = () => {
      const at = text.indexOf(BANNER_START);
      // The banner is written in one write and ends with an empty line after the last step.
      if (at >= 0 && /\n\n$/.test(text)) done(undefined, text.slice(at));
    };
    const onExit = () => done(new Error(`npm start exited before its banner:\n${text.slice(-4000)}`));
    const done = (err?: Error, value?: string) => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.off('exit', onExit);
      if (err) {
        group('SIGKILL');
        reject(err);
      } else resolve(value!);
    };
    child.stdout!.on('data', check);
    child.once('exit', onExit);
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    output: () => text,
    banner,
    interrupt: async (ms = 30_000) => {
      group('SIGINT');
      const timer = setTimeout(() => group('SIGKILL'), ms);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    children: () =>
      execFileSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' })
        .split('\n')
        .map(Number)
        .filter((pid) => pid > 0),
    stop: async (ms = 30_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => group('SIGKILL'), ms);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The value printed after a label in the banner's table (`  Label   value`), up to the end of the line. */
export function bannerValue(banner: string, label: string): string {
  const line = banner.split('\n').find((l) => l.trimStart().startsWith(label));
  if (!line) throw new Error(`the banner has no line "${label}":\n${banner}`);
  return line.trimStart().slice(label.length).trim();
}

/** The banner's numbered steps: each title and its command (the indented lines after it), as printed. */
export function bannerSteps(banner: string): Array<{ title: string; command: string }> {
  const steps: Array<{ title: string; command: string }> = [];
  const lines = banner.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\d+)\) (.*)$/.exec(lines[i]!);
    if (!m) continue;
    const command: string[] = [];
    let j = i + 2;
    while (j < lines.length && lines[j]!.startsWith('  ')) command.push(lines[j++]!.slice(2));
    steps.push({ title: m[2]!, command: command.join('\n') });
  }
  return steps;
}
