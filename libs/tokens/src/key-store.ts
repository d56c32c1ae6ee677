import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Models, SigningKeyDoc } from '@idp/db';
import type { KeyEncryptionKey } from './kek';

export type SigningAlg = 'ES256' | 'RS256';

export interface PrivateJwk extends JWK {
  kid: string;
  alg: SigningAlg;
  use: 'sig';
}

export interface TenantKeys {
  /** Private JWKs of active keys, newest first per alg (node-oidc-provider's `jwks` option). */
  signing: PrivateJwk[];
  /**
   * Private JWKs of retired keys still published, marked `key_ops: ["verify"]` so a provider given them keeps them
   * in its JWKS (tokens they signed stay verifiable) but never signs with them.
   */
  retired: PrivateJwk[];
  /** Public JWKs of every key still published (active and retired-but-unexpired). */
  publicJwks: { keys: JWK[] };
}

const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;

function toPublic(jwk: JWK): JWK {
  const out: JWK = {};
  for (const k of PUBLIC_MEMBERS) if (jwk[k] !== undefined) (out as Record<string, unknown>)[k] = jwk[k];
  return out;
}

const aad = (tenantId: number, kid: string) => `tenant:${tenantId}:kid:${kid}`;

/**
 * Per-tenant signing keys in MongoDB, private halves sealed with the key-encryption key. oidc-core and the
 * sidecar both read them, so ordinary and NHE access tokens share signature, kid and JWKS.
 */
export class KeyStore {
  constructor(
    private readonly models: Models,
    /** Also seals other secrets at rest (TOTP secrets, totp-secret.ts); it never exposes the raw key. */
    readonly kek: KeyEncryptionKey,
  ) {}

  /** Creates one active ES256 and one RS256 key for a tenant that has none (idempotent per alg). */
  async ensureKeys(tenantId: number): Promise<void> {
    for (const alg of ['ES256', 'RS256'] as const) {
      const existing = await this.models.SigningKey.exists({ tenantId, alg, status: 'active' });
      if (!existing) await this.createKey(tenantId, alg);
    }
  }

  async createKey(tenantId: number, alg: SigningAlg): Promise<SigningKeyDoc> {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
    const kid = `${tenantId}-${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`;
    const jwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' as const };
    const doc: SigningKeyDoc = {
      tenantId,
      kid,
      alg,
      status: 'active',
      publicJwk: toPublic(jwk) as Record<string, unknown>,
      encryptedPrivateJwk: this.kek.encrypt(JSON.stringify(jwk), aad(tenantId, kid)),
      createdAt: new Date(),
    };
    await this.models.SigningKey.create(doc);
    return doc;
  }

  /**
   * Retires the active key of `alg` and creates a new one. The retired key stays in the JWKS for
   * `publishForSeconds` (the longest lifetime of anything it signed).
   */
  async rotate(tenantId: number, alg: SigningAlg, publishForSeconds: number): Promise<SigningKeyDoc> {
    const now = new Date();
    const created = await this.createKey(tenantId, alg);
    await this.models.SigningKey.updateMany(
      { tenantId, alg, status: 'active', kid: { $ne: created.kid } },
      { $set: { status: 'retired', retiredAt: now, publishUntil: new Date(now.getTime() + publishForSeconds * 1000) } },
    );
    return created;
  }

  async load(tenantId: number, now = new Date()): Promise<TenantKeys> {
    const docs = await this.models.SigningKey.find({
      tenantId,
      $or: [{ status: 'active' }, { status: 'retired', publishUntil: { $gt: now } }],
    })
      .sort({ createdAt: -1 })
      .lean();
    const open = (d: (typeof docs)[number]) => JSON.parse(this.kek.decrypt(d.encryptedPrivateJwk, aad(tenantId, d.kid))) as PrivateJwk;
    const signing = docs.filter((d) => d.status === 'active').map(open);
    const retired = docs.filter((d) => d.status !== 'active').map((d) => ({ ...open(d), key_ops: ['verify'] }));
    return { signing, retired, publicJwks: { keys: docs.map((d) => d.publicJwk as JWK) } };
  }
}
