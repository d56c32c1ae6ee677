/**
 * What a passkey sign-in states. amr (RFC 8176 section 2): `hwk` for a proof of possession of a hardware-secured key
 * (a device-bound credential, WebAuthn credentialDeviceType `singleDevice`), `swk` for a software-secured one (a
 * synced passkey: `multiDevice`, or backed up); `user` ("user presence test" of RFC 8176, here the stronger user
 * verification, WebAuthn UV flag) and `mfa` when the authenticator verified the user (possession plus a PIN or
 * biometric: two factors). acr (OpenID EAP ACR Values 1.0): `phr` for a phishing-resistant login with user
 * verification; `phrh` for one that is also hardware-protected, which this provider can only know from an attestation
 * verified at enrolment. A passkey without user verification is one factor: acr `urn:idp:acr:pwd`, the single-factor
 * rank (it is still phishing-resistant, but it must not meet a requirement for two factors).
 */
import { ACR_PHR, ACR_PHRH, ACR_PWD } from '../domain/acr';

export interface PasskeyUse {
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  userVerified: boolean;
  attestationVerified: boolean;
}

export function passkeyAmr(use: PasskeyUse): string[] {
  const key = use.deviceType === 'singleDevice' && !use.backedUp ? 'hwk' : 'swk';
  return use.userVerified ? [key, 'user', 'mfa'] : [key];
}

export function passkeyAcr(use: PasskeyUse): string {
  if (!use.userVerified) return ACR_PWD;
  return use.deviceType === 'singleDevice' && !use.backedUp && use.attestationVerified ? ACR_PHRH : ACR_PHR;
}
