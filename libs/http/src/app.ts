import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import { pinoHttp } from 'pino-http';
import proxyaddr from 'proxy-addr';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Logger } from '@idp/logger';

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
   * Requests that get no per-request logger (pino-http) because the route logs one structured line of its own (the
   * sidecar's decision record): pino-http builds a child logger for every request it sees, which costs more than
   * the rest of the middleware stack on a hot internal route.
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
 * The express app every service starts from: helmet, a request id, pino-http, request metrics,
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
  const securityHeaders = helmet({
    contentSecurityPolicy: options.contentSecurityPolicy ?? {
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    },
    crossOriginResourcePolicy: { policy: 'same-site' },
    xFrameOptions: { action: 'deny' },
  });
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

  const requestLog = pinoHttp({
    logger: options.logger,
    genReqId: (req) => (req as unknown as { id: string }).id,
    autoLogging: { ignore: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' },
    customLogLevel: (_req, res, err) => (res.statusCode >= 500 && res.statusCode !== 503 ? 'error' : err || res.statusCode >= 400 ? 'info' : 'debug'),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: stripQuery(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      err: (err: Error) => ({ type: err.name, message: err.message }),
    },
  });
  const skipRequestLog = options.skipRequestLog;
  app.use(skipRequestLog ? (req: Request, res: Response, next: NextFunction) => (skipRequestLog(req) ? next() : requestLog(req, res, next)) : requestLog);

  const prelude: HttpApp['prelude'] = (req, res, route, next) => {
    (req as Observed).routeLabel = route;
    securityHeaders(req, res, (err?: unknown) => {
      if (err) throw err;
      // helmet's X-Powered-By removal is moot here: express never set it.
      observe(req, res, () => (skipRequestLog?.(req) ? next() : requestLog(req, res, next)));
    });
  };
  const clientIp: HttpApp['clientIp'] = (req) => proxyaddr(req, app.get('trust proxy fn') as (addr: string, i: number) => boolean);

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

/** Query strings may carry codes, tokens or hints: never log them. */
function stripQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?[redacted]`;
}
