/**
 * The user's passkeys page, beside the delegation ledger under each tenant:
 *
 *   GET  /account/passkeys                  the signed-in user's passkeys (sign-in first, as the ledger does)
 *   POST /account/passkeys/options          WebAuthn creation options (JSON); the challenge is stored for this user
 *   POST /account/passkeys                  the registration response (form field `credential`) and its name
 *   POST /account/passkeys/{id}/rename      rename one
 *   POST /account/passkeys/{id}/remove      remove one
 *   GET  /account/passkeys/enrol?token=…    a one-time enrolment link an administrator made (passkey-only accounts)
 *   POST /account/passkeys/enrol/options    creation options for the link's user (the token in the form)
 *   POST /account/passkeys/enrol            registers the passkey and uses the link up
 *
 * Every form carries the session's CSRF token (account/routes.ts) or, on the enrolment page, the link's secret, and a
 * form from another site is refused (Origin, Fetch Metadata). The first passkey of an account comes with ten recovery
 * codes, shown once on the page that answers the registration.
 */
import express, { Router, type Request, type Response } from 'express';
import type { Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import type { TenantContext } from '../tenants/tenant-pool';
import { newNonce, pageCsp } from '../views/pages';
import { LIBRARY_PATH } from './browser-library';
import { CeremonyError, completeRegistration, registrationOptions } from './ceremony';
import { consumeEnrolmentLink, enrolmentLinkUser } from './challenges';
import { renderPasskeysPage, type AccountPasskey } from './pages';
import { hasRecoveryCodes, newRecoveryCodes, remainingRecoveryCodes } from './recovery-codes';
import { passkeySettingsOf, type EffectivePasskeySettings } from './settings';

export const PASSKEYS_PATH = '/account/passkeys';
const ENROL_PATH = `${PASSKEYS_PATH}/enrol`;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

export interface SignedInUser {
  accountId: string;
  sessionId: string;
  /** When the user last authenticated in this session (seconds since the epoch). */
  authTime?: number;
}

/**
 * A new passkey is a lasting way into the account that outlives a password change, so adding one needs a recent
 * authentication (NIST SP 800-63B section 6.1.2.1: binding a new authenticator needs the subscriber to authenticate
 * first), not only a live session: a stolen session cookie alone cannot add one. The page asks for a sign-in when the
 * last one is older than FRESH_PAGE_SECONDS; its forms are accepted until FRESH_FORM_SECONDS (the ceremony's time).
 */
export const FRESH_PAGE_SECONDS = 600;
export const FRESH_FORM_SECONDS = 900;
const signedInWithin = (user: SignedInUser, seconds: number) =>
  user.authTime !== undefined && Date.now() / 1000 - user.authTime <= seconds;

export interface PasskeyAccountDeps {
  models: Models;
  logger?: Logger;
  /** The provider session's user (account/routes.ts). */
  signedIn: (req: Request, res: Response) => Promise<SignedInUser | undefined>;
  /** Starts the tenant's sign-in and comes back to this page; `fresh`: even over a live session (prompt=login). */
  startSignIn: (req: Request, res: Response, fresh?: boolean) => void;
  /** Checks session, Origin and CSRF token of a form; answers the refusal itself (account/routes.ts). */
  formUser: (req: Request, res: Response, page: string) => Promise<SignedInUser | undefined>;
  csrfToken: (sessionId: string, tenantId: number, accountId: string) => string;
  errorPage: (req: Request, res: Response, status: number, error: string, description: string) => void;
  sameOriginForm: (req: Request, origin: string) => boolean;
}

const DONE = {
  added: 'Your passkey was added. You can sign in with it now.',
  renamed: 'The passkey was renamed.',
  removed: 'The passkey was removed: it no longer signs you in here.',
} as const;

function field(body: unknown, name: string, max = 256): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
}

function parsedCredential(body: unknown): unknown {
  try {
    return JSON.parse(field(body, 'credential', 32_768));
  } catch {
    return undefined;
  }
}

function sendPage(res: Response, status: number, html: string, nonce: string): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': pageCsp({ nonce, connect: true }),
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

export function passkeyAccountRoutes(deps: PasskeyAccountDeps): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '48kb', parameterLimit: 5 });
  const { models } = deps;

  const settingsOr404 = (req: Request, res: Response): EffectivePasskeySettings | undefined => {
    const tenant = tenantOf(req);
    const s = passkeySettingsOf(tenant.tenant, tenant.provider.issuer);
    if (s.enabled) return s;
    deps.errorPage(req, res, 404, 'not_found', 'passkeys are not enabled for this organisation');
    return undefined;
  };

  const userOf = (tenantId: number, userId: string) =>
    models.User.findOne({ tenantId, _id: userId }, { username: 1, enabled: 1, claims: 1 }).lean();

  const page = async (
    req: Request,
    res: Response,
    userId: string,
    csrf: string,
    status: number,
    extra: { recoveryCodes?: string[]; done?: string; error?: string; enrolmentLink?: boolean } = {},
  ) => {
    const tenant = tenantOf(req);
    const user = await userOf(tenant.tenantId, userId);
    if (!user?.enabled)
      return deps.errorPage(req, res, 403, 'access_denied', 'this account no longer exists in this organisation');
    const passkeys = await models.WebauthnCredential.find({ tenantId: tenant.tenantId, userId })
      .sort({ createdAt: 1 })
      .lean();
    const nonce = newNonce();
    const action = extra.enrolmentLink ? `${req.baseUrl}${ENROL_PATH}` : `${req.baseUrl}${PASSKEYS_PATH}`;
    sendPage(
      res,
      status,
      renderPasskeysPage({
        tenantName: tenant.tenant.name,
        username: user.username,
        passkeys: passkeys.map((p): AccountPasskey => ({
          id: p.credentialId,
          name: p.name,
          deviceType: p.deviceType,
          backedUp: p.backedUp,
          createdAt: p.createdAt,
          ...(p.lastUsedAt ? { lastUsedAt: p.lastUsedAt } : {}),
        })),
        action,
        base: req.baseUrl,
        csrf,
        libSrc: `${req.baseUrl}${LIBRARY_PATH}`,
        nonce,
        optionsUrl: `${action}/options`,
        recoveryLeft: await remainingRecoveryCodes(models, tenant.tenantId, userId),
        ...extra,
      }),
      nonce,
    );
  };

  /** A form that adds or removes a passkey: refused (answered here) when the last sign-in is not recent. */
  const recentSignIn = (req: Request, res: Response, user: SignedInUser): boolean => {
    if (signedInWithin(user, FRESH_FORM_SECONDS)) return true;
    deps.errorPage(
      req,
      res,
      401,
      'login_required',
      'adding or removing a passkey needs a recent sign-in: open your passkeys page again and sign in',
    );
    return false;
  };

  const csrfOf = (req: Request, user: SignedInUser) =>
    deps.csrfToken(user.sessionId, tenantOf(req).tenantId, user.accountId);

  router.get(PASSKEYS_PATH, async (req, res, next) => {
    try {
      if (!settingsOr404(req, res)) return;
      const user = await deps.signedIn(req, res);
      if (!user) return deps.startSignIn(req, res);
      if (!signedInWithin(user, FRESH_PAGE_SECONDS)) return deps.startSignIn(req, res, true);
      const done =
        typeof req.query.done === 'string' && req.query.done in DONE
          ? DONE[req.query.done as keyof typeof DONE]
          : undefined;
      await page(req, res, user.accountId, csrfOf(req, user), 200, done ? { done } : {});
    } catch (err) {
      next(err);
    }
  });

  /** Registration: a new passkey for `userId`; the first one comes with recovery codes. */
  const register = async (
    req: Request,
    res: Response,
    settings: EffectivePasskeySettings,
    userId: string,
    csrf: string,
    enrolmentLink: boolean,
    before?: () => Promise<boolean>,
  ) => {
    const tenantId = tenantOf(req).tenantId;
    try {
      await completeRegistration(
        models,
        tenantId,
        settings,
        userId,
        parsedCredential(req.body),
        field(req.body, 'name', 64),
      );
    } catch (err) {
      if (!(err instanceof CeremonyError)) throw err;
      (req as unknown as { log?: Logger }).log?.info(
        { tenantId, reason: err.reason, ...(err.libraryMessage ? { detail: err.libraryMessage } : {}) },
        'passkeys: registration refused',
      );
      return page(req, res, userId, csrf, 400, { error: err.message, enrolmentLink });
    }
    if (before && !(await before())) {
      return deps.errorPage(req, res, 400, 'invalid_request', 'this enrolment link was already used');
    }
    (req as unknown as { log?: Logger }).log?.info({ tenantId, userId }, 'passkeys: enrolled');
    const recoveryCodes = (await hasRecoveryCodes(models, tenantId, userId))
      ? undefined
      : await newRecoveryCodes(models, tenantId, userId);
    return page(req, res, userId, csrf, 200, {
      done: DONE.added,
      enrolmentLink,
      ...(recoveryCodes ? { recoveryCodes } : {}),
    });
  };

  router.post(`${PASSKEYS_PATH}/options`, form, async (req, res, next) => {
    try {
      const settings = settingsOr404(req, res);
      if (!settings) return;
      const user = await deps.formUser(req, res, 'passkeys');
      if (!user || !recentSignIn(req, res, user)) return;
      const tenant = tenantOf(req);
      const account = await userOf(tenant.tenantId, user.accountId);
      if (!account?.enabled) return deps.errorPage(req, res, 403, 'access_denied', 'this account no longer exists');
      res.set('Cache-Control', 'no-store').json(
        await registrationOptions(models, tenant.tenantId, settings, {
          id: user.accountId,
          username: account.username,
          ...(typeof account.claims.name === 'string' ? { displayName: account.claims.name } : {}),
        }),
      );
    } catch (err) {
      if (err instanceof CeremonyError)
        return void res.status(400).json({ error: 'invalid_request', error_description: err.message });
      next(err);
    }
  });

  router.post(PASSKEYS_PATH, form, async (req, res, next) => {
    try {
      const settings = settingsOr404(req, res);
      if (!settings) return;
      const user = await deps.formUser(req, res, 'passkeys');
      if (!user || !recentSignIn(req, res, user)) return;
      await register(req, res, settings, user.accountId, csrfOf(req, user), false);
    } catch (err) {
      next(err);
    }
  });

  const change = (action: 'rename' | 'remove') => async (req: Request, res: Response, next: express.NextFunction) => {
    try {
      if (!settingsOr404(req, res)) return;
      const user = await deps.formUser(req, res, 'passkeys');
      // Removing a passkey also needs a recent sign-in: with a session alone, removing the user's passkeys would
      // switch off the confirmation an agent consent asks of a user who has one (consent-confirmation.ts).
      if (!user || (action === 'remove' && !recentSignIn(req, res, user))) return;
      const tenantId = tenantOf(req).tenantId;
      const filter = { tenantId, userId: user.accountId, credentialId: String(req.params.credentialId).slice(0, 1024) };
      const n =
        action === 'remove'
          ? (await models.WebauthnCredential.deleteOne(filter)).deletedCount
          : (
              await models.WebauthnCredential.updateOne(filter, {
                $set: { name: field(req.body, 'name', 64).trim() || 'Passkey' },
              })
            ).matchedCount;
      if (!n) return deps.errorPage(req, res, 404, 'not_found', 'no such passkey on your account');
      (req as unknown as { log?: Logger }).log?.info(
        { tenantId, userId: user.accountId, action },
        'passkeys: user action',
      );
      res.redirect(303, `${req.baseUrl}${PASSKEYS_PATH}?done=${action === 'remove' ? 'removed' : 'renamed'}`);
    } catch (err) {
      next(err);
    }
  };
  router.post(`${PASSKEYS_PATH}/:credentialId/rename`, form, change('rename'));
  router.post(`${PASSKEYS_PATH}/:credentialId/remove`, form, change('remove'));

  // The enrolment link: the secret is the only credential (as a password-reset link's); it travels in the form after
  // the first page, and is used up when a passkey is registered.
  const linkUser = async (req: Request, res: Response, token: string) => {
    const userId = await enrolmentLinkUser(models, tenantOf(req).tenantId, token);
    if (!userId)
      deps.errorPage(
        req,
        res,
        400,
        'invalid_request',
        'this enrolment link has expired or was already used; ask your administrator for a new one',
      );
    return userId;
  };
  const linkForm = (req: Request, res: Response) => {
    if (!deps.sameOriginForm(req, new URL(tenantOf(req).provider.issuer).origin)) {
      deps.errorPage(req, res, 403, 'access_denied', 'this form was sent from another site');
      return false;
    }
    return true;
  };

  router.get(ENROL_PATH, async (req, res, next) => {
    try {
      if (!settingsOr404(req, res)) return;
      const token = typeof req.query.token === 'string' ? req.query.token.slice(0, 128) : '';
      const userId = await linkUser(req, res, token);
      if (!userId) return;
      res.set('Referrer-Policy', 'no-referrer');
      await page(req, res, userId, token, 200, { enrolmentLink: true });
    } catch (err) {
      next(err);
    }
  });

  router.post(`${ENROL_PATH}/options`, form, async (req, res, next) => {
    try {
      const settings = settingsOr404(req, res);
      if (!settings || !linkForm(req, res)) return;
      const userId = await linkUser(req, res, field(req.body, 'csrf', 128));
      if (!userId) return;
      const tenant = tenantOf(req);
      const account = await userOf(tenant.tenantId, userId);
      if (!account?.enabled) return deps.errorPage(req, res, 403, 'access_denied', 'this account no longer exists');
      res
        .set('Cache-Control', 'no-store')
        .json(await registrationOptions(models, tenant.tenantId, settings, { id: userId, username: account.username }));
    } catch (err) {
      if (err instanceof CeremonyError)
        return void res.status(400).json({ error: 'invalid_request', error_description: err.message });
      next(err);
    }
  });

  router.post(ENROL_PATH, form, async (req, res, next) => {
    try {
      const settings = settingsOr404(req, res);
      if (!settings || !linkForm(req, res)) return;
      const token = field(req.body, 'csrf', 128);
      const userId = await linkUser(req, res, token);
      if (!userId) return;
      const tenantId = tenantOf(req).tenantId;
      await register(req, res, settings, userId, token, true, async () => {
        // Used up once, atomically; a link used meanwhile (another tab) takes back the passkey just stored.
        if ((await consumeEnrolmentLink(models, tenantId, token)) === userId) return true;
        await models.WebauthnCredential.deleteOne({
          tenantId,
          userId,
          credentialId: String((parsedCredential(req.body) as { id?: unknown } | undefined)?.id),
        });
        return false;
      });
    } catch (err) {
      next(err);
    }
  });

  return router;
}
