import { Schema } from 'mongoose';

/**
 * A passkey: a WebAuthn public key credential (Web Authentication Level 3, section 4 "public key credential source")
 * registered by a user of a tenant. Only the public part is stored; the private key never leaves the authenticator.
 */
export interface WebauthnCredentialDoc {
  tenantId: number;
  userId: string;
  /** The credential ID (base64url), as the authenticator returned it; unique per tenant. */
  credentialId: string;
  /** The COSE public key (base64url). */
  publicKey: string;
  /** The signature counter (WebAuthn L3 section 6.1.1): 0 for authenticators that do not count (synced passkeys). */
  counter: number;
  /** AuthenticatorTransport hints the browser reported at registration (usb, nfc, ble, internal, hybrid). */
  transports: string[];
  /** `singleDevice`: device-bound; `multiDevice`: may be synced (backup eligible, WebAuthn L3 section 6.1 BE flag). */
  deviceType: 'singleDevice' | 'multiDevice';
  /** The BS flag of the last ceremony: the key is backed up (synced) now. */
  backedUp: boolean;
  /** The user's name for it ("Laptop", "Phone"). */
  name: string;
  /** The attestation statement format the authenticator sent (`none` unless the tenant asks for attestation). */
  attestationFormat: string;
  /** The authenticator's AAGUID (all zeros when attestation is `none`). */
  aaguid: string;
  /** True only when the tenant asked for attestation and its statement verified (never with attestation `none`). */
  attestationVerified: boolean;
  createdAt: Date;
  lastUsedAt?: Date;
}

export const webauthnCredentialSchema = new Schema<WebauthnCredentialDoc>(
  {
    tenantId: { type: Number, required: true },
    userId: { type: String, required: true },
    credentialId: { type: String, required: true },
    publicKey: { type: String, required: true },
    counter: { type: Number, required: true, default: 0 },
    transports: { type: [String], default: [] },
    deviceType: { type: String, enum: ['singleDevice', 'multiDevice'], required: true },
    backedUp: { type: Boolean, default: false },
    name: { type: String, required: true },
    attestationFormat: { type: String, default: 'none' },
    aaguid: { type: String, default: '00000000-0000-0000-0000-000000000000' },
    attestationVerified: { type: Boolean, default: false },
    lastUsedAt: { type: Date },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'webauthn_credentials', versionKey: false },
);
webauthnCredentialSchema.index({ tenantId: 1, credentialId: 1 }, { unique: true });
webauthnCredentialSchema.index({ tenantId: 1, userId: 1 });

/** What a stored single-use WebAuthn value is for. */
export type WebauthnChallengePurpose = 'register' | 'authenticate' | 'enrolment-link';

/**
 * A single-use WebAuthn challenge (WebAuthn L3 section 13.4.3: random, used once), or the SHA-256 digest of a
 * one-time enrolment link. Stored so that any replica can consume it, exactly once (findOneAndDelete), until
 * `expiresAt` (a TTL index removes the rest).
 */
export interface WebauthnChallengeDoc {
  tenantId: number;
  purpose: WebauthnChallengePurpose;
  /** The challenge (base64url), or the link secret's digest (hex). */
  value: string;
  /** The user the ceremony is for (registration, step-up, enrolment link); absent for a discoverable sign-in. */
  userId?: string;
  /** The login interaction a sign-in challenge belongs to. */
  interactionUid?: string;
  expiresAt: Date;
  createdAt: Date;
}

export const webauthnChallengeSchema = new Schema<WebauthnChallengeDoc>(
  {
    tenantId: { type: Number, required: true },
    purpose: { type: String, enum: ['register', 'authenticate', 'enrolment-link'], required: true },
    value: { type: String, required: true },
    userId: { type: String },
    interactionUid: { type: String },
    expiresAt: { type: Date, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'webauthn_challenges', versionKey: false },
);
webauthnChallengeSchema.index({ tenantId: 1, purpose: 1, value: 1 }, { unique: true });
webauthnChallengeSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/** One recovery code of a user: its salted scrypt digest only; the code itself is shown once, at enrolment. */
export interface PasskeyRecoveryCodeDoc {
  tenantId: number;
  userId: string;
  /** scrypt (hex) of the normalised code, salted with tenant and user (oidc-core passkeys/recovery-codes.ts). */
  digest: string;
  createdAt: Date;
}

export const passkeyRecoveryCodeSchema = new Schema<PasskeyRecoveryCodeDoc>(
  {
    tenantId: { type: Number, required: true },
    userId: { type: String, required: true },
    digest: { type: String, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'passkey_recovery_codes', versionKey: false },
);
passkeyRecoveryCodeSchema.index({ tenantId: 1, userId: 1, digest: 1 }, { unique: true });
