/**
 * Tenants: for system administrators the list (search by name prefix, cursor paging), each row with its status
 * (Enabled / Disabled, Tenant.enabled) and Open (the console switches to it), Disable / Enable (the whole tenant:
 * disabling lists what stops and is confirmed by typing the tenant's name), NHE delegation on/off (a status badge, the
 * action beside it, a separate setting) and Delete (the consequences listed, confirmed by typing the tenant's name);
 * create; and the detail page of a tenant with every setting the API
 * accepts (name, settings.nhe, settings.claims, settings.security, settings.clientIdMetadataDocuments,
 * settings.registration), saved as a PATCH of what changed, the API's limits on the inputs and its reasons at the
 * fields. A tenant administrator sees their own tenant's page only.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiProblem, call, tp, type Api, type Problem, type Schemas } from '../api';
import {
  ConfirmButton,
  EditCheck,
  EditChoices,
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
  type InputLimits,
  type PageQuery,
} from '../resource-ui';
import { fmtDate, ScopedButton, useAction, useConsole } from '../ui';

type Tenant = Schemas['Tenant'];
type NheSettings = Tenant['settings']['nhe'];
const NHE_TYPES = ['llm-autonomous', 'llm-assistive', 'automated-pipeline'] as const;
type NheType = (typeof NHE_TYPES)[number];
const REGISTRATION_MODES = ['off', 'initial-access-token', 'open'] as const;
const REGISTRATION_GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const;
const REGISTRATION_AUTH_METHODS = ['none', 'private_key_jwt'] as const;

/** The spec's defaults of settings.nhe (a new tenant's form starts with them). */
export const NHE_DEFAULTS: Pick<
  NheSettings,
  | 'enabled'
  | 'defaultMaxTokenLifetime'
  | 'hardMaxTokenLifetime'
  | 'requireDpop'
  | 'allowedNheTypes'
  | 'maxNhePerTenant'
  | 'auditRetentionDays'
  | 'requireActorProof'
> = {
  enabled: false,
  defaultMaxTokenLifetime: 300,
  hardMaxTokenLifetime: 900,
  requireDpop: false,
  allowedNheTypes: [...NHE_TYPES],
  maxNhePerTenant: 50,
  auditRetentionDays: 90,
  requireActorProof: false,
};

const notify = () => window.dispatchEvent(new Event('idp-tenants-changed'));

export function TenantsScreen() {
  const { tenantId, session } = useConsole();
  const [selected, go] = useDetailRoute('tenants');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  // The list alone (the open detail keeps its state, e.g. what it just said it did).
  const [listReload, setListReload] = useState(0);
  const bumpList = useCallback(() => setListReload((n) => n + 1), []);
  // A tenant administrator has only their own tenant; a system administrator opens any from the list.
  const shown = session.system && selected ? Number(selected) : tenantId;
  return (
    <section>
      <TenantDetail
        key={`${shown}-${reload}`}
        id={shown}
        onChanged={bump}
        onListChanged={bumpList}
        onDeleted={() => {
          go(undefined);
          bump();
        }}
      />
      {session.system ? (
        <>
          <TenantList reloadKey={`${reload}-${listReload}`} onChanged={bump} />
          <CreateTenant
            onCreated={() => {
              bump();
            }}
          />
        </>
      ) : null}
    </section>
  );
}

function TenantList(props: { reloadKey: unknown; onChanged: () => void }) {
  const { api } = useConsole();
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants', {
          params: {
            query: {
              limit: q.limit,
              ...(q.cursor ? { cursor: q.cursor } : {}),
              ...(q.search ? { namePrefix: q.search } : {}),
            },
          },
        }),
      ),
    [api],
  );
  return (
    <>
      <h2>All tenants</h2>
      <ResourceList<Tenant>
        label="Tenants"
        searchLabel="Name starts with"
        load={load}
        reloadKey={props.reloadKey}
        rowKey={(t) => String(t.id)}
        rowAttrs={(t) => ({ 'data-tenant-row': String(t.id) })}
        columns={[
          {
            header: 'Id',
            sortValue: (t) => t.id,
            render: (t) => <a href={detailHref('tenants', String(t.id))}>{t.id}</a>,
          },
          {
            header: 'Name',
            sortValue: (t) => t.name.toLowerCase(),
            render: (t) => (
              <a href={detailHref('tenants', String(t.id))}>
                {t.name}
                {t.system ? ' (system)' : ''}
              </a>
            ),
          },
          {
            header: 'Status',
            sortValue: (t) => (t.enabled ? 1 : 0),
            render: (t) => <StatusBadge on={t.enabled} />,
          },
          {
            header: 'NHE delegation',
            sortValue: (t) => (t.settings.nhe.enabled ? 1 : 0),
            render: (t) => <StatusBadge on={t.settings.nhe.enabled} onText="On" offText="Off" />,
          },
          {
            header: 'Security',
            sortValue: (t) => t.settings.security.profile,
            render: (t) => t.settings.security.profile,
          },
          { header: 'Created', sortValue: (t) => t.createdAt, render: (t) => fmtDate(t.createdAt) },
          { header: 'Actions', render: (t) => <TenantActions tenant={t} onChanged={props.onChanged} /> },
        ]}
      />
    </>
  );
}

function TenantActions(props: { tenant: Tenant; onChanged: () => void }) {
  const { api, switchTenant, tenantId } = useConsole();
  const t = props.tenant;
  const toggle = useAction();
  const [done, setDone] = useState('');
  return (
    <div className="row-actions">
      <button
        type="button"
        disabled={t.id === tenantId}
        onClick={() => {
          switchTenant?.(t.id);
          window.location.hash = '#/tenants';
        }}
      >
        {t.id === tenantId ? 'Open now' : 'Open'}
        <span className="visually-hidden"> {t.name}</span>
      </button>
      <ScopedButton
        scope="auth.tenants.update"
        className="secondary"
        busy={toggle.busy}
        onClick={() =>
          void toggle
            .run(() =>
              call(
                api.PATCH('/auth/admin/tenants/{tenantId}', {
                  params: { path: tp(t.id) },
                  body: { settings: { nhe: { enabled: !t.settings.nhe.enabled } } },
                }),
              ),
            )
            .then((u) => {
              if (u) {
                setDone(
                  u.settings.nhe.enabled
                    ? `NHE delegation turned on for ${u.name}.`
                    : `NHE delegation turned off for ${u.name}; its NHE tokens are revoked.`,
                );
                props.onChanged();
              }
            })
        }
      >
        {t.settings.nhe.enabled ? 'Turn NHE delegation off' : 'Turn NHE delegation on'}
        <span className="visually-hidden"> for {t.name}</span>
      </ScopedButton>
      {t.system ? null : <TenantEnabledButton tenant={t} onChanged={props.onChanged} inRow />}
      {t.system ? null : (
        <DeleteTenant
          tenant={t}
          label={
            <>
              Delete<span className="visually-hidden"> {t.name}</span>
            </>
          }
          onDeleted={props.onChanged}
        />
      )}
      <ProblemBox problem={toggle.problem} />
      {done ? <span role="status">{done}</span> : null}
    </div>
  );
}

/**
 * Disables or enables the whole tenant (Tenant.enabled; system-tenant administrators only, never the system tenant).
 * Disabling stops every sign-in and token of the tenant, so it is confirmed by typing the tenant's name; enabling
 * again is confirmed plainly. Either way the console then says what happened.
 */
function TenantEnabledButton(props: { tenant: Tenant; onChanged: (t: Tenant) => void; inRow?: boolean }) {
  const { api, session } = useConsole();
  const [done, setDone] = useState('');
  const enable = useAction();
  const t = props.tenant;
  if (!session.system || t.system) return null;
  const hidden = props.inRow ? <span className="visually-hidden"> {t.name}</span> : null;
  const save = async (enabled: boolean) => {
    const u = await call(
      api.PATCH('/auth/admin/tenants/{tenantId}', { params: { path: tp(t.id) }, body: { enabled } }),
    );
    setDone(
      u.enabled
        ? `Tenant ${u.name} enabled: its sign-ins, tokens and delegation work again.`
        : `Tenant ${u.name} disabled: its endpoints now refuse every request and its tokens introspect as inactive.`,
    );
    notify();
    props.onChanged(u);
  };
  return (
    <>
      {t.enabled ? (
        <ConfirmButton
          scope="auth.tenants.update"
          label={<>Disable tenant{hidden}</>}
          question={`Disable the tenant ${t.name} (${t.id})?`}
          typeToConfirm={t.name}
          consequence={
            <ul>
              <li>
                Its sign-in pages, authorization, token, UserInfo, discovery and JWKS endpoints answer 403
                (access_denied, “tenant disabled”): nobody signs in and no client gets a token.
              </li>
              <li>
                Every token it issued introspects as inactive, and the delegation sidecar exchanges none; resource
                servers that check tokens themselves stop accepting them once their cached keys expire.
              </li>
              <li>Its own administrators can no longer use the management API or this console for it.</li>
              <li>Nothing is deleted: platform administrators keep managing it and can enable it again.</li>
            </ul>
          }
          confirm={`Really disable ${t.name}`}
          onConfirm={() => save(false)}
        />
      ) : (
        // Enabling again takes nothing away: no confirmation, the result said beside it.
        <ScopedButton
          scope="auth.tenants.update"
          className="secondary"
          busy={enable.busy}
          onClick={() => void enable.run(() => save(true))}
        >
          Enable tenant{hidden}
        </ScopedButton>
      )}
      <ProblemBox problem={enable.problem} />
      {done ? <span role="status">{done}</span> : null}
    </>
  );
}

function DeleteTenant(props: { tenant: Tenant; label?: ReactNode; onDeleted: () => void }) {
  const { api, switchTenant, tenantId, session } = useConsole();
  const t = props.tenant;
  return (
    <ConfirmButton
      scope="auth.tenants.delete"
      label={props.label ?? `Delete ${t.name}`}
      question={`Delete the tenant ${t.name} (${t.id})?`}
      typeToConfirm={t.name}
      consequence={
        <ul>
          <li>
            Only an empty tenant can be deleted: delete its clients, users, groups, roles, resource servers and NHE
            registrations first (the console checks, and names what is left).
          </li>
          <li>Its built-in admin-console client goes with it: its administrators can no longer sign in to it.</li>
          <li>
            Its signing keys, workload issuers, trusted issuers, ID-JAG audiences, upstream identity providers and
            pending password resets are deleted with it; its issuer stops answering.
          </li>
          <li>
            Its id {t.id} is never given to another tenant. Its token audit rows stay until the retention job removes
            them ({t.settings.nhe.auditRetentionDays} days).
          </li>
          <li>This cannot be undone.</li>
        </ul>
      }
      confirm={`Really delete ${t.name}`}
      onConfirm={async () => {
        const left = await tenantContents(api, t.id);
        if (left.length)
          throw new ApiProblem({
            type: 'https://idp.dev/problems/conflict',
            title: 'The tenant is not empty',
            status: 409,
            detail: `Delete these first: ${left.join('; ')}`,
          });
        // The API deletes the built-in console client with the tenant (it is the tenant's own, like its keys).
        await call(api.DELETE('/auth/admin/tenants/{tenantId}', { params: { path: tp(t.id) } }));
        if (tenantId === t.id) switchTenant?.(session.tenantId);
        notify();
        props.onDeleted();
      }}
    />
  );
}

const CONSOLE_CLIENT_ID = 'admin-console';

/** What is still in a tenant (the API deletes only an empty one), in words: `clients: orders-app, cli`. */
async function tenantContents(api: Api, id: number): Promise<string[]> {
  const path = tp(id);
  const q = { limit: 5 };
  const [clients, users, groups, roles, rss, nhes] = await Promise.all([
    call(api.GET('/auth/admin/tenants/{tenantId}/clients', { params: { path, query: { limit: 6 } } })),
    call(api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path, query: q } })),
    call(api.GET('/auth/admin/tenants/{tenantId}/groups', { params: { path, query: q } })),
    call(api.GET('/auth/admin/tenants/{tenantId}/roles', { params: { path, query: q } })),
    call(api.GET('/auth/admin/tenants/{tenantId}/resource-servers', { params: { path, query: q } })),
    call(api.GET('/auth/admin/tenants/{tenantId}/non-human-entities', { params: { path, query: q } })),
  ]);
  const words = (what: string, names: string[], more: boolean) =>
    names.length ? [`${what}: ${names.join(', ')}${more ? ' and more' : ''}`] : [];
  const otherClients = clients.items.filter((c) => c.clientId !== CONSOLE_CLIENT_ID);
  return [
    ...words(
      'clients',
      otherClients.map((c) => c.clientId),
      Boolean(clients.nextCursor),
    ),
    ...words(
      'users',
      users.items.map((u) => u.username),
      Boolean(users.nextCursor),
    ),
    ...words(
      'groups',
      groups.items.map((g) => g.name),
      Boolean(groups.nextCursor),
    ),
    ...words(
      'roles',
      roles.items.map((r) => r.name),
      Boolean(roles.nextCursor),
    ),
    ...words(
      'resource servers',
      rss.items.map((r) => r.identifier),
      Boolean(rss.nextCursor),
    ),
    ...words(
      'NHE registrations',
      nhes.items.map((n) => n.identifier),
      Boolean(nhes.nextCursor),
    ),
  ];
}

interface TenantDraft extends Record<string, unknown> {
  name: string;
  settings: {
    nhe: {
      enabled: boolean;
      defaultMaxTokenLifetime: number | undefined;
      hardMaxTokenLifetime: number | undefined;
      requireDpop: boolean;
      allowedNheTypes: NheType[];
      maxNhePerTenant: number | undefined;
      auditRetentionDays: number | undefined;
      requireActorProof: boolean;
      maxChainDepth: number | undefined;
      phishingResistantSignInMaxAgeMinutes: number | undefined;
    };
    claims: {
      amrProfile: 'rfc8176' | 'projected';
      ga4ghPassport: { enabled: boolean; visaLifetimeSeconds: number | undefined };
    };
    security: { profile: 'standard' | 'fapi2' };
    clientIdMetadataDocuments: {
      enabled: boolean;
      allowedHosts: string[];
      cacheMaxSeconds: number | undefined;
      maxDocumentBytes: number | undefined;
    };
    registration: {
      mode: (typeof REGISTRATION_MODES)[number];
      grantTypes: Array<(typeof REGISTRATION_GRANT_TYPES)[number]>;
      tokenEndpointAuthMethods: Array<(typeof REGISTRATION_AUTH_METHODS)[number]>;
      rateLimit: { maxPerWindow: number | undefined; windowSeconds: number | undefined };
    };
  };
}

const toDraft = (t: Tenant): TenantDraft => {
  const s = t.settings;
  return {
    name: t.name,
    settings: {
      nhe: {
        enabled: s.nhe.enabled,
        defaultMaxTokenLifetime: s.nhe.defaultMaxTokenLifetime,
        hardMaxTokenLifetime: s.nhe.hardMaxTokenLifetime,
        requireDpop: s.nhe.requireDpop,
        allowedNheTypes: s.nhe.allowedNheTypes as NheType[],
        maxNhePerTenant: s.nhe.maxNhePerTenant,
        auditRetentionDays: s.nhe.auditRetentionDays,
        requireActorProof: s.nhe.requireActorProof,
        maxChainDepth: s.nhe.maxChainDepth,
        phishingResistantSignInMaxAgeMinutes: s.nhe.phishingResistantSignInMaxAgeMinutes,
      },
      claims: {
        amrProfile: s.claims.amrProfile,
        ga4ghPassport: {
          enabled: s.claims.ga4ghPassport.enabled,
          visaLifetimeSeconds: s.claims.ga4ghPassport.visaLifetimeSeconds,
        },
      },
      security: { profile: s.security.profile },
      clientIdMetadataDocuments: {
        enabled: s.clientIdMetadataDocuments.enabled,
        allowedHosts: s.clientIdMetadataDocuments.allowedHosts,
        cacheMaxSeconds: s.clientIdMetadataDocuments.cacheMaxSeconds,
        maxDocumentBytes: s.clientIdMetadataDocuments.maxDocumentBytes,
      },
      registration: {
        mode: s.registration.mode,
        grantTypes: s.registration.grantTypes as TenantDraft['settings']['registration']['grantTypes'],
        tokenEndpointAuthMethods: s.registration
          .tokenEndpointAuthMethods as TenantDraft['settings']['registration']['tokenEndpointAuthMethods'],
        rateLimit: {
          maxPerWindow: s.registration.rateLimit.maxPerWindow,
          windowSeconds: s.registration.rateLimit.windowSeconds,
        },
      },
    },
  };
};

const LABELS: Record<string, string> = {
  name: 'name',
  'settings.nhe.enabled': 'NHE delegation',
  'settings.nhe.defaultMaxTokenLifetime': 'default max token lifetime',
  'settings.nhe.hardMaxTokenLifetime': 'hard max token lifetime',
  'settings.nhe.requireDpop': 'DPoP requirement',
  'settings.nhe.allowedNheTypes': 'allowed NHE types',
  'settings.nhe.maxNhePerTenant': 'max NHEs per tenant',
  'settings.nhe.auditRetentionDays': 'audit retention',
  'settings.nhe.requireActorProof': 'actor proof requirement',
  'settings.nhe.maxChainDepth': 'max delegation chain depth',
  'settings.nhe.phishingResistantSignInMaxAgeMinutes': 'passkey sign-in requirement',
  'settings.claims.amrProfile': 'amr profile',
  'settings.claims.ga4ghPassport.enabled': 'GA4GH passports',
  'settings.claims.ga4ghPassport.visaLifetimeSeconds': 'visa lifetime',
  'settings.security.profile': 'security profile',
  'settings.clientIdMetadataDocuments.enabled': 'client ID metadata documents',
  'settings.clientIdMetadataDocuments.allowedHosts': 'allowed metadata hosts',
  'settings.clientIdMetadataDocuments.cacheMaxSeconds': 'metadata cache time',
  'settings.clientIdMetadataDocuments.maxDocumentBytes': 'metadata document size',
  'settings.registration.mode': 'registration mode',
  'settings.registration.grantTypes': 'registration grant types',
  'settings.registration.tokenEndpointAuthMethods': 'registration authentication methods',
  'settings.registration.rateLimit.maxPerWindow': 'registration rate limit',
  'settings.registration.rateLimit.windowSeconds': 'registration rate window',
};

/** The settings.nhe fields, shared by the detail page and the create form. */
function NheSettingsFields(props: {
  nhe: TenantDraft['settings']['nhe'];
  set: (n: Partial<TenantDraft['settings']['nhe']>) => void;
  problem: Problem | undefined;
  limits: (field: string) => InputLimits;
  quotaEditable: boolean;
  compact?: boolean;
}) {
  const { nhe: n, set, problem: p, limits } = props;
  return (
    <fieldset>
      <legend>NHE delegation (settings.nhe)</legend>
      <EditCheck
        label="NHE delegation enabled"
        name="body.settings.nhe.enabled"
        problem={p}
        checked={n.enabled}
        onChange={(v) => set({ enabled: v })}
        hint="Default off: token exchange for non-human entities is refused until an admin turns it on. Turning it off revokes the tenant's NHE tokens."
      />
      <EditNumber
        label="Default max token lifetime (seconds)"
        name="body.settings.nhe.defaultMaxTokenLifetime"
        problem={p}
        limits={limits('settings.nhe.defaultMaxTokenLifetime')}
        value={n.defaultMaxTokenLifetime}
        onChange={(v) => set({ defaultMaxTokenLifetime: v })}
        hint="Default 300, never above the hard maximum: an NHE without its own lifetime gets this one."
      />
      <EditNumber
        label="Hard max token lifetime (seconds)"
        name="body.settings.nhe.hardMaxTokenLifetime"
        problem={p}
        limits={limits('settings.nhe.hardMaxTokenLifetime')}
        value={n.hardMaxTokenLifetime}
        onChange={(v) => set({ hardMaxTokenLifetime: v })}
        hint="Default 900. No NHE, policy or client lifetime may exceed it."
      />
      <EditCheck
        label="Require DPoP"
        name="body.settings.nhe.requireDpop"
        problem={p}
        checked={n.requireDpop}
        onChange={(v) => set({ requireDpop: v })}
        hint="On: every NHE token is sender-constrained (RFC 9449, a DPoP proof at the exchange)."
      />
      <EditChoices
        label="Allowed NHE types"
        name="body.settings.nhe.allowedNheTypes"
        problem={p}
        options={NHE_TYPES}
        value={n.allowedNheTypes}
        onChange={(v) => set({ allowedNheTypes: v })}
      />
      <EditNumber
        label="Max NHEs per tenant"
        name="body.settings.nhe.maxNhePerTenant"
        problem={p}
        limits={limits('settings.nhe.maxNhePerTenant')}
        value={n.maxNhePerTenant}
        disabled={!props.quotaEditable}
        onChange={(v) => set({ maxNhePerTenant: v })}
        hint="A platform quota: only system-tenant administrators change it."
      />
      <EditNumber
        label="Audit retention (days)"
        name="body.settings.nhe.auditRetentionDays"
        problem={p}
        limits={limits('settings.nhe.auditRetentionDays')}
        value={n.auditRetentionDays}
        onChange={(v) => set({ auditRetentionDays: v })}
        hint="0 keeps rows forever; the nhe-audit-retention job deletes older token-audit rows."
      />
      {props.compact ? null : (
        <>
          <EditCheck
            label="Require an actor proof"
            name="body.settings.nhe.requireActorProof"
            problem={p}
            checked={n.requireActorProof}
            onChange={(v) => set({ requireActorProof: v })}
            hint="On: token exchange needs an actor JWT proving the NHE (RFC 8693 actor_token); an NHE's own setting overrides it."
          />
          <EditNumber
            label="Max delegation chain depth"
            name="body.settings.nhe.maxChainDepth"
            problem={p}
            limits={limits('settings.nhe.maxChainDepth')}
            value={n.maxChainDepth}
            onChange={(v) => set({ maxChainDepth: v })}
            hint="1: an NHE token cannot be exchanged again; 2 or more: NHEs may hand tokens on (RFC 8693 section 4.1 nested act) where policies allow it."
          />
          <EditNumber
            label="Delegation needs a passkey sign-in within (minutes)"
            name="body.settings.nhe.phishingResistantSignInMaxAgeMinutes"
            problem={p}
            limits={limits('settings.nhe.phishingResistantSignInMaxAgeMinutes')}
            value={n.phishingResistantSignInMaxAgeMinutes}
            onChange={(v) => set({ phishingResistantSignInMaxAgeMinutes: v })}
            hint="The default of delegation policies without their own: the user's token must come from a passkey sign-in (acr phr or phrh) at most this many minutes old. 0: no requirement (the default)."
          />
        </>
      )}
    </fieldset>
  );
}

function TenantDetail(props: { id: number; onChanged: () => void; onListChanged: () => void; onDeleted: () => void }) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, session, tenantId } = useConsole();
  const [tenant, setTenant] = useState<Tenant | undefined>();
  const get = useAction();
  useEffect(() => {
    void get
      .run(() => call(api.GET('/auth/admin/tenants/{tenantId}', { params: { path: tp(props.id) } })))
      .then((t) => {
        if (t) setTenant(t);
      });
  }, [api, props.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const limits = useLimits('updateTenant');
  const ed = useEditor<Tenant, TenantDraft>({
    item: tenant,
    toDraft,
    what: (t) => `tenant ${t.name}`,
    labels: LABELS,
    save: (patch) =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}', { params: { path: tp(props.id) }, body: patch as never })),
    onSaved: (t) => {
      setTenant(t);
      notify();
    },
  });
  const d = ed.draft;
  const p = ed.problem;
  const setS = <K extends keyof TenantDraft['settings']>(k: K, v: Partial<TenantDraft['settings'][K]>) => {
    if (d) ed.set('settings', { ...d.settings, [k]: { ...d.settings[k], ...v } });
  };
  const s = d?.settings;
  return (
    <article className="card detail" aria-labelledby="tenant-detail-heading" data-detail-tenant={props.id}>
      {session.system && props.id !== tenantId ? (
        <p>
          <a href="#/tenants">← The open tenant ({tenantId})</a>
        </p>
      ) : null}
      <h2 id="tenant-detail-heading" tabIndex={-1} ref={heading}>
        Tenant {props.id}
        {tenant ? ` · ${tenant.name}` : ''}
      </h2>
      <ProblemBox problem={get.problem} />
      {tenant ? (
        <div className="meta status-row" data-tenant-status={tenant.enabled ? 'enabled' : 'disabled'}>
          <span>
            Status: <StatusBadge on={tenant.enabled} />
          </span>{' '}
          <TenantEnabledButton
            tenant={tenant}
            onChanged={(u) => {
              setTenant(u);
              props.onListChanged();
            }}
          />
        </div>
      ) : null}
      {tenant && d && s ? (
        <form
          aria-label="Tenant settings"
          onSubmit={(e) => {
            e.preventDefault();
            void ed.save();
          }}
        >
          <p className="meta">
            {tenant.system ? 'The system tenant. ' : ''}Created {fmtDate(tenant.createdAt)}, last changed{' '}
            {fmtDate(tenant.updatedAt)}. NHE delegation{' '}
            <StatusBadge on={tenant.settings.nhe.enabled} onText="On" offText="Off" />
          </p>
          <EditText
            label="Name"
            name="body.name"
            problem={p}
            limits={limits('name')}
            value={d.name}
            required
            onChange={(v) => ed.set('name', v)}
          />
          <NheSettingsFields
            nhe={s.nhe}
            set={(n) => setS('nhe', n)}
            problem={p}
            limits={limits}
            quotaEditable={session.system}
          />
          <fieldset>
            <legend>Security profile (settings.security)</legend>
            <EditSelect
              label="Profile"
              name="body.settings.security.profile"
              problem={p}
              value={s.security.profile}
              disabled={tenant.system}
              options={[
                { value: 'standard', label: 'standard: OpenID Connect and OAuth' },
                { value: 'fapi2', label: 'fapi2: FAPI 2.0 Security Profile' },
              ]}
              onChange={(v) => setS('security', { profile: v })}
              hint="fapi2: pushed authorization requests, DPoP-bound tokens, private_key_jwt only, PKCE S256; other clients get invalid_client. Not for the system tenant."
            />
          </fieldset>
          <fieldset>
            <legend>Claims (settings.claims)</legend>
            <EditSelect
              label="amr profile"
              name="body.settings.claims.amrProfile"
              problem={p}
              value={s.claims.amrProfile}
              options={[
                { value: 'rfc8176', label: 'rfc8176: the registered values of RFC 8176' },
                { value: 'projected', label: 'projected: the values as the upstream gave them' },
              ]}
              onChange={(v) => setS('claims', { amrProfile: v })}
            />
            <EditCheck
              label="GA4GH passports"
              name="body.settings.claims.ga4ghPassport.enabled"
              problem={p}
              checked={s.claims.ga4ghPassport.enabled}
              onChange={(v) => setS('claims', { ga4ghPassport: { ...s.claims.ga4ghPassport, enabled: v } })}
            />
            <EditNumber
              label="Visa lifetime (seconds)"
              name="body.settings.claims.ga4ghPassport.visaLifetimeSeconds"
              problem={p}
              limits={limits('settings.claims.ga4ghPassport.visaLifetimeSeconds')}
              value={s.claims.ga4ghPassport.visaLifetimeSeconds}
              onChange={(v) => setS('claims', { ga4ghPassport: { ...s.claims.ga4ghPassport, visaLifetimeSeconds: v } })}
            />
          </fieldset>
          <fieldset>
            <legend>Client ID Metadata Documents (settings.clientIdMetadataDocuments)</legend>
            <EditCheck
              label="Accept client ids that are metadata document URLs"
              name="body.settings.clientIdMetadataDocuments.enabled"
              problem={p}
              checked={s.clientIdMetadataDocuments.enabled}
              disabled={tenant.system}
              onChange={(v) => setS('clientIdMetadataDocuments', { enabled: v })}
              hint="Documents are fetched SSRF-safe (no private or loopback addresses, no redirects, size and time caps)."
            />
            <EditList
              label="Allowed hosts (mcp.example.com, *.example.com)"
              name="body.settings.clientIdMetadataDocuments.allowedHosts"
              problem={p}
              limits={limits('settings.clientIdMetadataDocuments.allowedHosts')}
              value={s.clientIdMetadataDocuments.allowedHosts}
              onChange={(v) => setS('clientIdMetadataDocuments', { allowedHosts: v })}
            />
            <EditNumber
              label="Cache documents for at most (seconds)"
              name="body.settings.clientIdMetadataDocuments.cacheMaxSeconds"
              problem={p}
              limits={limits('settings.clientIdMetadataDocuments.cacheMaxSeconds')}
              value={s.clientIdMetadataDocuments.cacheMaxSeconds}
              onChange={(v) => setS('clientIdMetadataDocuments', { cacheMaxSeconds: v })}
            />
            <EditNumber
              label="Largest document (bytes)"
              name="body.settings.clientIdMetadataDocuments.maxDocumentBytes"
              problem={p}
              limits={limits('settings.clientIdMetadataDocuments.maxDocumentBytes')}
              value={s.clientIdMetadataDocuments.maxDocumentBytes}
              onChange={(v) => setS('clientIdMetadataDocuments', { maxDocumentBytes: v })}
            />
          </fieldset>
          <RegistrationFields
            reg={s.registration}
            set={(r) => setS('registration', r)}
            problem={p}
            limits={limits}
            system={tenant.system}
          />
          <ProblemBox problem={p} shownFields={['body.name', 'body.settings']} />
          <SaveBar scope="auth.tenants.update" editor={ed} what={`tenant ${tenant.name}`} />
          {session.system && !tenant.system ? (
            <div className="danger-zone">
              <DeleteTenant tenant={tenant} label="Delete this tenant" onDeleted={props.onDeleted} />
            </div>
          ) : null}
        </form>
      ) : null}
      {tenant ? <InitialAccessTokens tenant={tenant} /> : null}
    </article>
  );
}

/** settings.registration: Dynamic Client Registration (RFC 7591) at {issuer}/reg. */
function RegistrationFields(props: {
  reg: TenantDraft['settings']['registration'];
  set: (r: Partial<TenantDraft['settings']['registration']>) => void;
  problem: Problem | undefined;
  limits: (field: string) => InputLimits;
  system: boolean;
}) {
  const { reg: r, set, problem: p, limits } = props;
  return (
    <fieldset>
      <legend>Dynamic client registration (settings.registration, RFC 7591)</legend>
      <EditSelect
        label="Registration mode"
        name="body.settings.registration.mode"
        problem={p}
        value={r.mode}
        disabled={props.system}
        options={[
          { value: 'off', label: 'off: no registration endpoint' },
          { value: 'initial-access-token', label: 'initial-access-token: a token issued here is needed' },
          { value: 'open', label: 'open: anyone who reaches it (development only)' },
        ]}
        onChange={(v) => set({ mode: v })}
      />
      <EditChoices
        label="Grant types registered clients may have"
        name="body.settings.registration.grantTypes"
        problem={p}
        options={REGISTRATION_GRANT_TYPES}
        value={r.grantTypes}
        onChange={(v) => set({ grantTypes: v })}
        hint="client_credentials needs private_key_jwt below (RFC 6749 section 4.4)."
      />
      <EditChoices
        label="Authentication methods registered clients may use"
        name="body.settings.registration.tokenEndpointAuthMethods"
        problem={p}
        options={REGISTRATION_AUTH_METHODS}
        value={r.tokenEndpointAuthMethods}
        onChange={(v) => set({ tokenEndpointAuthMethods: v })}
      />
      <EditNumber
        label="Registrations per window"
        name="body.settings.registration.rateLimit.maxPerWindow"
        problem={p}
        limits={limits('settings.registration.rateLimit.maxPerWindow')}
        value={r.rateLimit.maxPerWindow}
        onChange={(v) => set({ rateLimit: { ...r.rateLimit, maxPerWindow: v } })}
      />
      <EditNumber
        label="Rate window (seconds)"
        name="body.settings.registration.rateLimit.windowSeconds"
        problem={p}
        limits={limits('settings.registration.rateLimit.windowSeconds')}
        value={r.rateLimit.windowSeconds}
        onChange={(v) => set({ rateLimit: { ...r.rateLimit, windowSeconds: v } })}
      />
    </fieldset>
  );
}

/** Initial access tokens (RFC 7591 section 3): the token is shown once, when it is issued; the list shows their use. */
function InitialAccessTokens(props: { tenant: Tenant }) {
  const { api, tenantId } = useConsole();
  const issue = useAction();
  const list = useAction();
  const [f, setF] = useState<{ description: string; maxUses: number | undefined; expires: number | undefined }>({
    description: '',
    maxUses: 1,
    expires: 86_400,
  });
  const [issued, setIssued] = useState<Schemas['IssuedInitialAccessToken'] | undefined>();
  const [items, setItems] = useState<Schemas['InitialAccessToken'][]>([]);
  const limits = useLimits('createInitialAccessToken');
  const active = props.tenant.settings.registration.mode === 'initial-access-token' && props.tenant.id === tenantId;
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(api.GET('/auth/admin/tenants/{tenantId}/initial-access-tokens', { params: { path: tp(tenantId) } })),
    );
    if (r) setItems(r.items);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (active) void load();
  }, [active, load]);
  if (!active) return null;
  return (
    <section aria-labelledby="iat-heading">
      <h3 id="iat-heading">Initial access tokens</h3>
      <p className="hint">A developer registers clients with a token at the tenant&apos;s /reg endpoint.</p>
      <ProblemBox problem={list.problem} />
      <ul className="plain" data-testid="initial-access-tokens">
        {items.length === 0 ? <li>No unexpired token.</li> : null}
        {items.map((t) => (
          <li key={t.id}>
            {t.description ?? t.id}: used {t.uses} of {t.maxUses}, expires {fmtDate(t.expiresAt)}{' '}
            <ConfirmButton
              scope="auth.clients.create"
              label={`Revoke ${t.description ?? t.id}`}
              question={`Revoke the initial access token ${t.description ?? t.id}?`}
              consequence="No more clients can register with it; clients registered with it stay."
              confirm="Really revoke it"
              onConfirm={async () => {
                await call(
                  api.DELETE('/auth/admin/tenants/{tenantId}/initial-access-tokens/{tokenId}', {
                    params: { path: { ...tp(tenantId), tokenId: t.id } },
                  }),
                );
                await load();
              }}
            />
          </li>
        ))}
      </ul>
      <form
        aria-label="Issue an initial access token"
        onSubmit={(e) => {
          e.preventDefault();
          setIssued(undefined);
          void issue
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/initial-access-tokens', {
                  params: { path: tp(tenantId) },
                  body: {
                    ...(f.description ? { description: f.description } : {}),
                    ...(f.maxUses !== undefined ? { maxUses: f.maxUses } : {}),
                    ...(f.expires !== undefined ? { expiresInSeconds: f.expires } : {}),
                  },
                }),
              ),
            )
            .then((r) => {
              if (r) {
                setIssued(r);
                void load();
              }
            });
        }}
      >
        <EditText
          label="Description"
          name="body.description"
          problem={issue.problem}
          limits={limits('description')}
          value={f.description}
          onChange={(v) => setF({ ...f, description: v })}
        />
        <EditNumber
          label="Registrations it allows"
          name="body.maxUses"
          problem={issue.problem}
          limits={limits('maxUses')}
          value={f.maxUses}
          onChange={(v) => setF({ ...f, maxUses: v })}
        />
        <EditNumber
          label="Valid for (seconds)"
          name="body.expiresInSeconds"
          problem={issue.problem}
          limits={limits('expiresInSeconds')}
          value={f.expires}
          onChange={(v) => setF({ ...f, expires: v })}
        />
        <ProblemBox
          problem={issue.problem}
          shownFields={['body.description', 'body.maxUses', 'body.expiresInSeconds']}
        />
        <ScopedButton scope="auth.clients.create" type="submit" busy={issue.busy}>
          Issue an initial access token
        </ScopedButton>
      </form>
      {issued ? (
        <ShownOnce
          label="Initial access token"
          value={issued.token}
          testId="issued-initial-access-token"
          note={`Issued for ${issued.maxUses} registration${issued.maxUses === 1 ? '' : 's'}, valid until ${fmtDate(issued.expiresAt)}. Copy it now: it is shown only once.`}
        />
      ) : null}
    </section>
  );
}

interface CreateDraft {
  name: string;
  nhe: TenantDraft['settings']['nhe'];
}

const emptyCreate = (): CreateDraft => ({
  name: '',
  nhe: {
    ...NHE_DEFAULTS,
    allowedNheTypes: [...NHE_TYPES],
    maxChainDepth: undefined,
    phishingResistantSignInMaxAgeMinutes: undefined,
  },
});

function CreateTenant(props: { onCreated: (t: Tenant) => void }) {
  const { api } = useConsole();
  const limits = useLimits('createTenant');
  const act = useAction();
  const [f, setF] = useState<CreateDraft>(emptyCreate);
  const [created, setCreated] = useState<Tenant | undefined>();
  const onCreate = async () => {
    setCreated(undefined);
    const n = f.nhe;
    const t = await act.run(() =>
      call(
        api.POST('/auth/admin/tenants', {
          body: {
            name: f.name,
            settings: {
              nhe: {
                enabled: n.enabled,
                requireDpop: n.requireDpop,
                allowedNheTypes: n.allowedNheTypes,
                ...(n.defaultMaxTokenLifetime !== undefined
                  ? { defaultMaxTokenLifetime: n.defaultMaxTokenLifetime }
                  : {}),
                ...(n.hardMaxTokenLifetime !== undefined ? { hardMaxTokenLifetime: n.hardMaxTokenLifetime } : {}),
                ...(n.maxNhePerTenant !== undefined ? { maxNhePerTenant: n.maxNhePerTenant } : {}),
                ...(n.auditRetentionDays !== undefined ? { auditRetentionDays: n.auditRetentionDays } : {}),
              },
            },
          },
        }),
      ),
    );
    if (t) {
      setCreated(t);
      setF(emptyCreate());
      notify();
      props.onCreated(t);
    }
  };
  return (
    <form
      className="card"
      aria-label="Create a tenant"
      onSubmit={(e) => {
        e.preventDefault();
        void onCreate();
      }}
    >
      <h2>Create a tenant</h2>
      <EditText
        label="Tenant name"
        name="body.name"
        problem={act.problem}
        limits={limits('name')}
        value={f.name}
        required
        onChange={(v) => setF({ ...f, name: v })}
      />
      <NheSettingsFields
        nhe={f.nhe}
        set={(n) => setF({ ...f, nhe: { ...f.nhe, ...n } })}
        problem={act.problem}
        limits={limits}
        quotaEditable
        compact
      />
      <ProblemBox problem={act.problem} shownFields={['body.name', 'body.settings.nhe']} />
      <ScopedButton scope="auth.tenants.create" type="submit" busy={act.busy}>
        Create tenant
      </ScopedButton>
      <p role="status" data-testid="created-tenant" data-tenant-id={created?.id}>
        {created
          ? `Created tenant ${created.id} (${created.name}) with its signing keys. Open it from the list above.`
          : ''}
      </p>
    </form>
  );
}
