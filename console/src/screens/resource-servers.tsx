/** Resource servers (APIs): list and create, with their scopes, token lifetime and NHE settings. */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  CheckField,
  DeleteButton,
  ProblemView,
  ScopedButton,
  splitList,
  TextField,
  useAction,
  useConsole,
} from '../ui';

type Rs = Schemas['ResourceServer'];

export function ResourceServersScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Rs[]>([]);
  const list = useAction();
  const create = useAction();
  const [f, setF] = useState({ name: '', identifier: '', scopes: '', lifetime: '3600', accept: true, require: false });
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/resource-servers', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ),
    );
    if (page) setItems(page.items);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
  }, [load]);
  const onCreate = async () => {
    const rs = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/resource-servers', {
          params: { path: tp(tenantId) },
          body: {
            name: f.name,
            identifier: f.identifier,
            scopes: splitList(f.scopes),
            config: {
              accessToken: { lifetime: Number(f.lifetime) },
              nhe: { acceptDelegationTokens: f.accept, requireDelegationTokens: f.require },
            },
          },
        }),
      ),
    );
    if (rs) void load();
  };
  return (
    <section>
      <ProblemView problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Resource servers">
        <table>
          <thead>
            <tr>
              <th scope="col">Identifier (audience)</th>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
              <th scope="col">Token lifetime</th>
              <th scope="col">NHE tokens</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} data-rs={r.identifier}>
                <td>
                  <code>{r.identifier}</code>
                </td>
                <td>{r.name}</td>
                <td>{r.scopes.join(' ')}</td>
                <td>{r.config.accessToken.lifetime} s</td>
                <td>
                  {r.config.nhe.requireDelegationTokens
                    ? 'only'
                    : r.config.nhe.acceptDelegationTokens
                      ? 'accepted'
                      : 'refused'}
                </td>
                <td>
                  <DeleteButton
                    scope="auth.resource-servers.delete"
                    what={r.name}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/resource-servers/{resourceServerId}', {
                          params: { path: { ...tp(tenantId), resourceServerId: r.id } },
                        }),
                      );
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
        aria-label="Create a resource server"
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate();
        }}
      >
        <h2>Create a resource server</h2>
        <TextField
          label="Name"
          name="body.name"
          problem={create.problem}
          value={f.name}
          onChange={(v) => setF({ ...f, name: v })}
          required
        />
        <TextField
          label="Identifier (the token audience, e.g. https://api.example.com)"
          name="body.identifier"
          problem={create.problem}
          value={f.identifier}
          onChange={(v) => setF({ ...f, identifier: v })}
          required
        />
        <TextField
          label="Scopes (space separated)"
          name="body.scopes"
          problem={create.problem}
          value={f.scopes}
          onChange={(v) => setF({ ...f, scopes: v })}
        />
        <TextField
          label="Access token lifetime (seconds)"
          type="number"
          name="body.config.accessToken.lifetime"
          problem={create.problem}
          value={f.lifetime}
          onChange={(v) => setF({ ...f, lifetime: v })}
          hint="Ordinary tokens live this long; an NHE token takes it as one term of its lifetime, never below 60 s."
        />
        <CheckField
          label="Accept NHE delegation tokens"
          name="body.config.nhe.acceptDelegationTokens"
          problem={create.problem}
          checked={f.accept}
          onChange={(v) => setF({ ...f, accept: v })}
        />
        <CheckField
          label="Require NHE delegation tokens (no ordinary tokens)"
          name="body.config.nhe.requireDelegationTokens"
          problem={create.problem}
          checked={f.require}
          onChange={(v) => setF({ ...f, require: v })}
        />
        <ProblemView
          problem={create.problem}
          shownFields={['body.name', 'body.identifier', 'body.scopes', 'body.config']}
        />
        <ScopedButton scope="auth.resource-servers.create" type="submit" busy={create.busy}>
          Create resource server
        </ScopedButton>
      </form>
    </section>
  );
}
