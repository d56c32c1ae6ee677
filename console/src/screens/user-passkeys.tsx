/**
 * A user's passkeys (WebAuthn credentials the person enrolled at the tenant's /account/passkeys): what each is (synced
 * or device-bound), when it was added and last used, a Remove button per passkey, "Remove all" (the recovery for a
 * person who lost their devices; their recovery codes go too), and a one-time enrolment link (shown once) for a
 * passkey-only tenant's account without a password.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ConfirmButton, ProblemBox, ShownOnce } from '../resource-ui';
import { ScopedButton, fmtDate, useAction, useConsole } from '../ui';

type Passkey = Schemas['UserPasskey'];

export function UserPasskeys(props: { user: { id: string; username: string } }) {
  const { api, tenantId } = useConsole();
  const { user } = props;
  const path = { ...tp(tenantId), userId: user.id };
  const [items, setItems] = useState<Passkey[]>([]);
  const [codesLeft, setCodesLeft] = useState(0);
  const [note, setNote] = useState('');
  const [link, setLink] = useState('');
  const list = useAction();
  const enrol = useAction();
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(
        api.GET('/auth/admin/tenants/{tenantId}/users/{userId}/passkeys', {
          params: { path: { ...tp(tenantId), userId: user.id } },
        }),
      ),
    );
    if (r) {
      setItems(r.items);
      setCodesLeft(r.recoveryCodesLeft);
    }
  }, [api, tenantId, user.id]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
  }, [load]);
  return (
    <section className="card" aria-labelledby="passkeys-heading">
      <h2 id="passkeys-heading">Passkeys</h2>
      <p role="status">{note}</p>
      <ProblemBox problem={list.problem ?? enrol.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label={`Passkeys of ${user.username}`}>
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">Remove</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={5}>{user.username} has no passkey.</td>
              </tr>
            ) : null}
            {items.map((p) => (
              <tr key={p.credentialId} data-passkey={p.credentialId}>
                <td>{p.name}</td>
                <td>
                  {p.deviceType === 'singleDevice' && !p.backedUp ? 'Device-bound (amr hwk)' : 'Synced (amr swk)'}
                  {p.attestationVerified ? ', attested' : ''}
                </td>
                <td>{fmtDate(p.createdAt)}</td>
                <td>{p.lastUsedAt ? fmtDate(p.lastUsedAt) : 'never'}</td>
                <td>
                  <ConfirmButton
                    scope="auth.users.update"
                    label={`Remove passkey ${p.name}`}
                    question={`Remove the passkey ${p.name} of ${user.username}?`}
                    consequence="It no longer signs them in. They can enrol a new one on their passkeys page."
                    confirm="Really remove the passkey"
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/passkeys/{credentialId}', {
                          params: { path: { ...path, credentialId: p.credentialId } },
                        }),
                      );
                      setNote(`Removed the passkey ${p.name} of ${user.username}.`);
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>Recovery codes left: {codesLeft}</p>
      {items.length > 0 || codesLeft > 0 ? (
        <ConfirmButton
          scope="auth.users.update"
          label="Remove all passkeys"
          question={`Remove every passkey and recovery code of ${user.username}?`}
          consequence="None of them signs in any more. Give the person a password reset link or an enrolment link to enrol again."
          confirm={`Really remove all passkeys of ${user.username}`}
          onConfirm={async () => {
            await call(api.DELETE('/auth/admin/tenants/{tenantId}/users/{userId}/passkeys', { params: { path } }));
            setNote(`Removed every passkey and recovery code of ${user.username}.`);
            await load();
          }}
        />
      ) : null}{' '}
      <ScopedButton
        scope="auth.users.update"
        className="secondary"
        busy={enrol.busy}
        onClick={() =>
          void enrol
            .run(() =>
              call(
                api.POST('/auth/admin/tenants/{tenantId}/users/{userId}/passkeys/enrolment-link', {
                  params: { path },
                }),
              ),
            )
            .then((r) => {
              if (r) setLink(r.url ?? r.path);
            })
        }
      >
        Make an enrolment link
      </ScopedButton>
      {link ? (
        <ShownOnce
          label="Passkey enrolment link"
          value={link}
          note={`Give this link to ${user.username} out of band: it is shown only now, works once and for a week at most.`}
          testId="passkey-enrolment-link"
        />
      ) : null}
    </section>
  );
}
