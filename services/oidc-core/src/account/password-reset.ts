/**
 * The person's end of a one-time password reset link an administrator made (management API
 * `POST /tenants/{t}/users/{u}/password-reset`):
 *
 *   GET  /account/password-reset?token=…   the form: a new password, twice
 *   POST /account/password-reset           sets it, uses the link up, ends the user's sign-in sessions
 *
 * The link's secret is the only credential: it is looked up by its SHA-256 digest (the store holds nothing that opens
 * an account), works once, until it expires, and only in its own tenant. A form posted from another site is refused
 * (Origin, Fetch Metadata); the secret travels in the form, never in a URL after the first page. The new password
 * follows NIST SP 800-63B as the management API's does (8 to 256 characters).
 */
import { createHash } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import { endAccountSignIns, type Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import { hashPassword } from '@idp/tokens';
import type { TenantContext } from '../tenants/tenant-pool';
import { escape, layout, pageCsp, renderErrorPage } from '../views/pages';

export const PASSWORD_RESET_PATH = '/account/password-reset';
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 256;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;
const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

function send(res: Response, status: number, html: string): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': pageCsp(), 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
    .type('html')
    .send(html);
}

function form(o: { action: string; token: string; username: string; tenantName: string; error?: string }): string {
  return layout(
    'Choose a new password',
    `<h1>Choose a new password</h1>
<p>For <strong>${escape(o.username)}</strong>. Signing in anywhere else with the old password stops working, and you are signed out everywhere.</p>
${o.error ? `<p class="error" role="alert" id="form-error">${escape(o.error)}</p>` : ''}
<form method="post" action="${escape(o.action)}">
<input type="hidden" name="token" value="${escape(o.token)}">
<label for="password">New password (at least ${MIN_PASSWORD} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required${o.error ? ' aria-describedby="form-error"' : ''}>
<label for="confirm">The same again</label>
<input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" maxlength="${MAX_PASSWORD}" required>
<button type="submit">Set the new password</button>
</form>`,
    { tenantName: o.tenantName },
  );
}

function done(tenantName: string, username: string): string {
  return layout(
    'Your password was changed',
    `<h1>Your password was changed</h1>
<p role="status">The password of <strong>${escape(username)}</strong> is the one you chose. You were signed out everywhere: sign in again from your application.</p>`,
    { tenantName },
  );
}

function sameOrigin(req: Request, origin: string): boolean {
  const o = req.headers.origin;
  if (o !== undefined && o !== 'null' && o !== origin) return false;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

export function passwordResetRoutes(deps: { models: Models; logger?: Logger }): Router {
  const router = Router({ mergeParams: true });
  const body = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 4 });
  const { models } = deps;

  /** The link's reset and user, when the secret names a live one of this tenant's enabled users. */
  async function lookUp(tenantId: number, secret: unknown) {
    if (typeof secret !== 'string' || secret.length < 20 || secret.length > 100) return undefined;
    const reset = await models.PasswordReset.findOne({ tenantId, digest: digest(secret) }).lean();
    if (!reset || reset.expiresAt.getTime() <= Date.now()) return undefined;
    const user = /^[0-9a-f]{24}$/.test(reset.userId)
      ? await models.User.findOne({ tenantId, _id: reset.userId }, { username: 1, enabled: 1 }).lean()
      : null;
    return user?.enabled ? { reset, username: user.username } : undefined;
  }

  const invalid = (req: Request, res: Response) =>
    send(
      res,
      400,
      renderErrorPage(
        'invalid_link',
        'this password reset link is not valid: it was used, replaced by a newer one, or it expired. Ask your administrator for a new one',
        tenantOf(req).tenant.name,
      ),
    );

  router.get(PASSWORD_RESET_PATH, (req, res, next) => {
    const { tenantId, tenant, provider } = tenantOf(req);
    lookUp(tenantId, req.query.token)
      .then((found) => {
        if (!found) return invalid(req, res);
        send(
          res,
          200,
          form({
            action: `${new URL(provider.issuer).pathname}${PASSWORD_RESET_PATH}`,
            token: req.query.token as string,
            username: found.username,
            tenantName: tenant.name,
          }),
        );
      })
      .catch(next);
  });

  router.post(PASSWORD_RESET_PATH, body, (req, res, next) => {
    const { tenantId, tenant, provider } = tenantOf(req);
    (async () => {
      if (!sameOrigin(req, new URL(provider.issuer).origin))
        return send(res, 403, renderErrorPage('forbidden', 'this form was sent from another site', tenant.name));
      const fields = (req.body ?? {}) as Record<string, unknown>;
      const found = await lookUp(tenantId, fields.token);
      if (!found) return invalid(req, res);
      const password = typeof fields.password === 'string' ? fields.password : '';
      const confirm = typeof fields.confirm === 'string' ? fields.confirm : '';
      const again = (error: string) =>
        send(
          res,
          400,
          form({
            action: `${new URL(provider.issuer).pathname}${PASSWORD_RESET_PATH}`,
            token: fields.token as string,
            username: found.username,
            tenantName: tenant.name,
            error,
          }),
        );
      if (password.length < MIN_PASSWORD) return again(`The password needs at least ${MIN_PASSWORD} characters.`);
      if (password.length > MAX_PASSWORD) return again(`The password can have at most ${MAX_PASSWORD} characters.`);
      if (password !== confirm) return again('The two passwords differ: type the same one twice.');
      // Used up before the password changes: two posts of the same link cannot both set one.
      const used = await models.PasswordReset.deleteOne({ _id: found.reset._id, tenantId });
      if (used.deletedCount !== 1) return invalid(req, res);
      await models.User.updateOne(
        { tenantId, _id: found.reset.userId },
        { $set: { passwordHash: await hashPassword(password) } },
      );
      // Whoever knew the old password is signed out everywhere, and loses the refresh tokens it got.
      const ended = await endAccountSignIns(models, tenantId, found.reset.userId);
      deps.logger?.info(
        {
          tenantId,
          userId: found.reset.userId,
          sessionsEnded: ended.sessions,
          refreshTokensEnded: ended.refreshTokens,
        },
        'password reset used',
      );
      send(res, 200, done(tenant.name, found.username));
    })().catch(next);
  });

  return router;
}
