import { buildRevocationEntry } from '@idp/events';
import {
  CAEP_SESSION_REVOKED,
  NHE_REVOCATION_EVENT,
  nheRevocationEvent,
  revocationSetClaims,
  revocationSubject,
} from './event-types';
import { eventsDelivered } from './stream-config';

const ISS = 'https://id.example.com/auth/7';
const at = new Date('2026-11-24T10:00:00.700Z');

describe('revocation SET claims', () => {
  it('names every selector of the entry as a subject member, the rest being wildcards', () => {
    const entry = buildRevocationEntry({
      tenantId: 7,
      nheIdentifier: 'orders-agent',
      subject: 'u1',
      clientNumericId: 42,
      jti: 'j1',
      reason: 'token.revoked',
      revokedAt: at,
    });
    expect(revocationSubject(entry, ISS)).toEqual({
      format: 'complex',
      tenant: { format: 'opaque', id: '7' },
      user: { format: 'iss_sub', iss: ISS, sub: 'u1' },
      application: { format: 'opaque', id: '42' },
      nhe: { format: 'iss_sub', iss: ISS, sub: 'nhe:orders-agent' },
      token: { format: 'jwt_id', iss: ISS, jti: 'j1' },
    });
    expect(revocationSubject(buildRevocationEntry({ tenantId: 7, reason: 'tenant.nhe.disabled' }), ISS)).toEqual({
      format: 'complex',
      tenant: { format: 'opaque', id: '7' },
    });
  });

  it('carries the deny-list selector: issuedBefore is the revocation second (iat <= issuedBefore), absent with a jti', () => {
    const entry = buildRevocationEntry({
      tenantId: 7,
      nheIdentifier: 'orders-agent',
      clientNumericId: 42,
      reason: 'policy.updated',
      revokedAt: at,
    });
    expect(nheRevocationEvent(entry)).toEqual({
      id: entry.id,
      reason: 'policy.updated',
      nhe: 'orders-agent',
      azp: 42,
      issuedBefore: Math.floor(at.getTime() / 1000),
      until: Math.ceil(Date.parse(entry.expiresAt) / 1000),
    });
    // The deny list's rule, token.iat * 1000 <= revokedAt, is exactly iat <= issuedBefore for whole seconds.
    const issuedBefore = nheRevocationEvent(entry).issuedBefore!;
    for (const iat of [issuedBefore - 1, issuedBefore, issuedBefore + 1])
      expect(iat <= issuedBefore).toBe(iat * 1000 <= Date.parse(entry.revokedAt));
    const byToken = nheRevocationEvent(buildRevocationEntry({ tenantId: 7, jti: 'j1', reason: 'token.revoked' }));
    expect(byToken.jti).toBe('j1');
    expect(byToken.issuedBefore).toBeUndefined();
  });

  it('puts one event in each SET, tied by txn = the entry id', () => {
    const entry = buildRevocationEntry({ tenantId: 7, nheIdentifier: 'a', reason: 'nhe.disabled', revokedAt: at });
    const caep = revocationSetClaims(entry, ISS, CAEP_SESSION_REVOKED);
    expect(Object.keys(caep.events)).toEqual([CAEP_SESSION_REVOKED]);
    expect(caep.events[CAEP_SESSION_REVOKED]).toEqual({
      event_timestamp: Math.floor(at.getTime() / 1000),
      initiating_entity: 'admin',
      reason_admin: { en: 'The non-human entity (agent) was disabled' },
    });
    expect(caep.txn).toBe(entry.id);
    expect(Object.keys(revocationSetClaims(entry, ISS, NHE_REVOCATION_EVENT).events)).toEqual([NHE_REVOCATION_EVENT]);
  });

  it("a user's own revocation on the delegation ledger page names the user as the initiating entity and the user as subject", () => {
    for (const [reason, text] of [
      ['user.agent.revoked', /revoked the agent's access/],
      ['user.agent.blocked', /blocked the agent/],
    ] as const) {
      const entry = buildRevocationEntry({ tenantId: 7, nheIdentifier: 'a', subject: 'u1', reason, revokedAt: at });
      const caep = revocationSetClaims(entry, ISS, CAEP_SESSION_REVOKED).events[CAEP_SESSION_REVOKED] as {
        initiating_entity: string;
        reason_admin: { en: string };
      };
      expect(caep.initiating_entity).toBe('user');
      expect(caep.reason_admin.en).toMatch(text);
      expect(nheRevocationEvent(entry)).toMatchObject({ nhe: 'a', sub: 'u1', reason });
    }
  });

  it('delivers the supported part of what is requested, everything when nothing is', () => {
    expect(eventsDelivered(undefined)).toEqual([CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT]);
    expect(eventsDelivered([NHE_REVOCATION_EVENT, 'urn:other'])).toEqual([NHE_REVOCATION_EVENT]);
    expect(eventsDelivered([])).toEqual([]);
  });
});
