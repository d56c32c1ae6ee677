import type { DelegationFacts, DelegationRequest } from '@idp/delegation';
import { factsCache } from './facts-cache';

const request = (over: Partial<DelegationRequest> = {}): DelegationRequest => ({
  tenantId: 1,
  clientId: 'c',
  userId: 'u',
  nheIdentifier: 'n',
  resource: 'https://api',
  requestedScopes: ['a'],
  ...over,
});

function counting() {
  let calls = 0;
  let release: (() => void) | undefined;
  let hold = false;
  const loader = async (r: DelegationRequest) => {
    calls += 1;
    if (hold) await new Promise<void>((res) => (release = res));
    return { userId: r.userId, requestedScopes: r.requestedScopes, version: calls } as unknown as DelegationFacts;
  };
  return { loader, calls: () => calls, hold: (v: boolean) => (hold = v), release: () => release?.() };
}

describe('factsCache', () => {
  it('serves hits within the TTL with the current request scopes, reloads after it', async () => {
    let now = 1000;
    const l = counting();
    const cache = factsCache(l.loader, 5000, 100, () => now);
    await cache.load(request());
    const hit = await cache.load(request({ requestedScopes: ['b'] }));
    expect(l.calls()).toBe(1);
    expect(hit?.requestedScopes).toEqual(['b']);
    await cache.load(request({ userId: 'other' }));
    expect(l.calls()).toBe(2);
    now += 5000;
    await cache.load(request());
    expect(l.calls()).toBe(3);
  });

  it("a hit carries the request's own consented scopes, never those of the request that filled the entry", async () => {
    const l = counting();
    const cache = factsCache(l.loader, 60_000);
    await cache.load(request({ consentedScopes: ['a', 'b'] }));
    const hit = await cache.load(request({ consentedScopes: ['a'] }));
    const none = await cache.load(request());
    expect(l.calls()).toBe(1);
    expect([...hit!.consentedScopes]).toEqual(['a']);
    expect([...none!.consentedScopes]).toEqual([]);
  });

  it("a hit carries the request's own sign-in (acr, age), never that of the request that filled the entry", async () => {
    let calls = 0;
    // As loadDelegationFacts does: the request's sign-in is copied into the facts it loads.
    const cache = factsCache((r: DelegationRequest) => {
      calls += 1;
      return Promise.resolve({
        userId: r.userId,
        ...(r.signIn ? { signIn: r.signIn } : {}),
      } as unknown as DelegationFacts);
    }, 60_000);
    await cache.load(request({ signIn: { acr: 'phr', ageSeconds: 10 } }));
    const stale = await cache.load(request({ signIn: { acr: 'phr', ageSeconds: 3600 } }));
    const password = await cache.load(request({ signIn: { acr: 'urn:idp:acr:pwd', ageSeconds: 5 } }));
    const unknown = await cache.load(request());
    expect(calls).toBe(1);
    expect(stale!.signIn).toEqual({ acr: 'phr', ageSeconds: 3600 });
    expect(password!.signIn).toEqual({ acr: 'urn:idp:acr:pwd', ageSeconds: 5 });
    expect(unknown).not.toHaveProperty('signIn');
  });

  it('an invalidation of the tenant drops its entries only', async () => {
    const l = counting();
    const cache = factsCache(l.loader, 60_000);
    await cache.load(request());
    await cache.load(request({ tenantId: 2 }));
    cache.invalidateTenant(1);
    await cache.load(request());
    await cache.load(request({ tenantId: 2 }));
    expect(l.calls()).toBe(3);
  });

  it('a load overlapping an invalidation or a clear is not stored', async () => {
    for (const drop of ['tenant', 'clear'] as const) {
      const l = counting();
      const cache = factsCache(l.loader, 60_000);
      l.hold(true);
      const pending = cache.load(request());
      await new Promise((r) => setImmediate(r));
      if (drop === 'tenant') cache.invalidateTenant(1);
      else cache.clear();
      l.release();
      await pending;
      l.hold(false);
      await cache.load(request());
      expect(l.calls()).toBe(2);
    }
  });

  it('ttl 0 disables caching', async () => {
    const l = counting();
    const cache = factsCache(l.loader, 0);
    await cache.load(request());
    await cache.load(request());
    expect(l.calls()).toBe(2);
  });
});

describe('factsCache under concurrency', () => {
  it('requests in flight for the same tuple share one load, each with its own scopes', async () => {
    const l = counting();
    const cache = factsCache(l.loader, 5000);
    l.hold(true);
    const pending = [
      cache.load(request({ requestedScopes: ['a'] })),
      cache.load(request({ requestedScopes: ['b'] })),
      cache.load(request({ requestedScopes: ['c'] })),
    ];
    await new Promise((r) => setImmediate(r));
    l.release();
    const results = await Promise.all(pending);
    expect(l.calls()).toBe(1);
    expect(results.map((f) => f?.requestedScopes)).toEqual([['a'], ['b'], ['c']]);
  });

  it('a failed load is not kept: the next request loads again', async () => {
    let calls = 0;
    const cache = factsCache(() => {
      calls += 1;
      if (calls === 1) return Promise.reject(new Error('store down'));
      return Promise.resolve({ userId: 'u', requestedScopes: [] } as unknown as DelegationFacts);
    }, 5000);
    await expect(cache.load(request())).rejects.toThrow('store down');
    await expect(cache.load(request())).resolves.toMatchObject({ userId: 'u' });
    expect(calls).toBe(2);
  });

  it('an empty load (tenant or client gone) is not kept', async () => {
    let calls = 0;
    const cache = factsCache(() => {
      calls += 1;
      return Promise.resolve(null);
    }, 5000);
    expect(await cache.load(request())).toBeNull();
    expect(await cache.load(request())).toBeNull();
    expect(calls).toBe(2);
  });
});
