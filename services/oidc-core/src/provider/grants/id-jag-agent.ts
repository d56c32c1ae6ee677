/**
 * The agent's side of issuing Identity Assertion Authorization Grants (grants/id-jag-issuer.ts): its subject token, and
 * the audit record of what was issued.
 *
 * The subject token of an agent's Identity Assertion Authorization Grant (draft-ietf-oauth-identity-assertion-authz-grant;
 * MCP Enterprise-Managed Authorization): the agent presents the delegation token this tenant issued it (the NHE token
 * the sidecar minted, services/nhe-delegation/src/domain/mint.ts) as an access token (RFC 8693 section 3,
 * `urn:ietf:params:oauth:token-type:access_token`). The draft leaves actor tokens to future profiles; the delegation
 * token already says who acts for whom (`act`, RFC 8693 section 4.1, and `agent`), so it is the subject token.
 *
 * It must be this tenant's (signature by its keys, `iss`, `typ` at+jwt, RFC 9068's required claims, the tenant id
 * claim), unexpired, a delegation token (the NHE marker claim, an `act` chain of this tenant's NHEs, an `agent` naming
 * its outermost actor), issued to the authenticated client (`client_id` and the numeric `azp`), and still live by the
 * rules introspection applies to it (provider/introspection.ts activeNheToken: the user, the NHEs of its chain and the
 * client enabled, delegation still allowed by the tenant and the client, no kill-switch entry revoking it).
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload } from 'jose';
import type { Client, KoaContextWithOIDC } from 'oidc-provider';
import type { Models } from '@idp/db';
import { actorChainOf, MAX_CHAIN_DEPTH_LIMIT, type ChainActor } from '@idp/delegation';
import { REVOCATION_COLLECTION, revocationStore, type NheTokenIssued, type RevocationStore } from '@idp/events';
import { verifyJwtAccessToken } from '@idp/resource-server';
import { CLAIM_NHE_DELEGATION, CLAIM_TENANT_ID } from '@idp/tokens';
import { clientAddress } from '../client-address';
import { CLIENT_PROPS } from '../client-metadata';
import { activeNheToken } from '../introspection';
import { invalidGrant, isObject } from './grant-errors';
import type { IdJagAuditForwarder } from './sidecar-forwarder';

export const TOKEN_TYPE_ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

export interface DelegationSubjectDeps {
  models: Models;
  tenantId: number;
  publicJwks: JSONWebKeySet;
  /** Deny-list store of the kill switch; default: the `nhe_revocations` collection of the models' connection. */
  revocations?: RevocationStore;
}

/** A live delegation token of this tenant, issued to the client that presents it. */
export interface DelegationSubject {
  /** The person who delegated (`sub`). */
  userId: string;
  /** The token's `act`, copied unchanged into the ID-JAG (nested chains survive). */
  act: Record<string, unknown>;
  /** The token's `agent`, copied into the ID-JAG. */
  agent: Record<string, unknown>;
  /** The acting NHE (the outermost actor, `agent.id`) and its registration id. */
  nheIdentifier: string;
  nheId: string;
  /** Every actor of the `act` chain, outermost first. */
  chain: ChainActor[];
  jti: string;
  exp: number;
  /** The key the token is bound to (`cnf.jkt`, RFC 9449 section 6): only a proof made with it may present it. */
  jkt?: string;
}

type SubjectVerifier = (token: string, issuer: string, client: Client) => Promise<DelegationSubject>;

/** One verifier (and key set) per tenant build: the deps object is the tenant's. */
const verifiers = new WeakMap<DelegationSubjectDeps, SubjectVerifier>();

/** The live delegation token `token`, or invalid_grant saying why not. */
export function delegationSubjectOf(
  deps: DelegationSubjectDeps,
  token: string,
  issuer: string,
  client: Client,
): Promise<DelegationSubject> {
  let verify = verifiers.get(deps);
  if (!verify) {
    verify = delegationSubjectVerifier(deps);
    verifiers.set(deps, verify);
  }
  return verify(token, issuer, client);
}

function delegationSubjectVerifier(deps: DelegationSubjectDeps): SubjectVerifier {
  const jwks = createLocalJWKSet(deps.publicJwks);
  const { models, tenantId } = deps;
  const store = deps.revocations ?? revocationStore(models.Nhe.db.collection(REVOCATION_COLLECTION));
  return async (token, issuer, client) => {
    let payload: JWTPayload;
    try {
      // The shared verifier (as introspection): canonical compact JWS, this tenant's keys (another tenant's token fails
      // here), issuer, typ at+jwt, expiry, no `cnf` member other than jkt.
      ({ payload } = await verifyJwtAccessToken(token, { key: jwks, issuer, typ: 'at+jwt', algorithms: ['ES256'] }));
    } catch (err) {
      throw invalidGrant(
        `the subject_token is not a valid access token of this tenant: ${(err as Error).message || 'refused'}`,
      );
    }
    // RFC 9068 section 2.2's required claims, and the tenant the sidecar minted it for.
    if (
      typeof payload.exp !== 'number' ||
      typeof payload.iat !== 'number' ||
      typeof payload.jti !== 'string' ||
      typeof payload.sub !== 'string' ||
      payload.aud === undefined ||
      payload[CLAIM_TENANT_ID] !== tenantId
    )
      throw invalidGrant('the subject_token is not a valid access token of this tenant');
    // Only a delegation token carries an agent's delegation across: a person's own access token has no actor.
    const chain = payload[CLAIM_NHE_DELEGATION] === true ? actorChainOf(payload.act, MAX_CHAIN_DEPTH_LIMIT) : null;
    const agent = payload.agent;
    if (!chain || !isObject(payload.act) || !isObject(agent))
      throw invalidGrant('the subject_token is not a delegation token: an agent presents the token issued for it');
    const nheIdentifier = chain[0]!.identifier;
    if (agent.id !== nheIdentifier)
      throw invalidGrant('the subject_token is not a delegation token: its agent is not its actor');
    // Issued to the client that presents it (RFC 9068 client_id, and the spec's numeric azp): another client's
    // delegation token is not this client's to hand on.
    if (payload.client_id !== client.clientId || payload.azp !== Number(client[CLIENT_PROPS.numericId]))
      throw invalidGrant('the subject_token was issued to another client');
    if (!(await activeNheToken(payload, { tenantId, models, store })))
      throw invalidGrant(
        'the subject_token is no longer active (revoked, or its user, agent or client disabled, or delegation no longer allowed)',
      );
    const nhe = await models.Nhe.findOne({ tenantId, identifier: nheIdentifier }, { _id: 1 }).lean();
    if (!nhe) throw invalidGrant('the subject_token is no longer active');
    return {
      userId: payload.sub,
      act: payload.act,
      agent,
      nheIdentifier,
      nheId: String(nhe._id),
      chain,
      jti: payload.jti,
      exp: payload.exp,
      ...(isObject(payload.cnf) && typeof payload.cnf.jkt === 'string' ? { jkt: payload.cnf.jkt } : {}),
    };
  };
}

/**
 * The agent's ID-JAG as a token-audit record (the contract of a delegation token's, mint.ts auditIssuance): the
 * agent, the client, the resource at the other server, and crossDomain `issued` naming the audience and the ID-JAG's
 * jti; parentJti the delegation token it was exchanged from. True once JetStream stored it.
 */
export async function recordAgentIssuance(
  ctx: KoaContextWithOIDC,
  deps: { tenantId: number; recordIssuance?: IdJagAuditForwarder | undefined },
  i: {
    delegation: DelegationSubject;
    jti: string;
    audience: string;
    resource: string | undefined;
    scope: string | undefined;
    lifetime: number;
    issuedAt: number;
  },
): Promise<boolean> {
  const client = ctx.oidc.client!;
  const { delegation: d } = i;
  const event: NheTokenIssued = {
    type: 'nhe.token.issued',
    jti: i.jti,
    tenantId: deps.tenantId,
    userId: d.userId,
    nheId: d.nheId,
    nheIdentifier: d.nheIdentifier,
    clientId: client.clientId,
    clientNumericId: Number(client[CLIENT_PROPS.numericId]),
    // The resource at the other server; an audience without resources is named by its issuer.
    resourceServer: i.resource ?? i.audience,
    scopes: i.scope ? i.scope.split(' ') : [],
    ttl: i.lifetime,
    // The client address under the trusted hop count, never the left-most X-Forwarded-For entry.
    sourceIp: clientAddress(ctx),
    issuedAt: new Date(i.issuedAt * 1000).toISOString(),
    actorAuth: { method: d.chain[0]!.method },
    parentJti: d.jti,
    ...(d.chain.length > 1
      ? { actorChain: d.chain.map((a) => ({ nheIdentifier: a.identifier, method: a.method })) }
      : {}),
    crossDomain: { direction: 'issued', peer: i.audience, assertionJti: i.jti },
  };
  if (!deps.recordIssuance) return false;
  const answer = await deps.recordIssuance(event);
  return answer.status === 200;
}
