/**
 * The jobs API's Kubernetes backend against a real API server (e2e/src/kube-control-plane.ts): charts/idp is
 * installed (ci/default-values.yaml, --no-hooks, restricted namespace), and management runs from its built entry
 * file with JOBS_BACKEND=kubernetes, authenticated by a token that the API server issues (TokenRequest) for the
 * chart's own ServiceAccount, bound by the chart's own Role. What reaches the CronJob, the Jobs "run now" creates
 * and their Pods, and what the real authorizer refuses are read back from the API server. Edits made to the
 * CronJob outside the product (an admin's merge patch under kubectl's field manager, a helm rollback) are reported
 * by the jobs API (`kubernetes.drift`) and never overwritten without `force`, not even when management restarts; a
 * helm upgrade keeps what the jobs API set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, repoRoot, waitForPort } from '@idp/testing';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { resourcePath, startKubeControlPlane, waitFor, type KubeControlPlane } from '../../src/kube-control-plane';
import type { KubeList, StoredCronJob, StoredJob, StoredPod } from '../../src/kube-pod-env';
import { chartDir, helm, helmAvailable, helmBin, RELEASE } from './render';
import { startAll } from '../../src/start-all';
import { ifAssigned } from '../../src/if-assigned';

if (!helmAvailable())
  throw new Error(`${helmBin} is missing: run \`bash scripts/tools.sh helm\` (scripts/test.sh does)`);

const NS = 'idp';
const CRON = 'nhe-audit-retention';
const SA = `${RELEASE}-management`;
const cronPath = resourcePath('batch/v1', 'CronJob', NS, CRON);

let cp: KubeControlPlane;
let h: Harness;
let adminToken: string;
let saToken: string;
let mgmt: ChildProcess | undefined;
let mgmtBase = '';

/** What the tests read of the jobs API's JSON answers: a job row or a problem (any member may be absent). */
interface JobsAnswer {
  backend?: string;
  schedule?: string;
  enabled?: boolean;
  kubernetesJob?: string;
  kubernetes?: { drift?: unknown };
  drift?: unknown;
  detail?: string;
  status?: number;
  title?: string;
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${mgmtBase}/auth/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    // null for an answer without JSON (a 204), whose body no test reads.
    body: (await res.json().catch(() => null)) as JobsAnswer,
  };
}

const cron = async () => (await cp.api<StoredCronJob>('GET', cronPath)).body;

beforeAll(async () => {
  await startAll([
    startKubeControlPlane({ timeoutMs: 90_000 }).then((v) => (cp = v)),
    startHarness('kubejobs').then((v) => (h = v)),
  ]);
  const ns = await cp.api('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: NS,
      labels: {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  });
  expect(ns.status).toBe(201);
  helm([
    'install',
    RELEASE,
    chartDir,
    '--namespace',
    NS,
    '-f',
    join(chartDir, 'ci', 'default-values.yaml'),
    '--no-hooks',
    '--timeout',
    '60s',
    '--kubeconfig',
    cp.kubeconfigPath,
  ]);

  // A token the API server signs for the chart's ServiceAccount (what the kubelet mounts into management's Pod).
  const tr = await cp.api<{ status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${NS}/serviceaccounts/${SA}/token`,
    {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  );
  expect(tr.status).toBe(201);
  saToken = tr.body.status.token;

  const t = await clientCredentialsToken(
    h.topology.baseUrl,
    h.topology.systemTenantId,
    h.topology.secrets.bootstrapAdminClientId,
    h.topology.secrets.bootstrapAdminClientSecret,
    'urn:idp:management',
  );
  adminToken = t.access_token;

  await startManagement();
}, 180_000);

async function startManagement() {
  const port = await freePort();
  mgmtBase = `http://127.0.0.1:${port}`;
  mgmt = spawn(process.execPath, [join(repoRoot(), 'services', 'management', 'dist', 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      ...h.topology.services.management.env,
      PORT: String(port),
      JOBS_BACKEND: 'kubernetes',
      JOBS_K8S_API_URL: cp.server,
      JOBS_K8S_NAMESPACE: NS,
      JOBS_K8S_TOKEN: saToken,
      // The API server's self-signed serving certificate: management verifies https.
      NODE_EXTRA_CA_CERTS: cp.caPath,
    },
    stdio: ['ignore', 'ignore', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
  });
  await waitForPort(port, 30_000, mgmt);
}

async function stopManagement() {
  if (mgmt && mgmt.exitCode === null) {
    const exited = new Promise((r) => mgmt!.once('exit', r));
    mgmt.kill('SIGTERM');
    await exited;
  }
}

/** What `kubectl edit` does: a merge patch by the admin under kubectl's field manager. */
const editOutside = (spec: Record<string, unknown>) =>
  cp.api('PATCH', `${cronPath}?fieldManager=kubectl-edit`, { spec }, { contentType: 'application/merge-patch+json' });

afterAll(async () => {
  await stopManagement();
  await Promise.all([ifAssigned(h)?.stop(), ifAssigned(cp)?.stop()]);
}, 60_000);

describe("the chart's Role, against the real authorizer, with the ServiceAccount's token", () => {
  // The API's Status on a refusal (its reason and message); the objects themselves are not read here.
  const asSa = (method: string, path: string, body?: unknown, contentType?: string) =>
    cp.api<{ reason?: string; message?: string }>(method, path, body, {
      token: saToken,
      ...(contentType ? { contentType } : {}),
    });

  it('allows get and patch of the retention CronJob and create of Jobs (dry run)', async () => {
    expect((await asSa('GET', cronPath)).status).toBe(200);
    expect(
      (await asSa('PATCH', `${cronPath}?dryRun=All`, { spec: { suspend: true } }, 'application/merge-patch+json'))
        .status,
    ).toBe(200);
    const c = await cron();
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'sa-dry-run' },
      spec: c.spec.jobTemplate.spec,
    };
    expect((await asSa('POST', `${resourcePath('batch/v1', 'Job', NS)}?dryRun=All`, job)).status).toBe(201);
  });

  it.each([
    [
      'patch a Deployment',
      'PATCH',
      `${resourcePath('apps/v1', 'Deployment', NS, `${RELEASE}-management`)}`,
      { spec: { replicas: 5 } },
    ],
    ['delete the CronJob', 'DELETE', cronPath, undefined],
    ['list CronJobs', 'GET', resourcePath('batch/v1', 'CronJob', NS), undefined],
    ['read Jobs', 'GET', resourcePath('batch/v1', 'Job', NS), undefined],
    ['read Secrets', 'GET', resourcePath('v1', 'Secret', NS, `${RELEASE}-keys`), undefined],
    [
      'create Pods',
      'POST',
      resourcePath('v1', 'Pod', NS),
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    ],
    ['read the CronJob of another namespace', 'GET', resourcePath('batch/v1', 'CronJob', 'default', CRON), undefined],
  ])('refuses to %s (403)', async (_what, method, path, body) => {
    const res = await asSa(method, path, body, method === 'PATCH' ? 'application/merge-patch+json' : undefined);
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    expect(res.body.message).toContain(`system:serviceaccount:${NS}:${SA}`);
  });
});

describe('the jobs API keeps the CronJob in step', () => {
  it('at start, management patches the CronJob to the job row (field manager idp-management)', async () => {
    const row = (await api('GET', `/jobs/${CRON}`)).body;
    expect(row.backend).toBe('kubernetes');
    const c = await waitFor(
      async () => {
        const live = await cron();
        return live.metadata.managedFields?.some((f) => f.manager === 'idp-management') ? live : undefined;
      },
      20_000,
      async () =>
        `CronJob never patched by idp-management: ${JSON.stringify((await cron()).metadata.managedFields?.map((f) => f.manager))}`,
    );
    expect(c.spec.schedule).toBe(row.schedule);
    expect(c.spec.suspend).toBe(!row.enabled);
  });

  it('a schedule and enabled change reaches the CronJob (schedule, suspend)', async () => {
    const res = await api('PATCH', `/jobs/${CRON}`, { schedule: '15 2 * * *', enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ backend: 'kubernetes', schedule: '15 2 * * *', enabled: false });
    expect((await cron()).spec).toMatchObject({ schedule: '15 2 * * *', suspend: true });
    expect((await api('PATCH', `/jobs/${CRON}`, { enabled: true })).status).toBe(200);
    expect((await cron()).spec).toMatchObject({ schedule: '15 2 * * *', suspend: false });
  });

  it('"run now" creates a Job from the CronJob, owned by it, and the Job controller creates its Pod', async () => {
    const res = await api('POST', `/jobs/${CRON}/run`, {});
    expect(res.status).toBe(202);
    const name = res.body.kubernetesJob as string;
    expect(name).toMatch(/^nhe-audit-retention-manual-[a-z0-9]+$/);
    const job = (await cp.api<StoredJob>('GET', resourcePath('batch/v1', 'Job', NS, name))).body;
    const c = await cron();
    expect(job.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'CronJob', name: CRON, uid: c.metadata.uid, controller: true }),
    ]);
    expect(job.spec.template.spec.containers[0].env).toContainEqual({ name: 'JOB_TRIGGER', value: 'manual' });
    const pods = await waitFor(
      async () => {
        const list = (
          await cp.api<KubeList<StoredPod>>(
            'GET',
            `/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(`batch.kubernetes.io/job-name=${name}`)}`,
          )
        ).body.items;
        return list.length > 0 ? list : undefined;
      },
      30_000,
      () => `no Pod for Job ${name}`,
    );
    expect(pods[0].spec.serviceAccountName).toBe(`${RELEASE}-audit-retention`);
  });

  it('a change made to the CronJob outside the product (kubectl edit) is reported by the jobs API and a PATCH that would overwrite it is refused (409)', async () => {
    const row = (await api('GET', `/jobs/${CRON}`)).body;
    expect(row.kubernetes).toEqual({ cronJob: CRON, schedule: row.schedule, suspend: !row.enabled, drift: [] });
    expect((await editOutside({ schedule: '*/7 * * * *' })).status).toBe(200);

    const seen = (await api('GET', `/jobs/${CRON}`)).body;
    expect(seen).toMatchObject({ schedule: row.schedule, enabled: row.enabled });
    expect(seen.kubernetes).toEqual({
      cronJob: CRON,
      schedule: '*/7 * * * *',
      suspend: !row.enabled,
      drift: [
        {
          field: 'schedule',
          expected: row.schedule,
          actual: '*/7 * * * *',
          manager: 'kubectl-edit',
          changedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ],
    });

    const refused = await api('PATCH', `/jobs/${CRON}`, { enabled: !row.enabled });
    expect(refused.status).toBe(409);
    expect(refused.contentType).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({
      type: 'https://idp.dev/problems/conflict',
      status: 409,
      drift: [{ field: 'schedule', expected: row.schedule, actual: '*/7 * * * *', manager: 'kubectl-edit' }],
    });
    expect(refused.body.detail).toContain(
      `the CronJob ${CRON} was changed outside the jobs API: schedule is "*/7 * * * *" there`,
    );
    // Nothing half-applied: neither the CronJob (not even suspend) nor the row.
    expect((await cron()).spec).toMatchObject({ schedule: '*/7 * * * *', suspend: !row.enabled });
    expect((await api('GET', `/jobs/${CRON}`)).body).toMatchObject({ schedule: row.schedule, enabled: row.enabled });
  });

  it("a restart of management does not overwrite the edit either; adopting the CronJob's value needs no force", async () => {
    const row = (await api('GET', `/jobs/${CRON}`)).body;
    await stopManagement();
    await startManagement();
    // start() has read the CronJob (the service answers only after it): the edit is still there and still reported.
    expect((await cron()).spec.schedule).toBe('*/7 * * * *');
    expect((await api('GET', `/jobs/${CRON}`)).body.kubernetes?.drift).toEqual([
      expect.objectContaining({ field: 'schedule', actual: '*/7 * * * *', manager: 'kubectl-edit' }),
    ]);

    const adopted = await api('PATCH', `/jobs/${CRON}`, { schedule: '*/7 * * * *' });
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({
      schedule: '*/7 * * * *',
      enabled: row.enabled,
      kubernetes: { schedule: '*/7 * * * *', drift: [] },
    });
  });

  it('a helm upgrade keeps the schedule and suspend flag the jobs API set (the chart looks the adopted CronJob up), and applies the rest', async () => {
    const before = await cron();
    helm([
      'upgrade',
      RELEASE,
      chartDir,
      '--namespace',
      NS,
      '-f',
      join(chartDir, 'ci', 'default-values.yaml'),
      '--set',
      'auditRetention.schedule=5 5 * * *',
      '--set',
      'auditRetention.suspend=true',
      '--set',
      'auditRetention.successfulJobsHistoryLimit=5',
      '--no-hooks',
      '--timeout',
      '60s',
      '--kubeconfig',
      cp.kubeconfigPath,
    ]);
    const after = await cron();
    expect(after.spec.successfulJobsHistoryLimit).toBe(5);
    expect(after.spec).toMatchObject({ schedule: before.spec.schedule, suspend: before.spec.suspend });
    expect((await api('GET', `/jobs/${CRON}`)).body.kubernetes?.drift).toEqual([]);
  });

  it('a suspend set outside the product is refused to be overwritten by a schedule change (409); force overwrites it with the job', async () => {
    expect((await editOutside({ suspend: true })).status).toBe(200);
    const row = (await api('GET', `/jobs/${CRON}`)).body;
    expect(row.enabled).toBe(true);
    expect(row.kubernetes?.drift).toEqual([
      expect.objectContaining({ field: 'suspend', expected: false, actual: true, manager: 'kubectl-edit' }),
    ]);

    const refused = await api('PATCH', `/jobs/${CRON}`, { schedule: '20 2 * * *' });
    expect(refused.status).toBe(409);
    expect(refused.body.drift).toEqual([expect.objectContaining({ field: 'suspend', expected: false, actual: true })]);
    expect((await cron()).spec).toMatchObject({ schedule: row.schedule, suspend: true });

    const forced = await api('PATCH', `/jobs/${CRON}`, { schedule: '20 2 * * *', force: true });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({
      schedule: '20 2 * * *',
      enabled: true,
      kubernetes: { schedule: '20 2 * * *', suspend: false, drift: [] },
    });
    const c = await cron();
    expect(c.spec).toMatchObject({ schedule: '20 2 * * *', suspend: false });
    expect(JSON.parse(c.metadata.annotations!['idp.example/jobs-api-applied'])).toEqual({
      schedule: '20 2 * * *',
      suspend: false,
    });
  });

  it('a helm rollback re-applies an old revision as it was stored (no lookup): the schedule it puts back is reported as drift (manager helm)', async () => {
    helm([
      'rollback',
      RELEASE,
      '1',
      '--namespace',
      NS,
      '--no-hooks',
      '--timeout',
      '60s',
      '--kubeconfig',
      cp.kubeconfigPath,
    ]);
    const row = (await api('GET', `/jobs/${CRON}`)).body;
    expect(row.kubernetes?.drift).toEqual([
      expect.objectContaining({ field: 'schedule', expected: '20 2 * * *', actual: '17 3 * * *', manager: 'helm' }),
    ]);
    expect((await api('PATCH', `/jobs/${CRON}`, { force: true })).status).toBe(200);
    expect((await cron()).spec).toMatchObject({ schedule: '20 2 * * *', suspend: false });
  });

  it('when the API server refuses (403: the binding removed), the jobs API answers a problem, not 500, and nothing is half-applied', async () => {
    const bindingPath = resourcePath('rbac.authorization.k8s.io/v1', 'RoleBinding', NS, SA);
    const binding = (
      await cp.api<{ metadata: Record<string, unknown> & { resourceVersion?: string; uid?: string } }>(
        'GET',
        bindingPath,
      )
    ).body;
    expect((await cp.api('DELETE', bindingPath)).status).toBe(200);
    try {
      await waitFor(
        async () => ((await cp.api('GET', cronPath, undefined, { token: saToken })).status === 403 ? true : undefined),
        10_000,
        () => 'the authorizer still allows the ServiceAccount',
      );
      const before = await cron();
      const rowBefore = (await api('GET', `/jobs/${CRON}`)).body;

      const patch = await api('PATCH', `/jobs/${CRON}`, { schedule: '0 5 * * *', enabled: false });
      expect(patch.status).not.toBe(500);
      expect(patch.status).toBeGreaterThanOrEqual(400);
      expect(patch.contentType).toMatch(/^application\/problem\+json/);
      expect(patch.body).toMatchObject({ status: patch.status, title: expect.any(String) });
      expect((await api('GET', `/jobs/${CRON}`)).body).toMatchObject({
        schedule: rowBefore.schedule,
        enabled: rowBefore.enabled,
      });
      expect((await cron()).spec).toMatchObject({ schedule: before.spec.schedule, suspend: before.spec.suspend });

      const jobsBefore = (await cp.api<KubeList<unknown>>('GET', resourcePath('batch/v1', 'Job', NS))).body.items
        .length;
      const run = await api('POST', `/jobs/${CRON}/run`, {});
      expect(run.status).not.toBe(500);
      expect(run.status).toBeGreaterThanOrEqual(400);
      expect(run.contentType).toMatch(/^application\/problem\+json/);
      expect((await cp.api<KubeList<unknown>>('GET', resourcePath('batch/v1', 'Job', NS))).body.items.length).toBe(
        jobsBefore,
      );
    } finally {
      const {
        resourceVersion: _rv,
        uid: _uid,
        creationTimestamp: _ct,
        managedFields: _mf,
        ...metadata
      } = binding.metadata;
      expect(
        (
          await cp.api('POST', resourcePath('rbac.authorization.k8s.io/v1', 'RoleBinding', NS), {
            ...binding,
            metadata,
          })
        ).status,
      ).toBe(201);
    }
    await waitFor(
      async () => ((await cp.api('GET', cronPath, undefined, { token: saToken })).status === 200 ? true : undefined),
      10_000,
      () => 'the binding is back but the ServiceAccount is still refused',
    );
    expect((await api('PATCH', `/jobs/${CRON}`, { schedule: '0 5 * * *' })).status).toBe(200);
    expect((await cron()).spec.schedule).toBe('0 5 * * *');
  });
});
