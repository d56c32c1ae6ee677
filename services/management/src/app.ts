import { Router } from 'express';
import { dpopProofReplayStore, type Models } from '@idp/db';
import { createHttpApp, problemErrorHandler, problemNotFound, type ReadinessCheck } from '@idp/http';
import type { RevocationInput } from '@idp/events';
import type { Logger } from '@idp/logger';
import type { KeyStore } from '@idp/tokens';
import { authenticate, type BearerDeps } from './auth/bearer';
import { buildOpenApiDocument } from './openapi/document';
import { buildRouter, type ApiDeps, type ClosedPath, type RouteDef } from './openapi/route';
import { clientRoutes } from './routes/clients';
import { initialAccessTokenRoutes } from './routes/initial-access-tokens';
import { clientScriptStateRoutes } from './routes/client-script-state';
import { delegationPolicyRoutes } from './routes/delegation-policies';
import type { RouteDeps } from './routes/deps';
import { groupRoutes, roleRoutes } from './routes/groups-roles';
import { keyRoutes } from './routes/keys';
import { metaRoutes } from './routes/meta';
import { nheRegistrationRoutes } from './routes/nhe-registrations';
import { resourceServerRoutes } from './routes/resource-servers';
import { tenantRoutes } from './routes/tenants';
import { tokenAuditClosedPaths, tokenAuditRoutes } from './routes/token-audit';
import { workloadIssuerRoutes } from './routes/workload-issuers';
import { trustedIssuerRoutes } from './routes/trusted-issuers';
import { idJagAudienceRoutes } from './routes/id-jag-audiences';
import { upstreamProviderRoutes } from './routes/upstream-providers';
import { upstreamLinkRoutes } from './routes/upstream-links';
import { userRoutes } from './routes/users';
import { userSessionRoutes } from './routes/user-sessions';
import { scimCredentialRoutes } from './routes/scim-credentials';
import { SCIM_PATH, scimRouter } from './scim/router';
import { passwordResetRoutes } from './routes/password-resets';
import { userPasskeyRoutes } from './routes/user-passkeys';
import { ssfStreamRoutes } from './routes/ssf-streams';
import { auditChainRoutes } from './routes/audit-chain';
import { jobRoutes } from './routes/jobs';
import { detachedRunner } from './jobs/runner';
import { createJobService, type JobService } from './jobs/service';
import { consoleRedirectUris } from './console/console-client';
import { consoleRouter } from './console/console-router';

export const API_VERSION = '1.0.0';

export interface AppDeps {
  logger: Logger;
  models: Models;
  readiness: ReadinessCheck[];
  bearer: BearerDeps;
  trustProxy: boolean;
  keyStore: KeyStore;
  clientSecretPepper: string;
  /** Configuration invalidation over NATS (libs/events invalidation); absent without NATS. */
  publishInvalidation?: ApiDeps['publishInvalidation'];
  /** Kill switch for issued NHE tokens (libs/events revocations); absent without NATS. */
  revoke?: (input: RevocationInput) => Promise<void>;
  /** Scheduled jobs (Kubernetes CronJob or in-process scheduler); absent: the jobs API cannot start runs. */
  jobs?: JobService;
  /** The system tenant's bootstrap administrator (SYSTEM_TENANT_ID, BOOTSTRAP_ADMIN_CLIENT_ID): never disabled or deleted through the API. */
  bootstrapAdmin?: { tenantId: number; clientId: string };
  /**
   * The admin console (console/) served under /auth/admin/console/: the folder of its build (absent or
   * missing: only its config.json answers), and the system tenant it offers to sign in to. Every tenant created
   * through the API gets the console's public client.
   */
  console?: { dir: string | undefined; systemTenantId: number };
}

/** Every declared route of the API (the OpenAPI document is generated from exactly this list). */
export function managementRoutes(
  d: RouteDeps & { jobs?: JobService },
  document: () => unknown,
): { routes: RouteDef[]; closedPaths: ClosedPath[] } {
  return {
    routes: [
      ...metaRoutes(document),
      ...tenantRoutes(d),
      ...clientRoutes(d),
      ...initialAccessTokenRoutes(d),
      ...clientScriptStateRoutes(d),
      ...resourceServerRoutes(d),
      ...userRoutes(d),
      ...groupRoutes(d),
      ...roleRoutes(d),
      ...keyRoutes(d),
      ...nheRegistrationRoutes(d),
      ...workloadIssuerRoutes(d),
      ...trustedIssuerRoutes(d),
      ...idJagAudienceRoutes(d),
      ...upstreamProviderRoutes(d),
      ...upstreamLinkRoutes(d),
      ...userSessionRoutes(d),
      ...scimCredentialRoutes(d),
      ...passwordResetRoutes(d),
      ...userPasskeyRoutes(d),
      ...ssfStreamRoutes(d),
      ...delegationPolicyRoutes(d),
      ...tokenAuditRoutes(d),
      ...auditChainRoutes(d),
      ...jobRoutes({
        jobs: d.jobs ?? createJobService({ models: d.models, logger: d.logger, runner: detachedRunner }),
      }),
    ],
    closedPaths: [...tokenAuditClosedPaths],
  };
}

/** The admin REST API under /auth/admin (and /_api/auth/admin). */
export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({
    service: 'management',
    logger: deps.logger,
    readiness: deps.readiness,
    // Exactly one trusted hop (the ingress, or the dev router): the client address is the one it appended, so a
    // client anywhere, private networks included, cannot choose its address by sending X-Forwarded-For.
    trustProxy: deps.trustProxy ? 1 : false,
  });

  const routeDeps: RouteDeps = {
    models: deps.models,
    logger: deps.logger,
    keyStore: deps.keyStore,
    clientSecretPepper: deps.clientSecretPepper,
    publicBaseUrl: deps.bearer.publicBaseUrl,
    ...(deps.revoke ? { revoke: deps.revoke } : {}),
    ...(deps.bootstrapAdmin ? { bootstrapAdmin: deps.bootstrapAdmin } : {}),
    ...(deps.console ? { consoleRedirectUris: consoleRedirectUris(deps.bearer.publicBaseUrl) } : {}),
  };
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  const { routes, closedPaths } = managementRoutes(
    { ...routeDeps, ...(deps.jobs ? { jobs: deps.jobs } : {}) },
    () => (document ??= buildOpenApiDocument(routes, { version: API_VERSION })),
  );

  // DPoP proofs are remembered where the sidecar's token endpoint remembers them: one store for every replica.
  const accessToken = authenticate({
    ...deps.bearer,
    replayStore: deps.bearer.replayStore ?? ((tenantId) => dpopProofReplayStore(deps.models, tenantId)),
  });
  const admin: Router = buildRouter(routes, closedPaths, {
    logger: deps.logger,
    authenticate: accessToken,
    tenantExists: async (tenantId) => (await deps.models.Tenant.exists({ _id: tenantId })) !== null,
    ...(deps.publishInvalidation ? { publishInvalidation: deps.publishInvalidation } : {}),
  });
  if (deps.console) app.use(['/auth/admin/console', '/_api/auth/admin/console'], consoleRouter(deps.console));
  app.use(['/auth/admin', '/_api/auth/admin'], admin);
  // Each tenant's SCIM 2.0 service provider (RFC 7644), below the tenant's issuer path (charts/idp/files/routes.json).
  app.use(
    [SCIM_PATH, `/_api${SCIM_PATH}`],
    scimRouter({
      models: deps.models,
      logger: deps.logger,
      publicBaseUrl: deps.bearer.publicBaseUrl,
      accessToken,
      ...(deps.revoke ? { revoke: deps.revoke } : {}),
      ...(deps.publishInvalidation ? { publishInvalidation: deps.publishInvalidation } : {}),
    }),
  );
  app.use(problemNotFound);
  app.use(problemErrorHandler(deps.logger));
  return {
    app,
    registry,
    routes,
    openapi: () => (document ??= buildOpenApiDocument(routes, { version: API_VERSION })),
  };
}
