import { passwordResetRoutes } from './account/password-reset';
import type { IncomingMessage, RequestListener } from 'node:http';
import { Router, type NextFunction, type Request, type Response } from 'express';
import { createHttpApp, oauthErrorHandler, oauthNotFound, type OutboundPolicy, type ReadinessCheck } from '@idp/http';
import { OAuthError } from '@idp/errors';
import type { Models } from '@idp/db';
import type { Logger } from '@idp/logger';
import type { KeyEncryptionKey } from '@idp/tokens';
import { interactionRoutes } from './routes/interactions';
import { upstreamRoutes } from './upstream/routes';
import { upstreamLogoutRoutes } from './upstream/logout';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from './domain/login-throttle';
import { accountRoutes, type AccountDeps } from './account/routes';
import { cibaApprovalRoutes } from './provider/ciba';
import { formPostEndpoints } from './routes/form-post-endpoints';
import { customClaimsScriptErrors, customClaimsScriptSkips } from './provider/claims-custom';
import {
  holdSlotUntil,
  tenantAdmission,
  tenantRequestsQueued,
  tenantRequestsQueueSeconds,
  tenantRequestsRejected,
} from './routes/tenant-admission';
import type { TenantAdmissionLimits } from './domain/tenant-admission';
import { logoutRoutes, providerPageHeaders } from './routes/logout';
import { PROVIDER_CSP } from './views/pages';
import { UnknownTenantError, type TenantContext } from './tenants/tenant-pool';
import { disabledTenantRefusal, sendDisabledPage, wantsPage } from './tenants/tenant-disabled';

export interface TenantResolver {
  get(tenantId: string): Promise<TenantContext>;
}

export interface AppDeps {
  logger: Logger;
  models: Models;
  tenants: TenantResolver;
  readiness: ReadinessCheck[];
  trustProxy: boolean;
  /** Proxies in front that append to X-Forwarded-For (TRUST_PROXY_HOPS); default 1, the ingress. */
  trustProxyHops?: number;
  /** Key-encryption key: opens the users' sealed TOTP secrets. */
  kek: KeyEncryptionKey;
  /** Failed sign-in limits (per account and per IP); defaults apply when absent. */
  loginThrottle?: LoginThrottle;
  /** The platform's outbound policy for upstream identity providers (UPSTREAM_ALLOW_*); default: public https only. */
  upstreamPolicy?: OutboundPolicy;
  /** Requests of one tenant handled at once and waiting, per process (TENANT_MAX_IN_FLIGHT, TENANT_MAX_QUEUED); defaults apply when absent. */
  admission?: TenantAdmissionLimits;
  /** The user's delegation ledger (account/): the kill-switch publisher and store; default: the store only. */
  account?: Pick<AccountDeps, 'revoke' | 'revocations' | 'invalidateUser'>;
}

/**
 * oidc-core's HTTP surface: every tenant's provider under /auth/{tenantId} and its /_api alias, with our own
 * interaction pages mounted before the provider (a mounted provider never falls through).
 */
/**
 * Answers with the tenant provider's own discovery document, whatever path the request came in on. The provider
 * derives its endpoint URLs from originalUrl minus url, so both are set to the tenant's mount.
 */
function serveDiscovery(req: Request, res: Response): void {
  const tenant = (req as Request & { tenant: TenantContext }).tenant;
  const alias = req.originalUrl.startsWith('/_api/') ? '/_api' : '';
  req.url = '/.well-known/openid-configuration';
  req.originalUrl = `${alias}/auth/${tenant.tenantId}${req.url}`;
  holdSlotUntil(req, () => tenant.callback(req, res));
}

export function createApp(deps: AppDeps) {
  const { app, registry, prelude, clientIp } = createHttpApp({
    service: 'oidc-core',
    logger: deps.logger,
    readiness: deps.readiness,
    // Exactly the trusted hops (the ingress, or the dev router; TRUST_PROXY_HOPS): the client address is the one the
    // outermost of them appended, so a client anywhere, private networks included, cannot choose its address by
    // sending X-Forwarded-For.
    trustProxy: deps.trustProxy ? (deps.trustProxyHops ?? 1) : false,
    // Pages set their own CSP (views/pages.ts); provider-rendered responses (form_post, device, logout) need theirs.
    contentSecurityPolicy: false,
  });
  registry.registerMetric(customClaimsScriptErrors);
  registry.registerMetric(customClaimsScriptSkips);
  registry.registerMetric(tenantRequestsQueued);
  registry.registerMetric(tenantRequestsRejected);
  registry.registerMetric(tenantRequestsQueueSeconds);
  // Every request under a tenant's mount, once the tenant is resolved, holds one of that tenant's slots until its
  // response closes, so that one tenant's flood waits in its own queue, never in front of another tenant's requests.
  const admit = tenantAdmission(deps.admission);

  const tenantRouter = Router({ mergeParams: true });

  tenantRouter.use(async (req: Request, res: Response, next: NextFunction) => {
    let tenant: TenantContext;
    try {
      tenant = await deps.tenants.get(String(req.params.tenantId));
    } catch (err) {
      next(tenantError(err));
      return;
    }
    (req as Request & { tenant: TenantContext }).tenant = tenant;
    const refusal = disabledTenantRefusal(tenant.tenant, req.method, req.path);
    if (refusal) {
      if (wantsPage(req)) sendDisabledPage(res, tenant.tenant.name);
      else next(refusal);
      return;
    }
    admit(req, res, String(tenant.tenantId), next, next);
  });
  const toProvider = (req: Request, res: Response) => {
    holdSlotUntil(req, () => (req as Request & { tenant: TenantContext }).tenant.callback(req, res));
  };
  const pageHeaders = providerPageHeaders(PROVIDER_CSP);
  // RFC 8414 metadata: the same document as OpenID discovery, at the tenant-relative path many clients try.
  tenantRouter.get('/.well-known/oauth-authorization-server', serveDiscovery);
  tenantRouter.use(pageHeaders);
  tenantRouter.use(formPostEndpoints());
  tenantRouter.use(accountRoutes({ models: deps.models, logger: deps.logger, ...deps.account }));
  tenantRouter.use(cibaApprovalRoutes({ models: deps.models, logger: deps.logger }));
  tenantRouter.use(passwordResetRoutes({ models: deps.models, logger: deps.logger }));
  const loginThrottle = deps.loginThrottle ?? new LoginThrottle(deps.models, DEFAULT_LOGIN_THROTTLE);
  tenantRouter.use(
    upstreamLogoutRoutes({
      models: deps.models,
      kek: deps.kek,
      logger: deps.logger,
      policy: deps.upstreamPolicy ?? {},
    }),
  );
  tenantRouter.use(
    upstreamRoutes({
      models: deps.models,
      kek: deps.kek,
      logger: deps.logger,
      loginThrottle,
      policy: deps.upstreamPolicy ?? {},
    }),
  );
  tenantRouter.use(interactionRoutes({ models: deps.models, kek: deps.kek, logger: deps.logger, loginThrottle }));
  tenantRouter.use(logoutRoutes());
  tenantRouter.use(toProvider);

  app.use(['/auth/:tenantId', '/_api/auth/:tenantId'], tenantRouter);
  // RFC 8414 section 3.1: the well-known segment goes between host and the issuer's path.
  app.get(
    [
      '/.well-known/oauth-authorization-server/auth/:tenantId',
      '/_api/.well-known/oauth-authorization-server/auth/:tenantId',
    ],
    (req, res, next) => {
      deps.tenants.get(String(req.params.tenantId)).then(
        (tenant) => {
          (req as Request & { tenant: TenantContext }).tenant = tenant;
          const refusal = disabledTenantRefusal(tenant.tenant, req.method, '/.well-known/openid-configuration');
          if (refusal) {
            next(refusal);
            return;
          }
          admit(req, res, String(tenant.tenantId), () => serveDiscovery(req, res), next);
        },
        (err: unknown) => next(tenantError(err)),
      );
    },
  );
  app.use(oauthNotFound);
  const errors = oauthErrorHandler(deps.logger);
  app.use(errors);

  /**
   * The token endpoint, the hot path of every grant, and the other machine endpoints go to the tenant's provider
   * without express (same security headers, request id, metrics and request log through the prelude; the client
   * address resolved under the same trust-proxy setting; the mount in originalUrl as express would leave it).
   * Everything else is the express app.
   */
  const listener: RequestListener = (req, res) => {
    const m = PROVIDER_HOT_PATH.exec(req.url ?? '');
    if (!m || HOT_PATH_METHOD[m[3]!] !== req.method) {
      app(req, res);
      return;
    }
    // The optional `/_api` group is undefined when it did not match (the array's type says string).
    const prefix = m[1] as string | undefined;
    const mount = `${prefix ?? ''}/auth/${m[2]}`;
    prelude(req, res, `${prefix ?? ''}/auth/:tenantId${m[3]}`, () => {
      deps.tenants.get(m[2]!).then(
        (tenant) => {
          const refusal = disabledTenantRefusal(tenant.tenant, req.method ?? 'GET', m[3]!);
          if (refusal) {
            errors(refusal, req as Request, res as Response, () => undefined);
            return;
          }
          const raw = req as IncomingMessage & { originalUrl?: string; ip?: string };
          raw.originalUrl = req.url;
          raw.ip = clientIp(req);
          req.url = req.url!.slice(mount.length);
          pageHeaders(req as Request, res as Response, () => undefined);
          admit(
            req,
            res,
            String(tenant.tenantId),
            () => holdSlotUntil(req, () => tenant.callback(req, res)),
            (err) => errors(err, req as Request, res as Response, () => undefined),
          );
        },
        (err: unknown) => errors(tenantError(err), req as Request, res as Response, () => undefined),
      );
    });
  };
  return { app, registry, listener, admission: admit.admission };
}

/** A tenant that could not be resolved: unknown ids are a 404 OAuth error, anything else goes on as it is. */
function tenantError(err: unknown): unknown {
  return err instanceof UnknownTenantError ? new OAuthError('not_found', 'unknown tenant', 404) : err;
}

/**
 * The provider's machine-to-machine endpoints, served without express: the token endpoint (every grant), what
 * resource servers call (introspection, the JWKS) and revocation; none of our own pages answers them. With or
 * without a query string, under {/_api}/auth/{tenantId}.
 */
const PROVIDER_HOT_PATH =
  /^(\/_api)?\/auth\/(\d{1,15})(\/oidc\/token|\/token\/introspection|\/token\/revocation|\/jwks)(?:\?.*)?$/;
const HOT_PATH_METHOD: Record<string, string> = {
  '/oidc/token': 'POST',
  '/token/introspection': 'POST',
  '/token/revocation': 'POST',
  '/jwks': 'GET',
};
