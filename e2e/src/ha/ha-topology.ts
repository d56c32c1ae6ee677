/**
 * The HA topology (`IDP_TOPOLOGY=ha npm start`, the e2e tests under e2e/tests/ha): every workload of the chart with
 * several replicas, each replica a set of processes started exactly as its pod's containers (same entry files, the
 * environment of topology.ts's serviceEnvs with the replica's own ports), on a 3-node JetStream cluster, behind a
 * round-robin router (ha-router.ts). An oidc replica is an oidc-core process and its own nhe-delegation sidecar, as
 * the pod pairs them. The audit stream is created by the chart's own hook script (charts/idp/files/nats-stream.js)
 * with the HA values' settings before anything publishes.
 *
 * The process set is declared in HA_WORKLOADS; e2e/tests/ha/chart-parity.e2e.test.ts compares it with what
 * `helm template -f ci/ha-values.yaml` renders, so the two cannot drift.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot } from '@idp/testing';
import { loadRouteTable } from '../route-table';
import { entry, serviceEnvs, stopChild, topologySecrets, waitReady, type Secrets, type ServiceName } from '../topology';
import { startHaRouter, type HaRouter } from './ha-router';
import type { NatsCluster } from './nats-cluster';

/** A Deployment of the chart: the containers of its pod (in start order) and the replicas the topology runs. */
export interface WorkloadSpec {
  containers: ServiceName[];
  replicas: number;
  /** The route-table service its pods serve behind the ingress, if any. */
  route?: string;
  /**
   * The pod's terminationGracePeriodSeconds in the chart: how long a container may drain after SIGTERM before it is
   * killed. A slow drain (a loaded machine) is judged by the grace the chart gives it, not a shorter one.
   */
  terminationGraceSeconds: number;
}

export type Workload = 'oidc' | 'management' | 'audit-writer' | 'signals';

/**
 * The chart's Deployments (`app.kubernetes.io/component`) and their containers. Two replicas each: the chart's
 * default replicaCount, the least that shows anything about N replicas, and what 2 cores can run with load.
 */
export const HA_WORKLOADS: Record<Workload, WorkloadSpec> = {
  oidc: { containers: ['nhe-delegation', 'oidc-core'], replicas: 2, route: 'oidc', terminationGraceSeconds: 30 },
  management: { containers: ['management'], replicas: 2, route: 'management', terminationGraceSeconds: 30 },
  'audit-writer': { containers: ['audit-writer'], replicas: 2, terminationGraceSeconds: 45 },
  signals: { containers: ['signals'], replicas: 2, route: 'signals', terminationGraceSeconds: 30 },
};

/** The container whose port the router sends a workload's traffic to. */
const SERVING_CONTAINER: Partial<Record<Workload, ServiceName>> = {
  oidc: 'oidc-core',
  management: 'management',
  signals: 'signals',
};

/** Restarts of a container that exits before it is ready (the kubelet's crash-loop restarts, bounded here). */
const CRASH_RESTARTS = 4;

/** nats.stream of ci/ha-values.yaml (with the chart defaults it leaves alone): what the stream hook job is given. */
export const HA_STREAM = { replicas: 3, duplicateWindowSeconds: 120, maxAgeSeconds: 604_800 };

export interface HaReplica {
  workload: Workload;
  index: number;
  /** `oidc-0`, `management-1`, ... */
  name: string;
  ports: Partial<Record<ServiceName, number>>;
  envs: Partial<Record<ServiceName, Record<string, string>>>;
  processes: Partial<Record<ServiceName, ChildProcess>>;
}

export interface HaTopologyOptions {
  mongoUri: string;
  /** NATS_URL of every service: the cluster's three servers (or a list given from outside). */
  natsUrl: string;
  /** The local cluster behind natsUrl, when this run started it (node-loss tests kill its nodes). */
  natsCluster?: NatsCluster;
  routerPort?: number;
  routerHost?: string;
  publicBaseUrl?: string;
  logLevel?: string;
  stdio?: 'inherit' | 'ignore';
  systemTenantId?: number;
  secrets?: Partial<Secrets>;
  extraEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Replicas per workload (default HA_WORKLOADS). */
  replicas?: Partial<Record<Workload, number>>;
  /** Time between taking a replica out of the router and sending it SIGTERM (a preStop sleep), ms. Default 300. */
  drainDelayMs?: number;
}

export interface HaTopology {
  kind: 'ha';
  baseUrl: string;
  secrets: Secrets;
  systemTenantId: number;
  natsCluster?: NatsCluster;
  router: HaRouter;
  replicas: HaReplica[];
  replica: (workload: Workload, index: number) => HaReplica;
  /** Takes the replica out of the router, waits drainDelayMs, SIGTERMs its containers (serving one first) and waits for them to exit. */
  stopReplica: (workload: Workload, index: number) => Promise<void>;
  /** Starts the replica's containers (sidecar first), waits until each is ready, puts it back into the router. */
  startReplica: (workload: Workload, index: number) => Promise<void>;
  /** Runs the audit-retention job once (as the CronJob would). */
  runRetention: (args?: string[]) => Promise<{ code: number; output: string }>;
  /** Containers that exited before they were ready and were started again (`oidc-0/oidc-core`, ...), in order. */
  crashRestarts: string[];
  /** Every process the topology runs (for CPU accounting): name → pid. */
  processes: () => Array<{ name: string; pid: number }>;
  stop: () => Promise<void>;
}

/** The chart's stream hook job, run as the Job runs it (its script, NODE_PATH, its env), retried as backoffLimit does. */
export async function createAuditStreamAsTheChartDoes(natsUrl: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = spawnSync(process.execPath, [join(repoRoot(), 'charts', 'idp', 'files', 'nats-stream.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        NODE_PATH: join(repoRoot(), 'node_modules'),
        NATS_URL: natsUrl,
        AUDIT_STREAM_REPLICAS: String(HA_STREAM.replicas),
        AUDIT_DUPLICATE_WINDOW_SECONDS: String(HA_STREAM.duplicateWindowSeconds),
        AUDIT_STREAM_MAX_AGE_SECONDS: String(HA_STREAM.maxAgeSeconds),
      },
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (r.status === 0) return r.stdout.trim();
    const last = `${r.stderr}${r.stdout}`.trim();
    if (Date.now() > deadline) throw new Error(`audit stream not created within ${timeoutMs} ms: ${last}`);
    await new Promise((res) => setTimeout(res, 1000));
  }
}

export async function startHaTopology(o: HaTopologyOptions): Promise<HaTopology> {
  const secrets = topologySecrets(o.secrets);
  const systemTenantId = o.systemTenantId ?? 1;
  const routerPort = o.routerPort || (await freePort());
  const baseUrl = (o.publicBaseUrl ?? `http://127.0.0.1:${routerPort}`).replace(/\/+$/, '');
  const drainDelayMs = o.drainDelayMs ?? 300;
  const counts: Record<Workload, number> = Object.fromEntries(
    (Object.keys(HA_WORKLOADS) as Workload[]).map((w) => [w, o.replicas?.[w] ?? HA_WORKLOADS[w].replicas]),
  ) as Record<Workload, number>;

  const replicas: HaReplica[] = [];
  for (const workload of Object.keys(HA_WORKLOADS) as Workload[]) {
    for (let index = 0; index < counts[workload]; index += 1) {
      const ports = {} as Record<ServiceName, number>;
      for (const s of ['oidc-core', 'nhe-delegation', 'management', 'audit-writer', 'signals'] as ServiceName[])
        ports[s] = await freePort();
      const all = serviceEnvs(
        { mongoUri: o.mongoUri, natsUrl: o.natsUrl, logLevel: o.logLevel, extraEnv: o.extraEnv },
        secrets,
        ports,
        baseUrl,
        systemTenantId,
      );
      // The writer is given the stream settings of the HA values, as the chart's writer Deployment is.
      all['audit-writer'] = {
        ...all['audit-writer'],
        AUDIT_STREAM_REPLICAS: String(HA_STREAM.replicas),
        AUDIT_DUPLICATE_WINDOW_SECONDS: String(HA_STREAM.duplicateWindowSeconds),
        AUDIT_STREAM_MAX_AGE_SECONDS: String(HA_STREAM.maxAgeSeconds),
        ...o.extraEnv?.['audit-writer'],
      };
      // signals' IDP_REVOCATIONS stream gets the same replica count (the chart passes nats.stream.replicas to both).
      all.signals = { ...all.signals, SSF_STREAM_REPLICAS: String(HA_STREAM.replicas), ...o.extraEnv?.signals };
      // And the sidecar's IDP_SINGLE_USE stream (actor tokens' jti), as the chart's oidc Deployment sets it.
      all['nhe-delegation'] = {
        ...all['nhe-delegation'],
        ACTOR_JTI_STREAM_REPLICAS: String(HA_STREAM.replicas),
        ...o.extraEnv?.['nhe-delegation'],
      };
      const containers = HA_WORKLOADS[workload].containers;
      replicas.push({
        workload,
        index,
        name: `${workload}-${index}`,
        ports: Object.fromEntries(containers.map((c) => [c, ports[c]])),
        envs: Object.fromEntries(containers.map((c) => [c, all[c]])),
        processes: {},
      });
    }
  }
  const replica = (workload: Workload, index: number) => {
    const r = replicas.find((x) => x.workload === workload && x.index === index);
    if (!r) throw new Error(`no replica ${workload}-${index}`);
    return r;
  };

  const crashRestarts: string[] = [];
  const endpoints: Record<string, number[]> = {};
  for (const w of Object.keys(HA_WORKLOADS) as Workload[])
    if (HA_WORKLOADS[w].route) endpoints[HA_WORKLOADS[w].route!] = [];
  const servingPort = (r: HaReplica) => {
    const c = SERVING_CONTAINER[r.workload];
    return c ? r.ports[c] : undefined;
  };
  const addEndpoint = (r: HaReplica) => {
    const route = HA_WORKLOADS[r.workload].route;
    const port = servingPort(r);
    if (route && port && !endpoints[route]!.includes(port)) endpoints[route]!.push(port);
  };
  const removeEndpoint = (r: HaReplica) => {
    const route = HA_WORKLOADS[r.workload].route;
    const port = servingPort(r);
    if (route && port) endpoints[route] = endpoints[route]!.filter((p) => p !== port);
  };

  /**
   * Starts the replica's containers in order. A container that exits before it is ready is started again after a
   * back-off, as the kubelet restarts a crashing container (restartPolicy Always): e.g. signals exits with
   * `timeout` when it cannot create its R3 stream while the JetStream cluster is busy, and comes up on the next try.
   */
  const startReplicaProcesses = async (r: HaReplica) => {
    for (const c of HA_WORKLOADS[r.workload].containers) {
      for (let attempt = 0; ; attempt += 1) {
        const child = spawn(process.execPath, [entry(c)], {
          env: { PATH: process.env.PATH ?? '', ...r.envs[c] },
          stdio: ['ignore', o.stdio ?? 'ignore', o.stdio ?? 'ignore'],
        });
        r.processes[c] = child;
        try {
          await waitReady(r.ports[c]!, child, `${r.name}/${c}`, 60_000);
          break;
        } catch (err) {
          if (child.exitCode === null || attempt >= CRASH_RESTARTS) throw err;
          crashRestarts.push(`${r.name}/${c}`);
          await new Promise((res) => setTimeout(res, 1000 * 2 ** attempt));
        }
      }
    }
    addEndpoint(r);
  };
  const stopReplicaProcesses = async (r: HaReplica) => {
    removeEndpoint(r);
    if (drainDelayMs > 0) await new Promise((res) => setTimeout(res, drainDelayMs));
    // The serving container drains first; its sidecar last (it answers the core's in-flight exchanges).
    for (const c of [...HA_WORKLOADS[r.workload].containers].reverse()) {
      const child = r.processes[c];
      if (child) await stopChild(child, HA_WORKLOADS[r.workload].terminationGraceSeconds * 1000);
    }
  };

  let router: HaRouter | undefined;
  const stop = async () => {
    await router?.close();
    await Promise.all(replicas.flatMap((r) => Object.values(r.processes).map((p) => stopChild(p!))));
  };
  try {
    await createAuditStreamAsTheChartDoes(o.natsUrl);
    // The first management replica creates indexes and bootstraps the system tenant; everything else after it.
    await startReplicaProcesses(replica('management', 0));
    await Promise.all(replicas.filter((r) => r !== replica('management', 0)).map(startReplicaProcesses));
    router = await startHaRouter(loadRouteTable(repoRoot()), endpoints, routerPort, o.routerHost);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    kind: 'ha',
    baseUrl,
    secrets,
    systemTenantId,
    natsCluster: o.natsCluster,
    router,
    replicas,
    replica,
    crashRestarts,
    stopReplica: (w, i) => stopReplicaProcesses(replica(w, i)),
    startReplica: (w, i) => startReplicaProcesses(replica(w, i)),
    runRetention: (args = []) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [entry('audit-retention'), ...args], {
          env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', MONGODB_URI: o.mongoUri },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        child.on('exit', (code) => resolve({ code: code ?? 1, output }));
      }),
    processes: () => [
      ...replicas.flatMap((r) =>
        Object.entries(r.processes).map(([c, p]) => ({ name: `${r.name}/${c}`, pid: p!.pid ?? 0 })),
      ),
      ...(o.natsCluster?.nodes ?? []).map((n) => ({ name: `nats-${n.name}`, pid: n.process.pid ?? 0 })),
    ],
    stop,
  };
}
