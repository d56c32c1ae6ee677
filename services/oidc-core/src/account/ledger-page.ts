/**
 * The user's delegation ledger page: the provider's own design (views/pages.ts layout, one hashed stylesheet, no
 * script), every value escaped, every form a POST to this origin with the session's CSRF token.
 */
import { escape, formatLifetime, layout } from '../views/pages';
import type { Ledger, LedgerAgent, LedgerLink } from './ledger';
import { renderPendingSection, type PendingSection } from '../provider/ciba';

/** What the page says after a form (the `done` query parameter of the redirect). */
export const DONE_MESSAGES = {
  revoked:
    'Its access was revoked: every live token it held for you is refused now, and your consent to it is forgotten.',
  blocked:
    'It is blocked for you: its live tokens are refused, and it cannot get new ones for you until you lift the block.',
  unblocked: 'The block is lifted: it may act for you again as the policies allow.',
} as const;
export type Done = keyof typeof DONE_MESSAGES;

export interface LedgerPageOptions {
  tenantName: string;
  ledger: Ledger;
  /** `/auth/{tenantId}` or `/_api/auth/{tenantId}`: where the forms post. */
  base: string;
  csrf: string;
  now: Date;
  done?: { what: Done; agent: string };
  /** Requests agents made for the person's approval (CIBA, provider/ciba): only where the tenant turned CIBA on. */
  pending?: PendingSection;
}

const time = (d: Date) =>
  `<time datetime="${escape(d.toISOString())}">${escape(d.toISOString().replace('T', ' ').slice(0, 19))} UTC</time>`;
const scopeList = (scopes: string[]) =>
  scopes.length ? scopes.map((s) => `<code>${escape(s)}</code>`).join(', ') : '<span class="muted">none</span>';

/**
 * What a token is: an access through a client for a resource, or an identity assertion (ID-JAG) the agent obtained for
 * another organisation's authorization server, to be exchanged there for access to its resource.
 */
function what(
  t: { clientId: string; resourceServer: string; assertionFor?: string },
  names: Ledger['names'],
  strong = true,
): string {
  const b = (v: string) => (strong ? `<strong>${escape(v)}</strong>` : escape(v));
  // A registered name first, the identifier beside it (two applications may share a name).
  const named = (name: string | undefined, id: string) =>
    name && name !== id ? `${b(name)} <span class="muted">(${escape(id)})</span>` : b(id);
  const client = named(names.clients[t.clientId], t.clientId);
  return t.assertionFor !== undefined
    ? `identity assertion for ${b(t.assertionFor)} (${escape(t.resourceServer)}), through ${client}`
    : `through ${client} for ${named(names.resources[t.resourceServer], t.resourceServer)}`;
}

function linkText(l: LedgerLink, names: Ledger['names']): string {
  if (l.kind === 'consent') {
    const name = names.clients[l.clientId];
    const app =
      name && name !== l.clientId
        ? `${escape(name)}</strong> (${escape(l.clientId)})`
        : `${escape(l.clientId)}</strong>`;
    return `You allowed its application <strong>${app} (${scopeList(l.scopes)}).`;
  }
  const who = l.target === 'user' ? 'names you' : `names your group <strong>${escape(l.groupName ?? '')}</strong>`;
  const lifetime =
    l.maxTokenLifetime !== undefined ? `, each access at most ${escape(formatLifetime(l.maxTokenLifetime))}` : '';
  return `A delegation policy ${who}: ${scopeList(l.scopes)}${lifetime}.`;
}

function agentSection(a: LedgerAgent, i: number, o: LedgerPageOptions): string {
  const id = `agent-${i}`;
  const csrf = `<input type="hidden" name="csrf" value="${escape(o.csrf)}">`;
  const action = (what: string) => `${o.base}/account/agents/${encodeURIComponent(a.nheId)}/${what}`;
  const live = a.tokens.filter((t) => !t.revoked);
  const revoked = a.tokens.filter((t) => t.revoked);
  // Live tokens, with the time they have left; revoked ones apart, without a countdown: they are refused already.
  const tokens = live.length
    ? `<ul aria-label="Tokens of ${escape(a.identifier)}">${live
        .map(
          (t) =>
            `<li data-jti="${escape(t.jti)}">${what(t, o.ledger.names)}: ${scopeList(t.scopes)}; expires ${time(t.expiresAt)} (${escape(formatLifetime((t.expiresAt.getTime() - o.now.getTime()) / 1000))} left)</li>`,
        )
        .join('')}</ul>`
    : '<p class="muted">No live token.</p>';
  const refused = revoked.length
    ? `<p><strong>Revoked</strong> (refused everywhere now)</p>
<ul aria-label="Revoked tokens of ${escape(a.identifier)}">${revoked
        .map(
          (t) =>
            `<li data-jti="${escape(t.jti)}" data-revoked="true">Revoked: ${what(t, o.ledger.names)}: ${scopeList(t.scopes)}</li>`,
        )
        .join('')}</ul>`
    : '';
  // Revoking ends live tokens and forgets consents: with neither, there is nothing to revoke.
  const revocable = live.length > 0 || a.links.some((l) => l.kind === 'consent');
  const status = [a.blocked ? '<strong>Blocked by you</strong>' : '', a.enabled ? '' : 'disabled by an administrator']
    .filter(Boolean)
    .join('; ');
  const forms = [
    revocable
      ? `<form method="post" action="${escape(action('revoke'))}">${csrf}<button type="submit" id="${id}-revoke" aria-describedby="${id}-name">Revoke its access now${live.length ? ` (${live.length} live token${live.length === 1 ? '' : 's'})` : ''}</button></form>`
      : `<p class="muted" id="${id}-nothing">Nothing to revoke: it holds no live token and no consent of yours.</p>`,
    a.blocked
      ? `<form method="post" action="${escape(action('unblock'))}">${csrf}<button type="submit" class="secondary" id="${id}-unblock" aria-describedby="${id}-name">Lift the block</button></form>`
      : `<form method="post" action="${escape(action('block'))}">${csrf}<button type="submit" class="secondary" id="${id}-block" aria-describedby="${id}-name">Block this agent for me</button></form>`,
  ];
  return `<section aria-labelledby="${id}-name" id="${id}" data-nhe="${escape(a.identifier)}">
<h2 id="${id}-name">${escape(a.identifier)}</h2>
<p class="muted">${escape(a.type)}${a.model ? `, ${escape(a.model)}` : ''}, operated by ${escape(a.operator)}${status ? ` — ${status}` : ''}</p>
${a.links.length ? `<ul aria-label="Why ${escape(a.identifier)} may act for you">${a.links.map((l) => `<li>${linkText(l, o.ledger.names)}</li>`).join('')}</ul>` : '<p class="muted">No policy or consent lets it act for you now.</p>'}
<p><strong>Live tokens</strong></p>
${tokens}
${refused}
<div class="actions">${forms.join('\n')}</div>
</section>`;
}

export function renderLedgerPage(o: LedgerPageOptions): string {
  const { ledger } = o;
  const done = o.done
    ? `<p role="status" id="done">${escape(o.done.agent)}: ${escape(DONE_MESSAGES[o.done.what])}</p>`
    : '';
  const agents = ledger.agents.length
    ? ledger.agents.map((a, i) => agentSection(a, i, o)).join('\n')
    : '<p id="no-agents">No agent acts or may act for you.</p>';
  const audit = ledger.audit.length
    ? `<ol id="audit" aria-label="Tokens issued for you, newest first">${ledger.audit
        .map(
          (r) =>
            `<li>${time(r.issuedAt)}: <strong>${escape(r.nheIdentifier)}</strong> ${what(r, ledger.names, false)}: ${scopeList(r.scopes)}, ${escape(formatLifetime(r.ttl))}, from ${escape(r.sourceIp)}</li>`,
        )
        .join('')}</ol>`
    : '<p class="muted" id="audit-empty">No token was issued for you yet.</p>';
  return layout(
    `Your agents – ${o.tenantName}`,
    `<h1>Agents acting for you</h1>
<p class="muted">Signed in as <strong>${escape(ledger.username)}</strong>. Automated agents act for you only as your organisation's delegation policies and your own consents allow; here you can end their access or block them.</p>
${done}
${o.pending ? renderPendingSection(o.pending, o.base, o.csrf) : ''}
${agents}
<h2>Your audit record</h2>
<p class="muted">Every token issued for you to an agent, newest first (the last ${ledger.audit.length}).</p>
${audit}
<nav aria-label="Your account">
${ledger.applications.length ? `<p>Back to: ${ledger.applications.map((a) => `<a href="${escape(a.url)}" rel="noreferrer">${escape(a.name)}</a>`).join(', ')}</p>` : ''}
<p><a href="${escape(`${o.base}/account/identities`)}">Your linked identities</a> · <a href="${escape(`${o.base}/account/passkeys`)}" id="passkeys-link">Your passkeys</a> · <a href="${escape(`${o.base}/session/end`)}" id="sign-out">Sign out</a></p>
</nav>`,
    { tenantName: o.tenantName },
  );
}
