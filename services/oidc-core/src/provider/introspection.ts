import type Provider from 'oidc-provider';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload } from 'jose';
import { toObjectId, type Models } from '@idp/db';
import { DenyList, REVOCATION_COLLECTION, revocationStore, type RevocationStore } from '@idp/events';
import { actorChainOf, agentClientMatches, MAX_CHAIN_DEPTH_LIMIT } from '@idp/delegation';
import { verifyJwtAccessToken } from '@idp/resource-server';
import { CLAIM_GRANT_ID, CLAIM_NHE_DELEGATION, CLAIM_TENANT_ID } from '@idp/tokens';
import { storedClientConfigOf, storedSettingsOf } from '../domain/stored-docs';
import { CLIENT_PROPS } from './client-metadata';
import { RECORD_CACHE_MS, recordCache } from './record-cache';

/**
 * The grant a user's JWT access token was issued under (node-oidc-provider's grant id). JWT access tokens are not
 * stored, so this reference is what lets introspection tell that the grant behind a token is gone: revoked with its
 * refresh token, ended by logout, or deleted by the management API.
 */
export { CLAIM_GRANT_ID };

export interface IntrospectionDeps {
  models: Models;
  /** The tenant's public JWKS (active and retired keys): the keys of every access token the tenant issued. */
  publicJwks: JSONWebKeySet;
  /** Deny-list store of the NHE kill switch; default: the `nhe_revocations` collection of the models' connection. */
  revocations?: RevocationStore;
  /** false: the tenant is disabled (Tenant.enabled): every token it issued is inactive. Default true. */
  tenantEnabled?: boolean;
}

type JwtCustomizer = (
  ctx: KoaContextWithOIDC | undefined,
  token: unknown,
  jwt: { header: Record<string, unknown>; payload: Record<string, unknown> },
) => Promise<void>;

/** formats.customizers.jwt wrapper: a user's JWT access token names its grant (CLAIM_GRANT_ID). */
export function referenceGrant(customizer: JwtCustomizer): JwtCustomizer {
  return async (ctx, token, jwt) => {
    await customizer(ctx, token, jwt);
    const t = token as { grantId?: string; accountId?: string };
    if (t.accountId && typeof t.grantId === 'string') jwt.payload[CLAIM_GRANT_ID] = t.grantId;
  };
}

const INACTIVE = { active: false } as const;

/**
 * Introspection (RFC 7662) of every access token the tenant issued, one path for all of them, after
 * node-oidc-provider has authenticated the caller (a client of this tenant; its answer stands when that failed).
 *
 * - Opaque access tokens (and refresh tokens) are found by the provider, which checks expiry and the grant; an
 *   active answer is then also checked for the client and the user still existing and being enabled.
 * - JWT access tokens, which the provider refuses (400 unsupported_token_type), are answered here: the shared
 *   verifier (@idp/resource-server: canonical compact JWS, this tenant's keys, issuer, typ at+jwt, expiry, no `cnf`
 *   member other than jkt) and RFC 9068's required claims, then liveness:
 *   - an NHE delegation token (org.vendor.nhe.delegation true): the delegating user and the NHE exist and are
 *     enabled, the tenant and the client (still enabled) still allow delegation, and no kill-switch deny-list entry
 *     revokes it;
 *   - an ordinary token: the client exists and is enabled; for a user's token, the user exists and is enabled and
 *     the grant it names (CLAIM_GRANT_ID) still exists for that client and user (revoking the refresh token,
 *     logging out or deleting the client's grants ends it); a client-credentials token has no grant.
 *   Anything failing, a token of another tenant included, is `{ active: false }`; an active answer is the token's
 *   claims with `active` and `token_type`.
 * Who may introspect what (RFC 7662 section 4, one rule for every kind, `mayIntrospectFor`): the client the token was
 * issued to (`client_id`; for an NHE token its numeric `azp`), and a confidential client that a resource server
 * named by the token's `aud` lists in its introspectionClientIds (the API that receives the token). Any other
 * caller gets `{ active: false }`, as for a token that is not active: the answer tells it nothing.
 */
export function registerIntrospection(provider: Provider, tenantId: number, deps: IntrospectionDeps): void {
  const jwks = createLocalJWKSet(deps.publicJwks);
  const store = deps.revocations ?? revocationStore(deps.models.Nhe.db.collection(REVOCATION_COLLECTION));
  const checks: Checks = {
    provider,
    tenantId,
    jwks,
    models: deps.models,
    store,
    introspectors: introspectorsOf(deps.models, tenantId),
  };
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.method !== 'POST' || !ctx.path.endsWith('/token/introspection')) return;
    // provider.use sees every request: one outside the provider's routes carries no `oidc`.
    const oidc = (ctx as { oidc?: KoaContextWithOIDC['oidc'] }).oidc;
    const caller = oidc?.client;
    const token = oidc?.params?.token;
    // Without an authenticated caller the provider's error (invalid_client, invalid_request) stands.
    if (!caller || typeof token !== 'string') return;
    // A disabled tenant's tokens are not active (RFC 7662 section 2.2), whatever they are: the caller, once
    // authenticated, learns nothing else.
    if (deps.tenantEnabled === false) {
      ctx.status = 200;
      ctx.body = INACTIVE;
      return;
    }
    const body = ctx.body as
      { active?: boolean; error?: string; client_id?: unknown; sub?: unknown; aud?: unknown } | undefined;
    if (ctx.status === 400 && body?.error === 'unsupported_token_type') {
      // The provider refuses every JWT: answer it here.
      ctx.status = 200;
      ctx.body = (await introspectJwt(token, caller, checks).catch(() => undefined)) ?? INACTIVE;
      return;
    }
    if (ctx.status === 200 && body?.active === true) {
      const allowed =
        body.client_id === caller.clientId || (await mayIntrospectFor(caller, body.aud, checks).catch(() => false));
      const alive = allowed && (await opaqueStillActive(body, checks).catch(() => false));
      if (!alive) ctx.body = INACTIVE;
    }
  });
}

interface Checks {
  provider: Provider;
  tenantId: number;
  jwks: ReturnType<typeof createLocalJWKSet>;
  models: Models;
  store: RevocationStore;
  /** The introspectionClientIds of the resource server an audience names (none for built-in audiences). */
  introspectors: (audience: string) => Promise<readonly string[]>;
}

/** Read-through (RECORD_CACHE_MS) lookup of a resource server's introspecting clients, by its identifier. */
function introspectorsOf(models: Models, tenantId: number): Checks['introspectors'] {
  const records = recordCache<readonly string[]>(RECORD_CACHE_MS);
  return (audience) =>
    records(audience, async () => {
      const rs = await models.ResourceServer.findOne(
        { tenantId, identifier: audience },
        { introspectionClientIds: 1 },
      ).lean<{ introspectionClientIds?: string[] }>();
      return rs?.introspectionClientIds ?? [];
    });
}

/**
 * A caller other than the token's client: a confidential client (a public one proves no identity) that a resource
 * server the token is for (any of its `aud`) lists as introspecting for it. The management API, the Shared Signals
 * transmitter and the UserInfo audience have no such record: their tokens are introspected by their own client only.
 */
async function mayIntrospectFor(caller: Client, aud: unknown, c: Checks): Promise<boolean> {
  if (caller.clientAuthMethod === 'none') return false;
  const audiences = (Array.isArray(aud) ? aud : [aud]).filter((a): a is string => typeof a === 'string');
  for (const audience of audiences) if ((await c.introspectors(audience)).includes(caller.clientId)) return true;
  return false;
}

async function clientEnabled(c: Checks, clientId: unknown): Promise<boolean> {
  if (typeof clientId !== 'string') return false;
  const client = await c.models.Client.findOne({ tenantId: c.tenantId, clientId }, { enabled: 1 }).lean();
  return client?.enabled === true;
}

async function userEnabled(c: Pick<Checks, 'tenantId' | 'models'>, sub: string): Promise<boolean> {
  const _id = toObjectId(sub);
  if (!_id) return false;
  const user = await c.models.User.findOne({ tenantId: c.tenantId, _id }, { enabled: 1 }).lean();
  return user?.enabled === true;
}

/** An opaque token the provider found valid: its client and its user (when it has one) are still enabled. */
async function opaqueStillActive(body: { client_id?: unknown; sub?: unknown }, c: Checks): Promise<boolean> {
  const [client, user] = await Promise.all([
    clientEnabled(c, body.client_id),
    typeof body.sub === 'string' ? userEnabled(c, body.sub) : true,
  ]);
  return client && user;
}

const tokenType = (payload: JWTPayload) => ((payload.cnf as { jkt?: string } | undefined)?.jkt ? 'DPoP' : 'Bearer');

async function introspectJwt(token: string, caller: Client, c: Checks): Promise<Record<string, unknown> | undefined> {
  // The shared verifier: canonical compact JWS (a token with `==` appended is not the issued token), signature by
  // this tenant's keys (another tenant's token fails here), issuer, typ, expiry, and no `cnf` member but jkt.
  const { payload } = await verifyJwtAccessToken(token, {
    key: c.jwks,
    issuer: c.provider.issuer,
    typ: 'at+jwt',
    algorithms: ['ES256'],
  });
  // RFC 9068 section 2.2's required claims (jose checks exp only when present).
  if (
    typeof payload.exp !== 'number' ||
    typeof payload.iat !== 'number' ||
    typeof payload.jti !== 'string' ||
    typeof payload.sub !== 'string'
  )
    return undefined;
  if (payload.aud === undefined || payload[CLAIM_TENANT_ID] !== c.tenantId) return undefined;
  if (payload[CLAIM_NHE_DELEGATION] === true) {
    // The spec's numeric azp names the client an NHE token was issued to.
    const own = typeof payload.azp === 'number' && payload.azp === Number(caller[CLIENT_PROPS.numericId]);
    if (!own && !(await mayIntrospectFor(caller, payload.aud, c))) return undefined;
    return activeNheToken(payload, c);
  }
  if (typeof payload.client_id !== 'string' || payload.act !== undefined) return undefined;
  if (payload.client_id !== caller.clientId && !(await mayIntrospectFor(caller, payload.aud, c))) return undefined;
  return activeAccessToken(payload, c);
}

/** An ordinary JWT access token (authorization code, refresh, device code, client credentials). */
async function activeAccessToken(payload: JWTPayload, c: Checks): Promise<Record<string, unknown> | undefined> {
  const clientId = payload.client_id as string;
  const sub = payload.sub as string;
  // node-oidc-provider writes the client as `sub` of a client-credentials token.
  if (sub === clientId) {
    if (payload[CLAIM_GRANT_ID] !== undefined || !(await clientEnabled(c, clientId))) return undefined;
    return { ...payload, active: true, token_type: tokenType(payload) };
  }
  const grantId = payload[CLAIM_GRANT_ID];
  if (typeof grantId !== 'string') return undefined;
  const [client, user, grant] = await Promise.all([
    clientEnabled(c, clientId),
    userEnabled(c, sub),
    c.provider.Grant.find(grantId),
  ]);
  if (!client || !user || !grant || grant.isExpired || grant.clientId !== clientId || grant.accountId !== sub)
    return undefined;
  return { ...payload, active: true, token_type: tokenType(payload) };
}

/**
 * An NHE delegation token minted by the sidecar: the kill switch decides. A handed-on token (re-delegated by an agent:
 * more than one actor in its act chain) is active only while every NHE of its act chain is enabled, no entry names any
 * of them, and its depth is within the tenant's maxChainDepth now. Also the liveness rule of a delegation token
 * presented as the subject token of an agent's ID-JAG (grants/id-jag-agent.ts), on an already verified payload.
 */
export async function activeNheToken(
  payload: JWTPayload,
  c: Pick<Checks, 'tenantId' | 'models' | 'store'>,
): Promise<Record<string, unknown> | undefined> {
  const chain = actorChainOf(payload.act, MAX_CHAIN_DEPTH_LIMIT);
  if (!chain || typeof payload.azp !== 'number') return undefined;
  const { tenantId, models } = c;
  const identifiers = chain.map((a) => a.identifier);
  const nheIdentifier = identifiers[0]!;
  const [nhes, client, tenant, entries, user] = await Promise.all([
    models.Nhe.find(
      { tenantId, identifier: { $in: identifiers } },
      { identifier: 1, enabled: 1, agentClients: 1 },
    ).lean<Array<{ identifier: string; enabled: boolean; agentClients?: string[] }>>(),
    // azp 0: a client identified by a metadata document, which has no record (its client_id is the document's URL).
    payload.azp === 0
      ? null
      : models.Client.findOne({ tenantId, numericId: payload.azp }, { clientId: 1, enabled: 1, config: 1 }).lean(),
    models.Tenant.findById(tenantId, { settings: 1 }).lean(),
    c.store.active(new Date(), tenantId),
    userEnabled(c, payload.sub!),
  ]);
  if (!user) return undefined;
  if (client && !client.enabled) return undefined;
  const clientId = client?.clientId ?? (typeof payload.client_id === 'string' ? payload.client_id : undefined);
  if (clientId === undefined) return undefined;
  // The client gate the token was minted under: a token-exchange client with delegation on, or an agent client the
  // outermost NHE's registration names (agent clients are that NHE; their own record's delegation switch governs them
  // only as token-exchange clients: nhe-delegation agent-token.ts).
  const outermost = nhes.find((n) => n.identifier === nheIdentifier);
  const agentClient = (outermost?.agentClients ?? []).some((e) => agentClientMatches(e, clientId));
  if (!agentClient && !(client && storedClientConfigOf(client).nhe?.delegationEnabled)) return undefined;
  const nheSettings = tenant ? storedSettingsOf(tenant).nhe : undefined;
  if (!nheSettings?.enabled) return undefined;
  if (!identifiers.every((id) => nhes.some((n) => n.identifier === id && n.enabled))) return undefined;
  if (chain.length > 1 && chain.length > (nheSettings.maxChainDepth ?? 1)) return undefined;
  // Tokens minted since RFC 9068's client_id was added carry it: it must name the azp's client.
  if (payload.client_id !== undefined && payload.client_id !== clientId) return undefined;
  const denyList = new DenyList();
  for (const e of entries) if (e.tenantId === tenantId) denyList.add(e);
  if (
    denyList.isRevoked({
      tenantId,
      nheIdentifier,
      actorChain: identifiers,
      jti: payload.jti!,
      azp: payload.azp,
      iat: payload.iat!,
      sub: payload.sub!,
    })
  )
    return undefined;
  return { ...payload, active: true, client_id: clientId, token_type: tokenType(payload) };
}
