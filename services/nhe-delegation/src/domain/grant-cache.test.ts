import { grantCache, type GrantRecord } from './grant-cache';

const live = (version: number): GrantRecord => ({ clientId: 'c', accountId: 'u', exp: version, expiresAt: undefined });

/** A reader that counts its reads; `result` decides what the next read answers. */
function counting() {
  let reads = 0;
  let result: 'live' | 'missing' | 'error' = 'live';
  let release: (() => void) | undefined;
  let hold = false;
  const reader = async (_tenantId: number, _grantId: string): Promise<GrantRecord | undefined> => {
    reads += 1;
    const version = reads;
    if (hold) await new Promise<void>((res) => (release = res));
    if (result === 'error') throw new Error('store down');
    return result === 'live' ? live(version) : undefined;
  };
  return {
    reader,
    reads: () => reads,
    answer: (r: typeof result) => (result = r),
    hold: (v: boolean) => (hold = v),
    release: () => release?.(),
  };
}

describe('grantCache', () => {
  it('with TTL 0 (the default) reads the grant on every lookup', async () => {
    const r = counting();
    const cache = grantCache(r.reader, 0);
    await cache.read(1, 'g');
    await cache.read(1, 'g');
    expect(r.reads()).toBe(2);
  });

  it('serves a live grant within the TTL and reads it again after', async () => {
    let now = 1000;
    const r = counting();
    const cache = grantCache(r.reader, 5000, 100, () => now);
    expect(await cache.read(1, 'g')).toEqual(live(1));
    now += 4999;
    expect(await cache.read(1, 'g')).toEqual(live(1));
    expect(r.reads()).toBe(1);
    now += 1;
    expect(await cache.read(1, 'g')).toEqual(live(2));
    expect(r.reads()).toBe(2);
  });

  it('never keeps a missing grant or a failed read', async () => {
    const r = counting();
    const cache = grantCache(r.reader, 60_000);
    r.answer('missing');
    expect(await cache.read(1, 'g')).toBeUndefined();
    r.answer('error');
    await expect(cache.read(1, 'g')).rejects.toThrow('store down');
    r.answer('live');
    expect(await cache.read(1, 'g')).toEqual(live(3));
    expect(r.reads()).toBe(3);
  });

  it('a grant invalidation drops that grant only; a tenant invalidation drops every grant of the tenant', async () => {
    const r = counting();
    const cache = grantCache(r.reader, 60_000);
    await cache.read(1, 'a');
    await cache.read(1, 'b');
    await cache.read(2, 'a');
    cache.invalidate(1, 'a');
    await cache.read(1, 'a');
    await cache.read(1, 'b');
    await cache.read(2, 'a');
    expect(r.reads()).toBe(4);
    cache.invalidate(1);
    await cache.read(1, 'b');
    await cache.read(2, 'a');
    expect(r.reads()).toBe(5);
    cache.clear();
    await cache.read(2, 'a');
    expect(r.reads()).toBe(6);
  });

  it('concurrent lookups share one read; a read in flight when its grant ends is not kept', async () => {
    const r = counting();
    const cache = grantCache(r.reader, 60_000);
    r.hold(true);
    const first = cache.read(1, 'g');
    const second = cache.read(1, 'g');
    cache.invalidate(1, 'g');
    r.release();
    await Promise.all([first, second]);
    expect(r.reads()).toBe(1);
    r.hold(false);
    await cache.read(1, 'g');
    expect(r.reads()).toBe(2);
  });

  it('is bounded: past maxEntries it starts over', async () => {
    const r = counting();
    const cache = grantCache(r.reader, 60_000, 3);
    for (const id of ['a', 'b', 'c']) await cache.read(1, id);
    await cache.read(1, 'a');
    expect(r.reads()).toBe(3);
    await cache.read(1, 'd');
    await cache.read(1, 'a');
    expect(r.reads()).toBe(5);
  });
});
