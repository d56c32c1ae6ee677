import type { IncomingMessage, ServerResponse } from 'node:http';
import { OAuthError } from '@idp/errors';
import type { TenantDoc } from '@idp/db';
import { PAGE_CSP, renderErrorPage } from '../views/pages';

/** A tenant stored before `enabled` existed is enabled; only an explicit false disables it. */
export const tenantDisabled = (tenant: Pick<TenantDoc, 'enabled'>): boolean => tenant.enabled === false;

/**
 * What a disabled tenant still answers: introspection (RFC 7662; the provider authenticates the caller and every token
 * is then `active: false`, provider/introspection.ts) and revocation (RFC 7009: it can only end access).
 */
const STILL_ANSWERED = /^\/(token\/introspection|token\/revocation)(?:\?.*)?$/;

/**
 * The refusal of a disabled tenant's request, or undefined when the request goes on. `path` is the path below the
 * tenant's mount. An OAuth error (RFC 6749 section 5.2's JSON form) for machine endpoints, 403 access_denied: the
 * client did nothing wrong and retrying will not help until the platform's administrators enable the tenant again.
 */
export function disabledTenantRefusal(tenant: Pick<TenantDoc, 'enabled'>, method: string, path: string) {
  if (!tenantDisabled(tenant)) return undefined;
  if (method === 'POST' && STILL_ANSWERED.test(path)) return undefined;
  return new OAuthError('access_denied', 'tenant disabled', 403);
}

/**
 * A browser's page request (authorization endpoint, sign-in, account and device pages) gets a page rather than JSON.
 * The authorization endpoint does not redirect the error back (RFC 6749 section 4.1.2.1): the client and its
 * redirect_uri are not checked for a tenant that answers nothing.
 */
export function wantsPage(req: IncomingMessage): boolean {
  return req.method === 'GET' && /\btext\/html\b/.test(req.headers.accept ?? '');
}

export function sendDisabledPage(res: ServerResponse, tenantName: string): void {
  res.statusCode = 403;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Security-Policy', PAGE_CSP);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Frame-Options', 'DENY');
  res.end(
    renderErrorPage('access_denied', 'this organisation has been disabled by the platform administrators', tenantName),
  );
}
