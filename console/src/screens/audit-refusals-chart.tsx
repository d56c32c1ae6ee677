/**
 * Refusals per hour by OAuth error code: a stacked bar chart (recharts, SVG) of the decision log's refusal counters
 * (denied delegation decisions and rejected token requests), with a caption that says the totals and a table of the
 * same counts for screen readers and for reading the numbers exactly. Times are UTC, as everywhere in the console.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ProblemView, useAction, useConsole } from '../ui';
import { dayHhmm, hhmm, isoMinute, OTHER_COLOUR, PALETTE, StackedBarPlot } from './audit-chart';

type Histogram = Schemas['TokenRefusalHistogram'];

/** Refusals are counted per hour: the windows offered all have hourly buckets. */
export const REFUSAL_WINDOWS = [
  { id: '6h', label: 'Last 6 hours', seconds: 6 * 3600 },
  { id: '24h', label: 'Last 24 hours', seconds: 24 * 3600 },
  { id: '3d', label: 'Last 3 days', seconds: 3 * 24 * 3600 },
  { id: '7d', label: 'Last 7 days', seconds: 7 * 24 * 3600 },
] as const;
type WindowId = (typeof REFUSAL_WINDOWS)[number]['id'];

interface Series {
  name: string;
  counts: number[];
  total: number;
  colour: string;
  gates: string;
}

/** The series drawn: the most frequent error codes, the rest summed as one. */
export function shownRefusalSeries(h: Histogram): Series[] {
  const gates = (s: Histogram['series'][number]) => s.gates.map((g) => `${g.gate} ${g.total}`).join(', ');
  const top = h.series.slice(0, PALETTE.length).map((s, i) => ({
    name: s.error,
    counts: s.counts,
    total: s.total,
    colour: PALETTE[i] ?? OTHER_COLOUR,
    gates: gates(s),
  }));
  const rest = h.series.slice(PALETTE.length);
  if (!rest.length) return top;
  return [
    ...top,
    {
      name: `${rest.length} other error codes`,
      counts: rest[0]?.counts.map((_, i) => rest.reduce((n, s) => n + (s.counts[i] ?? 0), 0)) ?? [],
      total: rest.reduce((n, s) => n + s.total, 0),
      colour: OTHER_COLOUR,
      gates: rest.map(gates).join('; '),
    },
  ];
}

export function RefusalsChart(props: { nheIdentifier?: string; otherFilters: boolean; refreshKey: number }) {
  const { api, tenantId } = useConsole();
  const [windowId, setWindowId] = useState<WindowId>('24h');
  const [data, setData] = useState<Histogram | undefined>();
  const load = useAction();
  const win = REFUSAL_WINDOWS.find((w) => w.id === windowId) ?? REFUSAL_WINDOWS[1];
  const { nheIdentifier } = props;

  // Only the answer to the latest request is shown (a slow answer for an earlier window must not replace it).
  const latest = useRef(0);
  const fetchHistogram = useCallback(async () => {
    const seq = (latest.current += 1);
    const to = new Date();
    const from = new Date(to.getTime() - win.seconds * 1000);
    const h = await load.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit/refusals-histogram', {
          params: {
            path: tp(tenantId),
            query: {
              from: from.toISOString(),
              to: to.toISOString(),
              bucketSeconds: 3600,
              ...(nheIdentifier ? { nheIdentifier } : {}),
            },
          },
        }),
      ),
    );
    if (seq === latest.current) setData(h);
  }, [api, tenantId, win, nheIdentifier]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void fetchHistogram();
  }, [fetchHistogram, props.refreshKey]);

  const series = data ? shownRefusalSeries(data) : [];
  const start = data ? Date.parse(data.from) : 0;
  const step = (data?.bucketSeconds ?? 3600) * 1000;
  const buckets = series[0]?.counts.length ?? 0;
  // Keys `s${j}`: an error code is a plain word, but the same shape as the issuance chart keeps both simple.
  const rows = Array.from({ length: buckets }, (_, i) => ({
    t: start + i * step,
    total: series.reduce((n, s) => n + (s.counts[i] ?? 0), 0),
    ...Object.fromEntries(series.map((s, j) => [`s${j}`, s.counts[i] ?? 0])),
  }));
  const tick = (ms: number) => (buckets * step > 24 * 3600_000 ? dayHhmm(ms) : hhmm(ms));
  const caption = data
    ? data.total === 0
      ? `No refusals: ${win.label.toLowerCase()}.`
      : `${data.total} refusal${data.total === 1 ? '' : 's'} with ${data.series.length} error code${
          data.series.length === 1 ? '' : 's'
        }, ${win.label.toLowerCase()} (per hour, UTC).`
    : '';
  const title = 'Refusals per hour, by error code';

  return (
    <section className="card audit-chart" aria-labelledby="refusals-chart-title" data-testid="refusals-chart">
      <div className="audit-chart-head">
        <h2 id="refusals-chart-title">{title}</h2>
        <div className="field audit-chart-window">
          <label htmlFor="refusals-window">Refusals window</label>
          <select id="refusals-window" value={windowId} onChange={(e) => setWindowId(e.target.value as WindowId)}>
            {REFUSAL_WINDOWS.map((w) => (
              <option key={w.id} value={w.id}>
                {w.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ProblemView problem={load.problem} />
      <figure className="audit-chart-figure">
        <figcaption role="status" aria-live="polite" data-testid="refusals-caption" data-total={data?.total ?? ''}>
          {load.busy && !data ? 'Loading…' : caption}
        </figcaption>
        {data?.truncated ? (
          <p className="problem" role="alert">
            More refusal counters in this window than one chart reads: the bars cover the oldest ones only.
          </p>
        ) : null}
        {data && data.total > 0 ? (
          // The SVG repeats the caption and the table below for sighted readers; assistive technology reads those.
          <StackedBarPlot rows={rows} series={series} tick={tick} height={240} stackId="error" />
        ) : null}
      </figure>
      {data && data.total > 0 ? (
        <details className="audit-chart-table">
          <summary>The refusals as a table</summary>
          <div className="table-wrap" tabIndex={0} role="region" aria-label="Refusal counts per hour">
            <table data-testid="refusals-table">
              <caption>
                {title} ({win.label.toLowerCase()}, UTC; hours with no refusal left out)
              </caption>
              <thead>
                <tr>
                  <th scope="col">From (UTC)</th>
                  {series.map((s) => (
                    <th scope="col" key={s.name} data-error={s.name}>
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
                        <td key={s.name} data-error={s.name}>
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
                    <td key={s.name} data-error={s.name} data-series-total>
                      {s.total}
                    </td>
                  ))}
                  <td data-total>{data.total}</td>
                </tr>
                <tr>
                  <th scope="row">Where refused</th>
                  {series.map((s) => (
                    <td key={s.name} data-error={s.name} data-gates>
                      {s.gates}
                    </td>
                  ))}
                  <td />
                </tr>
              </tfoot>
            </table>
          </div>
        </details>
      ) : null}
      <p className="hint">
        Denied delegation decisions and rejected token requests, counted per hour by the audit writer. Best effort: a
        refusal the delegation service could not hand over at once is dropped and counted in its metrics
        (nhe_refusal_events_dropped_total). Kept as long as the token audit.
        {props.otherFilters ? ' Only the agent filter applies to refusals.' : ''}
      </p>
    </section>
  );
}
