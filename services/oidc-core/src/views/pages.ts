/**
 * Server-rendered pages a person sees: login, TOTP, consent, device code, logout confirmation, errors.
 * One design: no external assets, one stylesheet allowed by its hash, scripts only by per-response nonce (the
 * logout countdown and auto-submit), no framing. Every interpolated value goes through `escape`.
 */
import { createHash, randomBytes } from 'node:crypto';

export function escape(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;--bg:#f3f4f6;--card:#fff;--fg:#16181d;--muted:#4a4f58;--line:#8a9099;--accent:#1d56b3;--accent-fg:#fff;--soft:#e3e6eb;--err-bg:#fdecea;--err-fg:#8a1c12;--focus:#b35c00}
@media (prefers-color-scheme:dark){:root{--bg:#121316;--card:#1e2025;--fg:#eceef2;--muted:#b9bec8;--line:#737a86;--accent:#8fb6ff;--accent-fg:#0d1526;--soft:#343840;--err-bg:#3b1614;--err-fg:#ffc9c2;--focus:#ffb347}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;flex-direction:column;align-items:center;background:var(--bg);color:var(--fg)}
header{width:100%;max-width:28rem;padding:1.5rem 1rem .5rem;font-weight:600;color:var(--muted)}
main{width:calc(100% - 2rem);max-width:28rem;background:var(--card);border-radius:12px;padding:1.75rem 1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12),0 8px 24px rgba(0,0,0,.06);margin-bottom:2rem}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 .75rem}
h2{font-size:1rem;margin:1.25rem 0 .25rem}
p{margin:.5rem 0}
.muted{color:var(--muted)}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input{width:100%;padding:.7rem .75rem;font-size:1rem;border:1px solid var(--line);border-radius:8px;background:var(--card);color:var(--fg)}
input.code{font-size:1.4rem;letter-spacing:.3em;text-align:center;font-variant-numeric:tabular-nums}
.actions{display:flex;flex-direction:column;gap:.75rem;margin-top:1.5rem}
button,.button{display:block;width:100%;padding:.75rem 1rem;font:inherit;font-size:1rem;font-weight:600;text-align:center;text-decoration:none;border:2px solid transparent;border-radius:8px;background:var(--accent);color:var(--accent-fg);cursor:pointer}
button.secondary,.button.secondary{background:var(--soft);color:var(--fg)}
button:focus-visible,.button:focus-visible,input:focus-visible,a:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
a{color:var(--accent)}
.error{background:var(--err-bg);color:var(--err-fg);padding:.75rem;border-radius:8px}
.code-display{font-family:ui-monospace,monospace;font-size:1.6rem;letter-spacing:.15em;text-align:center;padding:.5rem;border:1px dashed var(--line);border-radius:8px}
ul{padding-left:1.25rem;margin:.25rem 0}
.countdown{font-variant-numeric:tabular-nums}
.providers{display:flex;flex-direction:column;gap:.75rem;margin:1rem 0}
@media (min-width:40rem){main{padding:2rem 2.25rem}header{padding-top:3rem}}
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const STYLE_HASH = hash(STYLE);
/** A script hash that matches nothing we serve: provider-rendered pages may add their own hashes beside it. */
const NO_SCRIPT = hash('idp: no scripts on this page');

export interface Page {
  html: string;
  /** Content-Security-Policy for this response. */
  csp: string;
}

/**
 * A host an image source may name: letters, digits, `-`, `_` and dots, or an IP literal. The URL parser accepts hosts
 * such as `*` (a wildcard in a CSP host-part, CSP Level 3 section 2.3.1: every host) or `a;b`; those are left out.
 */
const PLAIN_IMAGE_HOST = /^(?:[a-z0-9_-]+\.)*[a-z0-9_-]+\.?$|^\[[0-9a-f:.]+\]$/;

/**
 * CSP of a page. `formTargets` are extra origins forms may submit or be redirected to after submission (the
 * client's redirect URI after login, the post-logout URI); `nonce` allows that response's own scripts.
 */
export function pageCsp(
  options: { nonce?: string; formTargets?: string[]; images?: string[]; connect?: boolean } = {},
): string {
  const targets = [...new Set((options.formTargets ?? []).map(originOf).filter((o): o is string => Boolean(o)))];
  // Images: this origin, plus exactly the URLs a page shows (a client's logo), never a whole origin.
  const images = [
    ...new Set(
      (options.images ?? [])
        .filter((u) => originOf(u)?.startsWith('https://') && PLAIN_IMAGE_HOST.test(new URL(u).hostname))
        // Without query and fragment: a CSP source expression has none (CSP Level 3 section 2.3.1, path-part), and
        // its path matching ignores the query of the URL the browser loads.
        .map((u) => {
          const url = new URL(u);
          url.search = '';
          url.hash = '';
          // encodeURIComponent leaves `'` as it is: each of these is written as its percent-encoding.
          return url.href.replace(/[;,\s']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
        }),
    ),
  ];
  return [
    "default-src 'none'",
    `script-src ${options.nonce ? `'nonce-${options.nonce}'` : NO_SCRIPT}`,
    `style-src ${STYLE_HASH}`,
    `img-src 'self' data:${images.length ? ` ${images.join(' ')}` : ''}`,
    // Passkey pages fetch their WebAuthn options from this origin (passkeys/).
    ...(options.connect ? ["connect-src 'self'"] : []),
    "base-uri 'none'",
    `form-action 'self'${targets.length ? ` ${targets.join(' ')}` : ''}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * CSP for everything else the tenant router answers (provider-rendered HTML such as form_post responses and
 * error pages): no form-action restriction, because a form_post response posts to the client's redirect URI;
 * the provider adds the hash of its own auto-submit script to script-src.
 */
export const PROVIDER_CSP = [
  "default-src 'none'",
  `script-src ${NO_SCRIPT}`,
  `style-src ${STYLE_HASH}`,
  "img-src 'self' data:",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** CSP of pages without scripts and with forms to this origin only. */
export const PAGE_CSP = pageCsp();

/**
 * The pages' icon, inline (img-src allows data:): without one every browser asks for /favicon.ico, which no
 * service serves (a 404 per page view in the logs and the browser console).
 */
export const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect width='16' height='16' rx='3' fill='%23234'/%3E%3Ccircle cx='6' cy='8' r='2.6' fill='none' stroke='%23fff' stroke-width='1.6'/%3E%3Cpath d='M8.6 8H14M12 8v2.4' stroke='%23fff' stroke-width='1.6'/%3E%3C/svg%3E";

export const newNonce = (): string => randomBytes(18).toString('base64');

function originOf(uri: string): string | undefined {
  try {
    const u = new URL(uri);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

export function layout(
  title: string,
  body: string,
  options: { tenantName?: string; nonce?: string; script?: string; refresh?: string } = {},
): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${
    options.refresh ? `\n<meta http-equiv="refresh" content="0;url=${escape(options.refresh)}">` : ''
  }
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escape(title)}</title>
<link rel="icon" href="${FAVICON}">
<style>${STYLE}</style>
</head>
<body>
<header>${escape(options.tenantName ?? '')}</header>
<main>${body}</main>
${options.script && options.nonce ? `<script nonce="${escape(options.nonce)}">${options.script}</script>` : ''}
</body>
</html>`;
}

/** The line under a self-introduced client's name: where it comes from, the host first. */
function identity(client?: ConsentClient): string {
  if (client?.source === 'metadata_document' && client.host) {
    return `<p class="client-host" id="client-host">This application is <strong>${escape(client.host)}</strong>: it identified itself with a document published at ${escape(client.host)}. Its name is its own claim; continue only if you trust ${escape(client.host)}.</p>\n`;
  }
  if (client?.source === 'dynamic')
    return '<p class="client-host" id="client-registered">This application registered itself with this service: its name is its own claim. Continue only if you started this sign-in and trust it.</p>\n';
  return '';
}

const errorBox = (message?: string) =>
  message ? `<p class="error" role="alert" id="form-error">${escape(message)}</p>` : '';

export function renderErrorPage(error: string, description: string, tenantName?: string): string {
  return layout(
    'Something went wrong',
    `<h1>Something went wrong</h1><p class="error" role="alert"><strong>${escape(error)}</strong>${description ? `: ${escape(description)}` : ''}</p>
<p>Return to the application and try again.</p>`,
    { tenantName },
  );
}

export interface LoginPageOptions {
  action: string;
  clientName: string;
  tenantName: string;
  error?: string;
  username?: string;
  /** The tenant's upstream identity providers, each a link that starts the sign-in there. */
  providers?: Array<{ displayName: string; href: string }>;
  /** False when the tenant's people sign in only through an upstream provider. Default true. */
  passwordSignIn?: boolean;
  /** A work email alone may be typed (home-realm discovery sends it to its provider): the password is not required. */
  homeRealmDiscovery?: boolean;
  /** Passkey sign-in (passkeys/pages.ts): its button and form, and the script allowed by the response's nonce. */
  passkey?: { html: string; script: string; nonce: string };
}

/** The providers, each a link (not a form: the upstream's origin need not be a form-action target). */
function providerLinks(providers: LoginPageOptions['providers'], withPassword: boolean): string {
  if (!providers?.length) return '';
  const links = providers
    .map((p) => `<a class="button secondary" href="${escape(p.href)}">Sign in with ${escape(p.displayName)}</a>`)
    .join('\n  ');
  return `<nav class="providers" aria-label="Sign in with your organisation">
  ${links}
</nav>${withPassword ? '\n<p class="muted">Or with your username (or work email) and password:</p>' : ''}`;
}

export function renderLoginPage(o: LoginPageOptions): string {
  const describedBy = o.error ? ' aria-describedby="form-error"' : '';
  return layout(
    `Sign in – ${o.tenantName}`,
    `<h1>Sign in</h1>
<p class="muted">to continue to <strong>${escape(o.clientName)}</strong></p>
${errorBox(o.error)}
${providerLinks(o.providers, o.passwordSignIn !== false)}${o.passkey ? `\n${o.passkey.html}` : ''}${
      o.passwordSignIn === false
        ? ''
        : `
<form method="post" action="${escape(o.action)}" autocomplete="on">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="${o.passkey ? 'username webauthn' : 'username'}" autocapitalize="none" spellcheck="false" required maxlength="256"${describedBy} ${o.username ? '' : 'autofocus '}value="${escape(o.username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password"${o.homeRealmDiscovery ? '' : ' required'} maxlength="256"${describedBy}${o.username ? ' autofocus' : ''}>
  <div class="actions"><button type="submit">Sign in</button></div>
</form>`
    }`,
    { tenantName: o.tenantName, ...(o.passkey ? { nonce: o.passkey.nonce, script: o.passkey.script } : {}) },
  );
}

export function renderTotpPage(o: {
  action: string;
  restartAction: string;
  clientName: string;
  tenantName: string;
  error?: string;
}): string {
  const describedBy = o.error ? 'totp-help form-error' : 'totp-help';
  return layout(
    `Verification code – ${o.tenantName}`,
    `<h1>Enter your verification code</h1>
<p class="muted">to continue to <strong>${escape(o.clientName)}</strong></p>
${errorBox(o.error)}
<form method="post" action="${escape(o.action)}" autocomplete="off">
  <label for="code">6-digit code from your authenticator app</label>
  <p class="muted" id="totp-help">The code changes every 30 seconds.</p>
  <input id="code" name="code" class="code" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code" required autofocus aria-describedby="${describedBy}">
  <div class="actions"><button type="submit">Verify</button></div>
</form>
<form method="post" action="${escape(o.restartAction)}"><div class="actions"><button type="submit" class="secondary">Cancel sign-in</button></div></form>`,
    { tenantName: o.tenantName },
  );
}

/** What the consent page says for the login scopes people see most; other scopes are shown by name. */
const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Know who you are',
  profile: 'Your name and profile details',
  email: 'Your email address',
  phone: 'Your phone number',
  address: 'Your postal address',
  offline_access: 'Keep access while you are away',
  groups: 'Your groups',
};

/** An API on the consent page: each scope its access token will carry, with the resource server's description. */
export interface ConsentResource {
  resource: string;
  /** The resource server's name, when it has a record. */
  name?: string;
  scopes: Array<{ scope: string; description?: string }>;
}

/** Who asks for consent, beyond its name (a client that introduced itself is marked as such). */
export interface ConsentClient {
  name: string;
  /** `metadata_document`: identified by a Client ID Metadata Document; `dynamic`: registered itself (RFC 7591). */
  source?: 'metadata_document' | 'dynamic';
  /** The host of a metadata document's client_id URL. */
  host?: string;
  /**
   * The logo: a metadata document's logo_uri only when it has the client_id URL's origin; a registered client's
   * https logo_uri. Loaded by the browser (the page's CSP grants img-src that origin), never by the server.
   */
  logoUri?: string;
  /** A registered client's https policy_uri and tos_uri (RFC 7591 section 2), shown as links. */
  policyUri?: string;
  tosUri?: string;
}

/** A registered client's privacy policy and terms of service, as links that carry no referrer and no opener. */
function clientLinks(client?: ConsentClient): string {
  const links: Array<[string, string, string]> = [];
  if (client?.policyUri) links.push(['client-policy', client.policyUri, 'Privacy policy']);
  if (client?.tosUri) links.push(['client-tos', client.tosUri, 'Terms of service']);
  if (!links.length) return '';
  return `<p class="muted">${links
    .map(
      ([id, href, text]) =>
        `<a id="${id}" href="${escape(href)}" target="_blank" rel="noopener noreferrer">${escape(text)}</a>`,
    )
    .join(' · ')} (provided by ${escape(client?.name ?? '')})</p>\n`;
}

/** An API of an agent client's consent page: what its delegation token would carry, or why there is none. */
export type ConsentAgentApi = ConsentResource &
  (
    | { lifetimeSeconds: number; removed: Array<{ scope: string; layer: string }>; denied?: undefined }
    | { denied: string }
  );

/** The agent an agent client embodies, and the decision for each API of the request. */
export interface ConsentAgent {
  identifier: string;
  type: string;
  operator: string;
  model?: string;
  apis: ConsentAgentApi[];
}

/** Why a requested scope is left out of an agent's token (libs/delegation ScopeLayer), in plain words. */
const LEFT_OUT: Record<string, string> = {
  'no-refresh': 'agents get no refresh',
  'not-registered': 'the API does not define it',
  'user-permissions': 'you do not hold this permission',
  consent: 'not part of this consent',
  'nhe-allowed-scopes': 'this agent is not allowed it',
  'needs-approval': 'the agent must ask you on your device each time',
};

/** A lifetime in minutes (and seconds where it is not a whole number of minutes). */
export function formatLifetime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const m = Math.floor(s / 60);
  const r = s % 60;
  const parts = [m ? `${m} minute${m === 1 ? '' : 's'}` : '', r ? `${r} second${r === 1 ? '' : 's'}` : ''].filter(
    Boolean,
  );
  return parts.length ? parts.join(' ') : '0 seconds';
}

export function renderConsentPage(o: {
  action: string;
  abortAction: string;
  clientName: string;
  client?: ConsentClient;
  /** Set when the client is an agent client: the page says what its delegation tokens will be. */
  agent?: ConsentAgent;
  /** The user's agents page (their delegation ledger), where an agent's access is revoked or blocked. */
  ledgerUrl?: string;
  tenantName: string;
  /** Login scopes of the request. */
  scopes: string[];
  /** Claims the client asks for by name (the claims parameter) beyond those scopes. */
  claims?: string[];
  /** Every API of the request, with every scope its token will carry. */
  resources: ConsentResource[];
  /** An agent consent that needs a fresh passkey confirmation (passkeys/consent-confirmation.ts). */
  passkeyConfirm?: { html: string; script: string; nonce: string };
}): string {
  const item = (scope: string, description?: string) => {
    const text = description ?? SCOPE_DESCRIPTIONS[scope];
    return text
      ? `<li>${escape(text)} <span class="muted">(${escape(scope)})</span></li>`
      : `<li>${escape(scope)}</li>`;
  };
  const list = (items: string[], empty: string) =>
    items.length ? `<ul>${items.join('')}</ul>` : `<p class="muted">${escape(empty)}</p>`;
  const api = (r: ConsentResource) =>
    `<h2>${r.name ? `${escape(r.name)} <span class="muted">(${escape(r.resource)})</span>` : `API ${escape(r.resource)}`}</h2>` +
    list(
      r.scopes.map((s) => item(s.scope, s.description)),
      'No permissions on this API.',
    );
  if (o.agent) return renderAgentConsent(o as typeof o & { agent: ConsentAgent }, item, list);
  return layout(
    `Allow access – ${o.tenantName}`,
    `${o.client?.logoUri ? `<img src="${escape(o.client.logoUri)}" alt="" width="64" height="64" id="client-logo">\n` : ''}<h1>Allow ${escape(o.clientName)} to access your account?</h1>
${identity(o.client)}${clientLinks(o.client)}<h2>Your information</h2>${list(
      [
        ...o.scopes.map((s) => item(s)),
        ...(o.claims ?? []).map((c) => `<li>${escape(c)} <span class="muted">(claim)</span></li>`),
      ],
      'No additional permissions.',
    )}
${o.resources.map(api).join('\n')}
<div class="actions">
<form method="post" action="${escape(o.action)}"><button type="submit">Allow</button></form>
<form method="post" action="${escape(o.abortAction)}"><button type="submit" class="secondary">Deny</button></form>
</div>`,
    { tenantName: o.tenantName },
  );
}

/** The consent page of an agent client: who the agent is, what it may do, for how long, no refresh, revocation. */
function renderAgentConsent(
  o: Parameters<typeof renderConsentPage>[0] & { agent: ConsentAgent },
  item: (scope: string, description?: string) => string,
  list: (items: string[], empty: string) => string,
): string {
  const a = o.agent;
  const denied = a.apis.filter((api) => api.denied !== undefined);
  const heading = (r: ConsentResource) =>
    `<h2>${r.name ? `${escape(r.name)} <span class="muted">(${escape(r.resource)})</span>` : `API ${escape(r.resource)}`}</h2>`;
  const api = (r: ConsentAgentApi, i: number) => {
    if (r.denied !== undefined)
      return `${heading(r)}<p class="error" role="alert" id="agent-denied-${i}">The agent cannot act for you on this API: ${escape(r.denied)}.</p>`;
    const byScope = new Map(r.scopes.map((s) => [s.scope, s.description]));
    const leftOut = r.removed.length
      ? `<p class="muted">Left out:</p><ul id="agent-left-out-${i}">${r.removed.map((x) => `<li>${escape(x.scope)} <span class="muted">(${escape(LEFT_OUT[x.layer] ?? x.layer)})</span></li>`).join('')}</ul>`
      : '';
    return (
      `${heading(r)}<p>On your behalf, it may:</p>` +
      list(
        [...byScope.entries()].map(([scope, description]) => item(scope, description)),
        'Nothing on this API.',
      ) +
      leftOut +
      `<p id="agent-lifetime-${i}">Each access lasts at most <strong>${escape(formatLifetime(r.lifetimeSeconds))}</strong>.</p>`
    );
  };
  const model = a.model ? `, running ${escape(a.model)}` : '';
  const actions = denied.length
    ? `<div class="actions">
<form method="post" action="${escape(o.abortAction)}"><button type="submit" class="secondary">Deny and go back</button></form>
</div>`
    : `${o.passkeyConfirm ? o.passkeyConfirm.html : ''}<div class="actions">
<form method="post" action="${escape(o.action)}"${o.passkeyConfirm ? ' id="allow-form"><input type="hidden" name="credential" value=""' : ''}><button type="submit">Allow</button></form>
<form method="post" action="${escape(o.abortAction)}"><button type="submit" class="secondary">Deny</button></form>
</div>`;
  return layout(
    `Allow an agent – ${o.tenantName}`,
    `${o.client?.logoUri ? `<img src="${escape(o.client.logoUri)}" alt="" width="64" height="64" id="client-logo">\n` : ''}<h1>${
      denied.length
        ? `${escape(o.clientName)} cannot act for you`
        : `Allow the agent ${escape(o.clientName)} to act for you?`
    }</h1>
<p id="agent-identity"><strong>${escape(o.clientName)}</strong> is the automated agent <strong>${escape(a.identifier)}</strong>, of type <strong>${escape(a.type)}</strong>${model}, operated by <strong>${escape(a.operator)}</strong>. It acts as you, and every access it gets is recorded.</p>
${identity(o.client)}<h2>Your information</h2>${list(
      [
        ...o.scopes.map((s) => item(s)),
        ...(o.claims ?? []).map((c) => `<li>${escape(c)} <span class="muted">(claim)</span></li>`),
      ],
      'No additional permissions.',
    )}
${a.apis.length ? a.apis.map(api).join('\n') : '<p class="muted" id="agent-no-api">It asks for no access to an API.</p>'}
<p id="agent-no-refresh"><strong>No refresh:</strong> the agent must ask again after its access expires. While this consent is remembered it may do so without showing you this page, for these permissions only.</p>
<p id="agent-revoke"><strong>You can end this at any time:</strong> ${
      o.ledgerUrl
        ? `on <a href="${escape(o.ledgerUrl)}">your agents page</a> you can revoke this agent's access or block it for yourself, which ends its access at once; `
        : ''
    }an administrator of ${escape(o.tenantName)} can also disable this agent or change its delegation policy.</p>
${actions}`,
    {
      tenantName: o.tenantName,
      ...(o.passkeyConfirm && !denied.length ? { nonce: o.passkeyConfirm.nonce, script: o.passkeyConfirm.script } : {}),
    },
  );
}

export function renderDeviceInputPage(o: {
  action: string;
  xsrf: string;
  tenantName: string;
  error?: string;
  code?: string;
}): string {
  const describedBy = o.error ? 'code-help form-error' : 'code-help';
  return layout(
    `Connect a device – ${o.tenantName}`,
    `<h1>Connect a device</h1>
${errorBox(o.error)}
<form method="post" action="${escape(o.action)}" autocomplete="off">
  <input type="hidden" name="xsrf" value="${escape(o.xsrf)}">
  <label for="user_code">Code shown on your device</label>
  <p class="muted" id="code-help">For example ABCD-EFGH. Upper or lower case both work.</p>
  <input id="user_code" name="user_code" class="code" autocapitalize="characters" spellcheck="false" required maxlength="64" autofocus aria-describedby="${describedBy}" value="${escape(o.code ?? '')}">
  <div class="actions"><button type="submit">Continue</button></div>
</form>`,
    { tenantName: o.tenantName },
  );
}

export function renderDeviceConfirmPage(o: {
  action: string;
  xsrf: string;
  userCode: string;
  clientName: string;
  tenantName: string;
}): string {
  const hidden = `<input type="hidden" name="xsrf" value="${escape(o.xsrf)}"><input type="hidden" name="user_code" value="${escape(o.userCode)}">`;
  return layout(
    `Confirm device – ${o.tenantName}`,
    `<h1>Connect ${escape(o.clientName)}?</h1>
<p>Check that your device shows this code:</p>
<p class="code-display" aria-label="Code ${escape(o.userCode.split('').join(' '))}">${escape(o.userCode)}</p>
<p class="muted">If you did not start this on a device of yours, or the code differs, choose Cancel.</p>
<div class="actions">
<form method="post" action="${escape(o.action)}">${hidden}<input type="hidden" name="confirm" value="yes"><button type="submit" autofocus>Continue</button></form>
<form method="post" action="${escape(o.action)}">${hidden}<input type="hidden" name="abort" value="yes"><button type="submit" class="secondary">Cancel</button></form>
</div>`,
    { tenantName: o.tenantName },
  );
}

export function renderDeviceSuccessPage(o: { clientName: string; tenantName: string }): string {
  return layout(
    `Device connected – ${o.tenantName}`,
    `<h1>Device connected</h1>
<p role="status">You are signed in to <strong>${escape(o.clientName)}</strong> on your device. You can close this page.</p>`,
    { tenantName: o.tenantName },
  );
}

export interface LogoutPromptOptions {
  /** The provider's end-session confirmation URL. */
  action: string;
  xsrf: string;
  tenantName: string;
  clientName?: string;
  otherApps: string[];
  /** Where "Stay signed in" goes (state included). */
  stayHref: string;
  seconds: number;
  nonce: string;
}

/** The logout confirmation page; the script counts down and submits the sign-out form at zero. */
export function renderLogoutPrompt(o: LogoutPromptOptions): string {
  const apps = o.otherApps.length
    ? `<h2 id="others">You will also be signed out of</h2><ul aria-labelledby="others">${o.otherApps.map((a) => `<li>${escape(a)}</li>`).join('')}</ul>`
    : '<p class="muted" id="others">No other applications are signed in with this session.</p>';
  const script = `(function(){var s=${Number(o.seconds)};var f=document.getElementById('logout-form');var out=document.getElementById('seconds');var t=setInterval(function(){s-=1;if(s<=0){clearInterval(t);out.textContent='0';f.submit();return;}out.textContent=String(s);},1000);document.getElementById('stay').addEventListener('click',function(){clearInterval(t);});})();`;
  return layout(
    `Sign out – ${o.tenantName}`,
    `<h1>Sign out${o.clientName ? ` of ${escape(o.clientName)}` : ''}?</h1>
<p class="muted">Organisation: <strong>${escape(o.tenantName)}</strong></p>
${apps}
<p class="countdown">You will be signed out automatically in <span id="seconds" role="timer" aria-atomic="true">${Number(o.seconds)}</span> seconds.</p>
<div class="actions">
<form id="logout-form" method="post" action="${escape(o.action)}"><input type="hidden" name="xsrf" value="${escape(o.xsrf)}"><input type="hidden" name="logout" value="yes"><button type="submit" id="sign-out" autofocus>Sign out</button></form>
<a class="button secondary" id="stay" href="${escape(o.stayHref)}">Stay signed in</a>
</div>`,
    { tenantName: o.tenantName, nonce: o.nonce, script },
  );
}

/** Immediate logout: submits the provider's confirmation form at once (a button when scripts are off). */
export function renderLogoutAutoSubmit(o: { action: string; xsrf: string; tenantName: string; nonce: string }): string {
  return layout(
    `Signing out – ${o.tenantName}`,
    `<h1>Signing out…</h1>
<form id="logout-form" method="post" action="${escape(o.action)}"><input type="hidden" name="xsrf" value="${escape(o.xsrf)}"><input type="hidden" name="logout" value="yes">
<noscript><p>Scripts are off in this browser.</p><div class="actions"><button type="submit">Continue signing out</button></div></noscript></form>`,
    { tenantName: o.tenantName, nonce: o.nonce, script: `document.getElementById('logout-form').submit();` },
  );
}

export function renderSignedOutPage(o: { tenantName: string; clientName?: string }): string {
  return layout(
    `Signed out – ${o.tenantName}`,
    `<h1>You are signed out</h1>
<p role="status">You have signed out${o.clientName ? ` of ${escape(o.clientName)} and every other application of this session` : ''}. You can close this page.</p>`,
    { tenantName: o.tenantName },
  );
}

export function renderStillSignedInPage(o: { tenantName: string; clientName?: string }): string {
  return layout(
    `Still signed in – ${o.tenantName}`,
    `<h1>You are still signed in</h1>
<p role="status">Nothing changed${o.clientName ? ` for ${escape(o.clientName)}` : ''}. You can close this page and return to the application.</p>`,
    { tenantName: o.tenantName },
  );
}
