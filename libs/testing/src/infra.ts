/**
 * Real infrastructure for tests and local runs: a MongoDB-compatible server (FerretDB, SQLite backend) and
 * nats-server with JetStream, built from their Go modules by scripts/tools.sh into .tools/bin and started on
 * free loopback ports with data in a temporary directory. MONGODB_URI / NATS_URL, when set, are used instead.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  execFileSync('bash', [join(repoRoot(), 'scripts', 'tools.sh'), ...names], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** The kernel's choice for `listen(0)` on loopback. */
function kernelPort(): Promise<number> {
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

/** Whether a loopback listener can bind `port` now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((res) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });
}

/** The first port of the kernel's ephemeral range (Linux), or undefined. */
function ephemeralLow(): number | undefined {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Ports that fetch refuses to connect to ("bad port", WHATWG Fetch, section "port blocking"), as Chromium does
 * (ERR_UNSAFE_PORT): a server on one of them cannot be reached by the tests' clients. 10080 lies in the first
 * worker's slice below.
 */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110,
  111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532,
  540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061,
  6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const FREE_PORT_BASE = 10_000;
const FREE_PORT_SLICES = 8;
/** Ports this process handed out recently (a topology asks for several before it binds any). */
const handedOut = new Map<number, number>();

/**
 * A loopback port that is free now, for a server that will listen on it shortly. It is chosen below the kernel's
 * ephemeral range (Linux default 32768-60999): `listen(0)` and the local end of every outgoing connection draw from
 * that range, so a port learnt from `listen(0)` could be taken by one of the many connections a test opens before
 * its server binds it (a clean-clone run: `EADDRINUSE` on a topology's router port, bound after all of its services
 * had started). Each jest worker draws from a slice of its own (JEST_WORKER_ID), so two workers never race for one
 * port, and a process never hands out the same port twice within ten minutes. Never a port fetch refuses
 * (FETCH_BLOCKED_PORTS: a clean-clone run drew 10080 for a router, and every request to it failed with "bad port").
 * Falls back to the kernel's choice where the range is unknown or too low.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low === undefined || low < FREE_PORT_BASE + 8 * 256) return kernelPort();
  const size = Math.floor((low - FREE_PORT_BASE) / FREE_PORT_SLICES);
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const start = FREE_PORT_BASE + ((Number.isInteger(worker) && worker > 0 ? worker - 1 : 0) % FREE_PORT_SLICES) * size;
  const now = Date.now();
  for (const [port, at] of handedOut) if (now - at > 10 * 60_000) handedOut.delete(port);
  for (let i = 0; i < 64; i++) {
    const port = start + Math.floor(Math.random() * size);
    if (FETCH_BLOCKED_PORTS.has(port) || handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.set(port, now);
    return port;
  }
  return kernelPort();
}

export async function waitForPort(port: number, timeoutMs = 20_000, child?: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null)
      throw new Error(`process exited with ${child.exitCode} before listening on ${port}`);
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

const killedOnExit = new Set<ChildProcess>();

/** SIGKILL to the child's process group (it leads one of its own), or to the child alone when it does not. */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
let exitListener = false;

/** A child in a process group of its own is stopped by nobody but us: make sure our own exit does. */
export function killOnExit(child: ChildProcess): ChildProcess {
  // One 'exit' listener for all of them (one each would pass Node's listener warning at ten children).
  if (!exitListener) process.once('exit', () => killedOnExit.forEach(killGroup));
  exitListener = true;
  killedOnExit.add(child);
  child.once('exit', () => killedOnExit.delete(child));
  return child;
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
  options: ServerOptions = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort());
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `idp-${name}-`));
  const launch = async () => {
    const child = spawn(bin, args(port, dataDir), {
      stdio: ['ignore', 'ignore', options.quiet === false ? 'inherit' : 'ignore'],
      detached: options.ownProcessGroup === true,
    });
    if (options.ownProcessGroup) killOnExit(child);
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

export interface ServerOptions {
  port?: number;
  dataDir?: string;
  quiet?: boolean;
  /**
   * Starts the server in a process group of its own. A terminal's Ctrl-C sends SIGINT to its whole foreground
   * group: `npm start` stops its services first and the store and NATS after them, which it cannot do if they got
   * the same SIGINT (the services' shutdown then fails on a NATS that is already gone).
   */
  ownProcessGroup?: boolean;
}

export function startFerretDb(options: ServerOptions = {}): Promise<RunningServer> {
  return startServer(
    'ferretdb',
    toolPath('ferretdb'),
    (port, dir) => ['-listen-addr', `127.0.0.1:${port}`, '-state-dir', dir, '-log-level', 'error'],
    (port) => `mongodb://127.0.0.1:${port}`,
    options,
  );
}

export function startNatsServer(options: ServerOptions = {}): Promise<RunningServer> {
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
