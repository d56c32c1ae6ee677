/**
 * `@idp/resource-server/express`: middleware for express 4 and 5 (and anything with the same request/response
 * shape: `method`, `originalUrl`, `headers`; `status`, `setHeader`, `json`). It imports nothing from express at
 * run time; the types below are the members it uses, so express's own Request and Response fit them.
 *
 *   app.use(protectedResourceMetadataHandler(metadata));
 *   app.get('/orders', requireAccess(verifier, { scopes: ['orders:read'], resourceMetadataUrl }), handler);
 *   // in the handler: accessOf(req).userId, accessOf(req).delegation, auditLine(accessOf(req))
 */
import { ResourceServerError, VerifierUnavailableError } from './errors';
import {
  protectedResourceMetadataPath,
  secureUrl,
  type ProtectedResourceMetadata,
} from './protected-resource-metadata';
import type { Access, AccessRules, Verifier } from './verifier';

/** The request members the middleware reads (express's Request has them). */
export interface HttpRequest {
  method: string;
  originalUrl?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  /** Node's per-header lists (18.3+): tells two `Authorization` or `DPoP` headers apart from one. */
  headersDistinct?: Record<string, string[] | undefined>;
}

/** The response members the middleware uses (express's Response has them). */
export interface HttpResponse {
  status(code: number): unknown;
  setHeader(name: string, value: string): unknown;
  json(body: unknown): unknown;
  end(): unknown;
}

export type NextFunction = (err?: unknown) => void;
export type Middleware = (req: HttpRequest, res: HttpResponse, next: NextFunction) => void;

export interface RequireAccessOptions extends AccessRules {
  /** URL of this API's RFC 9728 metadata: every challenge carries it as `resource_metadata` (RFC 9728 section 5.1). */
  resourceMetadataUrl?: string;
  /** `realm` of the challenges. */
  realm?: string;
  /**
   * The API's public origin (e.g. `https://api.example.com`): a DPoP proof's `htu` must be this origin + the
   * request's path. Default: the origin of the verifier's audience when it is an http(s) URL. Never taken from Host.
   */
  origin?: string;
}

const accesses = new WeakMap<object, Access>();

/** The verified access of a request that passed requireAccess (also on `req.auth`); throws when there is none. */
export function accessOf(req: object): Access {
  const access = accesses.get(req);
  if (!access) throw new Error('accessOf: this request did not pass requireAccess');
  return access;
}

function defaultOrigin(verifier: Verifier): string | undefined {
  const aud = typeof verifier.audience === 'string' ? verifier.audience : verifier.audience.at(0);
  if (aud === undefined || !/^https?:\/\//i.test(aud)) return undefined;
  return new URL(aud).origin;
}

function single(req: HttpRequest, name: string): string | readonly string[] | undefined {
  const distinct = req.headersDistinct?.[name];
  if (distinct && distinct.length > 1) return distinct;
  return req.headers[name];
}

/**
 * Requires a valid access token with `options.scopes`, under the route's delegation rules. Answers RFC 6750 / RFC
 * 9449 errors itself (401 invalid_token / invalid_dpop_proof / use_dpop_nonce, 403 insufficient_scope with the
 * missing scopes, 400 invalid_request, each with its WWW-Authenticate) and 503 when the issuer's metadata or keys
 * cannot be fetched; other errors (a failing revocation source or replay store) go to `next(err)`.
 */
export function requireAccess(verifier: Verifier, options: RequireAccessOptions = {}): Middleware {
  if (options.resourceMetadataUrl !== undefined)
    secureUrl(options.resourceMetadataUrl, 'requireAccess resourceMetadataUrl');
  const origin = (options.origin ?? defaultOrigin(verifier))?.replace(/\/$/, '');
  if (origin !== undefined) secureUrl(origin, 'requireAccess origin');
  else if (verifier.dpopAlgorithms.length) {
    throw new TypeError(
      "requireAccess: origin (the API's public origin, for DPoP htu) is required when the audience is not an http(s) URL; or create the verifier with dpop: false",
    );
  }
  const challenge = verifier.challengeOptions({
    ...(options.realm !== undefined ? { realm: options.realm } : {}),
    ...(options.resourceMetadataUrl !== undefined ? { resourceMetadata: options.resourceMetadataUrl } : {}),
  });
  const rules: AccessRules = {
    ...(options.scopes ? { scopes: [...options.scopes] } : {}),
    ...(options.delegation ? { delegation: options.delegation } : {}),
    ...(options.agentTypes ? { agentTypes: [...options.agentTypes] } : {}),
    ...(options.requireProvenActors ? { requireProvenActors: true } : {}),
  };
  return (req, res, next) => {
    const authorization = single(req, 'authorization');
    if (Array.isArray(authorization)) {
      const err = new ResourceServerError(
        'invalid_request',
        'malformed_authorization',
        'more than one Authorization header was sent',
      );
      answer(res, err);
      return;
    }
    const path = req.originalUrl ?? req.url ?? '/';
    verifier
      .verify(
        {
          authorization: authorization as string | undefined,
          dpop: single(req, 'dpop'),
          method: req.method,
          // Without DPoP (no origin needed), a bound token is refused before the URL is read.
          url: `${origin ?? ''}${path}`,
        },
        rules,
      )
      .then(
        (access) => {
          accesses.set(req, access);
          (req as { auth?: Access }).auth = access;
          next();
        },
        (err: unknown) => {
          if (err instanceof ResourceServerError) answer(res, err);
          else if (err instanceof VerifierUnavailableError) {
            res.status(503);
            res.setHeader('Retry-After', '5');
            res.json({
              error: 'temporarily_unavailable',
              error_description: 'the authorization server cannot be reached; retry later',
            });
          } else next(err);
        },
      );
  };

  function answer(res: HttpResponse, err: ResourceServerError) {
    res.status(err.status);
    for (const [name, value] of Object.entries(err.headers(challenge))) res.setHeader(name, value);
    res.setHeader('Cache-Control', 'no-store');
    res.json(err.toJSON());
  }
}

/**
 * Serves RFC 9728 metadata at `/.well-known/oauth-protected-resource` and at the path-suffixed form of the resource
 * (`/.well-known/oauth-protected-resource/orders` for `https://api.example/orders`), GET and HEAD, readable from any
 * origin (CORS `*`: it is public). Mount with `app.use(...)` at the root; other requests pass through.
 */
export function protectedResourceMetadataHandler(metadata: ProtectedResourceMetadata): Middleware {
  const paths = new Set(['/.well-known/oauth-protected-resource', protectedResourceMetadataPath(metadata.resource)]);
  const doc = structuredClone(metadata);
  return (req, res, next) => {
    const url = req.originalUrl ?? req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (!paths.has(path) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      next();
      return;
    }
    res.status(200);
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'HEAD') res.end();
    else res.json(doc);
  };
}

export type { Access, AccessRules, Verifier } from './verifier';
export type { ProtectedResourceMetadata } from './protected-resource-metadata';
