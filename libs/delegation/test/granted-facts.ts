import type { DelegationFacts } from '../src/decision';

/**
 * The facts of a delegation every gate grants (unit tests of the decision): tenant 7's demo-app asks for orders-agent
 * on the orders API for user-1, whose own policy allows orders:read and orders:write. Each test changes what it needs.
 */
export function grantedFacts(): DelegationFacts {
  return {
    tenant: {
      id: 7,
      name: 'tenant-7',
      nhe: { enabled: true, hardMaxTokenLifetime: 900, allowedNheTypes: ['llm-assistive'], requireDpop: false },
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
      { id: 'policy-user', target: { type: 'user', id: 'user-1' }, allowedScopes: ['orders:read', 'orders:write'] },
    ],
    userPermissions: new Set(['orders:read', 'orders:write']),
    consentedScopes: new Set(),
    requestedScopes: ['orders:read'],
  } as DelegationFacts;
}
