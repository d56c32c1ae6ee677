/**
 * Logout confirmation (spec "Logout confirmation"), the end_session_endpoint that discovery advertises
 * (RP-Initiated Logout 1.0): GET or form POST /logout/confirm validates the request, then sends the browser to
 * the provider's own end-session endpoint, which keeps the xsrf secret in the session and renders the page
 * (provider/logout.ts). Nothing here ends a session: only the provider's /session/end/confirm does, after the
 * person confirms or the countdown runs out. Every refusal is an error page, never a redirect.
 *
 *   client_id                 branding and the client's showLogoutPrompt (unknown client: error page)
 *   post_logout_redirect_uri  must be registered for the client, else an error page and no redirect
 *   id_token_hint             names the client only when client_id is absent; must verify (this tenant's key,
 *                             signature intact, never alg none) and be issued to client_id, whether used or not
 *   state                     passed through untouched
 *   ui_locales                accepted and passed on (the pages are in English)
 *   show_prompt               true / false overrides showLogoutPrompt
 *
 * Whether the person is asked (spec "Logout confirmation"): show_prompt, else the client's showLogoutPrompt
 * (default true, also when no client is named); false goes straight to /session/end, which signs out at once,
 * with or without id_token_hint. Asking by default is what RP-Initiated Logout 1.0 section 2 requires of an OP
 * when no id_token_hint is given; a client that opts out takes that choice on itself (a link to /session/end
 * signs out at once anyway).
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { TenantContext } from '../tenants/tenant-pool';
import { CLIENT_PROPS } from '../provider/client-metadata';
import { LOGOUT_CONFIRM_PATH, PROMPT_MARKER, logoutPromptCookie } from '../provider/logout';
import { PAGE_CSP, renderErrorPage, renderStillSignedInPage } from '../views/pages';

const PARAMS = [
  'client_id',
  'post_logout_redirect_uri',
  'id_token_hint',
  'state',
  'ui_locales',
  'show_prompt',
] as const;
type Params = Partial<Record<(typeof PARAMS)[number], string>>;
const FORM_TYPE = 'application/x-www-form-urlencoded';
type ProviderClient = NonNullable<Awaited<ReturnType<TenantContext['provider']['Client']['find']>>>;

/** A refused logout request: shown as an error page, never redirected. */
class LogoutRequestError extends Error {
  constructor(readonly description: string) {
    super(description);
  }
}

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

function sendPage(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
    .type('html')
    .send(html);
}

function queryOf(requestTarget: string): URLSearchParams {
  try {
    // Only the query is read: the base stands in for the origin the request target is relative to.
    return new URL(requestTarget, 'http://request.invalid').searchParams;
  } catch {
    throw new LogoutRequestError('the request URL could not be read');
  }
}

/**
 * The request's parameters: the query of a GET, the form body of a POST (as at the provider's endpoints). The
 * query is everything after the first `?` (RFC 3986 section 3.4: a later `?` is data), read by the WHATWG URL
 * parser, so `state=a?b` stays `a?b` and a post_logout_redirect_uri with a query of its own is compared whole.
 */
function readParams(req: Request): Params {
  const source =
    req.method === 'POST'
      ? new URLSearchParams(typeof req.body === 'string' ? req.body : '')
      : queryOf(req.originalUrl);
  const out: Params = {};
  for (const name of PARAMS) {
    const all = source.getAll(name);
    if (all.length === 0) continue;
    if (all.length > 1) throw new LogoutRequestError(`${name} must be given once`);
    const v = all[0]!;
    if (v.length > 8192) throw new LogoutRequestError(`${name} is too long`);
    out[name] = v;
  }
  if (out.show_prompt !== undefined && out.show_prompt !== 'true' && out.show_prompt !== 'false') {
    throw new LogoutRequestError('show_prompt must be true or false');
  }
  return out;
}

/** The client an ID token hint was issued to, after the provider verified it (signature, issuer, audience). */
async function clientOfHint(tenant: TenantContext, hint: string): Promise<ProviderClient> {
  let aud: unknown;
  try {
    const header = decodeProtectedHeader(hint);
    if (typeof header.alg !== 'string' || header.alg.toLowerCase() === 'none') throw new Error('unsigned');
    aud = decodeJwt(hint).aud;
  } catch {
    throw new LogoutRequestError('id_token_hint is not a signed ID token');
  }
  if (typeof aud !== 'string') throw new LogoutRequestError('id_token_hint is not valid');
  const client = await tenant.provider.Client.find(aud).catch(() => undefined);
  if (!client) throw new LogoutRequestError('id_token_hint is not valid');
  try {
    await tenant.provider.IdToken.validate(hint, client);
  } catch {
    throw new LogoutRequestError('id_token_hint is not valid');
  }
  return client;
}

export function logoutRoutes(): Router {
  const router = Router({ mergeParams: true });

  const readForm = express.text({ type: FORM_TYPE, limit: 32 * 1024, defaultCharset: 'utf-8' });
  /** RP-Initiated Logout 1.0 section 2: the logout endpoint takes a form POST as well as GET. */
  const formBody = (req: Request, res: Response, next: NextFunction): void => {
    if (!req.is(FORM_TYPE)) {
      next(new LogoutRequestError(`a POST request to this endpoint must be ${FORM_TYPE}`));
      return;
    }
    readForm(req, res, (err?: unknown) => {
      const status = (err as { status?: number } | undefined)?.status;
      next(
        err && typeof status === 'number' && status < 500
          ? new LogoutRequestError('the form body could not be read')
          : err,
      );
    });
  };

  router.get(LOGOUT_CONFIRM_PATH, confirm);
  router.post(LOGOUT_CONFIRM_PATH, formBody, confirm);

  async function confirm(req: Request, res: Response, next: NextFunction): Promise<void> {
    try {
      const tenant = tenantOf(req);
      const p = readParams(req);
      const hintClient = p.id_token_hint ? await clientOfHint(tenant, p.id_token_hint) : undefined;
      let client: ProviderClient | undefined;
      if (p.client_id !== undefined) {
        client = await tenant.provider.Client.find(p.client_id).catch(() => undefined);
        if (!client) throw new LogoutRequestError('client_id is not a client of this tenant');
        if (hintClient && hintClient.clientId !== client.clientId)
          throw new LogoutRequestError('id_token_hint was not issued to client_id');
      } else {
        client = hintClient;
      }
      if (p.post_logout_redirect_uri !== undefined) {
        if (!client) throw new LogoutRequestError('post_logout_redirect_uri needs client_id (or id_token_hint)');
        if (!client.postLogoutRedirectUriAllowed(p.post_logout_redirect_uri)) {
          throw new LogoutRequestError('post_logout_redirect_uri is not registered for this client');
        }
      }
      // show_prompt overrides the client's showLogoutPrompt (default true); whether a hint was sent does not matter.
      let showPrompt = true;
      if (p.show_prompt !== undefined) showPrompt = p.show_prompt === 'true';
      else if (client) showPrompt = client[CLIENT_PROPS.showLogoutPrompt] !== false;

      // The provider validates these again (the same rules).
      const target = new URLSearchParams();
      if (p.client_id !== undefined) target.set('client_id', p.client_id);
      if (p.id_token_hint !== undefined) target.set('id_token_hint', p.id_token_hint);
      if (p.post_logout_redirect_uri !== undefined) target.set('post_logout_redirect_uri', p.post_logout_redirect_uri);
      if (p.state !== undefined) target.set('state', p.state);
      if (p.ui_locales !== undefined) target.set('ui_locales', p.ui_locales);

      const cookie = logoutPromptCookie(tenant.tenantId);
      const cookieOptions = {
        path: `${req.baseUrl}/session/end`,
        httpOnly: true,
        sameSite: 'lax' as const,
        secure: req.secure,
      };
      // Without the marker /session/end signs out at once (provider/logout.ts); an older marker must not ask now.
      if (showPrompt) res.cookie(cookie, PROMPT_MARKER, { ...cookieOptions, maxAge: 120_000 });
      else res.clearCookie(cookie, cookieOptions);
      res.set('Cache-Control', 'no-store');
      const query = target.toString();
      res.redirect(303, `${req.baseUrl}/session/end${query ? `?${query}` : ''}`);
    } catch (err) {
      next(err);
    }
  }

  /**
   * Any end-session confirmation consumes the prompt marker (the page may never have been shown: with no session
   * the provider confirms at once), so a later plain /session/end is immediate again. Falls through to the provider.
   */
  router.post('/session/end/confirm', (req, res, next) => {
    res.clearCookie(logoutPromptCookie(tenantOf(req).tenantId), {
      path: `${req.baseUrl}/session/end`,
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
    });
    next();
  });

  /** Where "Stay signed in" leads when the application gave no post_logout_redirect_uri. */
  router.get('/logout/stayed', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const clientId = typeof req.query.client_id === 'string' ? req.query.client_id : undefined;
      const client = clientId ? await tenant.provider.Client.find(clientId).catch(() => undefined) : undefined;
      sendPage(
        res,
        200,
        renderStillSignedInPage({
          tenantName: tenant.tenant.name,
          clientName: client ? (client.clientName ?? client.clientId) : undefined,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.use('/logout', (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const tenantName = (req as unknown as { tenant?: TenantContext }).tenant?.tenant.name;
    if (err instanceof LogoutRequestError) {
      sendPage(res, 400, renderErrorPage('invalid_request', err.description, tenantName));
      return;
    }
    next(err);
  });

  return router;
}

/**
 * Headers for everything the tenant router answers that our pages do not set themselves (provider-rendered
 * HTML: form_post responses, error pages, the no-session logout form): strict CSP, no framing.
 */
export function providerPageHeaders(csp: string) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  };
}
