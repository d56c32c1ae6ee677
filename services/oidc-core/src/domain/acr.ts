/**
 * Authentication context class references (OpenID Connect Core 1.0 section 2, `acr`; `acr_values` and the claims
 * request parameter, section 5.5.1.1). The values say what the login actually did, and match its `amr`:
 * - `urn:idp:acr:pwd`: a password alone (amr `["pwd"]`);
 * - `urn:idp:acr:mfa`: a password and the TOTP second factor (amr `["pwd","otp","mfa"]`);
 * - `phr` (OpenID Extended Authentication Profile (EAP) ACR Values 1.0, "phishing-resistant"): a passkey with user
 *   verification (amr `["hwk"|"swk","user","mfa"]`, passkeys/amr.ts);
 * - `phrh` (EAP, "phishing-resistant hardware-protected"): the same with a device-bound key whose attestation was
 *   verified at enrolment; with attestation `none` (the default) no key ever qualifies.
 * They are ordered: a stronger login also meets a requirement for a weaker value.
 */
export const ACR_PWD = 'urn:idp:acr:pwd';
export const ACR_MFA = 'urn:idp:acr:mfa';
export const ACR_PHR = 'phr';
export const ACR_PHRH = 'phrh';

/** Every supported value, weakest first (discovery's `acr_values_supported`). */
export const ACR_VALUES: readonly string[] = [ACR_PWD, ACR_MFA, ACR_PHR, ACR_PHRH];

const RANK: ReadonlyMap<string, number> = new Map(ACR_VALUES.map((v, i) => [v, i]));

/** The acr of a login from the amr it recorded: `mfa` when a second factor was used, else `pwd`. */
export function acrForAmr(amr: unknown): string {
  return Array.isArray(amr) && (amr.includes('mfa') || amr.includes('otp')) ? ACR_MFA : ACR_PWD;
}

/** Whether a login with `achieved` meets the requested `value` (unknown values are never met). */
export function meetsAcr(achieved: unknown, value: string): boolean {
  const a = typeof achieved === 'string' ? RANK.get(achieved) : undefined;
  const v = RANK.get(value);
  return a !== undefined && v !== undefined && a >= v;
}

/**
 * An essential acr request (the claims parameter's `id_token.acr` with `essential: true`, and `value` or
 * `values`): the acceptable values, or undefined when the request has no essential acr. (`acr_values` alone is
 * voluntary: node-oidc-provider records it as `{values}` without `essential`.)
 */
export function essentialAcrValues(request: unknown): string[] | undefined {
  const acr = (request as { id_token?: { acr?: unknown } } | undefined)?.id_token?.acr as
    { essential?: unknown; value?: unknown; values?: unknown } | null | undefined;
  if (!acr || acr.essential !== true) return undefined;
  if (typeof acr.value === 'string') return [acr.value];
  if (Array.isArray(acr.values)) return acr.values.filter((v): v is string => typeof v === 'string');
  return undefined;
}

/** Whether a login with `achieved` meets an essential request (true when there is none). */
export function meetsEssentialAcr(achieved: unknown, request: unknown): boolean {
  const values = essentialAcrValues(request);
  return !values || values.some((v) => meetsAcr(achieved, v));
}

/**
 * Whether any login this provider can do for the tenant could meet the essential request: `strongest` is the best
 * it offers (`mfa` with a password and TOTP; `phr` or `phrh` where passkeys are on, passkeys/settings.ts).
 */
export function essentialAcrAttainable(request: unknown, strongest: string = ACR_MFA): boolean {
  return meetsEssentialAcr(strongest, request);
}

/**
 * The `acr` an ID token states for a login with `achieved`. With an essential request the value is one of the
 * requested values (section 5.5.1.1): the strongest requested value the login meets, which is the login's own
 * when it was requested (an `mfa` login asked for `pwd` only states `pwd`). Otherwise (a voluntary `acr_values`, or
 * no request) it is what the login did.
 */
export function statedAcr(achieved: unknown, request: unknown): string | undefined {
  const values = essentialAcrValues(request);
  if (typeof achieved !== 'string') return undefined;
  if (!values) return achieved;
  const met = values.filter((v) => meetsAcr(achieved, v)).sort((a, b) => (RANK.get(b) ?? 0) - (RANK.get(a) ?? 0));
  return met[0] ?? achieved;
}

/**
 * The claims request of stored authorization parameters as node-oidc-provider builds it: the claims parameter
 * (JSON), with `acr_values` recorded as the voluntary `id_token.acr` request `{values}` (it replaces an acr of the
 * claims parameter, as the provider's does).
 */
export function claimsRequestOf(params: Record<string, unknown>): Record<string, unknown> {
  let claims: Record<string, unknown> = {};
  if (typeof params.claims === 'string') {
    try {
      const parsed: unknown = JSON.parse(params.claims);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) claims = parsed as Record<string, unknown>;
    } catch {
      // The provider refused it before any interaction.
    }
  }
  if (typeof params.acr_values === 'string' && params.acr_values) {
    const idToken =
      claims.id_token && typeof claims.id_token === 'object' ? (claims.id_token as Record<string, unknown>) : {};
    claims = { ...claims, id_token: { ...idToken, acr: { values: params.acr_values.split(' ') } } };
  }
  return claims;
}
