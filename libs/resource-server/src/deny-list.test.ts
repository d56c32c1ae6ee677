import type { JWTPayload } from 'jose';
import { DenyList, type RevocationSelector } from './deny-list';
import type { Access } from './verifier';

const T0 = 1_800_000_000; // seconds

function access(o: { nhe?: string; sub?: string; azp?: number; jti?: string; iat?: number } = {}): Access {
  const claims: JWTPayload = {
    sub: o.sub ?? 'alice',
    jti: o.jti ?? 'jti-1',
    iat: o.iat ?? T0 - 10,
    azp: o.azp ?? 12,
    client_id: 'app',
  };
  return {
    userId: String(claims.sub),
    scopes: [],
    clientId: 'app',
    claims,
    token: 't',
    scheme: 'Bearer',
    ...(o.nhe
      ? {
          delegation: {
            nheIdentifier: o.nhe,
            agent: { id: o.nhe, type: 'llm-assistive', operator: 'ops' },
            actorChain: [{ sub: `nhe:${o.nhe}` }],
          },
        }
      : {}),
  };
}

const entry = (e: Partial<RevocationSelector> = {}): RevocationSelector => ({
  id: 'e1',
  until: T0 + 900,
  issuedBefore: T0,
  ...e,
});

describe('DenyList', () => {
  let clock = T0 * 1000;
  const list = (maxEntries?: number) => new DenyList({ now: () => clock, ...(maxEntries ? { maxEntries } : {}) });
  beforeEach(() => {
    clock = T0 * 1000;
  });

  it('revokes the delegation tokens of an agent issued at or before the revocation, not later ones, not user tokens', () => {
    const d = list();
    expect(d.add(entry({ nhe: 'bot' }))).toBe('added');
    expect(d.isRevoked(access({ nhe: 'bot', iat: T0 - 100 }))).toBe(true);
    expect(d.isRevoked(access({ nhe: 'bot', iat: T0 }))).toBe(true); // the same second counts as revoked
    expect(d.isRevoked(access({ nhe: 'bot', iat: T0 + 1 }))).toBe(false); // minted after a re-enable
    expect(d.isRevoked(access({ nhe: 'other' }))).toBe(false);
    expect(d.isRevoked(access({}))).toBe(false); // the user's own token
  });

  it('matches every member present: azp, sub; an entry naming none revokes every delegation token (tenant switch)', () => {
    const d = list();
    d.add(entry({ id: 'client', azp: 12 }));
    expect(d.isRevoked(access({ nhe: 'a', azp: 12 }))).toBe(true);
    expect(d.isRevoked(access({ nhe: 'a', azp: 13 }))).toBe(false);
    d.add(entry({ id: 'user', sub: 'bob', nhe: 'b' }));
    expect(d.isRevoked(access({ nhe: 'b', sub: 'bob', azp: 1 }))).toBe(true);
    expect(d.isRevoked(access({ nhe: 'b', sub: 'alice', azp: 1 }))).toBe(false);
    d.add(entry({ id: 'tenant' }));
    expect(d.isRevoked(access({ nhe: 'z', azp: 99 }))).toBe(true);
    expect(d.isRevoked(access({ azp: 99 }))).toBe(false);
  });

  it('an entry with jti revokes that one token, delegated or not, whatever its iat', () => {
    const d = list();
    d.add({ id: 'one', jti: 'jti-9', until: T0 + 60 });
    expect(d.isRevoked(access({ jti: 'jti-9', iat: T0 + 30 }))).toBe(true);
    expect(d.isRevoked(access({ jti: 'jti-9', nhe: 'bot' }))).toBe(true);
    expect(d.isRevoked(access({ jti: 'jti-8', nhe: 'bot' }))).toBe(false);
  });

  it('drops entries at until; the same id twice is one entry keeping the later until', () => {
    const d = list();
    expect(d.add(entry({ nhe: 'bot', until: T0 + 10 }))).toBe('added');
    expect(d.add(entry({ nhe: 'bot', until: T0 + 5 }))).toBe('known');
    expect(d.add(entry({ nhe: 'bot', until: T0 + 20 }))).toBe('updated');
    expect(d.size).toBe(1);
    clock = (T0 + 15) * 1000;
    expect(d.isRevoked(access({ nhe: 'bot' }))).toBe(true);
    clock = (T0 + 20) * 1000;
    expect(d.isRevoked(access({ nhe: 'bot' }))).toBe(false);
    expect(d.size).toBe(0);
    expect(d.add(entry({ id: 'old', until: T0 }))).toBe('expired');
  });

  it('is bounded: expired entries make room; full of live entries it fails closed for delegation tokens until the dropped entry ends', () => {
    const d = list(2);
    d.add(entry({ id: 'a', nhe: 'a', until: T0 + 5 }));
    d.add(entry({ id: 'b', nhe: 'b', until: T0 + 100 }));
    clock = (T0 + 6) * 1000;
    expect(d.add(entry({ id: 'c', nhe: 'c', until: T0 + 100 }))).toBe('added'); // 'a' expired: swept
    expect(d.size).toBe(2);
    expect(d.add(entry({ id: 'd', nhe: 'd', until: T0 + 200 }))).toBe('overflow');
    expect(d.size).toBe(2);
    expect(d.overflowUntil).toBe(T0 + 200);
    expect(d.isRevoked(access({ nhe: 'anyone' }))).toBe(true);
    expect(d.isRevoked(access({}))).toBe(false); // user tokens: the entries concern agents only
    clock = (T0 + 200) * 1000;
    expect(d.overflowUntil).toBe(0);
    expect(d.isRevoked(access({ nhe: 'anyone' }))).toBe(false);
  });

  it('refuses a non-positive bound', () => {
    expect(() => new DenyList({ maxEntries: 0 })).toThrow(TypeError);
  });
});
