/** The page that links an upstream identity to an existing account (the providers' links are on the login page). */
import { escape, layout } from '../views/pages';

export function renderLinkPage(o: {
  tenantName: string;
  providerName: string;
  upstreamName?: string;
  linkAction: string;
  /** The provider may create accounts: the identity only collides with an existing one. */
  conflict: boolean;
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
  o.conflict
    ? '<p class="muted">An account here already has your name or email address, so no new one is made: if it is yours, link it above; if not, ask an administrator.</p>'
    : '<p class="muted">No new account can be created for this sign-in: if you have none here, ask an administrator to link it.</p>'
}
<form method="post" action="${escape(o.abortAction)}"><div class="actions"><button type="submit" class="secondary">Cancel sign-in</button></div></form>`,
    { tenantName: o.tenantName },
  );
}

/**
 * Home-realm discovery's answer to the password form: a page that moves on to the person's provider by itself (a
 * meta refresh, not a redirect, because CSP form-action would also govern a redirect that answers a form, and the
 * provider's origin is not one of the form's targets). The link is there for a browser that does not follow it.
 */
export function renderContinuePage(o: { tenantName: string; providerName: string; href: string }): string {
  return layout(
    `Continue – ${o.tenantName}`,
    `<h1>Continue with ${escape(o.providerName)}</h1>
<p>Your organisation signs you in with <strong>${escape(o.providerName)}</strong>.</p>
<div class="actions"><a class="button" href="${escape(o.href)}">Continue</a></div>`,
    { tenantName: o.tenantName, refresh: o.href },
  );
}

/** On the way out: the person's provider signs them out too (a meta refresh, for the same reason as above). */
export function renderUpstreamSignOutPage(o: {
  tenantName: string;
  providerName: string;
  href: string;
  /** Where to go instead: the person was not asked about this sign-out, so they choose (no automatic step). */
  skipHref?: string;
}): string {
  if (o.skipHref)
    return layout(
      `Signed out – ${o.tenantName}`,
      `<h1>You are signed out here</h1>
<p>You are still signed in to <strong>${escape(o.providerName)}</strong>, where you signed in.</p>
<div class="actions"><a class="button" href="${escape(o.href)}">Sign out of ${escape(o.providerName)} too</a>
<a class="button secondary" href="${escape(o.skipHref)}">Stay signed in there</a></div>`,
      { tenantName: o.tenantName },
    );
  return layout(
    `Signing out – ${o.tenantName}`,
    `<h1>Signing you out of ${escape(o.providerName)}</h1>
<p>You are signed out here. ${escape(o.providerName)} signs you out next.</p>
<div class="actions"><a class="button" href="${escape(o.href)}">Continue</a></div>`,
    { tenantName: o.tenantName, refresh: o.href },
  );
}
