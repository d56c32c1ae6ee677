import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Models } from '@idp/db';
import { DenyList, REVOCATION_COLLECTION, revocationStore, type RevocationStore } from '@idp/events';
import { verifyJwtAccessToken } from '@idp/resource-server';
import { CLAIM_NHE_DELEGATION, CLAIM_TENANT_ID, NHE_SUBJECT_PREFIX } from '@idp/tokens';
import { CLIENT_PROPS } from '../client-metadata';

export interface NheIntrospectionDeps {
  models: Models;
  /** The tenant's public JWKS (active and retired keys): the keys the sidecar signs NHE tokens with. */
  publicJwks: JSONWebKeySet;
  /** Deny-list store; default: the `nhe_revocations` collection of the models' connection. */
  revocations?: RevocationStore;
}

/**
 * NHE delegation tokens are minted by the sidecar, not by node-oidc-provider, so the provider does not know them:
 * its introspection refuses any JWT (400 unsupported_token_type). This middleware runs after the provider's
 * introspection (the caller is then already authenticated as a client of this tenant) and, when the token is an NHE
 * token (org.vendor.nhe.delegation true), answers RFC 7662 JSON from the token itself: signature, issuer, expiry
 * (@idp/resource-server's verifyJwtAccessToken, which also refuses non-canonical encodings), and the kill switch —
 * the NHE still exists and is enabled, the tenant and the client still allow delegation, and no deny-list entry
 * (NATS-published, persisted in MongoDB) revokes it. Any of those failing is `{ active: false }`.
 */
export function registerNheIntrospection(provider: Provider, tenantId: number, deps: NheIntrospectionDeps): void {
  const jwks = createLocalJWKSet(deps.publicJwks);
  const store = deps.revocations ?? revocationStore(deps.models.Nhe.db.collection(REVOCATION_COLLECTION));
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method !== 'POST' || !ctx.path.endsWith('/token/introspection')) return;
    const body = ctx.body as { active?: boolean; error?: string } | undefined;
    const oidc = (ctx as KoaContextWithOIDC).oidc;
    const token = oidc?.params?.token;
    // The provider answers a JWT with 400 unsupported_token_type (after authenticating the client), an opaque
    // token it does not know with { active: false }.
    const unknownToProvider = (ctx.status === 200 && body?.active === false) || (ctx.status === 400 && body?.error === 'unsupported_token_type');
    if (!unknownToProvider || typeof token !== 'string' || !oidc.client) return;
    let hint: JWTPayload;
    try {
      hint = decodeJwt(token);
    } catch {
      return;
    }
    if (hint[CLAIM_NHE_DELEGATION] !== true) return;
    // A public client may introspect only its own tokens (node-oidc-provider's default policy for its tokens).
    const callerNumericId = Number(oidc.client[CLIENT_PROPS.numericId]);
    const active =
      oidc.client.clientAuthMethod === 'none' && hint.azp !== callerNumericId
        ? undefined
        : await activeNheToken(token, provider.issuer, tenantId, jwks, deps.models, store).catch(() => undefined);
    ctx.status = 200;
    ctx.body = active ?? { active: false };
  });
}

async function activeNheToken(
  token: string,
  issuer: string,
  tenantId: number,
  jwks: ReturnType<typeof createLocalJWKSet>,
  models: Models,
  store: RevocationStore,
): Promise<Record<string, unknown> | undefined> {
  // The shared verifier: canonical compact JWS (a token with `==` appended is not the issued token), signature,
  // issuer, typ, expiry, and no `cnf` member other than jkt. Any refusal is `{ active: false }`.
  const { payload } = await verifyJwtAccessToken(token, { key: jwks, issuer, typ: 'at+jwt', algorithms: ['ES256'] });
  const actSub = (payload.act as { sub?: unknown } | undefined)?.sub;
  if (payload[CLAIM_NHE_DELEGATION] !== true || payload[CLAIM_TENANT_ID] !== tenantId || typeof actSub !== 'string' || !actSub.startsWith(NHE_SUBJECT_PREFIX)) return undefined;
  if (typeof payload.jti !== 'string' || typeof payload.iat !== 'number' || typeof payload.azp !== 'number') return undefined;
  const nheIdentifier = actSub.slice(NHE_SUBJECT_PREFIX.length);
  const [nhe, client, tenant, entries] = await Promise.all([
    models.Nhe.findOne({ tenantId, identifier: nheIdentifier }, { enabled: 1 }).lean(),
    models.Client.findOne({ tenantId, numericId: payload.azp }, { clientId: 1, config: 1 }).lean(),
    models.Tenant.findById(tenantId, { settings: 1 }).lean(),
    store.active(new Date(), tenantId),
  ]);
  if (!nhe?.enabled || !client?.config?.nhe?.delegationEnabled || !tenant?.settings?.nhe?.enabled) return undefined;
  const denyList = new DenyList();
  for (const e of entries) if (e.tenantId === tenantId) denyList.add(e);
  if (denyList.isRevoked({ tenantId, nheIdentifier, jti: payload.jti, azp: payload.azp, iat: payload.iat, ...(payload.sub ? { sub: payload.sub } : {}) })) return undefined;
  const cnf = payload.cnf as { jkt?: string } | undefined;
  return {
    ...payload,
    active: true,
    client_id: client.clientId,
    token_type: cnf?.jkt ? 'DPoP' : 'Bearer',
  };
}
