/**
 * Directory provisioning (SCIM 2.0, RFC 7644): the tenant's SCIM base URL for the directory (Entra ID's Tenant URL,
 * Okta's SCIM connector base URL), its SCIM credentials (the secret shown once; revoke stops the directory at once,
 * delete forgets a credential), and when each was last used. Users and groups the directory manages are marked on
 * their own screens.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ConfirmButton, EditText, ProblemBox, ShownOnce, StatusBadge, useLimits } from '../resource-ui';
import { fmtDate, ScopedButton, useAction, useConsole } from '../ui';

type Credential = Schemas['ScimCredential'];

/** What the API checks before issuing a credential (management routes/scim-credentials.ts, CREDENTIAL_SCOPES). */
const SCIM_CREDENTIAL_SCOPES = [
  'auth.users.create',
  'auth.users.update',
  'auth.users.delete',
  'auth.groups.create',
  'auth.groups.update',
  'auth.groups.delete',
] as const;

export function ScimScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Credential[]>([]);
  const [issued, setIssued] = useState<Schemas['IssuedScimCredential'] | undefined>();
  const [done, setDone] = useState('');
  const list = useAction();
  const reload = useCallback(() => {
    void list
      .run(() => call(api.GET('/auth/admin/tenants/{tenantId}/scim-credentials', { params: { path: tp(tenantId) } })))
      .then((r) => {
        if (r) setItems(r.items);
      });
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(reload, [reload]);
  const baseUrl = `${window.location.origin}/auth/${tenantId}/scim/v2`;
  return (
    <section aria-labelledby="scim-heading">
      <h2 id="scim-heading">SCIM endpoint and credentials</h2>
      <p className="hint">
        The company directory (Microsoft Entra ID, Okta, ...) creates, updates and deactivates this tenant&apos;s users
        and groups through SCIM 2.0. Deactivating a person there stops every agent acting for them at once.
      </p>
      <p className="meta">
        SCIM base URL (Entra ID: Tenant URL; Okta: SCIM connector base URL):{' '}
        <code data-testid="scim-base-url">{baseUrl}</code>
      </p>
      <ProblemBox problem={list.problem} />
      {/* A table wider than a phone scrolls sideways inside its own region (as the resource lists do). */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="SCIM credentials (scrolls sideways)">
        <table aria-label="SCIM credentials">
          <thead>
            <tr>
              <th scope="col">Credential</th>
              <th scope="col">Description</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={6}>No SCIM credentials: the directory cannot provision this tenant yet.</td>
              </tr>
            ) : null}
            {items.map((c) => (
              <tr key={c.id} data-scim-credential={c.id}>
                <td>
                  <code>{c.id}</code>
                </td>
                <td>{c.description ?? ''}</td>
                <td>
                  <StatusBadge on={!c.revokedAt} onText="Active" offText={`Revoked ${fmtDate(c.revokedAt)}`} />
                </td>
                <td>{fmtDate(c.createdAt)}</td>
                <td>{c.lastUsedAt ? fmtDate(c.lastUsedAt) : 'Never'}</td>
                <td>
                  {c.revokedAt ? null : (
                    <ConfirmButton
                      scope="auth.users.delete"
                      label={`Revoke ${c.id}`}
                      question={`Revoke the SCIM credential ${c.id}?`}
                      consequence="The directory is refused with it from now on: provisioning stops until it has a new credential."
                      confirm="Really revoke it"
                      onConfirm={async () => {
                        await call(
                          api.POST('/auth/admin/tenants/{tenantId}/scim-credentials/{credentialId}/revoke', {
                            params: { path: { ...tp(tenantId), credentialId: c.id } },
                          }),
                        );
                        setDone(`Revoked SCIM credential ${c.id}.`);
                        reload();
                      }}
                    />
                  )}{' '}
                  <ConfirmButton
                    scope="auth.users.delete"
                    label={`Delete ${c.id}`}
                    question={`Delete the SCIM credential ${c.id}?`}
                    consequence="It is refused from now on and no longer listed. This cannot be undone."
                    confirm="Really delete it"
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/scim-credentials/{credentialId}', {
                          params: { path: { ...tp(tenantId), credentialId: c.id } },
                        }),
                      );
                      setDone(`Deleted SCIM credential ${c.id}.`);
                      reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p role="status">{done}</p>
      {issued ? (
        <ShownOnce
          label="SCIM secret"
          value={issued.secret}
          testId="scim-secret"
          note={
            <>
              Give this secret to the directory as its bearer token (Entra ID: Secret Token; Okta: API token). It is
              shown only now: only a digest is kept.
            </>
          }
        />
      ) : null}
      <CreateCredential
        onCreated={(c) => {
          setIssued(c);
          setDone(`Created SCIM credential ${c.id}.`);
          reload();
        }}
      />
    </section>
  );
}

function CreateCredential(props: { onCreated: (c: Schemas['IssuedScimCredential']) => void }) {
  const { api, tenantId, can } = useConsole();
  const limits = useLimits('createScimCredential');
  const create = useAction();
  const [description, setDescription] = useState('');
  return (
    <form
      className="card"
      aria-label="Create a SCIM credential"
      onSubmit={(e) => {
        e.preventDefault();
        void create
          .run(() =>
            call(
              api.POST('/auth/admin/tenants/{tenantId}/scim-credentials', {
                params: { path: tp(tenantId) },
                body: description ? { description } : {},
              }),
            ),
          )
          .then((c) => {
            if (c) {
              setDescription('');
              props.onCreated(c);
            }
          });
      }}
    >
      <h3>Create a SCIM credential</h3>
      <EditText
        label="Description (which directory uses it)"
        name="body.description"
        problem={create.problem}
        limits={limits('description')}
        value={description}
        onChange={setDescription}
      />
      <ProblemBox problem={create.problem} shownFields={['body.description']} />
      {/* The API checks the caller holds every scope the credential will carry (CREDENTIAL_SCOPES). */}
      <ScopedButton scope="auth.users.create" alsoScopes={SCIM_CREDENTIAL_SCOPES} type="submit" busy={create.busy}>
        Create SCIM credential
      </ScopedButton>
      {SCIM_CREDENTIAL_SCOPES.every(can) ? null : (
        <p className="hint">
          A SCIM credential carries the scopes to create, update and delete users and groups: the API issues one only to
          an administrator who holds all six ({SCIM_CREDENTIAL_SCOPES.join(', ')}).
        </p>
      )}
    </form>
  );
}
