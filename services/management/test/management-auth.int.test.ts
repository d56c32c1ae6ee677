/**
 * Management API against a real database: bearer authentication, scope checks, tenant isolation, NHE creation
 * rules and the read-only token audit.
 */
import { randomInt } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import request from 'supertest';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { KeyEncryptionKey, KeyStore, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { createApp } from '../src/app';
import { tenantKeyLookup } from '../src/auth/tenant-keys';

const BASE = 'https://idp.test';
let db: Awaited<ReturnType<typeof openTestDatabase>>;
let keyStore: KeyStore;
let app: ReturnType<typeof createApp>['app'];
const tenantA = randomInt(10_000, 500_000);
const tenantB = tenantA + 1;
const system = tenantA + 2;

async function token(tenantId: number, scopes: string[], overrides: { aud?: string; exp?: number; iss?: string } = {}): Promise<string> {
  const keys = await keyStore.load(tenantId);
  const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: scopes.join(' '), client_id: 'admin-client' })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(overrides.iss ?? `${BASE}/auth/${tenantId}`)
    .setAudience(overrides.aud ?? MANAGEMENT_AUDIENCE)
    .setSubject('admin-client')
    .setIssuedAt(now)
    .setExpirationTime(overrides.exp ?? now + 300)
    .sign(await importJWK(jwk, 'ES256'));
}

beforeAll(async () => {
  db = await openTestDatabase('mgmt');
  keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  await db.models.Tenant.create([
    { _id: tenantA, name: 'a', settings: { nhe: { enabled: true, maxNhePerTenant: 2 } } },
    { _id: tenantB, name: 'b', settings: { nhe: { enabled: true } } },
    { _id: system, name: 'system', system: true },
  ]);
  for (const t of [tenantA, tenantB, system]) await keyStore.ensureKeys(t);
  ({ app } = createApp({
    logger: createLogger({ service: 'test', level: 'silent' }),
    models: db.models,
    readiness: [],
    trustProxy: false,
    bearer: { publicBaseUrl: BASE, tenantKeys: tenantKeyLookup(db.models, keyStore, 0) },
  }));
});

afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

const nhe = (identifier: string) => ({ identifier, type: 'llm-assistive', allowedScopes: ['orders:read'], operator: 'ops' });

describe('authentication', () => {
  it('401 with WWW-Authenticate and problem+json without a token', async () => {
    const res = await request(app).get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ type: expect.stringContaining('unauthorized'), status: 401 });
  });

  it.each([
    ['a token for another audience', { aud: 'https://api.example' }],
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 60 }],
    ['a token from a foreign issuer', { iss: 'https://evil.example/auth/1' }],
  ])('401 for %s', async (_label, overrides) => {
    const res = await request(app)
      .get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit`)
      .set('authorization', `Bearer ${await token(tenantA, [...MANAGEMENT_SCOPES], overrides)}`);
    expect(res.status).toBe(401);
  });

  it('401 for a token signed by another tenant but claiming this issuer', async () => {
    const keys = await keyStore.load(tenantB);
    const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
    const forged = await new SignJWT({ scope: 'auth.nhe.audit.list' })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`${BASE}/auth/${tenantA}`)
      .setAudience(MANAGEMENT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(await importJWK(jwk, 'ES256'));
    const res = await request(app).get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit`).set('authorization', `Bearer ${forged}`);
    expect(res.status).toBe(401);
  });
});

describe('scopes and isolation', () => {
  it('403 naming the missing scope', async () => {
    const res = await request(app)
      .post(`/auth/admin/tenants/${tenantA}/non-human-entities`)
      .set('authorization', `Bearer ${await token(tenantA, ['auth.nhe.list'])}`)
      .send(nhe('x1'));
    expect(res.status).toBe(403);
    expect(res.body.required_scope).toBe('auth.nhe.create');
  });

  it("tenant A's token cannot create in or read tenant B (404, existence not leaked)", async () => {
    const t = await token(tenantA, [...MANAGEMENT_SCOPES]);
    const create = await request(app).post(`/auth/admin/tenants/${tenantB}/non-human-entities`).set('authorization', `Bearer ${t}`).send(nhe('intruder'));
    expect(create.status).toBe(404);
    expect(await db.models.Nhe.countDocuments({ tenantId: tenantB })).toBe(0);
    const read = await request(app).get(`/auth/admin/tenants/${tenantB}/non-human-entities/token-audit`).set('authorization', `Bearer ${t}`);
    expect(read.status).toBe(404);
    const count = await request(app).get(`/auth/admin/tenants/${tenantB}/non-human-entities/token-audit/count`).set('authorization', `Bearer ${t}`);
    expect(count.status).toBe(404);
  });

  it('a system tenant token reaches every tenant', async () => {
    const res = await request(app)
      .post(`/_api/auth/admin/tenants/${tenantB}/non-human-entities`)
      .set('authorization', `Bearer ${await token(system, [...MANAGEMENT_SCOPES])}`)
      .send(nhe('from-system'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ identifier: 'from-system', maxTokenLifetime: 300, enabled: true });
  });
});

describe('NHE registration rules', () => {
  const post = async (body: unknown) =>
    request(app)
      .post(`/auth/admin/tenants/${tenantA}/non-human-entities`)
      .set('authorization', `Bearer ${await token(tenantA, [...MANAGEMENT_SCOPES])}`)
      .send(body as object);

  it('validates fields and refuses unknown ones, naming the paths', async () => {
    const res = await post({ ...nhe('bad id!'), extra: 1, type: 'robot' });
    expect(res.status).toBe(400);
    const names = (res.body.invalid_params as Array<{ name: string }>).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['body.identifier']));
    expect(res.body.type).toMatch(/validation-error$/);
  });

  it('refuses a type outside allowedNheTypes and a lifetime above the hard maximum', async () => {
    expect((await post({ ...nhe('t1'), type: 'robot' })).body.invalid_params[0].name).toBe('body.type');
    expect((await post({ ...nhe('t2'), maxTokenLifetime: 901 })).body.invalid_params[0].name).toBe('body.maxTokenLifetime');
  });

  it('refuses a duplicate identifier with 409 and enforces maxNhePerTenant', async () => {
    expect((await post(nhe('one'))).status).toBe(201);
    expect((await post(nhe('one'))).status).toBe(409);
    expect((await post(nhe('two'))).status).toBe(201);
    const over = await post(nhe('three'));
    expect(over.status).toBe(409);
    expect(over.body.limit).toEqual({ name: 'settings.nhe.maxNhePerTenant', value: 2 });
  });

  it('answers malformed JSON with a 400 problem, not a 500', async () => {
    const res = await request(app)
      .post(`/auth/admin/tenants/${tenantA}/non-human-entities`)
      .set('authorization', `Bearer ${await token(tenantA, [...MANAGEMENT_SCOPES])}`)
      .set('content-type', 'application/json')
      .send('{"identifier":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});

describe('token audit is read only', () => {
  it.each(['post', 'put', 'patch', 'delete'] as const)('%s is 405 with Allow: GET', async (method) => {
    const t = await token(tenantA, [...MANAGEMENT_SCOPES]);
    for (const path of ['token-audit', 'token-audit/count', 'token-audit/some-id']) {
      const res = await request(app)[method](`/auth/admin/tenants/${tenantA}/non-human-entities/${path}`).set('authorization', `Bearer ${t}`);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toContain('GET');
    }
  });

  it('lists only the caller tenant rows, newest first, with a cursor', async () => {
    const row = (tenantId: number, jti: string) => ({
      tenantId, jti, userId: 'u', nheId: 'n', nheIdentifier: 'agent', clientId: 'c', clientNumericId: 1,
      resourceServer: 'https://api', scopes: ['s'], ttl: 60, sourceIp: '127.0.0.1', issuedAt: new Date(),
    });
    for (const jti of ['a1', 'a2', 'a3']) await db.models.TokenAudit.create(row(tenantA, `${tenantA}-${jti}`));
    await db.models.TokenAudit.create(row(tenantB, `${tenantB}-b1`));
    const t = await token(tenantA, ['auth.nhe.audit.list']);
    const page1 = await request(app).get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit?limit=2`).set('authorization', `Bearer ${t}`);
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((i: { jti: string }) => i.jti)).toEqual([`${tenantA}-a3`, `${tenantA}-a2`]);
    const page2 = await request(app)
      .get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit?limit=2&cursor=${page1.body.nextCursor}`)
      .set('authorization', `Bearer ${t}`);
    expect(page2.body.items.map((i: { jti: string }) => i.jti)).toEqual([`${tenantA}-a1`]);
    expect(page2.body.nextCursor).toBeNull();
    const count = await request(app).get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit/count`).set('authorization', `Bearer ${t}`);
    expect(count.body).toEqual({ count: 3 });
    const bad = await request(app).get(`/auth/admin/tenants/${tenantA}/non-human-entities/token-audit?limit=0&bogus=1`).set('authorization', `Bearer ${t}`);
    expect(bad.status).toBe(400);
  });
});
