/**
 * A software WebAuthn authenticator for the tests: a real client of the real server. It makes an ES256 key pair and
 * builds what a browser and authenticator send, by hand, per Web Authentication Level 3:
 * - registration (section 6.1, 6.5): authenticator data with attested credential data (AAGUID, credential ID, the
 *   COSE_Key of RFC 9053), an attestation object `{fmt: "none", attStmt: {}, authData}` in CBOR (RFC 8949), and the
 *   clientDataJSON (section 5.8.1) of type webauthn.create;
 * - assertion (section 6.3.3, 7.2): authenticator data (rpIdHash, flags, signCount) and an ECDSA P-256 SHA-256
 *   signature (DER) over authenticatorData || SHA-256(clientDataJSON), clientDataJSON of type webauthn.get.
 * Each knob (RP ID, origin, UV flag, backup flags, counter) can be set wrong on purpose.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/** A minimal CBOR encoder (RFC 8949): unsigned/negative integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const b = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (value instanceof Map) {
    const parts: Buffer[] = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: unsupported ${typeof value}`);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64u = (b: Buffer) => b.toString('base64url');

export interface AuthenticatorOptions {
  /** User verification performed (UV flag, section 6.1 bit 2). Default true. */
  userVerified?: boolean;
  /** Backup eligible and backed up (BE/BS flags, bits 3 and 4): a synced passkey. Default false (device-bound). */
  synced?: boolean;
  /** Signature counter behaviour: `count` increments per use (default), `zero` always reports 0. */
  counter?: 'count' | 'zero';
  /**
   * Attestation statement at registration (section 8): `none` (default), or `packed` self attestation (section 8.2:
   * no certificate, signed with the credential's own key), which proves nothing about the authenticator.
   */
  attestation?: 'none' | 'packed-self';
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  userHandle?: string;
  counter = 0;

  constructor(readonly o: AuthenticatorOptions = {}) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  private flags(extra: number): number {
    const uv = this.o.userVerified ?? true;
    // UP (bit 0) always; UV bit 2; BE bit 3, BS bit 4 for a synced passkey.
    return 0x01 | (uv ? 0x04 : 0) | (this.o.synced ? 0x18 : 0) | extra;
  }

  private signCount(): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(this.o.counter === 'zero' ? 0 : this.counter);
    return b;
  }

  /** The COSE_Key (RFC 9053 section 7.1: kty EC2, alg ES256, crv P-256, x, y). */
  private coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' }) as { x: string; y: string };
    return cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x, 'base64url')],
        [-3, Buffer.from(jwk.y, 'base64url')],
      ]),
    );
  }

  /** navigator.credentials.create() answering `options` (PublicKeyCredentialCreationOptionsJSON). */
  register(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    origin: string,
    o: { rpId?: string; origin?: string } = {},
  ): Record<string, unknown> {
    this.userHandle = options.user.id;
    const rpId = o.rpId ?? options.rp.id!;
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.create',
        challenge: options.challenge,
        origin: o.origin ?? origin,
        crossOrigin: false,
      }),
    );
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([this.flags(0x40)]),
      this.signCount(),
      Buffer.alloc(16), // AAGUID: zeros (attestation none)
      idLen,
      this.credentialId,
      this.coseKey(),
    ]);
    const selfAttested = this.o.attestation === 'packed-self';
    const attStmt = selfAttested
      ? new Map<string, unknown>([
          ['alg', -7],
          ['sig', sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey)],
        ])
      : new Map();
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', selfAttested ? 'packed' : 'none'],
        ['attStmt', attStmt],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get() answering `options` (PublicKeyCredentialRequestOptionsJSON). */
  assert(
    options: { challenge: string; rpId?: string },
    origin: string,
    o: { rpId?: string; origin?: string; counter?: number } = {},
  ): Record<string, unknown> {
    if (o.counter !== undefined) this.counter = o.counter;
    else if (this.o.counter !== 'zero') this.counter += 1;
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: o.origin ?? origin,
        crossOrigin: false,
      }),
    );
    const authData = Buffer.concat([sha256(o.rpId ?? options.rpId!), Buffer.from([this.flags(0)]), this.signCount()]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      clientExtensionResults: {},
    };
  }
}
