import { Router, type NextFunction, type Request, type Response } from 'express';
import { createHttpApp, oauthErrorHandler, oauthNotFound, sendOAuthError, type ReadinessCheck } from '@idp/http';
import { OAuthError } from '@idp/errors';
import type { Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import { interactionRoutes } from './routes/interactions';
import { UnknownTenantError, type TenantContext } from './tenants/tenant-pool';

export interface TenantResolver {
  get(tenantId: string): Promise<TenantContext>;
}

export interface AppDeps {
  logger: Logger;
  models: Models;
  tenants: TenantResolver;
  readiness: ReadinessCheck[];
  trustProxy: boolean;
}

/**
 * oidc-core's HTTP surface: every tenant's provider under /auth/{tenantId} and its /_api alias, with our own
 * interaction pages mounted before the provider (a mounted provider never falls through).
 */
export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({
    service: 'oidc-core',
    logger: deps.logger,
    readiness: deps.readiness,
    trustProxy: deps.trustProxy ? 'loopback, linklocal, uniquelocal' : false,
    // Pages set their own CSP (views/pages.ts); provider-rendered responses (form_post, device, logout) need theirs.
    contentSecurityPolicy: false,
  });

  const tenantRouter = Router({ mergeParams: true });

  tenantRouter.use(async (req: Request, res: Response, next: NextFunction) => {
    try {
      (req as Request & { tenant: TenantContext }).tenant = await deps.tenants.get(String(req.params.tenantId));
      next();
    } catch (err) {
      if (err instanceof UnknownTenantError) sendOAuthError(res, new OAuthError('not_found', 'unknown tenant', 404));
      else next(err);
    }
  });
  tenantRouter.use(interactionRoutes({ models: deps.models }));
  tenantRouter.use((req: Request, res: Response) => {
    void (req as Request & { tenant: TenantContext }).tenant.callback(req, res);
  });

  app.use(['/auth/:tenantId', '/_api/auth/:tenantId'], tenantRouter);
  app.use(oauthNotFound);
  app.use(oauthErrorHandler(deps.logger));
  return { app, registry };
}
