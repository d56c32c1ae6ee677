import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import type { Models, ResourceServerDoc } from '@idp/db';
import { MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';

/** Lifetime of management API access tokens (seconds). */
const MANAGEMENT_TOKEN_TTL = 600;

/** Access tokens are JWTs (RFC 9068) signed ES256 with the tenant's key. */
const JWT_FORMAT = { accessTokenFormat: 'jwt' as const, jwt: { sign: { alg: 'ES256' as const } } };

export async function findResourceServer(models: Models, tenantId: number, identifier: string): Promise<ResourceServerDoc | null> {
  return models.ResourceServer.findOne({ tenantId, identifier }).lean<ResourceServerDoc>();
}

/**
 * resourceIndicators.getResourceServerInfo: the management API is built into every tenant; other resource
 * servers come from the tenant's records. A resource server that only accepts NHE tokens gets no ordinary
 * access tokens (DESIGN.md).
 */
export function resourceServerInfo(models: Models, tenantId: number) {
  return async (_ctx: KoaContextWithOIDC, resource: string): Promise<ResourceServer> => {
    if (resource === MANAGEMENT_AUDIENCE) {
      return { scope: MANAGEMENT_SCOPES.join(' '), audience: MANAGEMENT_AUDIENCE, accessTokenTTL: MANAGEMENT_TOKEN_TTL, ...JWT_FORMAT };
    }
    const rs = await findResourceServer(models, tenantId, resource);
    if (!rs) throw new errors.InvalidTarget('resource server not found');
    if (rs.config?.nhe?.requireDelegationTokens) {
      throw new errors.InvalidTarget('this resource server accepts delegated (NHE) tokens only');
    }
    return {
      scope: rs.scopes.join(' '),
      audience: rs.identifier,
      accessTokenTTL: rs.config?.accessToken?.lifetime ?? 3600,
      ...JWT_FORMAT,
    };
  };
}
