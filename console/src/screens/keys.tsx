/**
 * The tenant's signing keys (active and retired, the retired ones published until a date) and the tenant's trusted
 * workload identity issuers. A rotation is confirmed first: a new key signs from then on, the previous one stays in
 * the JWKS (RFC 7517) until its tokens have expired.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { ConfirmButton, ProblemBox, StatusBadge } from '../resource-ui';
import { fmtDate, useConsole, useAction } from '../ui';
import { WorkloadIssuers } from './workload-issuers';

export function KeysScreen() {
  const { api, tenantId } = useConsole();
  const [keys, setKeys] = useState<Schemas['SigningKey'][]>([]);
  const list = useAction();
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
  const rotate = async (alg: 'ES256' | 'RS256') => {
    const k = await call(
      api.POST('/auth/admin/tenants/{tenantId}/signing-keys/rotations', {
        params: { path: tp(tenantId) },
        body: { alg },
      }),
    );
    setDone(`New ${k.alg} key ${k.kid} is active; the previous one stays published for verification.`);
    await load();
  };
  return (
    <section>
      <h2>Signing keys</h2>
      <ProblemBox problem={list.problem} />
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
              <tr key={k.kid} data-kid={k.kid}>
                <td>
                  <code>{k.kid}</code>
                </td>
                <td>{k.alg}</td>
                <td>
                  <StatusBadge on={k.status === 'active'} onText="Active" offText="Retired" />
                </td>
                <td>{fmtDate(k.createdAt)}</td>
                <td>{fmtDate(k.publishUntil)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="actions">
        {(['ES256', 'RS256'] as const).map((alg) => (
          <ConfirmButton
            key={alg}
            scope="auth.keys.rotate"
            className="secondary"
            label={`Rotate ${alg} key`}
            question={`Rotate the ${alg} signing key of tenant ${tenantId}?`}
            consequence={`A new ${alg} key signs every token from now on. The current one is retired: it stays in the tenant's JWKS until the tokens it signed have expired, so they keep verifying; relying parties that cache the JWKS pick up the new key when they refresh it.`}
            confirm={`Really rotate the ${alg} key`}
            onConfirm={() => rotate(alg)}
          />
        ))}
      </div>
      <p role="status">{done}</p>
      <WorkloadIssuers />
    </section>
  );
}
