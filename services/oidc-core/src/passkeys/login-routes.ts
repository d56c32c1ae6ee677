/**
 * Passkey sign-in behind node-oidc-provider's login interaction:
 *
 *   POST /interaction/{uid}/passkey/options   WebAuthn request options (JSON), the challenge bound to the interaction
 *   POST /interaction/{uid}/passkey           the assertion (form field `credential`): verified, then the login ends
 *   GET  /interaction/{uid}/recovery          the recovery-code form
 *   POST /interaction/{uid}/recovery          a recovery code in place of a passkey (once), then a page that says so
 *   POST /interaction/{uid}/recovery/continue ends the login the recovery code made
 *
 * A signed-in user whose request needs a stronger acr (step-up, provider/acr-policy.ts) may only use their own
 * passkeys: the challenge is bound to their account. The login records amr and acr from passkeys/amr.ts.
 */
import express, { Router, type Request, type Response } from 'express';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import { ACR_PWD, claimsRequestOf, meetsEssentialAcr } from '../domain/acr';
import type { LoginThrottle } from '../domain/login-throttle';
import { CHECK_ESSENTIAL_ACR } from '../provider/acr-policy';
import type { TenantContext } from '../tenants/tenant-pool';
import { newNonce, pageCsp } from '../views/pages';
import { passkeyAcr, passkeyAmr } from './amr';
import { LIBRARY_PATH, serveBrowserLibrary } from './browser-library';
import { authenticationOptions, CeremonyError, completeAuthentication } from './ceremony';
import {
  passkeyLoginPart,
  renderPasskeyStepUpPage,
  renderRecoveredPage,
  renderRecoveryPage,
  type PasskeyLoginPart,
} from './pages';
import { refuseRecoveryCode, remainingRecoveryCodes, useRecoveryCode } from './recovery-codes';
import { passkeySettingsOf, type EffectivePasskeySettings } from './settings';

type Details = Awaited<ReturnType<TenantContext['provider']['interactionDetails']>>;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

export const PASSKEY_LOGIN_FAILED = 'That passkey did not sign you in. Try again, or use another passkey.';
export const WRONG_RECOVERY = 'The username or recovery code is not correct.';
const RECOVERED = 'idp_recovered';
const RECOVERED_SECONDS = 300;

/** The tenant's effective passkey settings, or undefined when passkeys are off. */
export function enabledPasskeys(tenant: TenantContext): EffectivePasskeySettings | undefined {
  const s = passkeySettingsOf(tenant.tenant, tenant.provider.issuer);
  return s.enabled ? s : undefined;
}

/** The login page's passkey part for this interaction, when the tenant has passkeys on. */
export function loginPagePasskeyPart(req: Request, details: Details): PasskeyLoginPart | undefined {
  const s = enabledPasskeys(tenantOf(req));
  if (!s) return undefined;
  const base = `${req.baseUrl}/interaction/${details.uid}`;
  return passkeyLoginPart({
    optionsUrl: `${base}/passkey/options`,
    action: `${base}/passkey`,
    recoveryHref: `${base}/recovery`,
    libSrc: `${req.baseUrl}${LIBRARY_PATH}`,
    nonce: newNonce(),
    only: s.passkeyOnly,
  });
}

/**
 * Whether a step-up of `accountId` goes through a passkey: passkeys on, the user has one, and either the request
 * needs more than a password and TOTP (acr phr) or the user has no TOTP.
 */
export async function passkeyStepUpWanted(
  models: Models,
  tenant: TenantContext,
  accountId: string,
  hasTotp: boolean,
  mfaEnough: boolean,
): Promise<boolean> {
  if (!enabledPasskeys(tenant)) return false;
  if (hasTotp && mfaEnough) return false;
  return (
    (await models.WebauthnCredential.countDocuments({ tenantId: tenant.tenantId, userId: accountId }).limit(1)) > 0
  );
}

function send(res: Response, status: number, html: string, nonce?: string, formTargets: string[] = []): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': pageCsp({ nonce, formTargets, connect: Boolean(nonce) }),
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

const redirectTargets = (details: Details): string[] =>
  typeof details.params.redirect_uri === 'string' ? [details.params.redirect_uri] : [];

/** The account of a step-up (a signed-in session asked only for a stronger acr), as routes/interactions.ts decides. */
function stepUpAccount(details: Details): string | undefined {
  const accountId = details.session?.accountId;
  if (!accountId) return undefined;
  const reasons = (details.prompt as { reasons?: string[] }).reasons ?? [];
  return reasons.length > 0 && reasons.every((r) => r === CHECK_ESSENTIAL_ACR) ? accountId : undefined;
}

export async function sendPasskeyStepUp(
  req: Request,
  res: Response,
  details: Details,
  clientName: string,
  status = 200,
  error?: string,
): Promise<void> {
  const tenant = tenantOf(req);
  const base = `${req.baseUrl}/interaction/${details.uid}`;
  const nonce = newNonce();
  send(
    res,
    status,
    renderPasskeyStepUpPage({
      tenantName: tenant.tenant.name,
      clientName,
      optionsUrl: `${base}/passkey/options`,
      action: `${base}/passkey`,
      restartAction: `${base}/abort`,
      libSrc: `${req.baseUrl}${LIBRARY_PATH}`,
      nonce,
      ...(error ? { error } : {}),
    }),
    nonce,
    redirectTargets(details),
  );
  await Promise.resolve();
}

const field = (body: unknown, name: string, max = 256): string => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, max) : '';
};

export interface PasskeyLoginDeps {
  models: Models;
  loginThrottle: LoginThrottle;
  logger?: Logger;
  /** Renders the login page again with an error (routes/interactions.ts). */
  loginPage: (req: Request, res: Response, details: Details, status: number, error: string) => Promise<void>;
  clientName: (tenant: TenantContext, details: Details) => Promise<string>;
}

export function passkeyLoginRoutes(deps: PasskeyLoginDeps): Router {
  const router = Router({ mergeParams: true });
  // An assertion is a few hundred bytes of base64url; a registration response with attestation a few kilobytes.
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 5 });
  const { models } = deps;

  router.get(LIBRARY_PATH, serveBrowserLibrary);

  const loginInteraction = async (req: Request, res: Response): Promise<Details> => {
    const details = await tenantOf(req).provider.interactionDetails(req, res);
    if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a login');
    return details;
  };

  router.post('/interaction/:uid/passkey/options', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const settings = enabledPasskeys(tenant);
      if (!settings) throw new errors.InvalidRequest('passkeys are not enabled for this organisation');
      const details = await loginInteraction(req, res);
      const userId = stepUpAccount(details);
      const options = await authenticationOptions(models, tenant.tenantId, settings, {
        interactionUid: details.uid,
        ...(userId ? { userId } : {}),
      });
      res.set('Cache-Control', 'no-store').json(options);
    } catch (err) {
      next(err);
    }
  });

  // The agent consent page's fresh confirmation (consent-confirmation.ts): only the session user's passkeys.
  router.post('/interaction/:uid/passkey/confirm-options', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const settings = enabledPasskeys(tenant);
      if (!settings) throw new errors.InvalidRequest('passkeys are not enabled for this organisation');
      const details = await tenant.provider.interactionDetails(req, res);
      const accountId = details.session?.accountId;
      if (details.prompt.name !== 'consent' || !accountId)
        throw new errors.InvalidRequest('this interaction does not expect consent');
      res.set('Cache-Control', 'no-store').json(
        await authenticationOptions(models, tenant.tenantId, settings, {
          interactionUid: details.uid,
          userId: accountId,
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/passkey', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const settings = enabledPasskeys(tenant);
      if (!settings) throw new errors.InvalidRequest('passkeys are not enabled for this organisation');
      const details = await loginInteraction(req, res);
      const stepUp = stepUpAccount(details);
      let credential: unknown;
      try {
        credential = JSON.parse(field(req.body, 'credential', 16_384));
      } catch {
        credential = undefined;
      }
      const fail = async (status: number, reason: string, detail?: string) => {
        (req as unknown as { log?: Logger }).log?.info(
          { tenantId: tenant.tenantId, reason, ...(detail ? { detail } : {}) },
          'passkey sign-in refused',
        );
        if (stepUp)
          return sendPasskeyStepUp(
            req,
            res,
            details,
            await deps.clientName(tenant, details),
            status,
            PASSKEY_LOGIN_FAILED,
          );
        return deps.loginPage(req, res, details, status, PASSKEY_LOGIN_FAILED);
      };
      let result;
      try {
        result = await completeAuthentication(
          models,
          tenant.tenantId,
          settings,
          { interactionUid: details.uid, ...(stepUp ? { userId: stepUp } : {}) },
          credential,
        );
      } catch (err) {
        if (err instanceof CeremonyError) return await fail(401, err.reason, err.libraryMessage);
        throw err;
      }
      const user = await models.User.findOne({ tenantId: tenant.tenantId, _id: result.userId }, { enabled: 1 }).lean();
      if (!user?.enabled) return await fail(401, 'disabled_user');
      const amr = passkeyAmr(result);
      const acr = passkeyAcr(result);
      if (!meetsEssentialAcr(acr, claimsRequestOf(details.params))) {
        await tenant.provider.interactionFinished(
          req,
          res,
          {
            error: 'unmet_authentication_requirements',
            error_description: 'the requested authentication context (acr) needs a stronger passkey',
          },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      await tenant.provider.interactionFinished(
        req,
        res,
        { login: { accountId: result.userId, amr, acr } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      next(err);
    }
  });

  const recoveryPage = (
    req: Request,
    res: Response,
    details: Details,
    status: number,
    error?: string,
    username?: string,
  ) =>
    send(
      res,
      status,
      renderRecoveryPage({
        tenantName: tenantOf(req).tenant.name,
        action: `${req.baseUrl}/interaction/${details.uid}/recovery`,
        ...(error ? { error } : {}),
        ...(username ? { username } : {}),
      }),
    );

  router.get('/interaction/:uid/recovery', async (req, res, next) => {
    try {
      if (!enabledPasskeys(tenantOf(req)))
        throw new errors.InvalidRequest('passkeys are not enabled for this organisation');
      recoveryPage(req, res, await loginInteraction(req, res), 200);
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/recovery', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      if (!enabledPasskeys(tenant)) throw new errors.InvalidRequest('passkeys are not enabled for this organisation');
      const details = await loginInteraction(req, res);
      const username = field(req.body, 'username');
      const code = field(req.body, 'code', 64);
      if (!username || !code) return recoveryPage(req, res, details, 400, WRONG_RECOVERY, username);
      // Recovery codes are guessable secrets like passwords: the same per-name and per-address limits.
      const outcome = await deps.loginThrottle.begin(tenant.tenantId, username, req.ip ?? 'unknown');
      if (!outcome.allowed) {
        res.set('Retry-After', String(outcome.retryAfterSeconds));
        return recoveryPage(
          req,
          res,
          details,
          429,
          'Too many failed sign-in attempts. Wait a few minutes, then try again.',
          username,
        );
      }
      const user = await models.User.findOne({ tenantId: tenant.tenantId, username }, { enabled: 1 }).lean();
      const ok = user?.enabled
        ? await useRecoveryCode(models, tenant.tenantId, String(user._id), code)
        : await refuseRecoveryCode(code);
      if (!user || !ok) {
        await outcome.attempt.failed();
        return recoveryPage(req, res, details, 401, WRONG_RECOVERY, username);
      }
      await outcome.attempt.succeeded();
      const accountId = String(user._id);
      details.result = {
        ...(details.result ?? {}),
        [RECOVERED]: { accountId, at: Math.floor(Date.now() / 1000) },
      } as typeof details.result;
      await details.persist();
      send(
        res,
        200,
        renderRecoveredPage({
          tenantName: tenant.tenant.name,
          action: `${req.baseUrl}/interaction/${details.uid}/recovery/continue`,
          passkeysHref: `${req.baseUrl}/account/passkeys`,
          remaining: await remainingRecoveryCodes(models, tenant.tenantId, accountId),
        }),
        undefined,
        redirectTargets(details),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/recovery/continue', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await loginInteraction(req, res);
      const r = (details.result as Record<string, unknown> | undefined)?.[RECOVERED] as
        { accountId?: unknown; at?: unknown } | undefined;
      if (
        !r ||
        typeof r.accountId !== 'string' ||
        typeof r.at !== 'number' ||
        Date.now() / 1000 - r.at >= RECOVERED_SECONDS
      )
        return await deps.loginPage(req, res, details, 400, 'The sign-in took too long. Sign in again.');
      // One factor (a written-down code): no amr value of RFC 8176 describes it, and the single-factor acr.
      if (!meetsEssentialAcr(ACR_PWD, claimsRequestOf(details.params))) {
        await tenant.provider.interactionFinished(
          req,
          res,
          {
            error: 'unmet_authentication_requirements',
            error_description: 'a recovery code cannot meet the requested authentication context (acr)',
          },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      await tenant.provider.interactionFinished(
        req,
        res,
        { login: { accountId: r.accountId, amr: [], acr: ACR_PWD } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      next(err);
    }
  });

  return router;
}
