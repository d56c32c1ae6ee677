/**
 * The chart's env boots the services: charts/idp (each ci/ value set, --no-hooks) is installed into a real API
 * server (e2e/src/kube-control-plane.ts), the operator's Secrets the chart names (existingSecret) are created, and
 * for every workload the Pod the controllers created is resolved the way the kubelet would (e2e/src/kube-pod-env.ts:
 * env with $(VAR) expansion, secretKeyRef, fieldRef; mounted Secrets, the projected ServiceAccount token, ca.crt and
 * namespace). Each container's env passes its service's own configuration schema, names no variable the service
 * does not read, and oidc (oidc-core with its nhe-delegation sidecar) and management are started from their built
 * entry files with that env, answer /readyz 200 and connect to NATS (they log "NATS unavailable" otherwise).
 *
 * Replaced for a local run, nothing else: the MongoDB connection (the local FerretDB, whose SQLite backend has no
 * SCRAM users, so the URI's hosts, credentials, authSource and replicaSet become the local server and a database of
 * the test's own), the NATS servers' host:port (credentials kept; tls:// becomes nats://, the local server has no
 * TLS), HOST (loopback) and the pod-local ports (free ones, SIDECAR_URL following), and, for management's Kubernetes client outside a pod, the API server URL, the
 * mounted token and CA as JOBS_K8S_API_URL / JOBS_K8S_TOKEN / NODE_EXTRA_CA_CERTS.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { z } from 'zod';
import { loadConfig } from '@idp/config';
import YAML from 'yaml';
import { jetstreamManager } from '@nats-io/jetstream';
import { connectDatabase } from '@idp/db';
import { connectNats } from '@idp/events';
import type { Logger } from '@idp/logger';
import {
  freePort,
  repoRoot,
  startNatsServer,
  testMongoBase,
  toolPath,
  uniqueDbName,
  waitForPort,
  withDatabase,
  type RunningServer,
} from '@idp/testing';
import { configSchema as auditRetentionSchema } from '../../../services/audit-retention/src/config';
import { configSchema as auditWriterSchema } from '../../../services/audit-writer/src/config';
import { configSchema as managementSchema } from '../../../services/management/src/config';
import { configSchema as nheDelegationSchema } from '../../../services/nhe-delegation/src/config';
import { configSchema as oidcCoreSchema } from '../../../services/oidc-core/src/config';
import { configSchema as signalsSchema } from '../../../services/signals/src/config';
import { resourcePath, startKubeControlPlane, waitFor, type KubeControlPlane } from '../../src/kube-control-plane';
import {
  resolvePodContainers,
  type KubeList,
  type ResolvedContainer,
  type StoredCronJob,
  type StoredDeployment,
  type StoredJob,
  type StoredPod,
} from '../../src/kube-pod-env';
import { chartDir, helm, helmAvailable, helmBin, RELEASE } from './render';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

if (!helmAvailable())
  throw new Error(`${helmBin} is missing: run \`bash scripts/tools.sh helm\` (scripts/test.sh does)`);

const CI_SETS = readdirSync(join(chartDir, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();
/** The value set whose hooks are run below (the smallest install, both hooks present). */
const HOOK_SET = 'default-values.yaml';
const NS = 'idp';
const nsOf = (set: string) => (set === HOOK_SET ? NS : `idp-${set.replace(/-values\.yaml$/, '')}`);
const SCHEMAS: Record<string, z.ZodObject> = {
  'oidc-core': oidcCoreSchema,
  'nhe-delegation': nheDelegationSchema,
  management: managementSchema,
  'audit-writer': auditWriterSchema,
  'audit-retention': auditRetentionSchema,
  signals: signalsSchema,
};
/** Env the chart sets that no service reads directly: parts Kubernetes composes into MONGODB_URI / NATS_URL. */
const COMPOSITION_ENV = new Set(['MONGODB_USERNAME', 'MONGODB_PASSWORD', 'NATS_USER', 'NATS_PASSWORD']);
const serviceOf = (image: string) => Object.keys(SCHEMAS).find((s) => new RegExp(`(^|/)${s}[:@]`).test(image));

let cp: KubeControlPlane;
let nats: RunningServer;
let root: string;
/** Workload (Deployment or CronJob name) → its Pod's resolved containers, per ci/ value set. */
const bySet = new Map<string, Map<string, ResolvedContainer[]>>();
/** Those of HOOK_SET (the hooks' checks compare against them). */
const workloads = new Map<string, ResolvedContainer[]>();
const running: ChildProcess[] = [];

/** Installs a ci/ value set (--no-hooks) into a restricted namespace and resolves the Pod of every workload. */
async function installSet(set: string, ns: string): Promise<Map<string, ResolvedContainer[]>> {
  const out = new Map<string, ResolvedContainer[]>();
  expect(
    (
      await cp.api('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: ns,
          labels: {
            'pod-security.kubernetes.io/enforce': 'restricted',
            'pod-security.kubernetes.io/enforce-version': 'latest',
          },
        },
      })
    ).status,
  ).toBe(201);
  helm([
    'install',
    RELEASE,
    chartDir,
    '--namespace',
    ns,
    '-f',
    join(chartDir, 'ci', set),
    '--no-hooks',
    '--timeout',
    '60s',
    '--kubeconfig',
    cp.kubeconfigPath,
  ]);

  // The operator's Secrets (mongodb.auth.existingSecret, nats.auth.existingSecret, and in external-secrets every
  // secret): every Secret key a workload refers to or mounts that the release did not create, a random value each.
  const deployments = (await cp.api<KubeList<StoredDeployment>>('GET', resourcePath('apps/v1', 'Deployment', ns))).body
    .items;
  const cron = (await cp.api<StoredCronJob>('GET', resourcePath('batch/v1', 'CronJob', ns, 'nhe-audit-retention')))
    .body;
  const hookJobs = YAML.parseAllDocuments(
    helm(['get', 'hooks', RELEASE, '--namespace', ns, '--kubeconfig', cp.kubeconfigPath]),
  )
    .map((d) => d.toJS() as StoredJob | null)
    .filter((o): o is StoredJob => o?.kind === 'Job');
  const templates = [
    ...deployments.map((d) => d.spec.template.spec),
    cron.spec.jobTemplate.spec.template.spec,
    ...hookJobs.map((j) => j.spec.template.spec),
  ];
  const wanted = new Map<string, Set<string>>();
  const want = (name: string, key: string) => wanted.set(name, (wanted.get(name) ?? new Set()).add(key));
  for (const spec of templates) {
    for (const c of spec.containers) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) want(ref.name, ref.key);
      }
    }
    // Mounted Secrets (secrets.existingSecret, bootstrapAdmin.existingSecret): the keys their items name.
    for (const v of spec.volumes ?? []) {
      const sources = [
        ...(v.secret ? [{ secret: { name: v.secret.secretName, items: v.secret.items } }] : []),
        ...(v.projected?.sources ?? []),
      ];
      for (const src of sources)
        if (src.secret) for (const item of src.secret.items ?? []) want(src.secret.name, item.key);
    }
  }
  for (const [name, keys] of wanted) {
    if ((await cp.api('GET', resourcePath('v1', 'Secret', ns, name))).status === 200) continue;
    const data = Object.fromEntries([...keys].map((k) => [k, randomBytes(24).toString('base64url')]));
    expect(
      (
        await cp.api('POST', resourcePath('v1', 'Secret', ns), {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name },
          stringData: data,
        })
      ).status,
    ).toBe(201);
  }

  // The Pods the controllers made (a Job from the CronJob for the retention program), resolved.
  for (const d of deployments) {
    const sel = encodeURIComponent(
      Object.entries(d.spec.selector.matchLabels)
        .map(([k, v]) => `${k}=${v}`)
        .join(','),
    );
    const pod = await waitFor(
      async () =>
        (await cp.api<KubeList<StoredPod>>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${sel}`)).body.items.at(
          0,
        ),
      30_000,
      () => `no Pod of ${d.metadata.name}`,
    );
    out.set(d.metadata.name, await resolvePodContainers(cp, pod, join(root, ns, d.metadata.name)));
  }
  const job = await cp.api('POST', resourcePath('batch/v1', 'Job', ns), {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'retention-env' },
    spec: cron.spec.jobTemplate.spec,
  });
  expect(job.status).toBe(201);
  const jobPod = await waitFor(
    async () =>
      (
        await cp.api<KubeList<StoredPod>>(
          'GET',
          `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent('batch.kubernetes.io/job-name=retention-env')}`,
        )
      ).body.items.at(0),
    30_000,
    () => 'no Pod of the retention Job',
  );
  out.set('nhe-audit-retention', await resolvePodContainers(cp, jobPod, join(root, ns, 'nhe-audit-retention')));
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'idp-kube-env-'));
  await startAll([
    startKubeControlPlane({ timeoutMs: 90_000 }).then((v) => (cp = v)),
    startNatsServer({ quiet: true }).then((v) => (nats = v)),
  ]);
  for (const set of CI_SETS) {
    const resolved = await installSet(set, nsOf(set));
    bySet.set(set, resolved);
    if (set === HOOK_SET) for (const [k, v] of resolved) workloads.set(k, v);
  }
}, 240_000);

/** Stops the services the boot tests started (one value set's at a time, so at most three run at once). */
async function stopRunning(): Promise<void> {
  for (const c of running.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    }
  }
}

afterAll(async () => {
  await stopRunning();
  await Promise.all([ifAssigned(cp)?.stop(), ifAssigned(nats)?.dispose()]);
  if (root) rmSync(root, { recursive: true, force: true });
}, 60_000);

/** The env of a container with only the local stand-ins replaced (see the file comment). */
function localEnv(c: ResolvedContainer, ports: Map<string, number>, db: string): Record<string, string> {
  const env = { ...c.env };
  env.MONGODB_URI = withDatabase(testMongoBase(), db);
  const local = new URL(nats.url);
  env.NATS_URL = env.NATS_URL.split(',')
    .map((u) => {
      // The local server has no TLS: a tls:// server (external-secrets) becomes nats:// here, credentials kept.
      const url = new URL(u.trim().replace(/^tls:\/\//, 'nats://'));
      url.host = local.host;
      return url.toString().replace(/\/$/, '');
    })
    .join(',');
  if (env.HOST) env.HOST = '127.0.0.1';
  if (env.PORT) env.PORT = String(ports.get(env.PORT));
  for (const [k, v] of Object.entries(env)) {
    const m = /^(https?:\/\/127\.0\.0\.1:)(\d+)(.*)$/.exec(v);
    if (m && ports.has(m[2])) env[k] = `${m[1]}${ports.get(m[2])}${m[3]}`;
  }
  return env;
}

/** Each booted service's output so far, by service name. */
const outputOf = new Map<string, () => string>();

async function boot(name: string, env: Record<string, string>): Promise<number> {
  const out: Buffer[] = [];
  outputOf.set(name, () => Buffer.concat(out).toString('utf8'));
  const child = spawn(process.execPath, [join(repoRoot(), 'services', name, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => out.push(d));
  child.stderr!.on('data', (d: Buffer) => out.push(d));
  running.push(child);
  const port = Number(env.PORT);
  const tailOf = () => Buffer.concat(out).toString('utf8').split('\n').slice(-15).join('\n');
  try {
    await waitForPort(port, 30_000, child);
  } catch (err) {
    throw new Error(`${name}: ${(err as Error).message}\n${tailOf()}`, { cause: err });
  }
  return waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${tailOf()}`);
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 0,
      );
      return status === 200 ? status : undefined;
    },
    30_000,
    () => `${name} /readyz not 200:\n${tailOf()}`,
  );
}

describe.each(CI_SETS)('the env of ci/%s as the API server holds it', (set) => {
  it('resolves every workload of the release: four Deployments and the retention CronJob', () => {
    expect([...bySet.get(set)!.keys()].sort()).toEqual([
      `${RELEASE}-audit-writer`,
      `${RELEASE}-management`,
      `${RELEASE}-oidc`,
      `${RELEASE}-signals`,
      'nhe-audit-retention',
    ]);
  });

  it("every container's env passes its service's configuration schema and names only variables the service reads", () => {
    const seen: string[] = [];
    for (const [workload, containers] of bySet.get(set)!) {
      for (const c of containers) {
        const service = serviceOf(c.image);
        expect({ workload, container: c.name, service }).toEqual({
          workload,
          container: c.name,
          service: expect.any(String),
        });
        const schema = SCHEMAS[service!]!;
        expect(() => loadConfig(schema, c.env)).not.toThrow();
        const known = new Set(Object.keys(schema.shape));
        const unknown = Object.keys(c.env).filter(
          (k) => !COMPOSITION_ENV.has(k) && !known.has(k.endsWith('_FILE') ? k.slice(0, -5) : k),
        );
        expect({ workload, container: c.name, unknown }).toEqual({ workload, container: c.name, unknown: [] });
        seen.push(service!);
      }
    }
    expect([...new Set(seen)].sort()).toEqual(Object.keys(SCHEMAS).sort());
  });

  it('the oidc Pod (oidc-core and its nhe-delegation sidecar) and management start with that env: /readyz 200', async () => {
    const workloads = bySet.get(set)!;
    const NS = nsOf(set);
    const db = uniqueDbName('kubeenv');
    const oidc = workloads.get(`${RELEASE}-oidc`)!;
    const ports = new Map<string, number>();
    for (const c of oidc) ports.set(c.env.PORT, await freePort());
    const sidecar = oidc.find((c) => serviceOf(c.image) === 'nhe-delegation')!;
    const core = oidc.find((c) => serviceOf(c.image) === 'oidc-core')!;
    expect(await boot('nhe-delegation', localEnv(sidecar, ports, db))).toBe(200);
    expect(await boot('oidc-core', localEnv(core, ports, db))).toBe(200);

    const [mgmt] = workloads.get(`${RELEASE}-management`)!;
    expect(mgmt.serviceAccountToken).toEqual(expect.any(String));
    const mgmtPorts = new Map([[mgmt.env.PORT, await freePort()]]);
    const env: Record<string, string> = {
      ...localEnv(mgmt, mgmtPorts, db),
      JOBS_K8S_API_URL: cp.server,
      JOBS_K8S_TOKEN: mgmt.serviceAccountToken!,
      NODE_EXTRA_CA_CERTS: join(mgmt.mounts['/var/run/secrets/kubernetes.io/serviceaccount'], 'ca.crt'),
    };
    expect(env.JOBS_BACKEND).toBe('kubernetes');
    expect(env.JOBS_K8S_NAMESPACE).toBe(NS);
    expect(await boot('management', env)).toBe(200);
    // Its Kubernetes backend reached the API server with the mounted token: the CronJob carries its field manager.
    await waitFor(
      async () =>
        (
          (await cp.api<StoredCronJob>('GET', resourcePath('batch/v1', 'CronJob', NS, 'nhe-audit-retention'))).body
            .metadata.managedFields ?? []
        ).some((f) => f.manager === 'idp-management') || undefined,
      20_000,
      () => 'management never patched the CronJob',
    );
    // Each connected to NATS with the URL the chart composed (readiness checks MongoDB only; they log when NATS fails).
    for (const name of ['oidc-core', 'management'])
      expect({ name, natsUnavailable: /NATS unavailable/.test(outputOf.get(name)!()) }).toEqual({
        name,
        natsUnavailable: false,
      });
    await stopRunning();
  }, 120_000);
});

/**
 * Hooks without a kubelet: the hook objects of the release (`helm get hooks`; installed here with --no-hooks) are
 * created in the API server, the Job controller makes the hook Jobs' Pods, and the stream Job's Pod is run as a
 * local process: its command (the image's node and the mounted hook script), its env and mounted ConfigMap
 * resolved from the API server, against a local nats-server that requires the user and the password of the
 * operator's Secret. The local server is a single node, so the stream's replicas (3 in this value set) become 1.
 * The MongoDB users-and-roles Job's Pod is run the same way, with one part replaced: the local store (FerretDB on
 * SQLite) has no rolesInfo/createRole/usersInfo/createUser (CommandNotFound), so the script's `mongodb` module is a
 * recorder of those commands (MONGO_RECORDER below); what it asks for is checked against the role table, the
 * Secret's passwords and the credentials every workload's MONGODB_URI carries. Its second half (collections and
 * indexes through @idp/db with the admin URI) runs for real against the local FerretDB. That MongoDB itself
 * accepts those commands and then enforces the privileges still needs a real MongoDB.
 */
describe('hooks without a kubelet', () => {
  const hookPods = new Map<string, ResolvedContainer[]>();
  let authNats: ChildProcess | undefined;
  let authPort = 0;
  let natsDir = '';

  beforeAll(async () => {
    const hooks = YAML.parseAllDocuments(
      helm(['get', 'hooks', RELEASE, '--namespace', NS, '--kubeconfig', cp.kubeconfigPath]),
    )
      .map((d) => d.toJS() as StoredJob | null)
      .filter((o): o is StoredJob => !!o && o.kind !== 'Pod'); // helm test Pods: admitted in kube-install.e2e.test.ts
    for (const h of hooks) expect((await cp.api('POST', resourcePath(h.apiVersion, h.kind, NS), h)).status).toBe(201);
    for (const j of hooks.filter((h) => h.kind === 'Job')) {
      const sel = encodeURIComponent(`batch.kubernetes.io/job-name=${j.metadata.name}`);
      const pod = await waitFor(
        async () =>
          (
            await cp.api<KubeList<StoredPod>>('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=${sel}`)
          ).body.items.at(0),
        30_000,
        () => `no Pod of hook Job ${j.metadata.name}`,
      );
      hookPods.set(
        j.metadata.labels?.['app.kubernetes.io/component'] ?? j.metadata.name,
        await resolvePodContainers(cp, pod, join(root, `hook-${j.metadata.name}`)),
      );
    }
  }, 60_000);

  afterAll(async () => {
    if (authNats && authNats.exitCode === null) {
      const exited = new Promise((r) => authNats!.once('exit', r));
      authNats.kill('SIGTERM');
      await exited;
    }
    if (natsDir) rmSync(natsDir, { recursive: true, force: true });
  });

  it('the release has the stream and the MongoDB users hook Jobs, and the Job controller made their Pods', () => {
    expect([...hookPods.keys()].sort()).toEqual(['mongo-users', 'nats-stream']);
  });

  it("the stream Job's Pod, run locally with what the API server holds, creates IDP_AUDIT with the chart's settings", async () => {
    const [c] = hookPods.get('nats-stream')!;
    // The image's node and /app/node_modules are this repository's node and node_modules (the image copies them).
    const [node, script, ...rest] = [...c.command, ...c.args];
    expect(node).toBe('/usr/local/bin/node');
    const mount = Object.keys(c.mounts).find((m) => script.startsWith(`${m}/`))!;
    const localScript = c.mounts[mount] + script.slice(mount.length);
    // The ConfigMap holds the chart's file (`|-` drops its final newline).
    expect(readFileSync(localScript, 'utf8')).toBe(
      readFileSync(join(chartDir, 'files', 'nats-stream.js'), 'utf8').trimEnd(),
    );
    expect(c.env.NODE_PATH).toBe('/app/node_modules');

    const url = new URL(c.env.NATS_URL.split(',')[0]);
    natsDir = mkdtempSync(join(tmpdir(), 'idp-hook-nats-'));
    authPort = await freePort();
    authNats = spawn(
      toolPath('nats-server'),
      [
        '-js',
        '-a',
        '127.0.0.1',
        '-p',
        String(authPort),
        '-sd',
        natsDir,
        '--user',
        decodeURIComponent(url.username),
        '--pass',
        decodeURIComponent(url.password),
      ],
      { stdio: 'ignore' },
    );
    await waitForPort(authPort, 20_000, authNats);
    const natsUrl = c.env.NATS_URL.split(',')
      .map((u) => u.trim().replace(/@[^@]+$/, `@127.0.0.1:${authPort}`))
      .join(',');
    expect(c.env.AUDIT_STREAM_REPLICAS).toBe('3');
    const env = {
      ...c.env,
      NATS_URL: natsUrl,
      NODE_PATH: join(repoRoot(), 'node_modules'),
      AUDIT_STREAM_REPLICAS: '1',
    };
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [localScript, ...rest], {
        env: { PATH: process.env.PATH ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect([run.code, run.stderr]).toEqual([0, '']);

    // What it created, read from the server with the same credentials.
    const quiet = {
      warn() {},
      info() {},
      error() {},
      debug() {},
      child() {
        return quiet;
      },
    } as unknown as Logger;
    const handle = await connectNats(natsUrl, quiet, 'kube-hook-test');
    try {
      const info = await (await jetstreamManager(handle.nc)).streams.info('IDP_AUDIT');
      expect({
        subjects: info.config.subjects,
        replicas: info.config.num_replicas,
        duplicateWindowSeconds: info.config.duplicate_window / 1e9,
        maxAgeSeconds: info.config.max_age / 1e9,
        storage: info.config.storage,
      }).toEqual({
        subjects: ['idp.audit.nhe.issued.*', 'idp.audit.dead-letter'],
        replicas: 1,
        duplicateWindowSeconds: Number(c.env.AUDIT_DUPLICATE_WINDOW_SECONDS),
        maxAgeSeconds: Number(c.env.AUDIT_STREAM_MAX_AGE_SECONDS),
        storage: 'file',
      });
    } finally {
      await handle.close();
    }
  });

  it("the MongoDB users Job's Pod, run locally: the roles and users it asks for, the credentials the workloads use, the collections and indexes it creates", async () => {
    const [c] = hookPods.get('mongo-users')!;
    const [node, script, ...rest] = [...c.command, ...c.args];
    expect(node).toBe('/usr/local/bin/node');
    const mount = Object.keys(c.mounts).find((m) => script.startsWith(`${m}/`))!;
    const localScript = c.mounts[mount] + script.slice(mount.length);
    expect(readFileSync(localScript, 'utf8')).toBe(
      readFileSync(join(chartDir, 'files', 'mongo-setup.js'), 'utf8').trimEnd(),
    );
    const table = JSON.parse(readFileSync(join(chartDir, 'files', 'mongo-roles.json'), 'utf8')) as {
      roles: Record<string, { name: string; privileges: Array<{ collections: string[]; actions: string[] }> }>;
    };
    expect(JSON.parse(readFileSync(c.env.ROLES_FILE, 'utf8'))).toEqual(table);
    expect(c.env.NODE_PATH).toBe('/app/node_modules');

    // The admin URI as the API server resolves it: the admin user and the operator Secret's admin password.
    expect(mongoUriParts(c.env.MONGODB_ADMIN_URI)).toEqual({
      user: c.env.MONGODB_ADMIN_USERNAME,
      password: c.env.MONGODB_ADMIN_PASSWORD,
      db: c.env.MONGODB_DATABASE,
    });

    // Replaced for the local run: the script's `mongodb` module by a recorder of the user-management commands
    // (FerretDB answers rolesInfo/createRole/usersInfo/createUser with CommandNotFound), and the admin URI by the
    // local FerretDB, where the second half (collections and indexes through @idp/db, with the admin's URI) runs.
    const dir = join(root, 'mongo-recorder');
    mkdirSync(join(dir, 'mongodb'), { recursive: true });
    writeFileSync(join(dir, 'mongodb', 'index.js'), MONGO_RECORDER);
    const journal = join(dir, 'journal.json');
    const db = uniqueDbName('kubehook');
    const env = {
      ...c.env,
      NODE_PATH: [dir, join(repoRoot(), 'node_modules')].join(delimiter),
      MONGODB_ADMIN_URI: withDatabase(testMongoBase(), db),
      MONGO_RECORDER_JOURNAL: journal,
    };
    const runOnce = () =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [localScript, ...rest], {
          env: { PATH: process.env.PATH ?? '', ...env },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const first = await runOnce();
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toContain('collections and indexes: ready');

    type Cmd = Record<string, unknown>;
    const recorded = () =>
      JSON.parse(readFileSync(journal, 'utf8')) as { clients: Array<{ uri: string; db: string }>; commands: Cmd[] };
    const { clients, commands } = recorded();
    expect(clients).toEqual([{ uri: env.MONGODB_ADMIN_URI, db: c.env.MONGODB_DATABASE }]);
    const users = new Map<string, { pwd: string; role: string }>();
    for (const [component, role] of Object.entries(table.roles)) {
      const suffix = component.replace(/[A-Z]/g, (ch) => `_${ch}`).toUpperCase();
      const user = c.env[`MONGODB_USER_${suffix}`];
      const pwd = c.env[`MONGODB_PASSWORD_${suffix}`];
      expect({ component, user, pwd }).toEqual({
        component,
        user: expect.stringMatching(/^idp-/),
        pwd: expect.stringMatching(/.{16,}/),
      });
      // Exactly the table's privileges, each scoped to the application database, and the user bound to that role only.
      const privileges = role.privileges.flatMap((p) =>
        p.collections.map((collection) => ({
          resource: { db: c.env.MONGODB_DATABASE, collection },
          actions: p.actions,
        })),
      );
      expect(commands).toContainEqual({ createRole: role.name, privileges, roles: [] });
      expect(commands).toContainEqual({
        createUser: user,
        pwd,
        roles: [{ role: role.name, db: c.env.MONGODB_DATABASE }],
      });
      expect(first.stdout).toContain(`role ${role.name} and user ${user}: ready`);
      users.set(user, { pwd, role: role.name });
    }
    expect(commands.filter((x) => 'createRole' in x || 'createUser' in x)).toHaveLength(
      2 * Object.keys(table.roles).length,
    );

    // Every workload connects as a user the hook creates, with the password the hook gives it, bound to its role.
    const COMPONENT: Record<string, string> = {
      'oidc-core': 'oidc',
      'nhe-delegation': 'oidc',
      management: 'management',
      'audit-writer': 'auditWriter',
      'audit-retention': 'auditRetention',
      signals: 'signals',
    };
    let connecting = 0;
    for (const [workload, containers] of workloads) {
      for (const w of containers) {
        if (!w.env.MONGODB_URI) continue;
        connecting++;
        const uri = mongoUriParts(w.env.MONGODB_URI);
        const user = users.get(uri.user);
        expect({ workload, container: w.name, user: uri.user, pwd: user?.pwd, role: user?.role, db: uri.db }).toEqual({
          workload,
          container: w.name,
          user: uri.user,
          pwd: uri.password,
          role: table.roles[COMPONENT[serviceOf(w.image)!]!]!.name,
          db: c.env.MONGODB_DATABASE,
        });
      }
    }
    expect(connecting).toBeGreaterThanOrEqual(5);

    // The second half ran for real: every model's collection with the indexes its schema declares (a TTL index,
    // which FerretDB refuses with code 238, is instead named in @idp/db's "not supported by this server" line).
    const local = await connectDatabase(env.MONGODB_ADMIN_URI, quietLogger());
    try {
      let indexes = 0;
      for (const model of Object.values(local.models) as Array<import('mongoose').Model<unknown>>) {
        const name = model.collection.collectionName;
        const have = (await model.collection.listIndexes().toArray()).map((i) => JSON.stringify(i.key));
        for (const [keys, options] of model.schema.indexes()) {
          const ttl = (options as { expireAfterSeconds?: number }).expireAfterSeconds !== undefined;
          const there = ttl
            ? new RegExp(`not supported by this server.*\\{"collection":"${name}"`).test(first.stdout)
            : have.includes(JSON.stringify(keys));
          expect({ collection: name, index: JSON.stringify(keys), ttl, there }).toEqual({
            collection: name,
            index: JSON.stringify(keys),
            ttl,
            there: true,
          });
          indexes++;
        }
      }
      expect(indexes).toBeGreaterThan(20);
    } finally {
      await local.connection.dropDatabase();
      await local.close();
    }

    // Idempotent (a hook runs again on every upgrade): the second run updates the roles and users it finds.
    const second = await runOnce();
    expect([second.code, second.stderr]).toEqual([0, '']);
    const again = recorded().commands.slice(commands.length);
    expect(
      again
        .filter((x) => 'updateRole' in x)
        .map((x) => x.updateRole)
        .sort(),
    ).toEqual(
      Object.values(table.roles)
        .map((r) => r.name)
        .sort(),
    );
    expect(
      again
        .filter((x) => 'updateUser' in x)
        .map((x) => x.updateUser)
        .sort(),
    ).toEqual([...users.keys()].sort());
    expect(again.filter((x) => 'createRole' in x || 'createUser' in x)).toEqual([]);
  });
});

/** User, password and database of a MongoDB URI (several hosts are not a WHATWG URL). */
function mongoUriParts(uri: string): { user: string; password: string; db: string } {
  const m = /^mongodb(?:\+srv)?:\/\/([^:@/]+):([^@/]+)@[^/]+\/([^?]*)/.exec(uri);
  if (!m) throw new Error(`not a MongoDB URI with credentials and a database: ${uri.replace(/:[^@/]+@/, ':***@')}`);
  return { user: decodeURIComponent(m[1]!), password: decodeURIComponent(m[2]!), db: m[3]! };
}

const quietLogger = () => {
  const l = { warn() {}, info() {}, error() {}, debug() {}, child: () => l } as unknown as Logger;
  return l;
};

/**
 * The `mongodb` module the hook script gets in the local run (first on its NODE_PATH): a MongoClient that records
 * the URI, the database and every command into MONGO_RECORDER_JOURNAL and answers the user-management commands
 * the way MongoDB does (rolesInfo/usersInfo from what was created before, ok: 1 otherwise). Any other command
 * fails, so the script cannot do unrecorded work through it. @idp/db (the script's second half) uses the real driver.
 */
const MONGO_RECORDER = `'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const file = process.env.MONGO_RECORDER_JOURNAL;
const load = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { clients: [], commands: [], roles: [], users: [] });
class MongoClient {
  constructor(uri) { this.uri = uri; }
  async connect() { return this; }
  async close() {}
  db(name) {
    const uri = this.uri;
    return {
      databaseName: name,
      async command(cmd) {
        const j = load();
        if (!j.clients.some((c) => c.uri === uri && c.db === name)) j.clients.push({ uri, db: name });
        j.commands.push(cmd);
        let answer;
        if ('rolesInfo' in cmd) answer = { roles: j.roles.filter((r) => r === cmd.rolesInfo).map((role) => ({ role, db: name })), ok: 1 };
        else if ('usersInfo' in cmd) answer = { users: j.users.filter((u) => u === cmd.usersInfo).map((user) => ({ user, db: name })), ok: 1 };
        else if ('createRole' in cmd) { j.roles.push(cmd.createRole); answer = { ok: 1 }; }
        else if ('createUser' in cmd) { j.users.push(cmd.createUser); answer = { ok: 1 }; }
        else if ('updateRole' in cmd || 'updateUser' in cmd) answer = { ok: 1 };
        else throw new Error('mongo recorder: unexpected command ' + Object.keys(cmd)[0]);
        writeFileSync(file, JSON.stringify(j));
        return answer;
      },
    };
  }
}
module.exports = { MongoClient };
`;
