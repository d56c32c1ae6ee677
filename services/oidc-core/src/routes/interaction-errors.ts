import type { NextFunction, Request, Response } from 'express';
import type { TenantContext } from '../tenants/tenant-pool';
import { pageCsp, renderErrorPage } from '../views/pages';

function send(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': pageCsp(), 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
    .type('html')
    .send(html);
}

/** What the interaction pages answer when a step fails: an error page, never a stack trace. */
export function interactionErrorPage(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  // Whatever was thrown or passed to next(): nothing is known of its shape.
  const e = (err ?? {}) as {
    name?: string;
    error?: string;
    error_description?: string;
    statusCode?: number;
    status?: number;
    expose?: boolean;
  };
  const tenantName = (req as unknown as { tenant?: TenantContext }).tenant?.tenant.name;
  if (e.name === 'SessionNotFound' || e.error === 'invalid_request' || (e.statusCode ?? 500) < 500) {
    send(
      res,
      e.statusCode ?? e.status ?? 400,
      renderErrorPage(
        e.error ?? 'invalid_request',
        e.error_description ?? 'the sign-in request has expired or is not valid',
        tenantName,
      ),
    );
    return;
  }
  (res.locals as { error?: unknown }).error = err;
  send(res, 500, renderErrorPage('server_error', 'an unexpected error occurred', tenantName));
  (req as unknown as { log?: { error: (o: object, m: string) => void } }).log?.error({ err }, 'interaction failed');
}
