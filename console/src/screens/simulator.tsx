/**
 * The delegation simulator: the dry run of a token exchange for an NHE, its decision record drawn as the layers
 * that narrowed the requested scopes (or the one that refused) and the terms of the lifetime.
 */
import { useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import { Field, ProblemView, ScopedButton, TextField, useAction, useConsole } from '../ui';

interface DecisionRecord {
  outcome: string;
  scopes?: string[];
  removed?: Array<{ layer: string; scope: string }>;
  ttl?: number;
  ttlSetBy?: string;
  ttlTerms?: Record<string, number>;
  policyIds?: string[];
  error?: string;
  gate?: string;
  description?: string;
  /** Phishing-resistant delegation: the requirement in force and the sign-in that met it or not. */
  signIn?: { maxAgeMinutes: number; setBy: string; acr?: string; ageSeconds?: number; met: boolean };
  [k: string]: unknown;
}

/** The sign-ins the simulator offers (acr values of domain/acr.ts and the OpenID EAP ACR values). */
const SIGN_INS = [
  { value: '', label: 'Not stated (a token without acr)' },
  { value: 'urn:idp:acr:pwd', label: 'Password (urn:idp:acr:pwd)' },
  { value: 'urn:idp:acr:mfa', label: 'Password and TOTP (urn:idp:acr:mfa)' },
  { value: 'phr', label: 'Passkey (phr, phishing-resistant)' },
  { value: 'phrh', label: 'Hardware passkey with attestation (phrh)' },
];

/** The sign-in check in words: what was required, where from, and what the sign-in was. */
function signInText(c: NonNullable<DecisionRecord['signIn']>): string {
  const from = c.setBy === 'tenant' ? "the tenant's default" : 'the policy';
  const was =
    c.acr === undefined
      ? 'the token states no acr'
      : `acr ${c.acr}${c.ageSeconds !== undefined ? `, ${Math.floor(c.ageSeconds / 60)} min ago` : ', no auth_time'}`;
  return `Needs a passkey sign-in (acr phr or phrh) within ${c.maxAgeMinutes} min (${from}); the sign-in: ${was}. ${c.met ? 'Met.' : 'Not met.'}`;
}

export function SimulatorScreen() {
  const { api, tenantId, can } = useConsole();
  const [nhes, setNhes] = useState<Schemas['Nhe'][]>([]);
  const [users, setUsers] = useState<Schemas['User'][]>([]);
  const [f, setF] = useState({ nheId: '', userId: '', clientId: '', resource: '', scope: '', acr: '', ageMinutes: '' });
  const [result, setResult] = useState<Schemas['DelegationSimulation'] | undefined>();
  const sim = useAction();
  useEffect(() => {
    if (can('auth.nhe.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/non-human-entities', {
          params: { path: tp(tenantId), query: { limit: 100 } },
        }),
      ).then(
        (p) => setNhes(p.items),
        () => undefined,
      );
    if (can('auth.users.list'))
      void call(
        api.GET('/auth/admin/tenants/{tenantId}/users', { params: { path: tp(tenantId), query: { limit: 200 } } }),
      ).then(
        (p) => setUsers(p.items),
        () => undefined,
      );
  }, [api, tenantId, can]);
  const onRun = async () => {
    setResult(undefined);
    const r = await sim.run(() =>
      call(
        api.POST('/auth/admin/tenants/{tenantId}/non-human-entities/{nheId}/delegation-simulations', {
          params: { path: { ...tp(tenantId), nheId: f.nheId } },
          body: {
            userId: f.userId,
            clientId: f.clientId,
            resource: f.resource,
            scope: f.scope,
            // The user's sign-in as the subject token would state it (phishing-resistant delegation).
            ...(f.acr || f.ageMinutes
              ? {
                  signIn: {
                    ...(f.acr ? { acr: f.acr } : {}),
                    ...(f.ageMinutes ? { ageMinutes: Number(f.ageMinutes) } : {}),
                  },
                }
              : {}),
          },
        }),
      ),
    );
    if (r) setResult(r);
  };
  const d = result?.decision as unknown as DecisionRecord | undefined;
  const requested = f.scope.split(' ').filter(Boolean);
  return (
    <section>
      <form
        className="card"
        aria-label="Simulate a delegation"
        onSubmit={(e) => {
          e.preventDefault();
          void onRun();
        }}
      >
        <Field label="NHE" name="params.nheId" problem={sim.problem}>
          {({ id }) => (
            <select id={id} value={f.nheId} onChange={(e) => setF({ ...f, nheId: e.target.value })} required>
              <option value="">Choose an NHE</option>
              {nhes.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.identifier}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="On behalf of user" name="body.userId" problem={sim.problem}>
          {({ id }) => (
            <select id={id} value={f.userId} onChange={(e) => setF({ ...f, userId: e.target.value })} required>
              <option value="">Choose a user</option>
              {users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </select>
          )}
        </Field>
        <TextField
          label="Client id (the exchanging client)"
          name="body.clientId"
          problem={sim.problem}
          value={f.clientId}
          onChange={(v) => setF({ ...f, clientId: v })}
          required
        />
        <TextField
          label="Resource (audience)"
          name="body.resource"
          problem={sim.problem}
          value={f.resource}
          onChange={(v) => setF({ ...f, resource: v })}
          required
        />
        <TextField
          label="Requested scope (space separated)"
          name="body.scope"
          problem={sim.problem}
          value={f.scope}
          onChange={(v) => setF({ ...f, scope: v })}
          required
        />
        <Field label="The user's sign-in (the subject token's acr)" name="body.signIn.acr" problem={sim.problem}>
          {({ id }) => (
            <select id={id} value={f.acr} onChange={(e) => setF({ ...f, acr: e.target.value })}>
              {SIGN_INS.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Signed in how many minutes ago (the subject token's auth_time; empty: not stated)"
          name="body.signIn.ageMinutes"
          problem={sim.problem}
        >
          {({ id }) => (
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={0}
              step={1}
              value={f.ageMinutes}
              onChange={(e) => setF({ ...f, ageMinutes: e.target.value })}
            />
          )}
        </Field>
        <ProblemView
          problem={sim.problem}
          shownFields={[
            'body.userId',
            'body.clientId',
            'body.resource',
            'body.scope',
            'body.signIn',
            'body.signIn.acr',
            'body.signIn.ageMinutes',
          ]}
        />
        <ScopedButton scope="auth.nhe.policies.list" type="submit" busy={sim.busy}>
          Run simulation
        </ScopedButton>
      </form>
      {d ? (
        <section className="card decision" aria-labelledby="decision-heading" data-outcome={d.outcome}>
          <h2 id="decision-heading">Decision: {d.outcome}</h2>
          <p>
            Evaluated {result?.evaluatedAt} ({result?.flow}). Nothing was minted or audited.
          </p>
          <ol className="layers" aria-label="Layers of the decision">
            <li className="layer">
              <span className="layer-name">Requested</span> {requested.join(' ') || '—'}
            </li>
            {d.signIn ? (
              <li className="layer sign-in" data-layer="sign-in" data-met={String(d.signIn.met)}>
                <span className="layer-name">Sign-in</span> {signInText(d.signIn)}
              </li>
            ) : null}
            {(d.removed ?? []).map((r, i) => (
              <li key={`${r.layer}-${r.scope}-${i}`} className="layer narrowed" data-layer={r.layer}>
                <span className="layer-name">{r.layer}</span> removed <code>{r.scope}</code>
              </li>
            ))}
            {d.outcome === 'granted' ? (
              <li className="layer granted">
                <span className="layer-name">Granted</span> {(d.scopes ?? []).join(' ')}
              </li>
            ) : (
              <li className="layer refused" data-layer={String(d.gate ?? '')}>
                <span className="layer-name">Refused by {String(d.gate ?? 'a gate')}</span>{' '}
                <code>{String(d.error ?? '')}</code> {String(d.description ?? '')}
              </li>
            )}
          </ol>
          {d.ttlTerms ? (
            <>
              <h3>
                Lifetime: {d.ttl} s (set by {d.ttlSetBy})
              </h3>
              <ul className="plain">
                {Object.entries(d.ttlTerms).map(([k, v]) => (
                  <li key={k} className={k === d.ttlSetBy ? 'term-winner' : undefined}>
                    {k}: {v} s{k === d.ttlSetBy ? ' (the smallest term)' : ''}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <details>
            <summary>Decision record (JSON)</summary>
            <pre tabIndex={0}>{JSON.stringify(result, null, 2)}</pre>
          </details>
        </section>
      ) : null}
    </section>
  );
}
