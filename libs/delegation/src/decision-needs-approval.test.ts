import { decideDelegation, type DelegationFacts } from './decision';

/** A granted request (every gate open); the user's policy keeps orders:write for the person's approval (CIBA). */
function facts(patch: Partial<DelegationFacts> = {}): DelegationFacts {
  return {
    tenant: {
      id: 7,
      name: 'tenant-7',
      nhe: {
        enabled: true,
        hardMaxTokenLifetime: 900,
        allowedNheTypes: ['llm-assistive'],
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
    userGroupIds: [],
    policies: [
      {
        id: 'policy-user',
        target: { type: 'user', id: 'user-1' },
        allowedScopes: ['orders:read', 'orders:write'],
        approvalRequiredScopes: ['orders:write'],
      },
    ],
    userPermissions: new Set(['orders:read', 'orders:write']),
    consentedScopes: new Set(),
    requestedScopes: ['orders:read', 'orders:write'],
    ...patch,
  } as DelegationFacts;
}

describe("scopes a policy keeps for the person's approval (layer needs-approval)", () => {
  it('are left out of an outright grant (token exchange, agent clients)', () => {
    const d = decideDelegation(facts());
    expect(d).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      removed: [{ scope: 'orders:write', layer: 'needs-approval' }],
    });
  });

  it('refuse a request that asks only for them (invalid_scope, scope-empty)', () => {
    expect(decideDelegation(facts({ requestedScopes: ['orders:write'] }))).toMatchObject({
      outcome: 'denied',
      error: 'invalid_scope',
      gate: 'scope-empty',
    });
  });

  it('are granted when the person approves (CIBA)', () => {
    expect(decideDelegation(facts({ personApproved: true }))).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read', 'orders:write'],
      removed: [],
    });
  });
});
