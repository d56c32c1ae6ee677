/** The histogram's bucket grid and counting, without a store (the route's integration test reads real rows). */
import { ProblemError } from '@idp/errors';
import { bucketGrid, countIssuances } from './token-audit-histogram';

const NOW = new Date('2026-03-01T12:34:56Z');
const at = (iso: string) => new Date(iso);
/** The rows as an async iterable, as the store's cursor gives them. */
const rowsOf = (rows: Array<[string, string]>): AsyncIterable<{ nheIdentifier: string; issuedAt: Date }> => ({
  [Symbol.asyncIterator]: () => {
    let i = 0;
    return {
      next: () => {
        if (i >= rows.length) return Promise.resolve({ done: true as const, value: undefined });
        const [nheIdentifier, iso] = rows[i++] as [string, string];
        return Promise.resolve({ done: false as const, value: { nheIdentifier, issuedAt: at(iso) } });
      },
    };
  },
});
const invalidName = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    return (err.extra.invalid_params as Array<{ name: string }>).map((p) => p.name);
  }
  return undefined;
};

describe('bucketGrid', () => {
  it('defaults to the 24 hours before now, aligned to whole hours (25 buckets)', () => {
    const g = bucketGrid({ bucketSeconds: 3600 }, NOW);
    expect([new Date(g.start).toISOString(), new Date(g.end).toISOString(), g.buckets]).toEqual([
      '2026-02-28T12:00:00.000Z',
      '2026-03-01T13:00:00.000Z',
      25,
    ]);
    expect([g.fromMs, g.toMs]).toEqual([NOW.getTime() - 86_400_000, NOW.getTime()]);
  });

  it('takes one hour and seven days, and nothing outside them', () => {
    expect(
      bucketGrid({ from: '2026-03-01T10:00:00Z', to: '2026-03-01T11:00:00Z', bucketSeconds: 300 }, NOW).buckets,
    ).toBe(12);
    expect(
      bucketGrid({ from: '2026-03-01T00:00:00Z', to: '2026-03-08T00:00:00Z', bucketSeconds: 3600 }, NOW).buckets,
    ).toBe(168);
    expect(
      invalidName(() =>
        bucketGrid({ from: '2026-03-01T10:00:00Z', to: '2026-03-01T10:59:59Z', bucketSeconds: 60 }, NOW),
      ),
    ).toEqual(['query.from']);
    expect(
      invalidName(() =>
        bucketGrid({ from: '2026-03-01T00:00:00Z', to: '2026-03-08T00:00:01Z', bucketSeconds: 3600 }, NOW),
      ),
    ).toEqual(['query.from']);
    expect(invalidName(() => bucketGrid({ to: '2026-03-01T00:00:00Z', bucketSeconds: 60 }, NOW))).toEqual([
      'query.bucketSeconds',
    ]);
  });
});

describe('countIssuances', () => {
  const grid = bucketGrid({ from: '2026-03-01T10:00:00Z', to: '2026-03-01T13:00:00Z', bucketSeconds: 3600 }, NOW);
  const rows: Array<[string, string]> = [
    ['b', '2026-03-01T10:00:00Z'],
    ['a', '2026-03-01T10:59:59.999Z'],
    ['a', '2026-03-01T11:00:00Z'],
    ['b', '2026-03-01T12:59:00Z'],
    ['c', '2026-03-01T12:00:00Z'],
  ];

  it('counts per NHE and bucket, most tokens first, then by identifier', async () => {
    expect(await countIssuances(rowsOf(rows), grid, 100)).toEqual({
      series: [
        { nheIdentifier: 'a', counts: [1, 1, 0], total: 2 },
        { nheIdentifier: 'b', counts: [1, 0, 1], total: 2 },
        { nheIdentifier: 'c', counts: [0, 0, 1], total: 1 },
      ],
      total: 5,
      truncated: false,
    });
  });

  it('stops at the bound and says so; exactly the bound is complete', async () => {
    const cut = await countIssuances(rowsOf(rows), grid, 3);
    expect([cut.total, cut.truncated, cut.series.map((s) => [s.nheIdentifier, s.counts])]).toEqual([
      3,
      true,
      [
        ['a', [1, 1, 0]],
        ['b', [1, 0, 0]],
      ],
    ]);
    expect(await countIssuances(rowsOf(rows), grid, 5)).toMatchObject({ total: 5, truncated: false });
  });

  it('leaves out a row outside the grid rather than writing past the series', async () => {
    const out = await countIssuances(
      rowsOf([
        ['a', '2026-03-01T13:00:00Z'],
        ['a', '2026-03-01T09:59:59Z'],
      ]),
      grid,
      10,
    );
    expect(out).toEqual({ series: [], total: 0, truncated: false });
  });
});
