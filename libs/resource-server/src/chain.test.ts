/**
 * Delegation chains (a delegation token handed on from one agent to another) at a resource server: a token handed on
 * from agent A to agent B carries `act: {sub: "nhe:B", act: {sub: "nhe:A"}}`. The SDK reads the chain, can require
 * every actor to have proven who it is (`requireProvenActors`), and its deny list revokes the token when any agent of
 * the chain is named.
 */
import type { JWTPayload } from 'jose';
import { actorProof, chainAgents, delegationOf, type Delegation } from './delegation';
import { DenyList, matches } from './deny-list';
import { ResourceServerError } from './errors';
import { applyRules, type Access } from './verifier';

const T0 = 1_800_000_000;
const PROOF = 'org.vendor.actor.proof';

function chainClaims(act: Record<string, unknown>): JWTPayload {
  const outer = String(act.sub).slice(4);
  return {
    sub: 'alice',
    jti: 'j1',
    iat: T0 - 10,
    azp: 12,
    client_id: 'app',
    act,
    agent: { id: outer, type: 'llm-assistive', operator: 'ops' },
    'org.vendor.nhe.delegation': true,
  };
}

function accessOf(claims: JWTPayload): Access {
  const delegation = delegationOf(claims) as Delegation;
  return { userId: 'alice', scopes: [], clientId: 'app', claims, token: 't', scheme: 'Bearer', delegation };
}

const provenChain = { sub: 'nhe:tool', [PROOF]: 'workload', act: { sub: 'nhe:planner', [PROOF]: 'key' } };

describe('a handed-on token', () => {
  it('keeps the human in sub and lists both agents, the current one first, with how each proved itself', () => {
    const a = accessOf(chainClaims(provenChain));
    expect(a.userId).toBe('alice');
    expect(a.delegation!.nheIdentifier).toBe('tool');
    expect(chainAgents(a.delegation!)).toEqual(['tool', 'planner']);
    expect(a.delegation!.actorChain.map(actorProof)).toEqual(['workload', 'key']);
  });

  it('requireProvenActors: every actor of the chain must have proven who it is (key or workload)', () => {
    expect(() => applyRules(accessOf(chainClaims(provenChain)), { requireProvenActors: true })).not.toThrow();
    const namedInside = { sub: 'nhe:tool', [PROOF]: 'workload', act: { sub: 'nhe:planner' } };
    const refusal = (() => {
      try {
        applyRules(accessOf(chainClaims(namedInside)), { requireProvenActors: true });
      } catch (err) {
        return err as ResourceServerError;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ResourceServerError);
    expect({
      error: refusal!.error,
      status: refusal!.status,
      reason: refusal!.reason,
      message: refusal!.message,
    }).toEqual({
      error: 'insufficient_scope',
      status: 403,
      reason: 'actor_not_proven',
      message: 'this resource accepts proven agents only; nhe:planner did not prove who it is',
    });
    // An unknown proof value is not a proof.
    expect(() =>
      applyRules(accessOf(chainClaims({ sub: 'nhe:tool', [PROOF]: 'password' })), { requireProvenActors: true }),
    ).toThrow(/nhe:tool did not prove/);
    // Without the option, named actors pass; a user's token is never affected.
    expect(() => applyRules(accessOf(chainClaims(namedInside)), {})).not.toThrow();
    expect(() =>
      applyRules(
        { userId: 'alice', scopes: [], clientId: 'app', claims: { sub: 'alice' }, token: 't', scheme: 'Bearer' },
        { requireProvenActors: true },
      ),
    ).not.toThrow();
  });

  it('revoking any agent of the chain revokes the token (the deny list and its matcher)', () => {
    const token = accessOf(chainClaims(provenChain));
    const list = new DenyList({ now: () => T0 * 1000 });
    expect(list.isRevoked(token)).toBe(false);
    list.add({ id: 'e-other', nhe: 'someone-else', until: T0 + 900, issuedBefore: T0 });
    expect(list.isRevoked(token)).toBe(false);
    list.add({ id: 'e-planner', nhe: 'planner', until: T0 + 900, issuedBefore: T0 });
    expect(list.match(token)?.id).toBe('e-planner');
    expect(matches({ id: 'x', nhe: 'tool', until: T0 + 900, issuedBefore: T0 }, token)).toBe(true);
    expect(matches({ id: 'x', nhe: 'planner', azp: 99, until: T0 + 900, issuedBefore: T0 }, token)).toBe(false);
    // The agent above in the chain is not revoked by the agent below: planner's own token stays valid when tool is revoked.
    const plannerOnly = accessOf(chainClaims({ sub: 'nhe:planner', [PROOF]: 'key' }));
    const toolRevoked = new DenyList({ now: () => T0 * 1000 });
    toolRevoked.add({ id: 'e-tool', nhe: 'tool', until: T0 + 900, issuedBefore: T0 });
    expect(toolRevoked.isRevoked(plannerOnly)).toBe(false);
    expect(toolRevoked.isRevoked(token)).toBe(true);
  });
});
