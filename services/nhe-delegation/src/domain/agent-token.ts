/**
 * An agent client's delegation token. node-oidc-provider has redeemed an authorization code
 * or a device code of a client that embodies an NHE (its registration names the client in agentClients); oidc-core
 * forwards the user, client, resource and scopes here, and this decides with the same function as token exchange
 * (libs/delegation decideDelegation: gates, RBAC ∩ consent ∩ NHE ∩ policy, TTL 60..900 s), then mints and audits
 * through the same path (mint.ts: no JetStream ack, no token).
 *
 * The client gate is the link itself: the NHE's registration naming the client is the administrator's decision that
 * this client is that agent (a client record's own config.nhe governs it as a token-exchange client only). The
 * client's own maxTokenLifetime, when its record has one, still caps the lifetime.
 *
 * Cross-domain agents (the JWT bearer grant, RFC 7523, with an assertion whose `act` names another organisation's
 * agent): the NHE is not the client's link but the one the trusted issuer's record maps `act.sub` to (input
 * nheIdentifier), and the same link is the client gate: that NHE's agentClients must name the redeeming client (the
 * client org A's agent authenticates with here). The person's consent is the assertion's scope (the enterprise IdP
 * asked for it); the decision, the mint and the audit are the same, and the audit record says where the delegation
 * came from (crossDomain: the issuer, the assertion's jti, sub and act.sub).
 */
import {
  agentClientFacts,
  agentClientMatches,
  agentLinkOf,
  decideDelegation,
  loadDelegationFacts,
  type DelegationDecision,
  type DelegationFacts,
  type ForwardedAgentToken,
} from '@idp/delegation';
import { OAuthError, oauthErrors } from '@idp/errors';
import type { Models } from '@idp/db';
import type { NheTokenIssued } from '@idp/events';
import type { ActorDirectory } from './actor-directory';
import type { TenantKeyMaterial } from './tenant-keys';
import { auditIssuance, signNheToken } from './mint';
import { signInOfForwarded } from './subject-token';

export interface AgentTokenDeps {
  models: Models;
  issuerFor: (tenantId: number) => string;
  keysFor: (tenantId: number) => Promise<TenantKeyMaterial>;
  publishIssued: (event: NheTokenIssued) => Promise<void>;
  actors: ActorDirectory;
  /** Once per request: the decision record, or a rejection outside it (never a token). */
  onDecision: (
    decision:
      DelegationDecision | { outcome: 'rejected'; error: string; stage: 'client' | 'dpop' | 'audit'; reason: string },
    input: ForwardedAgentToken,
    nheIdentifier?: string,
  ) => void;
}

export interface AgentTokenResult {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
}

export async function issueAgentToken(deps: AgentTokenDeps, input: ForwardedAgentToken): Promise<AgentTokenResult> {
  const reject = (error: OAuthError, stage: 'client' | 'dpop' | 'audit', nheIdentifier?: string): never => {
    deps.onDecision({ outcome: 'rejected', error: error.error, stage, reason: error.message }, input, nheIdentifier);
    throw error;
  };
  const identifier =
    input.nheIdentifier !== undefined ? await mappedAgent(deps, input, reject) : await linkedAgent(deps, input, reject);

  const loaded = await loadDelegationFacts(deps.models, {
    tenantId: input.tenantId,
    clientId: input.clientId,
    userId: input.userId,
    nheIdentifier: identifier,
    resource: input.resource,
    requestedScopes: input.scopes,
    consentedScopes: input.consentedScopes,
    agentClient: true,
  });
  if (!loaded) return reject(oauthErrors.invalidClient('tenant not found'), 'client');
  // The link is the client gate; the user consented to this agent on the consent page (always shown to it), or, for
  // another organisation's agent, at that organisation's IdP (the assertion's scope).
  const facts: DelegationFacts = {
    ...agentClientFacts(loaded, identifier, input.clientNumericId),
    // The sign-in the redeemed code records, checked as a subject token's would be (phishing-resistant delegation).
    ...(input.signIn ? { signIn: signInOfForwarded(input.signIn) } : {}),
  };
  const decision = decideDelegation(facts);
  if (decision.outcome === 'denied') {
    deps.onDecision(decision, input, identifier);
    const description =
      decision.gate !== 'actor-proof-required'
        ? decision.description
        : input.crossDomain
          ? "this NHE must prove who it is with a signed actor token: another organisation's assertion names it without that proof"
          : 'this NHE must prove who it is with a signed actor token: use the token exchange with an actor JWT, not an agent client';
    throw new OAuthError(
      decision.error,
      description,
      400,
      decision.scopes ? { extra: { scope: decision.scopes.join(' ') } } : {},
    );
  }
  const tenant = facts.tenant;
  const nhe = facts.nhe!;
  // DPoP: the provider verified the proof at its token endpoint (nonce and replay included); the tenant's
  // requireDpop and an NHE pinned to its keys are checked here as for token exchange.
  if (!input.jkt && (tenant.nhe.requireDpop || nhe.requireKeyBoundDpop)) {
    reject(
      oauthErrors.invalidDpopProof(
        'delegated tokens of this tenant or NHE must be DPoP-bound: send a DPoP proof at the token endpoint',
      ),
      'dpop',
      nhe.identifier,
    );
  }
  if (input.jkt && nhe.requireKeyBoundDpop) {
    const keys = await deps.actors.nhe(input.tenantId, nhe.identifier);
    const known = keys?.keys
      ? (await keys.keys.keys()).some((k) => k.jkt === input.jkt) ||
        (await keys.keys.refresh())?.some((k) => k.jkt === input.jkt)
      : false;
    if (!known)
      reject(
        oauthErrors.invalidDpopProof("DPoP proof key is not one of the NHE's registered keys"),
        'dpop',
        nhe.identifier,
      );
  }

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
    gty: input.grantType,
    jkt: input.jkt,
    ...(input.crossDomain ? { crossDomain: { direction: 'redeemed' as const, ...input.crossDomain } } : {}),
  };
  const signed = signNheToken(mint);
  try {
    await auditIssuance(deps.publishIssued, { ...mint, tenantId: input.tenantId, sourceIp: input.sourceIp }, signed);
  } catch (err) {
    return reject(err as OAuthError, 'audit', nhe.identifier);
  }
  deps.onDecision(decision, input, nhe.identifier);
  return {
    access_token: signed.accessToken,
    token_type: input.jkt ? 'DPoP' : 'Bearer',
    expires_in: decision.ttl,
    scope: decision.scopes.join(' '),
  };
}

type Reject = (error: OAuthError, stage: 'client', nheIdentifier?: string) => never;

/** An authorization code's or device code's client: the one NHE whose agentClients names it. */
async function linkedAgent(deps: AgentTokenDeps, input: ForwardedAgentToken, reject: Reject): Promise<string> {
  const link = await agentLinkOf(deps.models, input.tenantId, input.clientId);
  if (link.kind === 'none')
    return reject(
      oauthErrors.accessDenied('this client no longer embodies an NHE; start the authorization again'),
      'client',
    );
  if (link.kind === 'ambiguous')
    return reject(
      oauthErrors.accessDenied(
        `this client is named by more than one NHE (${link.identifiers.join(', ')}); an administrator must fix the registrations`,
      ),
      'client',
    );
  return link.nhe.identifier;
}

/**
 * A cross-domain agent: the NHE the trusted issuer's record maps the assertion's act.sub to. That NHE's agentClients
 * must name the redeeming client: a B administrator registers org A's agent as an NHE and names, as its agent client,
 * the client that agent authenticates with here; any other client presenting the assertion is refused. An NHE no
 * longer registered is left to the decision (nhe-not-found).
 */
async function mappedAgent(deps: AgentTokenDeps, input: ForwardedAgentToken, reject: Reject): Promise<string> {
  const identifier = input.nheIdentifier!;
  const nhe = await deps.models.Nhe.findOne({ tenantId: input.tenantId, identifier }, { agentClients: 1 }).lean<{
    agentClients?: string[];
  }>();
  if (nhe && !(nhe.agentClients ?? []).some((entry) => agentClientMatches(entry, input.clientId)))
    return reject(
      oauthErrors.accessDenied(
        `this client may not act for the NHE ${identifier}: the NHE's registration does not name it among its agent clients`,
      ),
      'client',
      identifier,
    );
  return identifier;
}
