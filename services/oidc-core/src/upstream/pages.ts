/** The page that links an upstream identity to an existing account (the providers' links are on the login page). */
import { escape, layout } from '../views/pages';

export function renderLinkPage(o: {
  tenantName: string;
  providerName: string;
  upstreamName?: string;
  linkAction: string;
  createAction?: string;
  abortAction: string;
  error?: string;
  username?: string;
}): string {
  const describedBy = o.error ? ' aria-describedby="form-error"' : '';
  const who = o.upstreamName ? ` as <strong>${escape(o.upstreamName)}</strong>` : '';
  return layout(
    `Link your account – ${o.tenantName}`,
    `<h1>Link your account</h1>
<p>You signed in with <strong>${escape(o.providerName)}</strong>${who}, which is not linked to an account here yet.</p>
${o.error ? `<p class="error" id="form-error" role="alert">${escape(o.error)}</p>` : ''}
<p>If you already have an account, sign in with its password once to link it.</p>
<form method="post" action="${escape(o.linkAction)}" autocomplete="on">
  <label for="username">Username</label>
  <input id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="256"${describedBy} value="${escape(o.username ?? '')}" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256"${describedBy}>
  <label for="code">Code from your authenticator app (if your account uses one)</label>
  <input id="code" name="code" class="code" inputmode="numeric" pattern="[0-9 ]*" maxlength="8" autocomplete="one-time-code">
  <div class="actions"><button type="submit">Link and continue</button></div>
</form>
${
  o.createAction
    ? `<form method="post" action="${escape(o.createAction)}"><div class="actions"><button type="submit" class="secondary">Create a new account instead</button></div></form>`
    : '<p class="muted">No new account can be created for this sign-in: ask an administrator to link it.</p>'
}
<form method="post" action="${escape(o.abortAction)}"><div class="actions"><button type="submit" class="secondary">Cancel sign-in</button></div></form>`,
    { tenantName: o.tenantName },
  );
}
