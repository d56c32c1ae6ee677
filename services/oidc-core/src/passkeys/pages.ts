/**
 * What a person sees of passkeys: the login page's passkey part (a button and browser autofill, WebAuthn L3
 * section 5.1.4.1 conditional mediation), the step-up and recovery pages, the account page where passkeys are enrolled,
 * named and removed, and the enrolment-link page. The provider's design (views/pages.ts layout); the only scripts are
 * @simplewebauthn/browser served from this origin and one inline script, both allowed by the response's nonce.
 */
import { escape, layout } from '../views/pages';

/** The part of the login page that signs in with a passkey. */
export interface PasskeyLoginPart {
  html: string;
  script: string;
  nonce: string;
  /** The tenant's login page offers only passkeys (settings.passkeys.passkeyOnly). */
  only: boolean;
}

const statusLine = '<p class="muted" id="passkey-status" role="status" aria-live="polite"></p>';

const libTag = (src: string, nonce: string) => `<script nonce="${escape(nonce)}" src="${escape(src)}"></script>`;

/**
 * The browser side of an assertion: options from `optionsUrl` (POST; the server stores the challenge), then
 * navigator.credentials.get through the library, then the response posted as a form (`credential`).
 */
function assertionScript(optionsUrl: string, autofill: boolean): string {
  return `(function(){var W=window.SimpleWebAuthnBrowser;var f=document.getElementById('passkey-form');var b=document.getElementById('passkey-button');var st=document.getElementById('passkey-status');
if(!W||!W.browserSupportsWebAuthn()){if(b){b.disabled=true;}st.textContent='This browser cannot use passkeys.';return;}
function opts(){return fetch(${JSON.stringify(optionsUrl)},{method:'POST',credentials:'same-origin',headers:{Accept:'application/json'}}).then(function(r){if(!r.ok){throw new Error('options');}return r.json();});}
function submit(c){f.elements.namedItem('credential').value=JSON.stringify(c);st.textContent='Signing in…';f.submit();}
function fail(e){if(e&&e.name==='AbortError'){return;}st.textContent='The passkey sign-in did not finish. Try again.';}
if(b){b.addEventListener('click',function(){st.textContent='';opts().then(function(o){return W.startAuthentication({optionsJSON:o});}).then(submit,fail);});}
${autofill ? `W.browserSupportsWebAuthnAutofill().then(function(ok){if(!ok){return;}opts().then(function(o){return W.startAuthentication({optionsJSON:o,useBrowserAutofill:true});}).then(submit,function(){});});` : ''}})();`;
}

export function passkeyLoginPart(o: {
  optionsUrl: string;
  action: string;
  recoveryHref: string;
  libSrc: string;
  nonce: string;
  only: boolean;
}): PasskeyLoginPart {
  const usernameField = o.only
    ? `<label for="username">Username</label>
  <input id="username" name="username" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" maxlength="256" aria-describedby="passkey-help">
  <p class="muted" id="passkey-help">Choose your passkey from the list, or use the button.</p>`
    : '';
  return {
    nonce: o.nonce,
    only: o.only,
    script: assertionScript(o.optionsUrl, true),
    html: `${libTag(o.libSrc, o.nonce)}
<form method="post" action="${escape(o.action)}" id="passkey-form">
  ${usernameField}
  <input type="hidden" name="credential" value="">
  <div class="actions"><button type="button" id="passkey-button"${o.only ? '' : ' class="secondary"'}>Sign in with a passkey</button></div>
</form>
${statusLine}
<p><a href="${escape(o.recoveryHref)}" id="recovery-link">Lost your passkey? Use a recovery code</a></p>`,
  };
}

export function renderPasskeyStepUpPage(o: {
  tenantName: string;
  clientName: string;
  optionsUrl: string;
  action: string;
  restartAction: string;
  libSrc: string;
  nonce: string;
  error?: string;
}): string {
  return layout(
    `Confirm with your passkey – ${o.tenantName}`,
    `<h1>Confirm with your passkey</h1>
<p class="muted">${escape(o.clientName)} asks for a phishing-resistant sign-in. Use one of your passkeys to continue.</p>
${o.error ? `<p class="error" role="alert" id="form-error">${escape(o.error)}</p>` : ''}
${libTag(o.libSrc, o.nonce)}
<form method="post" action="${escape(o.action)}" id="passkey-form"><input type="hidden" name="credential" value="">
<div class="actions"><button type="button" id="passkey-button" autofocus>Use my passkey</button></div></form>
${statusLine}
<form method="post" action="${escape(o.restartAction)}"><div class="actions"><button type="submit" class="secondary">Cancel sign-in</button></div></form>`,
    { tenantName: o.tenantName, nonce: o.nonce, script: assertionScript(o.optionsUrl, false) },
  );
}

export function renderRecoveryPage(o: {
  tenantName: string;
  action: string;
  error?: string;
  username?: string;
}): string {
  const describedBy = o.error ? ' aria-describedby="form-error"' : '';
  return layout(
    `Use a recovery code – ${o.tenantName}`,
    `<h1>Use a recovery code</h1>
<p class="muted">Each of the recovery codes you saved when you added your first passkey signs you in once.</p>
${o.error ? `<p class="error" role="alert" id="form-error">${escape(o.error)}</p>` : ''}
<form method="post" action="${escape(o.action)}" autocomplete="off">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="256"${describedBy} value="${escape(o.username ?? '')}">
  <label for="code">Recovery code</label>
  <input id="code" name="code" autocapitalize="none" spellcheck="false" required maxlength="32"${describedBy}>
  <div class="actions"><button type="submit">Sign in</button></div>
</form>`,
    { tenantName: o.tenantName },
  );
}

export function renderRecoveredPage(o: {
  tenantName: string;
  action: string;
  passkeysHref: string;
  remaining: number;
}): string {
  return layout(
    `Signed in with a recovery code – ${o.tenantName}`,
    `<h1>Enrol a passkey again</h1>
<p role="status" id="recovered">You signed in with a recovery code. That code no longer works; you have ${escape(o.remaining)} left.</p>
<p>Add a new passkey now on <a href="${escape(o.passkeysHref)}" id="passkeys-link">your passkeys page</a> (it opens after this sign-in), and remove the one you lost.</p>
<form method="post" action="${escape(o.action)}"><div class="actions"><button type="submit" autofocus>Continue</button></div></form>`,
    { tenantName: o.tenantName },
  );
}

export interface AccountPasskey {
  id: string;
  name: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt?: Date;
}

const time = (d: Date) =>
  `<time datetime="${escape(d.toISOString())}">${escape(d.toISOString().replace('T', ' ').slice(0, 19))} UTC</time>`;

/** The browser side of a registration: options, navigator.credentials.create, then the response posted as a form. */
function registrationScript(optionsUrl: string, csrf: string): string {
  return `(function(){var W=window.SimpleWebAuthnBrowser;var f=document.getElementById('register-form');var b=document.getElementById('add-passkey');var st=document.getElementById('passkey-status');
if(!W||!W.browserSupportsWebAuthn()){b.disabled=true;st.textContent='This browser cannot create passkeys.';return;}
b.addEventListener('click',function(){st.textContent='';var body=new URLSearchParams();body.set('csrf',${JSON.stringify(csrf)});
fetch(${JSON.stringify(optionsUrl)},{method:'POST',credentials:'same-origin',headers:{Accept:'application/json'},body:body}).then(function(r){return r.json().then(function(j){if(!r.ok){throw new Error(j.error_description||'options');}return j;});})
.then(function(o){return W.startRegistration({optionsJSON:o});}).then(function(c){f.elements.namedItem('credential').value=JSON.stringify(c);st.textContent='Saving…';f.submit();},function(e){st.textContent=e&&e.name==='InvalidStateError'?'This passkey is already registered.':'The passkey was not created: '+(e&&e.message?e.message:'cancelled')+'.';});});})();`;
}

export function renderPasskeysPage(o: {
  tenantName: string;
  username: string;
  passkeys: AccountPasskey[];
  /** Where the forms post: `{base}/account/passkeys` or an enrolment link's own path. */
  action: string;
  base: string;
  csrf: string;
  libSrc: string;
  nonce: string;
  optionsUrl: string;
  /** Recovery codes made just now: shown once. */
  recoveryCodes?: string[];
  done?: string;
  error?: string;
  recoveryLeft: number;
  /** An enrolment-link page: no removal, no navigation. */
  enrolmentLink?: boolean;
}): string {
  const csrf = `<input type="hidden" name="csrf" value="${escape(o.csrf)}">`;
  const list = o.passkeys.length
    ? `<ul id="passkeys" aria-label="Your passkeys">${o.passkeys
        .map(
          (
            p,
            i,
          ) => `<li id="passkey-${i}" data-passkey="${escape(p.id)}"><strong id="passkey-${i}-name">${escape(p.name)}</strong> <span class="muted">(${p.deviceType === 'singleDevice' && !p.backedUp ? 'on this device only' : 'synced passkey'})</span><br>
Added ${time(p.createdAt)}; last used ${p.lastUsedAt ? time(p.lastUsedAt) : '<span class="muted">never</span>'}${
            o.enrolmentLink
              ? ''
              : `
<form method="post" action="${escape(`${o.action}/${encodeURIComponent(p.id)}/rename`)}">${csrf}<label for="passkey-${i}-rename">New name</label><input id="passkey-${i}-rename" name="name" maxlength="64" required value="${escape(p.name)}"><div class="actions"><button type="submit" class="secondary" aria-describedby="passkey-${i}-name">Rename</button></div></form>
<form method="post" action="${escape(`${o.action}/${encodeURIComponent(p.id)}/remove`)}">${csrf}<div class="actions"><button type="submit" class="secondary" id="passkey-${i}-remove" aria-describedby="passkey-${i}-name">Remove this passkey</button></div></form>`
          }</li>`,
        )
        .join('\n')}</ul>`
    : '<p id="no-passkeys">You have no passkey yet.</p>';
  const codes = o.recoveryCodes?.length
    ? `<section aria-labelledby="codes-title" id="recovery-codes"><h2 id="codes-title">Your recovery codes</h2>
<p class="error" role="alert">Write these down or store them safely now: they are shown only this once. Each signs you in once if you lose your passkeys.</p>
<ul aria-label="Recovery codes">${o.recoveryCodes.map((c) => `<li><code>${escape(c)}</code></li>`).join('')}</ul></section>`
    : '';
  return layout(
    `Your passkeys – ${o.tenantName}`,
    `<h1>Passkeys</h1>
<p class="muted">Signed in as <strong>${escape(o.username)}</strong>. A passkey signs you in with your device's screen lock or security key, and cannot be phished.</p>
${o.error ? `<p class="error" role="alert" id="form-error">${escape(o.error)}</p>` : ''}
${o.done ? `<p role="status" id="done">${escape(o.done)}</p>` : ''}
${codes}
<h2>Your passkeys</h2>
${list}
<h2>Add a passkey</h2>
${libTag(o.libSrc, o.nonce)}
<form method="post" action="${escape(o.action)}" id="register-form">${csrf}<input type="hidden" name="credential" value="">
<label for="passkey-name">Name</label><input id="passkey-name" name="name" maxlength="64" placeholder="For example: Laptop" aria-describedby="passkey-status">
<div class="actions"><button type="button" id="add-passkey">Add a passkey</button></div></form>
${statusLine}
<p class="muted" id="recovery-left">Recovery codes left: ${escape(o.recoveryLeft)}.</p>
${
  o.enrolmentLink
    ? ''
    : `<nav aria-label="Your account"><p><a href="${escape(`${o.base}/account/agents`)}">Your agents</a> · <a href="${escape(`${o.base}/account/identities`)}">Your linked identities</a> · <a href="${escape(`${o.base}/session/end`)}" id="sign-out">Sign out</a></p></nav>`
}`,
    { tenantName: o.tenantName, nonce: o.nonce, script: registrationScript(o.optionsUrl, o.csrf) },
  );
}

/** The agent consent page's confirmation: the Allow form carries a fresh assertion of the user's passkey. */
export function consentConfirmationScript(optionsUrl: string): string {
  return `(function(){var W=window.SimpleWebAuthnBrowser;var f=document.getElementById('allow-form');if(!f){return;}var b=f.querySelector('button');var st=document.getElementById('passkey-status');
if(!W||!W.browserSupportsWebAuthn()){b.disabled=true;st.textContent='This browser cannot use passkeys, which this organisation requires to allow an agent.';return;}
f.addEventListener('submit',function(ev){if(f.elements.namedItem('credential').value){return;}ev.preventDefault();st.textContent='Confirm with your passkey…';
fetch(${JSON.stringify(optionsUrl)},{method:'POST',credentials:'same-origin',headers:{Accept:'application/json'}}).then(function(r){if(!r.ok){throw new Error('options');}return r.json();}).then(function(o){return W.startAuthentication({optionsJSON:o});}).then(function(c){f.elements.namedItem('credential').value=JSON.stringify(c);f.submit();},function(){st.textContent='Not confirmed: allow the agent only after confirming with your passkey.';});});})();`;
}
