/**
 * The tenant's Shared Signals streams (SSF 1.0): who subscribed to the tenant's revocations (each receiver is a
 * client with ssf.manage), how the events travel (push to an endpoint, or poll), the status, the receiver's last
 * activity and the events waiting. An administrator pauses or resumes a stream, disables it (its waiting events are
 * dropped; only its receiver enables it again, and the transmitter then delivers what it missed), or deletes one a
 * receiver left behind; each confirms first.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ConfirmButton, ProblemBox, StatusBadge } from '../resource-ui';
import { fmtDate, ScopedButton, useAction, useConsole } from '../ui';

type Stream = Schemas['SsfStream'];

export function SsfStreamsScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Stream[]>([]);
  const [done, setDone] = useState('');
  const list = useAction();
  const act = useAction();
  const reload = useCallback(() => {
    void list
      .run(() => call(api.GET('/auth/admin/tenants/{tenantId}/ssf-streams', { params: { path: tp(tenantId) } })))
      .then((r) => {
        if (r) setItems(r.items);
      });
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(reload, [reload]);
  const setStatus = async (s: Stream, status: 'enabled' | 'paused' | 'disabled', message: string) => {
    const r = await act.run(() =>
      call(
        api.PATCH('/auth/admin/tenants/{tenantId}/ssf-streams/{streamId}', {
          params: { path: { ...tp(tenantId), streamId: s.id } },
          body: { status },
        }),
      ),
    );
    if (r) {
      setDone(message);
      reload();
    }
  };
  return (
    <section aria-labelledby="ssf-heading">
      <h2 id="ssf-heading">Shared Signals streams</h2>
      <p className="hint">
        Resource servers and other organisations subscribe here to this tenant&apos;s revocations (agents disabled,
        access revoked): each stream belongs to one receiver.
      </p>
      <ProblemBox problem={list.problem ?? act.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Shared Signals streams (scrolls sideways)">
        <table aria-label="Shared Signals streams">
          <thead>
            <tr>
              <th scope="col">Receiver</th>
              <th scope="col">Delivery</th>
              <th scope="col">Status</th>
              <th scope="col">Waiting events</th>
              <th scope="col">Created</th>
              <th scope="col">Last activity</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {items.length === 0 ? (
              <tr>
                <td colSpan={7}>No stream: nobody subscribes to this tenant&apos;s revocations yet.</td>
              </tr>
            ) : null}
            {items.map((s) => (
              <tr key={s.id} data-stream={s.id}>
                <td>
                  <strong>{s.clientId}</strong>
                  {s.description ? <div className="hint">{s.description}</div> : null}
                  <div className="hint">
                    <code>{s.id}</code>
                  </div>
                </td>
                <td>
                  {s.delivery === 'push' ? `push to ${s.endpointUrl ?? '?'}` : s.delivery}
                  {s.pushFailures ? <div className="hint">{s.pushFailures} failed attempts</div> : null}
                </td>
                <td>
                  <StatusBadge
                    on={s.status === 'enabled'}
                    onText="Enabled"
                    offText={s.status === 'paused' ? 'Paused' : 'Disabled'}
                  />
                  {s.reason ? <div className="hint">{s.reason}</div> : null}
                </td>
                <td>{s.pendingEvents}</td>
                <td>{s.createdAt ? fmtDate(s.createdAt) : ''}</td>
                <td>{s.lastActivityAt ? fmtDate(s.lastActivityAt) : ''}</td>
                <td>
                  {s.status === 'enabled' ? (
                    <ScopedButton
                      scope="auth.tenants.update"
                      className="secondary"
                      onClick={() =>
                        void setStatus(s, 'paused', `Paused the stream of ${s.clientId}: its events wait.`)
                      }
                    >
                      Pause {s.clientId}
                    </ScopedButton>
                  ) : null}
                  {s.status === 'paused' ? (
                    <ScopedButton
                      scope="auth.tenants.update"
                      className="secondary"
                      onClick={() =>
                        void setStatus(s, 'enabled', `Resumed the stream of ${s.clientId}: its waiting events go out.`)
                      }
                    >
                      Resume {s.clientId}
                    </ScopedButton>
                  ) : null}{' '}
                  {s.status !== 'disabled' ? (
                    <ConfirmButton
                      scope="auth.tenants.update"
                      label={`Disable ${s.clientId}`}
                      question={`Disable the stream of ${s.clientId}?`}
                      consequence="Its waiting events are dropped and no new ones are kept for it; only the receiver can enable it again (the transmitter then delivers what it missed)."
                      confirm="Really disable it"
                      onConfirm={() => setStatus(s, 'disabled', `Disabled the stream of ${s.clientId}.`)}
                    />
                  ) : null}{' '}
                  <ConfirmButton
                    scope="auth.tenants.update"
                    label={`Delete ${s.clientId}`}
                    question={`Delete the stream of ${s.clientId}?`}
                    consequence="The stream and its waiting events are gone; the receiver has to create a new one."
                    confirm="Really delete it"
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/ssf-streams/{streamId}', {
                          params: { path: { ...tp(tenantId), streamId: s.id } },
                        }),
                      );
                      setDone(`Deleted the stream of ${s.clientId}.`);
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
      <ScopedButton scope="auth.tenants.list" className="secondary" onClick={reload}>
        Refresh
      </ScopedButton>
    </section>
  );
}
