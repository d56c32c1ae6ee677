/** The facts cache and delegation chains: the parent chain is part of the key, and a hit carries the request's own parent values. */
import type { ChainFacts, DelegationFacts, DelegationRequest, ParentToken } from '@idp/delegation';
import { factsCache } from './facts-cache';

const parent = (over: Partial<ParentToken> = {}): ParentToken => ({
  actors: [{ identifier: 'planner', method: 'key' }],
  scopes: ['a', 'b'],
  audience: ['https://api'],
  exp: 2_000_000_000,
  ...over,
});
const request = (p?: ParentToken): DelegationRequest => ({
  tenantId: 1,
  clientId: 'c',
  userId: 'u',
  nheIdentifier: 'tool',
  resource: 'https://api',
  requestedScopes: ['a'],
  ...(p ? { parent: p } : {}),
});

test("chains through other NHEs load their own facts; a hit takes the parent token's scopes, expiry and proofs from the request", async () => {
  let calls = 0;
  const loader = (r: DelegationRequest) => {
    calls += 1;
    const chain: ChainFacts | undefined = r.parent
      ? {
          actors: r.parent.actors.map((a) => ({ identifier: a.identifier, method: a.method, nhe: null, policies: [] })),
          scopes: r.parent.scopes,
          audience: r.parent.audience,
          remainingSeconds: 1,
        }
      : undefined;
    return Promise.resolve({
      requestedScopes: r.requestedScopes,
      ...(chain ? { chain } : {}),
    } as unknown as DelegationFacts);
  };
  const cache = factsCache(loader, 60_000);
  await cache.load(request());
  await cache.load(request(parent()));
  expect(calls).toBe(2); // a hand-on is not the user's own delegation
  await cache.load(request(parent({ actors: [{ identifier: 'other', method: 'key' }] })));
  expect(calls).toBe(3); // another chain
  const hit = await cache.load(
    request(parent({ scopes: ['a'], actors: [{ identifier: 'planner', method: 'workload' }] })),
  );
  expect(calls).toBe(3);
  expect(hit?.chain).toMatchObject({ scopes: ['a'], actors: [{ identifier: 'planner', method: 'workload' }] });
  expect(hit!.chain!.remainingSeconds).toBeGreaterThan(1000);
});
