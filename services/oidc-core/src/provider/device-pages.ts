/**
 * Device flow pages (features.deviceFlow): the user-code input page, the confirmation page and the success page,
 * in the common design. The provider's `form` strings are not used as-is (their input has no label); the same
 * action URL and xsrf secret are rendered into our own forms.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { pageCsp, renderDeviceConfirmPage, renderDeviceInputPage, renderDeviceSuccessPage } from '../views/pages';

export interface DevicePageOptions {
  tenantName: string;
  /** ttl.Session of the provider (seconds). */
  sessionTtl: number;
}

type SavableSession = { exp?: number; id: string; save(ttl: number): Promise<unknown> };

/**
 * On a failure of the device pages (a wrong or missing code, a stale form) the provider renders the code page
 * with a fresh xsrf secret on the session after its session middleware has finished. For a browser without a
 * session (no cookie, or an expired one) that session was never saved, and the provider's last step then fails
 * with a 500 ("persist can only be called on previously persisted Sessions"). Such a session is saved here, with
 * its cookie, as the session middleware saves a new one (same name and options), so the form works when sent.
 */
async function ensureSavedSession(ctx: KoaContextWithOIDC, ttl: number): Promise<void> {
  const session = ctx.oidc.session as unknown as SavableSession | undefined;
  if (!session || typeof session.exp === 'number') return;
  ctx.oidc.cookies.set(ctx.oidc.provider.cookieName('session'), session.id, { httpOnly: true, sameSite: 'lax' });
  await session.save(ttl);
}

function headers(ctx: KoaContextWithOIDC): void {
  ctx.set('Content-Security-Policy', pageCsp());
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'html';
}

const xsrfOf = (ctx: KoaContextWithOIDC): string =>
  String((ctx.oidc.session?.state as { secret?: string } | undefined)?.secret ?? '');

/** What a person reads for each failure of the code page. */
export function deviceErrorMessage(err: (Error & { userCode?: string }) | undefined): string | undefined {
  if (!err) return undefined;
  if (err.name === 'NoCodeError') return 'Enter the code shown on your device.';
  if (err.name === 'AbortedError')
    return 'The sign-in on your device was cancelled. Start again on the device if you want to connect it.';
  if (err.userCode !== undefined)
    return 'That code is not valid or has expired. Check the code on your device and try again.';
  return 'Something went wrong. Start again on your device.';
}

export function devicePages(o: DevicePageOptions) {
  return {
    userCodeInputSource: async (ctx: KoaContextWithOIDC, _form: string, _out?: unknown, err?: Error): Promise<void> => {
      if (err) await ensureSavedSession(ctx, o.sessionTtl);
      headers(ctx);
      const e = err as (Error & { userCode?: string }) | undefined;
      ctx.body = renderDeviceInputPage({
        action: ctx.oidc.urlFor('code_verification'),
        xsrf: xsrfOf(ctx),
        tenantName: o.tenantName,
        error: deviceErrorMessage(e),
        code: e?.name === 'AbortedError' ? undefined : e?.userCode,
      });
    },
    userCodeConfirmSource: (
      ctx: KoaContextWithOIDC,
      _form: string,
      client: { clientId: string; clientName?: string },
      _deviceInfo: unknown,
      userCode: string,
    ): void => {
      headers(ctx);
      ctx.body = renderDeviceConfirmPage({
        action: ctx.oidc.urlFor('code_verification'),
        xsrf: xsrfOf(ctx),
        userCode,
        clientName: client.clientName ?? client.clientId,
        tenantName: o.tenantName,
      });
    },
    successSource: (ctx: KoaContextWithOIDC): void => {
      headers(ctx);
      const client = ctx.oidc.client;
      ctx.body = renderDeviceSuccessPage({
        clientName: client?.clientName ?? client?.clientId ?? 'the application',
        tenantName: o.tenantName,
      });
    },
  };
}
