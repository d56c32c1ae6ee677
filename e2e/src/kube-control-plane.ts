/**
 * A real Kubernetes control plane on loopback for the chart tests and `npm run kube:local`: etcd, kube-apiserver
 * (RBAC, the PodSecurity admission plugin, a ServiceAccount token issuer with a key generated here) and
 * kube-controller-manager (Deployments make ReplicaSets and Pods, CronJobs make Jobs, the token controller),
 * built from their Go modules by `scripts/tools.sh kube` into .tools/bin. Data, certificates and logs live in a
 * temporary directory that stop() removes.
 *
 * There is no scheduler and no kubelet: Pods are admitted (Pod Security, ServiceAccount, RBAC of whoever creates
 * them) but stay Pending and never run; images are never pulled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { get as httpGetRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot } from '@idp/testing';

export const KUBE_TOOLS = ['etcd', 'kube-apiserver', 'kube-controller-manager'] as const;
/** Started only on request (StartOptions.scheduler): it matters only where a test registers Node objects. */
export const KUBE_SCHEDULER = 'kube-scheduler';
export type KubeTool = (typeof KUBE_TOOLS)[number] | typeof KUBE_SCHEDULER;

export const kubeToolPath = (name: KubeTool): string => join(repoRoot(), '.tools', 'bin', name);

/** The tools that are not built yet (empty when all are there). */
export function missingKubeTools(): KubeTool[] {
  return KUBE_TOOLS.filter((t) => !existsSync(kubeToolPath(t)));
}

/** Throws a message that says how to build the control plane when one of its binaries is missing. */
export function assertKubeTools(): void {
  const missing = missingKubeTools();
  if (missing.length > 0) {
    throw new Error(
      `the local Kubernetes control plane is not built (${missing.map((t) => `.tools/bin/${t}`).join(', ')} missing): ` +
        'run `bash scripts/tools.sh kube` (about 10 minutes on 2 cores the first time; scripts/test.sh does it)',
    );
  }
}

export interface KubeResponse<T = unknown> {
  status: number;
  body: T;
}

export interface KubeControlPlane {
  /** https://127.0.0.1:<port> */
  server: string;
  /** Admin kubeconfig (a static token in group system:masters, the serving CA). */
  kubeconfigPath: string;
  /** PEM of the API server's serving certificate and its CA (for NODE_EXTRA_CA_CERTS or a kubeconfig). */
  caPath: string;
  ca: string;
  /** The admin bearer token. */
  adminToken: string;
  /** Temporary directory holding data, certificates and logs. */
  dir: string;
  /** Kubernetes version the API server reports (e.g. v1.37.2). */
  version: string;
  /** A raw API call: JSON in, JSON out; token defaults to the admin token. Never throws on an HTTP status. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    opts?: { token?: string; contentType?: string },
  ): Promise<KubeResponse<T>>;
  /** Stops everything started and removes the directory. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Upper bound for the whole start-up. */
  timeoutMs?: number;
  /** Where the components' logs go besides their files in `dir` (default: only the files). */
  inheritLogs?: boolean;
  /** Keep the directory after stop (debugging). */
  keepDir?: boolean;
  /** Also start kube-scheduler (Pods are then bound to the Node objects a test registers; no kubelet runs them). */
  scheduler?: boolean;
}

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tail(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function httpGet(url: string): Promise<number> {
  return new Promise((res) => {
    const req = httpGetRequest(url, { timeout: 2000 }, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode ?? 0));
    });
    req.on('error', () => res(0));
    req.on('timeout', () => req.destroy());
  });
}

/** T: the JSON the caller expects the API server to answer with (the body is not checked against it). */
function apiCall<T = unknown>(
  server: string,
  ca: string | undefined,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<KubeResponse<T>> {
  return new Promise((res, rej) => {
    const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = request(
      `${server}${path}`,
      {
        method,
        agent: false,
        ...(ca ? { ca } : { rejectUnauthorized: false }),
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(data ? { 'content-type': contentType ?? 'application/json', 'content-length': String(data.length) } : {}),
        },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            /* plain text (readyz) */
          }
          res({ status: r.statusCode ?? 0, body: parsed as T });
        });
      },
    );
    req.on('error', rej);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    if (data) req.write(data);
    req.end();
  });
}

async function stopProc(p: Proc, graceMs = 10_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
  p.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const killed = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), graceMs))),
  ]);
  clearTimeout(timer);
  if (!killed) {
    p.child.kill('SIGKILL');
    await exited;
  }
}

/** Starts etcd, kube-apiserver and kube-controller-manager (and kube-scheduler on request) on free loopback ports. */
export async function startKubeControlPlane(opts: StartOptions = {}): Promise<KubeControlPlane> {
  assertKubeTools();
  if (opts.scheduler && !existsSync(kubeToolPath(KUBE_SCHEDULER))) {
    throw new Error('.tools/bin/kube-scheduler is missing: run `bash scripts/tools.sh kube` (scripts/test.sh does)');
  }
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  const dir = mkdtempSync(join(tmpdir(), 'idp-kube-'));
  const procs: Proc[] = [];
  // Never leave a component behind when this process exits without stop() (a crash, process.exit on a signal).
  const killOnExit = () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stopAll = async () => {
    for (const p of [...procs].reverse()) await stopProc(p);
    process.removeListener('exit', killOnExit);
    if (!opts.keepDir) rmSync(dir, { recursive: true, force: true });
  };
  const launch = (name: KubeTool, args: string[]): Proc => {
    const log = join(dir, `${name}.log`);
    const out = createWriteStream(log);
    const child = spawn(kubeToolPath(name), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    if (opts.inheritLogs) {
      child.stdout!.pipe(process.stderr, { end: false });
      child.stderr!.pipe(process.stderr, { end: false });
    }
    child.once('close', () => out.end());
    const p = { name, child, log };
    procs.push(p);
    return p;
  };
  const failIfExited = (p: Proc) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) {
      throw new Error(`${p.name} exited (${p.child.exitCode ?? p.child.signalCode}) during start-up:\n${tail(p.log)}`);
    }
  };
  const waitUntil = async (what: Proc, check: () => Promise<boolean>) => {
    for (;;) {
      failIfExited(what);
      if (await check()) return;
      if (Date.now() > deadline) throw new Error(`${what.name} not ready within ${timeoutMs} ms:\n${tail(what.log)}`);
      await sleep(250);
    }
  };

  try {
    // etcd
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcd = launch('etcd', [
      '--name=default',
      `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=default=http://127.0.0.1:${etcdPeer}`,
      '--log-level=warn',
      '--quota-backend-bytes=1073741824',
      '--unsafe-no-fsync',
    ]);
    await waitUntil(etcd, async () => (await httpGet(`http://127.0.0.1:${etcdClient}/health`)) === 200);

    // kube-apiserver
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const saKey = join(dir, 'sa.key');
    const saPub = join(dir, 'sa.pub');
    writeFileSync(saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(saPub, publicKey.export({ type: 'spki', format: 'pem' }));
    const adminToken = randomBytes(24).toString('hex');
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, `${adminToken},admin,admin-uid,"system:masters"\n`, { mode: 0o600 });
    const certDir = join(dir, 'pki');
    const api = launch('kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${certDir}`,
      '--endpoint-reconciler-type=none',
      `--token-auth-file=${tokens}`,
      '--authorization-mode=RBAC',
      '--anonymous-auth=false',
      // Lets a privileged container reach admission, so that the PodSecurity plugin (not the API server's
      // own validation) is what refuses it in an enforcing namespace.
      '--allow-privileged=true',
      '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,PodSecurity,LimitRanger,ResourceQuota,DefaultStorageClass,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      '--api-audiences=https://kubernetes.default.svc.cluster.local',
      '--service-cluster-ip-range=10.96.0.0/16',
      '--shutdown-delay-duration=0s',
      '--shutdown-send-retry-after=false',
      '--enable-priority-and-fairness=false',
      '--watch-cache=true',
      '--profiling=false',
      '--v=0',
    ]);
    const server = `https://127.0.0.1:${apiPort}`;
    await waitUntil(api, async () => {
      try {
        return (await apiCall(server, undefined, adminToken, 'GET', '/readyz')).status === 200;
      } catch {
        return false;
      }
    });
    const caPath = join(certDir, 'apiserver.crt');
    const ca = readFileSync(caPath, 'utf8');
    const version = (await apiCall<{ gitVersion: string }>(server, ca, adminToken, 'GET', '/version')).body.gitVersion;
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfigPath,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: ${server}`,
        `    certificate-authority-data: ${Buffer.from(ca).toString('base64')}`,
        'users:',
        '- name: admin',
        '  user:',
        `    token: ${adminToken}`,
        'contexts:',
        '- name: local',
        '  context:',
        '    cluster: local',
        '    user: admin',
        'current-context: local',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );

    // kube-controller-manager (no serving port: it is only a client of the API server)
    const kcm = launch('kube-controller-manager', [
      `--kubeconfig=${kubeconfigPath}`,
      `--service-account-private-key-file=${saKey}`,
      `--root-ca-file=${caPath}`,
      '--leader-elect=false',
      '--secure-port=0',
      '--controllers=*',
      '--concurrent-deployment-syncs=2',
      '--concurrent-replicaset-syncs=2',
      '--v=0',
    ]);
    // Ready when the token controller has given the default namespace its ServiceAccount.
    await waitUntil(
      kcm,
      async () =>
        (await apiCall(server, ca, adminToken, 'GET', '/api/v1/namespaces/default/serviceaccounts/default')).status ===
        200,
    );

    if (opts.scheduler) {
      const sched = launch(KUBE_SCHEDULER, [
        `--kubeconfig=${kubeconfigPath}`,
        '--leader-elect=false',
        '--secure-port=0',
        '--v=0',
      ]);
      // Ready once it has started (no serving port to probe): give it a moment to fail on bad flags.
      await sleep(500);
      failIfExited(sched);
    }

    let stopped = false;
    return {
      server,
      kubeconfigPath,
      caPath,
      ca,
      adminToken,
      dir,
      version,
      api: <T>(method: string, path: string, body?: unknown, o?: { token?: string; contentType?: string }) =>
        apiCall<T>(server, ca, o?.token ?? adminToken, method, path, body, o?.contentType),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        await stopAll();
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Resource names (plural) of the kinds the chart and the tests use, by apiVersion/kind. */
const RESOURCES: Partial<Record<string, { plural: string; namespaced: boolean }>> = {
  'v1/Namespace': { plural: 'namespaces', namespaced: false },
  'v1/Pod': { plural: 'pods', namespaced: true },
  'v1/Secret': { plural: 'secrets', namespaced: true },
  'v1/ConfigMap': { plural: 'configmaps', namespaced: true },
  'v1/Service': { plural: 'services', namespaced: true },
  'v1/ServiceAccount': { plural: 'serviceaccounts', namespaced: true },
  'v1/PersistentVolumeClaim': { plural: 'persistentvolumeclaims', namespaced: true },
  'apps/v1/Deployment': { plural: 'deployments', namespaced: true },
  'apps/v1/StatefulSet': { plural: 'statefulsets', namespaced: true },
  'apps/v1/ReplicaSet': { plural: 'replicasets', namespaced: true },
  'batch/v1/CronJob': { plural: 'cronjobs', namespaced: true },
  'batch/v1/Job': { plural: 'jobs', namespaced: true },
  'rbac.authorization.k8s.io/v1/Role': { plural: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { plural: 'rolebindings', namespaced: true },
  'networking.k8s.io/v1/NetworkPolicy': { plural: 'networkpolicies', namespaced: true },
  'networking.k8s.io/v1/Ingress': { plural: 'ingresses', namespaced: true },
  'policy/v1/PodDisruptionBudget': { plural: 'poddisruptionbudgets', namespaced: true },
  'autoscaling/v2/HorizontalPodAutoscaler': { plural: 'horizontalpodautoscalers', namespaced: true },
};

/** The REST path of a kind (collection when name is absent), e.g. /apis/apps/v1/namespaces/idp/deployments/x. */
export function resourcePath(apiVersion: string, kind: string, namespace: string | undefined, name?: string): string {
  const r = RESOURCES[`${apiVersion}/${kind}`];
  if (!r)
    throw new Error(
      `no REST path known for ${apiVersion} ${kind} (add it to RESOURCES in e2e/src/kube-control-plane.ts)`,
    );
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = r.namespaced ? `/namespaces/${namespace}` : '';
  return `${base}${ns}/${r.plural}${name ? `/${name}` : ''}`;
}

/** Polls `check` until it returns a value other than undefined, or throws `describe()` after timeoutMs. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  describe: () => Promise<string> | string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${await describe()}`);
    await sleep(250);
  }
}
