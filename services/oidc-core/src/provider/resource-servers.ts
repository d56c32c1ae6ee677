import { errors, type Grant, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { Models, ResourceServerDoc } from '@idp/db';
import { clientPermissions, userPermissions } from '@idp/db';
import { GRANT_TYPE_JWT_BEARER, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES, SSF_AUDIENCE, SSF_SCOPES } from '@idp/tokens';
import { accessTokenScope } from '../domain/access-token-scope';
import { storedResourceServerConfigOf } from '../domain/stored-docs';
import { LOGIN_SCOPES } from './claims';
import { CLAIM_USERINFO_SCOPE, userinfoAudience } from './userinfo-audience';
import { CLIENT_PROPS } from './client-metadata';
import { RECORD_CACHE_MS, recordCache } from './record-cache';

/** Lifetime of management API access tokens (seconds). */
const MANAGEMENT_TOKEN_TTL = 600;
/** Lifetime of JWT access tokens for the tenant's UserInfo audience (seconds). */
const USERINFO_TOKEN_TTL = 3600;

/** Access tokens are JWTs (RFC 9068) signed ES256 with the tenant's key. */
const JWT_FORMAT = { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'ES256' as const } } };

/** Login scopes a UserInfo-audience token can carry (offline_access is about refresh tokens, not claims). */
const USERINFO_SCOPES = [...LOGIN_SCOPES].filter((s) => s !== 'offline_access');

export async function findResourceServer(
  models: Models,
  tenantId: number,
  identifier: string,
): Promise<ResourceServerDoc | null> {
  return models.ResourceServer.findOne({ tenantId, identifier }).lean<ResourceServerDoc>();
}

/**
 * resourceIndicators.getResourceServerInfo: the management API, the Shared Signals transmitter and the tenant's
 * UserInfo audience are built into every tenant; other resource servers come from the tenant's records. A resource
 * server that only accepts NHE tokens gets no ordinary access tokens (DESIGN.md).
 */
export function resourceServerInfo(models: Models, tenantId: number, cacheMs = RECORD_CACHE_MS) {
  const records = recordCache<ResourceServerDoc | null>(cacheMs);
  return async (ctx: KoaContextWithOIDC, resource: string): Promise<ResourceServer> => {
    if (resource === MANAGEMENT_AUDIENCE) {
      return {
        scope: MANAGEMENT_SCOPES.join(' '),
        audience: MANAGEMENT_AUDIENCE,
        accessTokenTTL: MANAGEMENT_TOKEN_TTL,
        ...JWT_FORMAT,
      };
    }
    if (resource === SSF_AUDIENCE) {
      // The Shared Signals transmitter (services/signals): stream management and polling, by client role.
      return {
        scope: SSF_SCOPES.join(' '),
        audience: SSF_AUDIENCE,
        accessTokenTTL: MANAGEMENT_TOKEN_TTL,
        ...JWT_FORMAT,
      };
    }
    if (resource === userinfoAudience(ctx.oidc.provider.issuer)) {
      if (ctx.oidc.params?.grant_type === 'client_credentials') {
        throw new errors.InvalidTarget('the UserInfo audience needs a user; client credentials cannot target it');
      }
      return {
        scope: USERINFO_SCOPES.join(' '),
        audience: resource,
        accessTokenTTL: USERINFO_TOKEN_TTL,
        ...JWT_FORMAT,
      };
    }
    const rs = await records(resource, () => findResourceServer(models, tenantId, resource));
    if (!rs) throw new errors.InvalidTarget('resource server not found');
    const config = storedResourceServerConfigOf(rs);
    if (config.nhe?.requireDelegationTokens) {
      throw new errors.InvalidTarget('this resource server accepts delegated (NHE) tokens only');
    }
    return {
      scope: rs.scopes.join(' '),
      audience: rs.identifier,
      accessTokenTTL: config.accessToken?.lifetime ?? 3600,
      ...JWT_FORMAT,
    };
  };
}

/**
 * resourceIndicators.defaultResource. With several granted resources the token request must choose (oneOf is
 * returned, and the provider asks for one). A client with requireResourceIndicatorInRequest must send `resource`
 * on the authorization, device authorization and client credentials requests (invalid_target otherwise); the
 * toggle only requires the parameter and does not narrow scopes.
 */
export function defaultResource(
  ctx: KoaContextWithOIDC,
  client: { [key: string]: unknown } | undefined,
  oneOf?: string[],
): string | string[] | undefined {
  if (oneOf) return oneOf;
  if (client?.[CLIENT_PROPS.requireResourceIndicatorInRequest] === true) {
    const err = new errors.InvalidTarget('the resource parameter is required for this client');
    err.error_description = 'the resource parameter is required for this client (requireResourceIndicatorInRequest)';
    throw err;
  }
  void ctx;
  return undefined;
}

type TokenLike = {
  kind: string;
  /** The grant type the token was issued by (jwt-bearer: never more than the assertion's grant). */
  gty?: string;
  accountId?: string;
  clientId?: string;
  grantId?: string;
  scope?: string;
  client?: Record<string, unknown>;
  resourceServer?: { scopes?: Set<string>; scope?: string; identifier?: () => string };
};

/** Whether a client skips consent (spec: first-party clients are not asked). */
export function isFirstParty(client: { [key: string]: unknown } | undefined): boolean {
  return client?.[CLIENT_PROPS.firstParty] === true;
}

/**
 * The resource scopes a user's access token for `audience` carries before consent is applied (spec, "Scope
 * narrowing"): the user's RBAC permissions on that API (direct roles and roles through groups, read now) that the
 * API still registers, never a login scope (a role could name one); all of them when the client's
 * requireAuthorizationScopesInRequest is false, otherwise the requested ones held. The consent page shows exactly
 * this list (provider/consent.ts) and the JWT customizer signs it, cut to the grant for third-party clients.
 */
export async function userResourceScope(
  models: Models,
  tenantId: number,
  o: {
    accountId: string;
    audience: string;
    registered: ReadonlySet<string>;
    requested: Iterable<string>;
    client: { [key: string]: unknown } | undefined;
  },
): Promise<string[]> {
  const held = await userPermissions(models, tenantId, o.accountId, o.audience);
  const permissions = new Set([...held].filter((p) => o.registered.has(p) && !LOGIN_SCOPES.has(p)));
  return accessTokenScope(
    o.requested,
    permissions,
    o.client?.[CLIENT_PROPS.requireAuthorizationScopesInRequest] === true,
  );
}

/** The grant a user's access token was issued under: the one the token endpoint loaded, else read by id. */
async function grantOf(ctx: KoaContextWithOIDC | undefined, grantId: string | undefined): Promise<Grant | undefined> {
  if (!ctx || !grantId) return undefined;
  const loaded = ctx.oidc.entities.Grant;
  if (loaded?.jti === grantId) return loaded;
  return (await ctx.oidc.provider.Grant.find(grantId)) ?? undefined;
}

/**
 * formats.customizers.jwt: the signed `scope` of a resource-bound access token (spec, "Scope narrowing"):
 * the subject's RBAC permissions on that API (users: direct roles and roles through groups, evaluated at every
 * issuance, so a revoked role is gone at the next refresh; clients: client roles), all of them when the client's
 * requireAuthorizationScopesInRequest is false, otherwise exactly the requested ones held; omitted when none.
 * For a third-party client a user's token carries only what the user consented to for that API (the grant,
 * which records what the consent page showed): a role gained later never widens it silently, the next
 * authorization asks again (provider/consent.ts). Login scopes never appear. A token for the tenant's UserInfo
 * audience carries its login scopes in `org.vendor.userinfo.scope` and no `scope`.
 */
export function accessTokenScopeCustomizer(models: Models, tenantId: number, cacheMs = RECORD_CACHE_MS) {
  // Client role permissions are cached; user permissions never are (a revoked role is gone at the next refresh).
  const clientHeld = recordCache<Set<string>>(cacheMs);
  return async (
    ctx: KoaContextWithOIDC | undefined,
    token: unknown,
    jwt: { header: Record<string, unknown>; payload: Record<string, unknown> },
  ): Promise<void> => {
    const t = token as TokenLike;
    const audience = jwt.payload.aud;
    if (typeof audience !== 'string') return;
    const requested = (t.scope ?? '').split(' ').filter(Boolean);
    if (ctx && audience === userinfoAudience(ctx.oidc.provider.issuer)) {
      const login = requested.filter((s) => LOGIN_SCOPES.has(s) && s !== 'offline_access');
      delete jwt.payload.scope;
      if (login.length) jwt.payload[CLAIM_USERINFO_SCOPE] = login.join(' ');
      return;
    }
    // Only permissions the API still registers, and never a login scope (a role could name one).
    const registered = t.resourceServer?.scopes ?? new Set((t.resourceServer?.scope ?? '').split(' ').filter(Boolean));
    let scope: string[];
    if (t.kind === 'ClientCredentials') {
      const held = await clientHeld(`${t.clientId ?? ''} ${audience}`, () =>
        clientPermissions(models, tenantId, t.clientId ?? '', audience),
      );
      const permissions = new Set([...held].filter((p) => registered.has(p) && !LOGIN_SCOPES.has(p)));
      scope = accessTokenScope(
        requested,
        permissions,
        t.client?.[CLIENT_PROPS.requireAuthorizationScopesInRequest] === true,
      );
    } else if (t.accountId) {
      scope = await userResourceScope(models, tenantId, {
        accountId: t.accountId,
        audience,
        registered,
        requested,
        client: t.client,
      });
      // A token redeemed from another issuer's assertion is capped by its grant too, whoever the client is: the
      // grant holds what the assertion allowed (grants/jwt-bearer.ts).
      if (!isFirstParty(t.client) || t.gty === GRANT_TYPE_JWT_BEARER) {
        // Never more than the grant: no grant (or none readable) means no API scope at all.
        const grant = await grantOf(ctx, t.grantId);
        const consented = new Set(
          (grant?.getResourceScope(t.resourceServer?.identifier?.() ?? audience) ?? '').split(' '),
        );
        scope = scope.filter((s) => consented.has(s));
      }
    } else {
      scope = [];
    }
    if (scope.length) {
      jwt.payload.scope = scope.join(' ');
      (token as { scope?: string }).scope = scope.join(' ');
    } else {
      delete jwt.payload.scope;
      (token as { scope?: string }).scope = undefined;
    }
  };
}
