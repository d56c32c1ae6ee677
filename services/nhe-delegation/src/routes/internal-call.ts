import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ZodType } from 'zod';
import { OAuthError, oauthErrors } from '@idp/errors';
import { jsonBody } from '@idp/http';
import type { Logger } from '@idp/logger';
import { constantTimeEqual } from '@idp/tokens';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export type ErrorResponder = (err: unknown, req: IncomingMessage, res: ServerResponse) => void;

/** Is this a POST to `path` (any query string)? */
export function isPostTo(req: IncomingMessage, path: string): boolean {
  if (req.method !== 'POST' || !req.url) return false;
  const q = req.url.indexOf('?');
  return (q === -1 ? req.url : req.url.slice(0, q)) === path;
}

export interface InternalCall<T> {
  /** Named in the log line of a refused caller. */
  name: string;
  schema: ZodType<T>;
  run: (input: T) => Promise<{ body: unknown; headers?: Record<string, string> }>;
}

/**
 * A sidecar route, on plain node objects (the service's listener sends it here without express, which would
 * re-prototype the request and response; bench/README.md). It answers oidc-core alone: the caller must come from
 * loopback and present the shared secret (compared in constant time). The JSON body is read with a 64 KB limit and
 * nesting bounded on the raw text before JSON.parse (libs/http json-body.ts); every failure goes to `fail` (the
 * service's RFC 6749 error handler).
 */
export function internalCallHandler<T>(
  call: InternalCall<T>,
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  const readJson = jsonBody({ limit: '64kb' });
  return (req, res) => {
    const header = req.headers['x-sidecar-secret'];
    const presented = typeof header === 'string' ? header : '';
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !constantTimeEqual(presented, sidecarSecret)) {
      // These routes have no per-request log line (the decision record is one): a refused caller gets its own.
      logger.warn(
        { remoteAddress: req.socket.remoteAddress, secretPresented: presented !== '' },
        `${call.name} call refused: not oidc-core`,
      );
      fail(new OAuthError('access_denied', 'the token-exchange sidecar only answers oidc-core', 403), req, res);
      return;
    }
    readJson(req as Parameters<typeof readJson>[0], res as Parameters<typeof readJson>[1], (parseError?: unknown) => {
      if (parseError) {
        fail(parseError, req, res);
        return;
      }
      const parsed = call.schema.safeParse((req as IncomingMessage & { body?: unknown }).body);
      if (!parsed.success) {
        fail(oauthErrors.invalidRequest('malformed forwarded request'), req, res);
        return;
      }
      call.run(parsed.data).then(
        (result) => {
          const body = JSON.stringify(result.body);
          res.statusCode = 200;
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Pragma', 'no-cache');
          for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
          res.setHeader('Content-Type', 'application/json; charset=utf-8');
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        },
        (err: unknown) => fail(err, req, res),
      );
    });
  };
}
