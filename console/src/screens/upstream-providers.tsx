/**
 * Upstream identity providers: the OpenID Connect providers and SAML 2.0 IdPs the tenant's people sign in through, on
 * the console's list + detail pattern: the list (status badge, Enable / Disable and Delete in each row, the API's
 * cursor paging), a provider's page (`#/upstream-providers/<alias>`: status, the URLs to register at the upstream
 * provider to copy, every setting (the client secret is write-only: the API says only whether one is set), Delete),
 * and the form that adds one (which then opens).
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Problem, type Schemas } from '../api';
import {
  ProblemBox,
  ResourceList,
  StatusBadge,
  detailHref,
  useDetailRoute,
  useFocusOnOpen,
  type PageQuery,
} from '../resource-ui';
import { DeleteButton } from '../form-fields';
import { CheckField, Field, fieldError, ScopedButton, splitList, TextField, useAction, useConsole } from '../ui';

type Provider = Schemas['UpstreamProvider'];
type Mapper = Schemas['UpstreamMapper'];
type MapperTarget = Mapper['target'];
type AuthMethod = NonNullable<Provider['oidc']>['clientAuthMethod'];
type Amr = Provider['amrMap'][number]['amr'][number];
type Acr = Provider['acrMap'][number]['acr'];

const MAPPER_TARGETS: readonly MapperTarget[] = [
  'externalGroups',
  'providerClaims',
  'identityProvider',
  'customClaims',
  'claim',
  'username',
  'groups',
  'roles',
];
const AUTH_METHODS: readonly AuthMethod[] = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'];
const AMRS: readonly Amr[] = ['pwd', 'otp', 'hwk', 'swk', 'sc', 'mfa'];
const ACRS: readonly Acr[] = ['urn:idp:acr:pwd', 'urn:idp:acr:mfa'];
/** NameID formats of SAML 2.0 Core section 8.3 (and 1.1 unspecified/emailAddress) that IdPs commonly offer. */
const NAMEID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
];

interface MapperRow {
  source: string;
  target: MapperTarget;
  claim: string;
  values: { upstream: string; local: string }[];
}

interface Form {
  alias: string;
  type: 'oidc' | 'saml';
  displayName: string;
  enabled: boolean;
  emailDomains: string;
  authoritativeEmailDomains: string;
  jitProvisioning: boolean;
  exclusive: boolean;
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  clientSecret: string;
  clientSecretSet: boolean;
  clientAuthMethod: AuthMethod;
  scopes: string;
  pkce: boolean;
  acrValues: string;
  subjectClaim: string;
  fetchUserinfo: boolean;
  metadataSource: 'url' | 'xml';
  metadataUrl: string;
  metadataXml: string;
  spEntityId: string;
  signAuthnRequests: boolean;
  nameIdFormat: string;
  mappers: MapperRow[];
  amrMap: { upstream: string; amr: Amr[] }[];
  acrMap: { upstream: string; acr: Acr }[];
}

const EMPTY: Form = {
  alias: '',
  type: 'oidc',
  displayName: '',
  enabled: true,
  emailDomains: '',
  authoritativeEmailDomains: '',
  jitProvisioning: true,
  exclusive: false,
  issuer: '',
  discoveryUrl: '',
  clientId: '',
  clientSecret: '',
  clientSecretSet: false,
  clientAuthMethod: 'client_secret_basic',
  scopes: 'openid profile email',
  pkce: true,
  acrValues: '',
  subjectClaim: 'sub',
  fetchUserinfo: false,
  metadataSource: 'url',
  metadataUrl: '',
  metadataXml: '',
  spEntityId: '',
  signAuthnRequests: false,
  nameIdFormat: '',
  mappers: [],
  amrMap: [],
  acrMap: [],
};

/** The form of a stored provider: the secret left empty (kept unless a new one is typed). */
function formOf(p: Provider): Form {
  const o = p.oidc;
  const s = p.saml;
  return {
    ...EMPTY,
    alias: p.alias,
    type: p.type,
    displayName: p.displayName,
    enabled: p.enabled,
    emailDomains: p.emailDomains.join(' '),
    authoritativeEmailDomains: p.authoritativeEmailDomains.join(' '),
    jitProvisioning: p.jitProvisioning,
    exclusive: p.exclusive,
    ...(o
      ? {
          issuer: o.issuer,
          discoveryUrl: o.discoveryUrl ?? '',
          clientId: o.clientId,
          clientSecretSet: o.clientSecretSet,
          clientAuthMethod: o.clientAuthMethod,
          scopes: o.scopes.join(' '),
          pkce: o.pkce,
          acrValues: (o.acrValues ?? []).join(' '),
          subjectClaim: o.subjectClaim,
          fetchUserinfo: o.fetchUserinfo,
        }
      : {}),
    ...(s
      ? {
          metadataSource: s.metadataXml ? 'xml' : 'url',
          metadataUrl: s.metadataUrl ?? '',
          metadataXml: s.metadataXml ?? '',
          // The answer fills in the default (our SP metadata URL); an empty field keeps following it.
          spEntityId: s.spEntityId === p.endpoints.spMetadataUrl ? '' : s.spEntityId,
          signAuthnRequests: s.signAuthnRequests,
          nameIdFormat: s.nameIdFormat ?? '',
        }
      : {}),
    mappers: p.mappers.map((m) => ({
      source: m.source,
      target: m.target,
      claim: m.claim ?? '',
      values: m.values ?? [],
    })),
    amrMap: p.amrMap.map((a) => ({ upstream: a.upstream, amr: [...a.amr] })),
    acrMap: p.acrMap.map((a) => ({ ...a })),
  };
}

const mapperBody = (m: MapperRow): Mapper => ({
  source: m.source,
  target: m.target,
  ...((m.target === 'customClaims' || m.target === 'claim') && m.claim ? { claim: m.claim } : {}),
  ...(m.target === 'groups' || m.target === 'roles' ? { values: m.values } : {}),
});

/** What create and update share: the type's settings and the provider-wide ones. */
function settingsBody(f: Form) {
  return {
    displayName: f.displayName,
    enabled: f.enabled,
    emailDomains: splitList(f.emailDomains),
    authoritativeEmailDomains: splitList(f.authoritativeEmailDomains),
    jitProvisioning: f.jitProvisioning,
    exclusive: f.exclusive,
    mappers: f.mappers.map(mapperBody),
    amrMap: f.amrMap,
    acrMap: f.acrMap,
    ...(f.type === 'oidc'
      ? {
          oidc: {
            issuer: f.issuer,
            ...(f.discoveryUrl ? { discoveryUrl: f.discoveryUrl } : {}),
            clientId: f.clientId,
            // Write-only: sent only when typed; PATCH keeps the stored one when it is left out.
            ...(f.clientSecret && f.clientAuthMethod !== 'private_key_jwt' ? { clientSecret: f.clientSecret } : {}),
            clientAuthMethod: f.clientAuthMethod,
            scopes: splitList(f.scopes),
            pkce: f.pkce,
            ...(f.acrValues.trim() ? { acrValues: splitList(f.acrValues) } : {}),
            subjectClaim: f.subjectClaim,
            fetchUserinfo: f.fetchUserinfo,
          },
        }
      : {
          saml: {
            ...(f.metadataSource === 'url' ? { metadataUrl: f.metadataUrl } : { metadataXml: f.metadataXml }),
            ...(f.spEntityId ? { spEntityId: f.spEntityId } : {}),
            signAuthnRequests: f.signAuthnRequests,
            ...(f.nameIdFormat ? { nameIdFormat: f.nameIdFormat } : {}),
          },
        }),
  };
}

const SHOWN_FIELDS = [
  'body.alias',
  'body.type',
  'body.displayName',
  'body.enabled',
  'body.emailDomains',
  'body.authoritativeEmailDomains',
  'body.jitProvisioning',
  'body.exclusive',
  'body.oidc.issuer',
  'body.oidc.discoveryUrl',
  'body.oidc.clientId',
  'body.oidc.clientSecret',
  'body.oidc.clientAuthMethod',
  'body.oidc.scopes',
  'body.oidc.pkce',
  'body.oidc.acrValues',
  'body.oidc.subjectClaim',
  'body.oidc.fetchUserinfo',
  'body.saml.metadataUrl',
  'body.saml.metadataXml',
  'body.saml.spEntityId',
  'body.saml.signAuthnRequests',
  'body.saml.nameIdFormat',
  'body.mappers',
  'body.amrMap',
  'body.acrMap',
];

export function UpstreamProvidersScreen() {
  const { api, tenantId } = useConsole();
  const [selected, go] = useDetailRoute('upstream-providers');
  const [reload, setReload] = useState(0);
  const bump = useCallback(() => setReload((n) => n + 1), []);
  // The open provider is read again after a change made from its row (its own changes update it in place).
  const [detailReload, setDetailReload] = useState(0);
  const [done, setDone] = useState('');
  const toggle = useAction();
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/upstream-providers', {
          params: { path: tp(tenantId), query: { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) } },
        }),
      ),
    [api, tenantId],
  );
  const setEnabled = (p: Provider, enabled: boolean) =>
    toggle.run(async () => {
      const u = await call(
        api.PATCH('/auth/admin/tenants/{tenantId}/upstream-providers/{alias}', {
          params: { path: { ...tp(tenantId), alias: p.alias } },
          body: { enabled },
        }),
      );
      setDone(`${u.enabled ? 'Enabled' : 'Disabled'} ${u.alias}.`);
      bump();
      return u;
    });
  return (
    <section>
      {selected ? (
        <ProviderDetail
          key={`${selected}-${detailReload}`}
          alias={selected}
          setEnabled={setEnabled}
          onChanged={bump}
          onDeleted={(alias) => {
            setDone(`Deleted ${alias} and every account link to it.`);
            go(undefined);
            bump();
          }}
        />
      ) : null}
      <ProblemBox problem={toggle.problem} />
      <p role="status">{done}</p>
      <ResourceList<Provider>
        label="Upstream identity providers"
        load={load}
        reloadKey={reload}
        rowKey={(p) => p.alias}
        rowAttrs={(p) => ({ 'data-provider': p.alias, 'data-enabled': String(p.enabled) })}
        empty="No upstream identity provider yet."
        columns={[
          {
            header: 'Alias',
            sortValue: (p) => p.alias,
            render: (p) => (
              <a href={detailHref('upstream-providers', p.alias)}>
                <code>{p.alias}</code>
              </a>
            ),
          },
          {
            header: 'Type',
            sortValue: (p) => p.type,
            render: (p) => (p.type === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'),
          },
          { header: 'Display name', sortValue: (p) => p.displayName.toLowerCase(), render: (p) => p.displayName },
          { header: 'Status', sortValue: (p) => (p.enabled ? 1 : 0), render: (p) => <StatusBadge on={p.enabled} /> },
          { header: 'Email domains', render: (p) => p.emailDomains.join(' ') || '—' },
          {
            header: 'Client secret',
            render: (p) => (p.oidc ? (p.oidc.clientSecretSet ? 'secret set' : 'no secret') : '—'),
          },
          {
            header: 'Actions',
            render: (p) => (
              <div className="row-actions">
                <ScopedButton
                  scope="auth.tenants.update"
                  className="secondary"
                  onClick={() =>
                    void setEnabled(p, !p.enabled).then(() => {
                      if (selected === p.alias) setDetailReload((n) => n + 1);
                    })
                  }
                >
                  {p.enabled ? `Disable ${p.alias}` : `Enable ${p.alias}`}
                </ScopedButton>
                <DeleteProvider
                  provider={p}
                  onDeleted={() => {
                    if (selected === p.alias) go(undefined);
                    setDone(`Deleted ${p.alias} and every account link to it.`);
                    bump();
                  }}
                />
              </div>
            ),
          },
        ]}
      />
      <ProviderForm
        key="create"
        onSaved={(p) => {
          setDone(`Created ${p.alias}; it is open above.`);
          go(p.alias);
          bump();
        }}
      />
    </section>
  );
}

function DeleteProvider(props: { provider: Provider; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  const p = props.provider;
  return (
    <DeleteButton
      scope="auth.tenants.update"
      kind="upstream identity provider"
      name={p.alias}
      label={props.label}
      consequence="Every account link to it is deleted with it: people who sign in only through it can no longer sign in until they are linked again. This cannot be undone."
      remove={() =>
        call(
          api.DELETE('/auth/admin/tenants/{tenantId}/upstream-providers/{alias}', {
            params: { path: { ...tp(tenantId), alias: p.alias } },
          }),
        )
      }
      onDeleted={props.onDeleted}
    />
  );
}

/**
 * One provider's page (`#/upstream-providers/<alias>`): its status with Enable / Disable, the URLs to register at the
 * upstream provider, every setting in its form (Save sends them; the secret only when typed), and Delete.
 */
function ProviderDetail(props: {
  alias: string;
  setEnabled: (p: Provider, enabled: boolean) => Promise<Provider | undefined>;
  onChanged: () => void;
  onDeleted: (alias: string) => void;
}) {
  const heading = useFocusOnOpen<HTMLHeadingElement>();
  const { api, tenantId } = useConsole();
  const [provider, setProvider] = useState<Provider | undefined>();
  const [saved, setSaved] = useState('');
  const get = useAction();
  useEffect(() => {
    void get
      .run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/upstream-providers/{alias}', {
            params: { path: { ...tp(tenantId), alias: props.alias } },
          }),
        ),
      )
      .then((p) => {
        if (p) setProvider(p);
      });
  }, [api, tenantId, props.alias]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <article className="card detail" aria-labelledby="provider-detail-heading" data-detail-provider={props.alias}>
      <p>
        <a href="#/upstream-providers">← All upstream providers</a>
      </p>
      <h2 id="provider-detail-heading" tabIndex={-1} ref={heading}>
        Upstream provider {props.alias}
        {provider ? ` · ${provider.displayName}` : ''}
      </h2>
      <ProblemBox problem={get.problem} />
      {provider ? (
        <>
          <div className="meta status-row">
            <span>
              Status: <StatusBadge on={provider.enabled} />
            </span>{' '}
            <ScopedButton
              scope="auth.tenants.update"
              className="secondary"
              onClick={() =>
                void props.setEnabled(provider, !provider.enabled).then((u) => {
                  if (u) setProvider(u);
                })
              }
            >
              {provider.enabled ? 'Disable provider' : 'Enable provider'}
            </ScopedButton>{' '}
            <span>{provider.type === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'}</span>
          </div>
          <p role="status" className="saved">
            {saved}
          </p>
          <Endpoints provider={provider} />
          <ProviderForm
            key={`edit-${provider.alias}-${provider.updatedAt}`}
            existing={provider}
            onSaved={(p) => {
              setProvider(p);
              setSaved(`Saved ${p.alias}.`);
              props.onChanged();
            }}
          />
          <DeleteProvider
            provider={provider}
            label="Delete this provider"
            onDeleted={() => props.onDeleted(provider.alias)}
          />
        </>
      ) : null}
    </article>
  );
}

/** The URLs to register at the upstream provider, read-only fields to copy from. */
function Endpoints(props: { provider: Provider }) {
  const e = props.provider.endpoints;
  const rows: [string, string | undefined][] = [
    ['Redirect URI', e.redirectUri],
    ['Post-logout redirect URI', e.postLogoutRedirectUri],
    ['JWKS URI (private_key_jwt)', e.jwksUri],
    ['SP metadata URL', e.spMetadataUrl],
    ['Assertion consumer service URL (HTTP-POST)', e.acsUrl],
    ['Single logout URL (HTTP-Redirect)', e.sloUrl],
  ];
  return (
    <section className="card" aria-labelledby="endpoints-heading" data-testid="endpoints">
      <h2 id="endpoints-heading">Register at the upstream provider: {props.provider.alias}</h2>
      <p>
        {props.provider.type === 'oidc'
          ? 'Register these URLs with the client at the OpenID Provider.'
          : 'Give the IdP our SP metadata URL, or these URLs.'}
      </p>
      {rows.map(([label, value]) =>
        value ? <CopyField key={label} label={`${label} of ${props.provider.alias}`} value={value} /> : null,
      )}
      {props.provider.saml?.spCertificate ? (
        <details>
          <summary>Our SP signing certificate</summary>
          <pre>{props.provider.saml.spCertificate}</pre>
        </details>
      ) : null}
    </section>
  );
}

function CopyField(props: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret">
      <Field label={props.label} name="" problem={undefined}>
        {({ id }) => <input id={id} readOnly value={props.value} onFocus={(e) => e.target.select()} />}
      </Field>
      <button
        type="button"
        className="secondary"
        onClick={() =>
          void navigator.clipboard.writeText(props.value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : `Copy ${props.label}`}
      </button>
    </div>
  );
}

function ProviderForm(props: { existing?: Provider; onSaved: (p: Provider) => void; onCancel?: () => void }) {
  const { api, tenantId } = useConsole();
  const save = useAction();
  const existing = props.existing;
  const [f, setF] = useState<Form>(() => (existing ? formOf(existing) : EMPTY));
  const problem = save.problem;
  const set = (patch: Partial<Form>) => setF((old) => ({ ...old, ...patch }));
  const onSubmit = async () => {
    const p = await save.run(() =>
      existing
        ? call(
            api.PATCH('/auth/admin/tenants/{tenantId}/upstream-providers/{alias}', {
              params: { path: { ...tp(tenantId), alias: existing.alias } },
              body: settingsBody(f),
            }),
          )
        : call(
            api.POST('/auth/admin/tenants/{tenantId}/upstream-providers', {
              params: { path: tp(tenantId) },
              body: { alias: f.alias, type: f.type, ...settingsBody(f) },
            }),
          ),
    );
    if (p) {
      if (!existing) setF(EMPTY);
      else set({ clientSecret: '', clientSecretSet: p.oidc?.clientSecretSet ?? false });
      props.onSaved(p);
    }
  };
  const title = existing ? `Edit ${existing.alias}` : 'Add an upstream identity provider';
  const secretNeeded = f.clientAuthMethod !== 'private_key_jwt';
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
          Alias <code>{existing.alias}</code>, {existing.type === 'oidc' ? 'OpenID Connect' : 'SAML 2.0'} (both are
          fixed once created).
        </p>
      ) : (
        <>
          <TextField
            label="Alias"
            name="body.alias"
            problem={problem}
            value={f.alias}
            onChange={(v) => set({ alias: v })}
            required
            hint="Names the provider in URLs and in the identity_provider claim: 1 to 40 lower-case letters, digits and hyphens; fixed once created."
          />
          <Field label="Type" name="body.type" problem={problem}>
            {({ id, describedBy }) => (
              <select
                id={id}
                aria-describedby={describedBy}
                value={f.type}
                onChange={(e) => set({ type: e.target.value === 'saml' ? 'saml' : 'oidc' })}
              >
                <option value="oidc">OpenID Connect</option>
                <option value="saml">SAML 2.0</option>
              </select>
            )}
          </Field>
        </>
      )}
      <TextField
        label="Display name"
        name="body.displayName"
        problem={problem}
        value={f.displayName}
        onChange={(v) => set({ displayName: v })}
        required
        hint='Shown on the login page: "Sign in with <display name>".'
      />
      <CheckField
        label="Enabled"
        name="body.enabled"
        problem={problem}
        checked={f.enabled}
        onChange={(v) => set({ enabled: v })}
        hint="A disabled provider signs nobody in, from the next request on."
      />
      {f.type === 'oidc' ? <OidcFields f={f} set={set} problem={problem} secretNeeded={secretNeeded} /> : null}
      {f.type === 'saml' ? <SamlFields f={f} set={set} problem={problem} /> : null}
      <fieldset>
        <legend>Accounts</legend>
        <TextField
          label="Email domains (space separated)"
          name="body.emailDomains"
          problem={problem}
          value={f.emailDomains}
          onChange={(v) => set({ emailDomains: v })}
          hint="Home-realm discovery: addresses in these domains are sent to this provider."
        />
        <TextField
          label="Authoritative email domains (space separated)"
          name="body.authoritativeEmailDomains"
          problem={problem}
          value={f.authoritativeEmailDomains}
          onChange={(v) => set({ authoritativeEmailDomains: v })}
          hint={
            <>
              <strong>Linking by verified email is off unless a domain is listed here.</strong> A first sign-in
              asserting a verified address in a listed domain links to the one local account with that address: list a
              domain only when this provider alone controls its addresses, or anyone it vouches for takes over that
              account.
            </>
          }
        />
        <CheckField
          label="Just-in-time provisioning"
          name="body.jitProvisioning"
          problem={problem}
          checked={f.jitProvisioning}
          onChange={(v) => set({ jitProvisioning: v })}
          hint="Create an account on a first sign-in that links to none."
        />
        <CheckField
          label="Exclusive"
          name="body.exclusive"
          problem={problem}
          checked={f.exclusive}
          onChange={(v) => set({ exclusive: v })}
          hint="The tenant's people sign in only through this provider (no password form)."
        />
      </fieldset>
      <MappersEditor rows={f.mappers} onChange={(mappers) => set({ mappers })} problem={problem} />
      <AmrEditor rows={f.amrMap} onChange={(amrMap) => set({ amrMap })} problem={problem} />
      <AcrEditor rows={f.acrMap} onChange={(acrMap) => set({ acrMap })} problem={problem} />
      <ProblemBox problem={problem} shownFields={SHOWN_FIELDS} />
      <div className="actions">
        <ScopedButton scope="auth.tenants.update" type="submit" busy={save.busy}>
          {existing ? `Save ${existing.alias}` : 'Add provider'}
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

interface SectionProps {
  f: Form;
  set: (patch: Partial<Form>) => void;
  problem: Problem | undefined;
}

function OidcFields({ f, set, problem, secretNeeded }: SectionProps & { secretNeeded: boolean }) {
  return (
    <fieldset>
      <legend>OpenID Connect</legend>
      <TextField
        label="Issuer"
        name="body.oidc.issuer"
        problem={problem}
        value={f.issuer}
        onChange={(v) => set({ issuer: v })}
        required
        hint="Exactly as the provider's ID tokens carry it in iss (https; http only for a loopback host)."
      />
      <TextField
        label="Discovery URL (optional)"
        name="body.oidc.discoveryUrl"
        problem={problem}
        value={f.discoveryUrl}
        onChange={(v) => set({ discoveryUrl: v })}
        hint="Empty: <issuer>/.well-known/openid-configuration (OpenID Connect Discovery 1.0, section 4)."
      />
      <TextField
        label="Client id"
        name="body.oidc.clientId"
        problem={problem}
        value={f.clientId}
        onChange={(v) => set({ clientId: v })}
        required
      />
      <Field label="Client authentication method" name="body.oidc.clientAuthMethod" problem={problem}>
        {({ id, describedBy }) => (
          <select
            id={id}
            aria-describedby={describedBy}
            value={f.clientAuthMethod}
            onChange={(e) =>
              set({ clientAuthMethod: AUTH_METHODS.find((m) => m === e.target.value) ?? 'client_secret_basic' })
            }
          >
            {AUTH_METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        )}
      </Field>
      {secretNeeded ? (
        <TextField
          label="Client secret"
          type="password"
          autoComplete="new-password"
          name="body.oidc.clientSecret"
          problem={problem}
          value={f.clientSecret}
          onChange={(v) => set({ clientSecret: v })}
          hint={
            <span data-testid="secret-state">
              {f.clientSecretSet
                ? 'A secret is set (never shown). Leave empty to keep it; type a new one to replace it.'
                : 'Not set. It is stored sealed and never shown again.'}
            </span>
          }
        />
      ) : (
        <p className="hint">private_key_jwt: we sign with our own key; register our JWKS URI (shown once saved).</p>
      )}
      <TextField
        label="Scopes (space separated)"
        name="body.oidc.scopes"
        problem={problem}
        value={f.scopes}
        onChange={(v) => set({ scopes: v })}
      />
      <CheckField
        label="PKCE (S256)"
        name="body.oidc.pkce"
        problem={problem}
        checked={f.pkce}
        onChange={(v) => set({ pkce: v })}
      />
      <TextField
        label="acr_values (space separated, optional)"
        name="body.oidc.acrValues"
        problem={problem}
        value={f.acrValues}
        onChange={(v) => set({ acrValues: v })}
      />
      <TextField
        label="Subject claim"
        name="body.oidc.subjectClaim"
        problem={problem}
        value={f.subjectClaim}
        onChange={(v) => set({ subjectClaim: v })}
        hint="The stable subject claim (Microsoft Entra ID: oid)."
      />
      <CheckField
        label="Fetch userinfo"
        name="body.oidc.fetchUserinfo"
        problem={problem}
        checked={f.fetchUserinfo}
        onChange={(v) => set({ fetchUserinfo: v })}
        hint="Also read the UserInfo endpoint after the ID token."
      />
    </fieldset>
  );
}

function SamlFields({ f, set, problem }: SectionProps) {
  return (
    <fieldset>
      <legend>SAML 2.0</legend>
      <fieldset className="inline">
        <legend>IdP metadata</legend>
        <label>
          <input
            type="radio"
            name="metadata-source"
            checked={f.metadataSource === 'url'}
            onChange={() => set({ metadataSource: 'url' })}
          />{' '}
          Metadata URL
        </label>
        <label>
          <input
            type="radio"
            name="metadata-source"
            checked={f.metadataSource === 'xml'}
            onChange={() => set({ metadataSource: 'xml' })}
          />{' '}
          Metadata XML
        </label>
      </fieldset>
      {f.metadataSource === 'url' ? (
        <TextField
          label="IdP metadata URL"
          name="body.saml.metadataUrl"
          problem={problem}
          value={f.metadataUrl}
          onChange={(v) => set({ metadataUrl: v })}
          required
          hint="Re-read for certificate rotation."
        />
      ) : (
        <Field label="IdP metadata XML" name="body.saml.metadataXml" problem={problem}>
          {({ id, describedBy, invalid }) => (
            <textarea
              id={id}
              rows={8}
              required
              aria-describedby={describedBy}
              aria-invalid={invalid || undefined}
              value={f.metadataXml}
              onChange={(e) => set({ metadataXml: e.target.value })}
            />
          )}
        </Field>
      )}
      <TextField
        label="SP entity id (empty: our SP metadata URL)"
        name="body.saml.spEntityId"
        problem={problem}
        value={f.spEntityId}
        onChange={(v) => set({ spEntityId: v })}
      />
      <CheckField
        label="Sign AuthnRequests"
        name="body.saml.signAuthnRequests"
        problem={problem}
        checked={f.signAuthnRequests}
        onChange={(v) => set({ signAuthnRequests: v })}
      />
      <Field label="NameID format (optional)" name="body.saml.nameIdFormat" problem={problem}>
        {({ id, describedBy }) => (
          <>
            <input
              id={id}
              list={`${id}-formats`}
              aria-describedby={describedBy}
              value={f.nameIdFormat}
              onChange={(e) => set({ nameIdFormat: e.target.value })}
            />
            <datalist id={`${id}-formats`}>
              {NAMEID_FORMATS.map((n) => (
                <option key={n} value={n} />
              ))}
            </datalist>
          </>
        )}
      </Field>
    </fieldset>
  );
}

/**
 * A reason the API gave for one cell of an editor row, shown under it: the exact name, or (prefix) anything under
 * it, so a reason is shown once.
 */
function CellError(props: { problem: Problem | undefined; name: string; prefix?: boolean }) {
  const error = props.prefix
    ? fieldError(props.problem, props.name)
    : props.problem?.invalid_params?.find((p) => p.name === props.name)?.reason;
  return error ? (
    <p className="field-error" data-field={props.name}>
      {error}
    </p>
  ) : null;
}

const replaceAt = <T,>(rows: T[], i: number, row: T) => rows.map((r, j) => (j === i ? row : r));
const removeAt = <T,>(rows: T[], i: number) => rows.filter((_, j) => j !== i);

function MappersEditor(props: {
  rows: MapperRow[];
  onChange: (rows: MapperRow[]) => void;
  problem: Problem | undefined;
}) {
  const { rows, onChange, problem } = props;
  return (
    <fieldset>
      <legend>Mappers (applied at every sign-in)</legend>
      {rows.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Source (claim or attribute)</th>
                <th scope="col">Target</th>
                <th scope="col">Claim</th>
                <th scope="col">Values (upstream → local)</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((m, i) => {
                const n = i + 1;
                const at = `body.mappers.${i}`;
                const needsClaim = m.target === 'customClaims' || m.target === 'claim';
                const needsValues = m.target === 'groups' || m.target === 'roles';
                return (
                  <tr key={i} data-mapper={n}>
                    <td>
                      <input
                        aria-label={`Source of mapper ${n}`}
                        value={m.source}
                        required
                        onChange={(e) => onChange(replaceAt(rows, i, { ...m, source: e.target.value }))}
                      />
                      <CellError problem={problem} name={`${at}.source`} />
                    </td>
                    <td>
                      <select
                        aria-label={`Target of mapper ${n}`}
                        value={m.target}
                        onChange={(e) =>
                          onChange(
                            replaceAt(rows, i, {
                              ...m,
                              target: MAPPER_TARGETS.find((t) => t === e.target.value) ?? 'providerClaims',
                            }),
                          )
                        }
                      >
                        {MAPPER_TARGETS.map((t) => (
                          <option key={t}>{t}</option>
                        ))}
                      </select>
                      <CellError problem={problem} name={`${at}.target`} />
                    </td>
                    <td>
                      {needsClaim ? (
                        <input
                          aria-label={`Claim of mapper ${n}`}
                          value={m.claim}
                          required
                          onChange={(e) => onChange(replaceAt(rows, i, { ...m, claim: e.target.value }))}
                        />
                      ) : (
                        '—'
                      )}
                      <CellError problem={problem} name={`${at}.claim`} />
                    </td>
                    <td>
                      {needsValues ? (
                        <ValuesEditor
                          n={n}
                          rows={m.values}
                          problem={problem}
                          at={`${at}.values`}
                          onChange={(values) => onChange(replaceAt(rows, i, { ...m, values }))}
                        />
                      ) : (
                        '—'
                      )}
                      <CellError problem={problem} name={`${at}.values`} />
                    </td>
                    <td>
                      <button type="button" className="secondary" onClick={() => onChange(removeAt(rows, i))}>
                        Remove mapper {n}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No mapper: the upstream claims set only the standard profile claims.</p>
      )}
      <CellError problem={problem} name="body.mappers" />
      <button
        type="button"
        className="secondary"
        onClick={() => onChange([...rows, { source: '', target: 'providerClaims', claim: '', values: [] }])}
      >
        Add a mapper
      </button>
    </fieldset>
  );
}

function ValuesEditor(props: {
  n: number;
  rows: { upstream: string; local: string }[];
  at: string;
  problem: Problem | undefined;
  onChange: (rows: { upstream: string; local: string }[]) => void;
}) {
  const { rows, onChange, n } = props;
  return (
    <ul className="plain">
      {rows.map((v, j) => (
        <li key={j}>
          <input
            aria-label={`Upstream value ${j + 1} of mapper ${n}`}
            value={v.upstream}
            required
            onChange={(e) => onChange(replaceAt(rows, j, { ...v, upstream: e.target.value }))}
          />{' '}
          →{' '}
          <input
            aria-label={`Local name ${j + 1} of mapper ${n}`}
            value={v.local}
            required
            onChange={(e) => onChange(replaceAt(rows, j, { ...v, local: e.target.value }))}
          />{' '}
          <button type="button" className="secondary" onClick={() => onChange(removeAt(rows, j))}>
            Remove value {j + 1} of mapper {n}
          </button>
          <CellError problem={props.problem} name={`${props.at}.${j}`} prefix />
        </li>
      ))}
      <li>
        <button type="button" className="secondary" onClick={() => onChange([...rows, { upstream: '', local: '' }])}>
          Add a value to mapper {n}
        </button>
      </li>
    </ul>
  );
}

function AmrEditor(props: {
  rows: { upstream: string; amr: Amr[] }[];
  onChange: (rows: { upstream: string; amr: Amr[] }[]) => void;
  problem: Problem | undefined;
}) {
  const { rows, onChange, problem } = props;
  return (
    <fieldset>
      <legend>amr map (upstream amr → amr recorded here; unmapped values record nothing)</legend>
      {rows.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Upstream amr</th>
                <th scope="col">Recorded amr</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i} data-amr={i + 1}>
                  <td>
                    <input
                      aria-label={`Upstream amr ${i + 1}`}
                      value={r.upstream}
                      required
                      onChange={(e) => onChange(replaceAt(rows, i, { ...r, upstream: e.target.value }))}
                    />
                    <CellError problem={problem} name={`body.amrMap.${i}.upstream`} />
                  </td>
                  <td>
                    <fieldset className="inline">
                      <legend>Recorded amr of row {i + 1}</legend>
                      {AMRS.map((a) => (
                        <label key={a}>
                          <input
                            type="checkbox"
                            checked={r.amr.includes(a)}
                            onChange={(e) =>
                              onChange(
                                replaceAt(rows, i, {
                                  ...r,
                                  amr: e.target.checked ? [...r.amr, a] : r.amr.filter((x) => x !== a),
                                }),
                              )
                            }
                          />{' '}
                          {a}
                        </label>
                      ))}
                    </fieldset>
                    <CellError problem={problem} name={`body.amrMap.${i}.amr`} />
                  </td>
                  <td>
                    <button type="button" className="secondary" onClick={() => onChange(removeAt(rows, i))}>
                      Remove amr row {i + 1}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <CellError problem={problem} name="body.amrMap" />
      <button type="button" className="secondary" onClick={() => onChange([...rows, { upstream: '', amr: [] }])}>
        Add an amr row
      </button>
    </fieldset>
  );
}

function AcrEditor(props: {
  rows: { upstream: string; acr: Acr }[];
  onChange: (rows: { upstream: string; acr: Acr }[]) => void;
  problem: Problem | undefined;
}) {
  const { rows, onChange, problem } = props;
  return (
    <fieldset>
      <legend>acr map (upstream acr → acr here; unmapped: urn:idp:acr:federated, which meets no requirement)</legend>
      {rows.length ? (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Upstream acr (SAML AuthnContextClassRef)</th>
                <th scope="col">acr here</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={i} data-acr={i + 1}>
                  <td>
                    <input
                      aria-label={`Upstream acr ${i + 1}`}
                      value={r.upstream}
                      required
                      onChange={(e) => onChange(replaceAt(rows, i, { ...r, upstream: e.target.value }))}
                    />
                    <CellError problem={problem} name={`body.acrMap.${i}.upstream`} />
                  </td>
                  <td>
                    <select
                      aria-label={`acr here ${i + 1}`}
                      value={r.acr}
                      onChange={(e) =>
                        onChange(
                          replaceAt(rows, i, {
                            ...r,
                            acr: ACRS.find((a) => a === e.target.value) ?? 'urn:idp:acr:pwd',
                          }),
                        )
                      }
                    >
                      {ACRS.map((a) => (
                        <option key={a}>{a}</option>
                      ))}
                    </select>
                    <CellError problem={problem} name={`body.acrMap.${i}.acr`} />
                  </td>
                  <td>
                    <button type="button" className="secondary" onClick={() => onChange(removeAt(rows, i))}>
                      Remove acr row {i + 1}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <CellError problem={problem} name="body.acrMap" />
      <button
        type="button"
        className="secondary"
        onClick={() => onChange([...rows, { upstream: '', acr: 'urn:idp:acr:pwd' }])}
      >
        Add an acr row
      </button>
    </fieldset>
  );
}
