/**
 * Token issuance over time: the tenant's NHE token audit rows counted per time bucket and per NHE identifier, for the
 * console's chart. Read only, like the rest of the token audit.
 *
 * The rows' issuedAt values are read with a projection over the { tenantId, issuedAt } index and bucketed here rather
 * than in an aggregation pipeline: the MongoDB-compatible stores this service runs on (FerretDB among them) do not all
 * implement the date operators of $group, and a bounded read answers the same question on every one of them. The read
 * stops after MAX_ROWS rows and says so (`truncated`), so a busy tenant's week costs a bounded amount of work.
 *
 * Refusals are charted from their own hourly counters (token-refusal-histogram.ts).
 */
import { z } from 'zod';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';

const HOUR = 3600;
/** The window a chart may span: one hour to seven days. */
export const MIN_WINDOW_SECONDS = HOUR;
export const MAX_WINDOW_SECONDS = 7 * 24 * HOUR;
const DEFAULT_WINDOW_SECONDS = 24 * HOUR;
/** At most this many buckets in one answer (a week of 15-minute buckets fits). */
const MAX_BUCKETS = 1000;
/** At most this many rows are read for one answer; past it the counts are partial and `truncated` is true. */
export const MAX_ROWS = 50_000;

const histogramQuery = z
  .object({
    from: isoDate.optional().describe('Start of the window (RFC 3339, UTC); default: `to` minus 24 hours'),
    to: isoDate.optional().describe('End of the window (RFC 3339, UTC); default: now'),
    bucketSeconds: z.coerce
      .number()
      .int()
      .min(60)
      .max(24 * HOUR)
      .default(HOUR)
      .describe(
        'Width of a bucket in seconds (default one hour); buckets are aligned to multiples of it since the epoch',
      ),
    nheIdentifier: z.string().min(1).max(128).optional(),
    userId: z.string().min(1).max(128).optional(),
    clientId: z.string().min(1).max(128).optional(),
    resourceServer: z.string().min(1).max(2048).optional(),
  })
  .strict();

const histogramSchema = z
  .object({
    from: isoDate.describe('Start of the first bucket (the window start rounded down to a bucket boundary)'),
    to: isoDate.describe('End of the last bucket (the window end rounded up to a bucket boundary)'),
    bucketSeconds: z.number().int(),
    series: z
      .array(
        z.object({
          nheIdentifier: z.string(),
          counts: z.array(z.number().int().min(0)).describe('Tokens issued in each bucket, oldest bucket first'),
          total: z.number().int().min(0),
        }),
      )
      .describe('One series per NHE that was issued a token in the window, most tokens first'),
    total: z.number().int().min(0).describe('Tokens counted in the window'),
    truncated: z
      .boolean()
      .describe(
        `More than ${MAX_ROWS} tokens were issued in the window: the counts cover the ${MAX_ROWS} issued first only`,
      ),
  })
  .meta({ id: 'TokenAuditHistogram' });

type Query = z.output<typeof histogramQuery>;

/** The bucket grid of a query: aligned start, bucket count, or a validation problem naming the field at fault. */
export function bucketGrid(q: Pick<Query, 'from' | 'to' | 'bucketSeconds'>, now: Date) {
  const toMs = q.to ? Date.parse(q.to) : now.getTime();
  const fromMs = q.from ? Date.parse(q.from) : toMs - DEFAULT_WINDOW_SECONDS * 1000;
  const span = (toMs - fromMs) / 1000;
  if (span < MIN_WINDOW_SECONDS || span > MAX_WINDOW_SECONDS) {
    throw problems.validation('the window must span one hour to seven days', [
      { name: q.from ? 'query.from' : 'query.to', reason: 'the window must span one hour to seven days' },
    ]);
  }
  const step = q.bucketSeconds * 1000;
  const start = Math.floor(fromMs / step) * step;
  const end = Math.ceil(toMs / step) * step;
  const buckets = (end - start) / step;
  if (buckets > MAX_BUCKETS) {
    throw problems.validation(`at most ${MAX_BUCKETS} buckets`, [
      { name: 'query.bucketSeconds', reason: `the window holds more than ${MAX_BUCKETS} buckets of this width` },
    ]);
  }
  return { fromMs, toMs, start, end, step, buckets };
}

type Grid = ReturnType<typeof bucketGrid>;

/**
 * Counts rows per NHE identifier and bucket, reading at most `maxRows` of them (one more tells that there were more).
 * Series come most tokens first, then by identifier, so the answer does not depend on the store's row order.
 */
export async function countIssuances(
  rows: AsyncIterable<{ nheIdentifier: string; issuedAt: Date }>,
  grid: Pick<Grid, 'start' | 'step' | 'buckets'>,
  maxRows: number,
) {
  const counts = new Map<string, number[]>();
  let total = 0;
  let truncated = false;
  for await (const row of rows) {
    if (total === maxRows) {
      truncated = true;
      break;
    }
    const i = Math.floor((row.issuedAt.getTime() - grid.start) / grid.step);
    if (i < 0 || i >= grid.buckets) continue;
    total += 1;
    let series = counts.get(row.nheIdentifier);
    if (!series) {
      series = new Array<number>(grid.buckets).fill(0);
      counts.set(row.nheIdentifier, series);
    }
    series[i] = (series[i] ?? 0) + 1;
  }
  const series = [...counts.entries()]
    .map(([nheIdentifier, c]) => ({ nheIdentifier, counts: c, total: c.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.total - a.total || (a.nheIdentifier < b.nheIdentifier ? -1 : 1));
  return { series, total, truncated };
}

export function tokenAuditHistogramRoutes(deps: RouteDeps, base: string, tag: string): RouteDef[] {
  const { models } = deps;
  return [
    defineRoute({
      method: 'get',
      path: `${base}/histogram`,
      operationId: 'getTokenAuditHistogram',
      summary: 'Tokens issued per time bucket and per NHE',
      description:
        'Counts the NHE tokens issued in a window of one hour to seven days (default: the last 24 hours), per bucket ' +
        '(default: one hour) and per NHE identifier, with the same filters as the list. At most ' +
        `${MAX_ROWS} tokens are counted; past that \`truncated\` is true.`,
      tag,
      scope: 'auth.nhe.audit.list',
      params: tenantParams,
      query: histogramQuery,
      responses: { 200: { description: 'The counts', schema: histogramSchema } },
      handler: async ({ tenantId, query }) => {
        const grid = bucketGrid(query, new Date());
        const filter: Record<string, unknown> = {
          tenantId,
          issuedAt: { $gte: new Date(grid.fromMs), $lt: new Date(grid.toMs) },
        };
        for (const k of ['nheIdentifier', 'userId', 'clientId', 'resourceServer'] as const)
          if (query[k] !== undefined) filter[k] = query[k];
        // Oldest first, so a truncated answer covers the start of the window completely.
        const cursor = models.TokenAudit.find(filter, { _id: 0, nheIdentifier: 1, issuedAt: 1 })
          .sort({ issuedAt: 1 })
          .limit(MAX_ROWS + 1)
          .lean<Array<{ nheIdentifier: string; issuedAt: Date }>>()
          .cursor();
        const { series, total, truncated } = await countIssuances(cursor, grid, MAX_ROWS).finally(() => cursor.close());
        return {
          status: 200,
          body: {
            from: new Date(grid.start).toISOString(),
            to: new Date(grid.end).toISOString(),
            bucketSeconds: query.bucketSeconds,
            series,
            total,
            truncated,
          },
        };
      },
    }),
  ];
}
