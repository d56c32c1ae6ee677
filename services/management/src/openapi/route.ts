/**
 * Route declarations: the one place the management API's HTTP contract is written.
 *
 * Each route declares, once, its method, path, zod schemas for params, query and body (unknown fields are
 * refused: use `.strict()` objects), its success responses and the problem statuses it can return. From that
 * declaration `ManagementApi` registers the express handler (authentication, tenant access, scope, parsing,
 * RFC 9457 problems, a log line for every successful write) and generates the OpenAPI 3.1 document served at
 * `/auth/admin/openapi.json`. The integration tests validate every response they get against that document,
 * so a status or a shape that is not declared fails them.
 *
 * HOW TO ADD ROUTES (example: routes/jobs.ts)
 *
 *   import { z } from 'zod';
 *   import { defineRoute, type RouteDef } from '../openapi/route';
 *   import { listQuery, objectIdParam, page, tenantParams } from '../openapi/schemas';
 *
 *   const jobView = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Job' });   // `id` = component name
 *
 *   export function jobRoutes(deps: { models: Models }): RouteDef[] {
 *     return [
 *       defineRoute({
 *         method: 'get',
 *         path: '/tenants/:tenantId/jobs/:jobId',      // below /auth/admin, express syntax (`:name` params)
 *         operationId: 'getJob',                         // unique
 *         summary: 'Get a job',
 *         tag: 'Jobs',
 *         scope: 'auth.jobs.list',                       // 403 naming it when missing; list it in MANAGEMENT_SCOPES
 *         params: tenantParams.extend({ jobId: objectIdParam }),
 *         query: z.object({ verbose: z.enum(['true', 'false']).optional() }).strict(),   // optional
 *         // body: z.object({...}).strict(),             // optional; JSON, at most 64 kB and 32 levels deep
 *         responses: { 200: { description: 'The job', schema: jobView } },
 *         errors: [409],                                 // problem statuses beyond the automatic ones (see below)
 *         handler: async ({ params, tenantId, caller, audit }) => {
 *           ...                                          // throw problems.notFound(...) etc. from @idp/errors
 *           return { status: 200, body: { id: params.jobId, name: 'x' } };
 *         },
 *       }),
 *     ];
 *   }
 *
 * and add `...jobRoutes(deps)` to the route list in app.ts. Nothing else is needed.
 *
 * What the mechanism does for every route, in this order:
 *   1. `access` (default `tenant` when the path has `:tenantId`, else `authenticated`):
 *        public         no token (the OpenAPI document only);
 *        authenticated  a valid management token (401 with WWW-Authenticate otherwise);
 *        tenant         also: the token's tenant is `:tenantId`, or the caller is a system-tenant admin; any other
 *                       tenant id is 404 so existence does not leak; a tenant that does not exist is 404;
 *        system         also: the caller is a system-tenant admin (403 otherwise).
 *   2. `scope`: 403 problem with `required_scope` when the token lacks it.
 *   3. params, query, body parsed with the declared schemas: 400 `validation-error` listing every failing field
 *      path (`body.allowedScopes.2`). A route without a body refuses a non-empty body.
 *   4. The handler returns `{ status, body?, headers? }` (or throws a ProblemError). The response gets
 *      `Cache-Control: no-store`. For writes (non-GET), one info log line `management write` with the
 *      operationId, the caller's tenant and client, the path params and whatever the handler passed to
 *      `audit({...})`: NEVER pass secrets there (a write the handler fails is logged as `management write failed`).
 *      `invalidate(kind, id)` queues a configuration invalidation, published after the handler succeeded (see
 *      libs/events/src/invalidation.ts); a publish failure is logged, never fails the request.
 *   5. Any other method on a declared path is 405 with an `Allow` header (`closedPaths` adds paths that have no
 *      route of their own, e.g. `token-audit/*rest`).
 * Problem statuses documented automatically: 401 (unless public), 403 (when `scope` or `system`), 404 (tenant
 * routes, and routes with params), 400 (every route: an undeclared query parameter, a body where none is taken, a
 * body nested deeper than MAX_JSON_BODY_DEPTH, refused before it is parsed), 413 and 415 (with a
 * body), 500. Add others with `errors` (409 conflict / limit-exceeded, 503 when a dependency cannot confirm).
 * Test helper: services/management/test/harness.ts (`startHarness`, `OpenApiResponseValidator`).
 * Routes are matched most-specific first (a literal segment wins over a `:param` at the same position), so
 * `/non-human-entities/count` is never read as an `:id`, whatever order routes are listed in.
 */
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { jsonBody } from '@idp/http';
import { z } from 'zod';
import { ProblemError, problems } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { callerOf, type Caller } from '../auth/bearer';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type RouteAccess = 'public' | 'authenticated' | 'tenant' | 'system';

/** What a configuration change invalidates in oidc-core and the sidecar (libs/events invalidation kinds). */
export type InvalidationKind =
  'tenant' | 'client' | 'resource-server' | 'keys' | 'nhe' | 'policy' | 'user' | 'group' | 'role' | 'grant';

export interface ResponseDecl {
  description: string;
  /** JSON body schema; omit for empty bodies (204). */
  schema?: z.ZodType;
  /** Response headers, name -> description. */
  headers?: Record<string, string>;
}

export interface HandlerContext<P, Q, B> {
  req: Request;
  res: Response;
  params: P;
  query: Q;
  body: B;
  caller: Caller;
  /** `:tenantId` as a number (NaN on routes without it). */
  tenantId: number;
  /** Adds fields to this write's log line (ids, names, flags; never secrets). */
  audit: (details: Record<string, unknown>) => void;
  /** Queues an invalidation of cached configuration of this tenant, published after success. */
  invalidate: (kind: InvalidationKind, id?: string) => void;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteDef<
  P extends z.ZodObject | undefined = z.ZodObject | undefined,
  Q extends z.ZodObject | undefined = z.ZodObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** Below /auth/admin, express syntax: `/tenants/:tenantId/clients/:clientId`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access?: RouteAccess;
  scope?: string;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseDecl>;
  errors?: number[];
  handler: (ctx: HandlerContext<Out<P>, Out<Q>, Out<B>>) => Promise<HandlerResult>;
}

/** Identity function that infers the handler's parameter types from the schemas. */
export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(route: RouteDef<P, Q, B>): RouteDef {
  return route as unknown as RouteDef;
}

/** A path with no route of its own where every method is 405 (e.g. read-only collections' sub-paths). */
export interface ClosedPath {
  path: string;
  allow: string[];
}

export const routeAccess = (r: RouteDef): RouteAccess =>
  r.access ?? (r.path.includes(':tenantId') ? 'tenant' : 'authenticated');

/** Parses part of a request; a failure is a 400 problem listing every failing field path. */
export function parsePart<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params',
): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw problems.validation(
    `the request ${where} is not valid`,
    result.error.issues.map((i) => ({
      name: [where, ...i.path.map(String)].join('.'),
      reason: issueReason(i),
    })),
  );
}

function issueReason(i: z.core.$ZodIssue): string {
  if (i.code === 'unrecognized_keys') return `unknown field(s): ${i.keys.join(', ')}`;
  if (i.code === 'invalid_key') return `invalid key: ${i.issues.map((k) => k.message).join('; ')}`;
  return i.message;
}

/** Segment-wise order: literal before `:param` before `*wildcard`; ties broken alphabetically (deterministic). */
export function comparePaths(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  const rank = (s: string) => (s.startsWith('*') ? 2 : s.startsWith(':') ? 1 : 0);
  for (let i = 0; i < Math.max(sa.length, sb.length); i++) {
    const x = sa.at(i);
    const y = sb.at(i);
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const d = rank(x) - rank(y);
    if (d !== 0) return d;
    return x < y ? -1 : 1;
  }
  return 0;
}

export interface ApiDeps {
  logger: Logger;
  authenticate: RequestHandler;
  /** True when the tenant exists (tenant routes answer 404 otherwise). */
  tenantExists: (tenantId: number) => Promise<boolean>;
  /** Publishes queued invalidations; failures are logged, never fail the request (TTLs are the backstop). */
  publishInvalidation?: (event: { tenantId: number; kind: InvalidationKind; id?: string }) => Promise<void> | void;
  /** JSON body limit. */
  bodyLimit?: string;
}

const asyncRoute =
  (fn: (req: Request, res: Response) => Promise<void>): RequestHandler =>
  (req, res, next) => {
    fn(req, res).catch(next);
  };

/** Builds the express router of a list of declared routes. */
export function buildRouter(routes: RouteDef[], closedPaths: ClosedPath[], deps: ApiDeps): Router {
  const ids = new Set<string>();
  for (const r of routes) {
    if (ids.has(r.operationId)) throw new Error(`duplicate operationId ${r.operationId}`);
    ids.add(r.operationId);
  }
  const router = Router();
  // Nesting bounded on the raw text, before JSON.parse (libs/http json-body.ts): 400 rather than a stack overflow later.
  const json = jsonBody({
    limit: deps.bodyLimit ?? '64kb',
    strict: true,
    type: ['application/json', 'application/*+json'],
  });
  const byPath = new Map<string, RouteDef[]>();
  for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
  for (const c of closedPaths) if (!byPath.has(c.path)) byPath.set(c.path, []);
  const paths = [...byPath.keys()].sort(comparePaths);

  for (const path of paths) {
    const defs = byPath.get(path)!;
    for (const r of defs) router[r.method](path, ...handlersOf(r, deps, json));
    const allow = defs.length
      ? [...new Set(defs.flatMap((r) => (r.method === 'get' ? ['GET', 'HEAD'] : [r.method.toUpperCase()])))]
      : closedPaths.find((c) => c.path === path)!.allow;
    router.all(path, (_req: Request, _res: Response, next: NextFunction) => next(problems.methodNotAllowed(allow)));
  }
  return router;
}

function handlersOf(r: RouteDef, deps: ApiDeps, json: RequestHandler): RequestHandler[] {
  const access = routeAccess(r);
  const chain: RequestHandler[] = [];
  if (access !== 'public') chain.push(deps.authenticate);
  if (access === 'tenant') {
    chain.push((req, _res, next) => {
      const caller = callerOf(req);
      // An explicit `access: 'tenant'` on a path without :tenantId has no such param: never a match.
      const raw = String((req.params as Partial<Record<string, string>>).tenantId ?? '');
      const ok = /^\d{1,15}$/.test(raw) && (caller.system || Number(raw) === caller.tenantId);
      next(ok ? undefined : problems.notFound('tenant not found'));
    });
  }
  if (access === 'system') {
    chain.push((req, _res, next) => {
      next(
        callerOf(req).system
          ? undefined
          : new ProblemError('forbidden', 403, 'this operation requires a token of the system tenant'),
      );
    });
  }
  if (r.scope) {
    const scope = r.scope;
    chain.push((req, _res, next) => {
      next(
        callerOf(req).scopes.has(scope)
          ? undefined
          : problems.forbidden(`this operation requires the scope ${scope}`, scope),
      );
    });
  }
  if (access === 'tenant') {
    chain.push((req, _res, next) => {
      deps
        .tenantExists(Number(req.params.tenantId))
        .then((exists) => next(exists ? undefined : problems.notFound('tenant not found')))
        .catch(next);
    });
  }
  if (r.body) chain.push(json);
  chain.push(
    asyncRoute(async (req, res) => {
      const params = r.params ? parsePart(r.params, req.params, 'params') : undefined;
      const query = r.query ? parsePart(r.query, req.query, 'query') : parseEmptyQuery(req);
      let body: unknown;
      if (r.body) {
        // No body at all (also `Content-Length: 0`, as fetch and curl send a bare POST) reads as `{}` (routes whose
        // fields are all optional); any body must be JSON.
        const empty = req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] ?? '0') === '0';
        const type = empty ? null : req.is(['application/json', 'application/*+json']);
        if (type === false) throw new ProblemError('unsupported-media-type', 415, 'send the body as application/json');
        body = parsePart(r.body, type === null ? undefined : req.body, 'body');
      } else if (req.headers['content-length'] && req.headers['content-length'] !== '0') {
        throw problems.validation('this operation takes no request body', [{ name: 'body', reason: 'must be empty' }]);
      }
      const details: Record<string, unknown> = {};
      const queued: Array<{ kind: InvalidationKind; id?: string }> = [];
      const caller = callerOf(req);
      const tenantId = Number(req.params.tenantId);
      const log = ((req as Request & { log?: Logger }).log ?? deps.logger) as Logger;
      const logWrite = (status: number, msg: string) =>
        log.info(
          {
            action: r.operationId,
            ...(Number.isFinite(tenantId) ? { tenantId } : {}),
            caller: { tenantId: caller.tenantId, clientId: caller.clientId, subject: caller.subject },
            params: req.params,
            status,
            ...details,
          },
          msg,
        );
      let result: HandlerResult;
      try {
        result = await r.handler({
          req,
          res,
          params: params as never,
          query: query as never,
          body: body as never,
          caller,
          tenantId,
          audit: (d) => Object.assign(details, d),
          invalidate: (kind, id) => queued.push({ kind, ...(id === undefined ? {} : { id }) }),
        });
      } catch (err) {
        // A write the handler refused or that failed part-way (e.g. 503 after the change was saved) is logged too.
        if (r.method !== 'get') logWrite(err instanceof ProblemError ? err.status : 500, 'management write failed');
        throw err;
      }
      if (r.method !== 'get') logWrite(result.status, 'management write');
      for (const q of queued) {
        const target = q.kind === 'tenant' && q.id ? Number(q.id) : tenantId;
        if (!Number.isFinite(target) || !deps.publishInvalidation) continue;
        try {
          await deps.publishInvalidation({
            tenantId: target,
            kind: q.kind,
            ...(q.id === undefined ? {} : { id: q.id }),
          });
        } catch (err) {
          deps.logger.warn(
            { err, tenantId: target, kind: q.kind },
            'configuration invalidation not published; caches expire by TTL',
          );
        }
      }
      res.setHeader('Cache-Control', 'no-store');
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      res.status(result.status);
      if (result.body === undefined) res.end();
      else res.json(result.body);
    }),
  );
  return chain;
}

function parseEmptyQuery(req: Request): undefined {
  const keys = Object.keys(req.query);
  if (keys.length) {
    throw problems.validation(
      'the request query is not valid',
      keys.map((k) => ({ name: `query.${k}`, reason: 'unknown parameter' })),
    );
  }
  return undefined;
}
