/**
 * The admin console's side of management: its static files under /auth/admin/console/ and the /_api
 * alias with their own CSP, config.json, and each tenant's built-in public client (created with every tenant made
 * through the API, and at start for tenants that lack it; never a tenant's own client of the same id).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomInt } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import request from 'supertest';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { KeyEncryptionKey, KeyStore, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { createApp } from '../src/app';
import { tenantKeyLookup } from '../src/auth/tenant-keys';
import { CONSOLE_CLIENT_ID, consoleRedirectUris, ensureConsoleClients } from '../src/console/console-client';
import { BASE_URL, PEPPER } from './harness';

let db: Awaited<ReturnType<typeof openTestDatabase>>;
let keyStore: KeyStore;
let dir: string;
let system: number;

const appWith = (consoleDir: string | undefined) =>
  createApp({
    logger: createLogger({ service: 'test', level: 'silent' }),
    models: db.models,
    readiness: [],
    trustProxy: false,
    keyStore,
    clientSecretPepper: PEPPER,
    bearer: { publicBaseUrl: BASE_URL, tenantKeys: tenantKeyLookup(db.models, keyStore, 0) },
    console: { dir: consoleDir, systemTenantId: system },
  }).app;

async function systemToken(): Promise<string> {
  const keys = await keyStore.load(system);
  const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: MANAGEMENT_SCOPES.join(' '), client_id: 'admin' })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(`${BASE_URL}/auth/${system}`)
    .setAudience(MANAGEMENT_AUDIENCE)
    .setSubject('admin')
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(await importJWK(jwk, 'ES256'));
}

beforeAll(async () => {
  db = await openTestDatabase('console');
  keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  system = randomInt(10_000, 500_000_000);
  await db.models.Tenant.create({ _id: system, name: 'system', system: true });
  await keyStore.ensureKeys(system);
  dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html lang="en"><head><title>Admin console</title></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.connection.dropDatabase();
  await db.close();
});

test('serves the console and its config under /auth/admin/console/ and the /_api alias, with the console CSP', async () => {
  const app = appWith(dir);
  for (const prefix of ['', '/_api']) {
    const page = await request(app).get(`${prefix}/auth/admin/console/`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<div id="root">');
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    expect(page.headers['cache-control']).toBe('no-store');
    const asset = await request(app).get(`${prefix}/auth/admin/console/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    const config = await request(app).get(`${prefix}/auth/admin/console/config.json`);
    expect(config.body).toEqual({ systemTenantId: system, clientId: CONSOLE_CLIENT_ID, available: true });
  }
  // Without the trailing slash the page's relative asset URLs would break: redirected, query kept.
  const bare = await request(app).get('/auth/admin/console?code=x&state=y');
  expect(bare.status).toBe(301);
  expect(bare.headers.location).toBe('/auth/admin/console/?code=x&state=y');
  // Anything else below the console is the API's (a problem, never a file outside the folder).
  const traversal = await request(app).get('/auth/admin/console/..%2f..%2fpackage.json');
  expect(traversal.status).toBeGreaterThanOrEqual(400);
  expect(traversal.status).toBeLessThan(500);
});

test('without a build only config.json answers (available: false)', async () => {
  const app = appWith(join(dir, 'missing'));
  expect((await request(app).get('/auth/admin/console/')).status).toBe(404);
  expect((await request(app).get('/auth/admin/console/config.json')).body).toMatchObject({ available: false });
});

test('a tenant created through the API gets the console client: public, first party, PKCE, the console URLs', async () => {
  const app = appWith(dir);
  const res = await request(app)
    .post('/auth/admin/tenants')
    .set('authorization', `Bearer ${await systemToken()}`)
    .send({ name: 'with-console' });
  expect(res.status).toBe(201);
  const client = await db.models.Client.findOne({ tenantId: res.body.id, clientId: CONSOLE_CLIENT_ID }).lean();
  expect(client).toMatchObject({
    tokenEndpointAuthMethod: 'none',
    firstParty: true,
    pkceRequired: true,
    grantTypes: ['authorization_code'],
    roleIds: [],
    redirectUris: [`${BASE_URL}/auth/admin/console/`, `${BASE_URL}/_api/auth/admin/console/`],
  });
  expect(client?.secretDigest).toBeUndefined();
});

test('a tenant with only its console client is deleted, the console client with it; another client still blocks', async () => {
  const app = appWith(dir);
  const token = await systemToken();
  const made = await request(app)
    .post('/auth/admin/tenants')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'gone-soon' });
  const id = made.body.id as number;
  await db.models.Client.create({
    tenantId: id,
    clientId: 'left-behind',
    numericId: 900_000 + id,
    name: 'Left behind',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code'],
    responseTypes: ['code'],
    redirectUris: ['https://app.example/cb'],
  });
  const blocked = await request(app).delete(`/auth/admin/tenants/${id}`).set('authorization', `Bearer ${token}`);
  expect(blocked.status).toBe(409);
  await db.models.Client.deleteOne({ tenantId: id, clientId: 'left-behind' });
  const deleted = await request(app).delete(`/auth/admin/tenants/${id}`).set('authorization', `Bearer ${token}`);
  expect(deleted.status).toBe(204);
  expect(await db.models.Client.countDocuments({ tenantId: id })).toBe(0);
});

test("at start: tenants without it get it, a changed origin is followed, a tenant's own client of that id is left alone", async () => {
  const lacking = system + 1;
  const own = system + 2;
  await db.models.Tenant.create([
    { _id: lacking, name: 'lacking' },
    { _id: own, name: 'own' },
  ]);
  await db.models.Client.create({
    tenantId: own,
    numericId: randomInt(1e9, 2e9),
    clientId: CONSOLE_CLIENT_ID,
    name: 'theirs',
    tokenEndpointAuthMethod: 'client_secret_basic',
    secretDigest: 'x',
    redirectUris: ['https://theirs.example/cb'],
  });
  const moved = consoleRedirectUris('https://moved.example/');
  await ensureConsoleClients(db.models, moved);
  expect(
    (await db.models.Client.findOne({ tenantId: lacking, clientId: CONSOLE_CLIENT_ID }).lean())?.redirectUris,
  ).toEqual(['https://moved.example/auth/admin/console/', 'https://moved.example/_api/auth/admin/console/']);
  expect(
    (await db.models.Client.findOne({ tenantId: system, clientId: CONSOLE_CLIENT_ID }).lean())?.redirectUris,
  ).toEqual(moved);
  expect(await db.models.Client.findOne({ tenantId: own, clientId: CONSOLE_CLIENT_ID }).lean()).toMatchObject({
    name: 'theirs',
    redirectUris: ['https://theirs.example/cb'],
  });
  // Idempotent: a second start changes nothing and adds nothing.
  await ensureConsoleClients(db.models, moved);
  expect(await db.models.Client.countDocuments({ tenantId: lacking, clientId: CONSOLE_CLIENT_ID })).toBe(1);
});
