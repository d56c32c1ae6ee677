import { grantedFacts } from '../test/granted-facts';
import { decideDelegation, type DelegationFacts } from './decision';
import { checkSignIn, signInRefusal, signInRequirement } from './sign-in';

/** A request that is granted when no sign-in requirement applies: one user policy, a group policy beside it. */
function baseFacts(patch: (f: DelegationFacts) => void = () => undefined): DelegationFacts {
  const f: DelegationFacts = { ...grantedFacts(), userGroupIds: ['group-a', 'group-b'] };
  patch(f);
  return f;
}

const requirePolicy = (minutes: number) => (f: DelegationFacts) => {
  f.policies[0]!.phishingResistantSignInMaxAgeMinutes = minutes;
};

const NEEDS_10 = 'this delegation needs a phishing-resistant sign-in (passkey) within the last 10 minutes';

describe('phishing-resistant delegation: defaults keep the behaviour', () => {
  it('no policy value and no tenant default: granted whatever the sign-in, and the record says nothing of it', () => {
    for (const signIn of [undefined, {}, { acr: 'urn:idp:acr:pwd', ageSeconds: 86_400 }]) {
      const d = decideDelegation(baseFacts((f) => (signIn ? (f.signIn = signIn) : undefined)));
      expect(d.outcome).toBe('granted');
      expect(d).not.toHaveProperty('signIn');
    }
  });

  it('a tenant default of 0 is no requirement', () => {
    const d = decideDelegation(baseFacts((f) => (f.tenant.nhe.phishingResistantSignInMaxAgeMinutes = 0)));
    expect(d.outcome).toBe('granted');
  });
});

describe('phishing-resistant delegation: a policy that requires it', () => {
  it('a password sign-in is refused with access_denied, gate sign-in-not-phishing-resistant, naming the requirement', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.signIn = { acr: 'urn:idp:acr:mfa', amr: ['pwd', 'otp', 'mfa'], ageSeconds: 30 };
      }),
    );
    expect(d).toEqual({
      outcome: 'denied',
      error: 'access_denied',
      gate: 'sign-in-not-phishing-resistant',
      description: `${NEEDS_10}; the user signed in with acr urn:idp:acr:mfa: sign the user in again with a passkey`,
      signIn: { maxAgeMinutes: 10, setBy: 'policy', acr: 'urn:idp:acr:mfa', ageSeconds: 30, met: false },
    });
  });

  it('a token that states no acr (issued before acr was in access tokens) is refused', () => {
    const d = decideDelegation(baseFacts(requirePolicy(10)));
    expect(d).toMatchObject({
      outcome: 'denied',
      error: 'access_denied',
      gate: 'sign-in-not-phishing-resistant',
      description: `${NEEDS_10}; the user's sign-in is not stated (no acr): sign the user in again with a passkey`,
    });
  });

  it('amr hwk/swk alone is not enough: only the acr says the sign-in was phishing-resistant', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.signIn = { acr: 'urn:idp:acr:mfa', amr: ['hwk', 'user', 'mfa'], ageSeconds: 5 };
      }),
    );
    expect(d).toMatchObject({ outcome: 'denied', gate: 'sign-in-not-phishing-resistant' });
  });

  it.each(['phr', 'phrh'])('acr %s within the maximum age is granted, and the record explains it', (acr) => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.signIn = { acr, amr: ['hwk', 'user', 'mfa'], ageSeconds: 599.4 };
      }),
    );
    expect(d).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      signIn: { maxAgeMinutes: 10, setBy: 'policy', acr, ageSeconds: 599, met: true },
    });
  });

  it('exactly the maximum age is still fresh; one second more is too old', () => {
    const at = (ageSeconds: number) =>
      decideDelegation(
        baseFacts((f) => {
          requirePolicy(10)(f);
          f.signIn = { acr: 'phr', ageSeconds };
        }),
      );
    expect(at(600).outcome).toBe('granted');
    expect(at(601)).toEqual({
      outcome: 'denied',
      error: 'access_denied',
      gate: 'sign-in-too-old',
      description: `${NEEDS_10}; the user signed in 10 minutes ago: sign the user in again with a passkey`,
      signIn: { maxAgeMinutes: 10, setBy: 'policy', acr: 'phr', ageSeconds: 601, met: false },
    });
  });

  it('a phr token without auth_time is refused as too old (its age is unknown)', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(1)(f);
        f.signIn = { acr: 'phrh' };
      }),
    );
    expect(d).toMatchObject({
      gate: 'sign-in-too-old',
      description:
        "this delegation needs a phishing-resistant sign-in (passkey) within the last 1 minute; the time of the user's sign-in is not stated (no auth_time): sign the user in again with a passkey",
    });
  });

  it('a value outside the RFC 6749 error_description characters is not echoed as is', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.signIn = { acr: 'x"\\y', ageSeconds: 1 };
      }),
    );
    expect(d.outcome === 'denied' && d.description).toContain('acr x??y:');
  });

  it('the refusal comes before the scope check (a policy refusal, not invalid_scope)', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.requestedScopes = ['orders:refund'];
      }),
    );
    expect(d).toMatchObject({ error: 'access_denied', gate: 'sign-in-not-phishing-resistant' });
  });

  it('a granted request that fails later (scope) still carries the sign-in check it passed', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        requirePolicy(10)(f);
        f.signIn = { acr: 'phr', ageSeconds: 1 };
        f.requestedScopes = ['orders:refund'];
      }),
    );
    expect(d).toMatchObject({ error: 'invalid_scope', signIn: { met: true } });
  });
});

describe('phishing-resistant delegation: the tenant default and several policies', () => {
  it("the tenant default applies to a policy without its own value (setBy tenant); the policy's 0 opts out", () => {
    const tenant = (f: DelegationFacts) => (f.tenant.nhe.phishingResistantSignInMaxAgeMinutes = 15);
    expect(decideDelegation(baseFacts(tenant))).toMatchObject({
      outcome: 'denied',
      gate: 'sign-in-not-phishing-resistant',
      signIn: { maxAgeMinutes: 15, setBy: 'tenant', met: false },
    });
    expect(
      decideDelegation(
        baseFacts((f) => {
          tenant(f);
          f.signIn = { acr: 'phr', ageSeconds: 14 * 60 };
        }),
      ),
    ).toMatchObject({ outcome: 'granted', signIn: { maxAgeMinutes: 15, setBy: 'tenant', met: true } });
    expect(
      decideDelegation(
        baseFacts((f) => {
          tenant(f);
          requirePolicy(0)(f);
        }),
      ),
    ).toMatchObject({ outcome: 'granted' });
    // The policy's own value wins over the default, stricter or looser.
    expect(
      decideDelegation(
        baseFacts((f) => {
          tenant(f);
          requirePolicy(30)(f);
          f.signIn = { acr: 'phr', ageSeconds: 20 * 60 };
        }),
      ),
    ).toMatchObject({ outcome: 'granted', signIn: { maxAgeMinutes: 30, setBy: 'policy' } });
  });

  it('several matching group policies: the strictest requirement applies (their scopes are delegated together)', () => {
    const groups = (f: DelegationFacts) => {
      f.policies = [
        { id: 'g-a', target: { type: 'group', id: 'group-a' }, allowedScopes: ['orders:read'] },
        {
          id: 'g-b',
          target: { type: 'group', id: 'group-b' },
          allowedScopes: ['orders:write'],
          phishingResistantSignInMaxAgeMinutes: 5,
        },
      ];
    };
    expect(
      decideDelegation(
        baseFacts((f) => {
          groups(f);
          f.signIn = { acr: 'phr', ageSeconds: 6 * 60 };
        }),
      ),
    ).toMatchObject({ outcome: 'denied', gate: 'sign-in-too-old', signIn: { maxAgeMinutes: 5 } });
    expect(signInRequirement([{ phishingResistantSignInMaxAgeMinutes: 30 }, {}], 10)).toEqual({
      maxAgeMinutes: 10,
      setBy: 'tenant',
    });
  });

  it('a policy that does not match the user does not impose its requirement', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        f.policies.push({
          id: 'other-user',
          target: { type: 'user', id: 'user-2' },
          allowedScopes: ['orders:read'],
          phishingResistantSignInMaxAgeMinutes: 5,
        });
      }),
    );
    expect(d.outcome).toBe('granted');
  });

  it('a handed-on token (delegation chain) is not checked again: its parent was, when minted', () => {
    const d = decideDelegation(
      baseFacts((f) => {
        f.tenant.nhe.phishingResistantSignInMaxAgeMinutes = 10;
        f.tenant.nhe.maxChainDepth = 2;
        f.policies = [
          { id: 'hand-on', target: { type: 'nhe', id: 'nhe-0' }, allowedScopes: ['orders:read'], maxChainDepth: 2 },
        ];
        f.chain = {
          actors: [
            {
              identifier: 'first-agent',
              method: 'named',
              nhe: { ...f.nhe!, id: 'nhe-0', identifier: 'first-agent' },
              policies: [
                {
                  id: 'user-first',
                  target: { type: 'user', id: 'user-1' },
                  allowedScopes: ['orders:read'],
                  maxChainDepth: 2,
                },
              ],
            },
          ],
          scopes: ['orders:read'],
          audience: ['https://api.orders.example'],
          remainingSeconds: 200,
        };
      }),
    );
    expect(d.outcome).toBe('granted');
  });

  it('checkSignIn clamps a future auth_time (clock skew) to an age of 0', () => {
    expect(checkSignIn({ maxAgeMinutes: 1, setBy: 'policy' }, { acr: 'phr', ageSeconds: -3 })).toEqual({
      maxAgeMinutes: 1,
      setBy: 'policy',
      acr: 'phr',
      ageSeconds: 0,
      met: true,
    });
  });

  it('checkSignIn refuses an auth_time further in the future than clock skew, whatever the maximum age', () => {
    // 60 s ahead is skew; a day ahead is no sign-in this provider recorded (it would stay "recent" all its life).
    expect(checkSignIn({ maxAgeMinutes: 10, setBy: 'policy' }, { acr: 'phr', ageSeconds: -60 }).met).toBe(true);
    for (const ageSeconds of [-61, -3600, -86_400 * 365]) {
      const check = checkSignIn({ maxAgeMinutes: 1440, setBy: 'tenant' }, { acr: 'phrh', ageSeconds });
      expect(check).toEqual({ maxAgeMinutes: 1440, setBy: 'tenant', acr: 'phrh', ageSeconds: 0, met: false });
      expect(signInRefusal(check)).toEqual({
        gate: 'sign-in-too-old',
        description:
          'this delegation needs a phishing-resistant sign-in (passkey) within the last 1440 minutes; ' +
          "the user's sign-in is stated in the future (auth_time): sign the user in again with a passkey",
      });
    }
  });
});
