/**
 * Trusted workload identity issuers (a Kubernetes service-account issuer, a SPIFFE trust domain, a CI system's OIDC
 * issuer): a JWT one of them signs proves, at token exchange, the NHE whose workloadIdentity names its iss and sub.
 * The list (cursor paging), an issuer's page (key set URL, description, enabled; the issuer value is fixed), create,
 * and delete after a confirmation. Shown on the signing keys screen: both decide which keys the tenant trusts.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  ConfirmButton,
  EditCheck,
  EditText,
  ProblemBox,
  ResourceList,
  SaveBar,
  StatusBadge,
  useEditor,
  useLimits,
  type PageQuery,
} from '../resource-ui';
import { ScopedButton, useAction, useConsole } from '../ui';

type Issuer = Schemas['WorkloadIssuer'];

export function WorkloadIssuers() {
  const { api, tenantId } = useConsole();
  const [reload, setReload] = useState(0);
  const [selected, setSelected] = useState<string | undefined>();
  const bump = useCallback(() => setReload((n) => n + 1), []);
  const load = useCallback(
    (q: PageQuery) =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/workload-issuers', {
          params: { path: tp(tenantId), query: { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) } },
        }),
      ),
    [api, tenantId],
  );
  return (
    <section aria-labelledby="workload-issuers-heading">
      <h2 id="workload-issuers-heading">Trusted workload identity issuers</h2>
      <p className="hint">
        A JWT such an issuer signs proves the NHE whose workload identity names its issuer and subject (RFC 8693 actor
        token).
      </p>
      {selected ? (
        <IssuerDetail
          key={selected}
          id={selected}
          onClose={() => setSelected(undefined)}
          onChanged={bump}
          onDeleted={() => {
            setSelected(undefined);
            bump();
          }}
        />
      ) : null}
      <ResourceList<Issuer>
        label="Workload issuers"
        load={load}
        reloadKey={reload}
        rowKey={(i) => i.id}
        rowAttrs={(i) => ({ 'data-workload-issuer': i.issuer })}
        columns={[
          {
            header: 'Issuer',
            sortValue: (i) => i.issuer,
            render: (i) => (
              <button type="button" className="link" onClick={() => setSelected(i.id)}>
                <code>{i.issuer}</code>
              </button>
            ),
          },
          { header: 'Status', sortValue: (i) => (i.enabled ? 1 : 0), render: (i) => <StatusBadge on={i.enabled} /> },
          { header: 'Key set URL', render: (i) => <code>{i.jwksUri}</code> },
          { header: 'Description', render: (i) => i.description ?? '' },
          { header: 'Delete', render: (i) => <DeleteIssuer issuer={i} onDeleted={bump} /> },
        ]}
      />
      <CreateIssuer onCreated={bump} />
    </section>
  );
}

function DeleteIssuer(props: { issuer: Issuer; label?: string; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  return (
    <ConfirmButton
      scope="auth.tenants.update"
      label={props.label ?? `Delete ${props.issuer.issuer}`}
      question={`Stop trusting the workload issuer ${props.issuer.issuer}?`}
      consequence="Its JWTs no longer prove any NHE: NHEs whose workload identity names it need another actor proof. This cannot be undone."
      confirm="Really stop trusting it"
      onConfirm={async () => {
        await call(
          api.DELETE('/auth/admin/tenants/{tenantId}/workload-issuers/{issuerId}', {
            params: { path: { ...tp(tenantId), issuerId: props.issuer.id } },
          }),
        );
        props.onDeleted();
      }}
    />
  );
}

interface IssuerDraft extends Record<string, unknown> {
  jwksUri: string;
  description: string | undefined;
  enabled: boolean;
}

function IssuerDetail(props: { id: string; onClose: () => void; onChanged: () => void; onDeleted: () => void }) {
  const { api, tenantId } = useConsole();
  const [issuer, setIssuer] = useState<Issuer | undefined>();
  const get = useAction();
  const limits = useLimits('updateWorkloadIssuer');
  const path = { ...tp(tenantId), issuerId: props.id };
  useEffect(() => {
    void get
      .run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/workload-issuers/{issuerId}', {
            params: { path: { ...tp(tenantId), issuerId: props.id } },
          }),
        ),
      )
      .then((i) => {
        if (i) setIssuer(i);
      });
  }, [api, tenantId, props.id]); // eslint-disable-line react-hooks/exhaustive-deps
  const ed = useEditor<Issuer, IssuerDraft>({
    item: issuer,
    toDraft: (i) => ({ jwksUri: i.jwksUri, description: i.description, enabled: i.enabled }),
    what: (i) => `workload issuer ${i.issuer}`,
    labels: { jwksUri: 'key set URL', description: 'description', enabled: 'status' },
    save: (patch) =>
      call(api.PATCH('/auth/admin/tenants/{tenantId}/workload-issuers/{issuerId}', { params: { path }, body: patch })),
    onSaved: (i) => {
      setIssuer(i);
      props.onChanged();
    },
  });
  const d = ed.draft;
  return (
    <article className="card detail" aria-labelledby="workload-issuer-heading">
      <h3 id="workload-issuer-heading">Workload issuer {issuer?.issuer ?? props.id}</h3>
      <button type="button" className="secondary" onClick={props.onClose}>
        Close
      </button>
      <ProblemBox problem={get.problem} />
      {issuer && d ? (
        <form
          aria-label={`Edit workload issuer ${issuer.issuer}`}
          onSubmit={(e) => {
            e.preventDefault();
            void ed.save();
          }}
        >
          <p className="meta">
            Issuer (the iss of its JWTs, fixed): <code>{issuer.issuer}</code>
          </p>
          <EditText
            type="url"
            label="Key set URL (https)"
            name="body.jwksUri"
            problem={ed.problem}
            limits={limits('jwksUri')}
            value={d.jwksUri}
            required
            onChange={(v) => ed.set('jwksUri', v)}
          />
          <EditText
            label="Description (empty removes it)"
            name="body.description"
            problem={ed.problem}
            limits={limits('description')}
            value={d.description ?? ''}
            onChange={(v) => ed.set('description', v || undefined)}
          />
          <EditCheck
            label="Enabled (a disabled issuer proves nobody)"
            name="body.enabled"
            problem={ed.problem}
            checked={d.enabled}
            onChange={(v) => ed.set('enabled', v)}
          />
          <ProblemBox problem={ed.problem} shownFields={['body.jwksUri', 'body.description', 'body.enabled']} />
          <SaveBar scope="auth.tenants.update" editor={ed} what={`workload issuer ${issuer.issuer}`} />
          <div className="danger-zone">
            <DeleteIssuer issuer={issuer} label="Stop trusting this issuer" onDeleted={props.onDeleted} />
          </div>
        </form>
      ) : null}
    </article>
  );
}

function CreateIssuer(props: { onCreated: () => void }) {
  const { api, tenantId } = useConsole();
  const limits = useLimits('createWorkloadIssuer');
  const create = useAction();
  const empty = { issuer: '', jwksUri: '', description: '' };
  const [f, setF] = useState(empty);
  const [done, setDone] = useState('');
  return (
    <form
      className="card"
      aria-label="Trust a workload issuer"
      onSubmit={(e) => {
        e.preventDefault();
        setDone('');
        void create
          .run(() =>
            call(
              api.POST('/auth/admin/tenants/{tenantId}/workload-issuers', {
                params: { path: tp(tenantId) },
                body: {
                  issuer: f.issuer,
                  jwksUri: f.jwksUri,
                  ...(f.description ? { description: f.description } : {}),
                },
              }),
            ),
          )
          .then((i) => {
            if (i) {
              setF(empty);
              setDone(`Now trusting workload issuer ${i.issuer}.`);
              props.onCreated();
            }
          });
      }}
    >
      <h3>Trust a workload issuer</h3>
      <EditText
        label="Issuer (the iss of its JWTs)"
        name="body.issuer"
        problem={create.problem}
        limits={limits('issuer')}
        value={f.issuer}
        required
        onChange={(v) => setF({ ...f, issuer: v })}
        hint="e.g. https://kubernetes.default.svc.cluster.local or spiffe://example.org"
      />
      <EditText
        type="url"
        label="Key set URL (https)"
        name="body.jwksUri"
        problem={create.problem}
        limits={limits('jwksUri')}
        value={f.jwksUri}
        required
        onChange={(v) => setF({ ...f, jwksUri: v })}
      />
      <EditText
        label="Description"
        name="body.description"
        problem={create.problem}
        limits={limits('description')}
        value={f.description}
        onChange={(v) => setF({ ...f, description: v })}
      />
      <ProblemBox problem={create.problem} shownFields={['body.issuer', 'body.jwksUri', 'body.description']} />
      <ScopedButton scope="auth.tenants.update" type="submit" busy={create.busy}>
        Trust workload issuer
      </ScopedButton>
      <p role="status">{done}</p>
    </form>
  );
}
