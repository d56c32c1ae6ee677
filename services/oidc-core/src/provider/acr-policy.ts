/**
 * The login prompt's acr checks, with the ordered values of domain/acr.ts. node-oidc-provider's own
 * `essential_acr` / `essential_acrs` checks compare the session's acr for equality, so an `mfa` session asked for
 * an essential `pwd` would be sent to log in again (and a TOTP user can only ever reach `mfa`: a loop). Here an
 * essential request is met by any session whose acr is at least one of the requested values; the ID token then
 * states one of them (claims-account.ts). An unmet one requests the login prompt, which the login interaction
 * answers with the TOTP step for an already signed-in user (step-up) or with unmet_authentication_requirements
 * (routes/interactions.ts).
 */
import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import { acrForAmr, meetsEssentialAcr } from '../domain/acr';

/** The reason of the replacement check (visible in interaction details and in the prompt=none error). */
export const CHECK_ESSENTIAL_ACR = 'essential_acr';

/** The acr of the session's login (a session recorded before acr existed: from its amr). */
export function sessionAcr(session: { acr?: unknown; amr?: unknown } | undefined): string {
  return typeof session?.acr === 'string' ? session.acr : acrForAmr(session?.amr);
}

/** Replaces the login prompt's acr checks of `policy` (in place) and returns it. */
export function withAcrChecks(policy: interactionPolicy.Prompt[]): interactionPolicy.Prompt[] {
  const login = policy.find((p) => p.name === 'login');
  if (!login) throw new Error('node-oidc-provider has no login prompt');
  const at = login.checks.findIndex((c) => c.reason === 'essential_acrs' || c.reason === 'essential_acr');
  login.checks.remove('essential_acrs');
  login.checks.remove('essential_acr');
  login.checks.add(
    new interactionPolicy.Check(
      CHECK_ESSENTIAL_ACR,
      'requested ACR could not be obtained',
      'login_required',
      (ctx: KoaContextWithOIDC) => {
        const { oidc } = ctx;
        if (!oidc.session?.accountId) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        return meetsEssentialAcr(sessionAcr(oidc.session), oidc.claims)
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
      ({ oidc }: KoaContextWithOIDC) => ({ acr: (oidc.claims as { id_token?: { acr?: unknown } }).id_token?.acr }),
    ),
    at === -1 ? login.checks.length : at,
  );
  return policy;
}
