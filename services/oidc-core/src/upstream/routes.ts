/**
 * Upstream sign-in inside node-oidc-provider's login interaction. The interaction (bound to the browser by its
 * cookie, kept server-side) holds what the round trip needs: the provider chosen, state, nonce and the PKCE verifier
 * (OIDC), the AuthnRequest id (SAML). The upstream's answer comes back at a per-provider URL outside the interaction
 * path, which hands it to the interaction's own URL (where its cookie is sent) to be checked there:
 *
 *   GET  /interaction/:uid/upstream/:alias       start (login page link, home-realm discovery, idp_hint)
 *   GET  /upstream/:alias/callback               OIDC redirect URI → /interaction/:uid/upstream/callback
 *   POST /interaction/:uid/upstream/link         prove an existing account (password, and TOTP when it has one)
 *   GET  /upstream/:alias/jwks                   our public key for private_key_jwt at the OP
 *   POST /upstream/:alias/saml/acs               SAML Response (HTTP-POST) → /interaction/:uid/upstream-saml
 *   GET  /upstream/:alias/saml/metadata          our SP metadata, for the IdP
 *   GET  /upstream/:alias/saml/slo               IdP-initiated LogoutRequest (HTTP-Redirect)
 */
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import type { OutboundPolicy } from '@idp/http';
import type { Logger } from '@idp/logger';
import { DUMMY_PASSWORD_HASH, verifyPassword, type KeyEncryptionKey } from '@idp/tokens';
import { claimsRequestOf, meetsEssentialAcr } from '../domain/acr';
import { LoginThrottle } from '../domain/login-throttle';
import { normaliseTotpCode, verifyUserTotp } from '../domain/totp';
import type { TenantContext } from '../tenants/tenant-pool';
import { interactionErrorPage } from '../routes/interaction-errors';
import { pageCsp, renderErrorPage } from '../views/pages';
import { passkeySettingsOf } from '../passkeys/settings';
import { applyProfile, createAccount, createLink, resolveAccount } from './accounts';
import { emailDomainOf, mapProfile, type UpstreamAssertion } from './mappers';
import {
  authorizationRedirect,
  clientKeyId,
  finishAuthorization,
  oidcConfiguration,
  publicJwkOf,
  sealedSecretContext,
  sealIdToken,
  UpstreamError,
  type OidcPending,
} from './oidc-upstream';
import { renderLinkPage } from './pages';
import {
  finishSignIn,
  handleIdpLogoutRequest,
  mongoSamlStores,
  SamlError,
  spMetadata,
  startSignIn,
  type SamlAssertionResult,
} from './saml';
import { forgetDescriptor, idpDescriptor, spSettings } from './saml-provider';

export interface UpstreamDeps {
  models: Models;
  kek: KeyEncryptionKey;
  logger?: Logger;
  loginThrottle: LoginThrottle;
  /** The platform's outbound policy for upstream providers (UPSTREAM_ALLOW_LOOPBACK, UPSTREAM_ALLOW_PRIVATE_NETWORKS). */
  policy: OutboundPolicy;
}

/** Keys in the interaction's stored result. */
const PENDING = 'idp_upstream';
const IDENTITY = 'idp_upstream_identity';
const SAML_PENDING = 'idp_upstream_saml';
const SAML_DONE = 'idp_upstream_saml_done';
/** How long the person may take at the upstream provider, and on the link page. */
const ROUND_TRIP_SECONDS = 600;

const ALIAS = /^[a-z0-9][a-z0-9-]{0,39}$/;
const MAX_FIELD = 256;

type Details = Awaited<ReturnType<TenantContext['provider']['interactionDetails']>>;

interface PendingIdentity {
  alias: string;
  assertion: UpstreamAssertion;
  session?: { idToken?: string; nameId?: string; nameIdFormat?: string; sessionIndex?: string };
  at: number;
  /** An existing account has the identity's name or email address (the link page says why none is made). */
  conflict?: boolean;
  /** When the person authenticated upstream (epoch seconds), when it said so and it is not in the future. */
  authTime?: number;
}

const authTimeOf = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= now() + 60 ? Math.min(v, now()) : undefined;

/** The client asked for a fresh sign-in (prompt includes login): so is the upstream asked. */
const freshLogin = (details: Details) =>
  typeof details.params.prompt === 'string' && details.params.prompt.split(' ').includes('login');

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;

const field = (body: unknown, name: string): string => {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, MAX_FIELD) : '';
};

function send(res: Response, status: number, html: string, formTargets: string[] = []): void {
  res
    .status(status)
    .set({
      'Content-Security-Policy': pageCsp({ formTargets }),
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
    })
    .type('html')
    .send(html);
}

const now = () => Math.floor(Date.now() / 1000);

function stored<T>(details: Details, key: string): T | undefined {
  return (details.result as Record<string, unknown> | undefined)?.[key] as T | undefined;
}

export const upstreamStartPath = (base: string, uid: string, alias: string) =>
  `${base}/interaction/${uid}/upstream/${encodeURIComponent(alias)}`;

export function upstreamRoutes(deps: UpstreamDeps): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });
  // A SAML Response with its signatures and certificates: tens of kilobytes.
  const samlForm = express.urlencoded({ extended: false, limit: '512kb', parameterLimit: 5 });
  const { models } = deps;
  const samlStores = mongoSamlStores(models.SamlRequestCache);

  const findProvider = async (tenantId: number, alias: string) => {
    if (!ALIAS.test(alias)) return undefined;
    return (await models.UpstreamProvider.findOne({ tenantId, alias, enabled: true }).lean()) ?? undefined;
  };

  const errorPage = (req: Request, res: Response, status: number, code: string, description: string) =>
    send(res, status, renderErrorPage(code, description, tenantOf(req).tenant.name));

  /** Finishes the login as the account, with the upstream sign-in's mapped amr and acr. */
  const finishLogin = async (
    req: Request,
    res: Response,
    details: Details,
    pending: PendingIdentity,
    userId: string,
  ) => {
    const tenant = tenantOf(req);
    const provider = await findProvider(tenant.tenantId, pending.alias);
    if (!provider) throw new UpstreamError('access_denied', 'this sign-in provider is disabled');
    const mapped = mapProfile(provider, pending.assertion);
    await applyProfile(models, tenant.tenantId, provider, pending.assertion, userId, mapped, pending.session);
    if (!meetsEssentialAcr(mapped.acr, claimsRequestOf(details.params))) {
      await tenant.provider.interactionFinished(
        req,
        res,
        {
          error: 'unmet_authentication_requirements',
          error_description: 'the upstream sign-in does not meet the requested authentication context (acr)',
        },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    await tenant.provider.interactionFinished(
      req,
      res,
      {
        login: {
          accountId: userId,
          amr: mapped.amr,
          acr: mapped.acr,
          // When the person authenticated is when upstream says they did (auth_time, AuthnInstant): max_age and
          // auth_time here then mean what they mean upstream, not the time of the round trip.
          ...(pending.authTime !== undefined ? { ts: pending.authTime } : {}),
        },
      },
      { mergeWithLastSubmission: false },
    );
  };

  const linkPage = async (
    req: Request,
    res: Response,
    details: Details,
    pending: PendingIdentity,
    status: number,
    extra: { error?: string; username?: string } = {},
  ) => {
    const tenant = tenantOf(req);
    const provider = await findProvider(tenant.tenantId, pending.alias);
    if (!provider) throw new UpstreamError('access_denied', 'this sign-in provider is disabled');
    const mapped = mapProfile(provider, pending.assertion);
    const base = `${req.baseUrl}/interaction/${details.uid}`;
    const name = mapped.claims.email ?? mapped.claims.name ?? mapped.username;
    send(
      res,
      status,
      renderLinkPage({
        tenantName: tenant.tenant.name,
        providerName: provider.displayName,
        ...(typeof name === 'string' ? { upstreamName: name } : {}),
        linkAction: `${base}/upstream/link`,
        abortAction: `${base}/abort`,
        conflict: pending.conflict === true,
        ...extra,
      }),
      typeof details.params.redirect_uri === 'string' ? [details.params.redirect_uri] : [],
    );
  };

  /** An upstream identity checked: signs in its account, or asks the person to link one. */
  const signedInUpstream = async (req: Request, res: Response, details: Details, pending: PendingIdentity) => {
    const tenant = tenantOf(req);
    const provider = await findProvider(tenant.tenantId, pending.alias);
    if (!provider) throw new UpstreamError('access_denied', 'this sign-in provider is disabled');
    const mapped = mapProfile(provider, pending.assertion);
    const resolution = await resolveAccount(models, tenant.tenantId, provider, pending.assertion, mapped);
    if (resolution.kind === 'account') return finishLogin(req, res, details, pending, resolution.userId);
    // Nobody here could be this person: a new account at once, where the provider allows it.
    if (resolution.mayCreate) {
      const userId = await createAccount(models, tenant.tenantId, provider, pending.assertion, mapped);
      return finishLogin(req, res, details, pending, userId);
    }
    const unlinked = { ...pending, conflict: resolution.conflict };
    details.result = { ...(details.result ?? {}), [IDENTITY]: unlinked } as typeof details.result;
    await details.persist();
    await linkPage(req, res, details, unlinked, 200);
  };

  router.get('/upstream/:alias/callback', (req, res) => {
    const state = typeof req.query.state === 'string' ? req.query.state : '';
    const uid = state.split('.')[0] ?? '';
    if (!/^[A-Za-z0-9_-]{10,64}$/.test(uid) || !ALIAS.test(String(req.params.alias)))
      return errorPage(req, res, 400, 'invalid_request', 'the answer of the sign-in provider is not valid');
    const query = new URLSearchParams(req.query as Record<string, string>);
    query.set('alias', String(req.params.alias));
    res.redirect(303, `${req.baseUrl}/interaction/${uid}/upstream/callback?${query.toString()}`);
  });

  router.get('/interaction/:uid/upstream/callback', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a login');
      const pending = stored<OidcPending>(details, PENDING);
      const alias = typeof req.query.alias === 'string' ? req.query.alias : '';
      // Mix-up defence: the answer must come back at the redirect URI of the provider this interaction went to.
      if (!pending || pending.alias !== alias || now() - pending.at > ROUND_TRIP_SECONDS)
        return errorPage(req, res, 400, 'access_denied', 'this answer does not belong to the sign-in in progress');
      const provider = await findProvider(tenant.tenantId, alias);
      if (!provider?.oidc) return errorPage(req, res, 403, 'access_denied', 'this sign-in provider is disabled');
      const config = await oidcConfiguration(tenant.tenantId, provider, deps.kek, deps.policy);
      const redirectUri = `${tenant.provider.issuer}/upstream/${provider.alias}/callback`;
      const answer = new URL(redirectUri);
      for (const [k, v] of Object.entries(req.query))
        if (k !== 'alias' && typeof v === 'string') answer.searchParams.set(k, v);
      // The round trip is used once, whatever its outcome.
      details.result = { ...(details.result ?? {}), [PENDING]: undefined } as typeof details.result;
      await details.persist();
      const maxAge = typeof details.params.max_age === 'number' ? details.params.max_age : undefined;
      const result = await finishAuthorization(config, provider.oidc, answer, redirectUri, pending, maxAge);
      const verified = result.claims.email_verified === true && typeof result.claims.email === 'string';
      const amr = Array.isArray(result.claims.amr)
        ? result.claims.amr.filter((v): v is string => typeof v === 'string')
        : [];
      await signedInUpstream(req, res, details, {
        alias,
        assertion: {
          issuer: result.issuer,
          subject: result.subject,
          claims: result.claims,
          amr,
          ...(typeof result.claims.acr === 'string' ? { acr: result.claims.acr } : {}),
          ...(verified ? { verifiedEmail: result.claims.email as string } : {}),
        },
        session: { idToken: sealIdToken(deps.kek, tenant.tenantId, alias, result.idToken) },
        at: now(),
        ...(authTimeOf(result.claims.auth_time) !== undefined ? { authTime: authTimeOf(result.claims.auth_time) } : {}),
      });
    } catch (err) {
      next(err);
    }
  });

  router.get('/interaction/:uid/upstream/:alias', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      if (details.prompt.name !== 'login') throw new errors.InvalidRequest('this interaction does not expect a login');
      const provider = await findProvider(tenant.tenantId, String(req.params.alias));
      if (!provider) return errorPage(req, res, 404, 'invalid_request', 'this sign-in provider is not available');
      const loginHint = typeof req.query.login_hint === 'string' ? req.query.login_hint.slice(0, MAX_FIELD) : undefined;
      if (provider.type === 'oidc' && provider.oidc) {
        const config = await oidcConfiguration(tenant.tenantId, provider, deps.kek, deps.policy);
        const redirectUri = `${tenant.provider.issuer}/upstream/${provider.alias}/callback`;
        const { url, pending } = await authorizationRedirect(config, provider.oidc, redirectUri, {
          ...(loginHint ? { loginHint } : {}),
          // A fresh sign-in asked of us is a fresh sign-in asked of the upstream (prompt=login, max_age).
          ...(freshLogin(details) ? { prompt: 'login' } : {}),
          ...(typeof details.params.max_age === 'number' ? { maxAge: details.params.max_age } : {}),
        });
        // The interaction's uid travels in state so that the answer finds its interaction; only the random part,
        // kept here, proves it is the answer to this request.
        const state = `${details.uid}.${pending.state}`;
        url.searchParams.set('state', state);
        details.result = {
          ...(details.result ?? {}),
          [PENDING]: { alias: provider.alias, ...pending, state, at: now() } satisfies OidcPending,
        } as typeof details.result;
        await details.persist();
        res.redirect(303, url.href);
        return;
      }
      const idp = await idpDescriptor(tenant.tenantId, provider, deps.policy);
      const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
      // RelayState carries the interaction's uid (SAML Bindings 3.4.3: at most 80 bytes; a uid is far shorter).
      const { redirectUrl, requestId } = await startSignIn(sp, idp, samlStores, {
        tenantId: tenant.tenantId,
        providerAlias: provider.alias,
        relayState: details.uid,
        forceAuthn: freshLogin(details) || typeof details.params.max_age === 'number',
      });
      details.result = {
        ...(details.result ?? {}),
        [SAML_PENDING]: { alias: provider.alias, requestId, at: now() },
      } as typeof details.result;
      await details.persist();
      res.redirect(303, redirectUrl);
    } catch (err) {
      next(err);
    }
  });

  const pendingIdentity = (details: Details): PendingIdentity | undefined => {
    const p = stored<PendingIdentity>(details, IDENTITY);
    return p && now() - p.at <= ROUND_TRIP_SECONDS ? p : undefined;
  };

  router.post('/interaction/:uid/upstream/link', form, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      const pending = details.prompt.name === 'login' ? pendingIdentity(details) : undefined;
      if (!pending) return errorPage(req, res, 400, 'invalid_request', 'the sign-in has expired: start again');
      // A passkey-only tenant accepts no password anywhere: linking by password would be a way round it.
      const passkeys = passkeySettingsOf(tenant.tenant, tenant.provider.issuer);
      if (passkeys.enabled && passkeys.passkeyOnly)
        return errorPage(
          req,
          res,
          403,
          'access_denied',
          'this organisation signs people in with passkeys only: ask your administrator to link this account',
        );
      const username = field(req.body, 'username');
      const password = field(req.body, 'password');
      if (!username || !password)
        return await linkPage(req, res, details, pending, 400, {
          error: 'Enter your username and password.',
          username,
        });
      const outcome = await deps.loginThrottle.begin(tenant.tenantId, username, req.ip ?? 'unknown');
      if (!outcome.allowed) {
        res.set('Retry-After', String(outcome.retryAfterSeconds));
        return await linkPage(req, res, details, pending, 429, {
          error: 'Too many failed sign-in attempts. Wait a few minutes, then try again.',
          username,
        });
      }
      const user = await models.User.findOne(
        { tenantId: tenant.tenantId, username },
        { passwordHash: 1, enabled: 1, totpSecret: 1 },
      ).lean();
      const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      let proven = Boolean(user && ok && user.enabled);
      if (proven && user?.totpSecret) {
        const code = normaliseTotpCode(field(req.body, 'code'));
        proven = Boolean(
          code && (await verifyUserTotp(models, deps.kek, tenant.tenantId, String(user._id), code, deps.logger)),
        );
      }
      if (!user || !proven) {
        await outcome.attempt.failed();
        return await linkPage(req, res, details, pending, 401, {
          error: 'The username, password or code is not correct.',
          username,
        });
      }
      await outcome.attempt.succeeded();
      const provider = await findProvider(tenant.tenantId, pending.alias);
      if (!provider) throw new UpstreamError('access_denied', 'this sign-in provider is disabled');
      const userId = String(user._id);
      await createLink(models, tenant.tenantId, provider, pending.assertion, userId, 'password');
      deps.logger?.info({ tenantId: tenant.tenantId, provider: provider.alias, userId }, 'upstream identity linked');
      await finishLogin(req, res, details, pending, userId);
    } catch (err) {
      next(err);
    }
  });

  router.post('/upstream/:alias/saml/acs', samlForm, async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const alias = String(req.params.alias);
      const uid = field(req.body, 'RelayState');
      const samlResponse = (req.body as Record<string, unknown> | undefined)?.SAMLResponse;
      if (!/^[A-Za-z0-9_-]{10,64}$/.test(uid) || typeof samlResponse !== 'string')
        return errorPage(req, res, 400, 'invalid_request', 'this is not a SAML response to a sign-in started here');
      const interaction = await tenant.provider.Interaction.find(uid);
      const pending = (interaction?.result as Record<string, unknown> | undefined)?.[SAML_PENDING] as
        { alias: string; requestId: string; at: number } | undefined;
      if (!interaction || !pending || pending.alias !== alias || now() - pending.at > ROUND_TRIP_SECONDS)
        return errorPage(req, res, 400, 'access_denied', 'this answer does not belong to a sign-in in progress');
      const provider = await findProvider(tenant.tenantId, alias);
      if (!provider?.saml) return errorPage(req, res, 403, 'access_denied', 'this sign-in provider is disabled');
      const idp = await idpDescriptor(tenant.tenantId, provider, deps.policy);
      const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
      // A refused answer leaves the sign-in waiting (only this browser's interaction cookie may end it); the request
      // id itself is spent either way (finishSignIn).
      interaction.result = { ...interaction.result, [SAML_PENDING]: undefined };
      const result = await finishSignIn(sp, idp, samlStores, {
        tenantId: tenant.tenantId,
        providerAlias: alias,
        samlResponse,
        expectedRequestId: pending.requestId,
      }).catch((err: unknown) => {
        if (err instanceof SamlError && err.status === 'invalid_signature') forgetDescriptor(tenant.tenantId, provider);
        throw err;
      });
      // Handed to the interaction's own URL, where the browser's interaction cookie proves it is the same person.
      interaction.result = { ...interaction.result, [SAML_DONE]: { alias, result, at: now() } };
      await interaction.persist();
      res.redirect(303, `${req.baseUrl}/interaction/${uid}/upstream-saml`);
    } catch (err) {
      next(err);
    }
  });

  router.get('/interaction/:uid/upstream-saml', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const details = await tenant.provider.interactionDetails(req, res);
      const done = stored<{ alias: string; result: SamlAssertionResult; at: number }>(details, SAML_DONE);
      if (details.prompt.name !== 'login' || !done || now() - done.at > ROUND_TRIP_SECONDS)
        return errorPage(req, res, 400, 'access_denied', 'this answer does not belong to the sign-in in progress');
      details.result = { ...(details.result ?? {}), [SAML_DONE]: undefined } as typeof details.result;
      await details.persist();
      const provider = await findProvider(tenant.tenantId, done.alias);
      if (!provider) return errorPage(req, res, 403, 'access_denied', 'this sign-in provider is disabled');
      const r = done.result;
      // A transient NameID is a new one at every sign-in (SAML 2.0 Core 8.3.8): it cannot identify a person.
      if (r.nameIdFormat === 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient')
        throw new UpstreamError(
          'access_denied',
          'the IdP sent a transient NameID, which cannot identify a person: it must send a persistent one',
        );
      const assertion: UpstreamAssertion = {
        issuer: r.issuer,
        subject: r.nameId,
        claims: r.attributes,
        amr: [],
        ...(r.authnContextClassRef ? { acr: r.authnContextClassRef } : {}),
      };
      // SAML has no email_verified: an address counts as vouched for only in a domain the IdP is authoritative for.
      const email = mapProfile(provider, assertion).claims.email;
      const domain = typeof email === 'string' ? emailDomainOf(email) : undefined;
      const vouched = domain !== undefined && provider.authoritativeEmailDomains.includes(domain);
      const authTime = r.authnInstant ? authTimeOf(Math.floor(Date.parse(r.authnInstant) / 1000)) : undefined;
      await signedInUpstream(req, res, details, {
        alias: done.alias,
        ...(authTime !== undefined ? { authTime } : {}),
        assertion: { ...assertion, ...(vouched ? { verifiedEmail: email as string } : {}) },
        session: {
          nameId: r.nameId,
          ...(r.nameIdFormat ? { nameIdFormat: r.nameIdFormat } : {}),
          ...(r.sessionIndex ? { sessionIndex: r.sessionIndex } : {}),
        },
        at: now(),
      });
    } catch (err) {
      next(err);
    }
  });

  router.get('/upstream/:alias/saml/metadata', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const provider = await findProvider(tenant.tenantId, String(req.params.alias));
      if (!provider?.saml) return errorPage(req, res, 404, 'not_found', 'no such SAML provider');
      const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
      res.set('Cache-Control', 'public, max-age=300').type('application/samlmetadata+xml').send(spMetadata(sp));
    } catch (err) {
      next(err);
    }
  });

  /**
   * IdP-initiated single logout (SAML 2.0 Profiles 4.4.3.2): a signed LogoutRequest for a NameID. The session this
   * browser holds here ends when it is the linked account's; the IdP gets its signed LogoutResponse either way.
   */
  router.get('/upstream/:alias/saml/slo', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const provider = await findProvider(tenant.tenantId, String(req.params.alias));
      if (!provider?.saml) return errorPage(req, res, 404, 'not_found', 'no such SAML provider');
      const raw = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      if (!new URLSearchParams(raw).has('SAMLRequest'))
        return errorPage(req, res, 400, 'invalid_request', 'this is not a logout request');
      const idp = await idpDescriptor(tenant.tenantId, provider, deps.policy);
      const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
      const request = await handleIdpLogoutRequest(sp, idp, raw);
      const link = await models.UpstreamLink.findOne({
        tenantId: tenant.tenantId,
        provider: provider.alias,
        subject: request.nameId,
      }).lean();
      const sessionId = (req.headers.cookie ?? '')
        .split(';')
        .map((c) => c.trim())
        .find((c) => c.startsWith(`_session_${tenant.tenantId}=`))
        ?.split('=')[1];
      if (link && sessionId) {
        const session = await tenant.provider.Session.find(sessionId);
        if (session?.accountId === link.userId) await session.destroy();
      }
      deps.logger?.info(
        { tenantId: tenant.tenantId, provider: provider.alias, linked: Boolean(link) },
        'upstream single logout',
      );
      res.redirect(303, request.responseRedirectUrl);
    } catch (err) {
      next(err);
    }
  });

  router.get('/upstream/:alias/jwks', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const provider = await findProvider(tenant.tenantId, String(req.params.alias));
      const sealed = provider?.oidc?.privateJwkSealed;
      if (!provider || !sealed) return errorPage(req, res, 404, 'not_found', 'no such key set');
      const jwk = JSON.parse(
        deps.kek.decrypt(sealed, sealedSecretContext(tenant.tenantId, provider.alias, 'private_jwk')),
      ) as import('node:crypto').JsonWebKey;
      res
        .set('Cache-Control', 'public, max-age=300')
        .json({ keys: [publicJwkOf(jwk, clientKeyId(tenant.tenantId, provider.alias))] });
    } catch (err) {
      next(err);
    }
  });

  /** An upstream sign-in that failed its checks: an error page (never a stack trace), the reason logged. */
  router.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (err instanceof SamlError) {
      deps.logger?.warn({ code: err.status, reason: err.message }, 'upstream SAML message refused');
      return errorPage(req, res, 403, 'access_denied', `the SAML message was refused (${err.status})`);
    }
    if (!(err instanceof UpstreamError)) return interactionErrorPage(err, req, res, next);
    deps.logger?.warn({ code: err.code, reason: err.message }, 'upstream sign-in refused');
    const status = err.code === 'temporarily_unavailable' ? 503 : err.code === 'server_error' ? 502 : 403;
    errorPage(req, res, status, err.code, err.message);
  });

  return router;
}
