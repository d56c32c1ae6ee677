/**
 * The jobs API with its real backends, management started from its built entry file:
 * - Kubernetes: management runs with JOBS_BACKEND=kubernetes against a local HTTP server that speaks the few
 *   Kubernetes API calls used, through @kubernetes/client-node; the test checks the exact requests (paths,
 *   query, content types, bearer token, patch and Job bodies).
 * - In process: "run now" spawns the real audit-retention program, which records its run with per-tenant counts.
 * - The retention program itself: SIGTERM mid-run exits 143 and records an interrupted run; a re-run finishes.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { chainTail, linkRows, verifyAuditChain, type TokenAuditDoc } from '@idp/db';
import { freePort, repoRoot, waitForPort } from '@idp/testing';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { sleep } from './helpers';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let adminToken: string;

beforeAll(async () => {
  h = await startHarness('auditjobs');
  const t = await clientCredentialsToken(
    h.topology.baseUrl,
    h.topology.systemTenantId,
    h.topology.secrets.bootstrapAdminClientId,
    h.topology.secrets.bootstrapAdminClientSecret,
    'urn:idp:management',
  );
  adminToken = t.access_token;
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

/** What the tests read of the jobs API's JSON answers (null when the answer is not JSON; any member may be absent). */
interface JobsAnswer {
  backend?: string;
  schedule?: string;
  items?: Array<Record<string, unknown>>;
  kubernetes?: { drift?: unknown };
  kubernetesJob?: string;
  drift?: unknown;
  invalid_params?: unknown;
}

async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/auth/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as JobsAnswer | null };
}

/** Appends `n` chained audit rows issued `daysAgo` days ago for the harness tenant. */
async function seedOldRows(n: number, daysAgo: number): Promise<void> {
  const t = h.tenant.tenantId;
  const base = Date.now() - daysAgo * 86_400_000;
  const rows: TokenAuditDoc[] = Array.from({ length: n }, (_, i) => ({
    tenantId: t,
    jti: `old-${randomUUID()}`,
    userId: 'u',
    nheId: 'n',
    nheIdentifier: 'agent',
    clientId: 'c',
    clientNumericId: 1,
    resourceServer: 'https://api.example',
    scopes: ['a'],
    ttl: 60,
    sourceIp: '127.0.0.1',
    issuedAt: new Date(base + i),
  }));
  for (let i = 0; i < rows.length; i += 5000) {
    const linked = linkRows(rows.slice(i, i + 5000), await chainTail(h.db.models, t));
    await h.db.models.TokenAudit.collection.insertMany(
      linked.map((r) => ({ ...r })),
      { ordered: true },
    );
    await h.db.models.Counter.updateOne(
      { _id: `audit-chain-head:${t}` },
      { $max: { seq: linked.at(-1)!.seq } },
      { upsert: true },
    );
  }
}

describe('in-process backend (no Kubernetes)', () => {
  it('run now spawns the retention program; the run is listed with its per-tenant counts', async () => {
    await seedOldRows(30, 200);
    const base = h.topology.baseUrl;
    const job = await api(base, 'GET', '/jobs/nhe-audit-retention');
    expect(job.body).toMatchObject({ backend: 'in-process', enabled: true, schedule: '0 3 * * *' });
    const started = await api(base, 'POST', '/jobs/nhe-audit-retention/run', {});
    expect(started.status).toBe(202);
    expect(started.body?.backend).toBe('in-process');
    const deadline = Date.now() + 30_000;
    let run: Record<string, unknown> | undefined;
    while (Date.now() < deadline) {
      const runs = await api(base, 'GET', '/jobs/nhe-audit-retention/runs');
      run = runs.body?.items?.find((r) => r.trigger === 'manual' && r.status !== 'running');
      if (run) break;
      await sleep(300);
    }
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', deleted: 30 });
    expect(run!.tenants).toContainEqual(
      expect.objectContaining({ tenantId: h.tenant.tenantId, status: 'pruned', deleted: 30, batches: 1 }),
    );
    expect(await h.db.models.TokenAudit.countDocuments({ tenantId: h.tenant.tenantId, jti: /^old-/ })).toBe(0);
    expect((await verifyAuditChain(h.db.models, h.tenant.tenantId)).valid).toBe(true);
  });
});

describe('retention program as a process', () => {
  it('SIGTERM mid-run stops after the current batch (exit 143, run recorded as interrupted); a re-run finishes', async () => {
    // Small: FerretDB scans the collection for every query (about 0.1 ms per row), so batches are slow enough here.
    const total = 600;
    await seedOldRows(total, 200);
    const entry = join(repoRoot(), 'services', 'audit-retention', 'dist', 'main.js');
    const env = {
      PATH: process.env.PATH ?? '',
      MONGODB_URI: h.topology.services.management.env.MONGODB_URI!,
      LOG_LEVEL: 'info',
      JOB_TRIGGER: 'cli',
    };
    const child = spawn(process.execPath, [entry, '--batch-size', '20'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const left = () => h.db.models.TokenAudit.countDocuments({ tenantId: h.tenant.tenantId, jti: /^old-/ });
    let code: number | null;
    try {
      code = await new Promise<number | null>((resolve) => {
        child.on('exit', (c) => resolve(c));
        // Interrupt once it is deleting.
        const exit = { done: false }; // set by the listener while the loop below waits
        child.on('exit', () => (exit.done = true));
        void (async () => {
          while (!exit.done && (await left()) === total) await sleep(100);
          if (exit.done) return;
          child.kill('SIGTERM');
          child.kill('SIGTERM'); // a repeated signal must not kill it mid-batch either
        })();
      });
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect({ code, signal: child.signalCode, output: output.slice(-1500) }).toMatchObject({
      code: 143,
      output: expect.stringMatching(/stopping after the current batch/),
    });
    const remaining = await left();
    expect(remaining).toBeGreaterThan(0);
    expect(remaining % 20).toBe(0); // whole batches only
    const interrupted = await h.db.models.JobRun.findOne({ trigger: 'cli' }).sort({ startedAt: -1 }).lean();
    expect(interrupted).toMatchObject({ status: 'interrupted', deleted: total - remaining });
    expect((await verifyAuditChain(h.db.models, h.tenant.tenantId)).valid).toBe(true);

    const rerun = await h.topology.runRetention(['--batch-size', '1000']);
    expect(rerun.code).toBe(0);
    expect(await left()).toBe(0);
    expect((await verifyAuditChain(h.db.models, h.tenant.tenantId)).valid).toBe(true);
  }, 60_000);

  it('bad arguments exit 2 with a clear message and touch nothing', async () => {
    const r = await h.topology.runRetention(['--batch-size', '0']);
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/--batch-size/);
  });
});

describe('Kubernetes backend against a local API server', () => {
  interface Seen {
    method: string;
    path: string;
    contentType: string | undefined;
    authorization: string | undefined;
    /** The request's JSON body, when it had one. */
    body: { spec?: unknown } | undefined;
  }
  let server: Server;
  let seen: Seen[] = [];
  let refusePatch = false;
  const cronJob = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name: 'nhe-audit-retention',
      namespace: 'idp',
      uid: '7c0a3b5e-0000-4000-8000-000000000001',
      resourceVersion: '100',
      annotations: {} as Record<string, string>,
    },
    spec: {
      schedule: '0 3 * * *',
      suspend: false,
      concurrencyPolicy: 'Forbid',
      jobTemplate: {
        metadata: { labels: { 'app.kubernetes.io/component': 'audit-retention' } },
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [
                {
                  name: 'audit-retention',
                  image: 'idp/audit-retention:1',
                  env: [{ name: 'LOG_LEVEL', value: 'info' }],
                },
              ],
            },
          },
        },
      },
    },
  };
  const read = (req: IncomingMessage) =>
    new Promise<string>((r) => {
      let s = '';
      req.on('data', (d: Buffer) => (s += d.toString()));
      req.on('end', () => r(s));
    });
  let mgmt: ReturnType<typeof spawn> | undefined;
  let mgmtBase = '';

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const raw = await read(req);
      seen.push({
        method: req.method!,
        path: req.url!,
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body: raw ? JSON.parse(raw) : undefined,
      });
      const url = new URL(req.url!, 'http://x');
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/apis/batch/v1/namespaces/idp/cronjobs/nhe-audit-retention' && req.method === 'PATCH') {
        if (refusePatch) {
          res.statusCode = 403;
          res.end(
            JSON.stringify({
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'Forbidden',
              code: 403,
              message: 'forbidden',
            }),
          );
          return;
        }
        const body = JSON.parse(raw);
        if (body.metadata?.resourceVersion && body.metadata.resourceVersion !== cronJob.metadata.resourceVersion) {
          res.statusCode = 409;
          res.end(
            JSON.stringify({
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'Conflict',
              code: 409,
              message: 'the object has been modified',
            }),
          );
          return;
        }
        Object.assign(cronJob.spec, body.spec);
        Object.assign(cronJob.metadata.annotations, body.metadata?.annotations ?? {});
        cronJob.metadata.resourceVersion = String(Number(cronJob.metadata.resourceVersion) + 1);
        res.end(JSON.stringify(cronJob));
      } else if (
        url.pathname === '/apis/batch/v1/namespaces/idp/cronjobs/nhe-audit-retention' &&
        req.method === 'GET'
      ) {
        res.end(JSON.stringify(cronJob));
      } else if (url.pathname === '/apis/batch/v1/namespaces/idp/jobs' && req.method === 'POST') {
        res.statusCode = 201;
        res.end(raw);
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
      }
    });
    const k8sPort = await freePort();
    await new Promise<void>((r) => server.listen(k8sPort, '127.0.0.1', () => r()));
    const port = await freePort();
    mgmtBase = `http://127.0.0.1:${port}`;
    mgmt = spawn(process.execPath, [join(repoRoot(), 'services', 'management', 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        ...h.topology.services.management.env,
        PORT: String(port),
        JOBS_BACKEND: 'kubernetes',
        JOBS_K8S_API_URL: `http://127.0.0.1:${k8sPort}`,
        JOBS_K8S_NAMESPACE: 'idp',
        JOBS_K8S_TOKEN: 'sa-token-for-tests',
      },
      stdio: ['ignore', 'ignore', process.env.E2E_LOGS ? 'inherit' : 'ignore'],
    });
    await waitForPort(port, 30_000, mgmt);
  });

  afterAll(async () => {
    if (mgmt && mgmt.exitCode === null) {
      const exited = new Promise((r) => mgmt!.once('exit', r));
      mgmt.kill('SIGTERM');
      await exited;
    }
    await new Promise((r) => ifAssigned(server)?.close(r));
  });

  const cronPath = '/apis/batch/v1/namespaces/idp/cronjobs/nhe-audit-retention';
  const patchPath = `${cronPath}?fieldManager=idp-management`;
  const applied = (schedule: string, suspend: boolean) => ({
    'idp.example/jobs-api-applied': JSON.stringify({ schedule, suspend }),
  });

  it('at start, the CronJob is read, then put in step with the job row (merge patch of schedule, suspend and the adoption annotation, resourceVersion as precondition)', async () => {
    const deadline = Date.now() + 10_000;
    while (!seen.some((s) => s.method === 'PATCH') && Date.now() < deadline) await sleep(100);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([`GET ${cronPath}`, `PATCH ${patchPath}`]);
    expect(seen[1]).toEqual({
      method: 'PATCH',
      path: patchPath,
      contentType: 'application/merge-patch+json',
      authorization: 'Bearer sa-token-for-tests',
      body: {
        metadata: { annotations: applied('0 3 * * *', false), resourceVersion: '100' },
        spec: { schedule: '0 3 * * *', suspend: false },
      },
    });
  });

  it('PATCH schedule / enabled patches the CronJob; the API answers with the job', async () => {
    seen = [];
    const res = await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', {
      schedule: '15 2 * * *',
      enabled: false,
      customOptions: { batchSize: 2000 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      backend: 'kubernetes',
      schedule: '15 2 * * *',
      enabled: false,
      customOptions: { batchSize: 2000 },
      nextRunAt: null,
    });
    expect(res.body?.kubernetes).toEqual({
      cronJob: 'nhe-audit-retention',
      schedule: '15 2 * * *',
      suspend: true,
      drift: [],
    });
    // Read back, patched with the resourceVersion read, read back again for the answer.
    expect(seen.slice(0, 2)).toEqual([
      {
        method: 'GET',
        path: cronPath,
        contentType: undefined,
        authorization: 'Bearer sa-token-for-tests',
        body: undefined,
      },
      {
        method: 'PATCH',
        path: patchPath,
        contentType: 'application/merge-patch+json',
        authorization: 'Bearer sa-token-for-tests',
        body: {
          metadata: { annotations: applied('15 2 * * *', true), resourceVersion: '101' },
          spec: { schedule: '15 2 * * *', suspend: true },
        },
      },
    ]);
    seen = [];
    expect((await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', { enabled: true })).status).toBe(200);
    expect(seen.filter((s) => s.method === 'PATCH').map((s) => s.body?.spec)).toEqual([
      { schedule: '15 2 * * *', suspend: false },
    ]);
  });

  it('an edit made to the CronJob outside the product is reported and not overwritten (409) unless forced', async () => {
    cronJob.spec.schedule = '*/10 * * * *';
    cronJob.metadata.resourceVersion = String(Number(cronJob.metadata.resourceVersion) + 1);
    const got = await api(mgmtBase, 'GET', '/jobs/nhe-audit-retention');
    expect(got.body?.kubernetes?.drift).toEqual([
      { field: 'schedule', expected: '15 2 * * *', actual: '*/10 * * * *' },
    ]);
    seen = [];
    const refused = await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', { enabled: false });
    expect(refused.status).toBe(409);
    expect(refused.body?.drift).toEqual([{ field: 'schedule', expected: '15 2 * * *', actual: '*/10 * * * *' }]);
    expect(seen.map((s) => s.method)).toEqual(['GET']);
    expect(cronJob.spec).toMatchObject({ schedule: '*/10 * * * *', suspend: false });
    const forced = await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', { force: true });
    expect(forced.status).toBe(200);
    expect(cronJob.spec).toMatchObject({ schedule: '15 2 * * *', suspend: false });
  });

  it('a bad cron expression never reaches Kubernetes', async () => {
    seen = [];
    const res = await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', { schedule: '*/5 * * *' });
    expect(res.status).toBe(400);
    expect(res.body?.invalid_params).toEqual([{ name: 'body.schedule', reason: expect.stringMatching(/five fields/) }]);
    expect(seen).toEqual([]);
  });

  it('when Kubernetes refuses the patch the job row is unchanged and the API answers 503', async () => {
    refusePatch = true;
    try {
      const res = await api(mgmtBase, 'PATCH', '/jobs/nhe-audit-retention', { schedule: '0 4 * * *' });
      expect(res.status).toBe(503);
    } finally {
      refusePatch = false;
    }
    expect(cronJob.spec.schedule).toBe('15 2 * * *');
    expect((await api(mgmtBase, 'GET', '/jobs/nhe-audit-retention')).body?.schedule).toBe('15 2 * * *');
  });

  it('run now reads the CronJob and creates a Job from its template (manual trigger, owned by the CronJob)', async () => {
    seen = [];
    const res = await api(mgmtBase, 'POST', '/jobs/nhe-audit-retention/run', {});
    expect(res.status).toBe(202);
    expect(res.body?.backend).toBe('kubernetes');
    expect(res.body?.kubernetesJob).toMatch(/^nhe-audit-retention-manual-[a-z0-9]+$/);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /apis/batch/v1/namespaces/idp/cronjobs/nhe-audit-retention',
      'POST /apis/batch/v1/namespaces/idp/jobs?fieldManager=idp-management',
    ]);
    const post = seen[1]!;
    expect(post.contentType).toBe('application/json');
    expect(post.authorization).toBe('Bearer sa-token-for-tests');
    expect(post.body).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name: res.body?.kubernetesJob,
        namespace: 'idp',
        labels: { 'app.kubernetes.io/component': 'audit-retention', 'idp.example/trigger': 'manual' },
        annotations: { 'cronjob.kubernetes.io/instantiate': 'manual' },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'CronJob',
            name: 'nhe-audit-retention',
            uid: cronJob.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: {
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'audit-retention',
                image: 'idp/audit-retention:1',
                env: [
                  { name: 'LOG_LEVEL', value: 'info' },
                  { name: 'JOB_TRIGGER', value: 'manual' },
                ],
              },
            ],
          },
        },
      },
    });
  });
});
