/**
 * Authentication method references (RFC 8176) released by the `amr` scope. The login records what the user did
 * (pwd, otp, hwk, swk, sc, user, mfa); a tenant's claims profile decides how that is shown to relying parties.
 * A passkey sign-in records `hwk` (device-bound key) or `swk` (synced key), with `user` and `mfa` when the
 * authenticator verified the user (passkeys/amr.ts).
 */
export const AMR_VALUES = ['pwd', 'otp', 'hwk', 'swk', 'sc', 'user', 'mfa'] as const;
export type AmrValue = (typeof AMR_VALUES)[number];

/**
 * Tenant `settings.claims.amrProfile`:
 * - `rfc8176` (default): values as recorded at login;
 * - `projected`: for relying parties that only know hwk/mfa, a smart card (`sc`) is shown as `hwk` + `mfa` (a
 *   PIN-protected hardware key) and a software key (`swk`) as `mfa`; `user` (user verification, which `mfa` already
 *   states for a passkey) is left out. So a synced passkey reads `["mfa"]` and a device-bound one `["hwk","mfa"]`.
 */
export type AmrProfile = 'rfc8176' | 'projected';

export const DEFAULT_AMR: readonly string[] = ['pwd'];

const PROJECTION: Record<string, string[]> = { sc: ['hwk', 'mfa'], swk: ['mfa'], user: [] };

/**
 * The amr to release: known values only (anything else is dropped), de-duplicated in first-seen order, projected
 * when the profile says so; `['pwd']` when the login recorded no amr (a login from before amr was recorded), `[]`
 * for an upstream sign-in whose methods mapped to nothing. Idempotent.
 */
export function releasedAmr(recorded: unknown, profile: AmrProfile = 'rfc8176'): string[] {
  const known = new Set<string>(AMR_VALUES);
  const input = Array.isArray(recorded)
    ? recorded.filter((v): v is string => typeof v === 'string' && known.has(v))
    : [];
  // Only a login that recorded no amr at all (one from before amr was recorded) gets the default. A login made at an
  // upstream provider records `fed` beside what its table mapped, and may release nothing; so may a value released
  // once and read again (UserInfo reads the access token's amr): idempotent.
  const values = Array.isArray(recorded) ? input : [...DEFAULT_AMR];
  const out: string[] = [];
  for (const v of values)
    for (const p of profile === 'projected' ? (PROJECTION[v] ?? [v]) : [v]) if (!out.includes(p)) out.push(p);
  return out;
}
