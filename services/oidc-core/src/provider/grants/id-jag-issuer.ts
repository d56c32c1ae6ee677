/**
 * Issuing Identity Assertion Authorization Grants (draft-ietf-oauth-identity-assertion-authz-grant section 4.3; MCP's
 * Enterprise-Managed Authorization section 4): this tenant as the enterprise identity provider. A client that signed a
 * person in exchanges the person's ID token (RFC 8693, `requested_token_type=urn:ietf:params:oauth:token-type:id-jag`)
 * for a short-lived JWT that another authorization server (the `audience`) redeems with the JWT bearer grant.
 *
 * Only what the tenant's ID-JAG audience table allows is issued: the audience must have an enabled entry, the client
 * must be listed there (its client_id at that server goes into the ID-JAG), a `resource` must be one of the entry's
 * (an (audience, resource) pair that exists, as the MCP extension requires the identity provider to check), and the
 * scopes are cut to the entry's. The ID token must be this tenant's, unexpired, issued to the authenticated client, for
 * an enabled user. Errors follow RFC 8693 section 2.2.2 (`invalid_target` for an audience or resource not allowed).
 *
 * An agent (NHE) obtains one for the person it acts for by presenting its delegation token as the subject token
 * (grants/id-jag-agent.ts); the entry must also list the agent (`agents`). The ID-JAG then carries the delegation
 * token's `act` unchanged (RFC 8693 section 4.1: nested chains survive) and its `agent`, `sub` being the person, and
 * lives no longer than the delegation token. It is recorded like a delegation token (the sidecar publishes its
 * `nhe.token.issued` event, crossDomain `issued`, and JetStream acknowledges it) before it leaves: no durable audit
 * record, no ID-JAG. A DPoP-bound delegation token (`cnf.jkt`) is exchanged only with a DPoP proof made with its key
 * (RFC 9449 section 7, as the sidecar's rule for delegation subject tokens). A client that embodies an NHE (an agent
 * client) may not use the person's ID-token path: it would skip the agent's own gates, the kill switch and the audit.
 */
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { IdJagAudienceDoc, Models } from '@idp/db';
import { agentLinkOf } from '@idp/delegation';
import type { RevocationStore } from '@idp/events';
import type { PrivateJwk } from '@idp/tokens';
import { tokenEndpointProof } from './dpop-proof';
import { delegationSubjectOf, recordAgentIssuance, TOKEN_TYPE_ACCESS_TOKEN } from './id-jag-agent';
import type { IdJagAuditForwarder } from './sidecar-forwarder';

export const TOKEN_TYPE_ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
export const TOKEN_TYPE_ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG_TYP = 'oauth-id-jag+jwt';

export interface IdJagIssuerDeps {
  models: Models;
  tenantId: number;
  /** The tenant's active signing keys (private) and published keys (to verify its own ID tokens). */
  signing: PrivateJwk[];
  publicJwks: JSONWebKeySet;
  /** Records an agent's ID-JAG (the sidecar's audit call); without it, no ID-JAG is issued for an agent. */
  recordIssuance?: IdJagAuditForwarder | undefined;
  /** Deny-list store of the kill switch; default: the `nhe_revocations` collection of the models' connection. */
  revocations?: RevocationStore;
  /** The tenant is under FAPI 2.0: DPoP proofs with FAPI2_SIGNING_ALGS only. */
  fapi2?: boolean | undefined;
}

const NOT_RECORDED = {
  error: 'temporarily_unavailable',
  error_description: 'the issuance could not be recorded; no identity assertion was issued, retry later',
};

const invalid = (ErrorClass: typeof errors.InvalidRequest, description: string) =>
  Object.assign(new ErrorClass(description), { error_description: description });

function invalidTarget(description: string) {
  return Object.assign(new errors.InvalidTarget(description), { error_description: description });
}

export async function issueIdJag(
  ctx: KoaContextWithOIDC,
  deps: IdJagIssuerDeps,
  params: Record<string, string | undefined>,
): Promise<void> {
  const client = ctx.oidc.client;
  if (!client) throw new errors.InvalidClient('client authentication failed');
  // The MCP extension requires client authentication for this exchange.
  if (client.clientAuthMethod === 'none')
    throw new errors.UnauthorizedClient('a public client cannot obtain identity assertions');
  // The draft leaves actor tokens to future profiles; an agent's delegation is its delegation token.
  if (params.actor_token !== undefined)
    throw invalid(
      errors.InvalidRequest,
      `an actor_token is not accepted for identity assertions: an agent presents its delegation token as the subject_token (${TOKEN_TYPE_ACCESS_TOKEN})`,
    );
  const asAgent = params.subject_token_type === TOKEN_TYPE_ACCESS_TOKEN;
  if ((params.subject_token_type !== TOKEN_TYPE_ID_TOKEN && !asAgent) || !params.subject_token)
    throw invalid(
      errors.InvalidRequest,
      `subject_token must be an ID token (${TOKEN_TYPE_ID_TOKEN}) or an agent's delegation token (${TOKEN_TYPE_ACCESS_TOKEN})`,
    );
  const audience = params.audience;
  if (!audience) throw invalid(errors.InvalidRequest, 'audience is required: the issuer of the authorization server');

  const issuer = ctx.oidc.provider.issuer;
  const delegation = asAgent ? await delegationSubjectOf(deps, params.subject_token, issuer, client) : undefined;
  // An agent client acts as its NHE: it presents its delegation token (the agent's gates, the kill switch, the
  // person's ledger and the audit apply), never the ID token it also received.
  if (!asAgent && (await agentLinkOf(deps.models, deps.tenantId, client.clientId)).kind !== 'none')
    throw invalid(
      errors.InvalidGrant,
      `this client is an agent's: present its delegation token as the subject_token (${TOKEN_TYPE_ACCESS_TOKEN}), not an ID token`,
    );
  // A proof sent is checked (and must be made with the delegation token's key when that token is DPoP-bound); the
  // identity assertion itself is a bearer JWT the other server's client authentication protects.
  await tokenEndpointProof(ctx, deps, { jkt: delegation?.jkt });
  const idToken = asAgent ? {} : await personOf(deps, params.subject_token, issuer, client.clientId);
  const accountId = delegation ? delegation.userId : String(idToken.sub);

  const entry = await deps.models.IdJagAudience.findOne({
    tenantId: deps.tenantId,
    audience,
    enabled: true,
  }).lean<IdJagAudienceDoc>();
  if (!entry) throw invalidTarget('this tenant issues no identity assertions for that audience');
  const listed = entry.clients.find((c) => c.clientId === client.clientId);
  if (!listed) throw invalidTarget('this client may not obtain identity assertions for that audience');
  if (delegation && !(entry.agents ?? []).includes(delegation.nheIdentifier))
    throw invalidTarget('this agent may not obtain identity assertions for that audience');
  let resource = params.resource;
  if (resource !== undefined && !entry.resources.includes(resource))
    throw invalidTarget('that resource is not one of the audience’s');
  // Without a resource: the audience's only one, when it has exactly one; a choice the client must make otherwise.
  if (resource === undefined && entry.resources.length === 1) resource = entry.resources[0];
  if (resource === undefined && entry.resources.length > 1)
    throw invalidTarget('the audience has several resources: name one');
  // Without a scope asked for, the entry's whole cap: an ID-JAG always says what it allows.
  let scope: string | undefined = entry.scopes.length ? entry.scopes.join(' ') : undefined;
  if (params.scope !== undefined) {
    const granted = params.scope.split(' ').filter((s) => s && entry.scopes.includes(s));
    if (!granted.length)
      throw Object.assign(new errors.InvalidScope('none of the requested scopes may be asserted', params.scope), {
        error_description: 'none of the requested scopes may be asserted for that audience',
      });
    scope = [...new Set(granted)].join(' ');
  }

  // RS256 where the tenant has it: what every redeemer accepts; else its first active key.
  const key = deps.signing.find((k) => k.alg === 'RS256') ?? deps.signing.at(0);
  if (!key) throw new errors.InvalidRequest('the tenant has no signing key');
  const now = Math.floor(Date.now() / 1000);
  // An agent's assertion never outlives the delegation it carries.
  const lifetime = Math.min(entry.lifetimeSeconds, 300, delegation ? delegation.exp - now : 300);
  if (lifetime <= 0) throw invalid(errors.InvalidGrant, 'the subject_token has expired');
  const jti = randomUUID();
  const jwt = await new SignJWT({
    client_id: listed.clientIdAtAudience,
    ...(resource ? { resource } : {}),
    ...(scope ? { scope } : {}),
    // The delegation, as the delegation token states it: who acts (act, unchanged) and what it is (agent).
    ...(delegation ? { act: delegation.act, agent: delegation.agent } : {}),
    ...(typeof idToken.auth_time === 'number' ? { auth_time: idToken.auth_time } : {}),
    ...(typeof idToken.acr === 'string' ? { acr: idToken.acr } : {}),
    ...(Array.isArray(idToken.amr) ? { amr: idToken.amr } : {}),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ID_JAG_TYP })
    .setIssuer(issuer)
    .setSubject(accountId)
    .setAudience(audience)
    .setJti(jti)
    .setIssuedAt(now)
    .setExpirationTime(now + lifetime)
    .sign(await importJWK(key, key.alg));
  ctx.set('Cache-Control', 'no-store');
  if (delegation) {
    const recorded = await recordAgentIssuance(ctx, deps, {
      delegation,
      jti,
      audience,
      resource,
      scope,
      lifetime,
      issuedAt: now,
    });
    if (!recorded) {
      ctx.status = 503;
      ctx.body = NOT_RECORDED;
      return;
    }
  }
  ctx.body = {
    issued_token_type: TOKEN_TYPE_ID_JAG,
    access_token: jwt,
    // RFC 8693 section 2.2.1: not an access token, so no token type applies.
    token_type: 'N_A',
    expires_in: lifetime,
    ...(scope ? { scope } : {}),
  };
}

/** The person's ID token: this tenant's, issued to the authenticated client, for an enabled user. */
async function personOf(
  deps: IdJagIssuerDeps,
  token: string,
  issuer: string,
  clientId: string,
): Promise<Record<string, unknown>> {
  let idToken: Record<string, unknown>;
  try {
    // This tenant's own ID token, issued to this very client (the draft: the subject token's audience must be the
    // authenticated client, so a token stolen from another client cannot be exchanged).
    ({ payload: idToken } = await jwtVerify(token, createLocalJWKSet(deps.publicJwks), {
      issuer,
      audience: clientId,
      requiredClaims: ['sub', 'exp'],
    }));
    // An ID token, not another JWT of this tenant addressed to the client (a logout token, a signed UserInfo).
    const { typ } = decodeProtectedHeader(token);
    if (
      (typ !== undefined && typ.toLowerCase() !== 'jwt') ||
      idToken.events !== undefined ||
      (idToken.nonce === undefined && idToken.auth_time === undefined && idToken.at_hash === undefined)
    )
      throw new Error('not an ID token');
  } catch (err) {
    throw invalid(
      errors.InvalidGrant,
      `the subject_token is not a valid ID token of this tenant for this client: ${(err as Error).message}`,
    );
  }
  const accountId = String(idToken.sub);
  const user = /^[0-9a-f]{24}$/.test(accountId)
    ? await deps.models.User.findOne({ tenantId: deps.tenantId, _id: accountId }, { enabled: 1 }).lean()
    : null;
  if (!user?.enabled) throw invalid(errors.InvalidGrant, 'the subject is not an enabled user of this tenant');
  return idToken;
}
