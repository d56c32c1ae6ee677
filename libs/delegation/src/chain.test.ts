/**
 * Delegation chains in the pure decision: a delegation token of NHE A handed on to NHE B, hop by
 * hop from the user, bounded by the tenant's ceiling, every hop's maxChainDepth, the parent's scopes and expiry.
 */
import { actorChainOf, nestedAct } from './chain';
import {
  decideDelegation,
  type ChainActorFacts,
  type DelegationDecision,
  type DelegationFacts,
  type NheFacts,
  type PolicyFacts,
} from './decision';

const nheFacts = (id: string, identifier: string, extra: Partial<NheFacts> = {}): NheFacts => ({
  id,
  identifier,
  type: 'llm-assistive',
  allowedScopes: ['orders:read', 'orders:write'],
  maxTokenLifetime: 300,
  enabled: true,
  operator: 'Ops',
  ...extra,
});

const userPolicy = (depth?: number): PolicyFacts => ({
  id: 'p-user-a',
  target: { type: 'user', id: 'user-1' },
  allowedScopes: ['orders:read', 'orders:write'],
  ...(depth ? { maxChainDepth: depth } : {}),
});
const handOn = (id: string, fromNheId: string, extra: Partial<PolicyFacts> = {}): PolicyFacts => ({
  id,
  target: { type: 'nhe', id: fromNheId },
  allowedScopes: ['orders:read', 'orders:write'],
  ...extra,
});

/** user -> A (policy depth 3) handing on to B (policy A -> B); tenant ceiling 3; parent: orders:read orders:write, 600 s left. */
function chainFacts(
  patch: (f: DelegationFacts & { chain: NonNullable<DelegationFacts['chain']> }) => void = () => undefined,
): DelegationFacts {
  const a: ChainActorFacts = {
    identifier: 'agent-a',
    method: 'key',
    nhe: nheFacts('id-a', 'agent-a'),
    policies: [userPolicy(3)],
  };
  const f = {
    tenant: {
      id: 7,
      name: 't',
      nhe: {
        enabled: true,
        hardMaxTokenLifetime: 900,
        allowedNheTypes: ['llm-assistive'],
        requireDpop: false,
        maxChainDepth: 3,
      },
    },
    client: {
      clientId: 'demo-app',
      numericId: 11,
      firstParty: true,
      nhe: { delegationEnabled: true, allowedNheIdentifiers: [] },
    },
    resourceServer: {
      identifier: 'https://api',
      accessTokenLifetime: 3600,
      nhe: { acceptDelegationTokens: true, allowedNheTypes: [] },
    },
    nhe: nheFacts('id-b', 'agent-b'),
    userId: 'user-1',
    userActive: true,
    userGroupIds: [],
    policies: [handOn('p-a-b', 'id-a')],
    userPermissions: new Set(['orders:read', 'orders:write']),
    consentedScopes: new Set<string>(),
    requestedScopes: ['orders:read'],
    chain: { actors: [a], scopes: ['orders:read', 'orders:write'], audience: ['https://api'], remainingSeconds: 600 },
  };
  patch(f);
  return f;
}

const outcome = (d: DelegationDecision) =>
  d.outcome === 'granted'
    ? { outcome: 'granted', scopes: d.scopes, ttl: d.ttl, ttlSetBy: d.ttlSetBy }
    : { outcome: 'denied', error: d.error, gate: d.gate, description: d.description };

describe('decideDelegation: delegation chains', () => {
  it('grants user -> A -> B and explains each hop', () => {
    const d = decideDelegation(chainFacts());
    expect(d).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      ttl: 300,
      policyIds: ['p-a-b'],
      chain: {
        depth: 2,
        maxDepth: 2,
        hops: [
          { depth: 1, from: 'user:user-1', to: 'nhe:agent-a', policyIds: ['p-user-a'], maxChainDepth: 3 },
          { depth: 2, from: 'nhe:agent-a', to: 'nhe:agent-b', policyIds: ['p-a-b'], maxChainDepth: 2 },
        ],
      },
    });
  });

  const rows: Array<[string, Parameters<typeof chainFacts>[0], Record<string, unknown>]> = [
    [
      'the tenant ceiling is 1 (the default)',
      (f) => void (f.tenant.nhe.maxChainDepth = 1),
      {
        error: 'invalid_grant',
        gate: 'chain-depth-exceeded',
        description: 'the delegation chain would be 2 actors deep; this tenant allows at most 1',
      },
    ],
    [
      'no ceiling set (absent = 1)',
      (f) => void delete f.tenant.nhe.maxChainDepth,
      { error: 'invalid_grant', gate: 'chain-depth-exceeded' },
    ],
    [
      "the user's policy does not let A hand on (default depth 1)",
      (f) => void (f.chain.actors[0]!.policies = [userPolicy()]),
      {
        error: 'invalid_grant',
        gate: 'chain-depth-exceeded',
        description:
          'the delegation chain would be 2 actors deep; the policy of hop 1 (user:user-1 -> nhe:agent-a) allows at most 1',
      },
    ],
    [
      'no policy lets A hand on to B',
      (f) => void (f.policies = [handOn('p-x', 'id-x')]),
      {
        error: 'access_denied',
        gate: 'chain-no-policy',
        description: 'no delegation policy lets agent-a hand on to agent-b',
      },
    ],
    [
      'a user policy on B is not a hand-on policy',
      (f) => void (f.policies = [userPolicy(3)]),
      { error: 'access_denied', gate: 'chain-no-policy' },
    ],
    [
      "the user's policy for A is gone",
      (f) => void (f.chain.actors[0]!.policies = []),
      {
        error: 'access_denied',
        gate: 'chain-no-policy',
        description: 'no delegation policy allows this user to delegate to agent-a',
      },
    ],
    [
      'A is disabled',
      (f) => void (f.chain.actors[0]!.nhe!.enabled = false),
      {
        error: 'invalid_grant',
        gate: 'chain-nhe-disabled',
        description: 'the delegation chain passes through an NHE that is disabled or no longer registered (agent-a)',
      },
    ],
    [
      'A is no longer registered',
      (f) => void (f.chain.actors[0]!.nhe = null),
      { error: 'invalid_grant', gate: 'chain-nhe-disabled' },
    ],
    ['B is disabled', (f) => void (f.nhe!.enabled = false), { error: 'invalid_grant', gate: 'nhe-disabled' }],
    [
      'scope widening beyond the parent',
      (f) => void ((f.chain.scopes = ['orders:read']), (f.requestedScopes = ['orders:read', 'orders:write'])),
      {
        error: 'invalid_scope',
        gate: 'scope-exceeds-parent',
        description: "requested scope exceeds the subject_token's scopes",
      },
    ],
    [
      'beyond the hand-on policy',
      (f) =>
        void (
          (f.policies = [handOn('p-a-b', 'id-a', { allowedScopes: ['orders:read'] })]),
          (f.requestedScopes = ['orders:write'])
        ),
      { error: 'invalid_scope', gate: 'scope-exceeds-policy' },
    ],
    [
      'another resource than the parent',
      (f) => void (f.chain.audience = ['https://other']),
      { error: 'invalid_target', gate: 'chain-resource-mismatch' },
    ],
    [
      'the parent has expired',
      (f) => void (f.chain.remainingSeconds = 0.5),
      { error: 'invalid_grant', gate: 'chain-parent-expired' },
    ],
  ];
  it.each(rows)('refuses: %s', (_n, patch, expected) => {
    expect(outcome(decideDelegation(chainFacts(patch)))).toMatchObject({ outcome: 'denied', ...expected });
  });

  it("B's allowed scopes narrow (not refuse), as for a user's delegation", () => {
    const d = decideDelegation(
      chainFacts(
        (f) => ((f.nhe!.allowedScopes = ['orders:read']), (f.requestedScopes = ['orders:read', 'orders:write'])),
      ),
    );
    expect(d).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      removed: [{ scope: 'orders:write', layer: 'nhe-allowed-scopes' }],
    });
  });

  it('never outlives the parent, even below the 60-second floor', () => {
    expect(outcome(decideDelegation(chainFacts((f) => void (f.chain.remainingSeconds = 200.7))))).toEqual({
      outcome: 'granted',
      scopes: ['orders:read'],
      ttl: 200,
      ttlSetBy: 'parent.remaining',
    });
    expect(outcome(decideDelegation(chainFacts((f) => void (f.chain.remainingSeconds = 12))))).toEqual({
      outcome: 'granted',
      scopes: ['orders:read'],
      ttl: 12,
      ttlSetBy: 'parent.remaining',
    });
  });

  it('depth 5 through four hand-ons when every policy allows it; depth 6 never (hard maximum)', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const actors: ChainActorFacts[] = ids
      .map((x, i) => ({
        identifier: `agent-${x}`,
        method: 'named' as const,
        nhe: nheFacts(`id-${x}`, `agent-${x}`),
        policies:
          i === 0 ? [userPolicy(5)] : [handOn(`p-${ids[i - 1]}-${x}`, `id-${ids[i - 1]}`, { maxChainDepth: 5 })],
      }))
      .reverse();
    const five = (ceiling: number, lastDepth = 5) =>
      chainFacts((f) => {
        f.tenant.nhe.maxChainDepth = ceiling;
        f.nhe = nheFacts('id-e', 'agent-e');
        f.policies = [handOn('p-d-e', 'id-d', { maxChainDepth: lastDepth })];
        f.chain.actors = actors;
      });
    expect(decideDelegation(five(5))).toMatchObject({ outcome: 'granted', chain: { depth: 5, maxDepth: 5 } });
    expect((decideDelegation(five(5)) as { chain: { hops: unknown[] } }).chain.hops).toHaveLength(5);
    expect(outcome(decideDelegation(five(4)))).toMatchObject({
      gate: 'chain-depth-exceeded',
      description: 'the delegation chain would be 5 actors deep; this tenant allows at most 4',
    });
    expect(outcome(decideDelegation(five(5, 4)))).toMatchObject({
      gate: 'chain-depth-exceeded',
      description:
        'the delegation chain would be 5 actors deep; the policy of hop 5 (nhe:agent-d -> nhe:agent-e) allows at most 4',
    });
    // A stored ceiling above the hard maximum still stops at 5.
    const six = chainFacts((f) => {
      f.tenant.nhe.maxChainDepth = 9;
      f.chain.actors = [
        {
          identifier: 'agent-e',
          method: 'named',
          nhe: nheFacts('id-e', 'agent-e'),
          policies: [handOn('p-d-e', 'id-d', { maxChainDepth: 5 })],
        },
        ...actors,
      ];
    });
    expect(outcome(decideDelegation(six))).toMatchObject({
      gate: 'chain-depth-exceeded',
      description: 'the delegation chain would be 6 actors deep; this tenant allows at most 5',
    });
  });
});

describe('act chains', () => {
  it('nests the parent act, the current actor outermost, with each proof', () => {
    const parent = nestedAct('agent-a', 'key');
    expect(parent).toEqual({ sub: 'nhe:agent-a', 'org.vendor.actor.proof': 'key' });
    const act = nestedAct('agent-b', 'workload', parent);
    expect(act).toEqual({
      sub: 'nhe:agent-b',
      'org.vendor.actor.proof': 'workload',
      act: { sub: 'nhe:agent-a', 'org.vendor.actor.proof': 'key' },
    });
    expect(nestedAct('agent-c', 'named', act)).toEqual({ sub: 'nhe:agent-c', act });
    expect(actorChainOf(nestedAct('agent-c', 'named', act))).toEqual([
      { identifier: 'agent-c', method: 'named' },
      { identifier: 'agent-b', method: 'workload' },
      { identifier: 'agent-a', method: 'key' },
    ]);
  });
  it.each([
    ['not an object', 'nhe:x'],
    ['a user actor', { sub: 'user-1' }],
    ['an empty identifier', { sub: 'nhe:' }],
    ['an unknown proof', { sub: 'nhe:a', 'org.vendor.actor.proof': 'password' }],
    ['a malformed nested actor', { sub: 'nhe:a', act: { sub: 3 } }],
  ])('refuses %s', (_n, act) => {
    expect(actorChainOf(act)).toBeNull();
  });
  it('refuses chains deeper than the bound', () => {
    let act: Record<string, unknown> | undefined;
    for (let i = 0; i < 6; i += 1) act = nestedAct(`a${i}`, 'named', act);
    expect(actorChainOf(act, 5)).toBeNull();
    expect(actorChainOf(act, 6)).toHaveLength(6);
  });
});
