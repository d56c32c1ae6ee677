/**
 * Real infrastructure for tests and local runs: a MongoDB-compatible server (FerretDB, SQLite backend) and
 * nats-server with JetStream, built from their Go modules by scripts/tools.sh into .tools/bin and started on
 * free loopback ports with data in a temporary directory. MONGODB_URI / NATS_URL, when set, are used instead.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'scripts', 'tools.sh'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error('repository root (scripts/tools.sh) not found');
    dir = parent;
  }
  return dir;
}

export function toolPath(name: 'ferretdb' | 'nats-server' | 'helm'): string {
  return join(repoRoot(), '.tools', 'bin', name);
}

/** Builds the named tools when missing (a no-op when they are current). */
export function ensureTools(...names: Array<'ferretdb' | 'nats-server' | 'helm'>): void {
  execFileSync('bash', [join(repoRoot(), 'scripts', 'tools.sh'), ...names], { stdio: ['ignore', 'inherit', 'inherit'] });
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export async function waitForPort(port: number, timeoutMs = 20_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before listening on ${port}`);
    const ok = await new Promise<boolean>((res) => {
      const s = netConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        res(true);
      });
      s.once('error', () => res(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  process: ChildProcess;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s). Data is kept for restart(). */
  stop: () => Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart: () => Promise<void>;
  /** Stops it and removes its data. */
  dispose: () => Promise<void>;
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      res();
    });
    child.kill('SIGTERM');
  });
}

async function startServer(
  name: string,
  bin: string,
  args: (port: number, dataDir: string) => string[],
  url: (port: number) => string,
  options: { port?: number; dataDir?: string; quiet?: boolean } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `idp-${name}-`));
  const launch = async () => {
    const child = spawn(bin, args(port, dataDir), { stdio: ['ignore', 'ignore', options.quiet === false ? 'inherit' : 'ignore'] });
    await waitForPort(port, 30_000, child);
    return child;
  };
  const server: RunningServer = {
    url: url(port),
    port,
    dataDir,
    process: await launch(),
    stop: () => stopProcess(server.process),
    restart: async () => {
      await stopProcess(server.process);
      server.process = await launch();
    },
    dispose: async () => {
      await stopProcess(server.process);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

export function startFerretDb(options: { port?: number; dataDir?: string; quiet?: boolean } = {}): Promise<RunningServer> {
  return startServer(
    'ferretdb',
    toolPath('ferretdb'),
    (port, dir) => ['-listen-addr', `127.0.0.1:${port}`, '-state-dir', dir, '-log-level', 'error'],
    (port) => `mongodb://127.0.0.1:${port}`,
    options,
  );
}

export function startNatsServer(options: { port?: number; dataDir?: string; quiet?: boolean } = {}): Promise<RunningServer> {
  return startServer(
    'nats',
    toolPath('nats-server'),
    (port, dir) => ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir],
    (port) => `nats://127.0.0.1:${port}`,
    options,
  );
}

/** `base` (mongodb://host:port[/db][?opts]) with the database replaced by `dbName`. */
export function withDatabase(base: string, dbName: string): string {
  const u = new URL(base);
  u.pathname = `/${dbName}`;
  return u.toString();
}
