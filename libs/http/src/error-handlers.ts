import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { OAuthError, ProblemError, mapMongoError, problems } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { isJsonTooDeep } from './json-body';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** Errors that express's body parsers raise for bad input: they are the client's fault, never a 500. */
function bodyParserStatus(err: unknown): number | undefined {
  const e = err as HttpLikeError | null | undefined; // anything can be thrown
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && e?.expose !== false) return status;
  return undefined;
}

/** Whether a body the JSON parser refused is JSON all the same (a string, number or null: strict mode wants an object). */
function isJsonText(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

function log(req: Request, logger: Logger): Logger {
  return ((req as Request & { log?: Logger }).log ?? logger) as Logger;
}

/** RFC 6749 JSON errors, for oidc-core's own routes and the sidecar. */
export function oauthErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let error: OAuthError;
    if (err instanceof OAuthError) error = err;
    else {
      const status = bodyParserStatus(err);
      error =
        status === 413
          ? new OAuthError('invalid_request', 'request body too large', 413)
          : status !== undefined
            ? new OAuthError('invalid_request', (err as Error).message || 'malformed request', 400)
            : new OAuthError('server_error', 'an unexpected error occurred', 500, { cause: err });
    }
    if (error.status >= 500 && error.status !== 503) log(req, logger).error({ err }, 'unhandled error');
    sendOAuthError(res, error);
  };
}

export function sendOAuthError(res: ServerResponse, error: OAuthError): void {
  if (res.headersSent) return;
  // Plain node calls: this also answers requests served outside express (oidc-core's token endpoint).
  res.statusCode = error.status;
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  if (error.status === 401 && error.error === 'invalid_token') {
    res.setHeader(
      'WWW-Authenticate',
      `Bearer error="invalid_token", error_description="${error.message.replace(/"/g, "'")}"`,
    );
  }
  const body = JSON.stringify(error.toJSON());
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** RFC 9457 problem+json, for the management API. */
export function problemErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let error: ProblemError;
    const mapped = mapMongoError(err);
    if (mapped instanceof ProblemError) error = mapped;
    else {
      const status = bodyParserStatus(err);
      if (status === 413) error = new ProblemError('payload-too-large', 413, 'request body too large');
      else if (status === 415) error = new ProblemError('unsupported-media-type', 415, 'use application/json');
      // The router's own 400: a path segment that is not valid percent-encoding.
      else if (err instanceof URIError)
        error = problems.validation('the request path is not valid', [{ name: 'path', reason: err.message }]);
      else if (isJsonTooDeep(err))
        error = problems.validation('the request body is nested too deeply', [
          { name: 'body', reason: `at most ${err.maxDepth} levels of arrays and objects` },
        ]);
      else if (status !== undefined && isJsonText((err as { body?: unknown }).body))
        error = problems.validation('the request body must be a JSON object', [
          { name: 'body', reason: 'a JSON object is expected' },
        ]);
      else if (status !== undefined)
        error = problems.validation('the request body is not valid JSON', [
          { name: 'body', reason: (err as Error).message },
        ]);
      else error = problems.internal(err);
    }
    if (error.status >= 500 && error.status !== 503) log(req, logger).error({ err }, 'unhandled error');
    sendProblem(req, res, error);
  };
}

export function sendProblem(req: Request, res: Response, error: ProblemError): void {
  if (res.headersSent) return;
  res.status(error.status >= 500 && error.status !== 503 ? 500 : error.status);
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  res.setHeader('Cache-Control', 'no-store');
  res.type('application/problem+json');
  res.send(JSON.stringify(error.toJSON(req.originalUrl.split('?')[0])));
}

/** Final 404s in each family's format. */
export const oauthNotFound: RequestHandler = (_req, res) => {
  sendOAuthError(res, new OAuthError('not_found', 'no such endpoint', 404));
};
export const problemNotFound: RequestHandler = (req, res) => {
  sendProblem(req, res, problems.notFound('no such resource'));
};
