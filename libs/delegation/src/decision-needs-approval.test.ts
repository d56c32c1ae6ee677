import { grantedFacts } from '../test/granted-facts';
import { decideDelegation, type DelegationFacts } from './decision';

/** A granted request (every gate open); the user's policy keeps orders:write for the person's approval (CIBA). */
function facts(patch: Partial<DelegationFacts> = {}): DelegationFacts {
  const f = grantedFacts();
  f.policies[0]!.approvalRequiredScopes = ['orders:write'];
  return { ...f, requestedScopes: ['orders:read', 'orders:write'], ...patch };
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
