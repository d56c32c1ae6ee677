/**
 * Resource servers (APIs): the list (search by exact identifier, cursor paging), create (then the new API opens), and
 * the detail page: name, scopes and what the consent page says for them, token lifetime, NHE delegation settings,
 * introspection clients and the RFC 9728 metadata URL, saved as a PATCH of what changed; deletion after a
 * confirmation.
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
import { bindFields, CreateForm, DeleteButton } from '../form-fields';
import { CheckField, ScopedButton, splitList, useAction, useConsole } from '../ui';

type Rs = Schemas['ResourceServer'];
const NHE_TYPES = ['llm-autonomous', 'llm-assistive', 'automated-pipeline'] as const;
type NheType = (typeof NHE_TYPES)[number];

const nheWords = (r: Rs) =>
  r.config.nhe.requireDelegationTokens ? 'only' : r.config.nhe.acceptDelegationTokens ? 'accepted' : 'refused';

export function ResourceServersScreen() {
  const { api, tenantId } = useConsole();
  const [selected, go] = useDetailRoute('resource-servers');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/resource-servers', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { identifier: q.search } : {}),
            },
          },
        }),
      ),
    [api, tenantId],
  );
  return (
    <section>
      {selected ? (
        <RsDetail
          key={selected}
          id={selected}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <h2>All resource servers</h2>
      <ResourceList<Rs>
        label="Resource servers"
        searchLabel="Identifier (exact)"
        load={load}
        reloadKey={reload}
        rowKey={(r) => r.id}
        rowAttrs={(r) => ({ 'data-rs': r.identifier })}
        columns={[
          {
            header: 'Identifier (audience)',
            sortValue: (r) => r.identifier,
            render: (r) => (
              <a href={detailHref('resource-servers', r.id)}>
                <code>{r.identifier}</code>
              </a>
            ),
          },
          { header: 'Name', sortValue: (r) => r.name.toLowerCase(), render: (r) => r.name },
          { header: 'Scopes', render: (r) => r.scopes.join(' ') },
          {
            header: 'Token lifetime',
            sortValue: (r) => r.config.accessToken.lifetime,
            render: (r) => `${r.config.accessToken.lifetime} s`,
          },
          { header: 'NHE tokens', sortValue: nheWords, render: nheWords },
          {
            header: 'Delete',
            render: (r) => <DeleteRs rs={r} onDeleted={bump} />,
          },
        ]}
      />
      <CreateRs
        onCreated={(rs) => {
          bump();
          go(rs.id);
        }}
      />
    </section>
  );
}

function DeleteRs(props: { rs: Rs; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.resource-servers.delete"
      kind="resource server"
      name={props.rs.name}
      what={`${props.rs.name} (${props.rs.identifier})`}
      label={props.label}
      consequence="Clients can no longer get tokens for it. This cannot be undone."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/resource-servers/{resourceServerId}', {
            params: { path: { ...tp(tenantId), resourceServerId: props.rs.id } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

interface RsDraft extends Record<string, unknown> {
  name: string;
  scopes: string[];
  scopeDescriptions: Record<string, string>;
  introspectionClientIds: string[];
  metadataUrl: string | undefined;
  config: {
    accessToken: { lifetime: number | undefined };
    nhe: { acceptDelegationTokens: boolean; requireDelegationTokens: boolean; allowedNheTypes: NheType[] };
  };
}

const toDraft = (r: Rs): RsDraft => ({
  name: r.name,
  scopes: r.scopes,
  scopeDescriptions: r.scopeDescriptions,
  introspectionClientIds: r.introspectionClientIds,
  metadataUrl: r.metadataUrl ?? undefined,
  config: {
    accessToken: { lifetime: r.config.accessToken.lifetime },
    nhe: {
      acceptDelegationTokens: r.config.nhe.acceptDelegationTokens,
      requireDelegationTokens: r.config.nhe.requireDelegationTokens,
      allowedNheTypes: r.config.nhe.allowedNheTypes as NheType[],
    },
  },
});

const LABELS: Record<string, string> = {
  name: 'name',
  scopes: 'scopes',
  scopeDescriptions: 'scope descriptions',
  introspectionClientIds: 'introspection clients',
  metadataUrl: 'metadata URL',
  'config.accessToken.lifetime': 'token lifetime',
  'config.nhe.acceptDelegationTokens': 'accepts delegation tokens',
  'config.nhe.requireDelegationTokens': 'requires delegation tokens',
  'config.nhe.allowedNheTypes': 'allowed NHE types',
};

function RsDetail(props: { id: string; onChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [rs, setRs] = useState<Rs | undefined>();
  const get = useAction();
  const path = { ...tp(tenantId), resourceServerId: props.id };
  useEffect(() => {
    void get
      .run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/resource-servers/{resourceServerId}', {
            params: { path: { ...tp(tenantId), resourceServerId: props.id } },
          }),
        ),
      )
      .then((r) => {
        if (r) setRs(r);
      });
  }, [api, tenantId, props.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const limits = useLimits('updateResourceServer');
  const ed = useEditor<Rs, RsDraft>({
    item: rs,
    toDraft,
    what: (r) => `resource server ${r.name}`,
    labels: LABELS,
    save: (patch) =>
      call(
        api.PATCH('/auth/admin/tenants/{tenantId}/resource-servers/{resourceServerId}', {
          params: { path },
          body: patch as never,
        }),
      ),
    onSaved: (r) => {
      setRs(r);
      props.onChanged();
    },
  });
  const d = ed.draft;
  const p = ed.problem;
  const { field } = bindFields(ed, limits);
  const setNhe = (n: Partial<RsDraft['config']['nhe']>) => {
    if (d) ed.set('config', { ...d.config, nhe: { ...d.config.nhe, ...n } });
  };
  return (
    <article className="card detail" aria-labelledby="rs-detail-heading" data-detail-rs={rs?.identifier}>
      <p>
        <a href="#/resource-servers">← All resource servers</a>
      </p>
      <h2 id="rs-detail-heading" tabIndex={-1} ref={heading}>
        Resource server {rs?.name ?? props.id}
      </h2>
      <ProblemBox problem={get.problem} />
      {rs && d ? (
        <form
          aria-label={`Edit resource server ${rs.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (!ed.jsonErrors.length) void ed.save();
          }}
        >
          <p className="meta">
            Identifier (the token audience, fixed): <code>{rs.identifier}</code>
          </p>
          <EditText label="Name" {...field('name')} required />
          <EditList label="Scopes" {...field('scopes')} />
          <EditJson
            label="Scope descriptions (scope → what the consent page says)"
            name="body.scopeDescriptions"
            problem={p}
            value={d.scopeDescriptions}
            hint='JSON, e.g. {"orders:read": "See your orders"}.'
            onChange={(v) => ed.set('scopeDescriptions', (v ?? {}) as Record<string, string>)}
            onInvalid={(why) => ed.jsonInvalid('scope descriptions', why)}
          />
          <EditNumber
            label="Access token lifetime (seconds)"
            name="body.config.accessToken.lifetime"
            problem={p}
            required
            limits={limits('config.accessToken.lifetime')}
            value={d.config.accessToken.lifetime}
            onChange={(v) => ed.set('config', { ...d.config, accessToken: { lifetime: v } })}
            hint="An NHE token takes it as one term of its lifetime, never below 60 s."
          />
          <fieldset>
            <legend>NHE delegation</legend>
            <EditCheck
              label="Accept NHE delegation tokens"
              name="body.config.nhe.acceptDelegationTokens"
              problem={p}
              checked={d.config.nhe.acceptDelegationTokens}
              onChange={(v) => setNhe({ acceptDelegationTokens: v })}
            />
            <EditCheck
              label="Require NHE delegation tokens (no ordinary tokens)"
              name="body.config.nhe.requireDelegationTokens"
              problem={p}
              checked={d.config.nhe.requireDelegationTokens}
              onChange={(v) => setNhe({ requireDelegationTokens: v })}
            />
            <EditChoices
              label="Allowed NHE types (none ticked: every type)"
              name="body.config.nhe.allowedNheTypes"
              problem={p}
              options={NHE_TYPES}
              value={d.config.nhe.allowedNheTypes}
              onChange={(v) => setNhe({ allowedNheTypes: v })}
            />
          </fieldset>
          <EditList label="Clients that may introspect its tokens (client ids)" {...field('introspectionClientIds')} />
          <EditText
            type="url"
            label="Protected resource metadata URL (RFC 9728; empty removes it)"
            name="body.metadataUrl"
            problem={p}
            limits={limits('metadataUrl')}
            value={d.metadataUrl ?? ''}
            onChange={(v) => ed.set('metadataUrl', v || undefined)}
          />
          <ProblemBox
            problem={p}
            shownFields={[
              'body.name',
              'body.scopes',
              'body.scopeDescriptions',
              'body.config',
              'body.introspectionClientIds',
              'body.metadataUrl',
            ]}
          />
          <SaveBar scope="auth.resource-servers.update" editor={ed} what={`resource server ${rs.name}`} />
          <div className="danger-zone">
            <DeleteRs rs={rs} label="Delete this resource server" onDeleted={props.onDeleted} />
          </div>
        </form>
      ) : null}
    </article>
  );
}

function CreateRs(props: { onCreated: (rs: Rs) => void }) {
  const createLimits = useLimits('createResourceServer');
  const { api, tenantId } = useConsole();
  const create = useAction();
  const empty = { name: '', identifier: '', scopes: '', lifetime: '3600', accept: true, require: false };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  const limits = useLimits('createResourceServer');
  const lifetime = limits('config.accessToken.lifetime');
  const onCreate = async () => {
    setDone('');
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
    if (rs) {
      setF(empty);
      setDone(`Created resource server ${rs.name} (${rs.identifier}); it is open above.`);
      props.onCreated(rs);
    }
  };
  return (
    <CreateForm label="Create a resource server" onSubmit={() => void onCreate()}>
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
        limits={createLimits('identifier')}
        label="Identifier (the token audience, e.g. https://api.example.com)"
        name="body.identifier"
        problem={create.problem}
        value={f.identifier}
        onChange={(v) => setF({ ...f, identifier: v })}
        required
      />
      <EditText
        limits={createLimits('scopes')}
        label="Scopes (space separated)"
        name="body.scopes"
        problem={create.problem}
        value={f.scopes}
        onChange={(v) => setF({ ...f, scopes: v })}
      />
      <EditNumber
        label="Access token lifetime (seconds)"
        name="body.config.accessToken.lifetime"
        problem={create.problem}
        limits={lifetime}
        value={f.lifetime === '' ? undefined : Number(f.lifetime)}
        onChange={(v) => setF({ ...f, lifetime: v === undefined ? '' : String(v) })}
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
      <ProblemBox
        problem={create.problem}
        shownFields={['body.name', 'body.identifier', 'body.scopes', 'body.config']}
      />
      <ScopedButton scope="auth.resource-servers.create" type="submit" busy={create.busy}>
        Create resource server
      </ScopedButton>
      <p role="status">{done}</p>
    </CreateForm>
  );
}
