/** Groups (create, add members) and roles (a resource server's permissions). */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { Field, ProblemView, ScopedButton, splitList, TextField, useAction, useConsole } from '../ui';

export function GroupsScreen() {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<Schemas['Group'][]>([]);
  const [users, setUsers] = useState<Schemas['User'][]>([]);
  const list = useAction();
  const create = useAction();
  const member = useAction();
  const [name, setName] = useState('');
  const [m, setM] = useState({ groupId: '', userId: '' });
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(api.GET('/auth/admin/tenants/{tenantId}/groups', { params: { path: tp(tenantId), query: { limit: 200 } } })),
    );
    if (page) setItems(page.items);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    if (can('auth.users.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setUsers(p.items),
        () => undefined,
      );
  }, [load, api, tenantId, can]);
  return (
    <section>
      <ProblemView problem={list.problem} />
      <p role="status">{done}</p>
      <ul className="plain">
        {items.map((g) => (
          <li key={g.id}>
            {g.name} <code>{g.id}</code>
          </li>
        ))}
      </ul>
      <form
        className="card"
        aria-label="Create a group"
        onSubmit={(e) => {
          e.preventDefault();
          void create
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/groups', { params: { path: tp(tenantId) }, body: { name } }),
              ),
            )
            .then((g) => {
              if (g) {
                setName('');
                void load();
              }
            });
        }}
      >
        <h2>Create a group</h2>
        <TextField
          label="Group name"
          name="body.name"
          problem={create.problem}
          value={name}
          onChange={setName}
          required
        />
        <ProblemView problem={create.problem} shownFields={['body.name']} />
        <ScopedButton scope="auth.groups.create" type="submit" busy={create.busy}>
          Create group
        </ScopedButton>
      </form>
      <form
        className="card"
        aria-label="Add a member"
        onSubmit={(e) => {
          e.preventDefault();
          void member.run(async () => {
            await call(
              api.PUT('/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}', {
                params: { path: { ...tp(tenantId), groupId: m.groupId, userId: m.userId } },
              }),
            );
            setDone('Member added.');
            return true;
          });
        }}
      >
        <h2>Add a member</h2>
        <Field label="Group" name="params.groupId" problem={member.problem}>
          {({ id }) => (
            <select id={id} value={m.groupId} onChange={(e) => setM({ ...m, groupId: e.target.value })} required>
              <option value="">Choose a group</option>
              {items.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="User" name="params.userId" problem={member.problem}>
          {({ id }) => (
            <select id={id} value={m.userId} onChange={(e) => setM({ ...m, userId: e.target.value })} required>
              <option value="">Choose a user</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </select>
          )}
        </Field>
        <ProblemView problem={member.problem} />
        <ScopedButton scope="auth.groups.update" type="submit" busy={member.busy}>
          Add member
        </ScopedButton>
      </form>
    </section>
  );
}

export function RolesScreen() {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<Schemas['Role'][]>([]);
  const [servers, setServers] = useState<Schemas['ResourceServer'][]>([]);
  const list = useAction();
  const create = useAction();
  const [f, setF] = useState({ name: '', resourceServer: '', permissions: '' });
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(api.GET('/auth/admin/tenants/{tenantId}/roles', { params: { path: tp(tenantId), query: { limit: 200 } } })),
    );
    if (page) setItems(page.items);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    if (can('auth.resource-servers.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/resource-servers', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ).then(
        (p) => setServers(p.items),
        () => undefined,
      );
  }, [load, api, tenantId, can]);
  return (
    <section>
      <ProblemView problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Roles">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Resource server</th>
              <th scope="col">Permissions</th>
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} data-role={r.name}>
                <td>{r.name}</td>
                <td>
                  <code>{r.resourceServer}</code>
                </td>
                <td>{r.permissions.join(' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form
        className="card"
        aria-label="Create a role"
        onSubmit={(e) => {
          e.preventDefault();
          void create
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/roles', {
                  params: { path: tp(tenantId) },
                  body: { name: f.name, resourceServer: f.resourceServer, permissions: splitList(f.permissions) },
                }),
              ),
            )
            .then((r) => {
              if (r) void load();
            });
        }}
      >
        <h2>Create a role</h2>
        <TextField
          label="Role name"
          name="body.name"
          problem={create.problem}
          value={f.name}
          onChange={(v) => setF({ ...f, name: v })}
          required
        />
        <Field
          label="Resource server"
          name="body.resourceServer"
          problem={create.problem}
          hint="urn:idp:management: a role of administrators (its permissions are management scopes)."
        >
          {({ id, describedBy }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={f.resourceServer}
              onChange={(e) => setF({ ...f, resourceServer: e.target.value })}
              required
            >
              <option value="">Choose an API</option>
              <option value="urn:idp:management">urn:idp:management (the management API)</option>
              {servers.map((s) => (
                <option key={s.id} value={s.identifier}>
                  {s.identifier} ({s.name})
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextField
          label="Permissions (space separated scopes)"
          name="body.permissions"
          problem={create.problem}
          value={f.permissions}
          onChange={(v) => setF({ ...f, permissions: v })}
        />
        <ProblemView problem={create.problem} shownFields={['body.name', 'body.resourceServer', 'body.permissions']} />
        <ScopedButton scope="auth.roles.create" type="submit" busy={create.busy}>
          Create role
        </ScopedButton>
      </form>
    </section>
  );
}
