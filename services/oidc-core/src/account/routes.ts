/**
 * The user's delegation ledger, a page of the provider under each tenant:
 *
 *   GET  /account/agents                    the ledger of the signed-in user (account/ledger.ts)
 *   GET  /account/callback                  end of the sign-in the page started (its built-in client, PKCE)
 *   POST /account/agents/{nheId}/revoke     revoke the agent's live tokens for this user, forget the consents
 *   POST /account/agents/{nheId}/block      the same, and block the agent for this user (gate user-opt-out)
 *   POST /account/agents/{nheId}/unblock    lift the block
 *   GET  /account/identities                the user's linked identities (upstream links; account/linked-identities.ts)
 *   POST /account/identities/{linkId}/remove  remove one, unless it is the last way in of an account without a password
 *
 * Who the user is comes only from the provider's own browser session (the `_session` cookie, the same session the login
 * page creates); without one the page sends the browser through the tenant's normal sign-in with its built-in client
 * (account/account-client.ts) and comes back. Every form carries a CSRF token bound to the session (an HMAC keyed with
 * the session's secret id); a POST whose Origin or Sec-Fetch-Site names another site is refused too. The pages have the
 * provider's CSP (no script at all) and work without JavaScript: every action is a form POST and a 303 back.
 *
 * Revoking is the kill switch an administrator's change uses, scoped to this user: one deny-list entry
 * {nheIdentifier, subject = the user} persisted in `nhe_revocations` (introspection reads it at once) and published on
 * NATS, where the Shared Signals transmitter turns it into SSF events for resource servers.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { NHE_SETTINGS_DEFAULTS, type Models } from '@idp/db';
import {
  REVOCATION_COLLECTION,
  revocationStore,
  buildRevocationEntry,
  type RevocationInput,
  type RevocationStore,
} from '@idp/events';
import type { Logger } from '@idp/logger';
import { storedSettingsOf } from '../domain/stored-docs';
import type { TenantContext } from '../tenants/tenant-pool';
import { pageCsp, renderErrorPage } from '../views/pages';
import { isFapi2Tenant } from '../provider/fapi2';
import { ACCOUNT_CLIENT_ID } from './account-client';
import { cibaSettingsOf, ledgerCspWithPending, newNonce, pendingViews, type PendingSection } from '../provider/ciba';
import { grantsOfAgent, loadLedger, rememberedGrants } from './ledger';
import { DONE_MESSAGES, renderLedgerPage, type Done } from './ledger-page';
import { loadLinkedIdentities, ONLY_WAY_IN, removeLinkedIdentity } from './linked-identities';
import { renderLinkedIdentitiesPage } from './linked-identities-page';
import { PASSKEYS_PATH, passkeyAccountRoutes } from '../passkeys/account-routes';

export interface AccountDeps {
  models: Models;
  /**
   * The kill switch: persists one deny-list entry and publishes it (NATS). Default: persisted only (introspection
   * sees it at once; other verifiers at their next reload).
   */
  revoke?: (input: RevocationInput) => Promise<void>;
  /** Where entries in force are read (the page marks revoked tokens); default: `nhe_revocations` of the models' connection. */
  revocations?: RevocationStore;
  /**
   * Tells the sidecars that a user's delegation facts changed (a configuration invalidation of kind `user`), so a
   * lifted block applies at once instead of after their facts cache (FACTS_CACHE_TTL_MS). Best effort; default: none.
   */
  invalidateUser?: (tenantId: number, userId: string) => Promise<void>;
  logger?: Logger;
}

/** Revocation reasons of the user's own actions (SSF: initiating_entity user). */
export const USER_REVOKED_AGENT = 'user.agent.revoked';
export const USER_BLOCKED_AGENT = 'user.agent.blocked';

export const LEDGER_PATH = '/account/agents';
export const CALLBACK_PATH = '/account/callback';
export const IDENTITIES_PATH = '/account/identities';
/** The pages a sign-in started here returns to (named in the sign-in cookie, never taken from the callback's query). */
const RETURN_PATHS = { agents: LEDGER_PATH, identities: IDENTITIES_PATH, passkeys: PASSKEYS_PATH } as const;
type ReturnTo = keyof typeof RETURN_PATHS;
/** The sign-in in progress: state and PKCE verifier, for ten minutes. */
const LOGIN_COOKIE_SECONDS = 600;

const tenantOf = (req: Request): TenantContext => (req as unknown as { tenant: TenantContext }).tenant;
const loginCookie = (tenantId: number) => `_account_login_${tenantId}`;

function send(res: Response, status: number, html: string, csp = pageCsp()): void {
  res
    .status(status)
    .set({ 'Content-Security-Policy': csp, 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY' })
    .type('html')
    .send(html);
}

/** The CSRF token of a session's forms: an HMAC keyed with the session's id (a secret only the browser holds). */
export function csrfToken(sessionId: string, tenantId: number, accountId: string): string {
  return createHmac('sha256', sessionId).update(`idp-account-csrf:${tenantId}:${accountId}`).digest('base64url');
}

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

interface SignedIn {
  accountId: string;
  sessionId: string;
  /** When the user last authenticated in this session (seconds; OpenID Connect Core auth_time). */
  authTime?: number;
}

/** The signed-in user of the provider's browser session, if any. */
async function signedIn(req: Request, res: Response): Promise<SignedIn | undefined> {
  const { provider } = tenantOf(req);
  const session = (await provider.Session.get({ req, res, secure: req.secure } as never)) as
    { accountId?: string; jti?: string; loginTs?: number } | undefined;
  return session?.accountId && session.jti
    ? {
        accountId: session.accountId,
        sessionId: session.jti,
        ...(typeof session.loginTs === 'number' ? { authTime: session.loginTs } : {}),
      }
    : undefined;
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/**
 * Defence in depth beside the CSRF token: a form sent from another site is refused by its Origin (absent, or `null`
 * as browsers send it under the pages' no-referrer policy, are left to the token) and by Fetch Metadata
 * (Sec-Fetch-Site other than same-origin or none, when the browser sends it).
 */
function sameOriginForm(req: Request, origin: string): boolean {
  const o = req.headers.origin;
  if (o !== undefined && o !== 'null' && o !== origin) return false;
  const site = req.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
}

function field(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v.slice(0, 256) : '';
}

export function accountRoutes(deps: AccountDeps): Router {
  const router = Router({ mergeParams: true });
  const form = express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 5 });
  const store = deps.revocations ?? revocationStore(deps.models.Nhe.db.collection(REVOCATION_COLLECTION));
  const revoke = deps.revoke ?? ((input: RevocationInput) => store.save(buildRevocationEntry(input)));
  const errorPage = (req: Request, res: Response, status: number, error: string, description: string) =>
    send(res, status, renderErrorPage(error, description, tenantOf(req).tenant.name));

  /**
   * No session: the tenant's sign-in with the page's built-in client, back to the callback, then to `returnTo`.
   * `fresh`: the person signs in again even with a session (prompt=login, OpenID Connect Core 3.1.2.1).
   */
  const startSignIn = (req: Request, res: Response, returnTo: ReturnTo = 'agents', fresh = false) => {
    const { provider, tenantId, tenant } = tenantOf(req);
    // A FAPI 2.0 tenant has no public clients, so no built-in one: its users come with a session from an application.
    if (isFapi2Tenant(tenant))
      return errorPage(
        req,
        res,
        401,
        'login_required',
        'sign in to an application of this organisation first, then open this page again',
      );
    const state = randomBytes(16).toString('base64url');
    const verifier = randomBytes(32).toString('base64url');
    const secure = provider.issuer.startsWith('https:');
    res.cookie(loginCookie(tenantId), `${state}.${verifier}.${returnTo}`, {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: '/',
      maxAge: LOGIN_COOKIE_SECONDS * 1000,
    });
    const params = new URLSearchParams({
      client_id: ACCOUNT_CLIENT_ID,
      response_type: 'code',
      redirect_uri: `${provider.issuer}${CALLBACK_PATH}`,
      scope: 'openid',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...(fresh ? { prompt: 'login' } : {}),
    });
    res.set('Cache-Control', 'no-store').redirect(303, `${req.baseUrl}/authorize?${params}`);
  };

  router.get(LEDGER_PATH, async (req, res, next) => {
    try {
      const user = await signedIn(req, res);
      if (!user) return startSignIn(req, res);
      const tenant = tenantOf(req);
      const now = new Date();
      const ledger = await loadLedger(deps.models, store, tenant.tenantId, user.accountId, now);
      if (!ledger)
        return errorPage(req, res, 403, 'access_denied', 'this account no longer exists in this organisation');
      const what =
        typeof req.query.done === 'string' && req.query.done in DONE_MESSAGES ? (req.query.done as Done) : undefined;
      const agent =
        what && typeof req.query.nhe === 'string' ? ledger.agents.find((a) => a.nheId === req.query.nhe) : undefined;
      // Requests agents made for this person's approval (CIBA), live on the page: its only script (nonce).
      const ciba = cibaSettingsOf(tenant.tenant);
      const pending: PendingSection | undefined = ciba.enabled
        ? {
            requests: await pendingViews(deps.models, tenant.tenantId, user.accountId),
            nonce: newNonce(),
            notice: typeof req.query.request === 'string' ? req.query.request : undefined,
            pollSeconds: 2,
          }
        : undefined;
      send(
        res,
        200,
        renderLedgerPage({
          tenantName: tenant.tenant.name,
          ledger,
          base: req.baseUrl,
          csrf: csrfToken(user.sessionId, tenant.tenantId, user.accountId),
          now,
          ...(what && agent ? { done: { what, agent: agent.identifier } } : {}),
          ...(pending ? { pending } : {}),
        }),
        pending ? ledgerCspWithPending(pending.nonce) : undefined,
      );
    } catch (err) {
      next(err);
    }
  });

  router.get(CALLBACK_PATH, async (req, res, next) => {
    try {
      const { provider, tenantId } = tenantOf(req);
      const [state, verifier, returnTo] = (cookieValue(req, loginCookie(tenantId)) ?? '').split('.');
      res.clearCookie(loginCookie(tenantId), { path: '/' });
      const q = req.query as Record<string, unknown>;
      if (typeof q.error === 'string')
        return errorPage(
          req,
          res,
          400,
          q.error,
          typeof q.error_description === 'string' ? q.error_description : 'the sign-in did not finish',
        );
      if (
        !state ||
        !verifier ||
        typeof q.state !== 'string' ||
        !sameText(q.state, state) ||
        typeof q.code !== 'string'
      ) {
        return errorPage(
          req,
          res,
          400,
          'invalid_request',
          'the sign-in has expired or was not started here; open your agents page again',
        );
      }
      // The code is this page's own: redeemed here, once, with its PKCE verifier.
      const code = (await provider.AuthorizationCode.find(q.code)) as
        | { clientId?: string; accountId?: string; codeChallenge?: string; isValid?: boolean; consume(): Promise<void> }
        | undefined;
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (
        !code ||
        code.clientId !== ACCOUNT_CLIENT_ID ||
        !code.isValid ||
        !code.codeChallenge ||
        !sameText(code.codeChallenge, challenge)
      ) {
        return errorPage(req, res, 400, 'invalid_grant', 'the sign-in has expired; open your agents page again');
      }
      await code.consume();
      const user = await signedIn(req, res);
      if (!user || user.accountId !== code.accountId)
        return errorPage(
          req,
          res,
          400,
          'invalid_grant',
          'the sign-in does not match this browser session; open your agents page again',
        );
      const back = returnTo === 'identities' || returnTo === 'passkeys' ? RETURN_PATHS[returnTo] : RETURN_PATHS.agents;
      res.set('Cache-Control', 'no-store').redirect(303, `${req.baseUrl}${back}`);
    } catch (err) {
      next(err);
    }
  });

  /**
   * Checks the session, the Origin and the CSRF token of a form of one of the pages; answers the refusal itself and
   * returns undefined when one fails.
   */
  const formUser = async (req: Request, res: Response, page: string): Promise<SignedIn | undefined> => {
    const tenant = tenantOf(req);
    const user = await signedIn(req, res);
    if (!user) {
      errorPage(req, res, 403, 'access_denied', `you are signed out; open your ${page} page again and sign in`);
      return undefined;
    }
    if (!sameOriginForm(req, new URL(tenant.provider.issuer).origin)) {
      errorPage(req, res, 403, 'access_denied', 'this form was sent from another site');
      return undefined;
    }
    if (!sameText(field(req.body, 'csrf'), csrfToken(user.sessionId, tenant.tenantId, user.accountId))) {
      errorPage(
        req,
        res,
        403,
        'access_denied',
        `this form has expired or was not sent from your ${page} page; open the page again`,
      );
      return undefined;
    }
    return user;
  };

  /** Checks the session, the CSRF token and the Origin; returns the user and the NHE the form is about. */
  const formAction =
    (
      action: (
        req: Request,
        user: SignedIn,
        nhe: { id: string; identifier?: string; agentClients?: string[] },
      ) => Promise<void>,
      done: Done,
      needsNhe = true,
    ) =>
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const tenant = tenantOf(req);
        const user = await formUser(req, res, 'agents');
        if (!user) return;
        const nheId = String(req.params.nheId);
        const nhe = /^[0-9a-f]{24}$/i.test(nheId)
          ? await deps.models.Nhe.findOne(
              { tenantId: tenant.tenantId, _id: nheId },
              { identifier: 1, agentClients: 1 },
            ).lean()
          : null;
        if (!nhe && needsNhe) return errorPage(req, res, 404, 'not_found', 'no such agent in this organisation');
        await action(req, user, {
          id: nheId,
          ...(nhe ? { identifier: nhe.identifier, agentClients: nhe.agentClients ?? [] } : {}),
        });
        (req as unknown as { log?: Logger }).log?.info(
          { tenantId: tenant.tenantId, userId: user.accountId, nheId, action: done },
          'ledger: user action',
        );
        res.redirect(303, `${req.baseUrl}${LEDGER_PATH}?done=${done}&nhe=${encodeURIComponent(nheId)}`);
      } catch (err) {
        next(err);
      }
    };

  /** The kill switch for this agent and this user, then the consents of its agent clients forgotten. */
  const revokeAgent = async (
    req: Request,
    user: SignedIn,
    nhe: { identifier?: string; agentClients?: string[] },
    reason: string,
  ) => {
    const tenant = tenantOf(req);
    const settings = { ...NHE_SETTINGS_DEFAULTS, ...(storedSettingsOf(tenant.tenant).nhe ?? {}) };
    try {
      await revoke({
        tenantId: tenant.tenantId,
        nheIdentifier: nhe.identifier!,
        subject: user.accountId,
        reason,
        maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
      });
    } catch (err) {
      throw Object.assign(new Error('revocation not confirmed'), { statusCode: 503, cause: err });
    }
    for (const g of grantsOfAgent(await rememberedGrants(deps.models, tenant.tenantId, user.accountId), nhe)) {
      // The grant and every token issued under it (provider/adapter.ts stores them by grantId).
      await deps.models.OidcPayload.deleteMany({ tenantId: tenant.tenantId, grantId: g.grantId });
      await (await tenant.provider.Grant.find(g.grantId))?.destroy();
    }
  };

  router.post(
    `${LEDGER_PATH}/:nheId/revoke`,
    form,
    formAction((req, user, nhe) => revokeAgent(req, user, nhe, USER_REVOKED_AGENT), 'revoked'),
  );
  router.post(
    `${LEDGER_PATH}/:nheId/block`,
    form,
    formAction(async (req, user, nhe) => {
      const tenantId = tenantOf(req).tenantId;
      // The block first: from here on no new token is issued for the user (the decision reads it).
      await deps.models.AgentOptOut.updateOne(
        { tenantId, userId: user.accountId, nheId: nhe.id },
        { $setOnInsert: { tenantId, userId: user.accountId, nheId: nhe.id, nheIdentifier: nhe.identifier! } },
        { upsert: true },
      ).catch((err: unknown) => {
        if ((err as { code?: number }).code !== 11000) throw err;
      });
      await revokeAgent(req, user, nhe, USER_BLOCKED_AGENT);
    }, 'blocked'),
  );
  router.post(
    `${LEDGER_PATH}/:nheId/unblock`,
    form,
    formAction(
      async (req, user, nhe) => {
        const tenantId = tenantOf(req).tenantId;
        await deps.models.AgentOptOut.deleteOne({ tenantId, userId: user.accountId, nheId: nhe.id });
        await deps.invalidateUser?.(tenantId, user.accountId).catch((err: unknown) => {
          (req as unknown as { log?: Logger }).log?.warn(
            { err: (err as Error).message, tenantId },
            'ledger: invalidation not published; the block is lifted once the sidecars’ facts cache expires',
          );
        });
      },
      'unblocked',
      false,
    ),
  );

  /** The linked identities page; `extra` says what a removal did. */
  const identitiesPage = async (
    req: Request,
    res: Response,
    user: SignedIn,
    status: number,
    extra: { removed?: string; refused?: string } = {},
  ) => {
    const tenant = tenantOf(req);
    const identities = await loadLinkedIdentities(deps.models, tenant.tenantId, user.accountId);
    if (!identities)
      return errorPage(req, res, 403, 'access_denied', 'this account no longer exists in this organisation');
    send(
      res,
      status,
      renderLinkedIdentitiesPage({
        tenantName: tenant.tenant.name,
        identities,
        base: req.baseUrl,
        csrf: csrfToken(user.sessionId, tenant.tenantId, user.accountId),
        ...extra,
      }),
    );
  };

  router.get(IDENTITIES_PATH, async (req, res, next) => {
    try {
      const user = await signedIn(req, res);
      if (!user) return startSignIn(req, res, 'identities');
      let removed: string | undefined;
      if (req.query.done === 'removed' && typeof req.query.provider === 'string') {
        // Named only when it is a provider of this tenant: the query never puts its own words on the page.
        const alias = req.query.provider.slice(0, 64);
        removed =
          (
            await deps.models.UpstreamProvider.findOne(
              { tenantId: tenantOf(req).tenantId, alias },
              { displayName: 1 },
            ).lean()
          )?.displayName ?? 'Linked identity';
      }
      await identitiesPage(req, res, user, 200, removed ? { removed } : {});
    } catch (err) {
      next(err);
    }
  });

  router.post(`${IDENTITIES_PATH}/:linkId/remove`, form, async (req, res, next) => {
    try {
      const user = await formUser(req, res, 'linked identities');
      if (!user) return;
      const tenantId = tenantOf(req).tenantId;
      const linkId = String(req.params.linkId);
      const result = await removeLinkedIdentity(deps.models, tenantId, user.accountId, linkId);
      (req as unknown as { log?: Logger }).log?.info(
        { tenantId, userId: user.accountId, linkId, outcome: result.outcome },
        'linked identities: user removal',
      );
      switch (result.outcome) {
        case 'not_found':
          return errorPage(req, res, 404, 'not_found', 'no such linked identity on your account');
        case 'only_way_in':
          return await identitiesPage(req, res, user, 409, { refused: ONLY_WAY_IN });
        case 'removed':
          return res.redirect(
            303,
            `${req.baseUrl}${IDENTITIES_PATH}?done=removed&provider=${encodeURIComponent(result.provider)}`,
          );
      }
    } catch (err) {
      next(err);
    }
  });

  // The passkeys page (passkeys/account-routes.ts), with this file's session, sign-in and form checks.
  router.use(
    passkeyAccountRoutes({
      models: deps.models,
      logger: deps.logger,
      signedIn,
      startSignIn: (req, res, fresh) => startSignIn(req, res, 'passkeys', fresh),
      formUser,
      csrfToken,
      errorPage,
      sameOriginForm,
    }),
  );

  router.use(
    [LEDGER_PATH, CALLBACK_PATH, IDENTITIES_PATH, PASSKEYS_PATH],
    (err: unknown, req: Request, res: Response, _next: NextFunction) => {
      const status =
        (err as { statusCode?: number; status?: number }).statusCode ?? (err as { status?: number }).status ?? 500;
      if (status === 503)
        return errorPage(req, res, 503, 'temporarily_unavailable', 'the revocation could not be confirmed; try again');
      if (status < 500) return errorPage(req, res, status, 'invalid_request', 'the request could not be read');
      (req as unknown as { log?: Logger }).log?.error({ err }, 'ledger failed');
      errorPage(req, res, 500, 'server_error', 'an unexpected error occurred');
    },
  );

  return router;
}
