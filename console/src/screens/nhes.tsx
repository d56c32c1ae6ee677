/**
 * NHE registrations (their count against settings.nhe.maxNhePerTenant): the list (search by identifier prefix, type
 * and status filters, cursor paging), each with its status as a badge and Disable/Enable and Delete beside it; the
 * detail page of an NHE with every field the API accepts (type, operator, scopes, lifetime, model, agent clients,
 * actor proof keys and workload identity), saved as a PATCH of what changed; and its delegation policies, each
 * editable in place, deleted after a confirmation, and created for a user, a group or another NHE.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  ConfirmButton,
  EditCheck,
  EditJson,
  EditList,
  EditNumber,
  EditSelect,
  EditText,
  ProblemBox,
  ResourceList,
  SaveBar,
  StatusBadge,
  detailHref,
  useDetailRoute,
  useEditor,
  useFocusOnOpen,
  useLimits,
  type PageQuery,
} from '../resource-ui';
import { bindFields, CreateForm, DeleteButton } from '../form-fields';
import { fmtDate, ScopedButton, splitList, useAction, useConsole } from '../ui';

type Nhe = Schemas['Nhe'];
type Policy = Schemas['DelegationPolicy'];
const NHE_TYPES = ['llm-assistive', 'llm-autonomous', 'automated-pipeline'] as const;

export function NhesScreen() {
  const { api, tenantId } = useConsole();
  const [selected, go] = useDetailRoute('nhes');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const [type, setType] = useState('');
  const [status, setStatus] = useState<'' | 'true' | 'false'>('');
  const [count, setCount] = useState<number | undefined>();
  const [max, setMax] = useState<number | undefined>();
  useEffect(() => {
    void call(
      api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/count', { params: { path: tp(tenantId) } }),
    ).then(
      (c) => setCount(c.count),
      () => undefined,
    );
    void call(api.GET('/auth/admin/tenants/{tenantId}', { params: { path: tp(tenantId) } })).then(
      (t) => setMax(t.settings.nhe.maxNhePerTenant),
      () => undefined,
    );
  }, [api, tenantId, reload]);
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities', {
          params: {
            path: tp(tenantId),
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { identifierPrefix: q.search } : {}),
              ...(type ? { type } : {}),
              ...(status ? { enabled: status } : {}),
            },
          },
        }),
      ),
    [api, tenantId, type, status],
  );
  return (
    <section>
      <p className="quota" data-testid="nhe-count">
        {count ?? '…'} of {max ?? '…'} NHE registrations used (settings.nhe.maxNhePerTenant)
      </p>
      {count !== undefined && max !== undefined ? (
        <progress max={max || 1} value={count} aria-label="NHE registrations used" />
      ) : null}
      {selected ? (
        <NheDetail
          key={selected}
          id={selected}
          onChanged={bump}
          onDeleted={() => {
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <h2>All NHE registrations</h2>
      <ResourceList<Nhe>
        label="NHE registrations"
        searchLabel="Identifier starts with"
        load={load}
        reloadKey={reload}
        rowKey={(n) => n.id}
        rowAttrs={(n) => ({ 'data-nhe': n.identifier })}
        filters={
          <>
            <span className="field">
              <label htmlFor="nhe-type-filter">Type</label>
              <select id="nhe-type-filter" value={type} onChange={(e) => setType(e.target.value)}>
                <option value="">Any type</option>
                {NHE_TYPES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            </span>
            <span className="field">
              <label htmlFor="nhe-status-filter">Status</label>
              <select
                id="nhe-status-filter"
                value={status}
                onChange={(e) => setStatus(e.target.value as '' | 'true' | 'false')}
              >
                <option value="">Enabled or disabled</option>
                <option value="true">Enabled</option>
                <option value="false">Disabled</option>
              </select>
            </span>
          </>
        }
        columns={[
          {
            header: 'Identifier',
            sortValue: (n) => n.identifier,
            render: (n) => (
              <a href={detailHref('nhes', n.id)}>
                <code>{n.identifier}</code>
              </a>
            ),
          },
          { header: 'Status', sortValue: (n) => (n.enabled ? 1 : 0), render: (n) => <StatusBadge on={n.enabled} /> },
          { header: 'Type', sortValue: (n) => n.type, render: (n) => n.type },
          { header: 'Operator', sortValue: (n) => n.operator.toLowerCase(), render: (n) => n.operator },
          { header: 'Allowed scopes', render: (n) => n.allowedScopes.join(' ') },
          { header: 'Max lifetime', sortValue: (n) => n.maxTokenLifetime, render: (n) => `${n.maxTokenLifetime} s` },
          { header: 'Actions', render: (n) => <NheActions nhe={n} onChanged={bump} /> },
        ]}
      />
      <CreateNhe
        onCreated={(n) => {
          bump();
          go(n.id);
        }}
      />
    </section>
  );
}

function NheActions(props: { nhe: Nhe; onChanged: () => void }) {
  const { api, tenantId } = useConsole();
  const n = props.nhe;
  const toggle = useAction();
  return (
    <div className="row-actions">
      <ScopedButton
        scope="auth.nhe.update"
        className="secondary"
        busy={toggle.busy}
        onClick={() =>
          void toggle
            .run(() =>
              call(
                api.PATCH('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
                  params: { path: { ...tp(tenantId), nheId: n.id } },
                  body: { enabled: !n.enabled },
                }),
              ),
            )
            .then((u) => {
              if (u) props.onChanged();
            })
        }
      >
        {n.enabled ? 'Disable' : 'Enable'}
        <span className="visually-hidden"> {n.identifier}</span>
      </ScopedButton>
      <DeleteNhe
        nhe={n}
        label={
          <>
            Delete<span className="visually-hidden"> {n.identifier}</span>
          </>
        }
        onDeleted={props.onChanged}
      />
      <ProblemBox problem={toggle.problem} />
    </div>
  );
}

function DeleteNhe(props: { nhe: Nhe; label?: ReactNode; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <DeleteButton
      scope="auth.nhe.delete"
      kind="NHE"
      name={props.nhe.identifier}
      label={props.label}
      consequence="Its delegation policies go with it and it can no longer get tokens; tokens already issued stay valid until they expire. This cannot be undone."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
            params: { path: { ...tp(tenantId), nheId: props.nhe.id } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

interface NheDraft extends Record<string, unknown> {
  type: string;
  operator: string;
  allowedScopes: string[];
  maxTokenLifetime: number | undefined;
  enabled: boolean;
  model: { name: string | undefined; version: string | undefined; provider: string | undefined } | undefined;
  agentClients: string[];
  jwksUri: string | undefined;
  jwks: unknown;
  workloadIdentity: { issuer: string; subject: string } | undefined;
  requireActorProof: boolean | null;
  requireKeyBoundDpop: boolean;
}

const toDraft = (n: Nhe): NheDraft => ({
  type: n.type,
  operator: n.operator,
  allowedScopes: n.allowedScopes,
  maxTokenLifetime: n.maxTokenLifetime,
  enabled: n.enabled,
  model: n.model ? { name: n.model.name, version: n.model.version, provider: n.model.provider } : undefined,
  agentClients: n.agentClients,
  jwksUri: n.jwksUri,
  jwks: n.jwks,
  workloadIdentity: n.workloadIdentity ? { ...n.workloadIdentity } : undefined,
  requireActorProof: n.requireActorProof,
  requireKeyBoundDpop: n.requireKeyBoundDpop,
});

const LABELS: Record<string, string> = {
  type: 'type',
  operator: 'operator',
  allowedScopes: 'allowed scopes',
  maxTokenLifetime: 'max token lifetime',
  enabled: 'status',
  model: 'model',
  agentClients: 'agent clients',
  jwksUri: 'key set URL',
  jwks: 'keys',
  workloadIdentity: 'workload identity',
  requireActorProof: 'actor proof',
  requireKeyBoundDpop: 'key-bound DPoP',
};

/** A model with no field set is removed (`null`), as the API takes it. */
const cleanModel = (m: NheDraft['model']) => {
  if (!m) return undefined;
  const out = Object.fromEntries(Object.entries(m).filter(([, v]) => v));
  return Object.keys(out).length ? out : undefined;
};

function NheDetail(props: { id: string; onChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [nhe, setNhe] = useState<Nhe | undefined>();
  const get = useAction();
  const path = { ...tp(tenantId), nheId: props.id };
  useEffect(() => {
    void get
      .run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
            params: { path: { ...tp(tenantId), nheId: props.id } },
          }),
        ),
      )
      .then((n) => {
        if (n) setNhe(n);
      });
  }, [api, tenantId, props.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const limits = useLimits('updateNhe');
  const ed = useEditor<Nhe, NheDraft>({
    item: nhe,
    toDraft,
    what: (n) => `NHE ${n.identifier}`,
    labels: LABELS,
    save: (patch) => {
      const body: Record<string, unknown> = { ...patch };
      // The model is replaced whole; an emptied one is removed.
      if ('model' in patch) body.model = cleanModel(patch.model as NheDraft['model']) ?? null;
      return call(
        api.PATCH('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}', {
          params: { path },
          body: body as never,
        }),
      );
    },
    onSaved: (n) => {
      setNhe(n);
      props.onChanged();
    },
  });
  const d = ed.draft;
  const p = ed.problem;
  const { field, plain, check } = bindFields(ed, limits);
  const model = d?.model ?? { name: undefined, version: undefined, provider: undefined };
  const wi = d?.workloadIdentity ?? { issuer: '', subject: '' };
  return (
    <article className="card detail" aria-labelledby="nhe-detail-heading" data-detail-nhe={nhe?.identifier}>
      <p>
        <a href="#/nhes">← All NHE registrations</a>
      </p>
      <h2 id="nhe-detail-heading" tabIndex={-1} ref={heading}>
        NHE {nhe?.identifier ?? props.id}
      </h2>
      <ProblemBox problem={get.problem} />
      {nhe && d ? (
        <form
          aria-label={`Edit NHE ${nhe.identifier}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (!ed.jsonErrors.length) void ed.save();
          }}
        >
          <p className="meta">
            Identifier (tokens name it act.sub = nhe:{nhe.identifier}; fixed): <code>{nhe.identifier}</code>.{' '}
            <StatusBadge on={nhe.enabled} /> Registered {fmtDate(nhe.createdAt)}.
          </p>
          <EditCheck label="Enabled (a disabled NHE gets no tokens)" {...check('enabled')} />
          <EditSelect
            label="Type"
            {...plain('type')}
            options={(NHE_TYPES.includes(d.type as never) ? NHE_TYPES : [d.type, ...NHE_TYPES]).map((t) => ({
              value: t,
              label: t,
            }))}
            hint="One of the tenant's allowed NHE types."
          />
          <EditText label="Operator" {...field('operator')} required />
          <EditList label="Allowed scopes" {...field('allowedScopes')} />
          <EditNumber
            label="Max token lifetime (seconds)"
            {...field('maxTokenLifetime')}
            hint="At most the tenant's hard maximum token lifetime."
          />
          <fieldset>
            <legend>Model</legend>
            <EditText
              label="Model name"
              name="body.model.name"
              problem={p}
              limits={limits('model.name')}
              value={model.name ?? ''}
              onChange={(v) => ed.set('model', { ...model, name: v || undefined })}
            />
            <EditText
              label="Model version"
              name="body.model.version"
              problem={p}
              limits={limits('model.version')}
              value={model.version ?? ''}
              onChange={(v) => ed.set('model', { ...model, version: v || undefined })}
            />
            <EditText
              label="Model provider"
              name="body.model.provider"
              problem={p}
              limits={limits('model.provider')}
              value={model.provider ?? ''}
              onChange={(v) => ed.set('model', { ...model, provider: v || undefined })}
            />
          </fieldset>
          <EditList
            label="Agent clients (client ids or metadata document URLs)"
            {...field('agentClients')}
            hint="OAuth clients that embody this NHE: their user tokens are delegation tokens. One a line; a URL may end with *."
          />
          <fieldset>
            <legend>Actor proof</legend>
            <EditSelect
              label="Require an actor proof"
              name="body.requireActorProof"
              problem={p}
              value={d.requireActorProof === null ? 'tenant' : d.requireActorProof ? 'yes' : 'no'}
              options={[
                { value: 'tenant', label: "As the tenant's setting says" },
                { value: 'yes', label: 'Yes: an actor JWT proving this NHE' },
                { value: 'no', label: 'No: the nhe-id actor token is enough' },
              ]}
              onChange={(v) => ed.set('requireActorProof', v === 'tenant' ? null : v === 'yes')}
            />
            <EditCheck label="Tokens must be DPoP-bound to one of its keys" {...check('requireKeyBoundDpop')} />
            <EditText
              type="url"
              label="Key set URL (https; empty removes it)"
              name="body.jwksUri"
              problem={p}
              limits={limits('jwksUri')}
              value={d.jwksUri ?? ''}
              onChange={(v) => ed.set('jwksUri', v || undefined)}
            />
            <EditJson
              label="Keys (a JWK set)"
              {...plain('jwks')}
              hint='JSON, e.g. {"keys": [...]}; empty removes them.'
              onInvalid={(why) => ed.jsonInvalid('keys', why)}
            />
            <EditText
              label="Workload identity issuer"
              name="body.workloadIdentity.issuer"
              problem={p}
              value={wi.issuer}
              onChange={(v) =>
                ed.set('workloadIdentity', v || wi.subject ? { issuer: v, subject: wi.subject } : undefined)
              }
            />
            <EditText
              label="Workload identity subject"
              name="body.workloadIdentity.subject"
              problem={p}
              value={wi.subject}
              onChange={(v) =>
                ed.set('workloadIdentity', v || wi.issuer ? { issuer: wi.issuer, subject: v } : undefined)
              }
              hint="A workload token (a Kubernetes service account, SPIFFE) with this issuer and subject proves the NHE."
            />
          </fieldset>
          <ProblemBox
            problem={p}
            shownFields={[
              'body.type',
              'body.operator',
              'body.allowedScopes',
              'body.maxTokenLifetime',
              'body.enabled',
              'body.model',
              'body.agentClients',
              'body.requireActorProof',
              'body.requireKeyBoundDpop',
              'body.jwksUri',
              'body.jwks',
              'body.workloadIdentity',
            ]}
          />
          <SaveBar scope="auth.nhe.update" editor={ed} what={`NHE ${nhe.identifier}`} />
          <div className="danger-zone">
            <DeleteNhe nhe={nhe} label="Delete this NHE" onDeleted={props.onDeleted} />
          </div>
        </form>
      ) : null}
      {nhe ? <Policies nhe={nhe} /> : null}
    </article>
  );
}

function CreateNhe(props: { onCreated: (n: Nhe) => void }) {
  const { api, tenantId } = useConsole();
  const limits = useLimits('createNhe');
  const create = useAction();
  const empty = {
    identifier: '',
    type: 'llm-assistive',
    operator: '',
    scopes: '',
    lifetime: undefined as number | undefined,
  };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  const onCreate = async () => {
    setDone('');
    const n = await create.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/non-human-entities', {
          params: { path: tp(tenantId) },
          body: {
            identifier: f.identifier,
            type: f.type,
            operator: f.operator,
            allowedScopes: splitList(f.scopes),
            ...(f.lifetime !== undefined ? { maxTokenLifetime: f.lifetime } : {}),
          },
        }),
      ),
    );
    if (n) {
      setF(empty);
      setDone(`Registered NHE ${n.identifier}; it is open above, with its delegation policies.`);
      props.onCreated(n);
    }
  };
  return (
    <CreateForm label="Register an NHE" onSubmit={() => void onCreate()}>
      <EditText
        label="Identifier"
        name="body.identifier"
        problem={create.problem}
        limits={limits('identifier')}
        value={f.identifier}
        onChange={(v) => setF({ ...f, identifier: v })}
        required
        hint="Letters, digits, dot, underscore, hyphen; tokens name the NHE act.sub = nhe:<identifier>."
      />
      <EditSelect
        label="Type"
        name="body.type"
        problem={create.problem}
        value={f.type}
        options={NHE_TYPES.map((t) => ({ value: t, label: t }))}
        onChange={(v) => setF({ ...f, type: v })}
        hint="One of the tenant's allowed NHE types."
      />
      <EditText
        label="Operator"
        name="body.operator"
        problem={create.problem}
        limits={limits('operator')}
        value={f.operator}
        onChange={(v) => setF({ ...f, operator: v })}
        required
      />
      <EditText
        label="Allowed scopes (space separated)"
        name="body.allowedScopes"
        problem={create.problem}
        value={f.scopes}
        onChange={(v) => setF({ ...f, scopes: v })}
      />
      <EditNumber
        label="Max token lifetime (seconds; empty: the tenant default)"
        name="body.maxTokenLifetime"
        problem={create.problem}
        limits={limits('maxTokenLifetime')}
        value={f.lifetime}
        onChange={(v) => setF({ ...f, lifetime: v })}
        hint="At most the tenant's hard maximum token lifetime."
      />
      <ProblemBox
        problem={create.problem}
        shownFields={['body.identifier', 'body.type', 'body.operator', 'body.allowedScopes', 'body.maxTokenLifetime']}
      />
      <ScopedButton scope="auth.nhe.create" type="submit" busy={create.busy}>
        Register NHE
      </ScopedButton>
      <p role="status">{done}</p>
    </CreateForm>
  );
}

interface Names {
  users: Schemas['User'][];
  groups: Schemas['Group'][];
  nhes: Nhe[];
}

function Policies(props: { nhe: Nhe }) {
  const { api, tenantId, can } = useConsole();
  const [items, setItems] = useState<Policy[]>([]);
  const [names, setNames] = useState<Names>({ users: [], groups: [], nhes: [] });
  const list = useAction();
  const create = useAction();
  const limits = useLimits('createDelegationPolicy');
  const [f, setF] = useState({
    target: '',
    scopes: '',
    lifetime: undefined as number | undefined,
    depth: undefined as number | undefined,
    signInAge: undefined as number | undefined,
  });
  const [done, setDone] = useState('');
  const path = { ...tp(tenantId), nheId: props.nhe.id };
  const load = useCallback(async () => {
    const page = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies', {
          params: { path: { ...tp(tenantId), nheId: props.nhe.id }, query: { limit: 100 } },
        }),
      ),
    );
    if (page) setItems(page.items);
  }, [api, tenantId, props.nhe.id]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
    const p = tp(tenantId);
    void Promise.all([
      can('auth.users.list')
        ? call(api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path: p, query: { limit: 200 } } })).then(
            (r) => r.items,
            () => [],
          )
        : [],
      can('auth.groups.list')
        ? call(api.GET('/auth/admin/tenants/{tenantId}/groups', { params: { path: p, query: { limit: 200 } } })).then(
            (r) => r.items,
            () => [],
          )
        : [],
      call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities', { params: { path: p, query: { limit: 200 } } }),
      ).then(
        (r) => r.items,
        () => [],
      ),
    ]).then(([users, groups, nhes]) => setNames({ users, groups, nhes }));
  }, [load, api, tenantId, can]);
  const targetName = (t: Policy['target']) =>
    (t.type === 'user'
      ? names.users.find((u) => u.id === t.id)?.username
      : t.type === 'group'
        ? names.groups.find((g) => g.id === t.id)?.name
        : names.nhes.find((n) => n.id === t.id)?.identifier) ?? t.id;
  return (
    <section aria-labelledby="policies-heading">
      <h3 id="policies-heading">Delegation policies of {props.nhe.identifier}</h3>
      <p className="hint">Who may delegate to this NHE, which scopes and for how long (RFC 8693 token exchange).</p>
      <ProblemBox problem={list.problem} />
      <ul className="plain policies" data-testid="policies">
        {items.length === 0 ? <li>No policy: this NHE may act for nobody.</li> : null}
        {items.map((p) => (
          <PolicyItem
            key={p.id}
            policy={p}
            name={`${p.target.type} ${targetName(p.target)}`}
            onChanged={() => void load()}
          />
        ))}
      </ul>
      <form
        aria-label="Create a delegation policy"
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
          const [type, id] = f.target.split(':') as ['user' | 'group' | 'nhe', string];
          void create
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies', {
                  params: { path },
                  body: {
                    target: { type, id },
                    allowedScopes: splitList(f.scopes),
                    ...(f.lifetime !== undefined ? { maxTokenLifetime: f.lifetime } : {}),
                    ...(f.depth !== undefined ? { maxChainDepth: f.depth } : {}),
                    ...(f.signInAge !== undefined ? { phishingResistantSignInMaxAgeMinutes: f.signInAge } : {}),
                  },
                }),
              ),
            )
            .then((p) => {
              if (p) {
                setDone(`Created the policy for ${p.target.type} ${targetName(p.target)}.`);
                setF({ target: '', scopes: '', lifetime: undefined, depth: undefined, signInAge: undefined });
                void load();
              }
            });
        }}
      >
        <h4>Add a policy</h4>
        <EditSelect
          label="On behalf of"
          name="body.target"
          problem={create.problem}
          value={f.target}
          options={[
            { value: '', label: 'Choose a user, group or NHE' },
            ...names.users.map((u) => ({ value: `user:${u.id}`, label: `user ${u.username}` })),
            ...names.groups.map((g) => ({ value: `group:${g.id}`, label: `group ${g.name}` })),
            ...names.nhes
              .filter((n) => n.id !== props.nhe.id)
              .map((n) => ({ value: `nhe:${n.id}`, label: `NHE ${n.identifier}` })),
          ]}
          onChange={(v) => setF({ ...f, target: v })}
          hint="An NHE here may hand a token it holds on to this one (needs a chain depth of 2 or more)."
        />
        <EditText
          label="Allowed scopes (space separated)"
          name="body.allowedScopes"
          problem={create.problem}
          value={f.scopes}
          onChange={(v) => setF({ ...f, scopes: v })}
        />
        <EditNumber
          label="Max token lifetime (seconds, optional)"
          name="body.maxTokenLifetime"
          problem={create.problem}
          limits={limits('maxTokenLifetime')}
          value={f.lifetime}
          onChange={(v) => setF({ ...f, lifetime: v })}
        />
        <EditNumber
          label="Max chain depth (optional)"
          name="body.maxChainDepth"
          problem={create.problem}
          limits={limits('maxChainDepth')}
          value={f.depth}
          onChange={(v) => setF({ ...f, depth: v })}
        />
        <EditNumber
          label="Needs a passkey sign-in within (minutes, optional)"
          name="body.phishingResistantSignInMaxAgeMinutes"
          problem={create.problem}
          limits={limits('phishingResistantSignInMaxAgeMinutes')}
          value={f.signInAge}
          onChange={(v) => setF({ ...f, signInAge: v })}
          hint={SIGN_IN_AGE_HINT}
        />
        <ProblemBox
          problem={create.problem}
          shownFields={[
            'body.target',
            'body.allowedScopes',
            'body.maxTokenLifetime',
            'body.maxChainDepth',
            'body.phishingResistantSignInMaxAgeMinutes',
          ]}
        />
        <ScopedButton scope="auth.nhe.policies.create" type="submit" busy={create.busy}>
          Create policy
        </ScopedButton>
        <p role="status">{done}</p>
      </form>
    </section>
  );
}

interface PolicyDraft extends Record<string, unknown> {
  allowedScopes: string[];
  maxTokenLifetime: number | undefined;
  maxChainDepth: number | undefined;
  phishingResistantSignInMaxAgeMinutes: number | undefined;
}

const policyDraft = (p: Policy): PolicyDraft => ({
  allowedScopes: p.allowedScopes,
  maxTokenLifetime: p.maxTokenLifetime,
  maxChainDepth: p.maxChainDepth,
  phishingResistantSignInMaxAgeMinutes: p.phishingResistantSignInMaxAgeMinutes,
});

/** Phishing-resistant delegation: what the policy's sign-in requirement means (libs/delegation sign-in.ts). */
const SIGN_IN_AGE_HINT =
  "The user's token must come from a passkey sign-in (acr phr or phrh) at most this many minutes old, else the exchange is refused (access_denied). Empty: the tenant's default; 0: never required. Users and groups only.";

/** The policy's sign-in requirement in words (the summary line). */
function signInAgeText(minutes: number | undefined): string {
  if (minutes === undefined) return '';
  return minutes === 0 ? ', no passkey sign-in required' : `, needs a passkey sign-in within ${minutes} min`;
}

/** One policy, editable in place (its target is fixed: a new target is a new policy). */
function PolicyItem(props: { policy: Policy; name: string; onChanged: () => void }) {
  const { api, tenantId } = useConsole();
  const [policy, setPolicy] = useState(props.policy);
  const limits = useLimits('updateDelegationPolicy');
  const path = { ...tp(tenantId), nheId: policy.nheId, policyId: policy.id };
  const ed = useEditor<Policy, PolicyDraft>({
    item: policy,
    toDraft: policyDraft,
    what: () => `the policy for ${props.name}`,
    labels: {
      allowedScopes: 'allowed scopes',
      maxTokenLifetime: 'max token lifetime',
      maxChainDepth: 'chain depth',
      phishingResistantSignInMaxAgeMinutes: 'passkey sign-in within',
    },
    save: (patch) =>
      call(
        api.PATCH('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies/{policyId}', {
          params: { path },
          body: patch as never,
        }),
      ),
    onSaved: setPolicy,
  });
  const d = ed.draft;
  if (!d) return null;
  return (
    <li data-policy={props.name}>
      <form
        className="policy"
        aria-label={`Policy for ${props.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void ed.save();
        }}
      >
        <p>
          For <strong>{props.name}</strong>: {policy.allowedScopes.join(' ') || 'no scope'}
          {policy.maxTokenLifetime ? `, at most ${policy.maxTokenLifetime} s` : ''}
          {policy.maxChainDepth ? `, chain depth ${policy.maxChainDepth}` : ''}
          {signInAgeText(policy.phishingResistantSignInMaxAgeMinutes)}
        </p>
        <EditList
          label={`Allowed scopes for ${props.name}`}
          name="body.allowedScopes"
          problem={ed.problem}
          limits={limits('allowedScopes')}
          value={d.allowedScopes}
          onChange={(v) => ed.set('allowedScopes', v)}
        />
        <EditNumber
          label={`Max token lifetime for ${props.name} (seconds; empty: none)`}
          name="body.maxTokenLifetime"
          problem={ed.problem}
          limits={limits('maxTokenLifetime')}
          value={d.maxTokenLifetime}
          onChange={(v) => ed.set('maxTokenLifetime', v)}
        />
        <EditNumber
          label={`Max chain depth for ${props.name} (empty: the default)`}
          name="body.maxChainDepth"
          problem={ed.problem}
          limits={limits('maxChainDepth')}
          value={d.maxChainDepth}
          onChange={(v) => ed.set('maxChainDepth', v)}
        />
        <EditNumber
          label={`Needs a passkey sign-in within, for ${props.name} (minutes; empty: the tenant default)`}
          name="body.phishingResistantSignInMaxAgeMinutes"
          problem={ed.problem}
          limits={limits('phishingResistantSignInMaxAgeMinutes')}
          value={d.phishingResistantSignInMaxAgeMinutes}
          onChange={(v) => ed.set('phishingResistantSignInMaxAgeMinutes', v)}
          hint={SIGN_IN_AGE_HINT}
        />
        <ProblemBox
          problem={ed.problem}
          shownFields={[
            'body.allowedScopes',
            'body.maxTokenLifetime',
            'body.maxChainDepth',
            'body.phishingResistantSignInMaxAgeMinutes',
          ]}
        />
        <SaveBar scope="auth.nhe.policies.update" editor={ed} what={`policy for ${props.name}`} />
        <ConfirmButton
          scope="auth.nhe.policies.delete"
          label={`Delete the policy for ${props.name}`}
          question={`Delete the policy for ${props.name}?`}
          consequence={`${props.name} can no longer delegate to this NHE through it; tokens already issued stay valid until they expire.`}
          confirm="Really delete the policy"
          onConfirm={async () => {
            await call(
              api.DELETE('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-policies/{policyId}', {
                params: { path },
              }),
            );
            props.onChanged();
          }}
        />
      </form>
    </li>
  );
}
