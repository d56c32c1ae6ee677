/**
 * A sample service of the demo (the MCP server, the Orders API) as its own process beside the topology: its built
 * dist/main.js with its environment, bound to loopback. Its stdout is JSON lines (one per request among them): start-up
 * waits for the `listening` line; afterwards only the lines that report an error are shown (on stderr, prefixed with
 * the name), so a working run stays quiet. stderr is the terminal's (a crash is seen). `npm start` stops it before
 * the services it talks to, and its own exit kills it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { groupOption, killOnExit } from '../own-process-group';

export interface SampleProcess {
  name: string;
  /** SIGTERM, then the exit (SIGKILL after 5 s). */
  stop: () => Promise<void>;
}

export async function startSampleProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<SampleProcess> {
  // Out of the terminal's group (own-process-group.ts): a Ctrl-C reaches npm start only, which stops it in order.
  const child: ChildProcess = killOnExit(
    spawn(process.execPath, [entry], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
      ...groupOption(true),
    }),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let buffer = '';
  let ready: (() => void) | undefined;
  const seen: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      let line: { event?: unknown } = {};
      try {
        line = JSON.parse(text) as { event?: unknown };
      } catch {
        // Not a JSON line: shown below like an error.
      }
      if (ready) {
        seen.push(text);
        if (line.event === 'listening') ready();
      } else if (typeof line.event !== 'string' || line.event.endsWith('.error'))
        process.stderr.write(`[${name}] ${text}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(`no "listening" line within ${timeoutMs} ms`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      ready = undefined;
      if (child.exitCode === null) child.kill('SIGKILL');
      reject(new Error(`${name}: ${why}; it wrote: ${seen.join('\n').slice(-2000)}`));
    };
    ready = () => {
      clearTimeout(timer);
      ready = undefined;
      resolve();
    };
    void exited.then(() => ready && fail(`exited with ${child.exitCode ?? child.signalCode}`));
  });
  return {
    name,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
