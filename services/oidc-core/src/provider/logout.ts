/**
 * The provider's own end-session pages (features.rpInitiatedLogout): GET /session/end renders `logoutSource`
 * with the provider's xsrf secret in the session; the form posts to /session/end/confirm, which ends the session
 * and redirects to post_logout_redirect_uri with state.
 *
 * /session/end always logs out at once (spec): `logoutSource` submits the confirmation form itself. Only when the
 * browser arrives from /logout/confirm and that request asked for the prompt (routes/logout.ts sets a short-lived
 * marker cookie, read and cleared here) does it render the confirmation page with the countdown instead.
 *
 * /logout/confirm, not /session/end, is the end_session_endpoint that discovery advertises
 * (advertiseLogoutConfirmation), so a relying party's standard logout call reaches the confirmation.
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { newNonce, pageCsp, renderLogoutAutoSubmit, renderLogoutPrompt, renderSignedOutPage } from '../views/pages';

export const logoutPromptCookie = (tenantId: number): string => `_logout_prompt_${tenantId}`;

/** The marker's value (routes/logout.ts writes it): the logout request asked for the confirmation page. */
export const PROMPT_MARKER = '1';

/** The confirmation page's path under the tenant's mount, advertised as end_session_endpoint. */
export const LOGOUT_CONFIRM_PATH = '/logout/confirm';

/**
 * Discovery names the confirmation page as `end_session_endpoint` (under the mount the document was asked on,
 * like every other endpoint), where node-oidc-provider would name its immediate /session/end.
 */
export function advertiseLogoutConfirmation(provider: Provider): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 200 || ctx.path !== '/.well-known/openid-configuration') return;
    const body = ctx.body as { end_session_endpoint?: unknown } | undefined;
    if (typeof body?.end_session_endpoint === 'string')
      body.end_session_endpoint = body.end_session_endpoint.replace(/\/session\/end$/, LOGOUT_CONFIRM_PATH);
  });
}

/** Query parameter "Stay signed in" adds next to state, so the application knows nothing was signed out. */
export const STAY_SIGNED_IN_PARAM = { name: 'logout', value: 'cancelled' } as const;

export interface LogoutPageOptions {
  tenantId: number;
  tenantName: string;
  /** Countdown of the confirmation page before it signs out by itself. */
  promptSeconds: number;
}

/** `/auth/{t}` or `/_api/auth/{t}` (path only) of the current request, from the provider's own URL builder. */
export function endSessionBase(ctx: KoaContextWithOIDC): string {
  return new URL(ctx.oidc.urlFor('end_session')).pathname.replace(/\/session\/end$/, '');
}

function securityHeaders(ctx: KoaContextWithOIDC, csp: string): void {
  ctx.set('Content-Security-Policy', csp);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
}

/** Where "Stay signed in" leads: the application's post-logout URI with state, or our "still signed in" page. */
export function stayHref(
  base: string,
  postLogoutRedirectUri: string | undefined,
  state: unknown,
  clientId: string | undefined,
): string {
  if (postLogoutRedirectUri) {
    const url = new URL(postLogoutRedirectUri);
    if (typeof state === 'string') url.searchParams.set('state', state);
    url.searchParams.set(STAY_SIGNED_IN_PARAM.name, STAY_SIGNED_IN_PARAM.value);
    return url.toString();
  }
  return `${base}/logout/stayed${clientId ? `?client_id=${encodeURIComponent(clientId)}` : ''}`;
}

export function logoutSource(o: LogoutPageOptions) {
  return async (ctx: KoaContextWithOIDC, _form: string): Promise<void> => {
    const session = ctx.oidc.session!;
    const state = (session.state ?? {}) as { secret?: string; postLogoutRedirectUri?: string; state?: unknown };
    const action = ctx.oidc.urlFor('end_session_confirm');
    const base = endSessionBase(ctx);
    const nonce = newNonce();
    const cookieName = logoutPromptCookie(o.tenantId);
    const marker = ctx.cookies.get(cookieName, { signed: false });
    if (marker) ctx.cookies.set(cookieName, null, { path: `${base}/session/end`, signed: false });
    const prompt = marker === PROMPT_MARKER;
    const targets = state.postLogoutRedirectUri ? [state.postLogoutRedirectUri] : [];
    securityHeaders(ctx, pageCsp({ nonce, formTargets: targets }));
    if (!prompt) {
      ctx.body = renderLogoutAutoSubmit({ action, xsrf: state.secret ?? '', tenantName: o.tenantName, nonce });
      return;
    }
    // The person is asked: what follows their answer may go on by itself (an upstream provider's sign-out,
    // upstream/logout.ts), which a sign-out nobody confirmed (a link to /session/end) may not.
    (session.state as Record<string, unknown>).prompted = true;
    const client = ctx.oidc.client;
    const otherIds = Object.keys(session.authorizations ?? {}).filter((id) => id !== client?.clientId);
    const otherApps: string[] = [];
    for (const id of otherIds) {
      const other = await ctx.oidc.provider.Client.find(id).catch(() => undefined);
      if (other) otherApps.push(other.clientName ?? other.clientId);
    }
    ctx.body = renderLogoutPrompt({
      action,
      xsrf: state.secret ?? '',
      tenantName: o.tenantName,
      clientName: client ? (client.clientName ?? client.clientId) : undefined,
      otherApps: otherApps.sort((a, b) => a.localeCompare(b)),
      stayHref: stayHref(base, state.postLogoutRedirectUri, state.state, client?.clientId),
      seconds: o.promptSeconds,
      nonce,
    });
  };
}

export function postLogoutSuccessSource(o: LogoutPageOptions) {
  return (ctx: KoaContextWithOIDC): void => {
    securityHeaders(ctx, pageCsp());
    const client = ctx.oidc.client;
    ctx.body = renderSignedOutPage({
      tenantName: o.tenantName,
      clientName: client ? (client.clientName ?? client.clientId) : undefined,
    });
  };
}
