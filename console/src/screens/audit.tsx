/**
 * Token audit: the tenant's NHE token rows, filtered by user (username or id), NHE, client, resource server and time
 * (ISO 8601, UTC), paged by the API's cursor, exported to CSV (every page of the current filters), and the hash chain
 * verified. Above the rows, a chart of the tokens issued per hour and per agent. The rows name the user, the client
 * and the resource server, resolved through the management API for the ids on the page, beside the ids themselves.
 */
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';
import { ApiProblem, call, tp, type Api, type Schemas } from '../api';
import { fmtDate, ProblemView, ScopedButton, TextField, useAction, useConsole } from '../ui';
import type { ChartFilters } from './audit-chart';

/** The chart and its library load with this screen only, not with the console's first page. */
const IssuanceChart = lazy(() => import('./audit-chart').then((m) => ({ default: m.IssuanceChart })));
const RefusalsChart = lazy(() => import('./audit-refusals-chart').then((m) => ({ default: m.RefusalsChart })));

type Row = Schemas['TokenAuditRecord'];
interface Filters {
  user: string;
  nheIdentifier: string;
  clientId: string;
  resourceServer: string;
  from: string;
  to: string;
}
const EMPTY: Filters = { user: '', nheIdentifier: '', clientId: '', resourceServer: '', from: '', to: '' };
/** The query the API receives: the form's filters with the user resolved to an id and the times normalised. */
type Query = Partial<Record<'userId' | 'nheIdentifier' | 'clientId' | 'resourceServer' | 'from' | 'to', string>>;

const OBJECT_ID = /^[0-9a-f]{24}$/;
/** ISO 8601 date and time in UTC (RFC 3339 profile): seconds and fractions optional, `Z` required. */
const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,3})?)?Z$/;
const VALIDATION = 'https://idp.dev/problems/validation-error';

/** The instant an ISO 8601 UTC text names, or why it does not name one (a calendar date that does not exist too). */
export function parseIsoUtc(text: string): { iso: string } | { reason: string } {
  const m = ISO_UTC.exec(text.trim());
  const reason = 'must be an ISO 8601 time in UTC, such as 2026-03-01T09:30:00Z';
  if (!m) return { reason };
  const d = new Date(text.trim());
  const [, y, mo, da, h, mi, s] = m;
  if (
    Number.isNaN(d.getTime()) ||
    d.getUTCFullYear() !== Number(y) ||
    d.getUTCMonth() + 1 !== Number(mo) ||
    d.getUTCDate() !== Number(da) ||
    d.getUTCHours() !== Number(h) ||
    d.getUTCMinutes() !== Number(mi) ||
    d.getUTCSeconds() !== Number(s ?? 0)
  )
    return { reason: 'is not a date and time that exists' };
  return { iso: d.toISOString() };
}

/** A problem found here, before any call (status 0: no HTTP status to show). */
function invalid(title: string, params: Array<{ name: string; reason: string }>, detail?: string): ApiProblem {
  return new ApiProblem({ type: VALIDATION, title, status: 0, invalid_params: params, ...(detail ? { detail } : {}) });
}

/** The time filters, checked here so a mistyped time is named at its field before any call. */
function timesOf(f: Filters): Pick<Query, 'from' | 'to'> {
  const q: Pick<Query, 'from' | 'to'> = {};
  const errors: Array<{ name: string; reason: string }> = [];
  for (const k of ['from', 'to'] as const) {
    if (!f[k].trim()) continue;
    const r = parseIsoUtc(f[k]);
    if ('iso' in r) q[k] = r.iso;
    else errors.push({ name: `query.${k}`, reason: r.reason });
  }
  if (q.from && q.to && q.from > q.to) errors.push({ name: 'query.from', reason: 'must not be after To' });
  if (errors.length) throw invalid('Check the time filters', errors);
  return q;
}

/**
 * A user named by username or id → its id. A username is looked up with the list's `usernamePrefix` and matched
 * exactly; an unknown one is a problem at the field, never an empty page that reads like "no tokens".
 */
async function resolveUser(api: Api, tenantId: number, input: string): Promise<{ id: string; username: string }> {
  if (OBJECT_ID.test(input)) {
    const r = await api.GET('/auth/admin/tenants/{tenantId}/users/{userId}', {
      params: { path: { ...tp(tenantId), userId: input } },
    });
    if (r.data) return { id: r.data.id, username: r.data.username };
    if (r.response.status !== 404) await call(Promise.resolve(r));
  }
  let cursor: string | undefined;
  for (let i = 0; i < 10; i += 1) {
    const page = await call(
      api.GET('/auth/admin/tenants/{tenantId}/users', {
        params: { path: tp(tenantId), query: { usernamePrefix: input, limit: 200, ...(cursor ? { cursor } : {}) } },
      }),
    );
    const hit = page.items.find((u) => u.username === input);
    if (hit) return { id: hit.id, username: hit.username };
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  throw invalid(
    'No such user',
    [{ name: 'query.userId', reason: `no such user: no username or user id "${input}" in this tenant` }],
    'Usernames are matched exactly. The filters were not applied: the rows below are those of the filters in effect.',
  );
}

/** id → name, or null where the id names nothing this console can read (a deleted user, a missing scope). */
type Names = Record<string, string | null>;
interface Directory {
  users: Names;
  clients: Names;
  resourceServers: Names;
}
const NO_NAMES: Directory = { users: {}, clients: {}, resourceServers: {} };

/** The names of the ids on the page that are not known yet (one call per distinct id, all at once): only the new ones. */
async function lookUpNames(
  api: Api,
  tenantId: number,
  rows: Row[],
  known: Directory,
  can: (scope: string) => boolean,
): Promise<Directory> {
  const fresh = <K extends keyof Row>(k: K, names: Names) =>
    [...new Set(rows.map((r) => String(r[k])))].filter((id) => !(id in names));
  const path = tp(tenantId);
  const each = async (ids: string[], get: (id: string) => Promise<string | null>): Promise<Names> =>
    Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await get(id).catch(() => null)] as const)));
  const [users, clients, resourceServers] = await Promise.all([
    each(can('auth.users.list') ? fresh('userId', known.users) : [], async (userId) =>
      OBJECT_ID.test(userId)
        ? ((await api.GET('/auth/admin/tenants/{tenantId}/users/{userId}', { params: { path: { ...path, userId } } }))
            .data?.username ?? null)
        : null,
    ),
    each(
      can('auth.clients.list') ? fresh('clientId', known.clients) : [],
      async (clientId) =>
        (
          await api.GET('/auth/admin/tenants/{tenantId}/clients/{clientId}', {
            params: { path: { ...path, clientId } },
          })
        ).data?.name ?? null,
    ),
    each(
      can('auth.resource-servers.list') ? fresh('resourceServer', known.resourceServers) : [],
      async (identifier) =>
        (
          await api.GET('/auth/admin/tenants/{tenantId}/resource-servers', {
            params: { path, query: { identifier, limit: 1 } },
          })
        ).data?.items[0]?.name ?? null,
    ),
  ]);
  return { users, clients, resourceServers };
}

const merged = (a: Directory, b: Directory): Directory => ({
  users: { ...a.users, ...b.users },
  clients: { ...a.clients, ...b.clients },
  resourceServers: { ...a.resourceServers, ...b.resourceServers },
});

/** A name with its id below it (and as the tooltip); the id alone where no name is known. */
function Named(props: { name: string | null | undefined; id: string }): ReactNode {
  if (!props.name) return <code>{props.id}</code>;
  return (
    <>
      <span className="audit-name">{props.name}</span>
      <code className="audit-id" title={props.id}>
        {props.id}
      </code>
    </>
  );
}

const CSV_COLUMNS = [
  'issuedAt',
  'jti',
  'userId',
  'nheIdentifier',
  'clientId',
  'resourceServer',
  'scopes',
  'ttl',
  'sourceIp',
  'actorAuthentication',
] as const;
const csvCell = (v: unknown) => {
  const s = Array.isArray(v) ? v.join(' ') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '');
  return /[",\n\r]/.test(s) || /^[=+\-@]/.test(s) ? `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"` : s;
};
export const toCsv = (rows: Row[]) =>
  [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';

/** What the rows and the chart show, in words. */
function inEffect(q: Query, username: string): string {
  const parts = [
    q.userId ? `user ${username ? `${username} (${q.userId})` : q.userId}` : '',
    q.nheIdentifier ? `NHE ${q.nheIdentifier}` : '',
    q.clientId ? `client ${q.clientId}` : '',
    q.resourceServer ? `resource server ${q.resourceServer}` : '',
    q.from ? `issued at or after ${q.from}` : '',
    q.to ? `issued before ${q.to}` : '',
  ].filter(Boolean);
  return parts.length ? `Filters in effect: ${parts.join(', ')}.` : '';
}

const COLUMNS = 9;
const FILTER_FIELDS = [
  'query.userId',
  'query.nheIdentifier',
  'query.clientId',
  'query.resourceServer',
  'query.from',
  'query.to',
];

/** True while the element's content is wider than the element (the table needs a sideways scroll). */
function useOverflowing<T extends HTMLElement>(): [RefObject<T | null>, boolean] {
  const ref = useRef<T>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const check = () => setOverflowing(el.scrollWidth > el.clientWidth + 1);
    check();
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return [ref, overflowing];
}

export function AuditScreen() {
  const { api, tenantId, can } = useConsole();
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Query>({});
  const [resolvedUser, setResolvedUser] = useState<string>('');
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [names, setNames] = useState<Directory>(NO_NAMES);
  const [chartKey, setChartKey] = useState(0);
  const [chain, setChain] = useState<Schemas['AuditChainVerification'] | undefined>();
  const [exported, setExported] = useState('');
  const list = useAction();
  const verify = useAction();
  const exp = useAction();
  const path = tp(tenantId);
  const [wrapRef, overflowing] = useOverflowing<HTMLDivElement>();

  // Only the answer to the latest request is shown (a slow page of earlier filters must not replace it).
  const latest = useRef(0);
  const load = useCallback(
    async (q: Query, after?: string) => {
      const seq = (latest.current += 1);
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit', {
            params: { path: tp(tenantId), query: { limit: 25, ...q, ...(after ? { cursor: after } : {}) } },
          }),
        ),
      );
      if (page && seq === latest.current) {
        setRows((all) => (after ? [...all, ...page.items] : page.items));
        setCursor(page.nextCursor);
      }
    },
    [api, tenantId], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => {
    setNames(NO_NAMES);
    setApplied({});
    void load({});
  }, [load]);

  // The names of the users, clients and resource servers on the page (ids already known are not asked again).
  useEffect(() => {
    let live = true;
    void lookUpNames(api, tenantId, rows, names, can).then((n) => {
      if (live) setNames((prev) => merged(prev, n));
    });
    return () => {
      live = false;
    };
  }, [rows]); // eslint-disable-line react-hooks/exhaustive-deps

  const apply = async (f: Filters) => {
    let q: Query | undefined;
    let who = '';
    await list.run(async () => {
      const next: Query = { ...timesOf(f) };
      for (const k of ['nheIdentifier', 'clientId', 'resourceServer'] as const) if (f[k].trim()) next[k] = f[k].trim();
      const user = f.user.trim();
      if (user) {
        if (can('auth.users.list')) {
          const u = await resolveUser(api, tenantId, user);
          next.userId = u.id;
          who = u.username;
          setNames((n) => ({ ...n, users: { ...n.users, [u.id]: u.username } }));
        } else next.userId = user;
      }
      q = next;
    });
    // Not applied: the rows and the chart stay those of the filters in effect, and the fields say what is wrong.
    if (!q) return;
    setApplied(q);
    setResolvedUser(who);
    setChartKey((k) => k + 1);
    await load(q);
  };

  const onExport = async () => {
    setExported('');
    const all = await exp.run(async () => {
      const out: Row[] = [];
      let next: string | null | undefined;
      do {
        const page = await call(
          api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit', {
            params: { path, query: { limit: 200, ...applied, ...(next ? { cursor: next } : {}) } },
          }),
        );
        out.push(...page.items);
        next = page.nextCursor;
        setExported(`Exporting… ${out.length} rows`);
      } while (next && out.length < 100_000);
      return out;
    });
    if (!all) return;
    const url = URL.createObjectURL(new Blob([toCsv(all)], { type: 'text/csv' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = `token-audit-${tenantId}.csv`;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setExported(`Exported ${all.length} rows to token-audit-${tenantId}.csv.`);
  };

  const f = filters;
  const set = (k: keyof Filters) => (v: string) => setFilters({ ...f, [k]: v });
  const chartFilters: ChartFilters = {
    ...(applied.userId ? { userId: applied.userId } : {}),
    ...(applied.nheIdentifier ? { nheIdentifier: applied.nheIdentifier } : {}),
    ...(applied.clientId ? { clientId: applied.clientId } : {}),
    ...(applied.resourceServer ? { resourceServer: applied.resourceServer } : {}),
  };
  return (
    <section>
      <form
        className="card filters audit-filters"
        aria-label="Filter the token audit"
        onSubmit={(e) => {
          e.preventDefault();
          void apply(filters);
        }}
      >
        <TextField
          label="User (username or id)"
          name="query.userId"
          problem={list.problem}
          value={f.user}
          onChange={set('user')}
          hint={
            can('auth.users.list') ? undefined : (
              <>
                Usernames need the scope <code>auth.users.list</code>: enter the user id.
              </>
            )
          }
        />
        <TextField
          label="NHE identifier"
          name="query.nheIdentifier"
          problem={list.problem}
          value={f.nheIdentifier}
          onChange={set('nheIdentifier')}
        />
        <TextField
          label="Client id"
          name="query.clientId"
          problem={list.problem}
          value={f.clientId}
          onChange={set('clientId')}
        />
        <TextField
          label="Resource server"
          name="query.resourceServer"
          problem={list.problem}
          value={f.resourceServer}
          onChange={set('resourceServer')}
        />
        <TextField
          label="From (ISO 8601, UTC)"
          name="query.from"
          problem={list.problem}
          value={f.from}
          onChange={set('from')}
          hint="Such as 2026-03-01T09:30:00Z (issued at or after)"
        />
        <TextField
          label="To (ISO 8601, UTC)"
          name="query.to"
          problem={list.problem}
          value={f.to}
          onChange={set('to')}
          hint="Issued before this time"
        />
        <ProblemView problem={list.problem} shownFields={FILTER_FIELDS} />
        <div className="actions">
          <ScopedButton scope="auth.nhe.audit.list" type="submit" busy={list.busy}>
            Apply filters
          </ScopedButton>
          <ScopedButton scope="auth.nhe.audit.list" onClick={() => void onExport()} busy={exp.busy}>
            Export CSV
          </ScopedButton>
          <ScopedButton
            scope="auth.nhe.audit.list"
            onClick={() =>
              void verify
                .run(() =>
                  call(
                    api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit-chain/verify', {
                      params: { path },
                    }),
                  ),
                )
                .then((r) => r && setChain(r))
            }
            busy={verify.busy}
          >
            Verify hash chain
          </ScopedButton>
        </div>
        <p role="status" aria-live="polite" data-testid="audit-applied">
          {exported || inEffect(applied, resolvedUser)}
        </p>
        <ProblemView problem={exp.problem} />
      </form>
      <ProblemView problem={verify.problem} />
      {chain ? (
        <div
          className={chain.valid ? 'card chain ok' : 'card chain broken'}
          role="status"
          data-testid="chain"
          data-valid={String(chain.valid)}
        >
          <h2>{chain.valid ? 'Hash chain intact' : 'Hash chain broken'}</h2>
          <p>
            Checked {chain.checked} rows (sequence {chain.firstSeq ?? '—'} to {chain.lastSeq ?? '—'}, head{' '}
            {chain.headSeq})
            {chain.anchor
              ? `, from the anchor left by pruning at sequence ${chain.anchor.seq} (${fmtDate(chain.anchor.prunedAt)})`
              : ''}
            .
          </p>
          {chain.problems.length ? (
            <ul>
              {chain.problems.map((p, i) => (
                <li key={i}>{JSON.stringify(p)}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <Suspense fallback={<p className="card">Loading the chart…</p>}>
        <IssuanceChart filters={chartFilters} refreshKey={chartKey} />
      </Suspense>
      <Suspense fallback={<p className="card">Loading the refusals chart…</p>}>
        <RefusalsChart
          {...(applied.nheIdentifier ? { nheIdentifier: applied.nheIdentifier } : {})}
          otherFilters={[applied.userId, applied.clientId, applied.resourceServer].some(Boolean)}
          refreshKey={chartKey}
        />
      </Suspense>
      <h2 id="audit-rows-title">Issued tokens</h2>
      {overflowing ? (
        <p className="hint scroll-cue" id="audit-scroll-cue" data-testid="scroll-cue">
          <span aria-hidden="true">⇆ </span>
          {COLUMNS} columns: scroll the table sideways to see them all.
        </p>
      ) : null}
      <div
        ref={wrapRef}
        className={overflowing ? 'table-wrap audit-table-wrap overflowing' : 'table-wrap audit-table-wrap'}
        tabIndex={0}
        role="region"
        aria-labelledby="audit-rows-title"
        aria-describedby={overflowing ? 'audit-scroll-cue' : undefined}
      >
        <table data-testid="audit-rows" className="audit-rows">
          <thead>
            <tr>
              <th scope="col">Issued (UTC)</th>
              <th scope="col">NHE</th>
              <th scope="col">User</th>
              <th scope="col">Client</th>
              <th scope="col">Resource server</th>
              <th scope="col">Scopes</th>
              <th scope="col">TTL</th>
              <th scope="col">jti</th>
              <th scope="col">Source IP</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={COLUMNS} data-testid="audit-empty">
                  {`No rows${list.busy ? ' yet' : ''}${Object.keys(applied).length ? ' for the filters in effect' : ''}.`}
                </td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={r.id} data-jti={r.jti} data-user-id={r.userId}>
                  <td className="nowrap">{fmtDate(r.issuedAt)}</td>
                  <td>{r.nheIdentifier}</td>
                  <td data-col="user">
                    <Named name={names.users[r.userId]} id={r.userId} />
                  </td>
                  <td data-col="client">
                    <Named name={names.clients[r.clientId]} id={r.clientId} />
                  </td>
                  <td data-col="resource-server">
                    <Named name={names.resourceServers[r.resourceServer]} id={r.resourceServer} />
                  </td>
                  <td>{r.scopes.join(' ')}</td>
                  <td className="nowrap">{r.ttl} s</td>
                  <td data-col="jti">
                    <code>{r.jti}</code>
                  </td>
                  <td data-col="source-ip" className="nowrap">
                    <code>{r.sourceIp}</code>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setChartKey((k) => k + 1);
            void load(applied);
          }}
        >
          Refresh
        </button>
        {cursor ? (
          <button type="button" onClick={() => void load(applied, cursor)}>
            Next rows
          </button>
        ) : null}
      </div>
    </section>
  );
}
