/** Role assignments of a client, user or group: listed by name, added from a choice, removed after a confirmation. */
import { useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ConfirmButton, ProblemBox } from '../resource-ui';
import { ScopedButton, useAction, useConsole } from '../ui';

type Role = Schemas['Role'];

/** The tenant's roles (first 200), where the token may list them. */
export function useRoles(): Role[] {
  const { api, tenantId, can } = useConsole();
  const [roles, setRoles] = useState<Role[]>([]);
  useEffect(() => {
    if (!can('auth.roles.list')) return;
    void call(
      api.GET('/auth/admin/tenants/{tenantId}/roles', { params: { path: tp(tenantId), query: { limit: 200 } } }),
    ).then(
      (p) => setRoles(p.items),
      () => undefined,
    );
  }, [api, tenantId, can]);
  return roles;
}

export function RoleAssignments(props: {
  /** Whose roles, in words: `user alice`. */
  who: string;
  roleIds: string[];
  add: (roleId: string) => Promise<unknown>;
  remove: (roleId: string) => Promise<unknown>;
  /** Called after a change, to read the item again. */
  changed: (message: string) => void;
}) {
  const roles = useRoles();
  const [choice, setChoice] = useState('');
  const act = useAction();
  const name = (id: string) => {
    const r = roles.find((x) => x.id === id);
    return r ? `${r.name} (${r.resourceServer})` : id;
  };
  const free = roles.filter((r) => !props.roleIds.includes(r.id));
  return (
    <section className="card" aria-label={`Roles of ${props.who}`}>
      <h2>Roles</h2>
      {props.roleIds.length === 0 ? <p>No role.</p> : null}
      <ul className="plain assignments">
        {props.roleIds.map((id) => (
          <li key={id} data-role-id={id}>
            {name(id)}{' '}
            <ConfirmButton
              scope="auth.roles.assign"
              label={`Remove role ${name(id)}`}
              question={`Remove the role ${name(id)} from ${props.who}?`}
              consequence="Tokens issued from now on no longer carry its permissions."
              confirm={`Really remove ${name(id)}`}
              className="secondary"
              onConfirm={async () => {
                await props.remove(id);
                props.changed(`Removed the role ${name(id)} from ${props.who}.`);
              }}
            />
          </li>
        ))}
      </ul>
      <form
        aria-label={`Add a role to ${props.who}`}
        onSubmit={(e) => {
          e.preventDefault();
          const id = choice;
          void act
            .run(async () => {
              await props.add(id);
              return true;
            })
            .then((ok) => {
              if (ok) {
                setChoice('');
                props.changed(`Added the role ${name(id)} to ${props.who}.`);
              }
            });
        }}
      >
        <div className="field">
          <label htmlFor={`add-role-${props.who}`}>Role to add</label>
          <select id={`add-role-${props.who}`} value={choice} required onChange={(e) => setChoice(e.target.value)}>
            <option value="">Choose a role</option>
            {free.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name} ({r.resourceServer})
              </option>
            ))}
          </select>
        </div>
        <ProblemBox problem={act.problem} />
        <ScopedButton scope="auth.roles.assign" type="submit" busy={act.busy}>
          Add role
        </ScopedButton>
      </form>
    </section>
  );
}
