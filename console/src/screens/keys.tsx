/** The tenant's signing keys: active and retired (published until), and rotation. */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { fmtDate, ProblemView, ScopedButton, useAction, useConsole } from '../ui';

export function KeysScreen() {
  const { api, tenantId } = useConsole();
  const [keys, setKeys] = useState<Schemas['SigningKey'][]>([]);
  const list = useAction();
  const rotate = useAction();
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    const r = await list.run(() =>
      call(api.GET('/auth/admin/tenants/{tenantId}/signing-keys', { params: { path: tp(tenantId) } })),
    );
    if (r) setKeys(r.items);
  }, [api, tenantId]); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    void load();
  }, [load]);
  const onRotate = async (alg: 'ES256' | 'RS256') => {
    const k = await rotate.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/signing-keys/rotations', {
          params: { path: tp(tenantId) },
          body: { alg },
        }),
      ),
    );
    if (k) {
      setDone(`New ${k.alg} key ${k.kid} is active; the previous one stays published for verification.`);
      void load();
    }
  };
  return (
    <section>
      <ProblemView problem={list.problem} />
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Signing keys">
        <table>
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Algorithm</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Published until</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.kid}>
                <td>
                  <code>{k.kid}</code>
                </td>
                <td>{k.alg}</td>
                <td>{k.status}</td>
                <td>{fmtDate(k.createdAt)}</td>
                <td>{fmtDate(k.publishUntil)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="actions">
        <ScopedButton scope="auth.keys.rotate" onClick={() => void onRotate('ES256')} busy={rotate.busy}>
          Rotate ES256 key
        </ScopedButton>
        <ScopedButton scope="auth.keys.rotate" onClick={() => void onRotate('RS256')} busy={rotate.busy}>
          Rotate RS256 key
        </ScopedButton>
      </div>
      <p role="status">{done}</p>
      <ProblemView problem={rotate.problem} />
    </section>
  );
}
