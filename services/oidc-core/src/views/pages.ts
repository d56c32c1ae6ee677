/**
 * Server-rendered pages: no external assets, no scripts, inline styles only (allowed by the page's CSP).
 * Every interpolated value goes through `escape`.
 */
export function escape(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Content-Security-Policy of every page rendered here. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f4f5f7; color: #1c1e21; }
  main { width: min(26rem, 92vw); background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 2px 12px rgba(0,0,0,.08); }
  h1 { font-size: 1.35rem; margin: 0 0 1rem; }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input { width: 100%; box-sizing: border-box; padding: .65rem; font-size: 1rem; border: 1px solid #8a8f98; border-radius: 6px; }
  button { margin-top: 1.25rem; width: 100%; padding: .75rem; font-size: 1rem; border: 0; border-radius: 6px; background: #1f5fbf; color: #fff; cursor: pointer; }
  button.secondary { background: #e4e6eb; color: #1c1e21; }
  button:focus-visible, input:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
  .error { background: #fdecea; color: #8a1c12; padding: .75rem; border-radius: 6px; }
  ul { padding-left: 1.2rem; }
  @media (prefers-color-scheme: dark) { body { background: #18191a; color: #e4e6eb; } main { background: #242526; } button.secondary { background: #3a3b3c; color: #e4e6eb; } }
`;

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

export function renderErrorPage(error: string, description: string): string {
  return layout(
    'Sign-in error',
    `<h1>Something went wrong</h1><p class="error" role="alert"><strong>${escape(error)}</strong>${description ? `: ${escape(description)}` : ''}</p>
<p>Return to the application and try again.</p>`,
  );
}

export function renderLoginPage(options: { action: string; clientName: string; tenantName: string; error?: string; username?: string }): string {
  return layout(
    `Sign in to ${options.tenantName}`,
    `<h1>Sign in to ${escape(options.clientName)}</h1>
<p>Organisation: ${escape(options.tenantName)}</p>
${options.error ? `<p class="error" role="alert">${escape(options.error)}</p>` : ''}
<form method="post" action="${escape(options.action)}" autocomplete="on">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username" required autofocus value="${escape(options.username ?? '')}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
  );
}

export function renderConsentPage(options: { action: string; abortAction: string; clientName: string; scopes: string[]; resources: Array<{ resource: string; scopes: string[] }> }): string {
  const list = (items: string[]) => (items.length ? `<ul>${items.map((s) => `<li>${escape(s)}</li>`).join('')}</ul>` : '<p>No additional permissions.</p>');
  return layout(
    'Allow access',
    `<h1>${escape(options.clientName)} asks for access</h1>
<h2>Your information</h2>${list(options.scopes)}
${options.resources.map((r) => `<h2>API ${escape(r.resource)}</h2>${list(r.scopes)}`).join('')}
<form method="post" action="${escape(options.action)}"><button type="submit">Allow</button></form>
<form method="post" action="${escape(options.abortAction)}"><button type="submit" class="secondary">Deny</button></form>`,
  );
}
