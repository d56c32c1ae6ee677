/**
 * A sample service run as its own process (the Orders API, the MCP server) whose stdout is JSON lines: every line is
 * kept in order, tests wait for the line they expect, and start-up waits for the `listening` line (or fails with
 * what the process wrote if it exits first).
 */
import type { ChildProcess } from 'node:child_process';

export interface JsonLineProcess {
  /** Every JSON line the process wrote, in order (a line that is not JSON as `{ text }`). */
  lines: Array<Record<string, unknown>>;
  /** Resolves with the first line (already written or to come) that `match` accepts. */
  waitForLine: (
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ) => Promise<Record<string, unknown>>;
  /** SIGTERM, then the exit. */
  stop: () => Promise<void>;
}

/** Watches `child` (spawned with stdout piped) and resolves once it logged `{"event": "listening"}`. */
export async function watchJsonLines(child: ChildProcess, name: string): Promise<JsonLineProcess> {
  const lines: Array<Record<string, unknown>> = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        lines.push(JSON.parse(text) as Record<string, unknown>);
      } catch {
        lines.push({ text });
      }
      if (process.env.E2E_LOGS) process.stdout.write(`${name}: ${text}\n`);
      for (const w of waiters) w();
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitForLine: JsonLineProcess['waitForLine'] = (match, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const line = lines.find(match);
        if (!line) return;
        cleanup();
        resolve(line);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`${name}: no matching line within ${timeoutMs} ms; lines: ${JSON.stringify(lines).slice(0, 2000)}`),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  await Promise.race([
    waitForLine((l) => l.event === 'listening'),
    exited.then(() => Promise.reject(new Error(`${name} exited: ${JSON.stringify(lines)}`))),
  ]);
  return {
    lines,
    waitForLine,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
