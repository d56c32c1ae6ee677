/**
 * A backchannel authentication request's delegation (OpenID CIBA Core 1.0 with RFC 9396 authorization details). The
 * agent asks, the person approves on their own device, and only then is a token minted: the same decision as token
 * exchange (libs/delegation decideDelegation: tenant, client and NHE gates, RBAC ∩ consent ∩ NHE ∩ policy, TTL), the
 * same mint and the same audit path (mint.ts: no JetStream ack, no token).
 *
 * Three stages (libs/delegation forwarded-ciba.ts):
 * - check, before anyone is asked: the decision as if the person had approved every requested scope. A disabled NHE,
 *   a client not allowed to delegate to it, or scopes beyond the policies end the request here.
 * - mint, after the approval: the approved scopes are the person's consent; the token carries `authorization_details`
 *   (RFC 9396 section 9.1) and its audit row the approval (request digest, details, time, sign-in).
 * - denied: the person said no; a refusal of the decision log, nothing else.
 *
 * The NHE: the one the request named (a delegating application acting for its NHE: the client's own delegation
 * settings are its gate, as at token exchange), or, for an agent client, the NHE whose registration names it (the link
 * is the client gate, as for its authorization-code tokens).
 */
import {
  agentClientFacts,
  agentLinkOf,
  decideDelegation,
  loadDelegationFacts,
  type DelegationDecision,
  type DelegationFacts,
  type ForwardedCiba,
} from '@idp/delegation';
import { OAuthError, oauthErrors } from '@idp/errors';
import type { Models } from '@idp/db';
import type { NheTokenIssued } from '@idp/events';
import type { TenantKeyMaterial } from './tenant-keys';
import { signInOfForwarded } from './subject-token';
import { auditIssuance, signNheToken } from './mint';

export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

export type CibaRejection = {
  outcome: 'rejected';
  error: string;
  stage: 'client' | 'dpop' | 'audit' | 'person-denied';
  reason: string;
};

export interface CibaTokenDeps {
  models: Models;
  issuerFor: (tenantId: number) => string;
  keysFor: (tenantId: number) => Promise<TenantKeyMaterial>;
  publishIssued: (event: NheTokenIssued) => Promise<void>;
  /** Once per request: the decision record, or a rejection outside it (never a token). */
  onDecision: (decision: DelegationDecision | CibaRejection, input: ForwardedCiba, nheIdentifier?: string) => void;
}

export type CibaTokenResult =
  | { stage: 'check'; nheIdentifier: string; scopes: string[]; ttl: number }
  | { stage: 'denied'; recorded: true }
  | {
      stage: 'mint';
      access_token: string;
      token_type: 'Bearer' | 'DPoP';
      expires_in: number;
      scope: string;
      nhe_identifier: string;
    };

export async function cibaToken(deps: CibaTokenDeps, input: ForwardedCiba): Promise<CibaTokenResult> {
  const reject = (error: OAuthError, stage: CibaRejection['stage'], nheIdentifier?: string): never => {
    deps.onDecision({ outcome: 'rejected', error: error.error, stage, reason: error.message }, input, nheIdentifier);
    throw error;
  };
  const named = input.nheIdentifier;
  let identifier: string;
  if (named !== undefined) identifier = named;
  else {
    const link = await agentLinkOf(deps.models, input.tenantId, input.clientId);
    if (link.kind !== 'agent')
      return reject(
        oauthErrors.accessDenied(
          link.kind === 'none'
            ? 'name the NHE this request is for (actor_token with actor_token_type urn:ietf:params:oauth:token-type:nhe-id): this client embodies no NHE'
            : 'this client is named by more than one NHE; an administrator must fix the registrations',
        ),
        'client',
      );
    identifier = link.nhe.identifier;
  }
  // The person's denial: a refusal of the decision log (the NHE as named: the check stage found it).
  if (input.stage === 'denied') {
    deps.onDecision(
      {
        outcome: 'rejected',
        error: 'access_denied',
        stage: 'person-denied',
        reason: 'the person denied the request',
      },
      input,
      identifier,
    );
    return { stage: 'denied', recorded: true };
  }
  const loaded = await loadDelegationFacts(deps.models, {
    tenantId: input.tenantId,
    clientId: input.clientId,
    userId: input.userId,
    nheIdentifier: identifier,
    resource: input.resource,
    requestedScopes: input.scopes,
    // Before the person is asked, as if they approved everything asked; after, what they approved.
    consentedScopes: input.scopes,
    agentClient: named === undefined,
  });
  if (!loaded) return reject(oauthErrors.invalidClient('tenant or client not found'), 'client');
  // Phishing-resistant delegation: before the person is asked their sign-in is not known (checked later); at mint it
  // is the sign-in they approved with.
  const signIn =
    input.stage === 'check'
      ? { signInLater: true }
      : input.approval
        ? {
            signIn: signInOfForwarded({
              acr: input.approval.acr,
              amr: input.approval.amr,
              authTime: input.approval.authTime ? Date.parse(input.approval.authTime) / 1000 : undefined,
            }),
          }
        : {};
  const facts: DelegationFacts =
    // The person approves (or is about to be asked): scopes a policy keeps for approval may be granted.
    named === undefined
      ? { ...agentClientFacts(loaded, identifier, input.clientNumericId), personApproved: true, ...signIn }
      : { ...loaded, actorAuth: 'named', personApproved: true, ...signIn };
  const decision = decideDelegation(facts);
  if (decision.outcome === 'denied') {
    deps.onDecision(decision, input, identifier);
    const description =
      decision.gate === 'actor-proof-required'
        ? 'this NHE must prove who it is with a signed actor token; a backchannel authentication request names it only'
        : decision.description;
    // CIBA Core section 13: the backchannel authentication endpoint answers access_denied for a request it will not
    // serve; at the token endpoint the decision's own RFC 6749 error stands.
    throw new OAuthError(
      input.stage === 'check' && decision.error === 'invalid_grant' ? 'access_denied' : decision.error,
      description,
      400,
      decision.scopes ? { extra: { scope: decision.scopes.join(' ') } } : {},
    );
  }
  const tenant = facts.tenant;
  const nhe = facts.nhe!;
  if (input.stage === 'check') {
    if (tenant.nhe.requireDpop || nhe.requireKeyBoundDpop) {
      // Said before the person is asked: the token request must carry a DPoP proof (checked again at mint).
      if (nhe.requireKeyBoundDpop)
        reject(
          oauthErrors.accessDenied(
            "this NHE's tokens must be bound to its registered keys: use the token exchange with an actor JWT",
          ),
          'dpop',
          nhe.identifier,
        );
    }
    return { stage: 'check', nheIdentifier: nhe.identifier, scopes: decision.scopes, ttl: decision.ttl };
  }
  if (!input.jkt && (tenant.nhe.requireDpop || nhe.requireKeyBoundDpop)) {
    reject(
      oauthErrors.invalidDpopProof(
        'delegated tokens of this tenant or NHE must be DPoP-bound: send a DPoP proof at the token endpoint',
      ),
      'dpop',
      nhe.identifier,
    );
  }
  const approval = input.approval!;
  const mint = {
    issuer: deps.issuerFor(input.tenantId),
    keys: await deps.keysFor(input.tenantId),
    tenant,
    nhe,
    userId: input.userId,
    clientId: input.clientId,
    clientNumericId: input.clientNumericId,
    resource: input.resource,
    decision,
    gty: CIBA_GRANT_TYPE,
    jkt: input.jkt,
    ...(input.authorizationDetails ? { authorizationDetails: input.authorizationDetails } : {}),
    approval: {
      ...approval,
      ...(input.authorizationDetails ? { authorizationDetails: input.authorizationDetails } : {}),
    },
  };
  const signed = signNheToken(mint);
  try {
    await auditIssuance(deps.publishIssued, { ...mint, tenantId: input.tenantId, sourceIp: input.sourceIp }, signed);
  } catch (err) {
    return reject(err as OAuthError, 'audit', nhe.identifier);
  }
  deps.onDecision(decision, input, nhe.identifier);
  return {
    stage: 'mint',
    access_token: signed.accessToken,
    token_type: input.jkt ? 'DPoP' : 'Bearer',
    expires_in: signed.ttl,
    scope: decision.scopes.join(' '),
    nhe_identifier: nhe.identifier,
  };
}
