/**
 * The NHE delegation decision (spec: "Security model rules", "Token endpoint" rules, "Errors", "Limits"), as a
 * pure function over facts already loaded. It returns a record that explains itself: which gate refused, or
 * which layer removed which scope and which term set the lifetime. The sidecar mints from it; the management
 * API's dry run returns it as is.
 */
import { NHE_MAX_TTL_SECONDS, NHE_MIN_TTL_SECONDS } from '@idp/tokens';
import type { ActorAuthMethod } from '@idp/db';
import { checkSignIn, signInRefusal, signInRequirement, type SignInCheck, type SignInFacts } from './sign-in';

export interface TenantFacts {
  id: number;
  name: string;
  nhe: {
    enabled: boolean;
    hardMaxTokenLifetime: number;
    allowedNheTypes: string[];
    requireDpop: boolean;
    /** settings.nhe.requireActorProof (the NHE must prove who it is); absent: false. */
    requireActorProof?: boolean;
    /** settings.nhe.maxChainDepth (delegation chains); absent: 1 (no re-delegation). */
    maxChainDepth?: number;
    /** settings.nhe.phishingResistantSignInMaxAgeMinutes (sign-in.ts): the default of policies without one; 0 or absent: none. */
    phishingResistantSignInMaxAgeMinutes?: number;
  };
}

export interface ClientFacts {
  clientId: string;
  numericId: number;
  /** First-party clients skip consent (spec); a third-party client delegates only what the user consented to. */
  firstParty: boolean;
  nhe: { delegationEnabled: boolean; allowedNheIdentifiers: string[]; maxTokenLifetime?: number };
}

export interface ResourceServerFacts {
  identifier: string;
  /** Permissions the resource server registers now; a scope outside them is never delegated (when given). */
  scopes?: string[];
  accessTokenLifetime: number;
  nhe: { acceptDelegationTokens: boolean; allowedNheTypes: string[] };
}

export interface NheFacts {
  id: string;
  identifier: string;
  type: string;
  allowedScopes: string[];
  maxTokenLifetime: number;
  enabled: boolean;
  operator: string;
  model?: { name?: string; version?: string; provider?: string };
  /** Overrides the tenant's requireActorProof; null or absent: inherit. */
  requireActorProof?: boolean | null;
  /** Tokens must be DPoP-bound to one of the NHE's registered keys. */
  requireKeyBoundDpop?: boolean;
}

export interface PolicyFacts {
  id: string;
  /** `nhe`: the NHE (by record id) that may hand a delegated token on to this policy's NHE (a delegation chain). */
  target: { type: 'user' | 'group' | 'nhe'; id: string };
  allowedScopes: string[];
  maxTokenLifetime?: number;
  /** Deepest chain a token through this policy may lead to; absent: 1 (user, group) or 2 (nhe). */
  maxChainDepth?: number;
  /** A phishing-resistant sign-in within this many minutes (sign-in.ts); 0: none; absent: the tenant's default. */
  phishingResistantSignInMaxAgeMinutes?: number;
  /** Scopes granted only with the person's approval (CIBA, `personApproved`); absent: none. */
  approvalRequiredScopes?: string[];
}

/** One actor of the subject token's `act` chain (a delegation chain), outermost first, with what the decision needs. */
export interface ChainActorFacts {
  /** As `act` names it (without `nhe:`). */
  identifier: string;
  /** How it proved who it is when its hop was issued (the act member's proof; named when absent). */
  method: ActorAuthMethod;
  /** The NHE now (null: no longer registered). */
  nhe: NheFacts | null;
  /** Every policy of this NHE (the decision picks the one that let the hop before it hand on). */
  policies: PolicyFacts[];
}

/**
 * A delegation chain: the subject token is itself a delegation token (user -> A [-> ...]) and the request asks to
 * hand it on to another NHE. The new token keeps `sub`, nests `act`, and is bounded by the parent.
 */
export interface ChainFacts {
  /** The parent's actors, outermost (the NHE that hands on) first; its depth is their number. */
  actors: ChainActorFacts[];
  /** The parent's scopes. */
  scopes: string[];
  /** The parent's audience (the new token's resource must be the same). */
  audience: string[];
  /** Seconds the parent has left (its exp minus now): the new token never outlives it. */
  remainingSeconds: number;
}

export interface DelegationFacts {
  tenant: TenantFacts;
  client: ClientFacts;
  /** null when the requested resource is not a resource server of the tenant. */
  resourceServer: ResourceServerFacts | null;
  /** null when no NHE has the requested identifier. */
  nhe: NheFacts | null;
  userId: string;
  /** The user exists in the tenant and is enabled. */
  userActive: boolean;
  /** Group ids the user belongs to (policy targets). */
  userGroupIds: string[];
  /** Policies of this NHE (all targets; the decision picks those that match the user). */
  policies: PolicyFacts[];
  /** Permissions the user holds now on the resource server. */
  userPermissions: ReadonlySet<string>;
  /**
   * What the user consented to for the requested resource: the subject token's `scope` when its `aud` names the
   * resource, nothing otherwise. Caps a third-party client's delegation (layer `consent`); first-party clients are
   * not asked for consent (spec) and are not capped by it.
   */
  consentedScopes: ReadonlySet<string>;
  requestedScopes: string[];
  /** How the actor was authenticated; absent: `named` (the spec's nhe-id actor token). */
  actorAuth?: ActorAuthMethod;
  /** The subject token is a delegation token handed on (a delegation chain); absent: a user's token (the spec). */
  chain?: ChainFacts;
  /**
   * The user has blocked this NHE for themselves on their delegation ledger: every token of it for this
   * user is refused (gate `user-opt-out`) until the user lifts the block. Absent: false.
   */
  userOptedOut?: boolean;
  /**
   * The user's sign-in as the subject token states it (acr, amr, age from auth_time), for a policy or tenant that
   * requires a recent phishing-resistant sign-in (sign-in.ts). Absent: unknown, which never meets a requirement.
   */
  signIn?: SignInFacts;
  /**
   * The person approves this delegation on their own device (a backchannel authentication request, OpenID CIBA):
   * the scopes a matched policy keeps for approval may be granted. Absent: false (token exchange, agent clients).
   */
  personApproved?: boolean;
  /**
   * The sign-in is not known yet and will be checked later: a backchannel authentication request before the person is
   * asked (their approval's sign-in is checked when the token is minted). Absent: false.
   */
  signInLater?: boolean;
}

export type DelegationErrorCode = 'access_denied' | 'invalid_grant' | 'invalid_scope' | 'invalid_target';

/** Where a refusal came from: the closed set the metrics and the dry run report. */
export type DenialGate =
  | 'user-inactive'
  | 'tenant-disabled'
  | 'tenant-nhe-type'
  | 'client-disabled'
  | 'client-nhe-not-allowed'
  | 'nhe-not-found'
  | 'nhe-disabled'
  | 'user-opt-out'
  | 'actor-proof-required'
  // Phishing-resistant delegation (sign-in.ts): the subject token's sign-in is not phr/phrh, or too old.
  | 'sign-in-not-phishing-resistant'
  | 'sign-in-too-old'
  | 'resource-not-found'
  | 'resource-rejects-delegation'
  | 'resource-rejects-nhe-type'
  | 'no-policy'
  | 'scope-exceeds-policy'
  | 'scope-empty'
  // Delegation chains: a delegation token handed on to another NHE.
  | 'chain-depth-exceeded'
  | 'chain-nhe-disabled'
  | 'chain-no-policy'
  | 'chain-resource-mismatch'
  | 'scope-exceeds-parent'
  | 'chain-parent-expired';

/** A layer of the scope intersection. */
export type ScopeLayer =
  | 'no-refresh'
  | 'not-registered'
  | 'user-permissions'
  | 'consent'
  | 'nhe-allowed-scopes'
  // A matched policy grants it only with the person's approval on their own device (CIBA).
  | 'needs-approval';

/** The terms of the TTL minimum (spec, "Limits"). */
export type TtlTerm =
  | 'tenant.hardMaxTokenLifetime'
  | 'nhe.maxTokenLifetime'
  | 'policy.maxTokenLifetime'
  | 'client.maxTokenLifetime'
  | 'resourceServer.accessToken.lifetime'
  | 'minimum'
  /** A chained token never outlives its parent: what the parent had left. */
  | 'parent.remaining';

/** One hop of a delegation chain as the decision checked it: who handed on to whom, under which policies. */
export interface ChainHop {
  /** 1 = the user's delegation to the first NHE. */
  depth: number;
  /** `user:<id>` for the first hop, `nhe:<identifier>` after. */
  from: string;
  /** `nhe:<identifier>`. */
  to: string;
  policyIds: string[];
  /** The deepest chain these policies allow. */
  maxChainDepth: number;
}

export interface ChainRecord {
  /** The new token's depth (actors in its act). */
  depth: number;
  /** The smallest of the tenant's ceiling and every hop's policies. */
  maxDepth: number;
  hops: ChainHop[];
}

export interface DelegationGranted {
  outcome: 'granted';
  scopes: string[];
  removed: Array<{ scope: string; layer: ScopeLayer }>;
  ttl: number;
  ttlSetBy: TtlTerm;
  ttlTerms: Partial<Record<TtlTerm, number>>;
  policyIds: string[];
  /** How the actor was authenticated: named, key or workload. */
  actorAuth: ActorAuthMethod;
  /** A handed-on token (a delegation chain): its depth, the limit and each hop. */
  chain?: ChainRecord;
  /** The sign-in requirement in force and the sign-in that met it (only when one applies). */
  signIn?: SignInCheck;
}

export interface DelegationDenied {
  outcome: 'denied';
  error: DelegationErrorCode;
  gate: DenialGate;
  description: string;
  /** The scopes that caused invalid_scope, when that is the error. */
  scopes?: string[];
  /** A refused hand-on: the hops checked up to the refusal. */
  chain?: ChainRecord;
  /** The sign-in requirement in force and the sign-in as stated (only when one applies). */
  signIn?: SignInCheck;
}

export type DelegationDecision = DelegationGranted | DelegationDenied;

/** error_description of a refusal by the user's own block: names the layer (the gate) the dry run reports. */
export const USER_OPT_OUT_DESCRIPTION =
  'the user has blocked this agent for themselves (user-opt-out); only the user can lift it, on their agents page';

const deny = (
  error: DelegationErrorCode,
  gate: DenialGate,
  description: string,
  scopes?: string[],
): DelegationDenied => ({
  outcome: 'denied',
  error,
  gate,
  description,
  ...(scopes ? { scopes } : {}),
});

/**
 * Policy matching: a policy naming the user wins over group policies; several matching group policies give the
 * union of their scopes and the smallest of their lifetimes (DESIGN.md).
 */
export function matchPolicies(
  policies: PolicyFacts[],
  userId: string,
  groupIds: string[],
): { scopes: Set<string>; maxTokenLifetime?: number; ids: string[] } | null {
  const direct = policies.filter((p) => p.target.type === 'user' && p.target.id === userId);
  const groups = new Set(groupIds);
  const matching = direct.length
    ? direct
    : policies.filter((p) => p.target.type === 'group' && groups.has(p.target.id));
  if (!matching.length) return null;
  const lifetimes = matching.map((p) => p.maxTokenLifetime).filter((v): v is number => typeof v === 'number');
  return {
    scopes: new Set(matching.flatMap((p) => p.allowedScopes)),
    ...(lifetimes.length ? { maxTokenLifetime: Math.min(...lifetimes) } : {}),
    ids: matching.map((p) => p.id),
  };
}

/** Effective TTL: the minimum of the terms that are set, clamped up to 60 seconds. */
export function resolveTtl(terms: Partial<Record<Exclude<TtlTerm, 'minimum'>, number | undefined>>): {
  ttl: number;
  setBy: TtlTerm;
  terms: Partial<Record<TtlTerm, number>>;
} {
  let ttl = Number.POSITIVE_INFINITY;
  let setBy: TtlTerm = 'tenant.hardMaxTokenLifetime';
  const used: Partial<Record<TtlTerm, number>> = {};
  for (const [term, value] of Object.entries(terms) as Array<[Exclude<TtlTerm, 'minimum'>, number | undefined]>) {
    if (typeof value !== 'number' || !Number.isFinite(value)) continue;
    used[term] = value;
    if (value < ttl) {
      ttl = value;
      setBy = term;
    }
  }
  if (ttl < NHE_MIN_TTL_SECONDS) return { ttl: NHE_MIN_TTL_SECONDS, setBy: 'minimum', terms: used };
  return { ttl: Math.floor(ttl), setBy, terms: used };
}

export function decideDelegation(f: DelegationFacts): DelegationDecision {
  // Gate 1 and 2: tenant and client (spec: access_denied when the feature is off at either level).
  if (!f.tenant.nhe.enabled)
    return deny('access_denied', 'tenant-disabled', 'NHE delegation is disabled for this tenant');
  if (!f.client.nhe.delegationEnabled)
    return deny('access_denied', 'client-disabled', 'NHE delegation is disabled for this client');
  if (!f.userActive)
    return deny('invalid_grant', 'user-inactive', 'the user of subject_token does not exist or is disabled');
  // The NHE named by actor_token.
  if (!f.nhe) return deny('invalid_grant', 'nhe-not-found', 'unknown NHE');
  if (!f.nhe.enabled) return deny('invalid_grant', 'nhe-disabled', 'the NHE is disabled');
  // The user's own opt-out (their delegation ledger's block): above every policy, group or consent; only the user lifts
  // it.
  if (f.userOptedOut) return deny('access_denied', 'user-opt-out', USER_OPT_OUT_DESCRIPTION);
  const actorAuth = f.actorAuth ?? 'named';
  if (actorAuth === 'named' && actorProofRequired(f.tenant, f.nhe)) {
    return deny(
      'invalid_grant',
      'actor-proof-required',
      'this NHE must prove who it is: send a signed actor_token of type urn:ietf:params:oauth:token-type:jwt',
    );
  }
  if (f.client.nhe.allowedNheIdentifiers.length && !f.client.nhe.allowedNheIdentifiers.includes(f.nhe.identifier)) {
    return deny('access_denied', 'client-nhe-not-allowed', 'this client may not delegate to this NHE');
  }
  if (!f.tenant.nhe.allowedNheTypes.includes(f.nhe.type)) {
    return deny('access_denied', 'tenant-nhe-type', `NHE type ${f.nhe.type} is not allowed in this tenant`);
  }
  // Gate 3: the resource server.
  if (!f.resourceServer) return deny('invalid_target', 'resource-not-found', 'unknown resource server');
  if (!f.resourceServer.nhe.acceptDelegationTokens) {
    return deny(
      'invalid_target',
      'resource-rejects-delegation',
      'the resource server does not accept delegated tokens',
    );
  }
  if (f.resourceServer.nhe.allowedNheTypes.length && !f.resourceServer.nhe.allowedNheTypes.includes(f.nhe.type)) {
    return deny(
      'invalid_target',
      'resource-rejects-nhe-type',
      `the resource server does not accept NHE type ${f.nhe.type}`,
    );
  }
  // Delegation policy: the user's (or group's) for this NHE; for a handed-on token (a delegation chain) the policy
  // that lets the parent's NHE hand on to this one, after every hop of the parent's chain is checked again.
  let policy: { scopes: Set<string>; maxTokenLifetime?: number; ids: string[] };
  let chain: ChainRecord | undefined;
  let signIn: SignInCheck | undefined;
  if (f.chain) {
    const checked = checkChain(f, f.chain, f.nhe, f.resourceServer.identifier);
    if (checked.outcome === 'denied') return checked;
    ({ policy, record: chain } = checked);
  } else {
    const matched = matchPolicies(f.policies, f.userId, f.userGroupIds);
    if (!matched)
      return deny('access_denied', 'no-policy', 'no delegation policy allows this user to delegate to this NHE');
    policy = matched;
    // Phishing-resistant delegation: the user's own sign-in, as the subject token states it. A policy refusal
    // (access_denied, the spec's code for what a delegation policy does not allow). A hand-on is not checked again:
    // its parent was, when it was minted from the user's token.
    const required = signInRequirement(
      f.policies.filter((p) => matched.ids.includes(p.id)),
      f.tenant.nhe.phishingResistantSignInMaxAgeMinutes,
    );
    if (required && !f.signInLater) {
      signIn = checkSignIn(required, f.signIn);
      if (!signIn.met) {
        const refusal = signInRefusal(signIn);
        return { ...deny('access_denied', refusal.gate, refusal.description), signIn };
      }
    }
  }
  const withChain = (d: DelegationDenied): DelegationDenied => {
    const out = chain ? { ...d, chain } : d;
    return signIn ? { ...out, signIn } : out;
  };

  const requested = [...new Set(f.requestedScopes)];
  // A handed-on token never carries a scope its parent does not (widening is refused, not narrowed away).
  if (f.chain) {
    const parentScopes = new Set(f.chain.scopes);
    const beyondParent = requested.filter((s) => !parentScopes.has(s) && s !== 'offline_access');
    if (beyondParent.length)
      return withChain(
        deny(
          'invalid_scope',
          'scope-exceeds-parent',
          "requested scope exceeds the subject_token's scopes",
          beyondParent,
        ),
      );
  }
  const beyondPolicy = requested.filter((s) => !policy.scopes.has(s) && s !== 'offline_access');
  if (beyondPolicy.length) {
    return withChain(
      deny('invalid_scope', 'scope-exceeds-policy', 'requested scope exceeds the delegation policy', beyondPolicy),
    );
  }
  const removed: DelegationGranted['removed'] = [];
  const nheScopes = new Set(f.nhe.allowedScopes);
  const registered = f.resourceServer.scopes ? new Set(f.resourceServer.scopes) : undefined;
  // Scopes a matched policy grants only with the person's approval: left out unless the person approves (CIBA).
  const needsApproval = new Set(
    f.personApproved || f.chain
      ? []
      : f.policies.filter((p) => policy.ids.includes(p.id)).flatMap((p) => p.approvalRequiredScopes ?? []),
  );
  const scopes = requested.filter((s) => {
    if (s === 'offline_access') removed.push({ scope: s, layer: 'no-refresh' });
    else if (registered && !registered.has(s)) removed.push({ scope: s, layer: 'not-registered' });
    else if (!f.userPermissions.has(s)) removed.push({ scope: s, layer: 'user-permissions' });
    // A third-party client never delegates more than the user consented to it (the subject token's scope for this
    // resource): the consent page showed exactly that, and a scope the user never saw must not reach an agent.
    else if (!f.client.firstParty && !f.consentedScopes.has(s)) removed.push({ scope: s, layer: 'consent' });
    else if (!nheScopes.has(s)) removed.push({ scope: s, layer: 'nhe-allowed-scopes' });
    else if (needsApproval.has(s)) removed.push({ scope: s, layer: 'needs-approval' });
    else return true;
    return false;
  });
  if (!scopes.length)
    return withChain(deny('invalid_scope', 'scope-empty', 'none of the requested scopes can be delegated', requested));

  const { ttl, setBy, terms } = resolveTtl({
    // The spec's hard ceiling holds even if a stored setting is out of range.
    'tenant.hardMaxTokenLifetime': Math.min(f.tenant.nhe.hardMaxTokenLifetime, NHE_MAX_TTL_SECONDS),
    'nhe.maxTokenLifetime': f.nhe.maxTokenLifetime,
    'policy.maxTokenLifetime': policy.maxTokenLifetime,
    'client.maxTokenLifetime': f.client.nhe.maxTokenLifetime,
    'resourceServer.accessToken.lifetime': f.resourceServer.accessTokenLifetime,
  });
  if (f.chain) {
    // Never beyond the parent's expiry, the 60-second floor included: a handed-on token cannot outlive its parent.
    const remaining = Math.floor(f.chain.remainingSeconds);
    terms['parent.remaining'] = remaining;
    if (remaining < 1) return withChain(deny('invalid_grant', 'chain-parent-expired', 'subject_token has expired'));
    if (remaining < ttl)
      return {
        outcome: 'granted',
        scopes,
        removed,
        ttl: remaining,
        ttlSetBy: 'parent.remaining',
        ttlTerms: terms,
        policyIds: policy.ids,
        actorAuth,
        ...(chain ? { chain } : {}),
        ...(signIn ? { signIn } : {}),
      };
  }
  return {
    outcome: 'granted',
    scopes,
    removed,
    ttl,
    ttlSetBy: setBy,
    ttlTerms: terms,
    policyIds: policy.ids,
    actorAuth,
    ...(chain ? { chain } : {}),
    ...(signIn ? { signIn } : {}),
  };
}

/** Default maxChainDepth of a policy without one: 1 for a user or group (no onward delegation), 2 for an NHE target. */
export function policyChainDepth(p: PolicyFacts): number {
  return typeof p.maxChainDepth === 'number' ? p.maxChainDepth : p.target.type === 'nhe' ? 2 : 1;
}

/** The NHE -> NHE policies of `policies` whose target is the NHE with record id `fromNheId` (union of scopes, smallest lifetime and depth). */
export function matchHandOnPolicies(
  policies: PolicyFacts[],
  fromNheId: string,
): { scopes: Set<string>; maxTokenLifetime?: number; ids: string[]; maxChainDepth: number } | null {
  const matching = policies.filter((p) => p.target.type === 'nhe' && p.target.id === fromNheId);
  if (!matching.length) return null;
  const lifetimes = matching.map((p) => p.maxTokenLifetime).filter((v): v is number => typeof v === 'number');
  return {
    scopes: new Set(matching.flatMap((p) => p.allowedScopes)),
    ...(lifetimes.length ? { maxTokenLifetime: Math.min(...lifetimes) } : {}),
    ids: matching.map((p) => p.id),
    maxChainDepth: Math.min(...matching.map(policyChainDepth)),
  };
}

/** The tenant's ceiling on chain depth: settings.nhe.maxChainDepth, 1 when absent, never above {@link MAX_CHAIN_DEPTH_LIMIT}. */
export function tenantChainDepth(tenant: TenantFacts): number {
  const v = tenant.nhe.maxChainDepth;
  return Math.max(1, Math.min(typeof v === 'number' && Number.isFinite(v) ? Math.floor(v) : 1, MAX_CHAIN_DEPTH_LIMIT));
}

/** Hard maximum of a delegation chain's depth. */
export const MAX_CHAIN_DEPTH_LIMIT = 5;

/**
 * A handed-on token (a delegation chain), hop by hop from the user: every NHE of the parent's chain must still be
 * registered and enabled, every hop must still have its policy (the user's or group's for the first NHE, an NHE ->
 * NHE policy for each hand-on, the last one to the requested NHE), and the new depth must be within the tenant's
 * ceiling and every hop's maxChainDepth. The last hop's policy is the one the scopes and lifetime are checked
 * against. The parent's resource is the only one a handed-on token may be for.
 */
function checkChain(
  f: DelegationFacts,
  c: ChainFacts,
  nhe: NheFacts,
  resource: string,
):
  | DelegationDenied
  | {
      outcome: 'checked';
      policy: { scopes: Set<string>; maxTokenLifetime?: number; ids: string[] };
      record: ChainRecord;
    } {
  const depth = c.actors.length + 1;
  const tenantMax = tenantChainDepth(f.tenant);
  const record: ChainRecord = { depth, maxDepth: tenantMax, hops: [] };
  const refuse = (error: DelegationErrorCode, gate: DenialGate, description: string): DelegationDenied => ({
    ...deny(error, gate, description),
    chain: record,
  });
  if (depth > tenantMax)
    return refuse(
      'invalid_grant',
      'chain-depth-exceeded',
      `the delegation chain would be ${depth} actors deep; this tenant allows at most ${tenantMax}`,
    );
  if (!c.audience.includes(resource)) {
    return refuse(
      'invalid_target',
      'chain-resource-mismatch',
      "a handed-on token is for its parent's resource only: resource must be the subject_token's audience",
    );
  }
  // Innermost (the user's own delegation) first.
  const path = [...c.actors].reverse();
  let from = `user:${f.userId}`;
  let fromNheId: string | undefined;
  let last: ReturnType<typeof matchHandOnPolicies> = null;
  for (let i = 0; i <= path.length; i += 1) {
    // i === path.length: the last hop, to the requested NHE (no actor of the parent's chain).
    const actor = path.at(i);
    const target: NheFacts | null = actor ? actor.nhe : nhe;
    const identifier = actor ? actor.identifier : nhe.identifier;
    const to = `nhe:${identifier}`;
    if (actor && (!target || !target.enabled)) {
      return refuse(
        'invalid_grant',
        'chain-nhe-disabled',
        `the delegation chain passes through an NHE that is disabled or no longer registered (${identifier})`,
      );
    }
    const policies = actor ? actor.policies : f.policies;
    let hop: { ids: string[]; maxChainDepth: number } | null;
    if (fromNheId === undefined) {
      const matched = matchPolicies(policies, f.userId, f.userGroupIds);
      const user = policies.filter((p) => matched?.ids.includes(p.id));
      hop = matched ? { ids: matched.ids, maxChainDepth: Math.min(...user.map(policyChainDepth)) } : null;
      if (!hop)
        return refuse(
          'access_denied',
          'chain-no-policy',
          `no delegation policy allows this user to delegate to ${identifier}`,
        );
    } else {
      last = matchHandOnPolicies(policies, fromNheId);
      hop = last;
      if (!hop)
        return refuse(
          'access_denied',
          'chain-no-policy',
          `no delegation policy lets ${from.slice(4)} hand on to ${identifier}`,
        );
    }
    record.hops.push({ depth: i + 1, from, to, policyIds: hop.ids, maxChainDepth: hop.maxChainDepth });
    if (hop.maxChainDepth < record.maxDepth) record.maxDepth = hop.maxChainDepth;
    if (depth > hop.maxChainDepth) {
      return refuse(
        'invalid_grant',
        'chain-depth-exceeded',
        `the delegation chain would be ${depth} actors deep; the policy of hop ${i + 1} (${from} -> ${to}) allows at most ${hop.maxChainDepth}`,
      );
    }
    from = to;
    fromNheId = target!.id;
  }
  const { maxChainDepth: _depth, ...policy } = last!;
  return { outcome: 'checked', policy, record };
}

/** The NHE's own requireActorProof when it has one (true or false), else the tenant's. */
export function actorProofRequired(tenant: TenantFacts, nhe: NheFacts): boolean {
  return typeof nhe.requireActorProof === 'boolean' ? nhe.requireActorProof : tenant.nhe.requireActorProof === true;
}
