/**
 * Token audit: the tenant's NHE token rows, filtered by user, NHE, client, resource server and time, paged by the
 * API's cursor, exported to CSV (every page of the current filters), and the hash chain verified.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { fmtDate, ProblemView, ScopedButton, TextField, useAction, useConsole } from '../ui';

type Row = Schemas['TokenAuditRecord'];
interface Filters {
  userId: string;
  nheIdentifier: string;
  clientId: string;
  resourceServer: string;
  from: string;
  to: string;
}
const EMPTY: Filters = { userId: '', nheIdentifier: '', clientId: '', resourceServer: '', from: '', to: '' };

/** datetime-local (no zone) read as UTC, as every time in the console is. */
const isoOf = (local: string) =>
  local ? new Date(`${local}:00Z`.replace(/:00:00Z$/, ':00Z')).toISOString() : undefined;

function queryOf(f: Filters) {
  const q: Record<string, string> = {};
  for (const k of ['userId', 'nheIdentifier', 'clientId', 'resourceServer'] as const)
    if (f[k].trim()) q[k] = f[k].trim();
  const from = isoOf(f.from);
  const to = isoOf(f.to);
  if (from) q.from = from;
  if (to) q.to = to;
  return q;
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

export function AuditScreen() {
  const { api, tenantId } = useConsole();
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [chain, setChain] = useState<Schemas['AuditChainVerification'] | undefined>();
  const [exported, setExported] = useState('');
  const list = useAction();
  const verify = useAction();
  const exp = useAction();
  const path = tp(tenantId);

  const load = useCallback(
    async (f: Filters, after?: string) => {
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit', {
            params: { path: tp(tenantId), query: { limit: 25, ...queryOf(f), ...(after ? { cursor: after } : {}) } },
          }),
        ),
      );
      if (page) {
        setRows((all) => (after ? [...all, ...page.items] : page.items));
        setCursor(page.nextCursor);
      }
    },
    [api, tenantId], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => {
    void load(EMPTY);
  }, [load]);

  const onExport = async () => {
    setExported('');
    const all = await exp.run(async () => {
      const out: Row[] = [];
      let next: string | null | undefined;
      do {
        const page = await call(
          api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/token-audit', {
            params: { path, query: { limit: 200, ...queryOf(applied), ...(next ? { cursor: next } : {}) } },
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
  return (
    <section>
      <form
        className="card filters"
        aria-label="Filter the token audit"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(filters);
          void load(filters);
        }}
      >
        <TextField
          label="User id"
          name="query.userId"
          problem={list.problem}
          value={f.userId}
          onChange={set('userId')}
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
          label="From (UTC)"
          type="datetime-local"
          name="query.from"
          problem={list.problem}
          value={f.from}
          onChange={set('from')}
        />
        <TextField
          label="To (UTC)"
          type="datetime-local"
          name="query.to"
          problem={list.problem}
          value={f.to}
          onChange={set('to')}
        />
        <ProblemView
          problem={list.problem}
          shownFields={[
            'query.userId',
            'query.nheIdentifier',
            'query.clientId',
            'query.resourceServer',
            'query.from',
            'query.to',
          ]}
        />
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
        <p role="status" aria-live="polite">
          {exported}
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
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Token audit rows">
        <table data-testid="audit-rows">
          <thead>
            <tr>
              <th scope="col">Issued</th>
              <th scope="col">NHE</th>
              <th scope="col">User</th>
              <th scope="col">Client</th>
              <th scope="col">Resource server</th>
              <th scope="col">Scopes</th>
              <th scope="col">TTL</th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={7}>No rows{list.busy ? ' yet' : ''}.</td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={r.id} data-jti={r.jti}>
                  <td>{fmtDate(r.issuedAt)}</td>
                  <td>{r.nheIdentifier}</td>
                  <td>
                    <code>{r.userId}</code>
                  </td>
                  <td>{r.clientId}</td>
                  <td>{r.resourceServer}</td>
                  <td>{r.scopes.join(' ')}</td>
                  <td>{r.ttl} s</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <div className="actions">
        <button type="button" onClick={() => void load(applied)}>
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
