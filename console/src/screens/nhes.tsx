/** NHE registrations (their count against settings.nhe.maxNhePerTenant) and each NHE's delegation policies. */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { DeleteButton, Field, ProblemView, ScopedButton, splitList, TextField, useAction, useConsole } from '../ui';

type Nhe = Schemas['Nhe'];

export function NhesScreen() {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<Nhe[]>([]);
  const [count, setCount] = useState<number | undefined>();
  const [max, setMax] = useState<number | undefined>();
  const list = useAction();
  const create = useAction();
  const toggle = useAction();
  const [f, setF] = useState({ identifier: '', type: 'llm-assistive', operator: '', scopes: '', lifetime: '' });
  const [selected, setSelected] = useState('');
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ),
    );
    if (page) setItems(page.items);
    const c = await call(
      api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/count', { params: { path: tp(tenantId) } }),
    ).catch(() => undefined);
    if (c) setCount(c.count);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    void call(api.GET('/auth/admin/tenants/{tenantId}', { params: { path: tp(tenantId) } })).then(
      (t) => setMax(t.settings.nhe.maxNhePerTenant),
      () => undefined,
    );
  }, [load, api, tenantId, can]);
  const onCreate = async () => {
    const n = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/non-human-entities', {
          params: { path: tp(tenantId) },
          body: {
            identifier: f.identifier,
            type: f.type,
            operator: f.operator,
            allowedScopes: splitList(f.scopes),
            ...(f.lifetime ? { maxTokenLifetime: Number(f.lifetime) } : {}),
          },
        }),
      ),
    );
    if (n) {
      setSelected(n.id);
      void load();
    }
  };
  return (
    <section>
      <p className="quota" data-testid="nhe-count">
        {count ?? '…'} of {max ?? '…'} NHE registrations used (settings.nhe.maxNhePerTenant)
      </p>
      {count !== undefined && max !== undefined ? (
        <progress max={max || 1} value={count} aria-label="NHE registrations used" />
      ) : null}
      <ProblemView problem={list.problem} />
      <ProblemView problem={toggle.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="NHE registrations">
        <table>
          <thead>
            <tr>
              <th scope="col">Identifier</th>
              <th scope="col">Type</th>
              <th scope="col">Operator</th>
              <th scope="col">Allowed scopes</th>
              <th scope="col">Max lifetime</th>
              <th scope="col">Policies</th>
              <th scope="col">Enabled</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((n) => (
              <tr key={n.id} data-nhe={n.identifier}>
                <td>
                  <code>{n.identifier}</code>
                  {n.enabled ? '' : ' (disabled)'}
                </td>
                <td>{n.type}</td>
                <td>{n.operator}</td>
                <td>{n.allowedScopes.join(' ')}</td>
                <td>{n.maxTokenLifetime} s</td>
                <td>
                  <button type="button" onClick={() => setSelected(n.id)} aria-pressed={selected === n.id}>
                    Policies of {n.identifier}
                  </button>
                </td>
                <td>
                  <ScopedButton
                    scope="auth.nhe.update"
                    onClick={() =>
                      void toggle.run(async () => {
                        await call(
                          api.PATCH('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
                            params: { path: { ...tp(tenantId), nheId: n.id } },
                            body: { enabled: !n.enabled },
                          }),
                        );
                        await load();
                      })
                    }
                  >
                    {n.enabled ? `Disable ${n.identifier}` : `Enable ${n.identifier}`}
                  </ScopedButton>
                </td>
                <td>
                  <DeleteButton
                    scope="auth.nhe.delete"
                    what={n.identifier}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
                          params: { path: { ...tp(tenantId), nheId: n.id } },
                        }),
                      );
                      if (selected === n.id) setSelected('');
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        className="card"
        aria-label="Register an NHE"
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate();
        }}
      >
        <h2>Register an NHE</h2>
        <TextField
          label="Identifier"
          name="body.identifier"
          problem={create.problem}
          value={f.identifier}
          onChange={(v) => setF({ ...f, identifier: v })}
          required
          hint="Letters, digits, dot, underscore, hyphen; tokens name the NHE act.sub = nhe:<identifier>."
        />
        <Field
          label="Type"
          name="body.type"
          problem={create.problem}
          hint="One of the tenant's settings.nhe.allowedNheTypes."
        >
          {({ id, describedBy }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={f.type}
              onChange={(e) => setF({ ...f, type: e.target.value })}
            >
              <option>llm-assistive</option>
              <option>llm-autonomous</option>
              <option>automated-pipeline</option>
            </select>
          )}
        </Field>
        <TextField
          label="Operator"
          name="body.operator"
          problem={create.problem}
          value={f.operator}
          onChange={(v) => setF({ ...f, operator: v })}
          required
        />
        <TextField
          label="Allowed scopes (space separated)"
          name="body.allowedScopes"
          problem={create.problem}
          value={f.scopes}
          onChange={(v) => setF({ ...f, scopes: v })}
        />
        <TextField
          label="Max token lifetime (seconds; empty: the tenant default)"
          type="number"
          name="body.maxTokenLifetime"
          problem={create.problem}
          value={f.lifetime}
          onChange={(v) => setF({ ...f, lifetime: v })}
          hint="At most the tenant's settings.nhe.hardMaxTokenLifetime (refused above it)."
        />
        <ProblemView
          problem={create.problem}
          shownFields={['body.identifier', 'body.type', 'body.operator', 'body.allowedScopes', 'body.maxTokenLifetime']}
        />
        <ScopedButton scope="auth.nhe.create" type="submit" busy={create.busy}>
          Register NHE
        </ScopedButton>
      </form>
      {selected ? <Policies nhe={items.find((n) => n.id === selected)} nheId={selected} /> : null}
    </section>
  );
}

function Policies(props: { nhe: Nhe | undefined; nheId: string }) {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<Schemas['DelegationPolicy'][]>([]);
  const [users, setUsers] = useState<Schemas['User'][]>([]);
  const [groups, setGroups] = useState<Schemas['Group'][]>([]);
  const list = useAction();
  const create = useAction();
  const [f, setF] = useState({ target: '', scopes: '', lifetime: '' });
  const path = { ...tp(tenantId), nheId: props.nheId };
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies', {
          params: { path: { ...tp(tenantId), nheId: props.nheId }, query: { limit: 100 } },
        }),
      ),
    );
    if (page) setItems(page.items);
  }, [api, tenantId, props.nheId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    if (can('auth.users.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setUsers(p.items),
        () => undefined,
      );
    if (can('auth.groups.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/groups', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setGroups(p.items),
        () => undefined,
      );
  }, [load, api, tenantId, can]);
  const targetName = (t: { type: string; id: string }) =>
    (t.type === 'user' ? users.find((u) => u.id === t.id)?.username : groups.find((g) => g.id === t.id)?.name) ?? t.id;
  return (
    <section className="card" aria-labelledby="policies-heading">
      <h2 id="policies-heading">Delegation policies of {props.nhe?.identifier ?? props.nheId}</h2>
      <ProblemView problem={list.problem} />
      <ul className="plain" data-testid="policies">
        {items.length === 0 ? <li>No policy: this NHE may act for nobody.</li> : null}
        {items.map((p) => (
          <li key={p.id}>
            For {p.target.type} <strong>{targetName(p.target)}</strong>: {p.allowedScopes.join(' ')}
            {p.maxTokenLifetime ? `, at most ${p.maxTokenLifetime} s` : ''}{' '}
            <DeleteButton
              scope="auth.nhe.policies.delete"
              what={`the policy for ${targetName(p.target)}`}
              onConfirm={async () => {
                await call(
                  api.DELETE(
                    '/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies/{policyId}',
                    { params: { path: { ...path, policyId: p.id } } },
                  ),
                );
                await load();
              }}
            />
          </li>
        ))}
      </ul>
      <form
        aria-label="Create a delegation policy"
        onSubmit={(e) => {
          e.preventDefault();
          const [type, id] = f.target.split(':') as ['user' | 'group', string];
          void create
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies', {
                  params: { path },
                  body: {
                    target: { type, id },
                    allowedScopes: splitList(f.scopes),
                    ...(f.lifetime ? { maxTokenLifetime: Number(f.lifetime) } : {}),
                  },
                }),
              ),
            )
            .then((p) => {
              if (p) void load();
            });
        }}
      >
        <Field label="On behalf of" name="body.target" problem={create.problem}>
          {({ id }) => (
            <select id={id} value={f.target} onChange={(e) => setF({ ...f, target: e.target.value })} required>
              <option value="">Choose a user or group</option>
              {users.map((u) => (
                <option key={u.id} value={`user:${u.id}`}>
                  user {u.username}
                </option>
              ))}
              {groups.map((g) => (
                <option key={g.id} value={`group:${g.id}`}>
                  group {g.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextField
          label="Allowed scopes (space separated)"
          name="body.allowedScopes"
          problem={create.problem}
          value={f.scopes}
          onChange={(v) => setF({ ...f, scopes: v })}
        />
        <TextField
          label="Max token lifetime (seconds, optional)"
          type="number"
          name="body.maxTokenLifetime"
          problem={create.problem}
          value={f.lifetime}
          onChange={(v) => setF({ ...f, lifetime: v })}
        />
        <ProblemView
          problem={create.problem}
          shownFields={['body.target', 'body.allowedScopes', 'body.maxTokenLifetime']}
        />
        <ScopedButton scope="auth.nhe.policies.create" type="submit" busy={create.busy}>
          Create policy
        </ScopedButton>
      </form>
    </section>
  );
}
