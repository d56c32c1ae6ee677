import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { apiClient, call, type Schemas } from './api';
import { completeSignIn, loadConfig, signIn, signOut, storedSession, type ConsoleConfig, type Session } from './auth';
import { Ctx, type ConsoleContext } from './ui';
import { JobsScreen } from './screens/jobs';
import { TenantsScreen } from './screens/tenants';
import { ClientsScreen } from './screens/clients';
import { ResourceServersScreen } from './screens/resource-servers';
import { UsersScreen } from './screens/users';
import { ScimScreen } from './screens/scim';
import { UpstreamProvidersScreen } from './screens/upstream-providers';
import { TrustedIssuersScreen } from './screens/trusted-issuers';
import { IdJagAudiencesScreen } from './screens/id-jag-audiences';
import { GroupsScreen, RolesScreen } from './screens/groups-roles';
import { NhesScreen } from './screens/nhes';
import { SimulatorScreen } from './screens/simulator';
import { KeysScreen } from './screens/keys';
import { SsfStreamsScreen } from './screens/ssf-streams';
import { AuditScreen } from './screens/audit';

interface ScreenDef {
  id: string;
  title: string;
  systemOnly?: boolean;
  render: () => ReactNode;
}

/** Screens in the order of the navigation (hash routes: #/jobs, #/tenants, ...). */
const SCREENS: ScreenDef[] = [
  { id: 'jobs', title: 'Jobs', systemOnly: true, render: () => <JobsScreen /> },
  { id: 'tenants', title: 'Tenant & settings', render: () => <TenantsScreen /> },
  { id: 'clients', title: 'Clients', render: () => <ClientsScreen /> },
  { id: 'resource-servers', title: 'Resource servers', render: () => <ResourceServersScreen /> },
  { id: 'users', title: 'Users', render: () => <UsersScreen /> },
  { id: 'scim', title: 'Directory provisioning (SCIM)', render: () => <ScimScreen /> },
  { id: 'upstream-providers', title: 'Upstream identity providers', render: () => <UpstreamProvidersScreen /> },
  { id: 'trusted-issuers', title: 'Trusted issuers', render: () => <TrustedIssuersScreen /> },
  { id: 'id-jag-audiences', title: 'ID-JAG audiences', render: () => <IdJagAudiencesScreen /> },
  { id: 'groups', title: 'Groups', render: () => <GroupsScreen /> },
  { id: 'roles', title: 'Roles', render: () => <RolesScreen /> },
  { id: 'nhes', title: 'NHE registrations', render: () => <NhesScreen /> },
  { id: 'simulator', title: 'Delegation simulator', render: () => <SimulatorScreen /> },
  { id: 'keys', title: 'Signing keys', render: () => <KeysScreen /> },
  { id: 'ssf-streams', title: 'Shared Signals streams', render: () => <SsfStreamsScreen /> },
  { id: 'audit', title: 'Token audit', render: () => <AuditScreen /> },
];

/** The screen of the hash route: `#/clients/orders-app` is the clients screen (its detail route is the rest). */
const routeOf = () => window.location.hash.replace(/^#\/?/, '').split('?')[0]?.split('/')[0] ?? '';

export function App() {
  const [config, setConfig] = useState<ConsoleConfig | undefined>();
  const [session, setSession] = useState<Session | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [ready, setReady] = useState(false);

  useEffect(() => {
    // Never rejects: every failure is caught below and shown as the sign-in error.
    void (async () => {
      try {
        const c = await loadConfig();
        setConfig(c);
        const fresh = await completeSignIn(c);
        setSession(fresh ?? storedSession());
      } catch (err) {
        setError((err as Error).message);
      } finally {
        setReady(true);
      }
    })();
  }, []);

  if (!ready) return <p role="status">Loading…</p>;
  if (!config)
    return (
      <main>
        <h1>Admin console</h1>
        <p role="alert">{error ?? 'The console is not available.'}</p>
      </main>
    );
  if (!session) return <SignIn config={config} error={error} />;
  return (
    <Console
      config={config}
      session={session}
      onSignOut={() => {
        signOut();
        setSession(undefined);
      }}
      onExpired={() => {
        signOut();
        setSession(undefined);
        setError('Your session has ended: sign in again.');
      }}
    />
  );
}

function SignIn(props: { config: ConsoleConfig; error: string | undefined }) {
  const initial =
    new URLSearchParams(window.location.search).get('tenant') ??
    localStorage.getItem('idp-console-tenant') ??
    String(props.config.systemTenantId);
  const [tenant, setTenant] = useState(initial);
  const [busy, setBusy] = useState(false);
  return (
    <main className="signin">
      <h1>Admin console</h1>
      <p>
        Sign in with your account in the tenant you administer. Administrators of the system tenant (
        {props.config.systemTenantId}) can work on every tenant.
      </p>
      {props.error ? (
        <p className="problem" role="alert">
          {props.error}
        </p>
      ) : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          localStorage.setItem('idp-console-tenant', tenant);
          void signIn(props.config, Number(tenant));
        }}
      >
        <div className="field">
          <label htmlFor="signin-tenant">Tenant id</label>
          <input
            id="signin-tenant"
            inputMode="numeric"
            pattern="[0-9]{1,15}"
            required
            value={tenant}
            onChange={(e) => setTenant(e.target.value)}
          />
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Console(props: { config: ConsoleConfig; session: Session; onSignOut: () => void; onExpired: () => void }) {
  const { session } = props;
  const [tenantId, setTenantId] = useState(session.tenantId);
  const [route, setRoute] = useState(routeOf());
  const [tenants, setTenants] = useState<Schemas['Tenant'][]>([]);
  const onExpired = props.onExpired;
  const api = useMemo(() => apiClient(session, onExpired), [session, onExpired]);
  const scopes = useMemo(() => new Set(session.scopes), [session]);
  const can = useCallback((s: string) => scopes.has(s), [scopes]);
  const ctx: ConsoleContext = useMemo(
    () => ({ session, api, tenantId, can, ...(session.system ? { switchTenant: setTenantId } : {}) }),
    [session, api, tenantId, can],
  );

  useEffect(() => {
    const on = () => setRoute(routeOf());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  const loadTenants = useCallback(async () => {
    if (!session.system || !scopes.has('auth.tenants.list')) return;
    const page = await call(api.GET('/auth/admin/tenants', { params: { query: { limit: 200 } } })).catch(
      () => undefined,
    );
    if (page) setTenants(page.items);
  }, [api, session, scopes]);
  useEffect(() => {
    void loadTenants();
  }, [loadTenants]);

  const screens = SCREENS.filter((s) => !s.systemOnly || session.system);
  const current = screens.find((s) => s.id === route) ?? screens[0]!;
  const firstScreen = useRef(true);
  useEffect(() => {
    document.title = `${current.title} · Admin console`;
    // A screen change moves focus to its heading (announced by screen readers); the first screen leaves focus at the
    // top of the page, so the first Tab reaches the skip link.
    if (firstScreen.current) firstScreen.current = false;
    else document.getElementById('screen-heading')?.focus();
  }, [current]);

  return (
    <Ctx.Provider value={ctx}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <p className="brand">Admin console</p>
        <div className="who">
          {session.system ? (
            <span className="tenant-switch">
              <label htmlFor="tenant-switch">Tenant</label>
              <select
                id="tenant-switch"
                value={tenantId}
                onChange={(e) => setTenantId(Number(e.target.value))}
                onFocus={() => void loadTenants()}
              >
                {(tenants.some((t) => t.id === tenantId)
                  ? tenants
                  : [
                      ...tenants,
                      {
                        id: tenantId,
                        name: tenantId === session.tenantId ? 'system' : String(tenantId),
                      } as Schemas['Tenant'],
                    ]
                ).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.id} · {t.name}
                  </option>
                ))}
              </select>
            </span>
          ) : (
            <span className="tenant-fixed" data-tenant={tenantId}>
              Tenant {tenantId}
            </span>
          )}
          <span className="subject">Signed in to tenant {session.tenantId}</span>
          <button type="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <div className="layout">
        <nav aria-label="Screens">
          <ul>
            {screens.map((s) => (
              <li key={s.id}>
                <a href={`#/${s.id}`} aria-current={s.id === current.id ? 'page' : undefined}>
                  {s.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          <h1 id="screen-heading" tabIndex={-1}>
            {current.title}
          </h1>
          <div key={`${current.id}-${tenantId}`}>{current.render()}</div>
          <TenantsSync onChange={loadTenants} />
        </main>
      </div>
    </Ctx.Provider>
  );
}

/** Screens that create or delete tenants ask the switcher to re-read the list. */
function TenantsSync(props: { onChange: () => void }) {
  useEffect(() => {
    const on = () => props.onChange();
    window.addEventListener('idp-tenants-changed', on);
    return () => window.removeEventListener('idp-tenants-changed', on);
  }, [props]);
  return null;
}
