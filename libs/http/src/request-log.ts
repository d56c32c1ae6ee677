import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@idp/logger';

export type RequestLogLevel = 'debug' | 'info' | 'error';

export interface RequestLogOptions {
  logger: Logger;
  /** Requests that get no completion line (health and metrics probes). */
  ignore?: (req: IncomingMessage) => boolean;
}

/**
 * One line per finished request ("request completed", "request errored" for a 5xx, "request aborted"
 * when the client went away first), with the request id, method, URL without its query, status and response time;
 * a 2xx/3xx is `debug`, a 4xx or 503 `info`, other 5xx `error`.
 *
 * `req.log` is the request's logger (the same fields bound), built the first time a handler asks for it. pino-http,
 * which this replaces, builds that child logger for every request up front, and pino runs its redaction over the
 * bindings of each child: on the token endpoint that was a few percent of the CPU and about a tenth of the garbage
 * per request, for a logger that a successful request almost never uses (bench/README.md). The completion line is
 * only assembled when its level is enabled.
 */
export function requestLog(
  options: RequestLogOptions,
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const { logger, ignore } = options;
  return (req, res, next) => {
    const start = Date.now();
    // The URL as the request arrived: routers rewrite req.url on the way.
    const state: LogState = { logger, id: req.id, method: req.method, url: req.url ?? '' };
    (req as LogHolder)[LOG_STATE] = state;
    Object.defineProperty(req, 'log', { configurable: true, enumerable: false, get: lazyLog });
    if (!ignore?.(req)) {
      res.once('close', () => {
        const aborted = !res.writableFinished;
        const level = completionLevel(res.statusCode, aborted);
        if (!logger.isLevelEnabled(level)) return;
        logger[level](
          { req: requestFields(state), res: { statusCode: res.statusCode }, responseTime: Date.now() - start },
          aborted ? 'request aborted' : res.statusCode >= 500 ? 'request errored' : 'request completed',
        );
      });
    }
    next();
  };
}

const LOG_STATE = Symbol('idp.requestLog');
interface LogState {
  logger: Logger;
  id: string | undefined;
  method: string | undefined;
  url: string;
  child?: Logger;
}
type LogHolder = IncomingMessage & { [LOG_STATE]: LogState };

function requestFields(state: LogState): { id: string | undefined; method: string | undefined; url: string } {
  return { id: state.id, method: state.method, url: stripQuery(state.url) };
}

/**
 * `req.log`, one function for every request: V8 keeps an accessor's getter in the old generation, and a getter
 * made per request would keep what it closes over alive until a major GC (see oidc-core's
 * `releaseRequestAfterResponse`).
 */
function lazyLog(this: LogHolder): Logger {
  const state = this[LOG_STATE];
  return (state.child ??= state.logger.child({ req: requestFields(state) }));
}

/** The level of a request's completion line. */
export function completionLevel(status: number, aborted = false): RequestLogLevel {
  if (status >= 500 && status !== 503) return 'error';
  return aborted || status >= 400 ? 'info' : 'debug';
}

/** Query strings may carry codes, tokens or hints: never log them. */
function stripQuery(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?[redacted]`;
}

declare module 'http' {
  interface IncomingMessage {
    /** The request id (`x-request-id` when the caller sent a valid one), set before any route runs. */
    id?: string;
    /** The request's logger, bound to its id, method and URL (see `requestLog`). */
    log?: Logger;
  }
}
