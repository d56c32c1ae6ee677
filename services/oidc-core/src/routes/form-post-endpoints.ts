/**
 * POST at the browser endpoints: OpenID Connect Core 3.1.2.1 (the authorization endpoint MUST support GET and POST,
 * form-serialized) and RP-Initiated Logout 1.0 section 2 (the same at the logout endpoint).
 *
 * node-oidc-provider v9 routes POST at /authorize and /session/end only with `enableHttpPostMethods`, which requires
 * SameSite=None on its long-lived cookies: the relying party's form posts cross-site, and a browser sends no Lax
 * cookie with a cross-site POST, so the provider would not see the person's session (no single sign-on, prompt=none
 * answered login_required). Loosening the session cookie is not worth that; instead a form POST is answered with
 * 303 See Other to the same endpoint with the form's parameters as the query. The browser follows it as a top-level
 * GET, which carries the Lax session cookie, and the provider validates the parameters exactly as for a GET request
 * (repeated parameters included). As at node-oidc-provider's own POST routes, a POST request's parameters are those
 * of its form body; a query string on the POST is not read.
 *
 * The form is bounded (8 KiB, 100 parameters): its parameters become a URL, and a longer request line would not
 * pass the ingress or Node's header limit. Large requests belong in a pushed authorization request (RFC 9126).
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { TenantContext } from '../tenants/tenant-pool';
import { PAGE_CSP, renderErrorPage } from '../views/pages';

/** Path of each endpoint under the tenant's mount. */
export const FORM_POST_ENDPOINTS = ['/authorize', '/session/end'] as const;

const FORM_TYPE = 'application/x-www-form-urlencoded';
export const FORM_POST_LIMIT_BYTES = 8 * 1024;
const MAX_PARAMETERS = 100;

/** Refusals of a POST to a browser endpoint: an error page for the person, never a redirect to the client. */
function sendError(req: Request, res: Response, status: number, description: string): void {
  const tenantName = (req as unknown as { tenant?: TenantContext }).tenant?.tenant.name;
  res
    .status(status)
    .set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
    .type('html')
    .send(renderErrorPage('invalid_request', description, tenantName));
}

/**
 * The form's parameters, in order, as a query string (URLSearchParams re-encodes every name and value, so nothing
 * of the body reaches the Location header unescaped); undefined for a form over the parameter limit.
 */
export function formAsQuery(body: string): string | undefined {
  const params = new URLSearchParams(body);
  let count = 0;
  params.forEach(() => void count++);
  return count > MAX_PARAMETERS ? undefined : params.toString();
}

export function formPostEndpoints(): Router {
  const router = Router({ mergeParams: true });
  const readForm = express.text({ type: FORM_TYPE, limit: FORM_POST_LIMIT_BYTES, defaultCharset: 'utf-8' });

  router.post([...FORM_POST_ENDPOINTS], (req: Request, res: Response, next: NextFunction) => {
    if (!req.is(FORM_TYPE)) {
      sendError(req, res, 400, `a POST request to this endpoint must be ${FORM_TYPE}`);
      return;
    }
    readForm(req, res, (err?: unknown) => {
      if (err) {
        const status = (err as { status?: number }).status;
        if (status === 413)
          sendError(
            req,
            res,
            413,
            `the form is larger than ${FORM_POST_LIMIT_BYTES} bytes; push large requests with a pushed authorization request`,
          );
        else if (typeof status === 'number' && status >= 400 && status < 500)
          sendError(req, res, 400, 'the form body could not be read');
        else next(err);
        return;
      }
      const query = formAsQuery(typeof req.body === 'string' ? req.body : '');
      if (query === undefined) {
        sendError(req, res, 400, `the form has more than ${MAX_PARAMETERS} parameters`);
        return;
      }
      res.set('Cache-Control', 'no-store');
      res.redirect(303, `${req.baseUrl}${req.path}${query ? `?${query}` : ''}`);
    });
  });

  return router;
}
