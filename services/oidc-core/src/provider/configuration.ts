import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Models, TenantDoc } from '@idp/db';
import { clientPermissions, toObjectId, userPermissions } from '@idp/db';
import { CLAIM_TENANT_ID, CLAIM_TENANT_NAME, type PrivateJwk } from '@idp/tokens';
import { accessTokenScope } from '../domain/access-token-scope';
import { createAdapterFactory } from './adapter';
import { SCOPE_CLAIMS } from './claims';
import { CLIENT_PROPS } from './client-metadata';
import { resourceServerInfo } from './resource-servers';
import { renderErrorPage } from '../views/pages';

export interface ProviderDeps {
  models: Models;
  /** Keys signing this provider's cookies (rotate by prepending). */
  cookieKeys: string[];
}

/** `/auth/{t}` or `/_api/auth/{t}`, whichever the request came in on. */
export function mountPrefix(ctx: KoaContextWithOIDC, tenantId: number): string {
  return (ctx.req as { originalUrl?: string }).originalUrl?.startsWith('/_api/') ? `/_api/auth/${tenantId}` : `/auth/${tenantId}`;
}

type TokenLike = {
  kind: string;
  accountId?: string;
  clientId?: string;
  scope?: string;
  client?: Record<string, unknown>;
};

/** node-oidc-provider configuration for one tenant. */
export function providerConfiguration(tenant: TenantDoc, keys: PrivateJwk[], deps: ProviderDeps): Configuration {
  const tenantId = tenant._id;
  const { models } = deps;

  return {
    adapter: createAdapterFactory(models, tenantId),
    clients: [],
    jwks: { keys: keys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      names: { session: `_session_${tenantId}`, interaction: `_interaction_${tenantId}`, resume: `_interaction_resume_${tenantId}` },
      keys: deps.cookieKeys,
    },
    claims: SCOPE_CLAIMS,
    scopes: ['openid', 'offline_access', ...Object.keys(SCOPE_CLAIMS).filter((s) => s !== 'openid')],
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: { properties: Object.values(CLIENT_PROPS) },
    routes: { authorization: '/authorize', token: '/oidc/token' },
    pkce: {
      required: (_ctx, client) => client.clientAuthMethod === 'none' || client[CLIENT_PROPS.requirePkce] === true,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      deviceFlow: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: resourceServerInfo(models, tenantId),
      },
    },
    interactions: {
      url: (ctx, interaction) => `${mountPrefix(ctx, tenantId)}/interaction/${interaction.uid}`,
    },
    async findAccount(_ctx, sub) {
      const _id = toObjectId(sub);
      if (!_id) return undefined;
      const user = await models.User.findOne({ tenantId, _id, enabled: true }, { claims: 1 }).lean();
      if (!user) return undefined;
      return { accountId: sub, claims: async () => ({ ...(user.claims ?? {}), sub }) };
    },
    /** First-party clients skip the consent page: their grant covers what they asked for. */
    async loadExistingGrant(ctx) {
      const client = ctx.oidc.client;
      const grantId = ctx.oidc.result?.consent?.grantId || (client && ctx.oidc.session?.grantIdFor(client.clientId));
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      if (client && client[CLIENT_PROPS.firstParty] === true && ctx.oidc.session?.accountId) {
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: ctx.oidc.session.accountId });
        const scope = ctx.oidc.params?.scope;
        if (typeof scope === 'string') grant.addOIDCScope(scope);
        const resource = ctx.oidc.params?.resource;
        const resources = Array.isArray(resource) ? resource : typeof resource === 'string' ? [resource] : [];
        for (const r of resources) if (typeof scope === 'string') grant.addResourceScope(r, scope);
        await grant.save();
        return grant;
      }
      return undefined;
    },
    extraTokenClaims: async (_ctx, token) => ({
      ...((token as { extra?: Record<string, unknown> }).extra ?? {}),
      [CLAIM_TENANT_ID]: tenantId,
      [CLAIM_TENANT_NAME]: tenant.name,
    }),
    formats: {
      customizers: {
        /** Decides the signed `scope` from RBAC (see domain/access-token-scope.ts). */
        async jwt(_ctx, token, jwt) {
          const t = token as unknown as TokenLike;
          const audience = jwt.payload.aud;
          if (typeof audience !== 'string') return;
          const permissions =
            t.kind === 'ClientCredentials'
              ? await clientPermissions(models, tenantId, t.clientId ?? '', audience)
              : t.accountId
                ? await userPermissions(models, tenantId, t.accountId, audience)
                : new Set<string>();
          const narrow = t.client?.[CLIENT_PROPS.requireAuthorizationScopesInRequest] === true;
          const scope = accessTokenScope((t.scope ?? '').split(' ').filter(Boolean), permissions, narrow);
          if (scope.length) {
            jwt.payload.scope = scope.join(' ');
            (token as { scope?: string }).scope = scope.join(' ');
          } else {
            delete jwt.payload.scope;
            (token as { scope?: string }).scope = undefined;
          }
        },
      },
    },
    ttl: {
      AccessToken: (_ctx, token) => (token as { resourceServer?: { accessTokenTTL?: number } }).resourceServer?.accessTokenTTL ?? 3600,
      ClientCredentials: (_ctx, token) => (token as { resourceServer?: { accessTokenTTL?: number } }).resourceServer?.accessTokenTTL ?? 600,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(out.error, out.error_description ?? '');
    },
  };
}
