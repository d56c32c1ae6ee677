import {
  bridgedEntry,
  bridgedEntryId,
  isAlive,
  latestIssuedAt,
  redeemedRowsFilter,
  selectorWindowEnd,
  unevaluable,
  type IssuerScope,
} from './issuer-revocation';

const scope: IssuerScope = { tenantId: 7, issuer: 'https://a.example/auth/3', assertionLifetimeSeconds: 300 };
const NOW = Date.parse('2026-11-28T10:00:00Z');
const T = NOW / 1000 - 10; // the issuer's revocation, 10 s ago

describe('redeemedRowsFilter', () => {
  it('scopes to this tenant and this issuer, and ANDs the members the selector names', () => {
    const f = redeemedRowsFilter(
      scope,
      { id: 'e', nhe: 'orders-agent', sub: 'alice', issuedBefore: T, until: T + 960 },
      NOW,
    );
    expect(f).toMatchObject({
      tenantId: 7,
      'crossDomain.direction': 'redeemed',
      'crossDomain.peer': scope.issuer,
      'crossDomain.subject': 'alice',
      // Any actor of the assertion's chain (rows before actors existed: the outermost actor).
      $or: [{ 'crossDomain.actors': 'nhe:orders-agent' }, { 'crossDomain.actor': 'nhe:orders-agent' }],
    });
    expect(f).not.toHaveProperty(['crossDomain.assertionJti']);
  });

  it('a tenant-wide entry (no member) names every token minted from the issuer; azp, unknown here, narrows nothing', () => {
    for (const sel of [
      { id: 'e', issuedBefore: T, until: T + 960 },
      { id: 'e', azp: 12, issuedBefore: T, until: T + 960 },
    ]) {
      const f = redeemedRowsFilter(scope, sel, NOW);
      expect(Object.keys(f).sort()).toEqual(
        ['crossDomain.direction', 'crossDomain.peer', 'issuedAt', 'tenantId'].sort(),
      );
    }
  });

  it('without jti: tokens minted up to one assertion lifetime (+ skew) after issuedBefore; with jti: no upper bound', () => {
    const f = redeemedRowsFilter(scope, { id: 'e', nhe: 'x', issuedBefore: T, until: T + 960 }, NOW);
    expect(f.issuedAt.$lte?.getTime()).toBe((T + 1 + 300 + 60) * 1000);
    expect(f.issuedAt.$gt.getTime()).toBe(NOW - 900_000);
    const j = redeemedRowsFilter(scope, { id: 'e', jti: 'idjag-1', until: T + 960 }, NOW);
    expect(j['crossDomain.assertionJti']).toBe('idjag-1');
    expect(j.issuedAt.$lte).toBeUndefined();
  });
});

describe('windows and entries', () => {
  it('keeps a selector open one assertion lifetime after issuedBefore, a one-token selector until the entry ends', () => {
    expect(latestIssuedAt(scope, { id: 'e', issuedBefore: T, until: T + 960 })).toBe((T + 361) * 1000);
    expect(selectorWindowEnd(scope, { id: 'e', issuedBefore: T, until: T + 960 }, NOW)).toBe((T + 361) * 1000);
    expect(selectorWindowEnd(scope, { id: 'e', jti: 'j', until: T + 300 }, NOW)).toBe((T + 300) * 1000);
  });

  it("never re-checks longer than one assertion lifetime (+ skew) from now, whatever the issuer's until says", () => {
    const cap = NOW + 360_000;
    expect(selectorWindowEnd(scope, { id: 'e', jti: 'j', until: T + 10 ** 9 }, NOW)).toBe(cap);
    expect(selectorWindowEnd(scope, { id: 'e', issuedBefore: T + 10 ** 9, until: T + 10 ** 9 }, NOW)).toBe(cap);
  });

  it("ignores an entry whose only member is the issuer's client (azp), which this tenant cannot map", () => {
    expect(unevaluable({ id: 'e', azp: 12, issuedBefore: T, until: T + 960 })).toBe(true);
    expect(unevaluable({ id: 'e', azp: 12, sub: 'alice', issuedBefore: T, until: T + 960 })).toBe(false);
    expect(unevaluable({ id: 'e', issuedBefore: T, until: T + 960 })).toBe(false);
  });

  it('one entry per (tenant, issuer, issuer entry, token): stable, and distinct for another issuer or tenant', () => {
    const id = bridgedEntryId(scope, 'e1', 'jti-1');
    expect(id).toBe(bridgedEntryId({ ...scope }, 'e1', 'jti-1'));
    expect(id).toMatch(/^issuer-[A-Za-z0-9_-]{43}$/);
    expect(id.length).toBeLessThanOrEqual(128);
    expect(bridgedEntryId({ ...scope, issuer: 'https://b.example' }, 'e1', 'jti-1')).not.toBe(id);
    expect(bridgedEntryId({ ...scope, tenantId: 8 }, 'e1', 'jti-1')).not.toBe(id);
    expect(bridgedEntryId(scope, 'e2', 'jti-1')).not.toBe(id);
  });

  it("names the token by jti with the reason issuer.revoked, kept until the token's expiry + skew", () => {
    const row = { jti: 'b-token', issuedAt: new Date(NOW - 60_000), ttl: 600 };
    expect(isAlive(row, NOW)).toBe(true);
    expect(isAlive({ ...row, ttl: 59 }, NOW)).toBe(false);
    expect(bridgedEntry(scope, 'e1', row, NOW)).toEqual({
      id: bridgedEntryId(scope, 'e1', 'b-token'),
      tenantId: 7,
      jti: 'b-token',
      reason: 'issuer.revoked',
      revokedAt: new Date(NOW),
      expiresAt: new Date(NOW - 60_000 + 660_000),
    });
  });
});
