/**
 * The pending-approval section of the person's ledger page (account/ledger-page.ts): each request an agent made for
 * them (CIBA), in plain words (the agent, the application, the binding message, the authorization details, what it
 * may do and until when), with Approve and Deny forms that work without script. A small script of the page's own
 * (CSP nonce; fetch to this origin only) polls the JSON list and redraws the section, so a new request appears without
 * a reload; it builds nodes with textContent only, never HTML from the server's data.
 */
import { randomBytes } from 'node:crypto';
import { escape, pageCsp } from '../../views/pages';
import type { PendingView } from './approval';

export interface PendingSection {
  requests: PendingView[];
  nonce: string;
  /** The outcome of the last decision (the `request` query parameter of the 303). */
  notice?: string | undefined;
  /** Seconds between polls of the list. */
  pollSeconds: number;
}

const NOTICES: Record<string, string> = {
  approved: 'Approved: the agent may now obtain what it asked for, once.',
  denied: 'Denied: the agent is told no, and gets nothing.',
  gone: 'That request was already answered or has expired.',
  reauthenticate:
    'Approving needs a recent sign-in. Sign out, sign in again (with your passkey if you have one), then approve.',
  refused: 'That form has expired or was not sent from this page; try again.',
  'signed-out': 'You are signed out; sign in again to answer requests.',
};

export const newNonce = () => randomBytes(16).toString('base64url');

/** The ledger page's CSP when the section is on it: its own script (nonce) and fetches to this origin. */
export const ledgerCspWithPending = (nonce: string) => `${pageCsp({ nonce })}; connect-src 'self'`;

function item(r: PendingView, base: string, csrf: string): string {
  const agent = r.agent
    ? `<strong>${escape(r.agent.identifier)}</strong>${r.agent.type ? ` <span class="muted">(${escape(r.agent.type)}${r.agent.operator ? `, operated by ${escape(r.agent.operator)}` : ''})</span>` : ''}`
    : '<strong>an agent</strong>';
  const action = (what: string) => `${base}/account/agents/requests/${encodeURIComponent(r.handle)}/${what}`;
  const hidden = `<input type="hidden" name="csrf" value="${escape(csrf)}">`;
  return `<li data-request="${escape(r.handle)}">
<p>${agent} asks, through <strong>${escape(r.client.name)}</strong>, to act for you${r.resource ? ` on <code>${escape(r.resource)}</code>` : ''}.</p>
${r.bindingMessage ? `<p>Message: <strong class="binding-message">${escape(r.bindingMessage)}</strong> <span class="muted">(check that the agent shows you the same)</span></p>` : ''}
${r.details.length ? `<ul aria-label="What it will do">${r.details.map((d) => `<li>${escape(d)}</li>`).join('')}</ul>` : ''}
<p class="muted">Permissions: ${r.scopes.map((s) => `<code>${escape(s)}</code>`).join(', ')}; answer before <time datetime="${escape(r.expiresAt)}">${escape(r.expiresAt.replace('T', ' ').slice(0, 19))} UTC</time>.</p>
<div class="actions"><form method="post" action="${escape(action('approve'))}">${hidden}<button type="submit">Approve</button></form>
<form method="post" action="${escape(action('deny'))}">${hidden}<button type="submit" class="secondary">Deny</button></form></div>
</li>`;
}

/** The script: polls the list and redraws the section's items (DOM nodes, textContent only). */
const SCRIPT = `(function(){
var s=document.getElementById('pending');if(!s)return;
var url=s.getAttribute('data-endpoint'),base=s.getAttribute('data-base'),csrf=s.getAttribute('data-csrf'),every=Number(s.getAttribute('data-poll'))*1000;
function el(t,c,x){var e=document.createElement(t);if(c)e.className=c;if(x!=null)e.textContent=x;return e;}
function form(h,what,label,cls){var f=el('form');f.method='post';f.action=base+'/account/agents/requests/'+encodeURIComponent(h)+'/'+what;var i=el('input');i.type='hidden';i.name='csrf';i.value=csrf;f.appendChild(i);var b=el('button',cls,label);b.type='submit';f.appendChild(b);return f;}
function draw(list){var ul=document.getElementById('pending-list'),none=document.getElementById('pending-none');
var have={};ul.querySelectorAll(':scope > li').forEach(function(li){have[li.getAttribute('data-request')]=li;});
var want={};list.forEach(function(r){want[r.handle]=1;if(have[r.handle])return;
var li=el('li');li.setAttribute('data-request',r.handle);
var p=el('p');p.appendChild(el('strong',null,r.agent?r.agent.identifier:'an agent'));p.appendChild(document.createTextNode(' asks, through '));p.appendChild(el('strong',null,r.client.name));p.appendChild(document.createTextNode(', to act for you'+(r.resource?' on '+r.resource:'')+'.'));li.appendChild(p);
if(r.bindingMessage){var m=el('p');m.appendChild(document.createTextNode('Message: '));m.appendChild(el('strong','binding-message',r.bindingMessage));m.appendChild(document.createTextNode(' '));m.appendChild(el('span','muted','(check that the agent shows you the same)'));li.appendChild(m);}
if(r.details.length){var d=el('ul');d.setAttribute('aria-label','What it will do');r.details.forEach(function(x){d.appendChild(el('li',null,x));});li.appendChild(d);}
li.appendChild(el('p','muted','Permissions: '+r.scopes.join(', ')+'; answer before '+r.expiresAt.replace('T',' ').slice(0,19)+' UTC.'));
var a=el('div','actions');a.appendChild(form(r.handle,'approve','Approve'));a.appendChild(form(r.handle,'deny','Deny','secondary'));li.appendChild(a);
ul.appendChild(li);});
Object.keys(have).forEach(function(h){if(!want[h])have[h].remove();});
if(none)none.hidden=list.length>0;}
function poll(){fetch(url,{credentials:'same-origin',headers:{accept:'application/json'}}).then(function(r){return r.ok?r.json():null;}).then(function(j){if(j&&j.requests)draw(j.requests);}).catch(function(){}).finally(function(){setTimeout(poll,every);});}
setTimeout(poll,every);})();`;

export function renderPendingSection(o: PendingSection, base: string, csrf: string): string {
  const notice =
    o.notice && o.notice in NOTICES ? `<p role="status" id="request-done">${escape(NOTICES[o.notice]!)}</p>` : '';
  return `<section id="pending" aria-labelledby="pending-title" aria-live="polite" data-endpoint="${escape(`${base}/account/agents/requests`)}" data-base="${escape(base)}" data-csrf="${escape(csrf)}" data-poll="${o.pollSeconds}">
<h2 id="pending-title">Requests waiting for you</h2>
${notice}
<p class="muted" id="pending-none"${o.requests.length ? ' hidden' : ''}>No agent is waiting for your approval.</p>
<ul id="pending-list" aria-label="Requests waiting for your decision">${o.requests.map((r) => item(r, base, csrf)).join('\n')}</ul>
<script nonce="${escape(o.nonce)}">${SCRIPT}</script>
</section>`;
}
