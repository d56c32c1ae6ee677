import { ACR_MFA, ACR_PHR, ACR_PHRH, ACR_PWD, meetsAcr } from '../domain/acr';
import { releasedAmr } from '../domain/claims-amr';
import { passkeyAcr, passkeyAmr } from './amr';
import { acrValuesFor, passkeySettingsOf, strongestAcr } from './settings';

const use = (o: Partial<Parameters<typeof passkeyAmr>[0]> = {}) => ({
  deviceType: 'singleDevice' as const,
  backedUp: false,
  userVerified: true,
  attestationVerified: false,
  ...o,
});

describe('passkey amr and acr', () => {
  it('a device-bound key with user verification: hwk user mfa, phr (phrh only with verified attestation)', () => {
    expect(passkeyAmr(use())).toEqual(['hwk', 'user', 'mfa']);
    expect(passkeyAcr(use())).toBe(ACR_PHR);
    expect(passkeyAcr(use({ attestationVerified: true }))).toBe(ACR_PHRH);
  });

  it('a synced key is swk and never phrh', () => {
    expect(passkeyAmr(use({ deviceType: 'multiDevice', backedUp: true }))).toEqual(['swk', 'user', 'mfa']);
    expect(passkeyAmr(use({ backedUp: true }))).toEqual(['swk', 'user', 'mfa']);
    expect(passkeyAcr(use({ deviceType: 'multiDevice', attestationVerified: true }))).toBe(ACR_PHR);
  });

  it('without user verification: one factor', () => {
    expect(passkeyAmr(use({ userVerified: false }))).toEqual(['hwk']);
    expect(passkeyAcr(use({ userVerified: false }))).toBe(ACR_PWD);
  });

  it('phr and phrh rank above mfa', () => {
    expect(meetsAcr(ACR_PHR, ACR_MFA)).toBe(true);
    expect(meetsAcr(ACR_PHRH, ACR_PHR)).toBe(true);
    expect(meetsAcr(ACR_MFA, ACR_PHR)).toBe(false);
    expect(meetsAcr(ACR_PHR, ACR_PHRH)).toBe(false);
  });

  it('the projected profile shows a synced passkey as mfa and a device-bound one as hwk mfa', () => {
    expect(releasedAmr(['swk', 'user', 'mfa'], 'projected')).toEqual(['mfa']);
    expect(releasedAmr(['hwk', 'user', 'mfa'], 'projected')).toEqual(['hwk', 'mfa']);
    expect(releasedAmr(['hwk', 'user', 'mfa'])).toEqual(['hwk', 'user', 'mfa']);
  });
});

describe('passkey settings', () => {
  it('off by default; the RP ID defaults to the issuer host', () => {
    const s = passkeySettingsOf({ settings: {} as never }, 'https://id.example.com:8443/auth/7');
    expect(s).toMatchObject({ enabled: false, rpId: 'id.example.com', origin: 'https://id.example.com:8443' });
    expect(s.userVerification).toBe('required');
    expect(s.attestation).toBe('none');
  });

  it('acr_values_supported gains phr with passkeys, phrh only with attestation', () => {
    expect(acrValuesFor({ settings: {} as never })).toEqual([ACR_PWD, ACR_MFA]);
    expect(acrValuesFor({ settings: { passkeys: { enabled: true } } as never })).toEqual([ACR_PWD, ACR_MFA, ACR_PHR]);
    expect(acrValuesFor({ settings: { passkeys: { enabled: true, attestation: 'direct' } } as never })).toEqual([
      ACR_PWD,
      ACR_MFA,
      ACR_PHR,
      ACR_PHRH,
    ]);
    expect(strongestAcr({ enabled: false, attestation: 'direct' })).toBe(ACR_MFA);
  });
});
