/**
 * Tokens issued per time bucket and per agent (NHE identifier): a stacked bar chart (recharts, SVG) of the token audit
 * histogram, with a caption that says the totals and a table of the same counts for screen readers and for reading the
 * numbers exactly. Times are UTC, as everywhere in the console.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { call, tp, type Schemas } from '../api';
import { ProblemView, useAction, useConsole } from '../ui';

type Histogram = Schemas['TokenAuditHistogram'];
export interface ChartFilters {
  userId?: string;
  nheIdentifier?: string;
  clientId?: string;
  resourceServer?: string;
}

/** The windows offered: one hour to seven days; short windows get finer buckets so they show more than one bar. */
export const WINDOWS = [
  { id: '1h', label: 'Last hour', seconds: 3600, bucketSeconds: 300, per: '5 minutes' },
  { id: '6h', label: 'Last 6 hours', seconds: 6 * 3600, bucketSeconds: 900, per: '15 minutes' },
  { id: '24h', label: 'Last 24 hours', seconds: 24 * 3600, bucketSeconds: 3600, per: 'hour' },
  { id: '3d', label: 'Last 3 days', seconds: 3 * 24 * 3600, bucketSeconds: 3600, per: 'hour' },
  { id: '7d', label: 'Last 7 days', seconds: 7 * 24 * 3600, bucketSeconds: 3600, per: 'hour' },
] as const;
type WindowId = (typeof WINDOWS)[number]['id'];

/** Distinct on white at 3:1 or more (WCAG 1.4.11), and told apart by the legend and the table, not by colour alone. */
export const PALETTE = ['#0b57d0', '#b45309', '#137333', '#a50e0e', '#6d28d9', '#0e7490', '#be185d'];
export const OTHER_COLOUR = '#4b5563';
const SHOWN_SERIES = PALETTE.length;

export const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
export const dayHhmm = (ms: number) => new Date(ms).toISOString().slice(5, 16).replace('T', ' ');
/** ISO 8601 date and minute, as the rest of the console shows times (UTC). */
export const isoMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/**
 * The stacked bars of a histogram (one bar per bucket, one layer per series), for sighted readers only: the caption
 * and the table beside it say the same to assistive technology. Shared by the issuance and refusal charts.
 */
export function StackedBarPlot(props: {
  rows: ReadonlyArray<Record<string, number>>;
  series: ReadonlyArray<{ name: string; colour: string }>;
  tick: (ms: number) => string;
  height: number;
  stackId: string;
}) {
  return (
    <div className="audit-chart-plot" aria-hidden="true">
      <ResponsiveContainer width="100%" height={props.height}>
        <BarChart
          data={[...props.rows]}
          margin={{ top: 8, right: 8, bottom: 8, left: 0 }}
          accessibilityLayer={false}
          barCategoryGap={1}
        >
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" tickFormatter={props.tick} minTickGap={24} fontSize={12} />
          <YAxis allowDecimals={false} width={40} fontSize={12} />
          <Tooltip labelFormatter={(t) => `${isoMinute(Number(t))} UTC`} isAnimationActive={false} />
          <Legend />
          {props.series.map((s, j) => (
            <Bar
              key={s.name}
              name={s.name}
              dataKey={`s${j}`}
              stackId={props.stackId}
              fill={s.colour}
              isAnimationActive={false}
            />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

interface Series {
  name: string;
  counts: number[];
  total: number;
  colour: string;
}

/** The series drawn: the busiest agents by name, the rest summed as one. */
export function shownSeries(h: Histogram): Series[] {
  const top = h.series.slice(0, SHOWN_SERIES).map((s, i) => ({
    name: s.nheIdentifier,
    counts: s.counts,
    total: s.total,
    colour: PALETTE[i] ?? OTHER_COLOUR,
  }));
  const rest = h.series.slice(SHOWN_SERIES);
  if (!rest.length) return top;
  const counts = rest[0]?.counts.map((_, i) => rest.reduce((n, s) => n + (s.counts[i] ?? 0), 0)) ?? [];
  return [
    ...top,
    {
      name: `${rest.length} other agents`,
      counts,
      total: rest.reduce((n, s) => n + s.total, 0),
      colour: OTHER_COLOUR,
    },
  ];
}

export function IssuanceChart(props: { filters: ChartFilters; refreshKey: number }) {
  const { api, tenantId } = useConsole();
  const [windowId, setWindowId] = useState<WindowId>('24h');
  const [data, setData] = useState<Histogram | undefined>();
  const load = useAction();
  const win = WINDOWS.find((w) => w.id === windowId) ?? WINDOWS[2];
  const { userId, nheIdentifier, clientId, resourceServer } = props.filters;

  // Only the answer to the latest request is shown (a slow answer for an earlier window must not replace it).
  const latest = useRef(0);
  const fetchHistogram = useCallback(async () => {
    const seq = (latest.current += 1);
    const to = new Date();
    const from = new Date(to.getTime() - win.seconds * 1000);
    const h = await load.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/histogram', {
          params: {
            path: tp(tenantId),
            query: {
              from: from.toISOString(),
              to: to.toISOString(),
              bucketSeconds: win.bucketSeconds,
              ...(userId ? { userId } : {}),
              ...(nheIdentifier ? { nheIdentifier } : {}),
              ...(clientId ? { clientId } : {}),
              ...(resourceServer ? { resourceServer } : {}),
            },
          },
        }),
      ),
    );
    if (seq === latest.current) setData(h);
  }, [api, tenantId, win, userId, nheIdentifier, clientId, resourceServer]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void fetchHistogram();
  }, [fetchHistogram, props.refreshKey]);

  const series = data ? shownSeries(data) : [];
  const start = data ? Date.parse(data.from) : 0;
  const step = (data?.bucketSeconds ?? 3600) * 1000;
  const buckets = series[0]?.counts.length ?? 0;
  // One row per bucket: its start, its total, and the count of series j under the key `s${j}` (an NHE identifier may
  // hold a dot, which recharts would read as a path).
  const rows = Array.from({ length: buckets }, (_, i) => ({
    t: start + i * step,
    total: series.reduce((n, s) => n + (s.counts[i] ?? 0), 0),
    ...Object.fromEntries(series.map((s, j) => [`s${j}`, s.counts[i] ?? 0])),
  }));
  const spansDays = buckets * step > 24 * 3600_000;
  const tick = (ms: number) => (spansDays ? dayHhmm(ms) : hhmm(ms));
  const busiest = rows.reduce<{ t: number; total: number } | undefined>(
    (b, r) => (r.total > (b?.total ?? 0) ? r : b),
    undefined,
  );
  const caption = data
    ? data.total === 0
      ? `No tokens issued: ${win.label.toLowerCase()}.`
      : `${data.total} token${data.total === 1 ? '' : 's'} issued to ${data.series.length} agent${
          data.series.length === 1 ? '' : 's'
        }, ${win.label.toLowerCase()} (per ${win.per}, UTC)` +
        (busiest ? `; busiest: ${isoMinute(busiest.t)} UTC with ${busiest.total}.` : '.')
    : '';
  const title = `Tokens issued per ${win.per}, by agent`;

  return (
    <section className="card audit-chart" aria-labelledby="issuance-chart-title" data-testid="issuance-chart">
      <div className="audit-chart-head">
        <h2 id="issuance-chart-title">{title}</h2>
        <div className="field audit-chart-window">
          <label htmlFor="issuance-window">Chart window</label>
          <select id="issuance-window" value={windowId} onChange={(e) => setWindowId(e.target.value as WindowId)}>
            {WINDOWS.map((w) => (
              <option key={w.id} value={w.id}>
                {w.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ProblemView problem={load.problem} />
      <figure className="audit-chart-figure">
        <figcaption role="status" aria-live="polite" data-testid="issuance-caption" data-total={data?.total ?? ''}>
          {load.busy && !data ? 'Loading…' : caption}
        </figcaption>
        {data?.truncated ? (
          <p className="problem" role="alert">
            More tokens were issued in this window than one chart counts: the bars cover the first {data.total}.
          </p>
        ) : null}
        {data && data.total > 0 ? (
          // The SVG repeats the caption and the table below for sighted readers; assistive technology reads those.
          <StackedBarPlot rows={rows} series={series} tick={tick} height={280} stackId="nhe" />
        ) : null}
      </figure>
      {data && data.total > 0 ? (
        <details className="audit-chart-table">
          <summary>The counts as a table</summary>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Token counts per bucket">
            <table data-testid="issuance-table">
              <caption>
                {title} ({win.label.toLowerCase()}, UTC; buckets with no token left out)
              </caption>
              <thead>
                <tr>
                  <th scope="col">From (UTC)</th>
                  {series.map((s) => (
                    <th scope="col" key={s.name} data-nhe={s.name}>
                      {s.name}
                    </th>
                  ))}
                  <th scope="col">Total</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r, i) =>
                  r.total === 0 ? null : (
                    <tr key={r.t} data-bucket={new Date(r.t).toISOString()}>
                      <th scope="row">{isoMinute(r.t)}</th>
                      {series.map((s) => (
                        <td key={s.name} data-nhe={s.name}>
                          {s.counts[i] ?? 0}
                        </td>
                      ))}
                      <td data-total>{r.total}</td>
                    </tr>
                  ),
                )}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">All</th>
                  {series.map((s) => (
                    <td key={s.name} data-nhe={s.name} data-series-total>
                      {s.total}
                    </td>
                  ))}
                  <td data-total>{data.total}</td>
                </tr>
              </tfoot>
            </table>
          </div>
        </details>
      ) : null}
    </section>
  );
}
