/**
 * A tenant's passkey settings (settings.passkeys) as the provider applies them: defaults for what is not stored, the
 * WebAuthn RP ID (WebAuthn L3 section 5.1.3; default the host of the tenant's public base URL) and the origin every
 * ceremony's clientDataJSON must name (section 7.1 step 9, 7.2 step 13): the issuer's origin.
 */
import { PASSKEY_SETTINGS_DEFAULTS, type PasskeySettings, type TenantDoc } from '@idp/db';
import { ACR_MFA, ACR_PHR, ACR_PHRH, ACR_PWD } from '../domain/acr';

export interface EffectivePasskeySettings extends Omit<PasskeySettings, 'rpId'> {
  rpId: string;
  /** The only origin a ceremony is accepted from. */
  origin: string;
}

export function passkeySettingsOf(tenant: Pick<TenantDoc, 'settings'>, issuer: string): EffectivePasskeySettings {
  const stored = (tenant as { settings?: { passkeys?: Partial<PasskeySettings> | null } }).settings?.passkeys ?? {};
  const defined = Object.fromEntries(
    (Object.entries(stored) as Array<[string, unknown]>).filter(([, v]) => v !== undefined && v !== null),
  ) as Partial<PasskeySettings>;
  const url = new URL(issuer);
  return {
    ...PASSKEY_SETTINGS_DEFAULTS,
    ...defined,
    rpId: defined.rpId ?? url.hostname,
    origin: url.origin,
  };
}

/**
 * The strongest acr a login of this tenant can reach: `phrh` only where registrations ask for attestation (with
 * attestation `none` no key can be known to be hardware-protected), `phr` where passkeys are on, else `mfa`.
 */
export function strongestAcr(s: Pick<PasskeySettings, 'enabled' | 'attestation'>): string {
  if (!s.enabled) return ACR_MFA;
  return s.attestation === 'direct' ? ACR_PHRH : ACR_PHR;
}

/** Discovery's `acr_values_supported` for the tenant: what its logins can state, weakest first. */
export function acrValuesFor(tenant: Pick<TenantDoc, 'settings'>): string[] {
  const s = passkeySettingsOf(tenant, 'https://unused.invalid');
  const strongest = strongestAcr(s);
  const all = [ACR_PWD, ACR_MFA, ACR_PHR, ACR_PHRH];
  return all.slice(0, all.indexOf(strongest) + 1);
}
