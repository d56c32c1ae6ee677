import {
  decideDelegation,
  matchPolicies,
  resolveTtl,
  type DelegationDecision,
  type DelegationDenied,
  type DelegationErrorCode,
  type DelegationFacts,
  type DelegationGranted,
  type DenialGate,
  type PolicyFacts,
  type TtlTerm,
} from './decision';

/** A request that is granted: every gate open, one user policy, TTL set by the NHE (300 s). */
function baseFacts(): DelegationFacts {
  return {
    tenant: {
      id: 7,
      name: 'tenant-7',
      nhe: {
        enabled: true,
        hardMaxTokenLifetime: 900,
        allowedNheTypes: ['llm-autonomous', 'llm-assistive', 'automated-pipeline'],
        requireDpop: false,
      },
    },
    client: {
      clientId: 'demo-app',
      numericId: 11,
      firstParty: true,
      nhe: { delegationEnabled: true, allowedNheIdentifiers: [] },
    },
    resourceServer: {
      identifier: 'https://api.orders.example',
      accessTokenLifetime: 3600,
      nhe: { acceptDelegationTokens: true, allowedNheTypes: [] },
    },
    nhe: {
      id: 'nhe-1',
      identifier: 'orders-agent',
      type: 'llm-assistive',
      allowedScopes: ['orders:read', 'orders:write'],
      maxTokenLifetime: 300,
      enabled: true,
      operator: 'Demo Operations',
    },
    userId: 'user-1',
    userActive: true,
    userGroupIds: ['group-a'],
    policies: [
      { id: 'policy-user', target: { type: 'user', id: 'user-1' }, allowedScopes: ['orders:read', 'orders:write'] },
    ],
    userPermissions: new Set(['orders:read', 'orders:write']),
    consentedScopes: new Set(),
    requestedScopes: ['orders:read', 'orders:write'],
  };
}

function facts(patch: (f: DelegationFacts) => void): DelegationFacts {
  const f = baseFacts();
  patch(f);
  return f;
}

function granted(d: DelegationDecision): DelegationGranted {
  if (d.outcome !== 'granted') throw new Error(`expected a grant, got ${d.error} (${d.gate}): ${d.description}`);
  return d;
}

function denied(d: DelegationDecision): DelegationDenied {
  if (d.outcome !== 'denied') throw new Error(`expected a denial, got a grant of [${d.scopes.join(' ')}]`);
  return d;
}

describe('decideDelegation: base facts', () => {
  it('grants the base request (so every denial below is caused by its one change)', () => {
    const d = granted(decideDelegation(baseFacts()));
    expect(d.scopes).toEqual(['orders:read', 'orders:write']);
    expect(d.removed).toEqual([]);
    expect(d.ttl).toBe(300);
    expect(d.ttlSetBy).toBe('nhe.maxTokenLifetime');
    expect(d.policyIds).toEqual(['policy-user']);
  });
});

describe('decideDelegation: gates', () => {
  const rows: Array<[string, (f: DelegationFacts) => void, DelegationErrorCode, DenialGate]> = [
    ['tenant NHE delegation disabled', (f) => void (f.tenant.nhe.enabled = false), 'access_denied', 'tenant-disabled'],
    [
      'client delegation disabled',
      (f) => void (f.client.nhe.delegationEnabled = false),
      'access_denied',
      'client-disabled',
    ],
    ['user inactive (missing or disabled)', (f) => void (f.userActive = false), 'invalid_grant', 'user-inactive'],
    ['NHE not found', (f) => void (f.nhe = null), 'invalid_grant', 'nhe-not-found'],
    ['NHE disabled', (f) => void (f.nhe!.enabled = false), 'invalid_grant', 'nhe-disabled'],
    [
      'the user blocked this NHE for themselves on their delegation ledger',
      (f) => void (f.userOptedOut = true),
      'access_denied',
      'user-opt-out',
    ],
    [
      'client allowedNheIdentifiers excludes the NHE',
      (f) => void (f.client.nhe.allowedNheIdentifiers = ['other-agent']),
      'access_denied',
      'client-nhe-not-allowed',
    ],
    [
      'NHE type not in tenant allowedNheTypes',
      (f) => void (f.tenant.nhe.allowedNheTypes = ['llm-autonomous', 'automated-pipeline']),
      'access_denied',
      'tenant-nhe-type',
    ],
    [
      'tenant allows no NHE type at all',
      (f) => void (f.tenant.nhe.allowedNheTypes = []),
      'access_denied',
      'tenant-nhe-type',
    ],
    ['resource server not found', (f) => void (f.resourceServer = null), 'invalid_target', 'resource-not-found'],
    [
      'resource server does not accept delegation tokens',
      (f) => void (f.resourceServer!.nhe.acceptDelegationTokens = false),
      'invalid_target',
      'resource-rejects-delegation',
    ],
    [
      'resource server allowedNheTypes excludes the type',
      (f) => void (f.resourceServer!.nhe.allowedNheTypes = ['automated-pipeline']),
      'invalid_target',
      'resource-rejects-nhe-type',
    ],
    ['no policy at all', (f) => void (f.policies = []), 'access_denied', 'no-policy'],
    [
      'only a policy for another user',
      (f) => void (f.policies = [{ id: 'p', target: { type: 'user', id: 'user-2' }, allowedScopes: ['orders:read'] }]),
      'access_denied',
      'no-policy',
    ],
  ];

  it.each(rows)('%s → %s (%s)', (_name, patch, error, gate) => {
    const d = denied(decideDelegation(facts(patch)));
    expect({ error: d.error, gate: d.gate }).toEqual({ error, gate });
    expect(d.description).toEqual(expect.any(String));
    expect(d.scopes).toBeUndefined();
  });

  it("the user's block holds above a user policy, group policies and a first-party client, and names its layer", () => {
    const blocked = facts((f) => {
      f.userOptedOut = true;
      f.policies.push({ id: 'policy-group', target: { type: 'group', id: 'group-a' }, allowedScopes: ['orders:read'] });
    });
    const d = denied(decideDelegation(blocked));
    expect([d.error, d.gate]).toEqual(['access_denied', 'user-opt-out']);
    expect(d.description).toContain('user-opt-out');
    // Lifted: the same facts are granted again.
    expect(granted(decideDelegation({ ...blocked, userOptedOut: false })).scopes).toEqual([
      'orders:read',
      'orders:write',
    ]);
  });

  it('a disabled tenant is reported as such even when every other fact is wrong too', () => {
    const d = denied(
      decideDelegation(
        facts((f) => {
          f.tenant.nhe.enabled = false;
          f.client.nhe.delegationEnabled = false;
          f.userActive = false;
          f.nhe = null;
          f.resourceServer = null;
          f.policies = [];
        }),
      ),
    );
    expect([d.error, d.gate]).toEqual(['access_denied', 'tenant-disabled']);
  });

  it('an empty client allowedNheIdentifiers allows any NHE of the tenant', () => {
    for (const identifier of ['orders-agent', 'another-agent', 'x']) {
      const d = decideDelegation(
        facts((f) => {
          f.client.nhe.allowedNheIdentifiers = [];
          f.nhe!.identifier = identifier;
        }),
      );
      expect(d.outcome).toBe('granted');
    }
  });

  it('a non-empty client allowedNheIdentifiers that lists the NHE allows it', () => {
    const d = decideDelegation(
      facts((f) => void (f.client.nhe.allowedNheIdentifiers = ['other-agent', 'orders-agent'])),
    );
    expect(d.outcome).toBe('granted');
  });

  it('an empty resource allowedNheTypes accepts every type the tenant allows', () => {
    for (const type of ['llm-autonomous', 'llm-assistive', 'automated-pipeline']) {
      const d = decideDelegation(
        facts((f) => {
          f.resourceServer!.nhe.allowedNheTypes = [];
          f.nhe!.type = type;
        }),
      );
      expect(d.outcome).toBe('granted');
    }
  });

  it('a resource allowedNheTypes listing the type accepts it', () => {
    const d = decideDelegation(
      facts((f) => void (f.resourceServer!.nhe.allowedNheTypes = ['automated-pipeline', 'llm-assistive'])),
    );
    expect(d.outcome).toBe('granted');
  });
});

describe('decideDelegation: scope layers', () => {
  it('a requested scope beyond the policy fails with invalid_scope listing exactly those scopes', () => {
    const d = denied(
      decideDelegation(
        facts((f) => {
          f.requestedScopes = ['orders:read', 'orders:refund', 'admin'];
          // The user and the NHE may hold the extra scope: the policy alone decides invalid_scope.
          f.userPermissions = new Set(['orders:read', 'orders:refund', 'admin']);
          f.nhe!.allowedScopes = ['orders:read', 'orders:refund', 'admin'];
        }),
      ),
    );
    expect(d).toMatchObject({
      error: 'invalid_scope',
      gate: 'scope-exceeds-policy',
      scopes: ['orders:refund', 'admin'],
    });
  });

  it('a scope the user does not hold is narrowed away (not an error)', () => {
    const d = granted(decideDelegation(facts((f) => void (f.userPermissions = new Set(['orders:read'])))));
    expect(d.scopes).toEqual(['orders:read']);
    expect(d.removed).toEqual([{ scope: 'orders:write', layer: 'user-permissions' }]);
  });

  it('a scope the resource server no longer registers is narrowed away, even if a role still grants it', () => {
    const d = granted(decideDelegation(facts((f) => void (f.resourceServer!.scopes = ['orders:read']))));
    expect(d.scopes).toEqual(['orders:read']);
    expect(d.removed).toEqual([{ scope: 'orders:write', layer: 'not-registered' }]);
  });

  it('the 15-minute ceiling holds even when a stored hardMaxTokenLifetime is above it', () => {
    const d = granted(
      decideDelegation(
        facts((f) => {
          f.tenant.nhe.hardMaxTokenLifetime = 7200;
          f.nhe!.maxTokenLifetime = 3600;
        }),
      ),
    );
    expect([d.ttl, d.ttlSetBy]).toEqual([900, 'tenant.hardMaxTokenLifetime']);
  });

  it('a scope outside the NHE allowedScopes is narrowed away (not an error)', () => {
    const d = granted(decideDelegation(facts((f) => void (f.nhe!.allowedScopes = ['orders:write']))));
    expect(d.scopes).toEqual(['orders:write']);
    expect(d.removed).toEqual([{ scope: 'orders:read', layer: 'nhe-allowed-scopes' }]);
  });

  it('offline_access is never granted, even when policy, user and NHE all allow it', () => {
    const d = granted(
      decideDelegation(
        facts((f) => {
          f.requestedScopes = ['orders:read', 'offline_access'];
          f.policies[0]!.allowedScopes = ['orders:read', 'offline_access'];
          f.userPermissions = new Set(['orders:read', 'offline_access']);
          f.nhe!.allowedScopes = ['orders:read', 'offline_access'];
        }),
      ),
    );
    expect(d.scopes).toEqual(['orders:read']);
    expect(d.removed).toEqual([{ scope: 'offline_access', layer: 'no-refresh' }]);
  });

  it('offline_access outside the policy is removed, not reported as exceeding the policy', () => {
    const d = granted(decideDelegation(facts((f) => void (f.requestedScopes = ['offline_access', 'orders:read']))));
    expect(d.scopes).toEqual(['orders:read']);
    expect(d.removed).toEqual([{ scope: 'offline_access', layer: 'no-refresh' }]);
  });

  it('each layer is reported for its own scope when several narrow at once', () => {
    const d = granted(
      decideDelegation(
        facts((f) => {
          f.requestedScopes = ['a', 'b', 'c', 'offline_access'];
          f.policies[0]!.allowedScopes = ['a', 'b', 'c'];
          f.userPermissions = new Set(['a', 'c']);
          f.nhe!.allowedScopes = ['a', 'b'];
        }),
      ),
    );
    expect(d.scopes).toEqual(['a']);
    expect(d.removed).toEqual([
      { scope: 'b', layer: 'user-permissions' },
      { scope: 'c', layer: 'nhe-allowed-scopes' },
      { scope: 'offline_access', layer: 'no-refresh' },
    ]);
  });

  describe('consent (third-party clients)', () => {
    const thirdParty = (consented: string[]) => (f: DelegationFacts) => {
      f.client.firstParty = false;
      f.consentedScopes = new Set(consented);
    };

    it('a third-party client delegates only what the user consented to, even when policy, RBAC and NHE allow more', () => {
      const d = granted(decideDelegation(facts(thirdParty(['orders:read']))));
      expect(d.scopes).toEqual(['orders:read']);
      expect(d.removed).toEqual([{ scope: 'orders:write', layer: 'consent' }]);
    });

    it('a third-party client asking only for an unconsented scope fails with invalid_scope', () => {
      const d = denied(
        decideDelegation(facts((f) => (thirdParty(['orders:read'])(f), void (f.requestedScopes = ['orders:write'])))),
      );
      expect(d).toMatchObject({ error: 'invalid_scope', gate: 'scope-empty', scopes: ['orders:write'] });
    });

    it('a third-party client with no consent for the resource delegates nothing', () => {
      const d = denied(decideDelegation(facts(thirdParty([]))));
      expect(d).toMatchObject({ error: 'invalid_scope', gate: 'scope-empty', scopes: ['orders:read', 'orders:write'] });
    });

    it('consent never widens: a consented scope the user no longer holds is still removed (user-permissions)', () => {
      const d = granted(
        decideDelegation(
          facts(
            (f) => (
              thirdParty(['orders:read', 'orders:write'])(f),
              void (f.userPermissions = new Set(['orders:read']))
            ),
          ),
        ),
      );
      expect(d.scopes).toEqual(['orders:read']);
      expect(d.removed).toEqual([{ scope: 'orders:write', layer: 'user-permissions' }]);
    });

    it('a first-party client is not capped by consent (spec: no consent asked)', () => {
      const d = granted(decideDelegation(facts((f) => void (f.consentedScopes = new Set(['orders:read'])))));
      expect(d.scopes).toEqual(['orders:read', 'orders:write']);
      expect(d.removed).toEqual([]);
    });
  });

  it('a requested scope listed twice is granted once', () => {
    const d = granted(decideDelegation(facts((f) => void (f.requestedScopes = ['orders:read', 'orders:read']))));
    expect(d.scopes).toEqual(['orders:read']);
  });

  const emptyRows: Array<[string, (f: DelegationFacts) => void, string[]]> = [
    [
      'the user holds none of the requested scopes',
      (f) => void (f.userPermissions = new Set()),
      ['orders:read', 'orders:write'],
    ],
    [
      'the NHE allows none of the requested scopes',
      (f) => void (f.nhe!.allowedScopes = ['orders:refund']),
      ['orders:read', 'orders:write'],
    ],
    ['only offline_access is requested', (f) => void (f.requestedScopes = ['offline_access']), ['offline_access']],
    ['no scope is requested', (f) => void (f.requestedScopes = []), []],
  ];

  it.each(emptyRows)('an empty result fails with invalid_scope when %s', (_name, patch, scopes) => {
    const d = denied(decideDelegation(facts(patch)));
    expect(d).toMatchObject({ error: 'invalid_scope', gate: 'scope-empty', scopes });
  });
});

describe('decideDelegation: TTL terms', () => {
  /** All five terms set, all well above 60, distinct: 900 / 800 / 700 / 600 / 500. */
  function withTerms(patch: (f: DelegationFacts) => void = () => undefined): DelegationFacts {
    return facts((f) => {
      f.tenant.nhe.hardMaxTokenLifetime = 900;
      f.nhe!.maxTokenLifetime = 800;
      f.policies[0]!.maxTokenLifetime = 700;
      f.client.nhe.maxTokenLifetime = 600;
      f.resourceServer!.accessTokenLifetime = 500;
      patch(f);
    });
  }

  const rows: Array<[Exclude<TtlTerm, 'minimum'>, (f: DelegationFacts, v: number) => void]> = [
    ['tenant.hardMaxTokenLifetime', (f, v) => void (f.tenant.nhe.hardMaxTokenLifetime = v)],
    ['nhe.maxTokenLifetime', (f, v) => void (f.nhe!.maxTokenLifetime = v)],
    ['policy.maxTokenLifetime', (f, v) => void (f.policies[0]!.maxTokenLifetime = v)],
    ['client.maxTokenLifetime', (f, v) => void (f.client.nhe.maxTokenLifetime = v)],
    ['resourceServer.accessToken.lifetime', (f, v) => void (f.resourceServer!.accessTokenLifetime = v)],
  ];

  it('with all five terms set, the smallest (the resource server, 500) wins', () => {
    const d = granted(decideDelegation(withTerms()));
    expect([d.ttl, d.ttlSetBy]).toEqual([500, 'resourceServer.accessToken.lifetime']);
    expect(d.ttlTerms).toEqual({
      'tenant.hardMaxTokenLifetime': 900,
      'nhe.maxTokenLifetime': 800,
      'policy.maxTokenLifetime': 700,
      'client.maxTokenLifetime': 600,
      'resourceServer.accessToken.lifetime': 500,
    });
  });

  it.each(rows)('%s is the minimum once: it sets the TTL and is named', (term, set) => {
    const d = granted(decideDelegation(withTerms((f) => set(f, 120))));
    expect(d.ttl).toBe(120);
    expect(d.ttlSetBy).toBe(term);
    expect(d.ttlTerms[term]).toBe(120);
  });

  it.each(rows)('%s at exactly 60 is not clamped: the term is named', (term, set) => {
    const d = granted(decideDelegation(withTerms((f) => set(f, 60))));
    expect([d.ttl, d.ttlSetBy]).toEqual([60, term]);
  });

  it.each(rows)('%s at 59 is clamped up to 60 and ttlSetBy is "minimum"', (term, set) => {
    const d = granted(decideDelegation(withTerms((f) => set(f, 59))));
    expect([d.ttl, d.ttlSetBy]).toEqual([60, 'minimum']);
    expect(d.ttlTerms[term]).toBe(59);
  });

  it('61 stays 61', () => {
    const d = granted(decideDelegation(withTerms((f) => void (f.client.nhe.maxTokenLifetime = 61))));
    expect([d.ttl, d.ttlSetBy]).toEqual([61, 'client.maxTokenLifetime']);
  });

  it('unset policy and client lifetimes are ignored (not treated as 0 or as a cap)', () => {
    const d = granted(
      decideDelegation(
        facts((f) => {
          f.tenant.nhe.hardMaxTokenLifetime = 900;
          f.nhe!.maxTokenLifetime = 800;
          delete f.policies[0]!.maxTokenLifetime;
          delete f.client.nhe.maxTokenLifetime;
          f.resourceServer!.accessTokenLifetime = 700;
        }),
      ),
    );
    expect([d.ttl, d.ttlSetBy]).toEqual([700, 'resourceServer.accessToken.lifetime']);
    expect(d.ttlTerms).toEqual({
      'tenant.hardMaxTokenLifetime': 900,
      'nhe.maxTokenLifetime': 800,
      'resourceServer.accessToken.lifetime': 700,
    });
  });

  it('the tenant hard maximum caps a longer NHE, policy, client and resource lifetime', () => {
    const d = granted(
      decideDelegation(
        facts((f) => {
          f.tenant.nhe.hardMaxTokenLifetime = 900;
          f.nhe!.maxTokenLifetime = 3600;
          f.policies[0]!.maxTokenLifetime = 3600;
          f.client.nhe.maxTokenLifetime = 3600;
          f.resourceServer!.accessTokenLifetime = 3600;
        }),
      ),
    );
    expect([d.ttl, d.ttlSetBy]).toEqual([900, 'tenant.hardMaxTokenLifetime']);
  });
});

describe('resolveTtl', () => {
  const all = {
    'tenant.hardMaxTokenLifetime': 900,
    'nhe.maxTokenLifetime': 800,
    'policy.maxTokenLifetime': 700,
    'client.maxTokenLifetime': 600,
    'resourceServer.accessToken.lifetime': 500,
  } as const;

  it.each(Object.keys(all) as Array<keyof typeof all>)('names %s when it is the minimum', (term) => {
    const r = resolveTtl({ ...all, [term]: 100 });
    expect(r).toEqual({ ttl: 100, setBy: term, terms: { ...all, [term]: 100 } });
  });

  it.each([
    [59, 60, 'minimum'],
    [1, 60, 'minimum'],
    [0, 60, 'minimum'],
    [60, 60, 'nhe.maxTokenLifetime'],
    [61, 61, 'nhe.maxTokenLifetime'],
  ] as const)('a minimum of %i gives ttl %i set by %s', (value, ttl, setBy) => {
    const r = resolveTtl({ 'tenant.hardMaxTokenLifetime': 900, 'nhe.maxTokenLifetime': value });
    expect([r.ttl, r.setBy]).toEqual([ttl, setBy]);
  });

  it('ignores undefined optional terms and does not list them', () => {
    const r = resolveTtl({
      'tenant.hardMaxTokenLifetime': 900,
      'nhe.maxTokenLifetime': 300,
      'policy.maxTokenLifetime': undefined,
      'client.maxTokenLifetime': undefined,
      'resourceServer.accessToken.lifetime': 3600,
    });
    expect(r).toEqual({
      ttl: 300,
      setBy: 'nhe.maxTokenLifetime',
      terms: {
        'tenant.hardMaxTokenLifetime': 900,
        'nhe.maxTokenLifetime': 300,
        'resourceServer.accessToken.lifetime': 3600,
      },
    });
  });
});

describe('matchPolicies', () => {
  const userPolicy: PolicyFacts = {
    id: 'p-user',
    target: { type: 'user', id: 'user-1' },
    allowedScopes: ['orders:read'],
  };
  const groupA: PolicyFacts = {
    id: 'p-a',
    target: { type: 'group', id: 'group-a' },
    allowedScopes: ['orders:read', 'orders:write'],
    maxTokenLifetime: 200,
  };
  const groupB: PolicyFacts = {
    id: 'p-b',
    target: { type: 'group', id: 'group-b' },
    allowedScopes: ['orders:refund'],
    maxTokenLifetime: 150,
  };
  const groupC: PolicyFacts = { id: 'p-c', target: { type: 'group', id: 'group-c' }, allowedScopes: ['reports:read'] };
  const otherGroup: PolicyFacts = {
    id: 'p-z',
    target: { type: 'group', id: 'group-z' },
    allowedScopes: ['admin'],
    maxTokenLifetime: 61,
  };

  it('a policy naming the user wins over group policies (their scopes and lifetimes are not used)', () => {
    const m = matchPolicies([groupA, userPolicy, groupB], 'user-1', ['group-a', 'group-b']);
    expect(m).not.toBeNull();
    expect([...m!.scopes]).toEqual(['orders:read']);
    expect(m!.maxTokenLifetime).toBeUndefined();
    expect(m!.ids).toEqual(['p-user']);
  });

  it('several matching group policies give the union of scopes and the smallest lifetime', () => {
    const m = matchPolicies([groupA, groupB, groupC, otherGroup], 'user-1', ['group-a', 'group-b', 'group-c']);
    expect(m).not.toBeNull();
    expect([...m!.scopes].sort()).toEqual(['orders:read', 'orders:refund', 'orders:write', 'reports:read']);
    expect(m!.maxTokenLifetime).toBe(150);
    expect(m!.ids).toEqual(['p-a', 'p-b', 'p-c']);
  });

  it('a group policy applies only when the user is in the group', () => {
    expect(matchPolicies([otherGroup], 'user-1', ['group-a'])).toBeNull();
    expect(matchPolicies([groupA, otherGroup], 'user-1', ['group-a'])!.ids).toEqual(['p-a']);
  });

  it('target type matters: a group policy whose id equals the user id, or a user policy whose id equals a group, does not match', () => {
    const groupNamedLikeUser: PolicyFacts = {
      id: 'p-g',
      target: { type: 'group', id: 'user-1' },
      allowedScopes: ['x'],
    };
    const userNamedLikeGroup: PolicyFacts = {
      id: 'p-u',
      target: { type: 'user', id: 'group-a' },
      allowedScopes: ['y'],
    };
    expect(matchPolicies([groupNamedLikeUser, userNamedLikeGroup], 'user-1', ['group-a'])).toBeNull();
  });

  it('no policy for the user or any of the groups gives null', () => {
    expect(matchPolicies([], 'user-1', ['group-a'])).toBeNull();
    expect(matchPolicies([groupA], 'user-1', [])).toBeNull();
  });

  describe('through decideDelegation', () => {
    it('user policy wins: a scope only a group policy allows exceeds the policy', () => {
      const d = denied(
        decideDelegation(
          facts((f) => {
            f.userGroupIds = ['group-a'];
            f.policies = [groupA, userPolicy];
            f.requestedScopes = ['orders:read', 'orders:write'];
          }),
        ),
      );
      expect(d).toMatchObject({ error: 'invalid_scope', gate: 'scope-exceeds-policy', scopes: ['orders:write'] });
    });

    it('user policy wins: a group policy lifetime does not cap the TTL', () => {
      const d = granted(
        decideDelegation(
          facts((f) => {
            f.userGroupIds = ['group-a'];
            f.policies = [groupA, userPolicy];
            f.requestedScopes = ['orders:read'];
          }),
        ),
      );
      expect([d.ttl, d.ttlSetBy]).toEqual([300, 'nhe.maxTokenLifetime']);
      expect(d.policyIds).toEqual(['p-user']);
    });

    it('group policies: union of scopes is grantable, the smallest lifetime sets the TTL', () => {
      const d = granted(
        decideDelegation(
          facts((f) => {
            f.userGroupIds = ['group-a', 'group-b'];
            f.policies = [groupA, groupB, otherGroup];
            f.requestedScopes = ['orders:read', 'orders:refund'];
            f.userPermissions = new Set(['orders:read', 'orders:refund']);
            f.nhe!.allowedScopes = ['orders:read', 'orders:refund'];
          }),
        ),
      );
      expect(d.scopes).toEqual(['orders:read', 'orders:refund']);
      expect([d.ttl, d.ttlSetBy]).toEqual([150, 'policy.maxTokenLifetime']);
      expect(d.policyIds).toEqual(['p-a', 'p-b']);
    });

    it('a group policy of a group the user is not in gives access_denied (no-policy)', () => {
      const d = denied(
        decideDelegation(
          facts((f) => {
            f.userGroupIds = ['group-a'];
            f.policies = [otherGroup];
          }),
        ),
      );
      expect([d.error, d.gate]).toEqual(['access_denied', 'no-policy']);
    });
  });
});

describe('authenticated actors: requireActorProof, tenant and per NHE', () => {
  const rows: Array<
    [
      string,
      boolean | undefined,
      boolean | null | undefined,
      'named' | 'key' | 'workload' | undefined,
      'granted' | 'denied',
    ]
  > = [
    ['defaults: a named actor is granted (the spec)', undefined, undefined, undefined, 'granted'],
    ['tenant on: named refused', true, undefined, 'named', 'denied'],
    ['tenant on: key granted', true, null, 'key', 'granted'],
    ['tenant on: workload granted', true, undefined, 'workload', 'granted'],
    ['tenant on, NHE false: named granted', true, false, 'named', 'granted'],
    ['tenant off, NHE true: named refused', false, true, undefined, 'denied'],
    ['tenant off, NHE true: key granted', false, true, 'key', 'granted'],
  ];
  it.each(rows)('%s', (_name, tenant, nhe, actorAuth, outcome) => {
    const d = decideDelegation(
      facts((f) => {
        if (tenant !== undefined) f.tenant.nhe.requireActorProof = tenant;
        if (nhe !== undefined) f.nhe!.requireActorProof = nhe;
        if (actorAuth) f.actorAuth = actorAuth;
      }),
    );
    if (outcome === 'granted') expect(granted(d).actorAuth).toBe(actorAuth ?? 'named');
    else
      expect(denied(d)).toEqual({
        outcome: 'denied',
        error: 'invalid_grant',
        gate: 'actor-proof-required',
        description:
          'this NHE must prove who it is: send a signed actor_token of type urn:ietf:params:oauth:token-type:jwt',
      });
  });
});
