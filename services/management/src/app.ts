import express, { Router } from 'express';
import type { Models } from '@idp/db';
import { createHttpApp, problemErrorHandler, problemNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { authenticate, requireTenantAccess, type BearerDeps } from './auth/bearer';
import { nheRegistrationRoutes } from './routes/nhe-registrations';
import { tokenAuditRoutes } from './routes/token-audit';

export interface AppDeps {
  logger: Logger;
  models: Models;
  readiness: ReadinessCheck[];
  bearer: BearerDeps;
  trustProxy: boolean;
}

/** The admin REST API under /auth/admin (and /_api/auth/admin). Every route needs a management token. */
export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({
    service: 'management',
    logger: deps.logger,
    readiness: deps.readiness,
    trustProxy: deps.trustProxy ? 'loopback, linklocal, uniquelocal' : false,
  });

  const admin = Router();
  admin.use(express.json({ limit: '64kb', strict: true }));
  admin.use(authenticate(deps.bearer));

  const tenant = Router({ mergeParams: true });
  tenant.use(requireTenantAccess());
  // token-audit before /:id so it is never read as an NHE id.
  tenant.use('/non-human-entities/token-audit', tokenAuditRoutes({ models: deps.models }));
  tenant.use('/non-human-entities', nheRegistrationRoutes({ models: deps.models, logger: deps.logger }));
  admin.use('/tenants/:tenantId', tenant);

  app.use(['/auth/admin', '/_api/auth/admin'], admin);
  app.use(problemNotFound);
  app.use(problemErrorHandler(deps.logger));
  return { app, registry };
}
