/**
 * Delegation chains: a delegation token handed on by its NHE to another NHE. The new token keeps
 * `sub` (the human) and nests `act` (RFC 8693 section 4.1): `{sub: "nhe:B", act: {sub: "nhe:A"}}`, outermost = the
 * current actor. Each actor member may say how that actor proved who it is (CLAIM_ACTOR_PROOF).
 */
import { NHE_SUBJECT_PREFIX } from '@idp/tokens';
import type { ActorAuthMethod } from '@idp/db';
import { CLAIM_ACTOR_PROOF } from './actor-proof';

/** Discovery member (vendor): the deepest delegation chain this tenant issues (settings.nhe.maxChainDepth). */
export const DISCOVERY_MAX_CHAIN_DEPTH = 'org.vendor.max_chain_depth';

/** One actor of an `act` chain: the NHE identifier and how it proved who it is (named when the token does not say). */
export interface ChainActor {
  identifier: string;
  method: ActorAuthMethod;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The actors of a delegation token's `act` claim, outermost first; null when `act` is not a chain of NHE actors
 * (each `sub` = `nhe:<identifier>`, at most `max` deep, proof members `key` or `workload` when present).
 */
export function actorChainOf(act: unknown, max = 8): ChainActor[] | null {
  const out: ChainActor[] = [];
  let current: unknown = act;
  while (current !== undefined) {
    if (!isObject(current) || out.length >= max) return null;
    const sub = current.sub;
    if (
      typeof sub !== 'string' ||
      !sub.startsWith(NHE_SUBJECT_PREFIX) ||
      sub.length === NHE_SUBJECT_PREFIX.length ||
      sub.length > 300
    )
      return null;
    const proof = current[CLAIM_ACTOR_PROOF];
    if (proof !== undefined && proof !== 'key' && proof !== 'workload') return null;
    out.push({
      identifier: sub.slice(NHE_SUBJECT_PREFIX.length),
      method: (proof as ActorAuthMethod | undefined) ?? 'named',
    });
    current = current.act;
  }
  return out.length ? out : null;
}

/** The `act` claim of a token whose actor is `identifier` (proven by `method`), nesting the parent's `act` when handed on. */
export function nestedAct(identifier: string, method: ActorAuthMethod, parentAct?: unknown): Record<string, unknown> {
  return {
    sub: `${NHE_SUBJECT_PREFIX}${identifier}`,
    ...(method !== 'named' ? { [CLAIM_ACTOR_PROOF]: method } : {}),
    ...(parentAct !== undefined ? { act: parentAct } : {}),
  };
}
