import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import proxyaddr from 'proxy-addr';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Logger } from '@idp/logger';
import { requestLog } from './request-log';

export interface ReadinessCheck {
  name: string;
  /** Resolves when the dependency is usable; rejects (or times out) otherwise. */
  check: () => Promise<void>;
}

export interface HttpAppOptions {
  service: string;
  logger: Logger;
  readiness?: ReadinessCheck[];
  /** A registry the service also registers its own metrics on; a fresh one when omitted. */
  registry?: Registry;
  /** Trust X-Forwarded-* from this many proxy hops (express `trust proxy`); false trusts none. */
  trustProxy?: boolean | number | string;
  /** Helmet's Content-Security-Policy; pages that render HTML pass their own. */
  contentSecurityPolicy?: HelmetOptions['contentSecurityPolicy'];
  /**
   * Requests that get no request log (no completion line, no `req.log`) because the route logs one structured line
   * of its own (the sidecar's decision record).
   */
  skipRequestLog?: (req: IncomingMessage) => boolean;
}

export interface HttpApp {
  app: Express;
  registry: Registry;
  /**
   * What the app does to every request before its routes (security headers, request id, metrics, request log),
   * for requests served without express: a hot endpoint whose handler is not express (node-oidc-provider's Koa
   * callback) is much cheaper on plain node objects, because express re-prototypes every request and response it
   * handles and code that touches them then runs far slower (bench/README.md). `route` is the metrics label.
   */
  prelude: (req: IncomingMessage, res: ServerResponse, route: string, next: () => void) => void;
  /** The client address as the app resolves it (express `req.ip`, under the same trust-proxy setting). */
  clientIp: (req: IncomingMessage) => string;
}

/** A request the prelude has seen, with the metrics label of its route when it was not routed by express. */
type Observed = IncomingMessage & { routeLabel?: string };

const READINESS_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/**
 * The express app every service starts from: helmet, a request id, the request log, request metrics,
 * /healthz (process alive), /readyz (dependencies answer) and /metrics (Prometheus).
 * Routes are added by the caller; the caller finishes with one of the error middlewares.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = express();
  const registry = options.registry ?? new Registry();
  registry.setDefaultLabels({ service: options.service });
  collectDefaultMetrics({ register: registry });

  app.disable('x-powered-by');
  app.set('trust proxy', options.trustProxy ?? false);
  const securityHeaders = fixedHeaders(
    helmet({
      contentSecurityPolicy: options.contentSecurityPolicy ?? {
        directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      },
      crossOriginResourcePolicy: { policy: 'same-site' },
      xFrameOptions: { action: 'deny' },
    }),
    options.contentSecurityPolicy,
  );
  app.use(securityHeaders);

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  // Plain node objects only (no express helpers): the prelude runs it outside express too.
  const observe = (req: Observed, res: ServerResponse, next: () => void) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[\w.-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', id);
    req.id = id;
    const end = duration.startTimer();
    res.on('finish', () => {
      const route = req.routeLabel ?? routeLabel(req as Request);
      end({ method: req.method, route });
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  app.use((req: Request, res: Response, next: NextFunction) => observe(req, res, next));

  const skipRequestLog = options.skipRequestLog;
  const log = requestLog({
    logger: options.logger,
    ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
  });
  const maybeLog = skipRequestLog
    ? (req: IncomingMessage, res: ServerResponse, next: () => void) =>
        skipRequestLog(req) ? next() : log(req, res, next)
    : log;
  app.use((req: Request, res: Response, next: NextFunction) => maybeLog(req, res, next));

  const prelude: HttpApp['prelude'] = (req, res, route, next) => {
    (req as Observed).routeLabel = route;
    securityHeaders(req, res, () => observe(req, res, () => maybeLog(req, res, next)));
  };
  const clientIp: HttpApp['clientIp'] = (req) =>
    proxyaddr(req, app.get('trust proxy fn') as (addr: string, i: number) => boolean);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/readyz', async (_req, res) => {
    const checks = options.readiness ?? [];
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          await withTimeout(c.check(), READINESS_TIMEOUT_MS, c.name);
          return { name: c.name, ok: true };
        } catch (err) {
          return { name: c.name, ok: false, error: (err as Error).message };
        }
      }),
    );
    const ready = results.every((r) => r.ok);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks: results });
  });

  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  });

  return { app, registry, prelude, clientIp };
}

/** Route template for metrics (never the raw URL, which would explode label cardinality). */
function routeLabel(req: Request): string {
  const route = (req as Request & { route?: { path?: string } }).route?.path;
  if (typeof route === 'string') return req.baseUrl + route;
  return req.baseUrl ? `${req.baseUrl.replace(/\/auth\/\d+/, '/auth/:tenantId')}/*` : 'unmatched';
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * Helmet's headers, worked out once: with a fixed policy they are the same on every response, and setting a list of
 * them costs less than running helmet's dozen middlewares per request. A Content-Security-Policy with a directive
 * computed per request (a nonce) keeps helmet running per request.
 */
function fixedHeaders(middleware: Middleware, csp: HttpAppOptions['contentSecurityPolicy']): Middleware {
  const perRequest =
    typeof csp === 'object' &&
    Object.values(csp.directives ?? {}).some(
      (v) => typeof v === 'function' || (Array.isArray(v) && v.some((x) => typeof x === 'function')),
    );
  if (perRequest) return middleware;
  const headers = new Map<string, string | number | readonly string[]>();
  const recorder = {
    // Lower-case names: node keys its header table by the lower-case name, and then has nothing to convert.
    setHeader: (name: string, value: string | number | readonly string[]) =>
      void headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => void headers.delete(name.toLowerCase()),
  };
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (err) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
  });
  const list = [...headers];
  return (_req, res, next) => {
    for (const [name, value] of list) res.setHeader(name, value);
    // express sets X-Powered-By unless disabled (it is): nothing to remove.
    next();
  };
}
