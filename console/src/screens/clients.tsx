/** Clients: list, create (the secret is shown once), rotate the secret (shown once again). */
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

type Client = Schemas['Client'];
const GRANTS = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] as const;

function SecretOnce(props: { clientId: string; secret: string }) {
  return (
    <div className="secret" role="status" data-testid="client-secret">
      <p>
        Secret of <code>{props.clientId}</code>, shown <strong>once</strong> (only a digest is stored): copy it now.
      </p>
      <input
        aria-label={`Client secret of ${props.clientId}`}
        readOnly
        value={props.secret}
        onFocus={(e) => e.target.select()}
      />
    </div>
  );
}

export function ClientsScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Client[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ clientId: string; secret: string } | undefined>();
  const list = useAction();
  const create = useAction();
  const rotate = useAction();
  const [f, setF] = useState({
    name: '',
    clientId: '',
    grants: ['client_credentials'] as string[],
    redirectUris: '',
    firstParty: false,
    delegation: false,
    nheIds: '',
  });

  const load = useCallback(
    async (after?: string) => {
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/clients', {
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
  }, [load]);

  const onCreate = async () => {
    setSecret(undefined);
    const c = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/clients', {
          params: { path: tp(tenantId) },
          body: {
            name: f.name,
            ...(f.clientId ? { clientId: f.clientId } : {}),
            grantTypes: f.grants as Array<(typeof GRANTS)[number]>,
            redirectUris: splitList(f.redirectUris),
            firstParty: f.firstParty,
            config: { nhe: { delegationEnabled: f.delegation, allowedNheIdentifiers: splitList(f.nheIds) } },
          },
        }),
      ),
    );
    if (c) {
      if (c.clientSecret) setSecret({ clientId: c.clientId, secret: c.clientSecret });
      void load();
    }
  };
  const onRotate = async (clientId: string) => {
    setSecret(undefined);
    const r = await rotate.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/clients/{clientId}/secret-rotations', {
          params: { path: { ...tp(tenantId), clientId } },
          body: {},
        }),
      ),
    );
    if (r) setSecret({ clientId: r.clientId, secret: r.clientSecret });
  };

  return (
    <section>
      <ProblemView problem={list.problem} />
      {secret ? <SecretOnce clientId={secret.clientId} secret={secret.secret} /> : null}
      <ProblemView problem={rotate.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Clients">
        <table>
          <thead>
            <tr>
              <th scope="col">Client id</th>
              <th scope="col">Name</th>
              <th scope="col">Grants</th>
              <th scope="col">NHE delegation</th>
              <th scope="col">Secret</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.clientId} data-client={c.clientId}>
                <td>
                  <code>{c.clientId}</code>
                </td>
                <td>
                  {c.name}
                  {c.firstParty ? ' (first party)' : ''}
                </td>
                <td>{c.grantTypes.join(', ')}</td>
                <td>
                  {c.config.nhe.delegationEnabled
                    ? `on (${c.config.nhe.allowedNheIdentifiers.join(', ') || 'any NHE'})`
                    : 'off'}
                </td>
                <td>
                  {c.hasSecret ? (
                    <ScopedButton scope="auth.clients.update" onClick={() => void onRotate(c.clientId)}>
                      Rotate secret of {c.clientId}
                    </ScopedButton>
                  ) : (
                    'public'
                  )}
                </td>
                <td>
                  {c.clientId === 'admin-console' ? (
                    'built in (the console signs in with it)'
                  ) : (
                    <DeleteButton
                      scope="auth.clients.delete"
                      what={c.clientId}
                      onConfirm={async () => {
                        await call(
                          api.DELETE('/auth/admin/tenants/{tenantId}/clients/{clientId}', {
                            params: { path: { ...tp(tenantId), clientId: c.clientId } },
                          }),
                        );
                        await load();
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor ? (
        <button type="button" onClick={() => void load(cursor)}>
          More clients
        </button>
      ) : null}
      <form
        className="card"
        aria-label="Create a client"
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate();
        }}
      >
        <h2>Create a client</h2>
        <TextField
          label="Name"
          name="body.name"
          problem={create.problem}
          value={f.name}
          onChange={(v) => setF({ ...f, name: v })}
          required
        />
        <TextField
          label="Client id (empty: generated)"
          name="body.clientId"
          problem={create.problem}
          value={f.clientId}
          onChange={(v) => setF({ ...f, clientId: v })}
        />
        <fieldset className="inline">
          <legend>Grant types</legend>
          {GRANTS.map((g) => (
            <CheckField
              key={g}
              label={g}
              name="body.grantTypes"
              problem={create.problem}
              checked={f.grants.includes(g)}
              onChange={(v) => setF({ ...f, grants: v ? [...f.grants, g] : f.grants.filter((x) => x !== g) })}
            />
          ))}
        </fieldset>
        <TextField
          label="Redirect URIs (space separated)"
          name="body.redirectUris"
          problem={create.problem}
          value={f.redirectUris}
          onChange={(v) => setF({ ...f, redirectUris: v })}
        />
        <CheckField
          label="First party (no consent page)"
          name="body.firstParty"
          problem={create.problem}
          checked={f.firstParty}
          onChange={(v) => setF({ ...f, firstParty: v })}
        />
        <CheckField
          label="NHE delegation enabled (token exchange on behalf of users)"
          name="body.config.nhe.delegationEnabled"
          problem={create.problem}
          checked={f.delegation}
          onChange={(v) => setF({ ...f, delegation: v })}
        />
        <TextField
          label="Allowed NHE identifiers (space separated; empty: any)"
          name="body.config.nhe.allowedNheIdentifiers"
          problem={create.problem}
          value={f.nheIds}
          onChange={(v) => setF({ ...f, nheIds: v })}
        />
        <ProblemView
          problem={create.problem}
          shownFields={['body.name', 'body.clientId', 'body.grantTypes', 'body.redirectUris', 'body.config.nhe']}
        />
        <ScopedButton scope="auth.clients.create" type="submit" busy={create.busy}>
          Create client
        </ScopedButton>
      </form>
    </section>
  );
}
