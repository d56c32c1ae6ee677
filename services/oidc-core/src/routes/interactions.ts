import express, { Router, type Request, type Response } from 'express';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import type { SignInFacts } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { DUMMY_PASSWORD_HASH, verifyPassword, type KeyEncryptionKey } from '@idp/tokens';
import { ACR_MFA, ACR_PWD, acrForAmr, claimsRequestOf, essentialAcrAttainable, meetsEssentialAcr } from '../domain/acr';
import { DEFAULT_LOGIN_THROTTLE, LoginThrottle } from '../domain/login-throttle';
import { normaliseTotpCode, verifyUserTotp } from '../domain/totp';
import type { TenantContext } from '../tenants/tenant-pool';
import { CHECK_ESSENTIAL_ACR } from '../provider/acr-policy';
import { LOGIN_SCOPES } from '../provider/claims';
import { consentScopesIn, nothingGrantedReason, recordResourceConsent } from '../provider/consent';
import { CLIENT_PROPS } from '../provider/client-metadata';
import { isMetadataDocumentClientId } from '../provider/client-id-metadata';
import { findResourceServer } from '../provider/resource-servers';
import { agentConsentOf } from '../provider/agent-consent';
import { userinfoAudience } from '../provider/userinfo-audience';
import { registeredClientPresentation } from '../provider/openid-dynamic';
import {
  pageCsp,
  renderConsentPage,
  renderLoginPage,
  renderTotpPage,
  type ConsentAgent,
  type ConsentClient,
  type ConsentResource,
} from '../views/pages';
import { interactionErrorPage } from './interaction-errors';
import { directedProvider, enabledProviders, passwordSignInAllowed, providerForEmail } from '../upstream/providers';
import { upstreamStartPath } from '../upstream/routes';
import { renderContinuePage } from '../upstream/pages';
import {
  enabledPasskeys,
  loginPagePasskeyPart,
  passkeyLoginRoutes,
  passkeyStepUpWanted,
  sendPasskeyStepUp,
} from '../passkeys/login-routes';
import { strongestAcr } from '../passkeys/settings';
import {
  consentConfirmationPart,
  consentConfirmationRequired,
  verifyConsentConfirmation,
} from '../passkeys/consent-confirmation';

export interface InteractionDeps {
  models: Models;
  /** Opens the users' sealed TOTP secrets. */
  kek: KeyEncryptionKey;
  logger?: Logger;
  /** Failed sign-in limits; defaults to DEFAULT_LOGIN_THROTTLE over `models`. */
  loginThrottle?: LoginThrottle;
}

/** What every failed password or unknown name shows: nothing tells whether the account exists. */
export const WRONG_CREDENTIALS = 'The username or password is not correct.';
/** Shown while a name or an address is locked, whether or not the account exists. */
export const LOCKED_OUT = 'Too many failed sign-in attempts. Wait a few minutes, then try again.';
export const WRONG_TOTP = 'That code is not correct. Enter the current code from your authenticator app.';
const MFA_EXPIRED = 'The sign-in took too long. Enter your username and password again.';

/** AMR values (RFC 8176) of a password sign-in and of a password plus TOTP sign-in. */
export const AMR_PASSWORD = ['pwd'];
export const AMR_PASSWORD_TOTP = ['pwd', 'otp', 'mfa'];

/** OpenID Connect Core error code unmet_authentication_requirements 1.0: an essential acr that cannot be met. */
export const UNMET_AUTHENTICATION_REQUIREMENTS = 'unmet_authentication_requirements';
export const ACR_NEEDS_SECOND_FACTOR =
  'the requested authentication context (acr) needs a second factor, and this account has none';
export const ACR_UNSUPPORTED = 'none of the requested authentication contexts (acr) is supported';

/** Key in the interaction's stored result while the password is verified and the TOTP code is awaited. */
const PENDING_MFA = 'idp_pending_mfa';
const PENDING_MFA_SECONDS = 300;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

const MAX_FIELD = 256;

type Details = Awaited<ReturnType<TenantContext['provider']['interactionDetails']>>;

/** A session's sign-in for the delegation decision: its acr (or the one its amr implies), amr and age. */
function signInOfSession(session: { acr?: unknown; amr?: unknown; loginTs?: unknown }): SignInFacts {
  const amr = Array.isArray(session.amr) ? session.amr.filter((v): v is string => typeof v === 'string') : undefined;
  return {
    acr: typeof session.acr === 'string' && session.acr ? session.acr : acrForAmr(amr),
    ...(amr ? { amr } : {}),
    ...(typeof session.loginTs === 'number' ? { ageSeconds: Date.now() / 1000 - session.loginTs } : {}),
  };
}

function send(
  res: Response,
  status: number,
  html: string,
  formTargets: string[] = [],
  images: string[] = [],
  nonce?: string,
): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': pageCsp({ formTargets, images, nonce, connect: Boolean(nonce) }),
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

/** After a form on these pages the provider redirects to the client's redirect_uri: allow it in form-action. */
function redirectTargets(details: Details): string[] {
  const uri = details.params.redirect_uri;
  return typeof uri === 'string' ? [uri] : [];
}

function pendingMfa(details: Details): { accountId: string; at: number } | undefined {
  const p = (details.result as Record<string, unknown> | undefined)?.[PENDING_MFA] as
    { accountId?: unknown; at?: unknown } | undefined;
  if (!p || typeof p.accountId !== 'string' || typeof p.at !== 'number') return undefined;
  return { accountId: p.accountId, at: p.at };
}

/**
 * Step-up: the account of an already signed-in session whose login prompt asks only for a stronger acr (no
 * prompt=login, max_age, id_token_hint or other reason that needs the password again).
 */
function stepUpAccount(details: Details): string | undefined {
  const accountId = details.session?.accountId;
  if (!accountId) return undefined;
  // The interaction is read back from storage: its prompt may lack `reasons`.
  const reasons = (details.prompt as { reasons?: string[] }).reasons ?? [];
  return reasons.length > 0 && reasons.every((r) => r === CHECK_ESSENTIAL_ACR) ? accountId : undefined;
}

/** The login scopes of the request, in the order asked (offline_access included: it is shown as such). */
function requestedLoginScopes(details: Details): string[] {
  const scope = typeof details.params.scope === 'string' ? details.params.scope : '';
  return [...new Set(scope.split(' ').filter((s) => LOGIN_SCOPES.has(s)))];
}

/** A resource of the consent page: its name and each scope with the description the resource server gives it. */
async function consentResource(
  models: Models,
  tenant: TenantContext,
  resource: string,
  scopes: string[],
): Promise<ConsentResource> {
  const rs = await findResourceServer(models, tenant.tenantId, resource);
  const descriptions = new Map((rs?.scopeDescriptions ?? []).map((d) => [d.scope, d.description]));
  return { resource, name: rs?.name, scopes: scopes.map((scope) => ({ scope, description: descriptions.get(scope) })) };
}

const field = (body: unknown, name: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, MAX_FIELD) : '';
};

/** Login, TOTP and consent pages behind node-oidc-provider's interaction URLs. */
export function interactionRoutes(deps: InteractionDeps): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });
  const throttle = deps.loginThrottle ?? new LoginThrottle(deps.models, DEFAULT_LOGIN_THROTTLE);

  const clientNameOf = async (tenant: TenantContext, details: Details) => {
    const client = await tenant.provider.Client.find(String(details.params.client_id));
    return client?.clientName ?? String(details.params.client_id);
  };

  /**
   * Who is asking, for the consent page. A client identified by a metadata document: the document's
   * client_name, the host of its client_id URL (shown prominently: the name is the client's own claim, the host is
   * what the user can check), and its logo_uri only when it has the client_id URL's origin. A dynamically registered
   * client: its registered name, marked as registered by itself.
   */
  const consentClientOf = async (tenant: TenantContext, details: Details): Promise<ConsentClient> => {
    const clientId = String(details.params.client_id);
    const client = await tenant.provider.Client.find(clientId);
    const name = client?.clientName ?? clientId;
    if (isMetadataDocumentClientId(clientId)) {
      const url = new URL(clientId);
      let logoUri: string | undefined;
      try {
        const logo = client?.logoUri ? new URL(client.logoUri) : undefined;
        if (logo && logo.origin === url.origin) logoUri = logo.href;
      } catch {
        logoUri = undefined;
      }
      return { name, host: url.host, source: 'metadata_document', ...(logoUri ? { logoUri } : {}) };
    }
    // A registered client's logo, policy and terms links (https only; provider/openid-dynamic/client-presentation.ts).
    return (client as { [key: string]: unknown } | undefined)?.[CLIENT_PROPS.registration] === 'dynamic'
      ? { name, source: 'dynamic' as const, ...registeredClientPresentation(client) }
      : { name };
  };

  /**
   * An agent client: the agent it embodies and, for each API, the decision its delegation token
   * would get (the same function as the sidecar's), with the resource servers' names and scope descriptions.
   */
  const agentConsentPart = async (
    tenant: TenantContext,
    details: Details,
    carried: Record<string, string[]>,
    withheld: Record<string, string[]>,
  ): Promise<ConsentAgent | undefined> => {
    const clientId = String(details.params.client_id);
    const accountId = details.session?.accountId;
    if (!accountId) return undefined;
    const client = await tenant.provider.Client.find(clientId);
    const numericId = Number((client as { [key: string]: unknown } | undefined)?.[CLIENT_PROPS.numericId]);
    // The session's sign-in, as the code will record it (the token endpoint forwards the same to the sidecar).
    const session = details.session?.cookie ? await tenant.provider.Session.find(details.session.cookie) : undefined;
    const agent = await agentConsentOf(deps.models, {
      ...(session ? { signIn: signInOfSession(session) } : {}),
      tenantId: tenant.tenantId,
      clientId,
      clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
      userId: accountId,
      requestedScopes: typeof details.params.scope === 'string' ? details.params.scope.split(' ').filter(Boolean) : [],
      carried,
      withheld,
      userinfoAudience: userinfoAudience(tenant.provider.issuer),
    });
    if (!agent) return undefined;
    const apis = await Promise.all(
      agent.apis.map(async (api) => {
        if (api.outcome === 'denied') {
          const rs = await findResourceServer(deps.models, tenant.tenantId, api.resource);
          return { resource: api.resource, name: rs?.name, scopes: [], denied: api.reason };
        }
        return {
          ...(await consentResource(deps.models, tenant, api.resource, api.scopes)),
          lifetimeSeconds: api.lifetimeSeconds,
          removed: api.removed,
        };
      }),
    );
    return {
      identifier: agent.identifier,
      type: agent.type,
      operator: agent.operator,
      ...(agent.model ? { model: agent.model } : {}),
      apis,
    };
  };

  const loginPage = async (
    res: Response,
    req: Request,
    details: Details,
    status: number,
    extra: { error?: string; username?: string } = {},
  ) => {
    const tenant = tenantOf(req);
    const providers = await enabledProviders(deps.models, tenant.tenantId);
    const passkey = loginPagePasskeyPart(req, details);
    send(
      res,
      status,
      renderLoginPage({
        action: `${req.baseUrl}/interaction/${details.uid}/login`,
        clientName: await clientNameOf(tenant, details),
        tenantName: tenant.tenant.name,
        providers: providers.map((p) => ({
          displayName: p.displayName,
          href: upstreamStartPath(req.baseUrl, details.uid, p.alias),
        })),
        passwordSignIn: passwordSignInAllowed(providers) && !passkey?.only,
        homeRealmDiscovery: providers.some((p) => p.emailDomains.length > 0),
        ...(passkey ? { passkey } : {}),
        ...extra,
      }),
      redirectTargets(details),
      [],
      passkey?.nonce,
    );
  };

  const totpPage = async (res: Response, req: Request, details: Details, status: number, error?: string) => {
    const tenant = tenantOf(req);
    const base = `${req.baseUrl}/interaction/${details.uid}`;
    send(
      res,
      status,
      renderTotpPage({
        action: `${base}/totp`,
        restartAction: `${base}/abort`,
        clientName: await clientNameOf(tenant, details),
        tenantName: tenant.tenant.name,
        error,
      }),
      redirectTargets(details),
    );
  };

  const locked = (res: Response, retryAfterSeconds: number) => res.set('Retry-After', String(retryAfterSeconds));

  /** Ends the authorization request with unmet_authentication_requirements (back to the client's redirect URI). */
  const unmet = (req: Request, res: Response, description: string) =>
    tenantOf(req).provider.interactionFinished(
      req,
      res,
      { error: UNMET_AUTHENTICATION_REQUIREMENTS, error_description: description },
      { mergeWithLastSubmission: false },
    );

  router.get('/interaction/:uid', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        // An essential acr nothing here can reach fails at once (unknown values).
        const passkeys = enabledPasskeys(tenant);
        if (!essentialAcrAttainable(claimsRequestOf(details.params), passkeys ? strongestAcr(passkeys) : ACR_MFA))
          return await unmet(req, res, ACR_UNSUPPORTED);
        const pending = pendingMfa(details);
        const fresh = pending && Date.now() / 1000 - pending.at < PENDING_MFA_SECONDS;
        const stepUp = stepUpAccount(details);
        if (stepUp) {
          // Step-up: the signed-in user only adds the TOTP code (the password was given at sign-in); a user without
          // TOTP cannot reach the essential acr.
          const user = await deps.models.User.findOne(
            { tenantId: tenant.tenantId, _id: stepUp },
            { enabled: 1, totpSecret: 1 },
          ).lean();
          if (user?.enabled) {
            // A passkey where the request needs a phishing-resistant login (acr phr) or the user has no TOTP.
            const mfaEnough = meetsEssentialAcr(ACR_MFA, claimsRequestOf(details.params));
            if (await passkeyStepUpWanted(deps.models, tenant, stepUp, Boolean(user.totpSecret), mfaEnough))
              return await sendPasskeyStepUp(req, res, details, await clientNameOf(tenant, details));
            if (!user.totpSecret || !mfaEnough) return await unmet(req, res, ACR_NEEDS_SECOND_FACTOR);
            if (!fresh || pending.accountId !== stepUp) {
              details.result = {
                ...(details.result ?? {}),
                [PENDING_MFA]: { accountId: stepUp, at: Math.floor(Date.now() / 1000) },
              } as typeof details.result;
              await details.persist();
            }
            await totpPage(res, req, details, 200);
            return;
          }
        }
        if (fresh) {
          await totpPage(res, req, details, 200);
          return;
        }
        // idp_hint, a login_hint in a provider's email domain, or the tenant's only provider: straight there.
        const directed = pending
          ? undefined
          : directedProvider(await enabledProviders(deps.models, tenant.tenantId), details.params);
        if (directed) {
          const start = upstreamStartPath(req.baseUrl, details.uid, directed.provider.alias);
          res.redirect(
            303,
            directed.loginHint ? `${start}?login_hint=${encodeURIComponent(directed.loginHint)}` : start,
          );
          return;
        }
        await loginPage(res, req, details, 200, pending ? { error: MFA_EXPIRED } : {});
        return;
      }
      const base = `${req.baseUrl}/interaction/${details.uid}`;
      // Every login scope the client asked for, and for every API of the request each scope its token will carry
      // (the RBAC auto-grant included): what the grant records when the user allows it (provider/consent.ts).
      const consentScopes = consentScopesIn(details.prompt.details);
      const carried = consentScopes?.carried ?? {};
      const client = await consentClientOf(tenant, details);
      const agent = await agentConsentPart(tenant, details, carried, consentScopes?.withheld ?? {});
      const passkeyConfirm =
        agent && details.session?.accountId
          ? (await consentConfirmationRequired(
              deps.models,
              tenant,
              String(details.params.client_id),
              details.session.accountId,
            ))
            ? consentConfirmationPart(req.baseUrl, details.uid)
            : undefined
          : undefined;
      send(
        res,
        200,
        renderConsentPage({
          action: `${base}/confirm`,
          abortAction: `${base}/abort`,
          clientName: client.name,
          client,
          tenantName: tenant.tenant.name,
          scopes: requestedLoginScopes(details),
          claims: [(details.prompt.details as { missingOIDCClaims?: unknown }).missingOIDCClaims]
            .flat()
            .filter((c): c is string => typeof c === 'string'),
          resources: await Promise.all(
            Object.entries(carried).map(([resource, scopes]) => consentResource(deps.models, tenant, resource, scopes)),
          ),
          ...(agent ? { agent, ledgerUrl: `${req.baseUrl}/account/agents` } : {}),
          ...(passkeyConfirm ? { passkeyConfirm } : {}),
        }),
        redirectTargets(details),
        client.logoUri ? [client.logoUri] : [],
        passkeyConfirm?.nonce,
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
      const username = field(req.body, 'username');
      const password = field(req.body, 'password');
      const providers = await enabledProviders(deps.models, tenant.tenantId);
      // Home-realm discovery: an address in a provider's email domain, typed without a password, signs in there. With
      // a password it is a local sign-in (a local administrator whose name is such an address is not locked out).
      const home = password ? undefined : providerForEmail(providers, username);
      if (home) {
        send(
          res,
          200,
          renderContinuePage({
            tenantName: tenant.tenant.name,
            providerName: home.displayName,
            href: `${upstreamStartPath(req.baseUrl, details.uid, home.alias)}?login_hint=${encodeURIComponent(username)}`,
          }),
        );
        return;
      }
      if (!passwordSignInAllowed(providers))
        throw new errors.InvalidRequest('this tenant signs people in through its identity provider only');
      if (enabledPasskeys(tenant)?.passkeyOnly)
        throw new errors.InvalidRequest('this tenant signs people in with passkeys only');
      if (!username || !password) {
        await loginPage(res, req, details, 400, { error: 'Enter your username and password.', username });
        return;
      }
      const outcome = await throttle.begin(tenant.tenantId, username, req.ip ?? 'unknown');
      if (!outcome.allowed) {
        locked(res, outcome.retryAfterSeconds);
        await loginPage(res, req, details, 429, { error: LOCKED_OUT, username });
        return;
      }
      const user = await deps.models.User.findOne(
        { tenantId: tenant.tenantId, username },
        { passwordHash: 1, enabled: 1, totpSecret: 1 },
      ).lean();
      // Always run one hash so that unknown accounts take as long as wrong passwords.
      const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !ok || !user.enabled) {
        await outcome.attempt.failed();
        await loginPage(res, req, details, 401, { error: WRONG_CREDENTIALS, username });
        return;
      }
      const accountId = String(user._id);
      if (user.totpSecret) {
        // The password alone does not clear earlier failures: TOTP guesses stay limited.
        await outcome.attempt.neutral();
        details.result = {
          ...(details.result ?? {}),
          [PENDING_MFA]: { accountId, at: Math.floor(Date.now() / 1000) },
        } as typeof details.result;
        await details.persist();
        res.redirect(303, `${req.baseUrl}/interaction/${details.uid}`);
        return;
      }
      await outcome.attempt.succeeded();
      // A password alone: an essential acr that needs more cannot be met for this account.
      if (!meetsEssentialAcr(ACR_PWD, claimsRequestOf(details.params)))
        return await unmet(req, res, ACR_NEEDS_SECOND_FACTOR);
      await tenant.provider.interactionFinished(
        req,
        res,
        { login: { accountId, amr: AMR_PASSWORD, acr: ACR_PWD } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/totp', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a login');
      const pending = pendingMfa(details);
      if (!pending || Date.now() / 1000 - pending.at >= PENDING_MFA_SECONDS) {
        await loginPage(res, req, details, 400, { error: MFA_EXPIRED });
        return;
      }
      const user = await deps.models.User.findOne(
        { tenantId: tenant.tenantId, _id: pending.accountId },
        { username: 1, enabled: 1, totpSecret: 1 },
      ).lean();
      if (!user?.enabled || !user.totpSecret) {
        await loginPage(res, req, details, 401, { error: WRONG_CREDENTIALS });
        return;
      }
      const outcome = await throttle.begin(tenant.tenantId, user.username, req.ip ?? 'unknown');
      if (!outcome.allowed) {
        locked(res, outcome.retryAfterSeconds);
        await totpPage(res, req, details, 429, LOCKED_OUT);
        return;
      }
      const code = normaliseTotpCode(field(req.body, 'code'));
      if (
        !code ||
        !(await verifyUserTotp(deps.models, deps.kek, tenant.tenantId, pending.accountId, code, deps.logger))
      ) {
        await outcome.attempt.failed();
        await totpPage(res, req, details, 401, WRONG_TOTP);
        return;
      }
      await outcome.attempt.succeeded();
      await tenant.provider.interactionFinished(
        req,
        res,
        { login: { accountId: pending.accountId, amr: AMR_PASSWORD_TOTP, acr: ACR_MFA } },
        { mergeWithLastSubmission: false },
      );
    } catch (err) {
      next(err);
    }
  });

  router.post('/interaction/:uid/confirm', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const { provider } = tenant;
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name !== 'consent' || !details.session)
        throw new errors.InvalidRequest('this interaction does not expect consent');
      // An agent consent of a tenant that asks for it: a fresh passkey assertion of this user came with the form.
      if (
        (await consentConfirmationRequired(
          deps.models,
          tenant,
          String(details.params.client_id),
          details.session.accountId,
        )) &&
        !(await verifyConsentConfirmation(
          deps.models,
          tenant,
          details.uid,
          details.session.accountId,
          typeof (req.body as Record<string, unknown> | undefined)?.credential === 'string'
            ? String((req.body as Record<string, unknown>).credential).slice(0, 16_384)
            : '',
        ))
      ) {
        await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'the agent was not allowed: no passkey confirmation' },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const d = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session.accountId, clientId: String(details.params.client_id) });
      if (!grant) throw new errors.InvalidRequest('grant not found');
      if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
      if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
      // Exactly the API scopes the page showed, computed when the interaction began and stored with it (not
      // recomputed here, not taken from the form). An interaction without them grants no API scope: the provider
      // then asks again with a fresh page.
      const consented = consentScopesIn(details.prompt.details) ?? { carried: {}, withheld: {} };
      recordResourceConsent(grant, consented);
      const nothing = nothingGrantedReason(
        grant,
        typeof details.params.scope === 'string' ? details.params.scope : '',
        consented,
        userinfoAudience(provider.issuer),
      );
      if (nothing) {
        await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: nothing },
          { mergeWithLastSubmission: false },
        );
        return;
      }
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

  router.use(
    passkeyLoginRoutes({
      models: deps.models,
      loginThrottle: throttle,
      logger: deps.logger,
      clientName: clientNameOf,
      loginPage: (req, res, details, status, error) => loginPage(res, req, details, status, { error }),
    }),
  );

  router.use(interactionErrorPage);

  return router;
}
