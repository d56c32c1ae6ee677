/**
 * Users: the list (username prefix search, enabled filter, cursor paging), create (then the new user opens), the
 * role assignment form, linked upstream identities, and the detail page: username and profile claims saved as a PATCH
 * of what changed; the enabled status with its own Disable/Enable action; a password set by the administrator or a
 * one-time reset link (shown once); TOTP enrol and reset; roles and groups; the user's sign-in sessions (end one, or
 * sign out everywhere) and remembered consents (withdraw one).
 */
import { useCallback, useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { call, tp, type Schemas } from '../api';
import {
  ConfirmButton,
  EditJson,
  EditList,
  EditText,
  ProblemBox,
  ResourceList,
  SaveBar,
  ShownOnce,
  StatusBadge,
  detailHref,
  useDetailRoute,
  useEditor,
  useFocusOnOpen,
  useLimits,
  type PageQuery,
} from '../resource-ui';
import { bindFields, CreateForm, DeleteButton } from '../form-fields';
import { Field, ProblemView, ScopedButton, TextField, fmtDate, useAction, useConsole } from '../ui';
import { RoleAssignments, useRoles } from './assignments';
import { UserPasskeys } from './user-passkeys';

type User = Schemas['User'];
export function UsersScreen() {
  const { api, tenantId } = useConsole();
  const roles = useRoles();
  const [selected, go] = useDetailRoute('users');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const [enabled, setEnabled] = useState<'' | 'true' | 'false'>('');
  const [users, setUsers] = useState<User[]>([]);
  const assign = useAction();
  const totp = useAction();
  const [assignTo, setAssignTo] = useState({ userId: '', roleId: '' });
  const [qr, setQr] = useState<Qr | undefined>();
  const [done, setDone] = useState('');
  /** The user whose linked upstream identities are shown. */
  const [linksOf, setLinksOf] = useState('');

  const load = useCallback(
    async (q: PageQuery) => {
      const page = await call(
        api.GET('/auth/admin/tenants/{tenantId}/users', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { usernamePrefix: q.search } : {}),
              ...(enabled ? { enabled } : {}),
            },
          },
        }),
      );
      setUsers(page.items);
      return page;
    },
    [api, tenantId, enabled],
  );
  const onAssign = async () => {
    const ok = await assign.run(async () => {
      await call(
        api.PUT('/auth/admin/tenants/{tenantId}/users/{userId}/roles/{roleId}', {
          params: { path: { ...tp(tenantId), userId: assignTo.userId, roleId: assignTo.roleId } },
        }),
      );
      return true;
    });
    if (ok) {
      const u = users.find((x) => x.id === assignTo.userId)?.username ?? assignTo.userId;
      setDone(`Assigned the role ${roleName(assignTo.roleId)} to ${u}.`);
      bump();
    }
  };
  const onTotp = async (u: User) => {
    setQr(undefined);
    const q = await totp.run(() => enrolTotp(api, tenantId, u));
    if (q) {
      setQr(q);
      bump();
    }
  };
  const roleName = (id: string) => roles.find((r) => r.id === id)?.name ?? id;

  return (
    <section>
      {selected ? (
        <UserDetail
          key={selected}
          userId={selected}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <p role="status">{done}</p>
      {qr ? <TotpCard qr={qr} /> : null}
      <ProblemBox problem={totp.problem} />
      <h2>All users</h2>
      <ResourceList<User>
        label="Users"
        searchLabel="Username starts with"
        load={load}
        reloadKey={reload}
        rowKey={(u) => u.id}
        rowAttrs={(u) => ({ 'data-user': u.username })}
        filters={
          <span className="field">
            <label htmlFor="users-enabled">Status</label>
            <select
              id="users-enabled"
              value={enabled}
              onChange={(e) => setEnabled(e.target.value as '' | 'true' | 'false')}
            >
              <option value="">any</option>
              <option value="true">enabled</option>
              <option value="false">disabled</option>
            </select>
          </span>
        }
        columns={[
          {
            header: 'Username',
            sortValue: (u) => u.username.toLowerCase(),
            render: (u) => <a href={detailHref('users', u.id)}>{u.username}</a>,
          },
          { header: 'Id', render: (u) => <code>{u.id}</code> },
          {
            header: 'Status',
            sortValue: (u) => Number(u.enabled),
            render: (u) => (
              <>
                <StatusBadge on={u.enabled} />
                {u.managedBy === 'scim' ? (
                  <span className="badge" data-managed-by="scim" title="Provisioned by the directory (SCIM)">
                    Directory
                  </span>
                ) : null}
              </>
            ),
          },
          { header: 'Roles', render: (u) => u.roleIds.map(roleName).join(', ') || '—' },
          {
            header: 'TOTP',
            sortValue: (u) => Number(u.totpEnrolled),
            render: (u) => (
              <>
                <span className="status-text">{u.totpEnrolled ? 'enrolled' : 'not enrolled'}</span>{' '}
                <ScopedButton scope="auth.users.update" onClick={() => void onTotp(u)}>
                  {u.totpEnrolled ? 'Re-enrol' : 'Enrol'} TOTP for {u.username}
                </ScopedButton>
              </>
            ),
          },
          {
            header: 'Linked identities',
            render: (u) => (
              <button type="button" aria-pressed={linksOf === u.id} onClick={() => setLinksOf(u.id)}>
                Linked identities of {u.username}
              </button>
            ),
          },
          {
            header: 'Delete',
            render: (u) => (
              <DeleteUser
                user={u}
                onDeleted={() => {
                  if (linksOf === u.id) setLinksOf('');
                  if (selected === u.id) go(undefined);
                  bump();
                }}
              />
            ),
          },
        ]}
      />
      {linksOf ? (
        <LinkedIdentities
          key={linksOf}
          userId={linksOf}
          username={users.find((u) => u.id === linksOf)?.username ?? linksOf}
        />
      ) : null}
      <CreateUser
        onCreated={(u) => {
          bump();
          go(u.id);
        }}
      />
      <CreateForm label="Assign a role" onSubmit={() => void onAssign()}>
        <Field label="User" name="params.userId" problem={assign.problem}>
          {({ id }) => (
            <select
              id={id}
              value={assignTo.userId}
              onChange={(e) => setAssignTo({ ...assignTo, userId: e.target.value })}
              required
            >
              <option value="">Choose a user</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Role" name="params.roleId" problem={assign.problem}>
          {({ id }) => (
            <select
              id={id}
              value={assignTo.roleId}
              onChange={(e) => setAssignTo({ ...assignTo, roleId: e.target.value })}
              required
            >
              <option value="">Choose a role</option>
              {roles.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.name} ({r.resourceServer})
                </option>
              ))}
            </select>
          )}
        </Field>
        <ProblemBox problem={assign.problem} shownFields={[]} />
        <ScopedButton scope="auth.roles.assign" type="submit" busy={assign.busy}>
          Assign role
        </ScopedButton>
      </CreateForm>
    </section>
  );
}

interface Qr {
  username: string;
  dataUrl: string;
  secret: string;
}

async function enrolTotp(api: ReturnType<typeof useConsole>['api'], tenantId: number, u: User): Promise<Qr> {
  const e = await call(
    api.POST('/auth/admin/tenants/{tenantId}/users/{userId}/totp', {
      params: { path: { ...tp(tenantId), userId: u.id } },
      body: {},
    }),
  );
  return {
    username: u.username,
    dataUrl: await QRCode.toDataURL(e.otpauthUri, { margin: 1, width: 220 }),
    secret: e.secret,
  };
}

function TotpCard(props: { qr: Qr }) {
  const { qr } = props;
  return (
    <div className="card totp" data-testid="totp">
      <h2>TOTP enrolment of {qr.username}</h2>
      <p>Scan with an authenticator app. The secret is shown once; it is stored sealed.</p>
      <img src={qr.dataUrl} width={220} height={220} alt={`QR code of the TOTP secret of ${qr.username}`} />
      <p>
        Secret: <code>{qr.secret}</code>
      </p>
    </div>
  );
}

function DeleteUser(props: { user: User; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.users.delete"
      kind="user"
      name={props.user.username}
      label={props.label}
      consequence="Their account, sessions and consents go, and the NHE tokens issued on their behalf are revoked. This cannot be undone."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}', {
            params: { path: { ...tp(tenantId), userId: props.user.id } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

function CreateUser(props: { onCreated: (u: User) => void }) {
  const createLimits = useLimits('createUser');
  const { api, tenantId } = useConsole();
  const create = useAction();
  const empty = { username: '', password: '', name: '' };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  const onCreate = async () => {
    setDone('');
    const u = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/users', {
          params: { path: tp(tenantId) },
          body: {
            username: f.username,
            ...(f.password ? { password: f.password } : {}),
            ...(f.name ? { claims: { name: f.name } } : {}),
          },
        }),
      ),
    );
    if (u) {
      setF(empty);
      setDone(`Created user ${u.username}; it is open above.`);
      props.onCreated(u);
    }
  };
  return (
    <CreateForm label="Create a user" onSubmit={() => void onCreate()}>
      <EditText
        limits={createLimits('username')}
        label="Username"
        name="body.username"
        problem={create.problem}
        value={f.username}
        onChange={(v) => setF({ ...f, username: v })}
        required
      />
      <EditText
        limits={createLimits('password')}
        label="Password"
        type="password"
        autoComplete="new-password"
        name="body.password"
        problem={create.problem}
        value={f.password}
        onChange={(v) => setF({ ...f, password: v })}
      />
      <EditText
        limits={createLimits('claims')}
        label="Display name"
        name="body.claims"
        problem={create.problem}
        value={f.name}
        onChange={(v) => setF({ ...f, name: v })}
      />
      <ProblemBox problem={create.problem} shownFields={['body.username', 'body.password', 'body.claims']} />
      <ScopedButton scope="auth.users.create" type="submit" busy={create.busy}>
        Create user
      </ScopedButton>
      <p role="status">{done}</p>
    </CreateForm>
  );
}

interface UserDraft extends Record<string, unknown> {
  username: string;
  claims: unknown;
  customClaims: unknown;
  externalGroups: string[];
  identityProvider: string | undefined;
  linkedIdentity: unknown;
  providerClaims: unknown;
  federatedIdentities: unknown;
  ga4ghVisas: unknown;
}

const toDraft = (u: User): UserDraft => ({
  username: u.username,
  claims: u.claims,
  customClaims: u.customClaims,
  externalGroups: u.externalGroups ?? [],
  identityProvider: u.identityProvider,
  linkedIdentity: u.linkedIdentity,
  providerClaims: u.providerClaims,
  federatedIdentities: u.federatedIdentities,
  ga4ghVisas: u.ga4ghVisas,
});

const LABELS: Record<string, string> = {
  username: 'username',
  claims: 'claims',
  customClaims: 'custom claims',
  externalGroups: 'external groups',
  identityProvider: 'identity provider',
  linkedIdentity: 'linked identity',
  providerClaims: 'provider claims',
  federatedIdentities: 'federated identities',
  ga4ghVisas: 'GA4GH visas',
};

function UserDetail(props: { userId: string; onChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [user, setUser] = useState<User | undefined>();
  const [note, setNote] = useState('');
  const [qr, setQr] = useState<Qr | undefined>();
  const get = useAction();
  const act = useAction();
  const path = { ...tp(tenantId), userId: props.userId };
  const reload = useCallback(async () => {
    const u = await get.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/users/{userId}', {
          params: { path: { ...tp(tenantId), userId: props.userId } },
        }),
      ),
    );
    if (u) setUser(u);
  }, [api, tenantId, props.userId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
  }, [reload]);
  const limits = useLimits('updateUser');
  const ed = useEditor<User, UserDraft>({
    item: user,
    toDraft,
    what: (u) => `user ${u.username}`,
    labels: LABELS,
    save: (patch) =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}/users/{userId}', { params: { path }, body: patch as never })),
    onSaved: (u) => {
      setUser(u);
      props.onChanged();
    },
  });
  const setEnabled = async (enabled: boolean) => {
    const u = await act.run(() =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}/users/{userId}', { params: { path }, body: { enabled } })),
    );
    if (u) {
      setUser(u);
      setNote(
        enabled ? `Enabled ${u.username}: they can sign in again.` : `Disabled ${u.username}: they cannot sign in.`,
      );
      props.onChanged();
    }
  };
  const d = ed.draft;
  const p = ed.problem;
  const { field } = bindFields(ed, limits);
  const json = (key: keyof UserDraft & string, label: string, hint?: string) =>
    d ? (
      <EditJson
        key={key}
        label={label}
        name={`body.${key}`}
        problem={p}
        value={d[key]}
        hint={hint}
        onChange={(v) => ed.set(key, v)}
        onInvalid={(why) => ed.jsonInvalid(label, why)}
      />
    ) : null;
  return (
    <article className="card detail" aria-labelledby="user-detail-heading" data-detail-user={user?.username}>
      <p>
        <a href="#/users">← All users</a>
      </p>
      <h2 id="user-detail-heading" tabIndex={-1} ref={heading}>
        User {user?.username ?? props.userId}
      </h2>
      <ProblemBox problem={get.problem} />
      {user && d ? (
        <>
          <div className="meta status-row">
            <span>
              Status: <StatusBadge on={user.enabled} />
            </span>{' '}
            {user.enabled ? (
              <ConfirmButton
                scope="auth.users.update"
                label={`Disable ${user.username}`}
                question={`Disable the user ${user.username}?`}
                consequence="They cannot sign in until enabled again; the NHE tokens issued on their behalf are revoked."
                confirm={`Really disable ${user.username}`}
                onConfirm={() => setEnabled(false)}
              />
            ) : (
              <ScopedButton scope="auth.users.update" busy={act.busy} onClick={() => void setEnabled(true)}>
                Enable {user.username}
              </ScopedButton>
            )}{' '}
            <span>
              Id <code>{user.id}</code> · created {fmtDate(user.createdAt)} · updated {fmtDate(user.updatedAt)}
            </span>
          </div>
          <p role="status" className="saved">
            {note}
          </p>
          <ProblemBox problem={act.problem} />
          <form
            aria-label={`Edit user ${user.username}`}
            onSubmit={(e) => {
              e.preventDefault();
              if (!ed.jsonErrors.length) void ed.save();
            }}
          >
            <EditText
              label="Username"
              {...field('username')}
              required
              // The directory owns it: a change here would be overwritten at its next sync (docs/operators/scim.md).
              disabled={user.managedBy === 'scim'}
              hint={
                user.managedBy === 'scim'
                  ? `Directory-managed (SCIM${user.externalId ? `, external id ${user.externalId}` : ''}): change it in the directory.`
                  : undefined
              }
            />
            {json('claims', 'Claims (name, email, …)', 'JSON object; replaces the claims.')}
            <details>
              <summary>Federation and custom claims</summary>
              {json('customClaims', 'Custom claims (UserInfo custom_claims)')}
              <EditList label="External groups" {...field('externalGroups')} />
              <EditText
                label="Identity provider (identity_provider claim)"
                name="body.identityProvider"
                problem={p}
                limits={limits('identityProvider')}
                value={d.identityProvider ?? ''}
                onChange={(v) => ed.set('identityProvider', v || undefined)}
              />
              {json('linkedIdentity', 'Linked identity ({"provider": …, "subject": …})')}
              {json('providerClaims', 'Provider claims')}
              {json('federatedIdentities', 'Federated identities (JSON array)')}
              {json('ga4ghVisas', 'GA4GH visa assertions (JSON array)')}
            </details>
            <ProblemBox problem={p} shownFields={Object.keys(LABELS).map((k) => `body.${k}`)} />
            <SaveBar scope="auth.users.update" editor={ed} what={`user ${user.username}`} />
          </form>
          <Credentials user={user} onTotp={setQr} onChanged={() => void reload()} />
          {qr ? <TotpCard qr={qr} /> : null}
          <RoleAssignments
            who={`user ${user.username}`}
            roleIds={user.roleIds}
            add={(roleId) =>
              call(
                api.PUT('/auth/admin/tenants/{tenantId}/users/{userId}/roles/{roleId}', {
                  params: { path: { ...path, roleId } },
                }),
              )
            }
            remove={(roleId) =>
              call(
                api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/roles/{roleId}', {
                  params: { path: { ...path, roleId } },
                }),
              )
            }
            changed={(m) => {
              setNote(m);
              void reload();
              props.onChanged();
            }}
          />
          <GroupMemberships
            user={user}
            changed={(m) => {
              setNote(m);
              void reload();
            }}
          />
          <Sessions user={user} />
          <UserPasskeys user={user} />
          <Consents user={user} />
          <div className="danger-zone">
            <DeleteUser user={user} label="Delete this user" onDeleted={props.onDeleted} />
          </div>
        </>
      ) : null}
    </article>
  );
}

/** The password (set by the administrator, or a one-time reset link for the person) and TOTP. */
function Credentials(props: { user: User; onTotp: (q: Qr | undefined) => void; onChanged: () => void }) {
  const { api, tenantId } = useConsole();
  const { user } = props;
  const path = { ...tp(tenantId), userId: user.id };
  const pw = useAction();
  const link = useAction();
  const totp = useAction();
  const [password, setPassword] = useState('');
  const [reset, setReset] = useState<{ url: string; expiresAt: string } | undefined>();
  const [note, setNote] = useState('');
  const limits = useLimits('setUserPassword');
  return (
    <section className="card" aria-labelledby="credentials-heading">
      <h2 id="credentials-heading">Password and second factor</h2>
      <p role="status">{note}</p>
      <form
        aria-label={`Set the password of ${user.username}`}
        onSubmit={(e) => {
          e.preventDefault();
          void pw
            .run(async () => {
              await call(
                api.PUT('/auth/admin/tenants/{tenantId}/users/{userId}/password', {
                  params: { path },
                  body: { password },
                }),
              );
              return true;
            })
            .then((ok) => {
              if (ok) {
                setPassword('');
                setNote(`Set a new password for ${user.username}.`);
              }
            });
        }}
      >
        <EditText
          type="password"
          autoComplete="new-password"
          label="New password"
          name="body.password"
          problem={pw.problem}
          limits={limits('password')}
          value={password}
          required
          onChange={setPassword}
        />
        <ProblemBox problem={pw.problem} shownFields={['body.password']} />
        <ScopedButton scope="auth.users.update" type="submit" busy={pw.busy}>
          Set password
        </ScopedButton>
      </form>
      <h3>One-time reset link</h3>
      <p className="hint">
        Give the link to the person out of band. It works once, until it expires, and signs them out everywhere when
        used; a new link replaces the older ones.
      </p>
      <ScopedButton
        scope="auth.users.update"
        busy={link.busy}
        onClick={() =>
          void link
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/users/{userId}/password-reset', {
                  params: { path },
                  body: {},
                }),
              ),
            )
            .then((r) => {
              if (r) {
                setReset({ url: r.url ?? `${window.location.origin}${r.path}`, expiresAt: r.expiresAt });
                setNote(`Made a reset link for ${user.username}, valid until ${fmtDate(r.expiresAt)}.`);
              }
            })
        }
      >
        Make a reset link
      </ScopedButton>
      <ProblemBox problem={link.problem} />
      {reset ? (
        <ShownOnce
          testId="reset-link"
          label="Reset link"
          value={reset.url}
          note={
            <>
              Reset link for {user.username}, shown <strong>once</strong> (only a digest is stored), valid until{' '}
              {fmtDate(reset.expiresAt)}.
            </>
          }
        />
      ) : null}
      <h3>TOTP</h3>
      <p>
        <span className="status-text" data-testid="totp-status">
          {user.totpEnrolled ? 'Enrolled' : 'Not enrolled'}
        </span>
      </p>
      <ScopedButton
        scope="auth.users.update"
        busy={totp.busy}
        onClick={() =>
          void totp
            .run(() => enrolTotp(api, tenantId, user))
            .then((q) => {
              if (q) {
                props.onTotp(q);
                props.onChanged();
              }
            })
        }
      >
        {user.totpEnrolled ? 'Enrol a new TOTP secret' : 'Enrol a TOTP secret'}
      </ScopedButton>{' '}
      {user.totpEnrolled ? (
        <ConfirmButton
          scope="auth.users.update"
          label="Reset TOTP"
          question={`Reset the TOTP of ${user.username}?`}
          consequence="Their authenticator app stops working here; they sign in with the password alone until enrolled again."
          confirm={`Really reset the TOTP of ${user.username}`}
          onConfirm={async () => {
            await call(api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/totp', { params: { path } }));
            props.onTotp(undefined);
            setNote(`Reset the TOTP of ${user.username}.`);
            props.onChanged();
          }}
        />
      ) : null}
      <ProblemBox problem={totp.problem} />
    </section>
  );
}

/** The groups a user belongs to: added from a choice, removed after a confirmation. */
function GroupMemberships(props: { user: User; changed: (m: string) => void }) {
  const { api, tenantId, can } = useConsole();
  const { user } = props;
  const [groups, setGroups] = useState<Schemas['Group'][]>([]);
  const [choice, setChoice] = useState('');
  const act = useAction();
  useEffect(() => {
    if (!can('auth.groups.list')) return;
    void call(
      api.GET('/auth/admin/tenants/{tenantId}/groups', { params: { path: tp(tenantId), query: { limit: 200 } } }),
    ).then(
      (p) => setGroups(p.items),
      () => undefined,
    );
  }, [api, tenantId, can]);
  const name = (id: string) => groups.find((g) => g.id === id)?.name ?? id;
  const memberPath = (groupId: string) => ({ ...tp(tenantId), groupId, userId: user.id });
  return (
    <section className="card" aria-label={`Groups of ${user.username}`}>
      <h2>Groups</h2>
      {user.groupIds.length === 0 ? <p>In no group.</p> : null}
      <ul className="plain assignments">
        {user.groupIds.map((id) => (
          <li key={id}>
            {name(id)}{' '}
            <ConfirmButton
              scope="auth.groups.update"
              label={`Remove from ${name(id)}`}
              question={`Remove ${user.username} from the group ${name(id)}?`}
              consequence="They lose the roles the group gives."
              confirm={`Really remove from ${name(id)}`}
              className="secondary"
              onConfirm={async () => {
                await call(
                  api.DELETE('/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}', {
                    params: { path: memberPath(id) },
                  }),
                );
                props.changed(`Removed ${user.username} from the group ${name(id)}.`);
              }}
            />
          </li>
        ))}
      </ul>
      <form
        aria-label={`Add ${user.username} to a group`}
        onSubmit={(e) => {
          e.preventDefault();
          const id = choice;
          void act
            .run(async () => {
              await call(
                api.PUT('/auth/admin/tenants/{tenantId}/groups/{groupId}/members/{userId}', {
                  params: { path: memberPath(id) },
                }),
              );
              return true;
            })
            .then((ok) => {
              if (ok) {
                setChoice('');
                props.changed(`Added ${user.username} to the group ${name(id)}.`);
              }
            });
        }}
      >
        <div className="field">
          <label htmlFor="add-group">Group to join</label>
          <select id="add-group" value={choice} required onChange={(e) => setChoice(e.target.value)}>
            <option value="">Choose a group</option>
            {groups
              .filter((g) => !user.groupIds.includes(g.id))
              .map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
          </select>
        </div>
        <ProblemBox problem={act.problem} />
        <ScopedButton scope="auth.groups.update" type="submit" busy={act.busy}>
          Add to group
        </ScopedButton>
      </form>
    </section>
  );
}

/** The user's sign-in sessions at the provider: end one, or all ("sign out everywhere"). */
function Sessions(props: { user: User }) {
  const { api, tenantId } = useConsole();
  const { user } = props;
  const path = { ...tp(tenantId), userId: user.id };
  const [items, setItems] = useState<Schemas['UserSession'][]>([]);
  const [note, setNote] = useState('');
  const list = useAction();
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/users/{userId}/sessions', {
          params: { path: { ...tp(tenantId), userId: user.id } },
        }),
      ),
    );
    if (r) setItems(r.items);
  }, [api, tenantId, user.id]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section className="card" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Sign-in sessions</h2>
      <p role="status">{note}</p>
      <ProblemBox problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Sessions of ${user.username}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Signed in</th>
              <th scope="col">Expires</th>
              <th scope="col">Applications</th>
              <th scope="col">Methods</th>
              <th scope="col">End</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={5}>No live session: {user.username} is signed out everywhere.</td>
              </tr>
            ) : null}
            {items.map((s) => (
              <tr key={s.id} data-session={s.id}>
                <td>{fmtDate(s.signedInAt)}</td>
                <td>{fmtDate(s.expiresAt)}</td>
                <td>{s.clients.join(', ') || '—'}</td>
                <td>{(s.amr ?? []).join(', ') || '—'}</td>
                <td>
                  <ConfirmButton
                    scope="auth.users.update"
                    label={`End session signed in ${fmtDate(s.signedInAt)}`}
                    question={`End this session of ${user.username}?`}
                    consequence="The browser that holds it is signed out: the next sign-in asks for the password."
                    confirm="Really end the session"
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/sessions/{sessionId}', {
                          params: { path: { ...path, sessionId: s.id } },
                        }),
                      );
                      setNote(`Ended a session of ${user.username}.`);
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <button type="button" className="secondary" onClick={() => void load()}>
        Refresh sessions
      </button>{' '}
      <ConfirmButton
        scope="auth.users.update"
        label="Sign out everywhere"
        question={`Sign ${user.username} out everywhere?`}
        consequence="Every browser session ends. Tokens already issued stay valid until they expire unless the consents are withdrawn too."
        confirm={`Really sign ${user.username} out everywhere`}
        onConfirm={async () => {
          await call(api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/sessions', { params: { path } }));
          setNote(`Signed ${user.username} out everywhere.`);
          await load();
        }}
      />
    </section>
  );
}

/** The consents the user gave applications: withdraw one (its tokens stop working). */
function Consents(props: { user: User }) {
  const { api, tenantId } = useConsole();
  const { user } = props;
  const path = { ...tp(tenantId), userId: user.id };
  const [items, setItems] = useState<Schemas['UserGrant'][]>([]);
  const [note, setNote] = useState('');
  const list = useAction();
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/users/{userId}/grants', {
          params: { path: { ...tp(tenantId), userId: user.id } },
        }),
      ),
    );
    if (r) setItems(r.items);
  }, [api, tenantId, user.id]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section className="card" aria-labelledby="consents-heading">
      <h2 id="consents-heading">Consents</h2>
      <p role="status">{note}</p>
      <ProblemBox problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Consents of ${user.username}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Application</th>
              <th scope="col">OpenID scopes</th>
              <th scope="col">API scopes</th>
              <th scope="col">Given</th>
              <th scope="col">Withdraw</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={5}>No remembered consent.</td>
              </tr>
            ) : null}
            {items.map((g) => (
              <tr key={g.id} data-grant={g.id}>
                <td>
                  <code>{g.clientId}</code>
                </td>
                <td>{g.scopes.join(' ') || '—'}</td>
                <td>{g.resources.map((r) => `${r.resource}: ${r.scopes.join(' ')}`).join('; ') || '—'}</td>
                <td>{fmtDate(g.createdAt)}</td>
                <td>
                  <ConfirmButton
                    scope="auth.users.update"
                    label={`Withdraw consent to ${g.clientId}`}
                    question={`Withdraw the consent ${user.username} gave ${g.clientId}?`}
                    consequence="The next authorization asks again, and the tokens issued under this consent stop working."
                    confirm="Really withdraw"
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/grants/{grantId}', {
                          params: { path: { ...path, grantId: g.id } },
                        }),
                      );
                      setNote(`Withdrew the consent to ${g.clientId}.`);
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/**
 * A user's links to upstream identities (provider alias, upstream subject). Linking by hand is the administrator
 * vouching that the upstream identity is this person: the provider's subject then signs in as this account.
 */
function LinkedIdentities(props: { userId: string; username: string }) {
  const { api, tenantId, can } = useConsole();
  const [links, setLinks] = useState<Schemas['UpstreamLink'][]>([]);
  const [aliases, setAliases] = useState<string[]>([]);
  const list = useAction();
  const link = useAction();
  const [f, setF] = useState({ provider: '', subject: '' });
  const path = { ...tp(tenantId), userId: props.userId };
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/users/{userId}/upstream-links', {
          params: { path: { ...tp(tenantId), userId: props.userId } },
        }),
      ),
    );
    if (r) setLinks(r.items);
  }, [api, tenantId, props.userId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    // The aliases to choose from, where the token may read the providers; otherwise the alias is typed.
    if (can('auth.tenants.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/upstream-providers', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ).then(
        (p) => setAliases(p.items.map((x) => x.alias)),
        () => undefined,
      );
  }, [load, api, tenantId, can]);
  const perProvider = (provider: string) => links.filter((l) => l.provider === provider).length;
  const linkWords = (provider: string) =>
    perProvider(provider) > 1 ? `the ${perProvider(provider)} links to ${provider}` : `the link to ${provider}`;
  return (
    <section className="card" aria-labelledby="links-heading">
      <h2 id="links-heading">Linked identities of {props.username}</h2>
      <ProblemView problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Linked identities of ${props.username}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Provider</th>
              <th scope="col">Upstream subject</th>
              <th scope="col">Issuer</th>
              <th scope="col">Linked by</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Remove</th>
            </tr>
          </thead>
          <tbody>
            {links.length === 0 ? (
              <tr>
                <td colSpan={6}>No linked identity: this user signs in with the tenant&apos;s own credentials only.</td>
              </tr>
            ) : null}
            {links.map((l) => (
              <tr key={`${l.provider} ${l.subject}`} data-link={l.provider} data-subject={l.subject}>
                <td>
                  <code>{l.provider}</code>
                </td>
                <td>
                  <code>{l.subject}</code>
                </td>
                <td>{l.issuer}</td>
                <td>{l.linkedBy}</td>
                <td>{fmtDate(l.lastSignInAt)}</td>
                <td>
                  <ConfirmButton
                    scope="auth.users.update"
                    label={`Delete ${linkWords(l.provider)}`}
                    question={`Delete ${linkWords(l.provider)} of ${props.username}?`}
                    consequence={`That ${l.provider} identity no longer signs in as ${props.username}.`}
                    confirm={`Really delete ${linkWords(l.provider)}`}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/upstream-links/{provider}', {
                          params: { path: { ...path, provider: l.provider } },
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
        aria-label="Link an upstream identity"
        onSubmit={(e) => {
          e.preventDefault();
          void link
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/users/{userId}/upstream-links', {
                  params: { path },
                  body: { provider: f.provider, subject: f.subject },
                }),
              ),
            )
            .then((l) => {
              if (l) {
                setF({ provider: '', subject: '' });
                void load();
              }
            });
        }}
      >
        <h3>Link an upstream identity</h3>
        <p className="hint">
          You vouch that this upstream identity is {props.username}: from now on it signs in as this account.
        </p>
        <Field label="Provider alias" name="body.provider" problem={link.problem}>
          {({ id, describedBy, invalid }) => (
            <>
              <input
                id={id}
                list={`${id}-aliases`}
                required
                autoComplete="off"
                aria-describedby={describedBy}
                aria-invalid={invalid || undefined}
                value={f.provider}
                onChange={(e) => setF({ ...f, provider: e.target.value })}
              />
              <datalist id={`${id}-aliases`}>
                {aliases.map((a) => (
                  <option key={a} value={a} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        <TextField
          label="Upstream subject"
          name="body.subject"
          problem={link.problem}
          value={f.subject}
          onChange={(v) => setF({ ...f, subject: v })}
          required
          hint="The provider's subject claim (OIDC) or NameID (SAML) for this person."
        />
        <ProblemView problem={link.problem} shownFields={['body.provider', 'body.subject']} />
        <ScopedButton scope="auth.users.update" type="submit" busy={link.busy}>
          Link identity
        </ScopedButton>
      </form>
    </section>
  );
}
