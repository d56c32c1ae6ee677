/**
 * A 3-node NATS JetStream cluster on loopback: three nats-server processes (.tools/bin/nats-server), each with its
 * own client port, cluster (route) port and store directory, routes to the other two. What the chart's HA values
 * point at (`nats.url` lists three servers, `nats.stream.replicas: 3`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, toolPath, waitForPort } from '@idp/testing';

export const NATS_CLUSTER_NAME = 'idp-ha';
/** Nodes of the cluster: what the chart's HA values list in nats.url. */
export const NATS_CLUSTER_SIZE = 3;

export interface NatsNode {
  /** n1, n2, n3: the nats-server's server_name (what JetStream reports as a stream's leader). */
  name: string;
  url: string;
  clientPort: number;
  routePort: number;
  storeDir: string;
  process: ChildProcess;
  /** Whether the process is running. */
  running: () => boolean;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every client URL, comma-separated: the NATS_URL every service gets (as the chart renders it). */
  url: string;
  /** SIGKILL (or SIGTERM) one node and wait for it to exit; its store is kept. */
  kill: (name: string, signal?: 'SIGKILL' | 'SIGTERM') => Promise<void>;
  /** Starts a stopped node again on its ports with its store. `routes: false` starts it cut off from the other two. */
  start: (name: string, options?: { routes?: boolean }) => Promise<void>;
  stop: () => Promise<void>;
}

function configText(node: { name: string; clientPort: number; routePort: number; nowherePort: number; storeDir: string }, peers: number[], routes: boolean): string {
  // Cut off, the node listens for routes on a port nobody dials and dials only a port where nothing listens
  // (JetStream in cluster mode refuses to start without a configured route): the other two keep dialing its usual
  // route port, find nothing there, and the node stays cut off from them while clients can still reach it.
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.clientPort}`,
    `jetstream { store_dir: "${node.storeDir}" }`,
    `cluster {`,
    `  name: ${NATS_CLUSTER_NAME}`,
    routes ? `  listen: 127.0.0.1:${node.routePort}` : `  listen: 127.0.0.1:-1`,
    `  routes: [${(routes ? peers : [node.nowherePort]).map((p) => `nats-route://127.0.0.1:${p}`).join(', ')}]`,
    `}`,
    '',
  ].join('\n');
}

export async function startNatsCluster(options: { size?: number; quiet?: boolean } = {}): Promise<NatsCluster> {
  const size = options.size ?? NATS_CLUSTER_SIZE;
  const specs: Array<{ name: string; clientPort: number; routePort: number; nowherePort: number; storeDir: string }> = [];
  for (let i = 1; i <= size; i += 1) {
    specs.push({ name: `n${i}`, clientPort: await freePort(), routePort: await freePort(), nowherePort: await freePort(), storeDir: mkdtempSync(join(tmpdir(), `idp-nats-n${i}-`)) });
  }
  const nodes: NatsNode[] = [];
  const launch = async (spec: (typeof specs)[number], routes: boolean): Promise<ChildProcess> => {
    const peers = specs.filter((s) => s !== spec).map((s) => s.routePort);
    const conf = join(spec.storeDir, routes ? 'nats.conf' : 'nats-isolated.conf');
    writeFileSync(conf, configText(spec, peers, routes));
    const child = spawn(toolPath('nats-server'), ['-c', conf], { stdio: ['ignore', 'ignore', options.quiet === false ? 'inherit' : 'ignore'] });
    await waitForPort(spec.clientPort, 30_000, child);
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
  const cluster: NatsCluster = {
    nodes,
    url: specs.map((s) => `nats://127.0.0.1:${s.clientPort}`).join(','),
    kill: async (name, signal = 'SIGKILL') => exit(byName(name).process, signal),
    start: async (name, o = {}) => {
      const node = byName(name);
      await exit(node.process, 'SIGTERM');
      node.process = await launch(specs.find((s) => s.name === name)!, o.routes ?? true);
    },
    stop: async () => {
      await Promise.all(nodes.map((n) => exit(n.process, 'SIGTERM')));
      for (const s of specs) rmSync(s.storeDir, { recursive: true, force: true });
    },
  };
  try {
    const children = await Promise.all(specs.map((s) => launch(s, true)));
    specs.forEach((s, i) => {
      const { nowherePort: _nowhere, ...ports } = s;
      const node: NatsNode = {
        ...ports,
        url: `nats://127.0.0.1:${s.clientPort}`,
        process: children[i]!,
        running: () => node.process.exitCode === null && node.process.signalCode === null,
      };
      nodes.push(node);
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
