/**
 * The JWT bearer authorization grant (RFC 7523 section 2.1, `urn:ietf:params:oauth:grant-type:jwt-bearer`): a signed
 * assertion from one of the tenant's trusted external issuers, presented by an authenticated confidential client,
 * becomes an access token of this tenant for one resource, under the same RBAC and scope rules as any other user
 * token (the JWT customizer of resource-servers.ts), capped by what the assertion allows.
 *
 * Two profiles, told apart by the JWT's `typ`:
 * - plain RFC 7523 (identity chaining across domains, draft-ietf-oauth-identity-chaining): `aud` is this tenant's
 *   issuer, its token endpoint or an audience the issuer's record allows; the resource is the request's `resource`;
 * - an Identity Assertion Authorization Grant (`typ` `oauth-id-jag+jwt`, draft-ietf-oauth-identity-assertion-authz-grant
 *   section 4.4, and MCP's Enterprise-Managed Authorization): `aud` is exactly this issuer (a string, or an array of
 *   that one value), `client_id` names the authenticated client, `jti` is required, and the token is limited to the
 *   assertion's `resource` (a request `resource` must be that one).
 *
 * Every refusal is `invalid_grant` (RFC 7521 section 4.1.1 / RFC 7523 section 3.1) except a client that may not use the
 * grant (`unauthorized_client`) and a resource nobody registered (`invalid_target`). No refresh token is issued
 * (RFC 7521 section 4.1: the client presents a new assertion). An assertion is single use unless the issuer's record
 * allows reuse until it expires.
 *
 * An assertion with `act` (another organisation's agent acting for the person) becomes this tenant's own delegation
 * token when the issuer's record allows act and maps the actor to one of its NHEs (grants/assertion-actor.ts). Such an
 * assertion must carry `iat` (a revocation at the issuer reaches the tokens minted here from assertions it issued
 * before: services/signals domain/issuer-revocation.ts bounds that window by the assertion's lifetime since `iat`).
 *
 * DPoP (RFC 9449): a proof sent with the request binds the token to its key (`cnf.jkt`), delegation token or not; a
 * client with dpop_bound_access_tokens, or any client of a FAPI 2.0 tenant, gets no token without one
 * (grants/dpop-proof.ts: node-oidc-provider checks proofs only in its built-in grants).
 */
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import { LRUCache } from 'lru-cache';
import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { singleUseStore, type Models, type TrustedIssuerDoc } from '@idp/db';
import { outboundRequest, type OutboundPolicy } from '@idp/http';
import { GRANT_TYPE_JWT_BEARER, MANAGEMENT_AUDIENCE, SSF_AUDIENCE } from '@idp/tokens';
import { outsideTenantSlot } from '../../tenants/request-scope';
import { resourceServerInfo } from '../resource-servers';
import { userinfoAudience } from '../userinfo-audience';
import type { AgentTokenForwarder } from '../agent-clients';
import { mappedActor, redeemForActor } from './assertion-actor';
import { subjectUser } from './assertion-subject';
import { tokenEndpointProof } from './dpop-proof';
import { invalidGrant } from './grant-errors';

export const ID_JAG_TYP = 'oauth-id-jag+jwt';
export const ID_JAG_GRANT_PROFILE = 'urn:ietf:params:oauth:grant-profile:id-jag';

const PARAMS = ['assertion', 'scope', 'resource'] as const;
/** Signature algorithms any issuer record may allow: asymmetric only (never `none`, never a shared secret). */
const ASYMMETRIC = /^(RS|PS|ES)(256|384|512)$|^EdDSA$/;
/** Clock skew allowed on exp, nbf and iat. */
const SKEW_SECONDS = 30;
const KEY_SET_TTL_MS = 5 * 60_000;

/** Key sets by URL, fetched through the SSRF-safe outbound client and kept a few minutes. */
const keySets = new LRUCache<string, Promise<JSONWebKeySet>>({ max: 1000, ttl: KEY_SET_TTL_MS });

function keySetOf(uri: string, policy: OutboundPolicy): Promise<JSONWebKeySet> {
  const cached = keySets.get(uri);
  if (cached) return cached;
  const loading = outsideTenantSlot(() =>
    outboundRequest(uri, { timeoutMs: 2_500, connectTimeoutMs: 1_000, maxResponseBytes: 256 * 1024, policy }),
  ).then((answer) => {
    if (answer.status !== 200 || answer.truncated) throw new Error(`the issuer's key set answered ${answer.status}`);
    const set = JSON.parse(answer.body) as JSONWebKeySet;
    if (!Array.isArray(set.keys)) throw new Error("the issuer's key set has no keys");
    return set;
  });
  keySets.set(uri, loading);
  loading.catch(() => keySets.delete(uri));
  return loading;
}

export interface JwtBearerDeps {
  models: Models;
  tenantId: number;
  /** The platform's outbound policy for what tenants configure (UPSTREAM_ALLOW_*). */
  policy: OutboundPolicy;
  /** The nhe-delegation sidecar's agent-token call: an assertion's agent gets this tenant's delegation token. */
  agentToken?: AgentTokenForwarder | undefined;
  /** The tenant is under FAPI 2.0 (provider/fapi2.ts): every token DPoP-bound, proofs with FAPI2_SIGNING_ALGS. */
  fapi2?: boolean | undefined;
}

interface Verified {
  payload: JWTPayload & Record<string, unknown>;
  issuer: TrustedIssuerDoc;
  idJag: boolean;
}

async function verifyAssertion(ctx: KoaContextWithOIDC, deps: JwtBearerDeps, assertion: string): Promise<Verified> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(assertion);
    unverified = decodeJwt(assertion);
  } catch {
    throw invalidGrant('the assertion is not a signed JWT');
  }
  if (typeof unverified.iss !== 'string') throw invalidGrant('the assertion has no iss');
  const issuer = await deps.models.TrustedIssuer.findOne({
    tenantId: deps.tenantId,
    issuer: unverified.iss,
    enabled: true,
  }).lean<TrustedIssuerDoc>();
  if (!issuer) throw invalidGrant('the assertion is not from a trusted issuer of this tenant');
  const algorithms = issuer.algorithms.filter((a) => ASYMMETRIC.test(a));
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg))
    throw invalidGrant("the assertion's signature algorithm is not allowed for its issuer");
  // RFC 7515 section 4.1.9: a typ may carry the `application/` prefix and any case.
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : undefined;
  const idJag = typ === ID_JAG_TYP;
  // Anything else that is explicitly typed (an access token, a logout token, a security event) is not an assertion.
  if (!idJag && typ !== undefined && typ !== 'jwt')
    throw invalidGrant(`a JWT of type ${typ.slice(0, 40)} is not an authorization grant`);
  const ours = ctx.oidc.provider.issuer;
  const audiences = idJag ? [ours] : [ours, ctx.oidc.urlFor('token'), ...issuer.audiences];
  let keys: JSONWebKeySet;
  try {
    keys = await keySetOf(issuer.jwksUri, deps.policy);
  } catch (err) {
    throw invalidGrant(`the issuer's keys could not be read: ${(err as Error).message}`);
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(keys), {
      issuer: issuer.issuer,
      audience: audiences,
      algorithms,
      clockTolerance: SKEW_SECONDS,
      requiredClaims: ['exp', 'sub', ...(idJag ? ['jti', 'iat', 'client_id'] : [])],
    }));
  } catch (err) {
    throw invalidGrant(`the assertion is not valid: ${(err as Error).message}`);
  }
  const now = Math.floor(Date.now() / 1000);
  // RFC 7523 section 3 item 4: an exp unreasonably far in the future may be refused; here, beyond the issuer's bound.
  if (payload.exp! - now > issuer.maxLifetimeSeconds + SKEW_SECONDS)
    throw invalidGrant(`the assertion lives longer than ${issuer.maxLifetimeSeconds} seconds`);
  if (typeof payload.iat === 'number' && payload.exp! - payload.iat > issuer.maxLifetimeSeconds + SKEW_SECONDS)
    throw invalidGrant(`the assertion lives longer than ${issuer.maxLifetimeSeconds} seconds`);
  if (idJag) {
    // An array audience only of exactly this issuer (anti audience-injection).
    const aud = payload.aud;
    if (Array.isArray(aud) && (aud.length !== 1 || aud[0] !== ours))
      throw invalidGrant('an ID-JAG must name this authorization server as its only audience');
  }
  if (typeof payload.jti === 'string' && payload.jti.length > 256) throw invalidGrant('the assertion jti is too long');
  if (payload.scope !== undefined && typeof payload.scope !== 'string')
    throw invalidGrant('the assertion scope must be a space-separated string');
  if (payload.act !== undefined && !issuer.allowAct)
    throw invalidGrant('this issuer may not assert a delegation (act)');
  // Without iat, an assertion issued before a revocation at its issuer could be redeemed after the window in which
  // that revocation is matched against the tokens minted here (services/signals domain/issuer-revocation.ts).
  if (payload.act !== undefined && typeof payload.iat !== 'number')
    throw invalidGrant('an assertion with act must carry iat');
  return { payload: payload as Verified['payload'], issuer, idJag };
}

export function registerJwtBearerGrant(provider: Provider, deps: JwtBearerDeps): void {
  const resourceInfo = resourceServerInfo(deps.models, deps.tenantId);
  const replay = singleUseStore(deps.models, deps.tenantId, 'JwtBearerAssertion');

  async function jwtBearer(ctx: KoaContextWithOIDC): Promise<void> {
    const client = ctx.oidc.client;
    if (!client) throw new errors.InvalidClient('client authentication failed');
    // Confidential clients only: an assertion alone, presented by anyone, is a bearer credential.
    if (client.clientAuthMethod === 'none')
      throw new errors.UnauthorizedClient('a public client cannot use the JWT bearer grant');
    const params = ctx.oidc.params as Record<string, unknown>;
    const assertion = typeof params.assertion === 'string' ? params.assertion : '';
    if (!assertion) throw new errors.InvalidRequest('missing required parameter: assertion');
    // The proof first (it may refuse): a refused request never uses up the assertion.
    const jkt = await tokenEndpointProof(ctx, deps, { required: client.dpopBoundAccessTokens === true || deps.fapi2 });
    const v = await verifyAssertion(ctx, deps, assertion);
    const p = v.payload;
    if (v.idJag && p.client_id !== client.clientId)
      throw invalidGrant('the ID-JAG was issued to another client (client_id)');
    // A delegation (act) only for an agent the issuer's record maps to one of this tenant's NHEs (verifyAssertion has
    // refused act from an issuer that may not assert it).
    const actor = p.act !== undefined ? mappedActor(v.issuer, p.act) : undefined;

    // The resource: an ID-JAG's own (and a request resource must be that one); otherwise the request's.
    const requestedResource = typeof params.resource === 'string' ? params.resource : undefined;
    const asserted = Array.isArray(p.resource) ? p.resource : p.resource === undefined ? [] : [p.resource];
    if (asserted.length > 1 || asserted.some((r) => typeof r !== 'string'))
      throw invalidGrant('the assertion must name one resource');
    // An ID-JAG names its resource (the audience and resource are checked as a pair where it was issued).
    if (v.idJag && !asserted.length) throw invalidGrant('the ID-JAG names no resource');
    const resource = (asserted[0] as string | undefined) ?? requestedResource;
    if (requestedResource !== undefined && resource !== requestedResource)
      throw new errors.InvalidTarget("the requested resource is not the assertion's");
    if (!resource) throw new errors.InvalidTarget('a resource is required: name the API the token is for');
    if (
      resource === MANAGEMENT_AUDIENCE ||
      resource === SSF_AUDIENCE ||
      resource === userinfoAudience(ctx.oidc.provider.issuer)
    )
      throw new errors.InvalidTarget('an assertion from another issuer cannot obtain tokens for this audience');
    const info = await resourceInfo(ctx, resource);

    const accountId = await subjectUser(deps, v.issuer, v.payload);

    // Scopes: the requested ones (all of the resource's when none), cut to what the assertion allows; RBAC then cuts
    // the signed scope to what the user holds (resource-servers.ts).
    const registered = info.scope.split(' ').filter(Boolean);
    const requested = typeof params.scope === 'string' ? params.scope.split(' ').filter(Boolean) : registered;
    // An ID-JAG's scope is in this server's words (the issuer cut it for this resource): only those, none when it
    // names none. RFC 7523 defines no scope claim, and a plain assertion's (another server's access token, as in
    // identity chaining) is in its issuer's words: RBAC here decides, as for any other grant.
    // A delegation's scope is the person's consent to the agent, in this server's words, whichever the profile.
    const allowed = v.idJag || actor ? new Set(typeof p.scope === 'string' ? p.scope.split(' ') : []) : undefined;
    const scope = requested.filter((s) => registered.includes(s) && (!allowed || allowed.has(s)));
    if (typeof params.scope === 'string' && allowed && requested.some((s) => !allowed.has(s)) && !scope.length)
      throw new errors.InvalidScope('the assertion allows none of the requested scopes', params.scope);

    // Single use (RFC 7523 section 3 item 7 allows a jti cache; the MCP extension requires one) unless reuse is allowed.
    if (!v.issuer.allowReuse) {
      const jti = typeof p.jti === 'string' ? p.jti : undefined;
      if (!jti) throw invalidGrant('the assertion has no jti, and its issuer does not allow reuse');
      const fresh = await replay.remember(`${v.issuer.issuer} ${jti}`, new Date((p.exp! + SKEW_SECONDS) * 1000));
      if (!fresh) throw invalidGrant('the assertion was already used');
    }

    if (actor) {
      await redeemForActor(ctx, deps.agentToken, deps.tenantId, {
        actor,
        issuer: v.issuer.issuer,
        assertionJti: typeof p.jti === 'string' ? p.jti : undefined,
        assertionSubject: String(p.sub),
        userId: accountId,
        resource,
        scopes: scope,
        consentedScopes: allowed ? registered.filter((s) => allowed.has(s)) : [],
        jkt,
      });
      return;
    }

    const { Grant, AccessToken, ResourceServer } = ctx.oidc.provider;
    // The grant records exactly what the assertion allowed: the JWT customizer never signs more (resource-servers.ts).
    const grant = new Grant({ accountId, clientId: client.clientId });
    grant.addResourceScope(resource, scope.join(' '));
    const grantId = await grant.save();
    const token = new AccessToken({
      accountId,
      client,
      grantId,
      gty: GRANT_TYPE_JWT_BEARER,
      scope: scope.join(' ') || undefined,
      resourceServer: new ResourceServer(resource, info),
    });
    // RFC 9449 section 5: bound to the proof's key, as node-oidc-provider's own grants bind theirs.
    if (jkt) token.setThumbprint('jkt', jkt);
    ctx.oidc.entity('AccessToken', token);
    const value = await token.save();
    ctx.body = {
      access_token: value,
      token_type: token.tokenType,
      expires_in: token.expiration,
      ...(token.scope ? { scope: token.scope } : {}),
    };
  }

  provider.registerGrantType(GRANT_TYPE_JWT_BEARER, jwtBearer, [...PARAMS]);
  // Discovery names the grant, and the ID-JAG profile beside it (ID-JAG section 7.2), only once the tenant trusts an
  // issuer: a tenant that trusts none publishes the document it always did (the grant refuses everything there).
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 200 || ctx.path !== '/.well-known/openid-configuration') return;
    const body = ctx.body as { grant_types_supported?: unknown; [k: string]: unknown } | undefined;
    if (!body) return;
    if (await deps.models.TrustedIssuer.exists({ tenantId: deps.tenantId, enabled: true })) {
      body.authorization_grant_profiles_supported = [ID_JAG_GRANT_PROFILE];
    } else if (Array.isArray(body.grant_types_supported)) {
      body.grant_types_supported = body.grant_types_supported.filter((g) => g !== GRANT_TYPE_JWT_BEARER);
    }
  });
}
