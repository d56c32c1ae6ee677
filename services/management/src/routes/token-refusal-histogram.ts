/**
 * Refusals over time: the decision log's refusals (denied delegation decisions, and token requests the delegation
 * service rejected before or after its decision) counted per time bucket and per OAuth error code, for the console's
 * audit chart. Read only.
 *
 * The audit-writer keeps them as hourly counters per (tenant, hour, NHE identifier, error code, gate): buckets here
 * are whole hours (or several), so the window is the same as the issuance histogram's (one hour to seven days) but
 * counted in whole hours: a bucket counts the refusals of the hours that start in it. The counters are best effort
 * (the sidecar drops a refusal rather than delay a response): docs/reference/behaviour-decisions.md.
 */
import { z } from 'zod';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';
import { bucketGrid } from './token-audit-histogram';

const HOUR = 3600;
/** At most this many counter documents are read for one answer; past it `truncated` is true. */
export const MAX_COUNTERS = 50_000;

const refusalQuery = z
  .object({
    from: isoDate.optional().describe('Start of the window (RFC 3339, UTC); default: `to` minus 24 hours'),
    to: isoDate.optional().describe('End of the window (RFC 3339, UTC); default: now'),
    bucketSeconds: z.coerce
      .number()
      .int()
      .min(HOUR)
      .max(24 * HOUR)
      .default(HOUR)
      .describe(
        'Width of a bucket in seconds: whole hours (3600, 7200, ...; default one hour), aligned since the epoch',
      ),
    nheIdentifier: z.string().min(1).max(128).optional(),
    error: z
      .string()
      .regex(/^[a-z_]{1,64}$/)
      .optional()
      .describe('Only this OAuth error code'),
  })
  .strict();

const refusalHistogramSchema = z
  .object({
    from: isoDate.describe('Start of the first bucket (the window start rounded down to a bucket boundary)'),
    to: isoDate.describe('End of the last bucket (the window end rounded up to a bucket boundary)'),
    bucketSeconds: z.number().int(),
    series: z
      .array(
        z.object({
          error: z
            .string()
            .describe('The OAuth error code answered (access_denied, invalid_scope, invalid_grant, ...)'),
          counts: z.array(z.number().int().min(0)).describe('Refusals in each bucket, oldest bucket first'),
          total: z.number().int().min(0),
          gates: z
            .array(z.object({ gate: z.string(), total: z.number().int().min(0) }))
            .describe('Where the refusals happened: the gate of the decision or the stage of the request, most first'),
        }),
      )
      .describe('One series per error code refused in the window, most refusals first'),
    total: z.number().int().min(0).describe('Refusals counted in the window'),
    truncated: z
      .boolean()
      .describe(`More than ${MAX_COUNTERS} hourly counters in the window: the counts cover the oldest ones only`),
  })
  .meta({ id: 'TokenRefusalHistogram' });

interface CounterRow {
  hour: Date;
  error: string;
  gate: string;
  count: number;
}

/** Sums hourly counters per error code and bucket (and per gate); series most refusals first, then by code. */
export function countRefusals(
  rows: CounterRow[],
  grid: { start: number; step: number; buckets: number },
  maxRows: number,
) {
  const byError = new Map<string, { counts: number[]; gates: Map<string, number> }>();
  let total = 0;
  const truncated = rows.length > maxRows;
  for (const row of rows.slice(0, maxRows)) {
    const i = Math.floor((row.hour.getTime() - grid.start) / grid.step);
    if (i < 0 || i >= grid.buckets || !(row.count > 0)) continue;
    let s = byError.get(row.error);
    if (!s) {
      s = { counts: new Array<number>(grid.buckets).fill(0), gates: new Map() };
      byError.set(row.error, s);
    }
    s.counts[i] = (s.counts[i] ?? 0) + row.count;
    s.gates.set(row.gate, (s.gates.get(row.gate) ?? 0) + row.count);
    total += row.count;
  }
  const series = [...byError.entries()]
    .map(([error, s]) => ({
      error,
      counts: s.counts,
      total: s.counts.reduce((a, b) => a + b, 0),
      gates: [...s.gates.entries()]
        .map(([gate, n]) => ({ gate, total: n }))
        .sort((a, b) => b.total - a.total || (a.gate < b.gate ? -1 : 1)),
    }))
    .sort((a, b) => b.total - a.total || (a.error < b.error ? -1 : 1));
  return { series, total, truncated };
}

export function tokenRefusalHistogramRoutes(deps: RouteDeps, base: string, tag: string): RouteDef[] {
  const { models } = deps;
  return [
    defineRoute({
      method: 'get',
      path: `${base}/refusals-histogram`,
      operationId: 'getTokenRefusalHistogram',
      summary: 'Refusals per time bucket and per error code',
      description:
        'Counts the token requests the delegation service refused (denied delegation decisions and rejected ' +
        'requests) in a window of one hour to seven days (default: the last 24 hours), per bucket of whole hours ' +
        '(default: one hour) and per OAuth error code, from the hourly counters the audit-writer keeps. Best effort: ' +
        'a refusal the delegation service could not publish at once is dropped (and counted in its metrics).',
      tag,
      scope: 'auth.nhe.audit.list',
      params: tenantParams,
      query: refusalQuery,
      responses: { 200: { description: 'The counts', schema: refusalHistogramSchema } },
      handler: async ({ tenantId, query }) => {
        if (query.bucketSeconds % HOUR !== 0)
          throw problems.validation('buckets are whole hours', [
            { name: 'query.bucketSeconds', reason: 'refusals are counted per hour: use a multiple of 3600' },
          ]);
        const grid = bucketGrid(query, new Date());
        const filter: Record<string, unknown> = {
          tenantId,
          hour: { $gte: new Date(grid.start), $lt: new Date(grid.end) },
        };
        if (query.nheIdentifier !== undefined) filter.nheIdentifier = query.nheIdentifier;
        if (query.error !== undefined) filter.error = query.error;
        // Oldest first, so a truncated answer covers the start of the window completely.
        const rows = await models.TokenRefusalCounter.find(filter, { _id: 0, hour: 1, error: 1, gate: 1, count: 1 })
          .sort({ hour: 1 })
          .limit(MAX_COUNTERS + 1)
          .lean<CounterRow[]>();
        const { series, total, truncated } = countRefusals(rows, grid, MAX_COUNTERS);
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
