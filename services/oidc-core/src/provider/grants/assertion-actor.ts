/**
 * An agent of another organisation, redeemed at the JWT bearer grant (RFC 7523 section 2.1): a trusted issuer's
 * assertion (an ID-JAG or a plain RFC 7523 JWT) whose `act` (RFC 8693 section 4.1: the party acting for `sub`) names
 * one of its agents. Where the issuer's record allows `act` and maps that `act.sub` to one of this tenant's NHEs
 * (`actors`), the token is this tenant's own delegation token for that NHE, handed to the nhe-delegation sidecar as an
 * agent client's token is (`/internal/agent-token`): the same decision (tenant, client and NHE gates, policies, RBAC,
 * lifetime), the same mint and the same audit, with the assertion's provenance in the audit record.
 *
 * - The actor is the outermost `act.sub` (RFC 8693 section 4.1: the current actor); an unmapped one is invalid_grant.
 * - The person's consent is the assertion's scope (its enterprise IdP asked for it): the delegation never carries a
 *   scope the assertion does not name.
 * - The token's `act` names the NHE of this tenant only (`nhe:<identifier>`): the issuer's own chain is in its
 *   namespace, and a nested `nhe:` member here would read as one of this tenant's NHEs (a delegation chain).
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ForwardedAgentToken } from '@idp/delegation';
import type { TrustedIssuerDoc } from '@idp/db';
import { GRANT_TYPE_JWT_BEARER } from '@idp/tokens';
import type { AgentTokenForwarder } from '../agent-clients';
import { clientAddress } from '../client-address';
import { CLIENT_PROPS } from '../client-metadata';
import { invalidGrant, isObject } from './grant-errors';

/** The assertion's current actor and the NHE of this tenant the issuer's record maps it to. */
export interface MappedActor {
  /** The assertion's `act.sub`, as the issuer wrote it. */
  subject: string;
  nheIdentifier: string;
  /** Every actor of the assertion's act chain (RFC 8693 section 4.1 nested act), outermost (`subject`) first. */
  chain: string[];
}

/** How deep an assertion's act chain is read (deeper members are not recorded). */
const MAX_ASSERTED_CHAIN = 16;

/** The `sub` of every nested `act`, outermost first, up to MAX_ASSERTED_CHAIN; a member without a string sub ends it. */
function assertedChain(act: Record<string, unknown>): string[] {
  const chain: string[] = [];
  let hop: unknown = act;
  while (isObject(hop) && chain.length < MAX_ASSERTED_CHAIN) {
    const sub = hop.sub;
    if (typeof sub !== 'string' || !sub || sub.length > 1024) break;
    chain.push(sub);
    hop = hop.act;
  }
  return chain;
}

/**
 * The NHE the assertion's `act` stands for here, or invalid_grant: `act` must be an object whose `sub` is a string
 * (RFC 8693 section 4.1), and the issuer's record must map that `sub` (the issuer's own words, matched exactly).
 */
export function mappedActor(issuer: TrustedIssuerDoc, act: unknown): MappedActor {
  if (!isObject(act)) throw invalidGrant('the assertion act must be a JSON object (RFC 8693 section 4.1)');
  const sub = act.sub;
  if (typeof sub !== 'string' || !sub || sub.length > 1024)
    throw invalidGrant('the assertion act names no actor (sub)');
  const entry = issuer.actors.find((a) => a.subject === sub);
  if (!entry) throw invalidGrant(`the actor ${sub.slice(0, 128)} is not an agent this tenant accepts from its issuer`);
  return { subject: sub, nheIdentifier: entry.nheIdentifier, chain: assertedChain(act) };
}

export interface ActorRedemption {
  actor: MappedActor;
  issuer: string;
  /** The assertion's jti and sub (its person, as the issuer names them). */
  assertionJti?: string | undefined;
  assertionSubject: string;
  /** The local user the assertion's sub is. */
  userId: string;
  resource: string;
  /** What the request asks for, already cut to the resource's scopes and the assertion's. */
  scopes: string[];
  /** The assertion's scope, cut to the resource's: the person's consent. */
  consentedScopes: string[];
  /** The thumbprint of the request's verified DPoP proof key (grants/dpop-proof.ts): the token is bound to it. */
  jkt?: string | undefined;
}

/** Asks the sidecar for the delegation token and answers with it, or with the sidecar's error. */
export async function redeemForActor(
  ctx: KoaContextWithOIDC,
  forward: AgentTokenForwarder | undefined,
  tenantId: number,
  r: ActorRedemption,
): Promise<void> {
  const client = ctx.oidc.client;
  if (!client) throw new errors.InvalidClient('client authentication failed');
  ctx.set('Cache-Control', 'no-store');
  if (!forward) {
    ctx.status = 503;
    ctx.body = {
      error: 'temporarily_unavailable',
      error_description: 'delegation tokens are unavailable, retry later',
    };
    return;
  }
  const numericId = Number(client[CLIENT_PROPS.numericId]);
  const forwarded: ForwardedAgentToken = {
    tenantId,
    clientId: client.clientId,
    clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
    userId: r.userId,
    resource: r.resource,
    scopes: r.scopes,
    consentedScopes: r.consentedScopes,
    grantType: GRANT_TYPE_JWT_BEARER,
    sourceIp: clientAddress(ctx),
    nheIdentifier: r.actor.nheIdentifier,
    ...(r.jkt ? { jkt: r.jkt } : {}),
    crossDomain: {
      peer: r.issuer,
      ...(r.assertionJti ? { assertionJti: r.assertionJti } : {}),
      subject: r.assertionSubject,
      actor: r.actor.subject,
      // The whole chain: the issuer may revoke an inner agent of it (domain/issuer-revocation.ts in signals).
      actors: r.actor.chain,
    },
  };
  const result = await forward(forwarded);
  ctx.status = result.status;
  ctx.body = result.body;
}
