/**
 * Logout confirmation (spec "Logout confirmation"): GET /logout/confirm validates the request, then sends the
 * browser to the provider's own end-session endpoint, which keeps the xsrf secret in the session and renders the
 * page (provider/logout.ts). Nothing here ends a session: only the provider's /session/end/confirm does, after
 * the person confirms or the countdown runs out.
 *
 *   client_id                 branding and the client's showLogoutPrompt (unknown client: error page)
 *   post_logout_redirect_uri  must be registered for the client, else an error page and no redirect
 *   id_token_hint             names the client only when client_id is absent; must verify (this tenant's key,
 *                             signature intact, never alg none), whether used or not
 *   state                     passed through untouched
 *   show_prompt               true / false overrides showLogoutPrompt
 */
import { Router, type NextFunction, type Request, type Response } from 'express';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { TenantContext } from '../tenants/tenant-pool';
import { CLIENT_PROPS } from '../provider/client-metadata';
import { logoutPromptCookie } from '../provider/logout';
import { PAGE_CSP, renderErrorPage, renderStillSignedInPage } from '../views/pages';

const PARAMS = ['client_id', 'post_logout_redirect_uri', 'id_token_hint', 'state', 'show_prompt'] as const;
type Params = Partial<Record<(typeof PARAMS)[number], string>>;
type ProviderClient = NonNullable<Awaited<ReturnType<TenantContext['provider']['Client']['find']>>>;

/** A refused logout request: shown as an error page, never redirected. */
class LogoutRequestError extends Error {
  constructor(readonly description: string) {
    super(description);
  }
}

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' }).type('html').send(html);
}

function readParams(req: Request): Params {
  const out: Params = {};
  for (const name of PARAMS) {
    const v = req.query[name];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new LogoutRequestError(`${name} must be given once`);
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

  router.get('/logout/confirm', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const p = readParams(req);
      const hintClient = p.id_token_hint ? await clientOfHint(tenant, p.id_token_hint) : undefined;
      let client: ProviderClient | undefined;
      if (p.client_id !== undefined) {
        client = await tenant.provider.Client.find(p.client_id).catch(() => undefined);
        if (!client) throw new LogoutRequestError('client_id is not a client of this tenant');
        if (hintClient && hintClient.clientId !== client.clientId) throw new LogoutRequestError('id_token_hint was not issued to client_id');
      } else {
        client = hintClient;
      }
      if (p.post_logout_redirect_uri !== undefined) {
        if (!client) throw new LogoutRequestError('post_logout_redirect_uri needs client_id (or id_token_hint)');
        if (!client.postLogoutRedirectUriAllowed(p.post_logout_redirect_uri)) {
          throw new LogoutRequestError('post_logout_redirect_uri is not registered for this client');
        }
      }
      let showPrompt = true;
      if (p.show_prompt !== undefined) showPrompt = p.show_prompt === 'true';
      else if (client) showPrompt = client[CLIENT_PROPS.showLogoutPrompt] !== false;

      const target = new URLSearchParams();
      if (p.client_id !== undefined) target.set('client_id', p.client_id);
      else if (p.id_token_hint !== undefined) target.set('id_token_hint', p.id_token_hint);
      if (p.post_logout_redirect_uri !== undefined) target.set('post_logout_redirect_uri', p.post_logout_redirect_uri);
      if (p.state !== undefined) target.set('state', p.state);

      const cookie = logoutPromptCookie(tenant.tenantId);
      const cookieOptions = { path: `${req.baseUrl}/session/end`, httpOnly: true, sameSite: 'lax' as const, secure: req.secure };
      if (showPrompt) res.cookie(cookie, '1', { ...cookieOptions, maxAge: 120_000 });
      else res.clearCookie(cookie, cookieOptions);
      res.set('Cache-Control', 'no-store');
      const query = target.toString();
      res.redirect(303, `${req.baseUrl}/session/end${query ? `?${query}` : ''}`);
    } catch (err) {
      next(err);
    }
  });

  /**
   * Any end-session confirmation consumes the prompt marker (the page may never have been shown: with no session
   * the provider confirms at once), so a later plain /session/end is immediate again. Falls through to the provider.
   */
  router.post('/session/end/confirm', (req, res, next) => {
    res.clearCookie(logoutPromptCookie(tenantOf(req).tenantId), { path: `${req.baseUrl}/session/end`, httpOnly: true, sameSite: 'lax', secure: req.secure });
    next();
  });

  /** Where "Stay signed in" leads when the application gave no post_logout_redirect_uri. */
  router.get('/logout/stayed', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const clientId = typeof req.query.client_id === 'string' ? req.query.client_id : undefined;
      const client = clientId ? await tenant.provider.Client.find(clientId).catch(() => undefined) : undefined;
      sendPage(res, 200, renderStillSignedInPage({ tenantName: tenant.tenant.name, clientName: client ? (client.clientName ?? client.clientId) : undefined }));
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
