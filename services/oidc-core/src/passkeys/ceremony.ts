/**
 * The two WebAuthn ceremonies (Web Authentication Level 3 section 7) through @simplewebauthn/server: options with a
 * stored single-use challenge (challenges.ts), and verification of the browser's response against that challenge,
 * the tenant's origin and RP ID, and the tenant's user-verification policy. The rules this provider adds:
 * - a credential belongs to one tenant and one user: a response naming a credential of another tenant is unknown here,
 *   and one of another user than the ceremony's is refused;
 * - the signature counter (section 6.1.1): an authenticator that does not count reports 0 forever (synced passkeys),
 *   which is accepted; a non-zero counter that does not grow is refused as a possible clone (section 7.2 step 21),
 *   and the stored counter only moves forward (a conditional update: two uses racing cannot both pass).
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Models, WebauthnCredentialDoc } from '@idp/db';
import { challengeOf, consumeChallenge, issueChallenge, type ChallengeBinding } from './challenges';
import type { EffectivePasskeySettings } from './settings';
import type { PasskeyUse } from './amr';

/** Why a ceremony failed, in words a person can act on (never the library's internal message). */
export type CeremonyFailure =
  | 'malformed'
  | 'challenge'
  | 'unknown_credential'
  | 'wrong_user'
  | 'verification'
  | 'counter'
  | 'user_verification'
  | 'disabled_user';

export class CeremonyError extends Error {
  constructor(
    readonly reason: CeremonyFailure,
    detail: string,
    /** What the library said (never a challenge: ours is taken from the response itself), for the log only. */
    readonly libraryMessage?: string,
  ) {
    super(detail);
  }
}

const MAX_PASSKEYS_PER_USER = 20;

export async function registrationOptions(
  models: Models,
  tenantId: number,
  settings: EffectivePasskeySettings,
  user: { id: string; username: string; displayName?: string },
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await models.WebauthnCredential.find(
    { tenantId, userId: user.id },
    { credentialId: 1, transports: 1 },
  ).lean();
  if (existing.length >= MAX_PASSKEYS_PER_USER)
    throw new CeremonyError('malformed', `at most ${MAX_PASSKEYS_PER_USER} passkeys per account`);
  const options = await generateRegistrationOptions({
    rpName: settings.rpId,
    rpID: settings.rpId,
    // The user handle (section 5.4.3) is the account id: no personal data, and the same for every passkey of the user.
    userID: new TextEncoder().encode(user.id),
    userName: user.username,
    userDisplayName: user.displayName ?? user.username,
    attestationType: settings.attestation,
    // Discoverable credentials (section 6.2.2): sign-in without typing a name, and browser autofill.
    authenticatorSelection: { residentKey: 'required', userVerification: settings.userVerification },
    excludeCredentials: existing.map((c) => ({
      id: c.credentialId,
      transports: c.transports as AuthenticatorTransport[],
    })),
    timeout: 300_000,
  });
  const challenge = await issueChallenge(models, tenantId, 'register', { userId: user.id });
  return { ...options, challenge };
}

/** AuthenticatorTransport hints (WebAuthn L3 section 5.8.4) as the browser reports them: a short list of short strings. */
const validTransports = (t: unknown): boolean =>
  t === undefined || (Array.isArray(t) && t.length <= 8 && t.every((v) => typeof v === 'string' && v.length <= 32));

/** The JSON the browser posts (section 5.1, toJSON()): only the shape the library reads, anything else is refused. */
function registrationResponse(raw: unknown): RegistrationResponseJSON {
  const r = raw as Partial<RegistrationResponseJSON> | null;
  if (
    !r ||
    typeof r !== 'object' ||
    typeof r.id !== 'string' ||
    r.id.length > 1024 ||
    typeof r.rawId !== 'string' ||
    r.type !== 'public-key' ||
    !r.response ||
    typeof r.response !== 'object' ||
    typeof r.response.clientDataJSON !== 'string' ||
    typeof r.response.attestationObject !== 'string' ||
    !validTransports(r.response.transports)
  )
    throw new CeremonyError('malformed', 'not a WebAuthn registration response');
  return r as RegistrationResponseJSON;
}

/**
 * Attestation formats whose statement this library version checks against a trust anchor it ships (Apple's WebAuthn
 * root). For `packed`, `tpm`, `fido-u2f` and `android-key` it has no anchor without FIDO Metadata Service statements
 * (it accepts a self-made certificate chain, and `packed` self attestation is signed by the credential key itself),
 * so such a statement says nothing about the authenticator (WebAuthn L3 section 6.5.3, "Self" and "None" trust).
 */
const ANCHORED_ATTESTATION_FORMATS: ReadonlySet<string> = new Set(['apple']);

/** Verifies a registration for `userId` and stores the credential. */
export async function completeRegistration(
  models: Models,
  tenantId: number,
  settings: EffectivePasskeySettings,
  userId: string,
  raw: unknown,
  name: string,
): Promise<WebauthnCredentialDoc> {
  const response = registrationResponse(raw);
  const challenge = challengeOf(response.response.clientDataJSON);
  if (!(await consumeChallenge(models, tenantId, 'register', challenge, { userId })))
    throw new CeremonyError('challenge', 'the registration expired or was already used; try again');
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: settings.origin,
      expectedRPID: settings.rpId,
      requireUserVerification: settings.userVerification === 'required',
    });
  } catch (err) {
    // The library's message names what was expected (origin, RP ID): for the log, not for the page.
    throw new CeremonyError('verification', 'the passkey could not be verified', (err as Error).message);
  }
  if (!verified.verified) throw new CeremonyError('verification', 'the passkey could not be verified');
  const info = verified.registrationInfo;
  const doc = {
    tenantId,
    userId,
    credentialId: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: info.credential.transports ?? response.response.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
    name: name.trim().slice(0, 64) || 'Passkey',
    attestationFormat: info.fmt,
    aaguid: info.aaguid,
    // Only a statement the tenant asked for and the library verified: with `none` nothing is known of the device.
    // Trust anchored in a root the library holds (section 7.1 steps 23-24); self attestation is no evidence.
    attestationVerified: settings.attestation === 'direct' && ANCHORED_ATTESTATION_FORMATS.has(info.fmt),
  };
  try {
    const created = await models.WebauthnCredential.create(doc);
    return created.toObject();
  } catch (err) {
    if ((err as { code?: number }).code === 11000)
      throw new CeremonyError('verification', 'this passkey is already registered');
    throw err;
  }
}

export async function authenticationOptions(
  models: Models,
  tenantId: number,
  settings: EffectivePasskeySettings,
  binding: ChallengeBinding,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  // For a known user (step-up, a consent confirmation) only their passkeys; otherwise none listed: discoverable.
  const allow = binding.userId
    ? await models.WebauthnCredential.find(
        { tenantId, userId: binding.userId },
        { credentialId: 1, transports: 1 },
      ).lean()
    : [];
  const options = await generateAuthenticationOptions({
    rpID: settings.rpId,
    userVerification: settings.userVerification,
    allowCredentials: allow.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] })),
    timeout: 300_000,
  });
  const challenge = await issueChallenge(models, tenantId, 'authenticate', binding);
  return { ...options, challenge };
}

function authenticationResponse(raw: unknown): AuthenticationResponseJSON {
  const r = raw as Partial<AuthenticationResponseJSON> | null;
  if (
    !r ||
    typeof r !== 'object' ||
    typeof r.id !== 'string' ||
    r.id.length > 1024 ||
    r.type !== 'public-key' ||
    typeof r.rawId !== 'string' ||
    !r.response ||
    typeof r.response !== 'object' ||
    typeof r.response.clientDataJSON !== 'string' ||
    typeof r.response.authenticatorData !== 'string' ||
    typeof r.response.signature !== 'string' ||
    (r.response.userHandle !== undefined && typeof r.response.userHandle !== 'string')
  )
    throw new CeremonyError('malformed', 'not a WebAuthn authentication response');
  return r as AuthenticationResponseJSON;
}

export interface Authenticated extends PasskeyUse {
  userId: string;
  credentialId: string;
}

/**
 * Verifies an assertion answering a challenge bound to `binding` (`binding.userId`: only that user's passkeys) and
 * records its use. Throws CeremonyError.
 */
export async function completeAuthentication(
  models: Models,
  tenantId: number,
  settings: EffectivePasskeySettings,
  binding: ChallengeBinding,
  raw: unknown,
): Promise<Authenticated> {
  const response = authenticationResponse(raw);
  const challenge = challengeOf(response.response.clientDataJSON);
  // Consumed first, whatever follows: a challenge answers at most one attempt.
  if (!(await consumeChallenge(models, tenantId, 'authenticate', challenge, binding)))
    throw new CeremonyError('challenge', 'the sign-in expired or was already used; try again');
  const credential = await models.WebauthnCredential.findOne({ tenantId, credentialId: response.id }).lean();
  if (!credential) throw new CeremonyError('unknown_credential', 'this passkey is not registered here');
  if (binding.userId !== undefined && credential.userId !== binding.userId)
    throw new CeremonyError('wrong_user', 'this passkey belongs to another account');
  // Section 7.2 step 6: a user handle, when returned, must be the credential's owner; where the user was not
  // identified before the ceremony (a discoverable sign-in) it must be returned.
  const userHandle = response.response.userHandle;
  if (binding.userId === undefined && !userHandle)
    throw new CeremonyError('wrong_user', 'this passkey did not say whose it is');
  if (userHandle && Buffer.from(userHandle, 'base64url').toString('utf8') !== credential.userId)
    throw new CeremonyError('wrong_user', 'this passkey belongs to another account');
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: settings.origin,
      expectedRPID: settings.rpId,
      credential: {
        id: credential.credentialId,
        publicKey: Buffer.from(credential.publicKey, 'base64url'),
        counter: credential.counter,
        transports: credential.transports as AuthenticatorTransport[],
      },
      requireUserVerification: settings.userVerification === 'required',
    });
  } catch (err) {
    const message = (err as Error).message;
    if (/counter/i.test(message))
      throw new CeremonyError('counter', 'this passkey reported a signature counter that went backwards');
    if (/user verification/i.test(message))
      throw new CeremonyError('user_verification', 'the authenticator did not verify you (PIN or biometric)');
    throw new CeremonyError('verification', 'the passkey could not be verified', message);
  }
  if (!result.verified) throw new CeremonyError('verification', 'the passkey could not be verified');
  const info = result.authenticationInfo;
  // The counter only moves forward; a concurrent use of the same counter value loses (a counting authenticator).
  const updated = await models.WebauthnCredential.updateOne(
    { _id: credential._id, counter: credential.counter },
    { $set: { counter: info.newCounter, lastUsedAt: new Date(), backedUp: info.credentialBackedUp } },
  );
  if (updated.matchedCount !== 1 && info.newCounter > 0)
    throw new CeremonyError('counter', 'this passkey was used twice at once');
  return {
    userId: credential.userId,
    credentialId: credential.credentialId,
    deviceType: credential.deviceType,
    backedUp: info.credentialBackedUp,
    userVerified: info.userVerified,
    attestationVerified: credential.attestationVerified,
  };
}
