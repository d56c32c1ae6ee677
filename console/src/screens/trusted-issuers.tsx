/**
 * Trusted external issuers: other organisations' authorization servers or identity providers whose signed JWT
 * assertions the tenant redeems with the JWT bearer grant (RFC 7523), plain or as ID-JAGs. List, create, edit (the
 * issuer is fixed once created), enable or disable, delete.
 */
import { useCallback, useEffect, useState } from 'react';
import { call, tp, type Schemas } from '../api';
import {
  CheckField,
  DeleteButton,
  Field,
  ProblemView,
  ScopedButton,
  splitList,
  TextField,
  useAction,
  useConsole,
} from '../ui';

type Issuer = Schemas['TrustedIssuer'];
type Mapping = Issuer['subjectMapping'];

/** Asymmetric JWS algorithms only: never none, never HMAC (the API refuses anything else). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
type Alg = (typeof ALGORITHMS)[number];
const isAlg = (a: string): a is Alg => (ALGORITHMS as readonly string[]).includes(a);

interface Form {
  issuer: string;
  jwksUri: string;
  algorithms: Alg[];
  audiences: string;
  subjectMapping: Mapping;
  upstreamProvider: string;
  subjectClaim: string;
  jitProvisioning: boolean;
  maxLifetimeSeconds: string;
  allowReuse: boolean;
  allowAct: boolean;
  /** One agent per line: its act.sub, then the NHE identifier (the last word). */
  actors: string;
  enabled: boolean;
  description: string;
  /** Revocation across organisations: a subscription to the issuer's Shared Signals transmitter. */
  signals: boolean;
  signalsEnabled: boolean;
  signalsClientId: string;
  /** Write-only: empty keeps the stored secret. */
  signalsClientSecret: string;
  signalsSecretSet: boolean;
  signalsPollIntervalSeconds: string;
}

const EMPTY: Form = {
  issuer: '',
  jwksUri: '',
  algorithms: ['RS256', 'ES256'],
  audiences: '',
  subjectMapping: 'linked_identity',
  upstreamProvider: '',
  subjectClaim: '',
  jitProvisioning: false,
  maxLifetimeSeconds: '300',
  allowReuse: false,
  allowAct: false,
  actors: '',
  enabled: true,
  description: '',
  signals: false,
  signalsEnabled: true,
  signalsClientId: '',
  signalsClientSecret: '',
  signalsSecretSet: false,
  signalsPollIntervalSeconds: '5',
};

/** `act.sub nheIdentifier` per line; an NHE identifier has no spaces, so the last word is it. */
function parseActors(text: string): Array<{ subject: string; nheIdentifier: string }> {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const cut = line.search(/\s+\S+$/);
      return cut === -1
        ? { subject: line, nheIdentifier: '' }
        : { subject: line.slice(0, cut), nheIdentifier: line.slice(cut).trim() };
    });
}

function formOf(i: Issuer): Form {
  return {
    issuer: i.issuer,
    jwksUri: i.jwksUri,
    algorithms: i.algorithms.filter(isAlg),
    audiences: i.audiences.join(' '),
    subjectMapping: i.subjectMapping,
    upstreamProvider: i.upstreamProvider ?? '',
    subjectClaim: i.subjectClaim ?? '',
    jitProvisioning: i.jitProvisioning,
    maxLifetimeSeconds: String(i.maxLifetimeSeconds),
    allowReuse: i.allowReuse,
    allowAct: i.allowAct,
    actors: i.actors.map((a) => `${a.subject} ${a.nheIdentifier}`).join('\n'),
    enabled: i.enabled,
    description: i.description ?? '',
    signals: Boolean(i.signals),
    signalsEnabled: i.signals?.enabled ?? true,
    signalsClientId: i.signals?.clientId ?? '',
    signalsClientSecret: '',
    signalsSecretSet: i.signals?.clientSecretSet ?? false,
    signalsPollIntervalSeconds: String(i.signals?.pollIntervalSeconds ?? 5),
  };
}

/** What create and update share (the issuer itself is sent on create only). */
function settingsBody(f: Form) {
  return {
    jwksUri: f.jwksUri,
    algorithms: f.algorithms,
    audiences: splitList(f.audiences),
    subjectMapping: f.subjectMapping,
    jitProvisioning: f.subjectMapping !== 'user_id' && f.jitProvisioning,
    maxLifetimeSeconds: Number(f.maxLifetimeSeconds),
    allowReuse: f.allowReuse,
    allowAct: f.allowAct,
    actors: parseActors(f.actors),
    enabled: f.enabled,
  };
}

/** The subscription as the API takes it (a secret left empty keeps the stored one). */
function signalsBody(f: Form) {
  return {
    enabled: f.signalsEnabled,
    clientId: f.signalsClientId,
    ...(f.signalsClientSecret ? { clientSecret: f.signalsClientSecret } : {}),
    pollIntervalSeconds: Number(f.signalsPollIntervalSeconds),
  };
}

const SHOWN_FIELDS = [
  'body.issuer',
  'body.jwksUri',
  'body.algorithms',
  'body.audiences',
  'body.subjectMapping',
  'body.upstreamProvider',
  'body.subjectClaim',
  'body.jitProvisioning',
  'body.maxLifetimeSeconds',
  'body.allowReuse',
  'body.allowAct',
  'body.actors',
  'body.enabled',
  'body.description',
  'body.signals',
  'body.signals.enabled',
  'body.signals.clientId',
  'body.signals.clientSecret',
  'body.signals.pollIntervalSeconds',
];

export function TrustedIssuersScreen() {
  const { api, tenantId } = useConsole();
  const [items, setItems] = useState<Issuer[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [aliases, setAliases] = useState<string[]>([]);
  const list = useAction();
  const toggle = useAction();
  /** The id being edited; '' for the create form. */
  const [editing, setEditing] = useState('');
  const [done, setDone] = useState('');
  const load = useCallback(
    async (after?: string) => {
      const page = await list.run(() =>
        call(
          api.GET('/auth/admin/tenants/{tenantId}/trusted-issuers', {
            params: { path: tp(tenantId), query: { limit: 100, ...(after ? { cursor: after } : {}) } },
          }),
        ),
      );
      if (page) {
        setItems((all) => (after ? [...all, ...page.items] : page.items));
        setCursor(page.nextCursor);
      }
    },
    [api, tenantId], // eslint-disable-line react-hooks/exhaustive-deps
  );
  useEffect(() => {
    void load();
    // The upstream providers whose account links linked_identity can resolve subjects through.
    void call(
      api.GET('/auth/admin/tenants/{tenantId}/upstream-providers', {
        params: { path: tp(tenantId), query: { limit: 100 } },
      }),
    ).then(
      (p) => setAliases(p.items.map((u) => u.alias)),
      () => undefined,
    );
  }, [load, api, tenantId]);
  const current = editing ? items.find((i) => i.id === editing) : undefined;
  return (
    <section>
      <ProblemView problem={list.problem} />
      <ProblemView problem={toggle.problem} />
      <p role="status">{done}</p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Trusted issuers">
        <table>
          <thead>
            <tr>
              <th scope="col">Issuer</th>
              <th scope="col">Subjects</th>
              <th scope="col">Algorithms</th>
              <th scope="col">Max lifetime</th>
              <th scope="col">Enabled</th>
              <th scope="col">Edit</th>
              <th scope="col">Delete</th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr key={i.id} data-issuer={i.issuer} data-enabled={i.enabled}>
                <td>
                  <code>{i.issuer}</code>
                  {i.description ? <p className="hint">{i.description}</p> : null}
                </td>
                <td>
                  {i.subjectMapping === 'linked_identity'
                    ? `linked to ${i.upstreamProvider ?? '?'}`
                    : i.subjectMapping === 'username_claim'
                      ? `username from ${i.subjectClaim ?? '?'}`
                      : 'local user id'}
                  {i.jitProvisioning ? ', creates users' : ''}
                  {i.allowAct ? `, act allowed (${i.actors.length} agent${i.actors.length === 1 ? '' : 's'})` : ''}
                  {i.allowReuse ? ', reusable' : ''}
                  {i.signals
                    ? `, revocations ${i.signals.enabled ? `polled every ${i.signals.pollIntervalSeconds} s` : 'paused'}`
                    : ''}
                </td>
                <td>{i.algorithms.join(' ')}</td>
                <td>{i.maxLifetimeSeconds} s</td>
                <td>
                  {i.enabled ? 'enabled ' : 'disabled '}
                  <ScopedButton
                    scope="auth.tenants.update"
                    onClick={() =>
                      void toggle.run(async () => {
                        const u = await call(
                          api.PATCH('/auth/admin/tenants/{tenantId}/trusted-issuers/{issuerId}', {
                            params: { path: { ...tp(tenantId), issuerId: i.id } },
                            body: { enabled: !i.enabled },
                          }),
                        );
                        setDone(`${u.enabled ? 'Enabled' : 'Disabled'} ${u.issuer}.`);
                        await load();
                      })
                    }
                  >
                    {i.enabled ? `Disable ${i.issuer}` : `Enable ${i.issuer}`}
                  </ScopedButton>
                </td>
                <td>
                  <button
                    type="button"
                    aria-pressed={editing === i.id}
                    onClick={() => {
                      setEditing(i.id);
                      setDone('');
                    }}
                  >
                    Edit {i.issuer}
                  </button>
                </td>
                <td>
                  <DeleteButton
                    scope="auth.tenants.update"
                    what={i.issuer}
                    onConfirm={async () => {
                      await call(
                        api.DELETE('/auth/admin/tenants/{tenantId}/trusted-issuers/{issuerId}', {
                          params: { path: { ...tp(tenantId), issuerId: i.id } },
                        }),
                      );
                      if (editing === i.id) setEditing('');
                      setDone(`Deleted ${i.issuer}: its assertions are refused from now on.`);
                      await load();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor ? (
        <button type="button" onClick={() => void load(cursor)}>
          More issuers
        </button>
      ) : null}
      {editing && current ? (
        <IssuerForm
          key={`edit-${current.id}-${current.updatedAt}`}
          existing={current}
          aliases={aliases}
          onSaved={(i) => {
            setDone(`Saved ${i.issuer}.`);
            void load();
          }}
          onCancel={() => setEditing('')}
        />
      ) : (
        <IssuerForm
          key="create"
          aliases={aliases}
          onSaved={(i) => {
            setDone(`Created ${i.issuer}.`);
            void load();
          }}
        />
      )}
    </section>
  );
}

function IssuerForm(props: {
  existing?: Issuer;
  aliases: string[];
  onSaved: (i: Issuer) => void;
  onCancel?: () => void;
}) {
  const { api, tenantId } = useConsole();
  const save = useAction();
  const existing = props.existing;
  const [f, setF] = useState<Form>(() => (existing ? formOf(existing) : EMPTY));
  const problem = save.problem;
  const set = (patch: Partial<Form>) => setF((old) => ({ ...old, ...patch }));
  const linked = f.subjectMapping === 'linked_identity';
  const byClaim = f.subjectMapping === 'username_claim';
  const onSubmit = async () => {
    const i = await save.run(() =>
      existing
        ? call(
            api.PATCH('/auth/admin/tenants/{tenantId}/trusted-issuers/{issuerId}', {
              params: { path: { ...tp(tenantId), issuerId: existing.id } },
              body: {
                ...settingsBody(f),
                upstreamProvider: linked && f.upstreamProvider ? f.upstreamProvider : null,
                subjectClaim: byClaim && f.subjectClaim ? f.subjectClaim : null,
                description: f.description || null,
                signals: f.signals ? signalsBody(f) : null,
              },
            }),
          )
        : call(
            api.POST('/auth/admin/tenants/{tenantId}/trusted-issuers', {
              params: { path: tp(tenantId) },
              body: {
                issuer: f.issuer,
                ...settingsBody(f),
                ...(linked && f.upstreamProvider ? { upstreamProvider: f.upstreamProvider } : {}),
                ...(byClaim && f.subjectClaim ? { subjectClaim: f.subjectClaim } : {}),
                ...(f.description ? { description: f.description } : {}),
                ...(f.signals ? { signals: signalsBody(f) } : {}),
              },
            }),
          ),
    );
    if (i) {
      if (!existing) setF(EMPTY);
      props.onSaved(i);
    }
  };
  const title = existing ? `Edit ${existing.issuer}` : 'Trust an issuer';
  // A provider named by the record but deleted since is still offered, so that the form shows what is stored.
  const aliases =
    f.upstreamProvider && !props.aliases.includes(f.upstreamProvider)
      ? [...props.aliases, f.upstreamProvider]
      : props.aliases;
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
          Issuer <code>{existing.issuer}</code> (fixed once created).
        </p>
      ) : (
        <TextField
          label="Issuer"
          name="body.issuer"
          problem={problem}
          value={f.issuer}
          onChange={(v) => set({ issuer: v })}
          required
          hint="The iss of its assertions, exactly (RFC 7523 section 3); fixed once created."
        />
      )}
      <TextField
        label="JWKS URI"
        name="body.jwksUri"
        problem={problem}
        value={f.jwksUri}
        onChange={(v) => set({ jwksUri: v })}
        required
        hint="Where its public keys are published (https; http only for a loopback host)."
      />
      <fieldset className="inline">
        <legend>Signature algorithms</legend>
        {ALGORITHMS.map((a) => (
          <CheckField
            key={a}
            label={a}
            name="body.algorithms"
            problem={problem}
            checked={f.algorithms.includes(a)}
            onChange={(v) => set({ algorithms: v ? [...f.algorithms, a] : f.algorithms.filter((x) => x !== a) })}
          />
        ))}
      </fieldset>
      <TextField
        label="Extra audiences (space separated, optional)"
        name="body.audiences"
        problem={problem}
        value={f.audiences}
        onChange={(v) => set({ audiences: v })}
        hint="aud values accepted besides this tenant's issuer and token endpoint: URLs or URNs, at most 10."
      />
      <Field
        label="Subject mapping"
        name="body.subjectMapping"
        problem={problem}
        hint="How the assertion's sub becomes a local user."
      >
        {({ id, describedBy }) => (
          <select
            id={id}
            aria-describedby={describedBy}
            value={f.subjectMapping}
            onChange={(e) => {
              const v = e.target.value;
              set({ subjectMapping: v === 'user_id' || v === 'username_claim' ? v : 'linked_identity' });
            }}
          >
            <option value="linked_identity">Linked identity (account links of an upstream provider)</option>
            <option value="username_claim">Username claim (the issuer is authoritative for usernames)</option>
            <option value="user_id">Local user id (an issuer of this same deployment)</option>
          </select>
        )}
      </Field>
      {linked ? (
        <Field
          label="Upstream provider"
          name="body.upstreamProvider"
          problem={problem}
          hint="The upstream provider whose account links name this issuer's subjects."
        >
          {({ id, describedBy }) => (
            <select
              id={id}
              aria-describedby={describedBy}
              value={f.upstreamProvider}
              onChange={(e) => set({ upstreamProvider: e.target.value })}
            >
              <option value="">Choose an upstream provider</option>
              {aliases.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {byClaim ? (
        <TextField
          label="Username claim"
          name="body.subjectClaim"
          problem={problem}
          value={f.subjectClaim}
          onChange={(v) => set({ subjectClaim: v })}
          required
          hint="The assertion claim whose value is the local username, e.g. preferred_username. Only for an issuer that decides this tenant's usernames."
        />
      ) : null}
      {f.subjectMapping !== 'user_id' ? (
        <CheckField
          label="Create users just in time"
          name="body.jitProvisioning"
          problem={problem}
          checked={f.jitProvisioning}
          onChange={(v) => set({ jitProvisioning: v })}
          hint="A subject that maps to nobody becomes a new user without a password (linked to the upstream provider, or with the claimed username). Off: such assertions are refused."
        />
      ) : null}
      <TextField
        label="Max assertion lifetime (seconds)"
        type="number"
        name="body.maxLifetimeSeconds"
        problem={problem}
        value={f.maxLifetimeSeconds}
        onChange={(v) => set({ maxLifetimeSeconds: v })}
        hint="30 to 3600; assertions that live longer (exp - iat) are refused."
      />
      <CheckField
        label="Allow reuse"
        name="body.allowReuse"
        problem={problem}
        checked={f.allowReuse}
        onChange={(v) => set({ allowReuse: v })}
        hint="Off: each assertion (its jti) is redeemable once. The MCP enterprise-managed authorization extension requires off."
      />
      <CheckField
        label="Allow act (delegation)"
        name="body.allowAct"
        problem={problem}
        checked={f.allowAct}
        onChange={(v) => set({ allowAct: v })}
        hint="Off: an assertion carrying act is refused."
      />
      <Field
        label="Agents (one per line: act.sub, then the NHE identifier)"
        name="body.actors"
        problem={problem}
        hint="With act allowed: an assertion whose act.sub is listed gets this tenant's delegation token for that NHE (its agentClients must name the client the agent uses here); any other act.sub is refused. Example: nhe:orders-agent partner-orders-agent"
      >
        {({ id, describedBy, invalid }) => (
          <textarea
            id={id}
            rows={3}
            value={f.actors}
            aria-describedby={describedBy}
            aria-invalid={invalid || undefined}
            onChange={(e) => set({ actors: e.target.value })}
          />
        )}
      </Field>
      <CheckField
        label="Enabled"
        name="body.enabled"
        problem={problem}
        checked={f.enabled}
        onChange={(v) => set({ enabled: v })}
        hint="A disabled issuer's assertions are refused, from the next request on."
      />
      <TextField
        label="Description (optional)"
        name="body.description"
        problem={problem}
        value={f.description}
        onChange={(v) => set({ description: v })}
      />
      <fieldset>
        <legend>Revocations from this issuer (OpenID Shared Signals)</legend>
        <CheckField
          label="Subscribe to its Shared Signals"
          name="body.signals"
          problem={problem}
          checked={f.signals}
          onChange={(v) => set({ signals: v })}
          hint="When the issuer revokes an agent, a person's delegation or an assertion, the tokens this tenant minted from its assertions are revoked here too. Unchecking ends the subscription."
        />
        {f.signals ? (
          <>
            <TextField
              label="Client id at the issuer"
              name="body.signals.clientId"
              problem={problem}
              value={f.signalsClientId}
              onChange={(v) => set({ signalsClientId: v })}
              required
              hint="This tenant's client at the issuer: client_credentials with ssf.manage on urn:idp:ssf."
            />
            <TextField
              label="Client secret"
              type="password"
              name="body.signals.clientSecret"
              problem={problem}
              value={f.signalsClientSecret}
              onChange={(v) => set({ signalsClientSecret: v })}
              autoComplete="new-password"
              hint={
                f.signalsSecretSet
                  ? 'A secret is stored (never shown); leave empty to keep it.'
                  : 'Stored sealed and never shown again.'
              }
            />
            <TextField
              label="Poll interval (seconds)"
              type="number"
              name="body.signals.pollIntervalSeconds"
              problem={problem}
              value={f.signalsPollIntervalSeconds}
              onChange={(v) => set({ signalsPollIntervalSeconds: v })}
              hint="1 to 300: how long a revocation at the issuer may take to reach this tenant."
            />
            <CheckField
              label="Polling on"
              name="body.signals.enabled"
              problem={problem}
              checked={f.signalsEnabled}
              onChange={(v) => set({ signalsEnabled: v })}
              hint="Off: the subscription is kept, nothing is polled."
            />
          </>
        ) : null}
      </fieldset>
      <ProblemView problem={problem} shownFields={SHOWN_FIELDS} />
      <div className="actions">
        <ScopedButton scope="auth.tenants.update" type="submit" busy={save.busy}>
          {existing ? `Save ${existing.issuer}` : 'Trust issuer'}
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
