/**
 * NHE delegation, read from a verified access token. A token is delegated exactly when `org.vendor.nhe.delegation`
 * is true; then `act.sub` is `nhe:` + the NHE identifier (RFC 8693 section 4.1: the actor, the human stays in
 * `sub`), `agent` describes the NHE (the IETF agent authorization profile: id, type, operator, optional model), and
 * `agent.id` is that identifier. Anything inconsistent (a marker without an NHE actor, an `act` without the marker,
 * an agent that is not the actor) is not guessed at: the token is refused.
 */
import type { JWTPayload } from 'jose';
import { ResourceServerError } from './errors';

export const CLAIM_NHE_DELEGATION = 'org.vendor.nhe.delegation';
export const NHE_SUBJECT_PREFIX = 'nhe:';
/** Member of each `act` level naming how that actor proved who it is to the provider: `key` or `workload`. */
export const CLAIM_ACTOR_PROOF = 'org.vendor.actor.proof';

/** How an actor of the chain proved who it is: `key` (its own registered key), `workload` (a trusted workload identity), or undefined (only named). */
export function actorProof(actor: Actor): 'key' | 'workload' | undefined {
  const proof = actor[CLAIM_ACTOR_PROOF];
  return proof === 'key' || proof === 'workload' ? proof : undefined;
}

/** The NHE identifiers of a delegation's actor chain, outermost (the current agent) first. */
export function chainAgents(d: Delegation): string[] {
  return d.actorChain.map((a) =>
    a.sub.startsWith(NHE_SUBJECT_PREFIX) ? a.sub.slice(NHE_SUBJECT_PREFIX.length) : a.sub,
  );
}

/** Model information of an agent (optional in the token; members as the provider records them). */
export interface AgentModel {
  name?: string;
  version?: string;
  provider?: string;
  [member: string]: unknown;
}

/** The `agent` claim of a delegation token. */
export interface Agent {
  /** The NHE identifier (the same as `nheIdentifier`). */
  id: string;
  /** The NHE type, one of the tenant's allowedNheTypes (e.g. llm-autonomous, llm-assistive, automated-pipeline). */
  type: string;
  /** Who runs the agent. */
  operator: string;
  model?: AgentModel;
}

/** One actor of the `act` chain (RFC 8693 section 4.1), without its own nested `act`. */
export interface Actor {
  sub: string;
  [claim: string]: unknown;
}

export interface Delegation {
  /** `act.sub` without the `nhe:` prefix. */
  nheIdentifier: string;
  agent: Agent;
  /** The nested `act` chain as a list, outermost (the current actor) first, each without its nested `act`. */
  actorChain: Actor[];
}

/** Deepest `act` nesting accepted. */
const MAX_ACTORS = 8;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const malformed = (description: string) =>
  new ResourceServerError('invalid_token', 'delegation_malformed', `the access token ${description}`);

function actorChainOf(act: unknown): Actor[] {
  const chain: Actor[] = [];
  let current: unknown = act;
  while (current !== undefined) {
    if (!isObject(current) || typeof current.sub !== 'string' || current.sub === '')
      throw malformed('act claim is malformed');
    if (chain.length === MAX_ACTORS) throw malformed(`act claim nests more than ${MAX_ACTORS} actors`);
    const { act: next, ...actor } = current;
    chain.push(actor as Actor);
    current = next;
  }
  return chain;
}

function agentOf(value: unknown, nheIdentifier: string): Agent {
  if (!isObject(value)) throw malformed('agent claim is missing or malformed');
  const { id, type, operator, model } = value;
  if (id !== nheIdentifier) throw malformed('agent.id is not the NHE of act.sub');
  if (typeof type !== 'string' || type === '') throw malformed('agent.type is missing');
  if (typeof operator !== 'string') throw malformed('agent.operator is missing');
  if (model !== undefined && !isObject(model)) throw malformed('agent.model is malformed');
  return model === undefined ? { id, type, operator } : { id, type, operator, model: model as AgentModel };
}

/**
 * The delegation a verified token carries: undefined for a token without `org.vendor.nhe.delegation` and without
 * `act`; throws ResourceServerError (invalid_token, `delegation_malformed`) when the claims disagree.
 */
export function delegationOf(payload: JWTPayload): Delegation | undefined {
  const marker = payload[CLAIM_NHE_DELEGATION];
  if (marker === undefined || marker === false) {
    if (payload.act !== undefined) throw malformed(`carries act without ${CLAIM_NHE_DELEGATION}`);
    return undefined;
  }
  if (marker !== true) throw malformed(`${CLAIM_NHE_DELEGATION} claim is not a boolean`);
  const actorChain = actorChainOf(payload.act);
  if (!actorChain.length) throw malformed('is a delegation token without an act claim');
  const sub = actorChain[0]!.sub;
  if (!sub.startsWith(NHE_SUBJECT_PREFIX) || sub.length === NHE_SUBJECT_PREFIX.length)
    throw malformed('act.sub does not name an NHE (nhe:<identifier>)');
  const nheIdentifier = sub.slice(NHE_SUBJECT_PREFIX.length);
  return { nheIdentifier, agent: agentOf(payload.agent, nheIdentifier), actorChain };
}
