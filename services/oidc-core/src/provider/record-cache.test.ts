import { recordCache } from './record-cache';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('concurrent lookups share one load; the value is reused until it expires', async () => {
  const cache = recordCache<number>(50);
  let loads = 0;
  const load = async () => {
    loads += 1;
    await sleep(5);
    return loads;
  };
  expect(await Promise.all([cache('a', load), cache('a', load), cache('a', load)])).toEqual([1, 1, 1]);
  expect(await cache('a', load)).toBe(1);
  expect(await cache('b', load)).toBe(2); // another key, its own load
  await sleep(80);
  expect(await cache('a', load)).toBe(3); // expired: loaded again
});

test('a failed lookup is not kept', async () => {
  const cache = recordCache<string>(10_000);
  await expect(cache('k', () => Promise.reject(new Error('store down')))).rejects.toThrow('store down');
  expect(await cache('k', () => Promise.resolve('fresh'))).toBe('fresh');
});

test('a thenable that may run only once (a mongoose query) is awaited once, however often the value is read', async () => {
  const cache = recordCache<string>(10_000);
  let runs = 0;
  const query = {
    then<R>(resolve: (v: string) => R) {
      runs += 1;
      if (runs > 1) throw new Error('Query was already executed');
      return Promise.resolve(resolve('row'));
    },
  };
  expect(await cache('q', () => query)).toBe('row');
  expect(await cache('q', () => query)).toBe('row');
  expect(runs).toBe(1);
});
