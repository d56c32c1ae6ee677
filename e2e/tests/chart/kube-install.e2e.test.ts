/**
 * charts/idp against a real Kubernetes API server (etcd, kube-apiserver and kube-controller-manager built from
 * their Go modules; e2e/src/kube-control-plane.ts): for each ci/ value set, the real helm (.tools/bin/helm)
 * installs, upgrades, rolls back and uninstalls the release in a namespace that enforces the restricted Pod
 * Security Standard, and the controllers turn every Deployment into Pods and the CronJob into a Job and its Pod,
 * all admitted by the API server. No node exists: Pods are admitted, never run.
 *
 * Hooks: the release is installed with --no-hooks, because the hook Jobs (MongoDB users and roles, the JetStream
 * stream) wait for a Pod to complete and no Pod runs here (with hooks, `helm install` waits until its timeout).
 * The hooks are not skipped silently: every hook object of the release (`helm get hooks`) is created here in the
 * same namespace, the Job controller creates the hook Jobs' Pods and the API server admits them; `helm test`'s
 * Pods are admitted (server-side dry run). What the hooks do: e2e/tests/chart/kube-env.e2e.test.ts runs both hook
 * Jobs' Pods, as the API server holds them, as local processes: the stream hook against nats-server (the stream
 * checked), the MongoDB users hook with its user-management commands recorded (the local FerretDB has no
 * createRole/createUser; the commands, the passwords and the workloads' credentials checked) and its collections
 * and indexes created in FerretDB.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { resourcePath, startKubeControlPlane, waitFor, type KubeControlPlane } from '../../src/kube-control-plane';
import type { KubeList, StoredCronJob, StoredDeployment, StoredJob, StoredPod } from '../../src/kube-pod-env';
import { chartDir, helm, helmAvailable, helmBin, K8sObject, RELEASE } from './render';
import { ifAssigned } from '../../src/if-assigned';

if (!helmAvailable())
  throw new Error(`${helmBin} is missing: run \`bash scripts/tools.sh helm\` (scripts/test.sh does)`);

const CI_SETS = readdirSync(join(chartDir, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();
const RETENTION_DEFAULT = '17 3 * * *';
const RETENTION_UPGRADED = '41 4 * * 1';

let cp: KubeControlPlane;
const helmK = (args: string[]) => helm([...args, '--kubeconfig', cp.kubeconfigPath]);
const parseAll = (text: string): K8sObject[] =>
  YAML.parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null && typeof o === 'object');
const pathOf = (o: K8sObject, ns: string) => resourcePath(o.apiVersion, o.kind, ns, o.metadata.name);
const selectorOf = (m: Record<string, string>) =>
  encodeURIComponent(
    Object.entries(m)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
  );

/** Creates a namespace that enforces the restricted Pod Security Standard (latest). */
async function restrictedNamespace(name: string): Promise<void> {
  const res = await cp.api('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name,
      labels: {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  });
  expect(res.status).toBe(201);
  // The ServiceAccount admission plugin needs the namespace's default ServiceAccount for Pods that name none.
  await waitFor(
    async () =>
      (await cp.api('GET', `/api/v1/namespaces/${name}/serviceaccounts/default`)).status === 200 ? true : undefined,
    20_000,
    () => `no default ServiceAccount in ${name}`,
  );
}

async function podsOf(ns: string, labels: Record<string, string>): Promise<StoredPod[]> {
  const res = await cp.api<KubeList<StoredPod>>(
    'GET',
    `/api/v1/namespaces/${ns}/pods?labelSelector=${selectorOf(labels)}`,
  );
  expect(res.status).toBe(200);
  return res.body.items;
}

/** Why a workload has fewer Pods than asked: the ReplicaSets' or Job's failure conditions and warning events. */
async function whyNoPods(ns: string, what: string): Promise<string> {
  const events = (
    await cp.api<
      KubeList<{ type: string; reason: string; message: string; involvedObject: { kind: string; name: string } }>
    >('GET', `/api/v1/namespaces/${ns}/events`)
  ).body.items;
  const warnings = events
    .filter((e) => e.type === 'Warning')
    .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.reason}: ${e.message}`);
  return `${what}; warnings in ${ns}:\n${warnings.join('\n') || '(none)'}`;
}

/** Waits until the controllers created `replicas` Pods for every Deployment of the release; returns them by name. */
async function deploymentPods(ns: string, deployments: K8sObject[]): Promise<Record<string, StoredPod[]>> {
  const out: Record<string, StoredPod[]> = {};
  for (const d of deployments) {
    const live = (await cp.api<StoredDeployment>('GET', pathOf(d, ns))).body;
    const want = live.spec.replicas;
    out[d.metadata.name] = await waitFor(
      async () => {
        const pods = await podsOf(ns, live.spec.selector.matchLabels);
        return pods.length === want ? pods : undefined;
      },
      30_000,
      () => whyNoPods(ns, `Deployment ${d.metadata.name}: want ${want} Pods`),
    );
  }
  return out;
}

/** `kubectl create job --from=cronjob/<name>`: a Job from the CronJob's jobTemplate, owned by it. */
async function jobFromCronJob(ns: string, cronName: string, jobName: string): Promise<StoredJob> {
  const cron = (await cp.api<StoredCronJob>('GET', resourcePath('batch/v1', 'CronJob', ns, cronName))).body;
  const res = await cp.api<StoredJob>('POST', resourcePath('batch/v1', 'Job', ns), {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName,
      labels: cron.spec.jobTemplate.metadata?.labels ?? {},
      annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' },
      ownerReferences: [
        { apiVersion: 'batch/v1', kind: 'CronJob', name: cronName, uid: cron.metadata.uid, controller: true },
      ],
    },
    spec: cron.spec.jobTemplate.spec,
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function jobPods(ns: string, jobName: string): Promise<StoredPod[]> {
  return waitFor(
    async () => {
      const pods = await podsOf(ns, { 'batch.kubernetes.io/job-name': jobName });
      return pods.length > 0 ? pods : undefined;
    },
    30_000,
    () => whyNoPods(ns, `Job ${jobName}: no Pod`),
  );
}

beforeAll(async () => {
  cp = await startKubeControlPlane({ timeoutMs: 90_000 });
}, 120_000);

afterAll(async () => {
  await ifAssigned(cp)?.stop();
}, 60_000);

describe('the local control plane', () => {
  it('reports the version Helm checks the chart against (stamped at build time)', () => {
    expect(cp.version).toMatch(/^v1\.\d+\.\d+$/);
    expect(helmK(['version', '--short'])).toMatch(/^v3\./);
  });

  it('enforces the restricted Pod Security Standard: a privileged Pod is refused by PodSecurity admission', async () => {
    await restrictedNamespace('psa-probe');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'privileged' },
      spec: { containers: [{ name: 'c', image: 'registry.example/busybox:1', securityContext: { privileged: true } }] },
    };
    const refused = await cp.api<{ message?: string }>('POST', '/api/v1/namespaces/psa-probe/pods', pod);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/violates PodSecurity "restricted:latest": privileged/);
    // The same Pod where nothing is enforced is accepted: the refusal is the namespace's policy, not validation.
    expect((await cp.api('POST', '/api/v1/namespaces/default/pods?dryRun=All', pod)).status).toBe(201);
  });
});

describe.each(CI_SETS)('helm with ci/%s in a restricted namespace', (set) => {
  const ns = `idp-${set.replace(/-values\.yaml$/, '')}`;
  const values = ['-f', join(chartDir, 'ci', set)];
  let manifest: K8sObject[] = [];
  let keys: Record<string, string> | undefined;

  it('installs (--no-hooks): every object of the release is in the API server', async () => {
    await restrictedNamespace(ns);
    const out = helmK(['install', RELEASE, chartDir, '--namespace', ns, ...values, '--no-hooks', '--timeout', '60s']);
    expect(out).toMatch(/STATUS: deployed/);
    manifest = parseAll(helmK(['get', 'manifest', RELEASE, '--namespace', ns]));
    expect(manifest.length).toBeGreaterThan(10);
    for (const o of manifest) {
      const res = await cp.api('GET', pathOf(o, ns));
      expect({ object: `${o.kind}/${o.metadata.name}`, status: res.status }).toEqual({
        object: `${o.kind}/${o.metadata.name}`,
        status: 200,
      });
    }
    const keySecret = manifest.find((o) => o.kind === 'Secret' && o.metadata.name === `${RELEASE}-keys`);
    if (keySecret) keys = (await cp.api<{ data?: Record<string, string> }>('GET', pathOf(keySecret, ns))).body.data;
  });

  it("the controllers create every Deployment's Pods, admitted under restricted", async () => {
    const deployments = manifest.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => d.metadata.labels?.['app.kubernetes.io/component']).sort()).toEqual([
      'audit-writer',
      'management',
      'oidc',
      'signals',
    ]);
    const pods = await deploymentPods(ns, deployments);
    for (const [name, list] of Object.entries(pods)) {
      for (const p of list) {
        expect({ deployment: name, owner: p.metadata.ownerReferences?.at(0)?.kind, phase: p.status.phase }).toEqual({
          deployment: name,
          owner: 'ReplicaSet',
          phase: 'Pending',
        });
      }
    }
  });

  it("the CronJob's Job (created from it, as `kubectl create job --from` does) gets its Pod", async () => {
    const crons = manifest.filter((o) => o.kind === 'CronJob');
    expect(crons.map((c) => c.metadata.name)).toEqual(['nhe-audit-retention']);
    const job = await jobFromCronJob(ns, 'nhe-audit-retention', 'retention-by-test');
    const pods = await jobPods(ns, job.metadata.name);
    expect(pods[0].spec.serviceAccountName).toBe(crons[0].spec!.jobTemplate!.spec.template.spec.serviceAccountName);
  });

  it("the hooks' Jobs get Pods admitted under restricted and `helm test`'s Pods are admitted (no kubelet runs them)", async () => {
    const hooks = parseAll(helmK(['get', 'hooks', RELEASE, '--namespace', ns]));
    const created: K8sObject[] = [];
    for (const h of hooks) {
      if (h.kind === 'Pod') {
        const res = await cp.api<{ message?: string }>('POST', `${resourcePath('v1', 'Pod', ns)}?dryRun=All`, h);
        expect({ pod: h.metadata.name, status: res.status, message: res.body.message }).toEqual({
          pod: h.metadata.name,
          status: 201,
          message: undefined,
        });
        continue;
      }
      const res = await cp.api('POST', resourcePath(h.apiVersion, h.kind, ns), h);
      expect({ hook: `${h.kind}/${h.metadata.name}`, status: res.status }).toEqual({
        hook: `${h.kind}/${h.metadata.name}`,
        status: 201,
      });
      created.push(h);
    }
    const jobs = created.filter((h) => h.kind === 'Job');
    // Every value set with generated MongoDB users or a stream to create has hook Jobs.
    if (set !== 'external-secrets-values.yaml') expect(jobs.length).toBeGreaterThan(0);
    for (const j of jobs) await jobPods(ns, j.metadata.name);
    for (const h of created.reverse()) {
      expect((await cp.api('DELETE', `${pathOf(h, ns)}?propagationPolicy=Background`)).status).toBe(200);
    }
  });

  it('upgrade changes the retention schedule (generated secrets unchanged); rollback restores it', async () => {
    const cron = resourcePath('batch/v1', 'CronJob', ns, 'nhe-audit-retention');
    expect((await cp.api<StoredCronJob>('GET', cron)).body.spec.schedule).toBe(RETENTION_DEFAULT);
    expect(
      helmK([
        'upgrade',
        RELEASE,
        chartDir,
        '--namespace',
        ns,
        ...values,
        '--set',
        `auditRetention.schedule=${RETENTION_UPGRADED}`,
        '--no-hooks',
        '--timeout',
        '60s',
      ]),
    ).toMatch(/STATUS: deployed/);
    expect((await cp.api<StoredCronJob>('GET', cron)).body.spec.schedule).toBe(RETENTION_UPGRADED);
    if (keys)
      expect(
        (await cp.api<{ data?: Record<string, string> }>('GET', resourcePath('v1', 'Secret', ns, `${RELEASE}-keys`)))
          .body.data,
      ).toEqual(keys);

    expect(helmK(['rollback', RELEASE, '1', '--namespace', ns, '--no-hooks', '--timeout', '60s'])).toMatch(
      /Rollback was a success/,
    );
    expect((await cp.api<StoredCronJob>('GET', cron)).body.spec.schedule).toBe(RETENTION_DEFAULT);
    if (keys)
      expect(
        (await cp.api<{ data?: Record<string, string> }>('GET', resourcePath('v1', 'Secret', ns, `${RELEASE}-keys`)))
          .body.data,
      ).toEqual(keys);
    const history = parseAll(helmK(['history', RELEASE, '--namespace', ns, '-o', 'yaml']))[0] as unknown as Array<{
      revision: number;
      status: string;
    }>;
    expect(history.map((h) => [h.revision, h.status])).toEqual([
      [1, 'superseded'],
      [2, 'superseded'],
      [3, 'deployed'],
    ]);
  });

  it('uninstall keeps the Secrets the chart keeps (the key-encryption key) and removes the rest, Pods included', async () => {
    const kept = manifest.filter((o) => o.metadata.annotations?.['helm.sh/resource-policy'] === 'keep');
    if (set === 'external-secrets-values.yaml') expect(kept).toEqual([]);
    else expect(kept.map((o) => `${o.kind}/${o.metadata.name}`)).toContain(`Secret/${RELEASE}-keys`);
    expect(helmK(['uninstall', RELEASE, '--namespace', ns, '--timeout', '60s'])).toMatch(/uninstalled/);
    for (const o of kept) expect((await cp.api('GET', pathOf(o, ns))).status).toBe(200);
    if (keys)
      expect(
        (await cp.api<{ data?: Record<string, string> }>('GET', resourcePath('v1', 'Secret', ns, `${RELEASE}-keys`)))
          .body.data,
      ).toEqual(keys);
    for (const o of manifest.filter((m) => !kept.includes(m))) {
      await waitFor(
        async () => ((await cp.api('GET', pathOf(o, ns))).status === 404 ? true : undefined),
        20_000,
        () => `${o.kind}/${o.metadata.name} still there`,
      );
    }
    // The garbage collector removes what the controllers made (ReplicaSets, Jobs, Pods).
    await waitFor(
      async () => {
        const pods = (await cp.api<KubeList<StoredPod>>('GET', `/api/v1/namespaces/${ns}/pods`)).body.items;
        return pods.length === 0 ? true : undefined;
      },
      30_000,
      async () =>
        `Pods left: ${(await cp.api<KubeList<StoredPod>>('GET', `/api/v1/namespaces/${ns}/pods`)).body.items.map((p) => p.metadata.name).join(', ')}`,
    );
  });
});
