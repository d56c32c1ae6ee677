/**
 * The signed-in person's linked identities page: the provider's own design (views/pages.ts layout, one hashed
 * stylesheet, no script), every value escaped, every form a POST to this origin with the session's CSRF token.
 */
import { escape, layout } from '../views/pages';
import type { LinkedIdentities, LinkedIdentity } from './linked-identities';

/** How each link was made, in the person's words. */
const LINKED_BY: Record<LinkedIdentity['linkedBy'], string> = {
  jit: 'when you first signed in through it',
  password: 'when you proved your password here',
  verified_email: 'by your verified email address',
  admin: 'by an administrator',
};

export interface LinkedIdentitiesPageOptions {
  tenantName: string;
  identities: LinkedIdentities;
  /** `/auth/{tenantId}` or `/_api/auth/{tenantId}`: where the forms post and the links go. */
  base: string;
  csrf: string;
  /** After a removal: the provider's name. */
  removed?: string;
  /** A refused removal: the message. */
  refused?: string;
}

const time = (d: Date) =>
  `<time datetime="${escape(d.toISOString())}">${escape(d.toISOString().replace('T', ' ').slice(0, 19))} UTC</time>`;

function linkSection(l: LinkedIdentity, i: number, o: LinkedIdentitiesPageOptions): string {
  const id = `link-${i}`;
  const action = `${o.base}/account/identities/${encodeURIComponent(l.id)}/remove`;
  return `<section aria-labelledby="${id}-name" id="${id}" data-link="${escape(l.id)}" data-provider="${escape(l.provider)}">
<h2 id="${id}-name">${escape(l.providerName)}</h2>
<p class="muted">${l.providerExists ? '' : 'This sign-in provider was removed by an administrator. '}Your identity there: <code>${escape(l.subject)}</code></p>
<ul>
<li>Linked ${time(l.linkedAt)}, ${escape(LINKED_BY[l.linkedBy])}</li>
<li>Last sign-in: ${l.lastSignInAt ? time(l.lastSignInAt) : '<span class="muted">never</span>'}</li>
</ul>
<form method="post" action="${escape(action)}"><input type="hidden" name="csrf" value="${escape(o.csrf)}"><button type="submit" class="secondary" id="${id}-remove" aria-describedby="${id}-name">Remove</button></form>
</section>`;
}

export function renderLinkedIdentitiesPage(o: LinkedIdentitiesPageOptions): string {
  const { identities } = o;
  const status = o.removed
    ? `<p role="status" id="done">${escape(o.removed)}: the link was removed. It no longer signs you in to this account; signing in through it again creates a new account or asks you to link one.</p>`
    : '';
  const refused = o.refused ? `<p class="error" role="alert" id="refused">${escape(o.refused)}</p>` : '';
  const links = identities.links.length
    ? identities.links.map((l, i) => linkSection(l, i, o)).join('\n')
    : '<p id="no-links">No identity of another sign-in provider is linked to your account.</p>';
  return layout(
    `Linked identities – ${o.tenantName}`,
    `<h1>Linked identities</h1>
<p class="muted">Signed in as <strong>${escape(identities.username)}</strong>. These accounts at your organisation's sign-in providers sign you in here. Removing one does not sign you out.</p>
${refused}
${status}
${links}
<p><a href="${escape(`${o.base}/account/agents`)}">Agents acting for you</a></p>`,
    { tenantName: o.tenantName },
  );
}
