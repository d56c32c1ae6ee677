/**
 * Agent clients: an OAuth client that embodies a registered NHE (the NHE's registration names
 * it in agentClients; libs/delegation agent-clients.ts). Its access tokens for the tenant's resource servers are NHE
 * delegation tokens, decided, minted and audited by the nhe-delegation sidecar exactly as token exchange's are.
 *
 * Seams (node-oidc-provider's public API only):
 * - authorization, device authorization and PAR: an `extraParams` validator (run after the client and its
 *   redirect_uri are checked, so errors go back to the client) refuses offline_access for an agent client: its
 *   tokens are short-lived delegation tokens and it gets no refresh token;
 * - token endpoint: a middleware (`provider.use`) after node-oidc-provider has redeemed an authorization code or a
 *   device code of an agent client. The provider's own access token (a JWT, never persisted) is discarded and the
 *   response's access_token replaced by the sidecar's NHE token (or the sidecar's error: no token at all). The
 *   requested scopes are the code's scopes the user's grant holds for the resource (what the consent page showed),
 *   and those are also the consented scopes the decision caps a third party at.
 * A token for the tenant's UserInfo audience stays an ordinary one (identity only, no API); the management API and
 * the Shared Signals audiences are refused to agent clients.
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { agentLinkOf, type AgentLink, type ForwardedAgentToken } from '@idp/delegation';
import type { Models } from '@idp/db';
import { MANAGEMENT_AUDIENCE, SSF_AUDIENCE } from '@idp/tokens';
import { acrForAmr } from '../domain/acr';
import { LOGIN_SCOPES } from './claims';
import { userinfoAudience } from './userinfo-audience';
import { clientAddress } from './client-address';
import { CLIENT_PROPS } from './client-metadata';
import type { TokenExchangeResponse } from './grants/token-exchange';

export type AgentTokenForwarder = (request: ForwardedAgentToken) => Promise<TokenExchangeResponse>;

/** The extraParams entry whose validator checks agent clients (its own value is ignored). */
export const AGENT_CHECK_PARAM = 'idp_agent_client';

const GRANT_TYPES = new Set(['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code']);

const links = new WeakMap<KoaContextWithOIDC, Promise<AgentLink>>();

/** The client's NHE link, once per request. */
export function agentLinkFor(
  models: Models,
  tenantId: number,
  ctx: KoaContextWithOIDC,
  clientId: string,
): Promise<AgentLink> {
  let link = links.get(ctx);
  if (!link) {
    link = agentLinkOf(models, tenantId, clientId);
    links.set(ctx, link);
  }
  return link;
}

/** extraParams: refuses offline_access (and a client named by several NHEs) at authorization. */
export function agentClientParams(models: Models, tenantId: number) {
  return {
    [AGENT_CHECK_PARAM]: async (ctx: KoaContextWithOIDC, _value: unknown, client: { clientId: string } | undefined) => {
      if (!client) return;
      const link = await agentLinkFor(models, tenantId, ctx, client.clientId);
      if (link.kind === 'none') return;
      if (link.kind === 'ambiguous')
        throw new errors.AccessDenied(
          'this client is named by more than one NHE; an administrator must fix the registrations',
        );
      // The request's own scope: node-oidc-provider has already dropped an offline_access it would not honour (no
      // refresh_token grant, no prompt=consent), and the client must be told, not silently given less.
      const raw = [
        (ctx.oidc as { body?: Record<string, unknown> }).body?.scope,
        ctx.query.scope,
        ctx.oidc.params?.scope,
      ];
      if (raw.some((v) => typeof v === 'string' && v.split(' ').includes('offline_access'))) {
        const err = new errors.InvalidScope('requested scope is not allowed', 'offline_access');
        err.error_description = `this client is the agent ${link.nhe.identifier}: its tokens are short-lived delegation tokens without refresh, so offline_access cannot be granted; renew with prompt=none instead`;
        throw err;
      }
    },
  };
}

/** Replaces an agent client's access token at the token endpoint by the sidecar's NHE delegation token. */
export function registerAgentClientTokens(
  provider: Provider,
  tenantId: number,
  models: Models,
  forward: AgentTokenForwarder | undefined,
): void {
  provider.use(async (ctx, next) => {
    await next();
    const c = ctx as unknown as KoaContextWithOIDC;
    // provider.use sees every request, also those outside the provider's routes, which carry no `oidc`.
    if ((c as { oidc?: { route: string } }).oidc?.route !== 'token' || ctx.status !== 200) return;
    const grantType = c.oidc.params?.grant_type;
    if (typeof grantType !== 'string' || !GRANT_TYPES.has(grantType)) return;
    const client = c.oidc.client;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (!client || !body || typeof body.access_token !== 'string') return;
    const link = await agentLinkFor(models, tenantId, c, client.clientId);
    if (link.kind === 'none') return;
    const fail = (status: number, error: string, description: string) => {
      ctx.status = status;
      ctx.body = { error, error_description: description };
    };
    if (link.kind === 'ambiguous')
      return fail(
        400,
        'access_denied',
        'this client is named by more than one NHE; an administrator must fix the registrations',
      );
    const at = c.oidc.entities.AccessToken as unknown as
      { accountId?: string; jkt?: string; resourceServer?: { identifier(): string } } | undefined;
    const resource = at?.resourceServer?.identifier();
    if (!at?.accountId || !resource) return; // no resource server: nothing to delegate
    if (resource === userinfoAudience(provider.issuer)) return; // identity only
    if (resource === MANAGEMENT_AUDIENCE || resource === SSF_AUDIENCE)
      return fail(400, 'invalid_target', 'an agent client cannot obtain tokens for this audience');
    const code = (c.oidc.entities.AuthorizationCode ?? c.oidc.entities.DeviceCode) as unknown as
      { scope?: string; acr?: unknown; amr?: unknown; authTime?: unknown } | undefined;
    const grant = c.oidc.entities.Grant as unknown as { getResourceScope(r: string): string } | undefined;
    const consented = (grant?.getResourceScope(resource) ?? '').split(' ').filter(Boolean);
    const consentedSet = new Set(consented);
    const scopes = [...new Set((code?.scope ?? '').split(' ').filter((s) => consentedSet.has(s)))];
    if (!forward) return fail(503, 'temporarily_unavailable', 'delegation tokens are unavailable, retry later');
    const numericId = Number(client[CLIENT_PROPS.numericId]);
    const result = await forward({
      tenantId,
      clientId: client.clientId,
      clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
      userId: at.accountId,
      resource,
      scopes,
      consentedScopes: consented,
      grantType: grantType as ForwardedAgentToken['grantType'],
      ...(at.jkt ? { jkt: at.jkt } : {}),
      sourceIp: clientAddress(ctx),
      ...(code ? { signIn: signInOfCode(code) } : {}),
    });
    ctx.set('Cache-Control', 'no-store');
    if (result.status !== 200 || typeof result.body.access_token !== 'string') {
      ctx.status = result.status === 200 ? 503 : result.status;
      ctx.body = result.body;
      return;
    }
    // The provider's own token never leaves; no refresh token (offline_access is refused at authorization).
    const { refresh_token: _dropped, ...rest } = body;
    ctx.body = {
      ...rest,
      access_token: result.body.access_token,
      token_type: result.body.token_type,
      expires_in: result.body.expires_in,
      scope: mergeScope(body.scope, String(result.body.scope ?? '')),
    };
  });
}

/**
 * The sign-in the code records, as the user's own access token states it (claims-account.ts userTokenClaims): the
 * sidecar checks it against a phishing-resistant delegation requirement exactly as a subject token's.
 */
function signInOfCode(code: {
  acr?: unknown;
  amr?: unknown;
  authTime?: unknown;
}): NonNullable<ForwardedAgentToken['signIn']> {
  const amr = Array.isArray(code.amr) ? code.amr.filter((v): v is string => typeof v === 'string') : undefined;
  return {
    acr: typeof code.acr === 'string' && code.acr ? code.acr : acrForAmr(amr),
    ...(amr ? { amr } : {}),
    ...(typeof code.authTime === 'number' && Number.isSafeInteger(code.authTime) && code.authTime >= 0
      ? { authTime: code.authTime }
      : {}),
  };
}

/** The response's scope: the login scopes the provider granted (openid, profile, ...) and the delegated scopes. */
function mergeScope(providerScope: unknown, delegated: string): string {
  const login = typeof providerScope === 'string' ? providerScope.split(' ').filter((s) => LOGIN_SCOPES.has(s)) : [];
  return [...new Set([...login, ...delegated.split(' ').filter(Boolean)])].join(' ');
}
