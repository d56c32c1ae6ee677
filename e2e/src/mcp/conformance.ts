/**
 * Runs @modelcontextprotocol/conformance (a root devDependency, pinned) as a child process on Node 22 (its engines;
 * scripts/with-node.sh fetches the official build from the npm registry once into .tools/), bounded in time, its
 * output collected; the checks it saved under its output directory are read back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';

export interface ConformanceCheck {
  id: string;
  name: string;
  description: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
  details?: unknown;
}

export interface ConformanceRun {
  /** Everything the child wrote (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output (already written or to come). */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves when the child exits: its code and the checks it saved, by scenario directory. */
  done: Promise<{ code: number | null; checks: Map<string, ConformanceCheck[]> }>;
  kill(): void;
}

function readChecks(dir: string): Map<string, ConformanceCheck[]> {
  const out = new Map<string, ConformanceCheck[]>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === 'checks.json')
        out.set(d.slice(dir.length + 1), JSON.parse(readFileSync(p, 'utf8')) as ConformanceCheck[]);
    }
  };
  walk(dir);
  return out;
}

/** `conformance <args...> -o <tmp>`, killed after `timeoutMs`. */
export function runConformance(args: string[], timeoutMs: number): ConformanceRun {
  const root = repoRoot();
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const child: ChildProcess = spawn(
    'bash',
    [
      join(root, 'scripts', 'with-node.sh'),
      '--',
      'node',
      join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
      ...args,
      '-o',
      outDir,
    ],
    {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    if (process.env.E2E_LOGS) process.stdout.write(`conformance: ${chunk.toString()}`);
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise<{ code: number | null; checks: Map<string, ConformanceCheck[]> }>((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      const checks = readChecks(outDir);
      rmSync(outDir, { recursive: true, force: true });
      resolve({ code, checks });
    });
  });
  return {
    output: () => text,
    waitFor: (pattern, ms) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(text);
          if (!m) return;
          cleanup();
          resolve(m);
        };
        const t = setTimeout(() => {
          cleanup();
          reject(new Error(`conformance: no ${pattern} within ${ms} ms; output: ${text.slice(-3000)}`));
        }, ms);
        const cleanup = () => {
          clearTimeout(t);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    done,
    kill: () => child.kill('SIGKILL'),
  };
}
