/**
 * The person's side of CIBA on their ledger page (account/ledger-page.ts shows the pending section):
 *
 *   GET  /account/agents/requests                         the pending requests, JSON (the page's live list polls it)
 *   POST /account/agents/requests/{handle}/approve|deny   the decision (a form: CSRF token, same origin), 303 back
 *
 * The same browser session as the ledger (the provider's `_session` cookie); a request is named by a digest of its
 * auth_req_id (pending.ts requestHandle), never the id itself, which is the client's credential.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type Request, type Response } from 'express';
import type { Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import { csrfToken } from '../../account/routes';
import type { TenantContext } from '../../tenants/tenant-pool';
import { decide, pendingViews, type ApprovingSession } from './approval';
import { cibaRuntimeOf } from './runtime';

export const REQUESTS_PATH = '/account/agents/requests';

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

interface Signed extends ApprovingSession {
  sessionId: string;
}

async function signedIn(req: Request, res: Response): Promise<Signed | undefined> {
  const { provider } = tenantOf(req);
  const session = (await provider.Session.get({ req, res, secure: req.secure } as never)) as
    { accountId?: string; jti?: string; loginTs?: number; amr?: string[]; acr?: string } | undefined;
  if (!session?.accountId || !session.jti) return undefined;
  return {
    accountId: session.accountId,
    sessionId: session.jti,
    authTime: session.loginTs,
    amr: session.amr,
    acr: session.acr,
  };
}

const same = (a: string, b: string) => {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a.length === b.length;
};

export function cibaApprovalRoutes(deps: { models: Models; logger?: Logger | undefined }): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 5 });

  router.get(REQUESTS_PATH, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      res.set('Cache-Control', 'no-store');
      if (!cibaRuntimeOf(tenant.provider)) return res.status(404).json({ error: 'not_found' });
      const user = await signedIn(req, res);
      if (!user) return res.status(401).json({ error: 'login_required', error_description: 'sign in again' });
      res.json({ requests: await pendingViews(deps.models, tenant.tenantId, user.accountId) });
    } catch (err) {
      next(err);
    }
  });

  router.post(`${REQUESTS_PATH}/:handle/:decision`, form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const back = (outcome: string) =>
        res.set('Cache-Control', 'no-store').redirect(303, `${req.baseUrl}/account/agents?request=${outcome}`);
      const decision = req.params.decision;
      if (decision !== 'approve' && decision !== 'deny') return res.status(404).json({ error: 'not_found' });
      if (!cibaRuntimeOf(tenant.provider)) return res.status(404).json({ error: 'not_found' });
      const user = await signedIn(req, res);
      if (!user) return back('signed-out');
      // Defence beside the CSRF token: a form from another site is refused by Origin and Fetch Metadata.
      const origin = req.headers.origin;
      const site = req.headers['sec-fetch-site'];
      const csrf = (req.body as Record<string, unknown> | undefined)?.csrf;
      if (
        (origin !== undefined && origin !== 'null' && origin !== new URL(tenant.provider.issuer).origin) ||
        (site !== undefined && site !== 'same-origin' && site !== 'none') ||
        typeof csrf !== 'string' ||
        !same(csrf, csrfToken(user.sessionId, tenant.tenantId, user.accountId))
      )
        return back('refused');
      const outcome = await decide(
        tenant.provider,
        deps.models,
        tenant.tenantId,
        user,
        String(req.params.handle).slice(0, 64),
        decision,
        deps.logger,
      );
      deps.logger?.info({ tenantId: tenant.tenantId, userId: user.accountId, outcome }, 'ciba: person decided');
      back(outcome);
    } catch (err) {
      next(err);
    }
  });
  return router;
}
