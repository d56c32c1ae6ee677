/**
 * Test harness of the management integration tests: one real database and one app per test file, tokens signed
 * with the tenants' real keys, and `call()`, which sends a request and validates the response against the
 * generated OpenAPI document (status declared for the operation, content type, body schema; 405 only for methods
 * the document does not list, with a matching Allow header). Every call of every test goes through it.
 */
import { randomInt } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Express } from 'express';
import { importJWK, SignJWT } from 'jose';
import request, { type Response } from 'supertest';
import type { InvalidationKindName, RevocationInput } from '@idp/events';
import { createLogger } from '@idp/logger';
import { openTestDatabase } from '@idp/testing';
import { KeyEncryptionKey, KeyStore, MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { createApp } from '../src/app';
import { tenantKeyLookup } from '../src/auth/tenant-keys';
import { comparePaths } from '../src/openapi/route';

export const BASE_URL = 'https://idp.test';
export const PEPPER = 'p'.repeat(40);
/** The system tenant's bootstrap administrator the app is told about (create it with bootstrapSystemTenant). */
export const BOOTSTRAP_ADMIN_CLIENT_ID = 'bootstrap-admin';

/** The served document, as JSON: a path lists only the methods it has, an operation only its documented statuses. */
type OpenApiDoc = {
  openapi: string;
  paths: Record<
    string,
    Partial<
      Record<
        string,
        {
          responses: Partial<Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>>;
        }
      >
    >
  >;
};

/** Validates supertest responses against an OpenAPI 3.1 document. */
export class OpenApiResponseValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly templates: Array<{ template: string; regex: RegExp }>;

  constructor(readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: 'openapi.json' });
    this.templates = Object.keys(doc.paths)
      .map((template) => ({ template, express: template.replace(/\{([^}]+)\}/g, ':$1') }))
      .sort((a, b) => comparePaths(a.express, b.express))
      .map(({ template }) => ({
        template,
        regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      }));
  }

  /** The template of a concrete path (the `/_api` alias stripped), or undefined. */
  templateOf(path: string): string | undefined {
    const p = path.split('?')[0]!.replace(/^\/_api(?=\/)/, '');
    return this.templates.find((t) => t.regex.test(p))?.template;
  }

  /** Throws an Error describing every way the response departs from the document. */
  check(res: Response): void {
    const req = (res as unknown as { req: { method: string; path: string } }).req;
    const method = req.method.toLowerCase();
    const where = `${req.method} ${req.path} -> ${res.status}`;
    const template = this.templateOf(req.path);
    if (!template) {
      // Paths outside the document: only the final 404 or a closed path's 405, as problems.
      if ((res.status === 404 || res.status === 405) && /problem\+json/.test(String(res.headers['content-type'])))
        return;
      throw new Error(`${where}: path is not in the OpenAPI document`);
    }
    const item = this.doc.paths[template]!;
    const op = item[method];
    if (!op) {
      if (res.status !== 405)
        throw new Error(`${where}: ${method} is not documented for ${template}, so it must be 405`);
      const documented = Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m));
      const allow = String((res.headers.allow as string | undefined) ?? '')
        .split(/,\s*/)
        .filter(Boolean)
        .map((m) => m.toLowerCase());
      for (const m of documented)
        if (!allow.includes(m)) throw new Error(`${where}: Allow (${res.headers.allow}) lacks documented ${m}`);
      return;
    }
    const response = op.responses[String(res.status)];
    if (!response)
      throw new Error(
        `${where}: status not documented (documented: ${Object.keys(op.responses).join(', ')}); body ${JSON.stringify(res.body)}`,
      );
    if (!response.content) {
      if (res.text) throw new Error(`${where}: documented without a body but has one: ${res.text.slice(0, 200)}`);
      return;
    }
    const contentType = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (!response.content[contentType])
      throw new Error(
        `${where}: content type ${contentType} not documented (${Object.keys(response.content).join(', ')})`,
      );
    const pointer = ['paths', template, method, 'responses', String(res.status), 'content', contentType, 'schema']
      .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
      .join('/');
    const validate = this.ajv.getSchema(`openapi.json#/${pointer}`);
    if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
    const body = contentType.endsWith('json') && res.text ? JSON.parse(res.text) : res.body;
    if (!validate(body))
      throw new Error(
        `${where}: body does not match the document: ${this.ajv.errorsText(validate.errors)}; body ${JSON.stringify(body).slice(0, 500)}`,
      );
    if (res.status === 401 && !res.headers['www-authenticate'])
      throw new Error(`${where}: 401 without WWW-Authenticate`);
  }
}

export interface Harness {
  app: Express;
  db: Awaited<ReturnType<typeof openTestDatabase>>;
  keyStore: KeyStore;
  doc: OpenApiDoc;
  validator: OpenApiResponseValidator;
  invalidations: Array<{ tenantId: number; kind: InvalidationKindName; id?: string }>;
  revocations: RevocationInput[];
  /** Every log line the app wrote (JSON text), at info and above. */
  logs: string[];
  routes: ReturnType<typeof createApp>['routes'];
  /** Three fresh tenants: a, b (ordinary) and system. */
  tenants: { a: number; b: number; system: number };
  token(
    tenantId: number,
    scopes: readonly string[],
    overrides?: { aud?: string; exp?: number; iss?: string },
  ): Promise<string>;
  /** Sends a request (JSON body when given) and validates the response against the OpenAPI document. */
  call(
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: string,
    token?: string,
    body?: unknown,
  ): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(
  label: string,
  tenantSettings: { a?: Record<string, unknown>; b?: Record<string, unknown> } = {},
  /** Also called after recording (e.g. the real NATS publishers). */
  forward: {
    publishInvalidation?: (e: Harness['invalidations'][number]) => Promise<void>;
    revoke?: (input: RevocationInput) => Promise<void>;
  } = {},
  /** A database another harness opened (the delegation stack's), used as is and left open and in place on close. */
  shared?: { db: Awaited<ReturnType<typeof openTestDatabase>> },
): Promise<Harness> {
  const db = shared?.db ?? (await openTestDatabase(label));
  const keyStore = new KeyStore(db.models, new KeyEncryptionKey('k'.repeat(40)));
  const a = randomInt(10_000, 500_000_000);
  const tenants = { a, b: a + 1, system: a + 2 };
  await db.models.Tenant.create([
    { _id: tenants.a, name: 'a', settings: { nhe: { enabled: true, ...(tenantSettings.a ?? {}) } } },
    { _id: tenants.b, name: 'b', settings: { nhe: { enabled: true, ...(tenantSettings.b ?? {}) } } },
    { _id: tenants.system, name: 'system', system: true },
  ]);
  for (const t of Object.values(tenants)) await keyStore.ensureKeys(t);
  const invalidations: Harness['invalidations'] = [];
  const revocations: RevocationInput[] = [];
  const logs: string[] = [];
  const created = createApp({
    logger: createLogger({
      service: 'test',
      level: 'info',
      destination: {
        write: (line: string) => {
          logs.push(line);
          if (process.env.TEST_LOG_LEVEL) process.stdout.write(line);
        },
      },
    }),
    models: db.models,
    readiness: [],
    trustProxy: false,
    keyStore,
    clientSecretPepper: PEPPER,
    bootstrapAdmin: { tenantId: tenants.system, clientId: BOOTSTRAP_ADMIN_CLIENT_ID },
    bearer: { publicBaseUrl: BASE_URL, tenantKeys: tenantKeyLookup(db.models, keyStore, 0) },
    publishInvalidation: async (e) => {
      invalidations.push(e);
      await forward.publishInvalidation?.(e);
    },
    revoke: async (input) => {
      revocations.push(input);
      await forward.revoke?.(input);
    },
  });
  const docRes = await request(created.app).get('/auth/admin/openapi.json');
  if (docRes.status !== 200) throw new Error(`openapi.json: ${docRes.status} ${docRes.text}`);
  const doc = docRes.body as OpenApiDoc;
  const validator = new OpenApiResponseValidator(doc);

  const keyCache = new Map<number, Awaited<ReturnType<KeyStore['load']>>>();
  const harness: Harness = {
    app: created.app,
    db,
    keyStore,
    doc,
    validator,
    invalidations,
    revocations,
    logs,
    routes: created.routes,
    tenants,
    async token(tenantId, scopes, overrides = {}) {
      const keys = keyCache.get(tenantId) ?? (await keyStore.load(tenantId));
      keyCache.set(tenantId, keys);
      const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ scope: scopes.join(' '), client_id: `admin-${tenantId}` })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(overrides.iss ?? `${BASE_URL}/auth/${tenantId}`)
        .setAudience(overrides.aud ?? MANAGEMENT_AUDIENCE)
        .setSubject(`admin-${tenantId}`)
        .setIssuedAt(now)
        .setExpirationTime(overrides.exp ?? now + 300)
        .sign(await importJWK(jwk, 'ES256'));
    },
    async call(method, path, token, body) {
      let req = request(created.app)[method](path);
      if (token) req = req.set('authorization', `Bearer ${token}`);
      if (body !== undefined) req = req.send(body as object);
      const res = await req;
      if (res.status >= 500 && res.status !== 503)
        throw new Error(
          `${method.toUpperCase()} ${path} -> ${res.status}: a test request must never cause a server error`,
        );
      validator.check(res);
      return res;
    },
    async close() {
      if (shared) return;
      await db.connection.dropDatabase();
      await db.close();
    },
  };
  return harness;
}

/** The `name`s of a validation problem's invalid_params. */
export const invalidNames = (res: Response): string[] =>
  ((res.body.invalid_params ?? []) as Array<{ name: string }>).map((p) => p.name);
