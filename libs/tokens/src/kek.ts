import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Key-encryption key: AES-256-GCM over private JWKs at rest. The configured secret (>= 32 chars, from a
 * Kubernetes Secret) is stretched with SHA-256 to the 32-byte AES key.
 */
export class KeyEncryptionKey {
  readonly #key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('the key-encryption key must be at least 32 characters');
    this.#key = createHash('sha256').update(`idp-kek:${secret}`).digest();
  }

  encrypt(plaintext: string, associatedData: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url')).join('.');
  }

  decrypt(sealed: string, associatedData: string): string {
    // Fewer than three parts: the missing ones are undefined.
    const [iv, tag, ciphertext] = sealed.split('.').map((p) => Buffer.from(p, 'base64url')) as Array<
      Buffer | undefined
    >;
    if (!iv || !tag || !ciphertext) throw new Error('malformed sealed value');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  }
}

/**
 * Client secrets are high-entropy random values, so a keyed SHA-256 (HMAC) is the right digest: a leaked
 * database does not reveal them, and checking one costs microseconds instead of a password hash.
 */
export function clientSecretDigest(pepper: string, secret: string): string {
  return createHmac('sha256', pepper).update(secret, 'utf8').digest('hex');
}

/** A new client secret: 256 bits, base64url. */
export function generateClientSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time string comparison (lengths are compared in constant time via digests). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
