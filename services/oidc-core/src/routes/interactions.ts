import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '@idp/tokens';
import type { TenantContext } from '../tenants/tenant-pool';
import { PAGE_CSP, renderConsentPage, renderErrorPage, renderLoginPage } from '../views/pages';

export interface InteractionDeps {
  models: Models;
}

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

const MAX_FIELD = 256;

function send(res: Response, status: number, html: string): void {
  res.status(status).set({ 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' }).type('html').send(html);
}

/** Login and consent pages behind node-oidc-provider's interaction URLs. */
export function interactionRoutes(deps: InteractionDeps): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });

  router.get('/interaction/:uid', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      const base = `${req.baseUrl}/interaction/${details.uid}`;
      const client = await tenant.provider.Client.find(String(details.params.client_id));
      const clientName = client?.clientName ?? String(details.params.client_id);
      if (details.prompt.name === 'login') {
        send(res, 200, renderLoginPage({ action: `${base}/login`, clientName, tenantName: tenant.tenant.name }));
        return;
      }
      const d = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
      send(
        res,
        200,
        renderConsentPage({
          action: `${base}/confirm`,
          abortAction: `${base}/abort`,
          clientName,
          scopes: d.missingOIDCScope ?? [],
          resources: Object.entries(d.missingResourceScopes ?? {}).map(([resource, scopes]) => ({ resource, scopes })),
        }),
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/login', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a login');
      const username = typeof req.body?.username === 'string' ? req.body.username.slice(0, MAX_FIELD) : '';
      const password = typeof req.body?.password === 'string' ? req.body.password.slice(0, MAX_FIELD) : '';
      const user = username
        ? await deps.models.User.findOne({ tenantId: tenant.tenantId, username }, { passwordHash: 1, enabled: 1 }).lean()
        : null;
      // Always run one hash so that unknown accounts take as long as wrong passwords.
      const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !ok || !user.enabled) {
        const client = await tenant.provider.Client.find(String(details.params.client_id));
        send(
          res,
          401,
          renderLoginPage({
            action: `${req.baseUrl}/interaction/${details.uid}/login`,
            clientName: client?.clientName ?? String(details.params.client_id),
            tenantName: tenant.tenant.name,
            error: 'The username or password is not correct.',
            username,
          }),
        );
        return;
      }
      await tenant.provider.interactionFinished(req, res, { login: { accountId: String(user._id), amr: ['pwd'] } }, { mergeWithLastSubmission: false });
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/confirm', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const { provider } = tenant;
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== 'consent' || !details.session) throw new errors.InvalidRequest('this interaction does not expect consent');
      const d = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
      if (!grant) throw new errors.InvalidRequest('grant not found');
      if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
      if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(d.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/abort', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      await tenant.provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'the user denied access' },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      next(err);
    }
  });

  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = err as { name?: string; error?: string; error_description?: string; statusCode?: number; status?: number; expose?: boolean };
    if (e?.name === 'SessionNotFound' || e?.error === 'invalid_request' || (e?.statusCode ?? 500) < 500) {
      send(res, e.statusCode ?? e.status ?? 400, renderErrorPage(e.error ?? 'invalid_request', e.error_description ?? 'the sign-in request has expired or is not valid'));
      return;
    }
    (res.locals as { error?: unknown }).error = err;
    send(res, 500, renderErrorPage('server_error', 'an unexpected error occurred'));
    (_req as unknown as { log?: { error: (o: object, m: string) => void } }).log?.error({ err }, 'interaction failed');
  });

  return router;
}
