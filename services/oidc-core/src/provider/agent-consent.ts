/**
 * The consent page of an agent client: who the agent is (name, type, operator) and, for every
 * API of the request, what its delegation token would carry, decided now by the same function the sidecar decides the
 * token with (libs/delegation decideDelegation over agentClientFacts): the scopes after the intersection, the ones
 * left out and why, and the resolved lifetime; or the reason the agent gets nothing.
 *
 * The inputs are those the token endpoint will forward (provider/agent-clients.ts): the requested scopes the grant
 * will hold for the resource (the scopes this page shows, `carried`) are requested and consented alike.
 */
import {
  agentClientFacts,
  agentLinkOf,
  decideDelegation,
  loadDelegationFacts,
  type ScopeLayer,
  type SignInFacts,
} from '@idp/delegation';
import type { Models } from '@idp/db';
import { MANAGEMENT_AUDIENCE, SSF_AUDIENCE } from '@idp/tokens';

/** One API of an agent's consent page: what the delegation token would carry, or why there is none. */
export type AgentConsentApi =
  | {
      resource: string;
      outcome: 'granted';
      scopes: string[];
      removed: Array<{ scope: string; layer: ScopeLayer }>;
      lifetimeSeconds: number;
    }
  | { resource: string; outcome: 'denied'; reason: string };

export interface AgentConsent {
  identifier: string;
  type: string;
  operator: string;
  model?: string;
  /** APIs whose tokens are delegation tokens (the UserInfo audience stays an ordinary one and is not listed). */
  apis: AgentConsentApi[];
}

export interface AgentConsentRequest {
  tenantId: number;
  clientId: string;
  clientNumericId: number;
  userId: string;
  /** The request's scope parameter. */
  requestedScopes: string[];
  /** Resource → the scopes the consent page shows (what the grant will record). */
  carried: Record<string, string[]>;
  /** The session's sign-in (acr, amr, age), decided on as the token endpoint will (phishing-resistant delegation). */
  signIn?: SignInFacts;
  /** Resource → requested scopes the token will not carry because the user does not hold them (honest consent). */
  withheld?: Record<string, string[]>;
  /** The tenant's UserInfo audience: tokens for it stay ordinary identity tokens. */
  userinfoAudience: string;
}

/** The agent's consent facts, or undefined when the client embodies no NHE (or several: refused at authorization). */
export async function agentConsentOf(models: Models, r: AgentConsentRequest): Promise<AgentConsent | undefined> {
  const link = await agentLinkOf(models, r.tenantId, r.clientId);
  if (link.kind !== 'agent') return undefined;
  const { nhe } = link;
  const requested = new Set(r.requestedScopes);
  const apis: AgentConsentApi[] = [];
  for (const [resource, carried] of Object.entries(r.carried)) {
    if (resource === r.userinfoAudience) continue;
    if (resource === MANAGEMENT_AUDIENCE || resource === SSF_AUDIENCE) {
      apis.push({ resource, outcome: 'denied', reason: 'an agent client cannot obtain tokens for this audience' });
      continue;
    }
    // The token endpoint asks for the code's scopes the grant holds: the requested ones among those shown here.
    const scopes = carried.filter((s) => requested.has(s));
    const loaded = await loadDelegationFacts(models, {
      tenantId: r.tenantId,
      clientId: r.clientId,
      userId: r.userId,
      nheIdentifier: nhe.identifier,
      resource,
      requestedScopes: scopes,
      consentedScopes: carried,
      agentClient: true,
    });
    if (!loaded) {
      apis.push({ resource, outcome: 'denied', reason: 'tenant not found' });
      continue;
    }
    const decision = decideDelegation({
      ...agentClientFacts(loaded, nhe.identifier, r.clientNumericId),
      ...(r.signIn ? { signIn: r.signIn } : {}),
    });
    if (decision.outcome === 'granted') {
      const withheld = (r.withheld?.[resource] ?? []).map((scope) => ({ scope, layer: 'user-permissions' as const }));
      apis.push({
        resource,
        outcome: 'granted',
        scopes: decision.scopes,
        removed: [...withheld, ...decision.removed],
        lifetimeSeconds: decision.ttl,
      });
    } else {
      // The sidecar's own wording for the one gate an agent client cannot pass by itself (agent-token.ts).
      const reason =
        decision.gate === 'actor-proof-required'
          ? 'this agent must prove who it is with a signed actor token, which an agent client cannot do'
          : decision.description;
      apis.push({ resource, outcome: 'denied', reason });
    }
  }
  const model = nhe.model
    ? [nhe.model.name, nhe.model.version].filter(Boolean).join(' ') +
      (nhe.model.provider ? ` (${nhe.model.provider})` : '')
    : '';
  return {
    identifier: nhe.identifier,
    type: nhe.type,
    operator: nhe.operator,
    ...(model.trim() ? { model: model.trim() } : {}),
    apis,
  };
}
