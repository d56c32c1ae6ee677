/**
 * Signing out of a session that an upstream provider signed in ends the upstream session too: after this provider's
 * own logout (the spec's confirmation page decides as it always does, and /session/end/confirm ends the session
 * here), the browser goes to the upstream provider's logout (OpenID Connect RP-Initiated Logout 1.0 with the
 * upstream ID token as id_token_hint; SAML 2.0 single logout, SP-initiated, Profiles 4.4.3.1) and comes back to
 * where it was going (the client's post_logout_redirect_uri, or the signed-out page).
 *
 *   POST /session/end/confirm            the provider's own; its redirect is sent on through the upstream logout
 *   GET  /upstream/:alias/logout         starts the upstream logout (state: single use; to: sealed destination)
 *   GET  /upstream/:alias/logged-out     OIDC post_logout_redirect_uri → the destination
 *   GET  /upstream/:alias/saml/slo       (with SAMLResponse) the IdP's LogoutResponse → the destination
 *
 * An upstream that cannot sign out (no end_session_endpoint, no SAML SingleLogoutService) or is unreachable costs
 * nothing: the local sign-out has happened, and the browser goes on to its destination.
 */
import { randomBytes } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Models, UpstreamProviderDoc } from '@idp/db';
import type { OutboundPolicy } from '@idp/http';
import type { Logger } from '@idp/logger';
import type { KeyEncryptionKey } from '@idp/tokens';
import type { TenantContext } from '../tenants/tenant-pool';
import { AMR_FEDERATED } from './mappers';
import { endSessionUrl, oidcConfiguration, openIdToken } from './oidc-upstream';
import { finishLogout, startLogout } from './saml';
import { idpDescriptor, spSettings } from './saml-provider';
import { renderUpstreamSignOutPage } from './pages';
import { pageCsp } from '../views/pages';

export interface UpstreamLogoutDeps {
  models: Models;
  kek: KeyEncryptionKey;
  logger?: Logger;
  policy: OutboundPolicy;
}

/** How long a sign-out may take at the upstream provider. */
const LOGOUT_TTL_MS = 10 * 60_000;
const ALIAS = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ID = /^[A-Za-z0-9_-]{22}$/;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;
const newId = () => randomBytes(16).toString('base64url');
const destinationContext = (tenantId: number, alias: string, id: string) =>
  `upstream-logout:${tenantId}:${alias}:${id}`;

function cookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export function upstreamLogoutRoutes(deps: UpstreamLogoutDeps): Router {
  const router = Router({ mergeParams: true });
  const { models } = deps;

  const remember = async (tenantId: number, alias: string, key: string, value: object) => {
    const now = new Date();
    await models.SamlRequestCache.create({
      tenantId,
      providerAlias: alias,
      kind: 'logout',
      key,
      value: JSON.stringify(value),
      createdAt: now,
      expiresAt: new Date(now.getTime() + LOGOUT_TTL_MS),
    });
  };
  /** The remembered value, once: a second use of the same id finds nothing. */
  const takeBack = async <T>(tenantId: number, alias: string, key: string): Promise<T | undefined> => {
    const row = await models.SamlRequestCache.findOneAndDelete({
      tenantId,
      providerAlias: alias,
      kind: 'logout',
      key,
      expiresAt: { $gt: new Date() },
    }).lean();
    if (!row) return undefined;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return undefined;
    }
  };

  /** The link whose sign-in made this session: the account's most recent upstream sign-in by then. */
  const sessionLink = async (tenantId: number, userId: string, loginTs: number | undefined) => {
    const links = await models.UpstreamLink.find({ tenantId, userId, lastSignInAt: { $exists: true } })
      .sort({ lastSignInAt: -1 })
      .limit(1)
      .lean();
    const link = links.at(0);
    if (!link?.lastSignInAt) return undefined;
    // A link signed in long after this session began belongs to another session (another browser).
    if (loginTs !== undefined && link.lastSignInAt.getTime() / 1000 > loginTs + 60) return undefined;
    return link;
  };

  router.post('/session/end/confirm', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const sid = cookie(req, `_session_${tenant.tenantId}`);
      const session = sid ? await tenant.provider.Session.find(sid) : undefined;
      const amr = (session as { amr?: unknown } | undefined)?.amr;
      if (!session?.accountId || !Array.isArray(amr) || !amr.includes(AMR_FEDERATED)) return next();
      const link = await sessionLink(tenant.tenantId, session.accountId, session.loginTs);
      if (!link) return next();
      const id = newId();
      // Confirmed on our sign-out page: the upstream sign-out may go on by itself; otherwise the person is asked.
      const prompted = (session.state as { prompted?: unknown } | undefined)?.prompted === true;
      await remember(tenant.tenantId, link.provider, `start:${id}`, { subject: link.subject, prompted });
      const start = `${tenant.provider.issuer}/upstream/${link.provider}/logout?state=${id}&to=`;
      // The provider ends the session here, then redirects: that redirect is sent through the upstream logout, its
      // destination sealed (the browser can read nothing of it and change nothing).
      const setHeader = res.setHeader.bind(res);
      res.setHeader = ((name: string, value: number | string | readonly string[]) => {
        if (name.toLowerCase() === 'location' && typeof value === 'string') {
          const sealed = deps.kek.encrypt(
            JSON.stringify({ destination: value, exp: Date.now() + LOGOUT_TTL_MS }),
            destinationContext(tenant.tenantId, link.provider, id),
          );
          return setHeader(name, `${start}${encodeURIComponent(sealed)}`);
        }
        return setHeader(name, value);
      }) as typeof res.setHeader;
      next();
    } catch (err) {
      next(err);
    }
  });

  const goOn = (res: Response, destination: string) => res.redirect(303, destination);

  router.get('/upstream/:alias/logout', async (req, res, next) => {
    try {
      const tenant = tenantOf(req);
      const alias = String(req.params.alias);
      const id = typeof req.query.state === 'string' ? req.query.state : '';
      const to = typeof req.query.to === 'string' ? req.query.to : '';
      if (!ALIAS.test(alias) || !ID.test(id)) return res.status(400).type('text').send('not a sign-out in progress');
      let destination: string;
      try {
        const sealed = JSON.parse(deps.kek.decrypt(to, destinationContext(tenant.tenantId, alias, id))) as {
          destination: string;
          exp: number;
        };
        if (!(sealed.exp > Date.now())) throw new Error('expired');
        destination = sealed.destination;
      } catch {
        return res.status(400).type('text').send('not a sign-out in progress');
      }
      const started = await takeBack<{ subject: string; prompted?: boolean }>(tenant.tenantId, alias, `start:${id}`);
      if (!started) return goOn(res, destination);
      const provider = await models.UpstreamProvider.findOne({
        tenantId: tenant.tenantId,
        alias,
        enabled: true,
      }).lean();
      const link = await models.UpstreamLink.findOne({
        tenantId: tenant.tenantId,
        provider: alias,
        subject: started.subject,
      }).lean();
      if (!provider || !link?.lastSession) return goOn(res, destination);
      const back = newId();
      let url: string | undefined;
      try {
        url = await upstreamLogoutUrl(tenant, provider, link.lastSession, back);
      } catch (err) {
        // The local sign-out stands; only the upstream one is skipped.
        deps.logger?.warn({ provider: alias, reason: (err as Error).message }, 'upstream logout skipped');
      }
      if (!url) return goOn(res, destination);
      await remember(tenant.tenantId, alias, `return:${back}`, { destination });
      // A page that moves on by itself, not a redirect: this request follows the sign-out form's submission, and
      // CSP form-action would govern a redirect to the provider's origin too.
      res
        .status(200)
        .set({ 'Content-Security-Policy': pageCsp(), 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
        .type('html')
        .send(
          renderUpstreamSignOutPage({
            tenantName: tenant.tenant.name,
            providerName: provider.displayName,
            href: url,
            // Not confirmed here (a sign-out nobody was asked about): the person chooses.
            ...(started.prompted === true ? {} : { skipHref: destination }),
          }),
        );
    } catch (err) {
      next(err);
    }
  });

  const upstreamLogoutUrl = async (
    tenant: TenantContext,
    provider: UpstreamProviderDoc,
    session: NonNullable<import('@idp/db').UpstreamLinkDoc['lastSession']>,
    back: string,
  ): Promise<string | undefined> => {
    if (provider.type === 'oidc') {
      const config = await oidcConfiguration(tenant.tenantId, provider, deps.kek, deps.policy);
      return endSessionUrl(
        config,
        session.idToken ? openIdToken(deps.kek, tenant.tenantId, provider.alias, session.idToken) : undefined,
        `${tenant.provider.issuer}/upstream/${provider.alias}/logged-out`,
        back,
      )?.href;
    }
    const idp = await idpDescriptor(tenant.tenantId, provider, deps.policy);
    if (!idp.sloRedirectUrl || !session.nameId) return undefined;
    const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
    return startLogout(sp, idp, {
      nameId: session.nameId,
      ...(session.nameIdFormat ? { nameIdFormat: session.nameIdFormat } : {}),
      ...(session.sessionIndex ? { sessionIndex: session.sessionIndex } : {}),
      relayState: back,
    });
  };

  /** Where a finished upstream sign-out goes: the destination it carried, or the signed-out page. */
  const returned = async (req: Request, res: Response, alias: string, back: unknown) => {
    const tenant = tenantOf(req);
    const r =
      typeof back === 'string' && ID.test(back)
        ? await takeBack<{ destination: string }>(tenant.tenantId, alias, `return:${back}`)
        : undefined;
    goOn(res, r?.destination ?? `${tenant.provider.issuer}/session/end/success`);
  };

  router.get('/upstream/:alias/logged-out', async (req, res, next) => {
    try {
      const alias = String(req.params.alias);
      if (!ALIAS.test(alias)) return res.status(400).type('text').send('not a sign-out in progress');
      await returned(req, res, alias, req.query.state);
    } catch (err) {
      next(err);
    }
  });

  // The IdP's LogoutResponse to our LogoutRequest; a LogoutRequest (IdP-initiated) goes on to routes.ts.
  router.get('/upstream/:alias/saml/slo', async (req, res, next) => {
    try {
      const raw = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      const params = new URLSearchParams(raw);
      if (!params.has('SAMLResponse')) return next();
      const tenant = tenantOf(req);
      const alias = String(req.params.alias);
      const provider = ALIAS.test(alias)
        ? await models.UpstreamProvider.findOne({ tenantId: tenant.tenantId, alias }).lean()
        : undefined;
      if (!provider?.saml) return next();
      const idp = await idpDescriptor(tenant.tenantId, provider, deps.policy);
      const sp = await spSettings(models, deps.kek, tenant.tenantId, tenant.provider.issuer, provider);
      try {
        await finishLogout(sp, idp, raw);
      } catch (err) {
        // The local sign-out has happened whatever the IdP answered; the browser goes on all the same.
        deps.logger?.warn({ provider: alias, reason: (err as Error).message }, 'upstream logout response refused');
      }
      await returned(req, res, alias, params.get('RelayState'));
    } catch (err) {
      next(err);
    }
  });

  return router;
}
