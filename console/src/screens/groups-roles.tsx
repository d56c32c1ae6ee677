/**
 * Groups (list with name prefix search, create, detail: name, members, roles) and roles (list filtered by resource
 * server, create, detail: name and permissions). Each detail saves a PATCH of what changed; removals and deletions
 * ask first.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  ConfirmButton,
  EditList,
  EditText,
  ProblemBox,
  ResourceList,
  SaveBar,
  detailHref,
  useDetailRoute,
  useEditor,
  useFocusOnOpen,
  useLimits,
  type PageQuery,
} from '../resource-ui';
import { DeleteButton } from '../form-fields';
import { Field, ScopedButton, splitList, useAction, useConsole } from '../ui';
import { RoleAssignments, useRoles } from './assignments';

type Group = Schemas['Group'];
type Role = Schemas['Role'];
type User = Schemas['User'];

export function GroupsScreen() {
  const createLimits = useLimits('createGroup');
  const { api, tenantId } = useConsole();
  const [selected, go] = useDetailRoute('groups');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const roles = useRoles();
  const create = useAction();
  const [name, setName] = useState('');
  const [done, setDone] = useState('');
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/groups', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { namePrefix: q.search } : {}),
            },
          },
        }),
      ),
    [api, tenantId],
  );
  const roleName = (id: string) => roles.find((r) => r.id === id)?.name ?? id;
  return (
    <section>
      {selected ? (
        <GroupDetail
          key={selected}
          groupId={selected}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <h2>All groups</h2>
      <ResourceList<Group>
        label="Groups"
        searchLabel="Name starts with"
        load={load}
        reloadKey={reload}
        rowKey={(g) => g.id}
        rowAttrs={(g) => ({ 'data-group': g.name })}
        columns={[
          {
            header: 'Name',
            sortValue: (g) => g.name.toLowerCase(),
            render: (g) => <a href={detailHref('groups', g.id)}>{g.name}</a>,
          },
          { header: 'Id', render: (g) => <code>{g.id}</code> },
          { header: 'Roles', render: (g) => g.roleIds.map(roleName).join(', ') || '—' },
          { header: 'Delete', render: (g) => <DeleteGroup group={g} onDeleted={bump} /> },
        ]}
      />
      <form
        className="card"
        aria-label="Create a group"
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
          void create
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/groups', { params: { path: tp(tenantId) }, body: { name } }),
              ),
            )
            .then((g) => {
              if (g) {
                setName('');
                setDone(`Created group ${g.name}; it is open above.`);
                bump();
                go(g.id);
              }
            });
        }}
      >
        <h2>Create a group</h2>
        <EditText
          limits={createLimits('name')}
          label="Group name"
          name="body.name"
          problem={create.problem}
          value={name}
          onChange={setName}
          required
        />
        <ProblemBox problem={create.problem} shownFields={['body.name']} />
        <ScopedButton scope="auth.groups.create" type="submit" busy={create.busy}>
          Create group
        </ScopedButton>
        <p role="status">{done}</p>
      </form>
    </section>
  );
}

function DeleteGroup(props: { group: Group; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.groups.delete"
      kind="group"
      name={props.group.name}
      label={props.label}
      consequence="Its members lose the roles it gives, and the delegation policies that target it are deleted (their tokens revoked)."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/groups/{groupId}', {
            params: { path: { ...tp(tenantId), groupId: props.group.id } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

const groupDraft = (g: Group) => ({ name: g.name });

function GroupDetail(props: { groupId: string; onChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId, can } = useConsole();
  const [group, setGroup] = useState<Group | undefined>();
  const [members, setMembers] = useState<User[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  const [choice, setChoice] = useState('');
  const [note, setNote] = useState('');
  const get = useAction();
  const add = useAction();
  const path = { ...tp(tenantId), groupId: props.groupId };
  const reload = useCallback(async () => {
    const p = { ...tp(tenantId), groupId: props.groupId };
    const g = await get.run(() =>
      call(api.GET('/auth/admin/tenants/{tenantId}/groups/{groupId}', { params: { path: p } })),
    );
    if (g) setGroup(g);
    const m = await get.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/groups/{groupId}/members', {
          params: { path: p, query: { limit: 100 } },
        }),
      ),
    );
    if (m) setMembers(m.items);
  }, [api, tenantId, props.groupId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
    if (can('auth.users.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setUsers(p.items),
        () => undefined,
      );
  }, [reload, api, tenantId, can]);
  const limits = useLimits('updateGroup');
  const ed = useEditor<Group, { name: string }>({
    item: group,
    toDraft: groupDraft,
    what: (g) => `group ${g.name}`,
    labels: { name: 'name' },
    save: (patch) =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}/groups/{groupId}', { params: { path }, body: patch })),
    onSaved: (g) => {
      setGroup(g);
      props.onChanged();
    },
  });
  const changed = (m: string) => {
    setNote(m);
    void reload();
    props.onChanged();
  };
  return (
    <article className="card detail" aria-labelledby="group-detail-heading">
      <p>
        <a href="#/groups">← All groups</a>
      </p>
      <h2 id="group-detail-heading" tabIndex={-1} ref={heading}>
        Group {group?.name ?? props.groupId}
      </h2>
      <ProblemBox problem={get.problem} />
      {group && ed.draft ? (
        <>
          <form
            aria-label={`Edit group ${group.name}`}
            onSubmit={(e) => {
              e.preventDefault();
              void ed.save();
            }}
          >
            <EditText
              label="Name"
              name="body.name"
              problem={ed.problem}
              limits={limits('name')}
              value={ed.draft.name}
              required
              onChange={(v) => ed.set('name', v)}
            />
            <ProblemBox problem={ed.problem} shownFields={['body.name']} />
            <SaveBar scope="auth.groups.update" editor={ed} what={`group ${group.name}`} />
          </form>
          <p role="status">{note}</p>
          <section className="card" aria-labelledby="members-heading">
            <h2 id="members-heading">Members</h2>
            {members.length === 0 ? <p>No member.</p> : null}
            <ul className="plain assignments">
              {members.map((u) => (
                <li key={u.id} data-member={u.username}>
                  <a href={detailHref('users', u.id)}>{u.username}</a>{' '}
                  <ConfirmButton
                    scope="auth.groups.update"
                    className="secondary"
                    label={`Remove ${u.username}`}
                    question={`Remove ${u.username} from the group ${group.name}?`}
                    consequence="They lose the roles the group gives."
                    confirm={`Really remove ${u.username}`}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}', {
                          params: { path: { ...path, userId: u.id } },
                        }),
                      );
                      changed(`Removed ${u.username} from the group ${group.name}.`);
                    }}
                  />
                </li>
              ))}
            </ul>
            <form
              aria-label={`Add a member to ${group.name}`}
              onSubmit={(e) => {
                e.preventDefault();
                const u = users.find((x) => x.id === choice);
                void add
                  .run(async () => {
                    await call(
                      api.PUT('/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}', {
                        params: { path: { ...path, userId: choice } },
                      }),
                    );
                    return true;
                  })
                  .then((ok) => {
                    if (ok) {
                      setChoice('');
                      changed(`Added ${u?.username ?? choice} to the group ${group.name}.`);
                    }
                  });
              }}
            >
              <Field label="User to add" name="params.userId" problem={add.problem}>
                {({ id }) => (
                  <select id={id} value={choice} required onChange={(e) => setChoice(e.target.value)}>
                    <option value="">Choose a user</option>
                    {users
                      .filter((u) => !members.some((m) => m.id === u.id))
                      .map((u) => (
                        <option key={u.id} value={u.id}>
                          {u.username}
                        </option>
                      ))}
                  </select>
                )}
              </Field>
              <ProblemBox problem={add.problem} shownFields={[]} />
              <ScopedButton scope="auth.groups.update" type="submit" busy={add.busy}>
                Add member
              </ScopedButton>
            </form>
          </section>
          <RoleAssignments
            who={`group ${group.name}`}
            roleIds={group.roleIds}
            add={(roleId) =>
              call(
                api.PUT('/auth/admin/tenants/{tenantId}/groups/{groupId}/roles/{roleId}', {
                  params: { path: { ...path, roleId } },
                }),
              )
            }
            remove={(roleId) =>
              call(
                api.DELETE('/auth/admin/tenants/{tenantId}/groups/{groupId}/roles/{roleId}', {
                  params: { path: { ...path, roleId } },
                }),
              )
            }
            changed={changed}
          />
          <div className="danger-zone">
            <DeleteGroup group={group} label="Delete this group" onDeleted={props.onDeleted} />
          </div>
        </>
      ) : null}
    </article>
  );
}

export function RolesScreen() {
  const createLimits = useLimits('createRole');
  const { api, tenantId, can } = useConsole();
  const [selected, go] = useDetailRoute('roles');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const [servers, setServers] = useState<Schemas['ResourceServer'][]>([]);
  const [rsFilter, setRsFilter] = useState('');
  const create = useAction();
  const empty = { name: '', resourceServer: '', permissions: '' };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/roles', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(rsFilter ? { resourceServer: rsFilter } : {}),
            },
          },
        }),
      ),
    [api, tenantId, rsFilter],
  );
  useEffect(() => {
    if (can('auth.resource-servers.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/resource-servers', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ).then(
        (p) => setServers(p.items),
        () => undefined,
      );
  }, [api, tenantId, can]);
  const rsOptions = [
    { value: 'urn:idp:management', label: 'urn:idp:management (the management API)' },
    ...servers.map((s) => ({ value: s.identifier, label: `${s.identifier} (${s.name})` })),
  ];
  return (
    <section>
      {selected ? (
        <RoleDetail
          key={selected}
          roleId={selected}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <h2>All roles</h2>
      <ResourceList<Role>
        label="Roles"
        load={load}
        reloadKey={reload}
        rowKey={(r) => r.id}
        rowAttrs={(r) => ({ 'data-role': r.name })}
        filters={
          <span className="field">
            <label htmlFor="roles-rs">Resource server</label>
            <select id="roles-rs" value={rsFilter} onChange={(e) => setRsFilter(e.target.value)}>
              <option value="">any</option>
              {rsOptions.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </span>
        }
        columns={[
          {
            header: 'Name',
            sortValue: (r) => r.name.toLowerCase(),
            render: (r) => <a href={detailHref('roles', r.id)}>{r.name}</a>,
          },
          {
            header: 'Resource server',
            sortValue: (r) => r.resourceServer,
            render: (r) => <code>{r.resourceServer}</code>,
          },
          { header: 'Permissions', render: (r) => r.permissions.join(' ') },
          { header: 'Delete', render: (r) => <DeleteRole role={r} onDeleted={bump} /> },
        ]}
      />
      <form
        className="card"
        aria-label="Create a role"
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
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
              if (r) {
                setF(empty);
                setDone(`Created role ${r.name}; it is open above.`);
                bump();
                go(r.id);
              }
            });
        }}
      >
        <h2>Create a role</h2>
        <EditText
          limits={createLimits('name')}
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
              {rsOptions.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <EditText
          limits={createLimits('permissions')}
          label="Permissions (space separated scopes)"
          name="body.permissions"
          problem={create.problem}
          value={f.permissions}
          onChange={(v) => setF({ ...f, permissions: v })}
        />
        <ProblemBox problem={create.problem} shownFields={['body.name', 'body.resourceServer', 'body.permissions']} />
        <ScopedButton scope="auth.roles.create" type="submit" busy={create.busy}>
          Create role
        </ScopedButton>
        <p role="status">{done}</p>
      </form>
    </section>
  );
}

function DeleteRole(props: { role: Role; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.roles.delete"
      kind="role"
      name={props.role.name}
      label={props.label}
      consequence="Every user, group and client holding it loses its permissions."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/roles/{roleId}', {
            params: { path: { ...tp(tenantId), roleId: props.role.id } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

const roleDraft = (r: Role) => ({ name: r.name, permissions: r.permissions });

function RoleDetail(props: { roleId: string; onChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [role, setRole] = useState<Role | undefined>();
  const get = useAction();
  const path = { ...tp(tenantId), roleId: props.roleId };
  useEffect(() => {
    void get
      .run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/roles/{roleId}', {
            params: { path: { ...tp(tenantId), roleId: props.roleId } },
          }),
        ),
      )
      .then((r) => {
        if (r) setRole(r);
      });
  }, [api, tenantId, props.roleId]); // eslint-disable-line react-hooks/exhaustive-deps
  const limits = useLimits('updateRole');
  const ed = useEditor<Role, { name: string; permissions: string[] }>({
    item: role,
    toDraft: roleDraft,
    what: (r) => `role ${r.name}`,
    labels: { name: 'name', permissions: 'permissions' },
    save: (patch) =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}/roles/{roleId}', { params: { path }, body: patch })),
    onSaved: (r) => {
      setRole(r);
      props.onChanged();
    },
  });
  return (
    <article className="card detail" aria-labelledby="role-detail-heading">
      <p>
        <a href="#/roles">← All roles</a>
      </p>
      <h2 id="role-detail-heading" tabIndex={-1} ref={heading}>
        Role {role?.name ?? props.roleId}
      </h2>
      <ProblemBox problem={get.problem} />
      {role && ed.draft ? (
        <form
          aria-label={`Edit role ${role.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            void ed.save();
          }}
        >
          <p className="meta">
            On the API <code>{role.resourceServer}</code> (fixed).
          </p>
          <EditText
            label="Name"
            name="body.name"
            problem={ed.problem}
            limits={limits('name')}
            value={ed.draft.name}
            required
            onChange={(v) => ed.set('name', v)}
          />
          <EditList
            label="Permissions (scopes)"
            name="body.permissions"
            problem={ed.problem}
            limits={limits('permissions')}
            value={ed.draft.permissions}
            onChange={(v) => ed.set('permissions', v)}
          />
          <ProblemBox problem={ed.problem} shownFields={['body.name', 'body.permissions']} />
          <SaveBar scope="auth.roles.update" editor={ed} what={`role ${role.name}`} />
          <div className="danger-zone">
            <DeleteRole role={role} label="Delete this role" onDeleted={props.onDeleted} />
          </div>
        </form>
      ) : null}
    </article>
  );
}
