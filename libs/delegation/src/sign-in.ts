/**
 * Phishing-resistant delegation: a delegation policy (or the tenant's default, settings.nhe) may require that the
 * user's access token presented as subject_token (RFC 8693 section 2.1) comes from a phishing-resistant sign-in no
 * older than N minutes. "Phishing-resistant" is the authentication context class the token states (`acr`, RFC 9068
 * section 2.2.1 / OpenID Connect Core 2): `phr` or `phrh` of the OpenID Connect Extended Authentication Profile (EAP)
 * ACR Values 1.0. The sign-in's age is now minus the token's `auth_time`.
 *
 * `amr` (RFC 8176) is deliberately not enough on its own: `hwk`/`swk` say a key was held, not that the sign-in was
 * bound to this origin (what makes a passkey phishing-resistant), an upstream provider's amr table can produce them,
 * and the tenant's claims profile rewrites them (`projected`: swk -> mfa), so they are shown for explanation only.
 */

/** The EAP ACR values that state a phishing-resistant sign-in (`phrh`: also hardware-bound). */
export const PHISHING_RESISTANT_ACR_VALUES: readonly string[] = ['phr', 'phrh'];

/** The largest maximum age a policy or the tenant may require, in minutes (one day). */
export const MAX_SIGN_IN_AGE_MINUTES = 1440;

/** How far in the future a subject token's auth_time may be (clock skew between oidc-core and the sidecar). */
export const AUTH_TIME_SKEW_SECONDS = 60;

/** What the subject token says about the user's sign-in (absent members: the token does not say). */
export interface SignInFacts {
  /** The token's `acr`. */
  acr?: string;
  /** The token's `amr` (explanation only; see the module comment). */
  amr?: string[];
  /** Seconds since the sign-in: now minus the token's `auth_time`. */
  ageSeconds?: number;
}

/** The requirement in force for a request, and whether the sign-in met it (the decision record's `signIn`). */
export interface SignInCheck {
  /** The sign-in must be at most this many minutes old. */
  maxAgeMinutes: number;
  /** Where the requirement came from: a matching policy, or the tenant's settings.nhe default. */
  setBy: 'policy' | 'tenant';
  /** The sign-in as the subject token states it. */
  acr?: string;
  ageSeconds?: number;
  met: boolean;
}

/**
 * The requirement that applies to the matched policies: each policy's own value when it has one (0: none for this
 * policy), else the tenant's default (0 or absent: none). Several matching policies (group policies): the strictest
 * (smallest positive) applies, since the union of their scopes is delegated at once. Null: no requirement.
 */
export function signInRequirement(
  policies: ReadonlyArray<{ phishingResistantSignInMaxAgeMinutes?: number }>,
  tenantDefault: number | undefined,
): { maxAgeMinutes: number; setBy: 'policy' | 'tenant' } | null {
  let best: { maxAgeMinutes: number; setBy: 'policy' | 'tenant' } | null = null;
  for (const p of policies) {
    const own = p.phishingResistantSignInMaxAgeMinutes;
    const value = typeof own === 'number' ? own : tenantDefault;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) continue;
    const minutes = Math.min(Math.floor(value), MAX_SIGN_IN_AGE_MINUTES);
    if (!best || minutes < best.maxAgeMinutes)
      best = { maxAgeMinutes: Math.max(1, minutes), setBy: typeof own === 'number' ? 'policy' : 'tenant' };
  }
  return best;
}

/** Whether the sign-in meets the requirement: a phishing-resistant acr and an auth_time within the maximum age. */
export function checkSignIn(
  required: { maxAgeMinutes: number; setBy: 'policy' | 'tenant' },
  signIn: SignInFacts | undefined,
): SignInCheck {
  const acr = signIn?.acr === undefined ? undefined : printable(signIn.acr);
  const age = signIn?.ageSeconds;
  const phishingResistant = typeof acr === 'string' && PHISHING_RESISTANT_ACR_VALUES.includes(acr);
  // A future auth_time within clock skew between oidc-core and the sidecar counts as now; one further ahead is not
  // a sign-in this provider recorded (OpenID Connect Core 2: auth_time is when the authentication occurred), so it
  // never meets a requirement (else a token stating a far-future auth_time would stay "recent" for its whole life).
  const fresh =
    typeof age === 'number' &&
    Number.isFinite(age) &&
    age >= -AUTH_TIME_SKEW_SECONDS &&
    age <= required.maxAgeMinutes * 60;
  return {
    ...required,
    ...(acr !== undefined ? { acr } : {}),
    ...(age !== undefined ? { ageSeconds: Math.max(0, Math.floor(age)) } : {}),
    met: phishingResistant && fresh,
  };
}

/** What error_description may carry of a token's value (RFC 6749 section 5.2: %x20-21 / %x23-5B / %x5D-7E), shortened. */
function printable(value: string): string {
  return value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, '?').slice(0, 128);
}

/**
 * The error_description of a refusal: the requirement, then what the sign-in was (RFC 6749 5.2 characters only).
 * Worded for every way a sign-in reaches the check (a subject_token, an agent client's authorization, a CIBA
 * approval), so it names the user's sign-in rather than the token that carried it.
 */
export function signInRefusal(check: SignInCheck): {
  gate: 'sign-in-not-phishing-resistant' | 'sign-in-too-old';
  description: string;
} {
  const minutes = check.maxAgeMinutes;
  const need = `this delegation needs a phishing-resistant sign-in (passkey) within the last ${minutes} minute${minutes === 1 ? '' : 's'}`;
  if (check.acr === undefined || !PHISHING_RESISTANT_ACR_VALUES.includes(check.acr)) {
    const was =
      check.acr === undefined
        ? "the user's sign-in is not stated (no acr)"
        : `the user signed in with acr ${check.acr}`;
    return {
      gate: 'sign-in-not-phishing-resistant',
      description: `${need}; ${was}: sign the user in again with a passkey`,
    };
  }
  // A phishing-resistant acr and an age within the maximum that still failed: auth_time is in the future (checkSignIn).
  const was =
    check.ageSeconds === undefined
      ? "the time of the user's sign-in is not stated (no auth_time)"
      : check.ageSeconds <= minutes * 60
        ? "the user's sign-in is stated in the future (auth_time)"
        : `the user signed in ${Math.floor(check.ageSeconds / 60)} minutes ago`;
  return {
    gate: 'sign-in-too-old',
    description: `${need}; ${was}: sign the user in again with a passkey`,
  };
}
