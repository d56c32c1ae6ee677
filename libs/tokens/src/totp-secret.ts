/**
 * TOTP secrets at rest (RFC 6238 shared secrets). A user's secret is stored only sealed with the key-encryption
 * key (AES-256-GCM, see kek.ts), with associated data binding it to its tenant and user: a sealed value copied to
 * another user or tenant does not open. Management seals at enrolment; oidc-core opens at sign-in. The clear
 * base32 secret is shown once, in the enrolment response, and never logged.
 */
import { randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from './kek';

/** RFC 4226 section 4: at least 128 bits, 160 recommended (the length of an HMAC-SHA-1 key). */
export const TOTP_SECRET_BYTES = 20;

const BASE32_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** Unpadded RFC 4648 base32, as authenticator apps take it (16 to 128 characters). */
export const BASE32_SECRET = /^[A-Z2-7]{16,128}$/;

/** RFC 4648 base32 without padding. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32_ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** A new random TOTP secret, base32 (160 bits: 32 characters). */
export function generateTotpSecret(): string {
  return base32Encode(randomBytes(TOTP_SECRET_BYTES));
}

const totpAad = (tenantId: number, userId: string) => `tenant:${tenantId}:user:${userId}:totp`;

/** The value stored in `users.totpSecret` for a base32 secret of user `userId` of tenant `tenantId`. */
export function sealTotpSecret(kek: KeyEncryptionKey, tenantId: number, userId: string, secret: string): string {
  if (!BASE32_SECRET.test(secret)) throw new Error('a TOTP secret is 16 to 128 base32 characters');
  return kek.encrypt(secret, totpAad(tenantId, userId));
}

/**
 * The base32 secret of a stored value. Throws when the value was not sealed for this tenant and user with this
 * key (including a legacy plain base32 value): callers treat that as "no valid code", never as a bypass.
 */
export function openTotpSecret(kek: KeyEncryptionKey, tenantId: number, userId: string, sealed: string): string {
  const secret = kek.decrypt(sealed, totpAad(tenantId, userId));
  if (!BASE32_SECRET.test(secret)) throw new Error('the sealed TOTP secret is not base32');
  return secret;
}

/** Parameters every authenticator app must use (RFC 6238 defaults; what oidc-core verifies). */
export const TOTP_PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;

/**
 * The `otpauth://totp/...` URI of the Key URI Format authenticator apps read from a QR code: label
 * `issuer:account`, with `issuer` repeated as a parameter.
 */
export function totpUri(o: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(o.issuer)}:${encodeURIComponent(o.account)}`;
  const q = new URLSearchParams({
    secret: o.secret,
    issuer: o.issuer,
    algorithm: TOTP_PARAMETERS.algorithm,
    digits: String(TOTP_PARAMETERS.digits),
    period: String(TOTP_PARAMETERS.period),
  });
  return `otpauth://totp/${label}?${q.toString().replace(/\+/g, '%20')}`;
}
