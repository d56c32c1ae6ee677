/**
 * ID-JAG audiences: the other authorization servers this tenant, as the enterprise identity provider, issues Identity
 * Assertion Authorization Grants for (token exchange, draft-ietf-oauth-identity-assertion-authz-grant), with the
 * resources there, the clients that may ask and their client_id at that server, the agents (NHE identifiers) that may
 * obtain one with their delegation token, the scope cap and the lifetime. List, create, edit (the audience is fixed once
 * created), enable or disable, delete.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  CheckField,
  DeleteButton,
  Field,
  ProblemView,
  ScopedButton,
  splitList,
  TextField,
  useAction,
  useConsole,
} from '../ui';

type Audience = Schemas['IdJagAudience'];
type ClientRow = Audience['clients'][number];

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

interface Form {
  audience: string;
  resources: string;
  clients: ClientRow[];
  agents: string;
  scopes: string;
  lifetimeSeconds: string;
  enabled: boolean;
  description: string;
}

const EMPTY: Form = {
  audience: '',
  resources: '',
  clients: [],
  agents: '',
  scopes: '',
  lifetimeSeconds: '300',
  enabled: true,
  description: '',
};

function formOf(a: Audience): Form {
  return {
    audience: a.audience,
    resources: a.resources.join(' '),
    clients: a.clients.map((c) => ({ ...c })),
    agents: a.agents.join(' '),
    scopes: a.scopes.join(' '),
    lifetimeSeconds: String(a.lifetimeSeconds),
    enabled: a.enabled,
    description: a.description ?? '',
  };
}

/** What create and update share (the audience itself is sent on create only). */
function settingsBody(f: Form) {
  return {
    resources: splitList(f.resources),
    clients: f.clients.map((c) => ({ clientId: c.clientId.trim(), clientIdAtAudience: c.clientIdAtAudience.trim() })),
    agents: splitList(f.agents),
    scopes: splitList(f.scopes),
    lifetimeSeconds: Number(f.lifetimeSeconds),
    enabled: f.enabled,
  };
}

const SHOWN_FIELDS = [
  'body.audience',
  'body.resources',
  'body.clients',
  'body.agents',
  'body.scopes',
  'body.lifetimeSeconds',
  'body.enabled',
  'body.description',
];

export function IdJagAudiencesScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Audience[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [clientIds, setClientIds] = useState<string[]>([]);
  const list = useAction();
  const toggle = useAction();
  /** The id being edited; '' for the create form. */
  const [editing, setEditing] = useState('');
  const [done, setDone] = useState('');
  const load = useCallback(
    async (after?: string) => {
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/id-jag-audiences', {
            params: { path: tp(tenantId), query: { limit: 100, ...(after ? { cursor: after } : {}) } },
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
    // Suggested clients: those with the token-exchange grant that authenticate (a public client is refused).
    void call(
      api.GET('/auth/admin/tenants/{tenantId}/clients', {
        params: { path: tp(tenantId), query: { limit: 200, grantType: TOKEN_EXCHANGE } },
      }),
    ).then(
      (p) => setClientIds(p.items.filter((c) => c.tokenEndpointAuthMethod !== 'none').map((c) => c.clientId)),
      () => undefined,
    );
  }, [load, api, tenantId]);
  const current = editing ? items.find((i) => i.id === editing) : undefined;
  return (
    <section>
      <ProblemView problem={list.problem} />
      <ProblemView problem={toggle.problem} />
      <p role="status">{done}</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="ID-JAG audiences">
        <table>
          <thead>
            <tr>
              <th scope="col">Audience</th>
              <th scope="col">Resources</th>
              <th scope="col">Clients</th>
              <th scope="col">Agents</th>
              <th scope="col">Scopes</th>
              <th scope="col">Lifetime</th>
              <th scope="col">Enabled</th>
              <th scope="col">Edit</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.id} data-audience={a.audience} data-enabled={a.enabled}>
                <td>
                  <code>{a.audience}</code>
                  {a.description ? <p className="hint">{a.description}</p> : null}
                </td>
                <td>{a.resources.length ? a.resources.join(' ') : 'none named'}</td>
                <td>
                  {a.clients.length
                    ? a.clients.map((c) => `${c.clientId} → ${c.clientIdAtAudience}`).join(', ')
                    : 'none (nothing is issued)'}
                </td>
                <td>{a.agents.length ? a.agents.join(' ') : 'none (people only)'}</td>
                <td>{a.scopes.length ? a.scopes.join(' ') : 'none'}</td>
                <td>{a.lifetimeSeconds} s</td>
                <td>
                  {a.enabled ? 'enabled ' : 'disabled '}
                  <ScopedButton
                    scope="auth.tenants.update"
                    onClick={() =>
                      void toggle.run(async () => {
                        const u = await call(
                          api.PATCH('/auth/admin/tenants/{tenantId}/id-jag-audiences/{audienceId}', {
                            params: { path: { ...tp(tenantId), audienceId: a.id } },
                            body: { enabled: !a.enabled },
                          }),
                        );
                        setDone(`${u.enabled ? 'Enabled' : 'Disabled'} ${u.audience}.`);
                        await load();
                      })
                    }
                  >
                    {a.enabled ? `Disable ${a.audience}` : `Enable ${a.audience}`}
                  </ScopedButton>
                </td>
                <td>
                  <button
                    type="button"
                    aria-pressed={editing === a.id}
                    onClick={() => {
                      setEditing(a.id);
                      setDone('');
                    }}
                  >
                    Edit {a.audience}
                  </button>
                </td>
                <td>
                  <DeleteButton
                    scope="auth.tenants.update"
                    what={a.audience}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/id-jag-audiences/{audienceId}', {
                          params: { path: { ...tp(tenantId), audienceId: a.id } },
                        }),
                      );
                      if (editing === a.id) setEditing('');
                      setDone(`Deleted ${a.audience}: no ID-JAG is issued for it from now on.`);
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
          More audiences
        </button>
      ) : null}
      {editing && current ? (
        <AudienceForm
          key={`edit-${current.id}-${current.updatedAt}`}
          existing={current}
          clientIds={clientIds}
          onSaved={(a) => {
            setDone(`Saved ${a.audience}.`);
            void load();
          }}
          onCancel={() => setEditing('')}
        />
      ) : (
        <AudienceForm
          key="create"
          clientIds={clientIds}
          onSaved={(a) => {
            setDone(`Created ${a.audience}.`);
            void load();
          }}
        />
      )}
    </section>
  );
}

function AudienceForm(props: {
  existing?: Audience;
  clientIds: string[];
  onSaved: (a: Audience) => void;
  onCancel?: () => void;
}) {
  const { api, tenantId } = useConsole();
  const save = useAction();
  const existing = props.existing;
  const [f, setF] = useState<Form>(() => (existing ? formOf(existing) : EMPTY));
  const problem = save.problem;
  const set = (patch: Partial<Form>) => setF((old) => ({ ...old, ...patch }));
  const setRow = (i: number, patch: Partial<ClientRow>) =>
    setF((old) => ({ ...old, clients: old.clients.map((c, j) => (j === i ? { ...c, ...patch } : c)) }));
  const onSubmit = async () => {
    const a = await save.run(() =>
      existing
        ? call(
            api.PATCH('/auth/admin/tenants/{tenantId}/id-jag-audiences/{audienceId}', {
              params: { path: { ...tp(tenantId), audienceId: existing.id } },
              body: { ...settingsBody(f), description: f.description || null },
            }),
          )
        : call(
            api.POST('/auth/admin/tenants/{tenantId}/id-jag-audiences', {
              params: { path: tp(tenantId) },
              body: {
                audience: f.audience,
                ...settingsBody(f),
                ...(f.description ? { description: f.description } : {}),
              },
            }),
          ),
    );
    if (a) {
      if (!existing) setF(EMPTY);
      props.onSaved(a);
    }
  };
  const title = existing ? `Edit ${existing.audience}` : 'Add an ID-JAG audience';
  const listId = `id-jag-clients-${existing?.id ?? 'new'}`;
  // The list-level reason (a repeated client); row reasons are shown on their rows.
  const clientsError = problem?.invalid_params?.find((p) => p.name === 'body.clients')?.reason;
  return (
    <form
      className="card"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        void onSubmit();
      }}
    >
      <h2>{title}</h2>
      {existing ? (
        <p>
          Audience <code>{existing.audience}</code> (fixed once created).
        </p>
      ) : (
        <TextField
          label="Audience (issuer of the other authorization server)"
          name="body.audience"
          problem={problem}
          value={f.audience}
          onChange={(v) => set({ audience: v })}
          required
          hint="Its issuer identifier, the ID-JAG aud: https (http only for a loopback host), not this tenant's own issuer; fixed once created."
        />
      )}
      <TextField
        label="Resources (space separated)"
        name="body.resources"
        problem={problem}
        value={f.resources}
        onChange={(v) => set({ resources: v })}
        hint="Resource identifiers (RFC 8707) at that server, e.g. MCP server URLs: a request naming another is refused. URLs or URNs, at most 50."
      />
      <fieldset>
        <legend>Clients allowed to ask</legend>
        <p className="hint">
          Confidential clients of this tenant with the token-exchange grant, each with the client_id that server knows
          it by (client ids are not global). At most 100.
        </p>
        <datalist id={listId}>
          {props.clientIds.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
        {f.clients.map((c, i) => (
          <div key={i} className="inline" data-row={i}>
            <Field label={`Client ${i + 1}: client id here`} name={`body.clients.${i}.clientId`} problem={problem}>
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  type="text"
                  list={listId}
                  value={c.clientId}
                  required
                  autoComplete="off"
                  aria-describedby={describedBy}
                  aria-invalid={invalid || undefined}
                  onChange={(e) => setRow(i, { clientId: e.target.value })}
                />
              )}
            </Field>
            <TextField
              label={`Client ${i + 1}: client_id at the audience`}
              name={`body.clients.${i}.clientIdAtAudience`}
              problem={problem}
              value={c.clientIdAtAudience}
              onChange={(v) => setRow(i, { clientIdAtAudience: v })}
              required
            />
            <button
              type="button"
              className="secondary"
              onClick={() => set({ clients: f.clients.filter((_, j) => j !== i) })}
            >
              Remove client {i + 1}
            </button>
          </div>
        ))}
        {clientsError ? (
          <p className="field-error" data-field="body.clients">
            {clientsError}
          </p>
        ) : null}
        <button
          type="button"
          className="secondary"
          onClick={() => set({ clients: [...f.clients, { clientId: '', clientIdAtAudience: '' }] })}
        >
          Add a client
        </button>
      </fieldset>
      <TextField
        label="Agents (NHE identifiers, space separated)"
        name="body.agents"
        problem={problem}
        value={f.agents}
        onChange={(v) => set({ agents: v })}
        hint="Agents that may obtain an ID-JAG for the person they act for, presenting their delegation token through a client above; the ID-JAG carries their act and agent claims. Empty: people only. At most 100."
      />
      <TextField
        label="Scopes (space separated)"
        name="body.scopes"
        problem={problem}
        value={f.scopes}
        onChange={(v) => set({ scopes: v })}
        hint="The most scope an ID-JAG may carry: requested scopes are cut to these. At most 100."
      />
      <TextField
        label="Lifetime (seconds)"
        type="number"
        name="body.lifetimeSeconds"
        problem={problem}
        value={f.lifetimeSeconds}
        onChange={(v) => set({ lifetimeSeconds: v })}
        hint="30 to 300: an ID-JAG is a bearer grant, kept short."
      />
      <CheckField
        label="Enabled"
        name="body.enabled"
        problem={problem}
        checked={f.enabled}
        onChange={(v) => set({ enabled: v })}
        hint="Nothing is issued for a disabled audience, from the next request on."
      />
      <TextField
        label="Description (optional)"
        name="body.description"
        problem={problem}
        value={f.description}
        onChange={(v) => set({ description: v })}
      />
      <ProblemView problem={problem} shownFields={SHOWN_FIELDS} />
      <div className="actions">
        <ScopedButton scope="auth.tenants.update" type="submit" busy={save.busy}>
          {existing ? `Save ${existing.audience}` : 'Add audience'}
        </ScopedButton>
        {props.onCancel ? (
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel editing
          </button>
        ) : null}
      </div>
    </form>
  );
}
