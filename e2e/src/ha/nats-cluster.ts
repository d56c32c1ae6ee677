/**
 * A 3-node NATS JetStream cluster: three nats-server processes (.tools/bin/nats-server), each with its own client
 * port, cluster (route) port and store directory, routes to the other two. What the chart's HA values point at
 * (`nats.url` lists three servers, `nats.stream.replicas: 3`).
 *
 * Partitions (`partition.cut()` / `heal()`) cut the last node off from the other two:
 * - `netns` (where this process may create network namespaces, e.g. as root): that node runs in a network namespace
 *   of its own, reached over two veth pairs, one carrying its routes and one its clients. The cut takes the route
 *   link down: a real network partition (no RST, connections hang) while clients still reach the node. The servers
 *   ping every 2 s (`ping_interval`), so a hung route is noticed within seconds instead of minutes.
 * - `routes` (no namespaces): the node is restarted with no reachable route and a route port nobody dials.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, toolPath } from '@idp/testing';

export const NATS_CLUSTER_NAME = 'idp-ha';
/** Nodes of the cluster: what the chart's HA values list in nats.url. */
export const NATS_CLUSTER_SIZE = 3;

export interface NatsNode {
  /** n1, n2, n3: the nats-server's server_name (what JetStream reports as a stream's leader). */
  name: string;
  url: string;
  /** Address clients and routes reach the node at (127.0.0.1, or its namespace's addresses). */
  clientHost: string;
  clientPort: number;
  routeHost: string;
  routePort: number;
  /** The server's monitoring endpoint (`/connz`, `/routez`, ...). */
  monitorUrl: string;
  storeDir: string;
  process: ChildProcess;
  /** Whether the process is running. */
  running: () => boolean;
}

export interface NatsPartition {
  /** The node that a cut separates from the other two. */
  node: string;
  method: 'netns' | 'routes';
  /** Why `netns` was not used, when it was not. */
  fallbackReason?: string;
  cut: () => Promise<void>;
  heal: () => Promise<void>;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every client URL, comma-separated: the NATS_URL every service gets (as the chart renders it). */
  url: string;
  partition: NatsPartition;
  /** SIGKILL (or SIGTERM) one node and wait for it to exit; its store is kept. */
  kill: (name: string, signal?: 'SIGKILL' | 'SIGTERM') => Promise<void>;
  /** Starts a stopped node again on its ports with its store. `routes: false` starts it cut off from the other two. */
  start: (name: string, options?: { routes?: boolean }) => Promise<void>;
  stop: () => Promise<void>;
}

interface Spec {
  name: string;
  clientHost: string;
  clientPort: number;
  /** Address the node's route listener binds. */
  routeBind: string;
  routeHost: string;
  routePort: number;
  nowherePort: number;
  monitorPort: number;
  storeDir: string;
  /** Network namespace the node runs in, if any. */
  netns?: string;
  /** Address this node dials the others' routes at (their routeHost, or the host side of its route link). */
  peerHost: string;
}

function configText(spec: Spec, peers: Spec[], routes: boolean, fastPings: boolean): string {
  // Cut off, the node listens for routes on a port nobody dials and dials only a port where nothing listens
  // (JetStream in cluster mode refuses to start without a configured route): the other two keep dialing its usual
  // route port, find nothing there, and the node stays cut off from them while clients can still reach it.
  const routeUrls = routes
    ? peers.map((p) => `nats-route://${spec.peerHost === '127.0.0.1' ? p.routeHost : spec.peerHost}:${p.routePort}`)
    : [`nats-route://127.0.0.1:${spec.nowherePort}`];
  return [
    `server_name: ${spec.name}`,
    `listen: ${spec.clientHost}:${spec.clientPort}`,
    `http: ${spec.clientHost}:${spec.monitorPort}`,
    ...(fastPings ? ['ping_interval: "2s"', 'ping_max: 2'] : []),
    `jetstream { store_dir: "${spec.storeDir}" }`,
    `cluster {`,
    `  name: ${NATS_CLUSTER_NAME}`,
    routes ? `  listen: ${spec.routeBind}:${spec.routePort}` : `  listen: ${spec.routeBind}:-1`,
    // Only the configured routes: no gossiped addresses (a loopback address means another host in the namespace).
    `  no_advertise: true`,
    `  routes: [${routeUrls.join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

function waitForAddress(host: string, port: number, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null)
        return reject(new Error(`nats-server exited with ${child.exitCode} before listening on ${host}:${port}`));
      const s = netConnect(port, host);
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        if (Date.now() > deadline) reject(new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

const ip = (...args: string[]) => spawnSync('ip', args, { encoding: 'utf8' });

/**
 * The namespace and links of the partitionable node: `route` link 10.231.k.1 (host) / .2 (node), `client` link
 * 10.232.k.1 / .2. Returns undefined (with the reason) where namespaces cannot be made.
 */
function makeNetns(): { ns: string; routeLink: string; k: number } | { reason: string } {
  const k = (process.pid % 250) + 1;
  const ns = `idp-ha-${process.pid}`;
  const routeHost = `idpr${k}h`;
  const clientHost = `idpc${k}h`;
  const steps: string[][] = [
    ['netns', 'add', ns],
    ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up'],
    ['link', 'add', routeHost, 'type', 'veth', 'peer', 'name', `idpr${k}n`],
    ['link', 'set', `idpr${k}n`, 'netns', ns],
    ['addr', 'add', `10.231.${k}.1/30`, 'dev', routeHost],
    ['link', 'set', routeHost, 'up'],
    ['netns', 'exec', ns, 'ip', 'addr', 'add', `10.231.${k}.2/30`, 'dev', `idpr${k}n`],
    ['netns', 'exec', ns, 'ip', 'link', 'set', `idpr${k}n`, 'up'],
    ['link', 'add', clientHost, 'type', 'veth', 'peer', 'name', `idpc${k}n`],
    ['link', 'set', `idpc${k}n`, 'netns', ns],
    ['addr', 'add', `10.232.${k}.1/30`, 'dev', clientHost],
    ['link', 'set', clientHost, 'up'],
    ['netns', 'exec', ns, 'ip', 'addr', 'add', `10.232.${k}.2/30`, 'dev', `idpc${k}n`],
    ['netns', 'exec', ns, 'ip', 'link', 'set', `idpc${k}n`, 'up'],
  ];
  for (const step of steps) {
    const r = ip(...step);
    if (r.status !== 0) {
      removeNetns(ns, k);
      return { reason: `ip ${step.join(' ')}: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim()}` };
    }
  }
  return { ns, routeLink: routeHost, k };
}

function removeNetns(ns: string, k: number): void {
  ip('netns', 'del', ns); // takes the namespace ends of the veth pairs, and with them the host ends
  ip('link', 'del', `idpr${k}h`);
  ip('link', 'del', `idpc${k}h`);
}

export async function startNatsCluster(
  options: { size?: number; quiet?: boolean; partition?: 'netns' | 'routes' } = {},
): Promise<NatsCluster> {
  const size = options.size ?? NATS_CLUSTER_SIZE;
  const wantNetns = options.partition === 'netns';
  const net = wantNetns ? makeNetns() : undefined;
  const netns = net && 'ns' in net ? net : undefined;
  const specs: Spec[] = [];
  for (let i = 1; i <= size; i += 1) {
    const inNs = netns && i === size;
    specs.push({
      name: `n${i}`,
      clientHost: inNs ? `10.232.${netns.k}.2` : '127.0.0.1',
      clientPort: await freePort(),
      // Host nodes take routes on every address (loopback from each other, the route link from the namespace).
      routeBind: inNs ? `10.231.${netns.k}.2` : netns ? '0.0.0.0' : '127.0.0.1',
      routeHost: inNs ? `10.231.${netns.k}.2` : '127.0.0.1',
      routePort: await freePort(),
      nowherePort: await freePort(),
      monitorPort: await freePort(),
      storeDir: mkdtempSync(join(tmpdir(), `idp-nats-n${i}-`)),
      ...(inNs ? { netns: netns.ns, peerHost: `10.231.${netns.k}.1` } : { peerHost: '127.0.0.1' }),
    });
  }
  const nodes: NatsNode[] = [];
  const launch = async (spec: Spec, routes: boolean): Promise<ChildProcess> => {
    const conf = join(spec.storeDir, routes ? 'nats.conf' : 'nats-isolated.conf');
    writeFileSync(
      conf,
      configText(
        spec,
        specs.filter((s) => s !== spec),
        routes,
        Boolean(netns),
      ),
    );
    const bin = toolPath('nats-server');
    const stdio: ['ignore', 'ignore', 'inherit' | 'ignore'] = [
      'ignore',
      'ignore',
      options.quiet === false ? 'inherit' : 'ignore',
    ];
    // `ip netns exec` execs the server in place: the child's pid is the server's.
    const child = spec.netns
      ? spawn('ip', ['netns', 'exec', spec.netns, bin, '-c', conf], { stdio })
      : spawn(bin, ['-c', conf], { stdio });
    await waitForAddress(spec.clientHost, spec.clientPort, child);
    return child;
  };
  const exit = (child: ChildProcess, signal: 'SIGKILL' | 'SIGTERM') =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((res) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            res();
          });
          child.kill(signal);
        });
  const byName = (name: string) => {
    const node = nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no NATS node ${name}`);
    return node;
  };
  const start = async (name: string, o: { routes?: boolean } = {}) => {
    const node = byName(name);
    await exit(node.process, 'SIGTERM');
    node.process = await launch(
      specs.find((s) => s.name === name)!,
      o.routes ?? true,
    );
  };
  const last = `n${size}`;
  const partition: NatsPartition = netns
    ? {
        node: last,
        method: 'netns',
        cut: () => {
          const r = ip('link', 'set', netns.routeLink, 'down');
          return r.status === 0
            ? Promise.resolve()
            : Promise.reject(new Error(`cutting ${netns.routeLink}: ${r.stderr}`));
        },
        heal: () => {
          const r = ip('link', 'set', netns.routeLink, 'up');
          return r.status === 0
            ? Promise.resolve()
            : Promise.reject(new Error(`healing ${netns.routeLink}: ${r.stderr}`));
        },
      }
    : {
        node: last,
        method: 'routes',
        ...(net && 'reason' in net
          ? { fallbackReason: net.reason }
          : wantNetns
            ? {}
            : { fallbackReason: 'not asked for' }),
        cut: () => start(last, { routes: false }),
        heal: () => start(last),
      };
  const cluster: NatsCluster = {
    nodes,
    url: specs.map((s) => `nats://${s.clientHost}:${s.clientPort}`).join(','),
    partition,
    kill: async (name, signal = 'SIGKILL') => exit(byName(name).process, signal),
    start,
    stop: async () => {
      await Promise.all(nodes.map((n) => exit(n.process, 'SIGTERM')));
      for (const s of specs) rmSync(s.storeDir, { recursive: true, force: true });
      if (netns) removeNetns(netns.ns, netns.k);
    },
  };
  try {
    const launched = await Promise.allSettled(specs.map((s) => launch(s, true)));
    const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(launched.flatMap((r) => (r.status === 'fulfilled' ? [exit(r.value, 'SIGKILL')] : [])));
      throw failed.reason;
    }
    const children = launched.map((r) => (r as PromiseFulfilledResult<ChildProcess>).value);
    specs.forEach((s, i) => {
      const node: NatsNode = {
        name: s.name,
        url: `nats://${s.clientHost}:${s.clientPort}`,
        clientHost: s.clientHost,
        clientPort: s.clientPort,
        routeHost: s.routeHost,
        routePort: s.routePort,
        monitorUrl: `http://${s.clientHost}:${s.monitorPort}`,
        storeDir: s.storeDir,
        process: children[i]!,
        running: () => node.process.exitCode === null && node.process.signalCode === null,
      };
      nodes.push(node);
    });
  } catch (err) {
    await Promise.all(nodes.map((n) => exit(n.process, 'SIGKILL')));
    for (const s of specs) rmSync(s.storeDir, { recursive: true, force: true });
    if (netns) removeNetns(netns.ns, netns.k);
    throw err;
  }
  return cluster;
}

/** The names of the client connections each running node holds now (`nhe-delegation`, `audit-writer`, ...), by node. */
export async function clientsByNode(cluster: NatsCluster): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const n of cluster.nodes) {
    const connz = (await fetch(`${n.monitorUrl}/connz?limit=1024`, { signal: AbortSignal.timeout(3000) })
      .then((r) => r.json())
      .catch(() => ({ connections: [] }))) as { connections?: Array<{ name?: string }> };
    out[n.name] = (connz.connections ?? []).map((c) => c.name ?? '').sort();
  }
  return out;
}
