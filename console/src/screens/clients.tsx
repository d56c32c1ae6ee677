/**
 * Clients: the list (client id prefix search, grant type filter, cursor paging), create (the secret is shown once,
 * then the new client opens), and the detail page where every field the API takes is edited and saved as a PATCH of
 * what changed; roles, secret rotation and deletion (after a confirmation) are there too.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  ConfirmButton,
  EditCheck,
  EditChoices,
  EditJson,
  EditList,
  EditNumber,
  EditSelect,
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
import { CheckField, ScopedButton, splitList, useAction, useConsole } from '../ui';
import { RoleAssignments } from './assignments';

type Client = Schemas['Client'];
const GRANTS = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
  'urn:ietf:params:oauth:grant-type:token-exchange',
  'urn:ietf:params:oauth:grant-type:jwt-bearer',
] as const;
type Grant = (typeof GRANTS)[number];
const AUTH_METHODS = [
  { value: 'client_secret_basic', label: 'client_secret_basic (secret in the Authorization header)' },
  { value: 'client_secret_post', label: 'client_secret_post (secret in the form)' },
  { value: 'private_key_jwt', label: 'private_key_jwt (signed assertion, RFC 7523)' },
  { value: 'none', label: 'none (public client, PKCE required)' },
] as const;
type AuthMethod = (typeof AUTH_METHODS)[number]['value'];

/** The screen: the detail of the client in the route (if any) above the list and the create form. */
export function ClientsScreen() {
  const [selected, go] = useDetailRoute('clients');
  const [secret, setSecret] = useState<{ clientId: string; secret: string } | undefined>();
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  return (
    <section>
      {secret ? (
        <ShownOnce
          testId="client-secret"
          label={`Client secret of ${secret.clientId}`}
          value={secret.secret}
          note={
            <>
              Secret of <code>{secret.clientId}</code>, shown <strong>once</strong> (only a digest is stored): copy it
              now.
            </>
          }
        />
      ) : null}
      {selected ? (
        <ClientDetail
          key={selected}
          clientId={selected}
          onSecret={(s) => setSecret(s)}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <ClientList reload={reload} onSecret={setSecret} onChanged={bump} />
      <CreateClient
        onCreated={(c) => {
          setSecret(c.clientSecret ? { clientId: c.clientId, secret: c.clientSecret } : undefined);
          bump();
          go(c.clientId);
        }}
      />
    </section>
  );
}

function ClientList(props: {
  reload: number;
  onSecret: (s: { clientId: string; secret: string } | undefined) => void;
  onChanged: () => void;
}) {
  const { api, tenantId } = useConsole();
  const [grant, setGrant] = useState('');
  const rotate = useAction();
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/clients', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { clientIdPrefix: q.search } : {}),
              ...(grant ? { grantType: grant as Grant } : {}),
            },
          },
        }),
      ),
    [api, tenantId, grant],
  );
  const onRotate = async (clientId: string) => {
    props.onSecret(undefined);
    const r = await rotate.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/clients/{clientId}/secret-rotations', {
          params: { path: { ...tp(tenantId), clientId } },
          body: {},
        }),
      ),
    );
    if (r) props.onSecret({ clientId: r.clientId, secret: r.clientSecret });
  };
  return (
    <>
      <h2>All clients</h2>
      <ProblemBox problem={rotate.problem} />
      <ResourceList<Client>
        label="Clients"
        searchLabel="Client id starts with"
        reloadKey={props.reload}
        load={load}
        rowKey={(c) => c.clientId}
        rowAttrs={(c) => ({ 'data-client': c.clientId })}
        filters={
          <span className="field">
            <label htmlFor="clients-grant">Grant type</label>
            <select id="clients-grant" value={grant} onChange={(e) => setGrant(e.target.value)}>
              <option value="">any</option>
              {GRANTS.map((g) => (
                <option key={g} value={g}>
                  {g}
                </option>
              ))}
            </select>
          </span>
        }
        columns={[
          {
            header: 'Client id',
            sortValue: (c) => c.clientId,
            render: (c) => (
              <a href={detailHref('clients', c.clientId)}>
                <code>{c.clientId}</code>
              </a>
            ),
          },
          {
            header: 'Name',
            sortValue: (c) => c.name.toLowerCase(),
            render: (c) => `${c.name}${c.firstParty ? ' (first party)' : ''}`,
          },
          { header: 'Status', sortValue: (c) => Number(c.enabled), render: (c) => <StatusBadge on={c.enabled} /> },
          { header: 'Grants', render: (c) => c.grantTypes.join(', ') },
          {
            header: 'NHE delegation',
            render: (c) =>
              c.config.nhe.delegationEnabled
                ? `on (${c.config.nhe.allowedNheIdentifiers.join(', ') || 'any NHE'})`
                : 'off',
          },
          {
            header: 'Secret',
            render: (c) =>
              c.hasSecret ? (
                <ScopedButton scope="auth.clients.update" onClick={() => void onRotate(c.clientId)}>
                  Rotate secret of {c.clientId}
                </ScopedButton>
              ) : (
                'public'
              ),
          },
          {
            header: 'Delete',
            render: (c) =>
              c.clientId === 'admin-console' ? (
                'built in (the console signs in with it)'
              ) : (
                <DeleteClient clientId={c.clientId} onDeleted={props.onChanged} />
              ),
          },
        ]}
      />
    </>
  );
}

function DeleteClient(props: { clientId: string; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.clients.delete"
      kind="client"
      name={props.clientId}
      label={props.label}
      consequence="It can no longer sign anyone in or get tokens, and the NHE tokens issued to it are revoked. This cannot be undone."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/clients/{clientId}', {
            params: { path: { ...tp(tenantId), clientId: props.clientId } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

/** What the detail page edits: every field of the PATCH body. */
interface ClientDraft extends Record<string, unknown> {
  name: string;
  enabled: boolean;
  firstParty: boolean;
  showLogoutPrompt: boolean;
  tokenEndpointAuthMethod: AuthMethod;
  grantTypes: Grant[];
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  pkceRequired: boolean;
  dpopBoundAccessTokens: boolean;
  requirePushedAuthorizationRequests: boolean;
  idTokenSignedResponseAlg: 'ES256' | 'RS256';
  jwks: unknown;
  config: {
    nhe: { delegationEnabled: boolean; allowedNheIdentifiers: string[]; maxTokenLifetime: number | undefined };
    featureToggles: { requireAuthorizationScopesInRequest: boolean; requireResourceIndicatorInRequest: boolean };
    legacyRoleCompatibility: boolean;
    customizeUserInfoClaims: string | undefined;
  };
}

const toDraft = (c: Client): ClientDraft => ({
  name: c.name,
  enabled: c.enabled,
  firstParty: c.firstParty,
  showLogoutPrompt: c.showLogoutPrompt,
  tokenEndpointAuthMethod: c.tokenEndpointAuthMethod,
  grantTypes: c.grantTypes as Grant[],
  redirectUris: c.redirectUris,
  postLogoutRedirectUris: c.postLogoutRedirectUris,
  pkceRequired: c.pkceRequired,
  dpopBoundAccessTokens: c.dpopBoundAccessTokens,
  requirePushedAuthorizationRequests: c.requirePushedAuthorizationRequests,
  idTokenSignedResponseAlg: c.idTokenSignedResponseAlg,
  jwks: c.jwks,
  config: {
    nhe: {
      delegationEnabled: c.config.nhe.delegationEnabled,
      allowedNheIdentifiers: c.config.nhe.allowedNheIdentifiers,
      maxTokenLifetime: c.config.nhe.maxTokenLifetime,
    },
    featureToggles: { ...c.config.featureToggles },
    legacyRoleCompatibility: c.config.legacyRoleCompatibility,
    customizeUserInfoClaims: c.config.customizeUserInfoClaims,
  },
});

const LABELS: Record<string, string> = {
  name: 'name',
  enabled: 'enabled',
  firstParty: 'first party',
  showLogoutPrompt: 'logout prompt',
  tokenEndpointAuthMethod: 'authentication method',
  grantTypes: 'grant types',
  redirectUris: 'redirect URIs',
  postLogoutRedirectUris: 'post-logout redirect URIs',
  pkceRequired: 'PKCE',
  dpopBoundAccessTokens: 'DPoP',
  requirePushedAuthorizationRequests: 'pushed authorization requests',
  idTokenSignedResponseAlg: 'ID token algorithm',
  jwks: 'public keys',
  'config.nhe.delegationEnabled': 'NHE delegation',
  'config.nhe.allowedNheIdentifiers': 'allowed NHEs',
  'config.nhe.maxTokenLifetime': 'NHE token lifetime',
  'config.featureToggles.requireAuthorizationScopesInRequest': 'scope required in requests',
  'config.featureToggles.requireResourceIndicatorInRequest': 'resource required in requests',
  'config.legacyRoleCompatibility': 'legacy roles claim',
  'config.customizeUserInfoClaims': 'UserInfo claims script',
};

function ClientDetail(props: {
  clientId: string;
  onSecret: (s: { clientId: string; secret: string }) => void;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [client, setClient] = useState<Client | undefined>();
  const [note, setNote] = useState('');
  const get = useAction();
  const path = { ...tp(tenantId), clientId: props.clientId };
  const reload = useCallback(async () => {
    const c = await get.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/clients/{clientId}', {
          params: { path: { ...tp(tenantId), clientId: props.clientId } },
        }),
      ),
    );
    if (c) setClient(c);
  }, [api, tenantId, props.clientId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
  }, [reload]);
  const limits = useLimits('updateClient');
  const ed = useEditor<Client, ClientDraft>({
    item: client,
    toDraft,
    what: (c) => `client ${c.clientId}`,
    labels: LABELS,
    save: async (patch) => {
      const saved = await call(
        api.PATCH('/auth/admin/tenants/{tenantId}/clients/{clientId}', {
          params: { path },
          body: patch as never,
        }),
      );
      const withSecret = saved as Client & { clientSecret?: string };
      if (withSecret.clientSecret) props.onSecret({ clientId: saved.clientId, secret: withSecret.clientSecret });
      return saved;
    },
    onSaved: (c) => {
      setClient(c);
      setNote('');
      props.onChanged();
    },
  });
  const d = ed.draft;
  const p = ed.problem;
  const { field, plain, check } = bindFields(ed, limits);
  const dynamic = client?.registration === 'dynamic';
  const nhe = d?.config.nhe;
  const setConfig = (c: Partial<ClientDraft['config']>) => {
    if (d) ed.set('config', { ...d.config, ...c });
  };
  return (
    <article className="card detail" aria-labelledby="client-detail-heading" data-detail-client={props.clientId}>
      <p>
        <a href="#/clients">← All clients</a>
      </p>
      <h2 id="client-detail-heading" tabIndex={-1} ref={heading}>
        Client {props.clientId}
      </h2>
      <ProblemBox problem={get.problem} />
      {client && d && nhe ? (
        <>
          <p className="meta">
            <StatusBadge on={client.enabled} /> · numeric id {client.numericId} · {client.registration} ·{' '}
            {client.hasSecret ? 'has a secret' : 'no secret'} · response types {client.responseTypes.join(', ')}
          </p>
          {dynamic ? (
            <p className="hint">
              Registered dynamically (RFC 7591): only its name and enabled status change here; the rest through RFC
              7592.
            </p>
          ) : null}
          <form
            aria-label={`Edit client ${props.clientId}`}
            onSubmit={(e) => {
              e.preventDefault();
              if (!ed.jsonErrors.length) void ed.save();
            }}
          >
            <EditText label="Name" {...field('name')} required />
            <EditCheck label="Enabled (may sign people in and get tokens)" {...check('enabled')} />
            <fieldset disabled={dynamic}>
              <legend>Sign-in</legend>
              <EditList label="Redirect URIs" {...field('redirectUris')} />
              <EditList label="Post-logout redirect URIs" {...field('postLogoutRedirectUris')} />
              <EditChoices label="Grant types" {...plain('grantTypes')} options={GRANTS} />
              <EditCheck label="First party (no consent page)" {...check('firstParty')} />
              <EditCheck label="Ask before signing out (logout prompt)" {...check('showLogoutPrompt')} />
              <EditSelect
                label="ID token signing algorithm"
                {...plain('idTokenSignedResponseAlg')}
                options={[
                  { value: 'ES256', label: 'ES256' },
                  { value: 'RS256', label: 'RS256' },
                ]}
              />
            </fieldset>
            <fieldset disabled={dynamic}>
              <legend>Client authentication and proof of possession</legend>
              <EditSelect
                label="Token endpoint authentication method"
                {...plain('tokenEndpointAuthMethod')}
                options={AUTH_METHODS}
                hint="Switching to a secret-based method on a client without a secret generates one, shown once."
              />
              <EditJson
                label="Public keys (JWKS, for private_key_jwt)"
                {...plain('jwks')}
                onInvalid={(why) => ed.jsonInvalid('public keys', why)}
              />
              <EditCheck
                label="PKCE required (S256)"
                {...check('pkceRequired')}
                hint="Always on for a public client."
              />
              <EditCheck label="DPoP-bound tokens only (RFC 9449)" {...check('dpopBoundAccessTokens')} />
              <EditCheck
                label="Pushed authorization requests only (RFC 9126)"
                {...check('requirePushedAuthorizationRequests')}
              />
            </fieldset>
            <fieldset disabled={dynamic}>
              <legend>NHE delegation</legend>
              <EditCheck
                label="NHE delegation enabled (token exchange on behalf of users)"
                name="body.config.nhe.delegationEnabled"
                problem={p}
                checked={nhe.delegationEnabled}
                onChange={(v) => setConfig({ nhe: { ...nhe, delegationEnabled: v } })}
                hint="Turning it off revokes the NHE tokens already issued to this client."
              />
              <EditList
                label="Allowed NHE identifiers (empty: any)"
                name="body.config.nhe.allowedNheIdentifiers"
                problem={p}
                limits={limits('config.nhe.allowedNheIdentifiers')}
                value={nhe.allowedNheIdentifiers}
                onChange={(v) => setConfig({ nhe: { ...nhe, allowedNheIdentifiers: v } })}
              />
              <EditNumber
                label="Max NHE token lifetime (seconds; empty: the tenant's)"
                name="body.config.nhe.maxTokenLifetime"
                problem={p}
                limits={limits('config.nhe.maxTokenLifetime')}
                value={nhe.maxTokenLifetime}
                onChange={(v) => setConfig({ nhe: { ...nhe, maxTokenLifetime: v } })}
              />
            </fieldset>
            <fieldset disabled={dynamic}>
              <legend>Requests and claims</legend>
              <EditCheck
                label="Authorization requests must name a scope"
                name="body.config.featureToggles.requireAuthorizationScopesInRequest"
                problem={p}
                checked={d.config.featureToggles.requireAuthorizationScopesInRequest}
                onChange={(v) =>
                  setConfig({ featureToggles: { ...d.config.featureToggles, requireAuthorizationScopesInRequest: v } })
                }
              />
              <EditCheck
                label="Authorization requests must name a resource (RFC 8707)"
                name="body.config.featureToggles.requireResourceIndicatorInRequest"
                problem={p}
                checked={d.config.featureToggles.requireResourceIndicatorInRequest}
                onChange={(v) =>
                  setConfig({ featureToggles: { ...d.config.featureToggles, requireResourceIndicatorInRequest: v } })
                }
              />
              <EditCheck
                label="Legacy roles claim"
                name="body.config.legacyRoleCompatibility"
                problem={p}
                checked={d.config.legacyRoleCompatibility}
                onChange={(v) => setConfig({ legacyRoleCompatibility: v })}
              />
              <EditText
                multiline
                label="UserInfo claims script (body of a function of input; empty removes it)"
                name="body.config.customizeUserInfoClaims"
                problem={p}
                limits={limits('config.customizeUserInfoClaims')}
                value={d.config.customizeUserInfoClaims ?? ''}
                onChange={(v) => setConfig({ customizeUserInfoClaims: v || undefined })}
              />
            </fieldset>
            <ProblemBox
              problem={p}
              shownFields={[
                'body.name',
                'body.enabled',
                'body.redirectUris',
                'body.postLogoutRedirectUris',
                'body.grantTypes',
                'body.firstParty',
                'body.showLogoutPrompt',
                'body.idTokenSignedResponseAlg',
                'body.tokenEndpointAuthMethod',
                'body.jwks',
                'body.pkceRequired',
                'body.dpopBoundAccessTokens',
                'body.requirePushedAuthorizationRequests',
                'body.config',
              ]}
            />
            <SaveBar scope="auth.clients.update" editor={ed} what={`client ${props.clientId}`} />
          </form>
          {!dynamic ? (
            <RoleAssignments
              who={`client ${client.clientId}`}
              roleIds={client.roleIds}
              add={(roleId) =>
                call(
                  api.PUT('/auth/admin/tenants/{tenantId}/clients/{clientId}/roles/{roleId}', {
                    params: { path: { ...path, roleId } },
                  }),
                )
              }
              remove={(roleId) =>
                call(
                  api.DELETE('/auth/admin/tenants/{tenantId}/clients/{clientId}/roles/{roleId}', {
                    params: { path: { ...path, roleId } },
                  }),
                )
              }
              changed={(m) => {
                setNote(m);
                void reload();
              }}
            />
          ) : null}
          <p role="status">{note}</p>
          {client.hasSecret ? (
            <p>
              <ConfirmButton
                scope="auth.clients.update"
                className="secondary"
                label="Rotate this client's secret"
                question={`Rotate the secret of ${client.clientId}?`}
                consequence="The old secret stops working now; the new one is shown once."
                confirm={`Really rotate the secret of ${client.clientId}`}
                onConfirm={async () => {
                  const r = await call(
                    api.POST('/auth/admin/tenants/{tenantId}/clients/{clientId}/secret-rotations', {
                      params: { path },
                      body: {},
                    }),
                  );
                  props.onSecret({ clientId: r.clientId, secret: r.clientSecret });
                  setNote(`Rotated the secret of ${r.clientId}: the new one is shown above, once.`);
                }}
              />
            </p>
          ) : null}
          {client.clientId !== 'admin-console' ? (
            <div className="danger-zone">
              <DeleteClient clientId={client.clientId} label="Delete this client" onDeleted={props.onDeleted} />
            </div>
          ) : null}
        </>
      ) : null}
    </article>
  );
}

function CreateClient(props: { onCreated: (c: Schemas['ClientWithSecret']) => void }) {
  const createLimits = useLimits('createClient');
  const { api, tenantId } = useConsole();
  const create = useAction();
  const empty = {
    name: '',
    clientId: '',
    grants: ['client_credentials'] as string[],
    redirectUris: '',
    firstParty: false,
    delegation: false,
    nheIds: '',
  };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  const onCreate = async () => {
    setDone('');
    const c = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/clients', {
          params: { path: tp(tenantId) },
          body: {
            name: f.name,
            ...(f.clientId ? { clientId: f.clientId } : {}),
            grantTypes: f.grants as Grant[],
            redirectUris: splitList(f.redirectUris),
            firstParty: f.firstParty,
            config: { nhe: { delegationEnabled: f.delegation, allowedNheIdentifiers: splitList(f.nheIds) } },
          },
        }),
      ),
    );
    if (c) {
      setF(empty);
      setDone(`Created client ${c.clientId}; it is open above.`);
      props.onCreated(c);
    }
  };
  return (
    <CreateForm label="Create a client" onSubmit={() => void onCreate()}>
      <EditText
        limits={createLimits('name')}
        label="Name"
        name="body.name"
        problem={create.problem}
        value={f.name}
        onChange={(v) => setF({ ...f, name: v })}
        required
      />
      <EditText
        limits={createLimits('clientId')}
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
      <EditText
        limits={createLimits('redirectUris')}
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
      <EditText
        limits={createLimits('config.nhe.allowedNheIdentifiers')}
        label="Allowed NHE identifiers (space separated; empty: any)"
        name="body.config.nhe.allowedNheIdentifiers"
        problem={create.problem}
        value={f.nheIds}
        onChange={(v) => setF({ ...f, nheIds: v })}
      />
      <ProblemBox
        problem={create.problem}
        shownFields={['body.name', 'body.clientId', 'body.grantTypes', 'body.redirectUris', 'body.config.nhe']}
      />
      <ScopedButton scope="auth.clients.create" type="submit" busy={create.busy}>
        Create client
      </ScopedButton>
      <p role="status">{done}</p>
    </CreateForm>
  );
}
