/** Generates the OpenAPI 3.1 document from the route declarations (route.ts). */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { MAX_JSON_BODY_DEPTH } from '@idp/http';
import { routeAccess, type RouteDef } from './route';
import { problemSchema } from './schemas';

export const API_BASE_PATH = '/auth/admin';

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: `Validation failed (\`validation-error\`, with \`invalid_params\`); also a body nested deeper than ${MAX_JSON_BODY_DEPTH} levels of arrays and objects, or a body sent to an operation that takes none`,
  401: 'Missing or invalid access token, a DPoP-bound token sent as Bearer, or a missing or invalid DPoP proof (`unauthorized`, with WWW-Authenticate)',
  403: 'The token lacks the required scope (`forbidden`, with `required_scope`), the route needs a system-tenant token, or the principal acted on holds management scopes the caller does not (granting, taking over, disabling, deleting or stripping it; `forbidden`, naming the missing scopes)',
  404: 'No such resource, or a tenant the caller may not reach (`not-found`)',
  405: 'Method not allowed (`method-not-allowed`, with Allow)',
  409: 'Conflict with existing state (`conflict`) or a limit reached (`limit-exceeded`, with `limit`)',
  413: 'Request body larger than 64 kB (`payload-too-large`)',
  415: 'Request body is not application/json (`unsupported-media-type`)',
  500: 'Unexpected error (`internal-error`, no detail)',
  503: 'A dependency could not confirm the change (`service-unavailable`); retrying the request is safe',
};

/** `/tenants/:tenantId/x` -> `/auth/admin/tenants/{tenantId}/x` */
export const toOpenApiPath = (path: string): string => API_BASE_PATH + path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The problem statuses a route can answer with (see route.ts). */
export function problemStatuses(r: RouteDef): number[] {
  const access = routeAccess(r);
  const s = new Set<number>([500, ...(r.errors ?? [])]);
  if (access !== 'public') s.add(401);
  if (r.scope || access === 'system') s.add(403);
  if (access === 'tenant' || r.params) s.add(404);
  // Every route: any route refuses a query parameter it does not declare and a body it does not take.
  s.add(400);
  if (r.body) {
    s.add(413);
    s.add(415);
  }
  return [...s].sort();
}

export function buildOpenApiDocument(routes: RouteDef[], info: { version: string }) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'managementToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'An access token (RFC 9068) issued by a tenant of this deployment for the resource `urn:idp:management` ' +
      '(client credentials). The scopes an operation needs are listed in its security requirement. A DPoP-bound token ' +
      '(`cnf.jkt`, `token_type: DPoP`, RFC 9449) is accepted only as `Authorization: DPoP <token>` with a `DPoP` proof ' +
      'for the request (`htm`, `htu` = the public base URL plus the request path, `ath`) made with its key and never used ' +
      'before; sent as Bearer it gets 401 with `WWW-Authenticate: DPoP error="invalid_token"`. A token whose `cnf` names ' +
      'another confirmation method, or whose segments are not canonical base64url, is refused.',
  });
  for (const r of routes) {
    const access = routeAccess(r);
    const responses: Record<number, ResponseConfig> = {};
    for (const [status, decl] of Object.entries(r.responses)) {
      responses[Number(status)] = {
        description: decl.description,
        ...(decl.headers
          ? {
              headers: Object.fromEntries(
                Object.entries(decl.headers).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }]),
              ),
            }
          : {}),
        ...(decl.schema ? { content: { 'application/json': { schema: decl.schema } } } : {}),
      };
    }
    for (const status of problemStatuses(r)) {
      responses[status] = {
        description: PROBLEM_DESCRIPTIONS[status] ?? 'Problem',
        content: { 'application/problem+json': { schema: problemSchema } },
        ...(status === 401
          ? {
              headers: {
                'WWW-Authenticate': {
                  description: 'Bearer or DPoP challenge (RFC 6750, RFC 9449 section 7.1, with `algs`)',
                  schema: { type: 'string' },
                },
              },
            }
          : {}),
      };
    }
    const notes = [
      r.description,
      r.scope ? `Requires the scope \`${r.scope}\`.` : undefined,
      access === 'system' ? 'Only tokens of the system tenant may call it.' : undefined,
      access === 'tenant'
        ? 'A token reaches its own tenant only (other tenant ids are 404); system-tenant tokens reach every tenant.'
        : undefined,
    ].filter(Boolean);
    registry.registerPath({
      method: r.method,
      path: toOpenApiPath(r.path),
      operationId: r.operationId,
      summary: r.summary,
      ...(notes.length ? { description: notes.join('\n\n') } : {}),
      tags: [r.tag],
      security: access === 'public' ? [] : [{ [bearer.name]: r.scope ? [r.scope] : [] }],
      request: {
        ...(r.params ? { params: r.params } : {}),
        ...(r.query ? { query: r.query } : {}),
        ...(r.body
          ? { body: { required: !r.body.safeParse({}).success, content: { 'application/json': { schema: r.body } } } }
          : {}),
      },
      responses,
    });
  }
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Identity provider management API',
      version: info.version,
      description:
        'Admin REST API of the identity provider. Every path is also served under the `/_api` prefix. ' +
        'Errors are RFC 9457 problem+json with a stable `type` per kind.',
    },
    // No `servers`: the default is `/`, the host the document was fetched from.
  });
}
