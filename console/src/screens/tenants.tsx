/**
 * Tenants (system administrators: list and create) and the current tenant's settings.nhe, with the spec's defaults
 * and limits explained next to each field.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Problem, type Schemas } from '../api';
import { Busy, CheckField, fmtDate, ProblemView, ScopedButton, TextField, useAction, useConsole } from '../ui';

type Tenant = Schemas['Tenant'];
/** The settings.nhe fields this screen edits (others, such as newer ones, are left as they are: PATCH merges). */
type Nhe = Pick<
  Tenant['settings']['nhe'],
  | 'enabled'
  | 'defaultMaxTokenLifetime'
  | 'hardMaxTokenLifetime'
  | 'requireDpop'
  | 'allowedNheTypes'
  | 'maxNhePerTenant'
  | 'auditRetentionDays'
  | 'requireActorProof'
>;
const NHE_TYPES = ['llm-autonomous', 'llm-assistive', 'automated-pipeline'] as const;

/** The spec's defaults of settings.nhe. */
export const NHE_DEFAULTS: Nhe = {
  enabled: false,
  defaultMaxTokenLifetime: 300,
  hardMaxTokenLifetime: 900,
  requireDpop: false,
  allowedNheTypes: [...NHE_TYPES],
  maxNhePerTenant: 50,
  auditRetentionDays: 90,
  requireActorProof: false,
};

interface NheDraft {
  enabled: boolean;
  defaultMaxTokenLifetime: string;
  hardMaxTokenLifetime: string;
  requireDpop: boolean;
  allowedNheTypes: string[];
  maxNhePerTenant: string;
  auditRetentionDays: string;
}

const draftOf = (n: Nhe): NheDraft => ({
  enabled: n.enabled,
  defaultMaxTokenLifetime: String(n.defaultMaxTokenLifetime),
  hardMaxTokenLifetime: String(n.hardMaxTokenLifetime),
  requireDpop: n.requireDpop,
  allowedNheTypes: [...n.allowedNheTypes],
  maxNhePerTenant: String(n.maxNhePerTenant),
  auditRetentionDays: String(n.auditRetentionDays),
});

function nheBody(d: NheDraft, includeQuota: boolean) {
  return {
    enabled: d.enabled,
    defaultMaxTokenLifetime: Number(d.defaultMaxTokenLifetime),
    hardMaxTokenLifetime: Number(d.hardMaxTokenLifetime),
    requireDpop: d.requireDpop,
    allowedNheTypes: d.allowedNheTypes as Array<(typeof NHE_TYPES)[number]>,
    ...(includeQuota ? { maxNhePerTenant: Number(d.maxNhePerTenant) } : {}),
    auditRetentionDays: Number(d.auditRetentionDays),
  };
}

function NheFields(props: {
  draft: NheDraft;
  set: (d: NheDraft) => void;
  problem: Problem | undefined;
  prefix: string;
  quotaEditable: boolean;
}) {
  const { draft: d, set, problem, prefix: p } = props;
  return (
    <fieldset>
      <legend>NHE delegation (settings.nhe)</legend>
      <CheckField
        label="NHE delegation enabled"
        name={`${p}.enabled`}
        problem={problem}
        checked={d.enabled}
        onChange={(v) => set({ ...d, enabled: v })}
        hint="Default off: token exchange for non-human entities is refused until an admin turns it on."
      />
      <TextField
        label="Default max token lifetime (seconds)"
        type="number"
        name={`${p}.defaultMaxTokenLifetime`}
        problem={problem}
        value={d.defaultMaxTokenLifetime}
        onChange={(v) => set({ ...d, defaultMaxTokenLifetime: v })}
        hint="Default 300. 60 to 900, and never above the hard maximum: an NHE without its own lifetime gets this one."
      />
      <TextField
        label="Hard max token lifetime (seconds)"
        type="number"
        name={`${p}.hardMaxTokenLifetime`}
        problem={problem}
        value={d.hardMaxTokenLifetime}
        onChange={(v) => set({ ...d, hardMaxTokenLifetime: v })}
        hint="Default 900, at most 900. No NHE, policy or client lifetime may exceed it; delegated tokens live at least 60 s."
      />
      <CheckField
        label="Require DPoP"
        name={`${p}.requireDpop`}
        problem={problem}
        checked={d.requireDpop}
        onChange={(v) => set({ ...d, requireDpop: v })}
        hint="Default off. On: every NHE token is sender-constrained (a DPoP proof at exchange)."
      />
      <fieldset className="inline">
        <legend>Allowed NHE types (default: all three)</legend>
        {NHE_TYPES.map((t) => (
          <CheckField
            key={t}
            label={t}
            name={`${p}.allowedNheTypes`}
            problem={problem}
            checked={d.allowedNheTypes.includes(t)}
            onChange={(v) =>
              set({ ...d, allowedNheTypes: v ? [...d.allowedNheTypes, t] : d.allowedNheTypes.filter((x) => x !== t) })
            }
          />
        ))}
      </fieldset>
      {props.quotaEditable ? (
        <TextField
          label="Max NHEs per tenant"
          type="number"
          name={`${p}.maxNhePerTenant`}
          problem={problem}
          value={d.maxNhePerTenant}
          onChange={(v) => set({ ...d, maxNhePerTenant: v })}
          hint="Default 50, 0 to 10000. A platform quota: only system-tenant administrators change it."
        />
      ) : (
        <p className="hint">
          Max NHEs per tenant: {d.maxNhePerTenant} (a platform quota set by system-tenant administrators).
        </p>
      )}
      <TextField
        label="Audit retention (days)"
        type="number"
        name={`${p}.auditRetentionDays`}
        problem={problem}
        value={d.auditRetentionDays}
        onChange={(v) => set({ ...d, auditRetentionDays: v })}
        hint="Default 90, 0 to 36500; 0 keeps rows forever. The nhe-audit-retention job deletes older token-audit rows."
      />
    </fieldset>
  );
}

export function TenantsScreen() {
  const { api, tenantId, session } = useConsole();
  const [tenant, setTenant] = useState<Tenant | undefined>();
  const [draft, setDraft] = useState<NheDraft | undefined>();
  const [name, setName] = useState('');
  const load = useAction();
  const save = useAction();
  const [saved, setSaved] = useState('');
  const reload = useCallback(async () => {
    const t = await load.run(() => call(api.GET('/auth/admin/tenants/{tenantId}', { params: { path: tp(tenantId) } })));
    if (t) {
      setTenant(t);
      setDraft(draftOf(t.settings.nhe));
      setName(t.name);
    }
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void reload();
  }, [reload]);

  const onSave = async () => {
    if (!draft) return;
    setSaved('');
    const t = await save.run(() =>
      call(
        api.PATCH('/auth/admin/tenants/{tenantId}', {
          params: { path: tp(tenantId) },
          body: { name, settings: { nhe: nheBody(draft, session.system) } },
        }),
      ),
    );
    if (t) {
      setTenant(t);
      setSaved('Settings saved.');
      window.dispatchEvent(new Event('idp-tenants-changed'));
    }
  };

  return (
    <section>
      {session.system ? <CreateTenant /> : null}
      <h2>Tenant {tenantId}</h2>
      <ProblemView problem={load.problem} />
      <Busy busy={load.busy} label="Loading the tenant…" />
      {tenant && draft ? (
        <form
          className="card"
          aria-label="Tenant settings"
          onSubmit={(e) => {
            e.preventDefault();
            void onSave();
          }}
        >
          <p>
            {tenant.system ? 'The system tenant. ' : ''}Created {fmtDate(tenant.createdAt)}.
          </p>
          <TextField label="Name" name="body.name" problem={save.problem} value={name} onChange={setName} />
          <NheFields
            draft={draft}
            set={setDraft}
            problem={save.problem}
            prefix="body.settings.nhe"
            quotaEditable={session.system}
          />
          <ProblemView problem={save.problem} shownFields={['body.name', 'body.settings.nhe']} />
          <ScopedButton scope="auth.tenants.update" type="submit" busy={save.busy}>
            Save settings
          </ScopedButton>
          <p role="status">{saved}</p>
        </form>
      ) : null}
    </section>
  );
}

function CreateTenant() {
  const { api } = useConsole();
  const [name, setName] = useState('');
  const [draft, setDraft] = useState<NheDraft>(draftOf(NHE_DEFAULTS));
  const [created, setCreated] = useState<Tenant | undefined>();
  const [tenants, setTenants] = useState<Tenant[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const act = useAction();
  const list = useAction();
  const loadPage = useCallback(
    async (after?: string) => {
      const page = await list.run(() =>
        call(api.GET('/auth/admin/tenants', { params: { query: { limit: 20, ...(after ? { cursor: after } : {}) } } })),
      );
      if (page) {
        setTenants((all) => (after ? [...all, ...page.items] : page.items));
        setCursor(page.nextCursor);
      }
    },
    [api], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => {
    void loadPage();
  }, [loadPage]);
  const onCreate = async () => {
    const t = await act.run(() =>
      call(api.POST('/auth/admin/tenants', { body: { name, settings: { nhe: nheBody(draft, true) } } })),
    );
    if (t) {
      setCreated(t);
      setName('');
      void loadPage();
      window.dispatchEvent(new Event('idp-tenants-changed'));
    }
  };
  return (
    <>
      <h2>Tenants</h2>
      <ProblemView problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Tenants">
        <table>
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Name</th>
              <th scope="col">NHE delegation</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {tenants.map((t) => (
              <tr key={t.id}>
                <td>{t.id}</td>
                <td>{t.name}</td>
                <td>{t.settings.nhe.enabled ? 'on' : 'off'}</td>
                <td>{fmtDate(t.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor ? (
        <button type="button" onClick={() => void loadPage(cursor)}>
          More tenants
        </button>
      ) : null}
      <form
        className="card"
        aria-label="Create a tenant"
        onSubmit={(e) => {
          e.preventDefault();
          void onCreate();
        }}
      >
        <h3>Create a tenant</h3>
        <TextField
          label="Tenant name"
          name="body.name"
          problem={act.problem}
          value={name}
          onChange={setName}
          required
        />
        <NheFields draft={draft} set={setDraft} problem={act.problem} prefix="body.settings.nhe" quotaEditable />
        <ProblemView problem={act.problem} shownFields={['body.name', 'body.settings.nhe']} />
        <ScopedButton scope="auth.tenants.create" type="submit" busy={act.busy}>
          Create tenant
        </ScopedButton>
        <p role="status" data-testid="created-tenant" data-tenant-id={created?.id}>
          {created ? `Created tenant ${created.id} (${created.name}). Switch to it with the Tenant menu above.` : ''}
        </p>
      </form>
    </>
  );
}
