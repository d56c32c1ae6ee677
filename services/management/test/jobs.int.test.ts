/**
 * Jobs API and audit-chain verification through the real app (real database, real tokens), every response
 * validated against the generated OpenAPI document. The scheduler backend is a recording runner here; the real
 * Kubernetes backend is tested against a local API server in e2e/tests/audit/jobs-kubernetes.e2e.test.ts and the
 * in-process backend in e2e/tests/audit/jobs-in-process.e2e.test.ts.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import request, { type Response } from 'supertest';
import { chainTail, linkRows, type JobDoc, type TokenAuditDoc } from '@idp/db';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { KeyEncryptionKey, KeyStore, MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { createApp } from '../src/app';
import { tenantKeyLookup } from '../src/auth/tenant-keys';
import type { SchedulerState } from '../src/jobs/drift';
import { SchedulerConflict, type JobRunner } from '../src/jobs/runner';
import { createJobService } from '../src/jobs/service';
import { OpenApiResponseValidator } from './harness';

const BASE_URL = 'https://idp.test';
const logger = createLogger({ service: 'test', level: (process.env.TEST_LOG as 'silent' | undefined) ?? 'silent' });
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let keyStore: KeyStore;
let app: ReturnType<typeof createApp>['app'];
let validator: OpenApiResponseValidator;
const tenants = { system: randomInt(10_000, 500_000_000), a: 0, b: 0 };
tenants.a = tenants.system + 1;
tenants.b = tenants.system + 2;

const synced: JobDoc[] = [];
let failSync = false;
let failInspect = false;
/** The CronJob as the recording runner holds it (the chart's placeholder values, never adopted). */
const cron: SchedulerState = {
  name: 'nhe-audit-retention',
  schedule: '17 3 * * *',
  suspend: false,
  resourceVersion: '1',
  adopted: false,
  writers: {},
};
/** Someone outside the product edits the CronJob (what kubectl edit does to it). */
const editOutside = (spec: { schedule?: string; suspend?: boolean }, manager = 'kubectl-edit') => {
  for (const [k, v] of Object.entries(spec)) {
    Object.assign(cron, { [k]: v });
    cron.writers[k as 'schedule' | 'suspend'] = { manager, time: new Date().toISOString() };
  }
  cron.resourceVersion = String(Number(cron.resourceVersion) + 1);
};
const runner: JobRunner = {
  backend: 'kubernetes',
  sync: (job, precondition) => {
    if (failSync) return Promise.reject(new Error('cronjobs.batch "nhe-audit-retention" is forbidden'));
    if (precondition?.resourceVersion && precondition.resourceVersion !== cron.resourceVersion)
      return Promise.reject(new SchedulerConflict('changed'));
    synced.push(job);
    Object.assign(cron, {
      schedule: job.schedule,
      suspend: !job.enabled,
      adopted: true,
      resourceVersion: String(Number(cron.resourceVersion) + 1),
    });
    cron.writers = { schedule: { manager: 'idp-management' }, suspend: { manager: 'idp-management' } };
    return Promise.resolve();
  },
  inspect: () => {
    if (failInspect) return Promise.reject(Object.assign(new Error('forbidden'), { code: 403 }));
    return Promise.resolve(structuredClone(cron));
  },
  schedulerName: () => 'nhe-audit-retention',
  runNow: () => Promise.resolve({ backend: 'kubernetes', jobName: 'nhe-audit-retention-manual-abc' }),
  close: () => Promise.resolve(),
};

beforeAll(async () => {
  db = await openTestDatabase('jobsapi');
  await db.syncIndexes();
  keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  await db.models.Tenant.create([
    { _id: tenants.system, name: 'system', system: true },
    { _id: tenants.a, name: 'a', settings: { nhe: { enabled: true } } },
    { _id: tenants.b, name: 'b', settings: { nhe: { enabled: true } } },
  ]);
  for (const t of Object.values(tenants)) await keyStore.ensureKeys(t);
  const jobs = createJobService({ models: db.models, runner, logger });
  await jobs.start();
  const created = createApp({
    logger,
    models: db.models,
    readiness: [],
    trustProxy: false,
    keyStore,
    clientSecretPepper: 'p'.repeat(40),
    bearer: { publicBaseUrl: BASE_URL, tenantKeys: tenantKeyLookup(db.models, keyStore, 0) },
    jobs,
  });
  app = created.app;
  validator = new OpenApiResponseValidator((await request(app).get('/auth/admin/openapi.json')).body);
});

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (db as typeof db | undefined)?.connection.dropDatabase();
  await (db as typeof db | undefined)?.close();
});

async function token(tenantId: number, scopes: string[]): Promise<string> {
  const keys = await keyStore.load(tenantId);
  const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: scopes.join(' '), client_id: `admin-${tenantId}` })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(`${BASE_URL}/auth/${tenantId}`)
    .setAudience(MANAGEMENT_AUDIENCE)
    .setSubject(`admin-${tenantId}`)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(await importJWK(jwk, 'ES256'));
}

async function call(
  method: 'get' | 'post' | 'patch' | 'put' | 'delete',
  path: string,
  tok?: string,
  body?: unknown,
): Promise<Response> {
  let req = request(app)[method](`/auth/admin${path}`);
  if (tok) req = req.set('authorization', `Bearer ${tok}`);
  if (body !== undefined) req = req.send(body as object);
  const res = await req;
  validator.check(res);
  return res;
}

const ALL = ['auth.jobs.list', 'auth.jobs.update', 'auth.jobs.run'];

describe('jobs API', () => {
  it('lists the retention job with its defaults, backend and next run; start() applied it to the scheduler', async () => {
    const res = await call('get', '/jobs', await token(tenants.system, ALL));
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      expect.objectContaining({
        name: 'nhe-audit-retention',
        type: 'NHE_AUDIT_RETENTION',
        schedule: '0 3 * * *',
        enabled: true,
        customOptions: {},
        backend: 'kubernetes',
        lastRun: null,
      }),
    ]);
    expect(new Date(res.body.items[0].nextRunAt).getUTCHours()).toBe(3);
    // The chart's CronJob (never adopted) took the row's values at start.
    expect(synced[0]).toMatchObject({ _id: 'nhe-audit-retention', schedule: '0 3 * * *', enabled: true });
    expect(res.body.items[0].kubernetes).toEqual({
      cronJob: 'nhe-audit-retention',
      schedule: '0 3 * * *',
      suspend: false,
      drift: [],
    });
    expect(
      (await call('get', '/jobs/nhe-audit-retention', await token(tenants.system, ['auth.jobs.list']))).body.name,
    ).toBe('nhe-audit-retention');
    expect((await call('get', '/jobs/other', await token(tenants.system, ['auth.jobs.list']))).status).toBe(404);
  });

  it('needs a system-tenant token and the scope of the operation', async () => {
    expect((await call('get', '/jobs')).status).toBe(401);
    expect((await call('get', '/jobs', await token(tenants.a, ALL))).status).toBe(403);
    const listOnly = await token(tenants.system, ['auth.jobs.list']);
    const patch = await call('patch', '/jobs/nhe-audit-retention', listOnly, { enabled: false });
    expect(patch.status).toBe(403);
    expect(patch.body.required_scope).toBe('auth.jobs.update');
    expect((await call('post', '/jobs/nhe-audit-retention/run', listOnly, {})).body.required_scope).toBe(
      'auth.jobs.run',
    );
    expect((await call('delete', '/jobs/nhe-audit-retention', await token(tenants.system, ALL))).status).toBe(405);
  });

  it('PATCH validates the cron schedule and customOptions, then applies schedule and suspend to the scheduler', async () => {
    const tok = await token(tenants.system, ALL);
    const bad = await call('patch', '/jobs/nhe-audit-retention', tok, {
      schedule: '0 0 3 * * *',
      customOptions: { batchSize: 0, speed: 'fast' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.invalid_params.map((p: { name: string }) => p.name).sort()).toEqual([
      'body.customOptions',
      'body.customOptions.batchSize',
      'body.schedule',
    ]);
    expect((await call('patch', '/jobs/nhe-audit-retention', tok, { schedule: '61 * * * *' })).status).toBe(400);
    expect((await call('patch', '/jobs/nhe-audit-retention', tok, { enabled: 'no' })).status).toBe(400);
    expect((await call('patch', '/jobs/nhe-audit-retention', tok, { name: 'x' })).status).toBe(400);

    synced.length = 0;
    const ok = await call('patch', '/jobs/nhe-audit-retention', tok, {
      schedule: '30 1 * * 1-5',
      enabled: false,
      customOptions: { batchSize: 500 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      schedule: '30 1 * * 1-5',
      enabled: false,
      customOptions: { batchSize: 500 },
      nextRunAt: null,
    });
    expect(synced).toEqual([expect.objectContaining({ schedule: '30 1 * * 1-5', enabled: false })]);
    expect(await db.models.Job.findById('nhe-audit-retention').lean()).toMatchObject({
      schedule: '30 1 * * 1-5',
      enabled: false,
      customOptions: { batchSize: 500 },
    });
  });

  it('when the scheduler refuses the change, the job row is left unchanged (503)', async () => {
    const tok = await token(tenants.system, ALL);
    const before = await db.models.Job.findById('nhe-audit-retention').lean();
    failSync = true;
    try {
      const res = await call('patch', '/jobs/nhe-audit-retention', tok, { enabled: true });
      expect(res.status).toBe(503);
    } finally {
      failSync = false;
    }
    expect((await db.models.Job.findById('nhe-audit-retention').lean())?.enabled).toBe(before?.enabled);
  });

  it('a CronJob changed outside the jobs API is reported by GET and a PATCH that would overwrite it is refused (409) unless forced', async () => {
    const tok = await token(tenants.system, ALL);
    const row = (await call('get', '/jobs/nhe-audit-retention', tok)).body;
    expect(row.kubernetes.drift).toEqual([]);
    editOutside({ schedule: '*/5 * * * *', suspend: !row.enabled });

    const seen = (await call('get', '/jobs/nhe-audit-retention', tok)).body;
    expect(seen).toMatchObject({ schedule: row.schedule, enabled: row.enabled });
    expect(seen.kubernetes).toEqual({
      cronJob: 'nhe-audit-retention',
      schedule: '*/5 * * * *',
      suspend: !row.enabled,
      drift: [
        {
          field: 'schedule',
          expected: row.schedule,
          actual: '*/5 * * * *',
          manager: 'kubectl-edit',
          changedAt: expect.any(String),
        },
        {
          field: 'suspend',
          expected: !row.enabled,
          actual: !row.enabled ? true : false,
          manager: 'kubectl-edit',
          changedAt: expect.any(String),
        },
      ].filter((d) => d.expected !== d.actual),
    });

    // A patch of another field would still write the row's schedule over the edit: refused, nothing changed.
    synced.length = 0;
    const refused = await call('patch', '/jobs/nhe-audit-retention', tok, { customOptions: { batchSize: 700 } });
    expect(refused.status).toBe(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({
      type: 'https://idp.dev/problems/conflict',
      status: 409,
      drift: [{ field: 'schedule', expected: row.schedule, actual: '*/5 * * * *', manager: 'kubectl-edit' }],
    });
    expect(refused.body.detail).toContain('schedule is "*/5 * * * *" there, the job says');
    expect(refused.body.detail).toContain('force');
    expect(synced).toEqual([]);
    expect(await db.models.Job.findById('nhe-audit-retention').lean()).toMatchObject({
      schedule: row.schedule,
      customOptions: row.customOptions,
    });
    expect(cron.schedule).toBe('*/5 * * * *');

    // Adopting the CronJob's value overwrites nothing: accepted without force.
    const adopted = await call('patch', '/jobs/nhe-audit-retention', tok, { schedule: '*/5 * * * *' });
    expect(adopted.status).toBe(200);
    expect(adopted.body).toMatchObject({ schedule: '*/5 * * * *', kubernetes: { schedule: '*/5 * * * *', drift: [] } });

    // Edited again: force overwrites it with the row (and the patch), and the audit names force.
    editOutside({ schedule: '0 0 * * *' }, 'helm');
    const forced = await call('patch', '/jobs/nhe-audit-retention', tok, { enabled: true, force: true });
    expect(forced.status).toBe(200);
    expect(cron).toMatchObject({ schedule: '*/5 * * * *', suspend: false });
    expect(forced.body.kubernetes.drift).toEqual([]);
  });

  it('a CronJob changed between the read and the write is a 409 (resourceVersion precondition); one that cannot be read is a 503; nothing is saved', async () => {
    const tok = await token(tenants.system, ALL);
    const before = await db.models.Job.findById('nhe-audit-retention').lean();
    const realInspect = runner.inspect!;
    runner.inspect = async (job) => {
      const state = await realInspect(job);
      editOutside({ suspend: cron.suspend }); // a write with the same values still moves the resourceVersion
      return state;
    };
    try {
      const res = await call('patch', '/jobs/nhe-audit-retention', tok, { schedule: '45 4 * * *' });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/changed while the job was being updated/);
    } finally {
      runner.inspect = realInspect;
    }
    failInspect = true;
    try {
      const res = await call('patch', '/jobs/nhe-audit-retention', tok, { schedule: '45 4 * * *' });
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/could not be read/);
      // GET still answers, saying the CronJob could not be read.
      expect((await call('get', '/jobs/nhe-audit-retention', tok)).body.kubernetes).toEqual({
        cronJob: 'nhe-audit-retention',
        error: 'the API server answered 403',
      });
    } finally {
      failInspect = false;
    }
    expect((await db.models.Job.findById('nhe-audit-retention').lean())?.schedule).toBe(before?.schedule);
  });

  it('at start, an adopted CronJob that differs from the row is left as it is (reported), a never adopted one takes the row', async () => {
    editOutside({ schedule: '1 1 * * *' });
    synced.length = 0;
    await createJobService({ models: db.models, runner, logger }).start();
    expect(synced).toEqual([]);
    expect(cron.schedule).toBe('1 1 * * *');
    cron.adopted = false;
    await createJobService({ models: db.models, runner, logger }).start();
    const row = await db.models.Job.findById('nhe-audit-retention').lean();
    expect(synced).toEqual([expect.objectContaining({ schedule: row!.schedule })]);
    expect(cron).toMatchObject({ schedule: row!.schedule, adopted: true });
  });

  it('run now starts a run; runs are listed newest first with per-tenant counts', async () => {
    const tok = await token(tenants.system, ALL);
    const started = await call('post', '/jobs/nhe-audit-retention/run', tok, {});
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ backend: 'kubernetes', kubernetesJob: 'nhe-audit-retention-manual-abc' });
    const t0 = new Date('2026-01-01T03:00:00Z');
    const counts = {
      tenantId: tenants.a,
      status: 'pruned',
      deleted: 12,
      batches: 1,
      capped: false,
      durationMs: 5,
      cutoff: '2025-10-03T03:00:00.000Z',
    };
    const [older, newer] = await db.models.JobRun.insertMany([
      {
        jobName: 'nhe-audit-retention',
        type: 'NHE_AUDIT_RETENTION',
        trigger: 'schedule',
        status: 'succeeded',
        dryRun: false,
        startedAt: t0,
        finishedAt: t0,
        deleted: 12,
        tenants: [
          counts,
          {
            tenantId: tenants.b,
            status: 'skipped',
            reason: 'nhe-disabled',
            deleted: 0,
            batches: 0,
            capped: false,
            durationMs: 0,
          },
        ],
      },
      {
        jobName: 'nhe-audit-retention',
        type: 'NHE_AUDIT_RETENTION',
        trigger: 'manual',
        status: 'failed',
        dryRun: false,
        startedAt: new Date(t0.getTime() + 1000),
        deleted: 0,
        tenants: [],
        error: 'boom',
      },
    ] as never[]);
    const runs = await call('get', '/jobs/nhe-audit-retention/runs?limit=5', tok);
    expect(runs.status).toBe(200);
    expect(runs.body.items.map((r: { id: string }) => r.id)).toEqual([String(newer!._id), String(older!._id)]);
    expect(runs.body.items[1].tenants).toEqual([
      counts,
      expect.objectContaining({ tenantId: tenants.b, status: 'skipped', reason: 'nhe-disabled' }),
    ]);
    const one = await call('get', `/jobs/nhe-audit-retention/runs/${String(older!._id)}`, tok);
    expect(one.body).toMatchObject({ trigger: 'schedule', status: 'succeeded', deleted: 12 });
    expect((await call('get', '/jobs/nhe-audit-retention/runs/nope', tok)).status).toBe(404);
    expect((await call('get', '/jobs/nhe-audit-retention/runs?limit=0', tok)).status).toBe(400);
    expect((await call('get', '/jobs/nhe-audit-retention', tok)).body.lastRun).toMatchObject({
      id: String(newer!._id),
      status: 'failed',
      error: 'boom',
    });
  });
});

describe('token-audit chain verification route', () => {
  async function append(t: number, n: number) {
    const rows: TokenAuditDoc[] = Array.from({ length: n }, (_, i) => ({
      tenantId: t,
      jti: `jti-${randomUUID()}`,
      userId: 'u',
      nheId: 'n',
      nheIdentifier: 'agent',
      clientId: 'c',
      clientNumericId: 1,
      resourceServer: 'https://api.example',
      scopes: ['a'],
      ttl: 60,
      sourceIp: '127.0.0.1',
      issuedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
    }));
    const linked = linkRows(rows, await chainTail(db.models, t));
    await db.models.TokenAudit.collection.insertMany(linked.map((r) => ({ ...r })));
    await db.models.Counter.updateOne(
      { _id: `audit-chain-head:${t}` },
      { $max: { seq: linked.at(-1)!.seq } },
      { upsert: true },
    );
  }
  const path = (t: number) => `/tenants/${t}/non-human-entities/token-audit-chain/verify`;

  it("reports a valid chain, then the deleted row, scoped to the caller's tenant", async () => {
    await append(tenants.a, 4);
    await append(tenants.b, 2);
    const tokA = await token(tenants.a, ['auth.nhe.audit.list']);
    const ok = await call('get', path(tenants.a), tokA);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ tenantId: tenants.a, valid: true, checked: 4, headSeq: 4, problems: [] });
    await db.models.TokenAudit.collection.deleteOne({ tenantId: tenants.a, seq: 2 });
    const broken = await call('get', `${path(tenants.a)}?from=2026-01-01T00:00:00Z&to=2026-01-01T00:03:00Z`, tokA);
    expect(broken.body).toMatchObject({ valid: false, problems: [{ kind: 'missing', fromSeq: 2, toSeq: 2 }] });
    // Tenant b's chain is its own and untouched; tenant a cannot read it.
    expect((await call('get', path(tenants.b), await token(tenants.b, ['auth.nhe.audit.list']))).body).toMatchObject({
      valid: true,
      checked: 2,
    });
    expect((await call('get', path(tenants.b), tokA)).status).toBe(404);
  });

  it('is read only and validates its query', async () => {
    const tok = await token(tenants.a, ['auth.nhe.audit.list']);
    expect((await call('post', path(tenants.a), tok, {})).status).toBe(405);
    expect((await call('delete', path(tenants.a), tok)).status).toBe(405);
    expect((await call('get', `${path(tenants.a)}?from=yesterday`, tok)).status).toBe(400);
    expect(
      (await call('get', `${path(tenants.a)}?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`, tok)).status,
    ).toBe(400);
    expect((await call('get', path(tenants.a), await token(tenants.a, ['auth.nhe.list']))).status).toBe(403);
  });
});
