import { inRequestScope, TenantBusy } from '../tenants/request-scope';
import { OutboundFetches, OutboundFetchRefused, type FetchedAnswer } from './outbound-fetches';

const ok: FetchedAnswer = { status: 200, headers: [['content-type', 'application/json']], body: '{}' };

/** An exchange that answers when told to, counting how often it was made. */
function pendingExchange() {
  let calls = 0;
  let settle!: (a: FetchedAnswer | Error) => void;
  const exchange = () => {
    calls++;
    return new Promise<FetchedAnswer>(
      (resolve, reject) => (settle = (a) => (a instanceof Error ? reject(a) : resolve(a))),
    );
  };
  return { exchange, settle: (a: FetchedAnswer | Error) => settle(a), calls: () => calls };
}

describe('OutboundFetches', () => {
  it('lets a tenant have maxInFlightPerTenant fetches at once; one more is refused at once, another tenant is not affected', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 2 });
    const a = pendingExchange();
    const b = pendingExchange();
    const first = fetches.fetch(1, 'GET', 'https://a.example/1', a.exchange);
    const second = fetches.fetch(1, 'GET', 'https://a.example/2', b.exchange);
    expect(fetches.inFlightOf(1)).toBe(2);
    await expect(fetches.fetch(1, 'GET', 'https://a.example/3', () => Promise.resolve(ok))).rejects.toThrow(
      OutboundFetchRefused,
    );
    await expect(fetches.refusal(1, 'https://a.example/3')).resolves.toMatch(
      /too many outbound fetches in progress for this tenant; try again later/,
    );
    await expect(fetches.fetch(2, 'GET', 'https://a.example/3', () => Promise.resolve(ok))).resolves.toEqual(ok);
    a.settle(ok);
    b.settle(ok);
    await Promise.all([first, second]);
    expect(fetches.inFlightOf(1)).toBe(0);
    await expect(fetches.refusal(1, 'https://a.example/3')).resolves.toBeUndefined();
  });

  it('shares one fetch of a URL between concurrent requests of a tenant', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 4 });
    const x = pendingExchange();
    const both = [
      fetches.fetch(1, 'GET', 'https://a.example/doc', x.exchange),
      fetches.fetch(1, 'GET', 'https://a.example/doc', x.exchange),
    ];
    x.settle(ok);
    expect(await Promise.all(both)).toEqual([ok, ok]);
    expect(x.calls()).toBe(1);
  });

  it('remembers a failure (an error or a status other than 2xx) for failureTtlMs, and refuses the URL without fetching meanwhile', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 4, failureTtlMs: 60_000 });
    await expect(
      fetches.fetch(1, 'GET', 'https://a.example/slow', () =>
        Promise.reject(new Error('request to https://a.example timed out after 2500 ms')),
      ),
    ).rejects.toThrow(/timed out/);
    let again = 0;
    await expect(
      fetches.fetch(1, 'GET', 'https://a.example/slow', () => {
        again++;
        return Promise.resolve(ok);
      }),
    ).rejects.toThrow(/its last fetch failed \(no answer in time\) and is not retried for 60 s; try again later/);
    expect(again).toBe(0);
    await expect(fetches.refusal(1, 'https://a.example/slow')).resolves.toMatch(/no answer in time/);
    // Per tenant: another tenant's policy may differ.
    await expect(fetches.refusal(2, 'https://a.example/slow')).resolves.toBeUndefined();
    expect(
      await fetches.fetch(1, 'GET', 'https://a.example/gone', () => Promise.resolve({ ...ok, status: 404 })),
    ).toMatchObject({ status: 404 });
    await expect(fetches.refusal(1, 'https://a.example/gone')).resolves.toMatch(/answered 404/);
  });

  it('forgets a failure after failureTtlMs', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 4, failureTtlMs: 50 });
    await expect(
      fetches.fetch(1, 'GET', 'https://a.example/x', () => Promise.reject(new Error('socket hang up'))),
    ).rejects.toThrow();
    await expect(fetches.refusal(1, 'https://a.example/x')).resolves.toMatch(/no answer/);
    await new Promise((r) => setTimeout(r, 80));
    await expect(fetches.refusal(1, 'https://a.example/x')).resolves.toBeUndefined();
  });

  it('fetches a URL once per request: a second look-up in the same request gets the first answer, even a failure, and is not refused', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 1 });
    let calls = 0;
    const exchange = () => {
      calls++;
      return Promise.resolve({ ...ok, body: '{"client_id":"other"}' });
    };
    await inRequestScope({ fetched: new Map() }, async () => {
      expect(await fetches.fetch(1, 'GET', 'https://a.example/doc', exchange)).toMatchObject({ status: 200 });
      await expect(fetches.refusal(1, 'https://a.example/doc')).resolves.toBeUndefined();
      expect(await fetches.fetch(1, 'GET', 'https://a.example/doc', exchange)).toMatchObject({ status: 200 });
    });
    expect(calls).toBe(1);
    await inRequestScope({ fetched: new Map() }, async () => {
      await expect(
        fetches.fetch(1, 'GET', 'https://a.example/bad', () => Promise.reject(new Error('connect ECONNREFUSED'))),
      ).rejects.toThrow(/ECONNREFUSED/);
      // The same error again, not the failure cache's refusal.
      await expect(fetches.refusal(1, 'https://a.example/bad')).resolves.toBeUndefined();
      await expect(fetches.fetch(1, 'GET', 'https://a.example/bad', () => Promise.resolve(ok))).rejects.toThrow(
        /ECONNREFUSED/,
      );
    });
  });

  it('gives the request slot up while it waits, through the request scope', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 1 });
    const events: string[] = [];
    const outsideSlot = async <T>(wait: () => Promise<T>): Promise<T> => {
      events.push('slot given up');
      try {
        return await wait();
      } finally {
        events.push('slot taken again');
      }
    };
    await inRequestScope({ outsideSlot, fetched: new Map() }, () =>
      fetches.fetch(1, 'GET', 'https://a.example/doc', () => {
        events.push('fetching');
        return Promise.resolve(ok);
      }),
    );
    // The slot is given up before the fetch starts, and taken back once its answer is in.
    expect(events).toEqual(['slot given up', 'fetching', 'slot taken again']);
  });

  it('a request the tenant cannot let away (too many waiting already) is refused without fetching', async () => {
    const fetches = new OutboundFetches({ maxInFlightPerTenant: 4 });
    let fetched = false;
    const outsideSlot = (): Promise<never> => Promise.reject(new TenantBusy());
    await inRequestScope({ outsideSlot, fetched: new Map() }, async () => {
      const refused = fetches.fetch(1, 'GET', 'https://a.example/doc', () => {
        fetched = true;
        return Promise.resolve(ok);
      });
      await expect(refused).rejects.toBeInstanceOf(OutboundFetchRefused);
      await expect(refused).rejects.toThrow(/try again later/);
    });
    expect(fetched).toBe(false);
    expect(fetches.inFlightOf(1)).toBe(0);
  });

  it('rejects a limit that would allow no fetch', () => {
    expect(() => new OutboundFetches({ maxInFlightPerTenant: 0 })).toThrow(TypeError);
  });
});
