import { countRefusals } from './token-refusal-histogram';

const H = 3_600_000;
const start = Date.parse('2026-03-01T10:00:00Z');
const row = (hourOffset: number, error: string, gate: string, count: number) => ({
  hour: new Date(start + hourOffset * H),
  error,
  gate,
  count,
});

describe('countRefusals', () => {
  it('sums hourly counters per bucket and error code, with the gates, most refusals first', () => {
    const grid = { start, step: 2 * H, buckets: 2 };
    const out = countRefusals(
      [
        row(0, 'invalid_scope', 'scope-exceeds-policy', 2),
        row(1, 'invalid_scope', 'scope-exceeds-policy', 1),
        row(1, 'invalid_grant', 'nhe-disabled', 1),
        row(3, 'invalid_grant', 'nhe-not-found', 4),
        row(3, 'access_denied', 'tenant-disabled', 1),
        // Outside the grid: not counted.
        row(-1, 'invalid_scope', 'scope-exceeds-policy', 9),
        row(4, 'invalid_scope', 'scope-exceeds-policy', 9),
      ],
      grid,
      100,
    );
    expect(out).toEqual({
      total: 9,
      truncated: false,
      series: [
        {
          error: 'invalid_grant',
          counts: [1, 4],
          total: 5,
          gates: [
            { gate: 'nhe-not-found', total: 4 },
            { gate: 'nhe-disabled', total: 1 },
          ],
        },
        { error: 'invalid_scope', counts: [3, 0], total: 3, gates: [{ gate: 'scope-exceeds-policy', total: 3 }] },
        { error: 'access_denied', counts: [0, 1], total: 1, gates: [{ gate: 'tenant-disabled', total: 1 }] },
      ],
    });
  });

  it('says when more counters than it reads were there', () => {
    const out = countRefusals(
      [row(0, 'invalid_scope', 'g', 1), row(0, 'invalid_grant', 'g', 1)],
      { start, step: H, buckets: 1 },
      1,
    );
    expect([out.total, out.truncated]).toEqual([1, true]);
  });
});
