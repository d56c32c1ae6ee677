/**
 * Users: list, create (with a password), assign a role, enrol TOTP (the secret shown once as a QR code), and a user's
 * linked upstream identities (list, remove, link one by hand).
 */
import { useCallback, useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { call, tp, type Schemas } from '../api';
import { DeleteButton, Field, ProblemView, ScopedButton, TextField, fmtDate, useAction, useConsole } from '../ui';

type User = Schemas['User'];
type Role = Schemas['Role'];

export function UsersScreen() {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<User[]>([]);
  const [roles, setRoles] = useState<Role[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const list = useAction();
  const create = useAction();
  const assign = useAction();
  const totp = useAction();
  const [f, setF] = useState({ username: '', password: '', name: '' });
  const [assignTo, setAssignTo] = useState({ userId: '', roleId: '' });
  const [qr, setQr] = useState<{ username: string; dataUrl: string; secret: string } | undefined>();
  const [done, setDone] = useState('');
  /** The user whose linked upstream identities are shown. */
  const [linksOf, setLinksOf] = useState('');

  const load = useCallback(
    async (after?: string) => {
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/users', {
            params: { path: tp(tenantId), query: { limit: 50, ...(after ? { cursor: after } : {}) } },
          }),
        ),
      );
      if (page) {
        setItems((all) => (after ? [...all, ...page.items] : page.items));
        setCursor(page.nextCursor);
      }
    },
    [api, tenantId], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => {
    void load();
    if (can('auth.roles.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/roles', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setRoles(p.items),
        () => undefined,
      );
  }, [load, api, tenantId, can]);

  const onCreate = async () => {
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
      setF({ username: '', password: '', name: '' });
      setDone(`Created user ${u.username}.`);
      void load();
    }
  };
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
      setDone('Role assigned.');
      void load();
    }
  };
  const onTotp = async (u: User) => {
    setQr(undefined);
    const e = await totp.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/users/{userId}/totp', {
          params: { path: { ...tp(tenantId), userId: u.id } },
          body: {},
        }),
      ),
    );
    if (e) {
      setQr({
        username: u.username,
        dataUrl: await QRCode.toDataURL(e.otpauthUri, { margin: 1, width: 220 }),
        secret: e.secret,
      });
      void load();
    }
  };
  const roleName = (id: string) => roles.find((r) => r.id === id)?.name ?? id;

  return (
    <section>
      <ProblemView problem={list.problem} />
      <p role="status">{done}</p>
      {qr ? (
        <div className="card totp" data-testid="totp">
          <h2>TOTP enrolment of {qr.username}</h2>
          <p>Scan with an authenticator app. The secret is shown once; it is stored sealed.</p>
          <img src={qr.dataUrl} width={220} height={220} alt={`QR code of the TOTP secret of ${qr.username}`} />
          <p>
            Secret: <code>{qr.secret}</code>
          </p>
        </div>
      ) : null}
      <ProblemView problem={totp.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Users">
        <table>
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Id</th>
              <th scope="col">Roles</th>
              <th scope="col">TOTP</th>
              <th scope="col">Linked identities</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((u) => (
              <tr key={u.id} data-user={u.username}>
                <td>{u.username}</td>
                <td>
                  <code>{u.id}</code>
                </td>
                <td>{u.roleIds.map(roleName).join(', ') || '—'}</td>
                <td>
                  {u.totpEnrolled ? 'enrolled ' : ''}
                  <ScopedButton scope="auth.users.update" onClick={() => void onTotp(u)}>
                    {u.totpEnrolled ? 'Re-enrol' : 'Enrol'} TOTP for {u.username}
                  </ScopedButton>
                </td>
                <td>
                  <button type="button" aria-pressed={linksOf === u.id} onClick={() => setLinksOf(u.id)}>
                    Linked identities of {u.username}
                  </button>
                </td>
                <td>
                  <DeleteButton
                    scope="auth.users.delete"
                    what={u.username}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}', {
                          params: { path: { ...tp(tenantId), userId: u.id } },
                        }),
                      );
                      if (linksOf === u.id) setLinksOf('');
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor ? (
        <button type="button" onClick={() => void load(cursor)}>
          More users
        </button>
      ) : null}
      {linksOf ? (
        <LinkedIdentities
          key={linksOf}
          userId={linksOf}
          username={items.find((u) => u.id === linksOf)?.username ?? linksOf}
        />
      ) : null}
      <form
        className="card"
        aria-label="Create a user"
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate();
        }}
      >
        <h2>Create a user</h2>
        <TextField
          label="Username"
          name="body.username"
          problem={create.problem}
          value={f.username}
          onChange={(v) => setF({ ...f, username: v })}
          required
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          name="body.password"
          problem={create.problem}
          value={f.password}
          onChange={(v) => setF({ ...f, password: v })}
        />
        <TextField
          label="Display name"
          name="body.claims"
          problem={create.problem}
          value={f.name}
          onChange={(v) => setF({ ...f, name: v })}
        />
        <ProblemView problem={create.problem} shownFields={['body.username', 'body.password', 'body.claims']} />
        <ScopedButton scope="auth.users.create" type="submit" busy={create.busy}>
          Create user
        </ScopedButton>
      </form>
      <form
        className="card"
        aria-label="Assign a role"
        onSubmit={(e) => {
          e.preventDefault();
          void onAssign();
        }}
      >
        <h2>Assign a role</h2>
        <Field label="User" name="params.userId" problem={assign.problem}>
          {({ id }) => (
            <select
              id={id}
              value={assignTo.userId}
              onChange={(e) => setAssignTo({ ...assignTo, userId: e.target.value })}
              required
            >
              <option value="">Choose a user</option>
              {items.map((u) => (
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
        <ProblemView problem={assign.problem} shownFields={[]} />
        <ScopedButton scope="auth.roles.assign" type="submit" busy={assign.busy}>
          Assign role
        </ScopedButton>
      </form>
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
                  <DeleteButton
                    scope="auth.users.update"
                    what={
                      perProvider(l.provider) > 1
                        ? `the ${perProvider(l.provider)} links to ${l.provider}`
                        : `the link to ${l.provider}`
                    }
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
