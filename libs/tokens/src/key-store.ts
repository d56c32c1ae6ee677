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
 * How long a key that lost a creation race (`ensureKeys`) stays published: it was active for the moment of the race
 * and may have signed a token then. A day covers the longest token lifetime a tenant can set (a resource server's
 * access tokens, at most 86,400 s).
 */
const RACE_LOSER_PUBLISH_SECONDS = 24 * 3600;

/** The order signing keys are used in: newest first, by creation time and then kid (every process agrees). */
function newestFirst(a: Pick<SigningKeyDoc, 'createdAt' | 'kid'>, b: Pick<SigningKeyDoc, 'createdAt' | 'kid'>): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a.kid < b.kid ? 1 : a.kid > b.kid ? -1 : 0);
}

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

  /**
   * Creates one active ES256 and one RS256 key for a tenant that has none (idempotent per alg). Every replica of
   * oidc-core and management calls it for a tenant it starts serving, so several may create a key at once: they
   * settle on one (`settle`), and a key that lost stays published for `RACE_LOSER_PUBLISH_SECONDS`.
   */
  async ensureKeys(tenantId: number): Promise<void> {
    for (const alg of ['ES256', 'RS256'] as const) {
      const existing = await this.models.SigningKey.exists({ tenantId, alg, status: 'active' });
      if (existing) continue;
      await this.createKey(tenantId, alg);
      await this.settle(tenantId, alg, RACE_LOSER_PUBLISH_SECONDS);
    }
  }

  async createKey(tenantId: number, alg: SigningAlg, createdAt = new Date()): Promise<SigningKeyDoc> {
    const { privateKey } = await generateKeyPair(alg, {
      extractable: true,
      ...(alg === 'RS256' ? { modulusLength: 2048 } : {}),
    });
    const kid = `${tenantId}-${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`;
    const jwk = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' as const };
    const doc: SigningKeyDoc = {
      tenantId,
      kid,
      alg,
      status: 'active',
      publicJwk: toPublic(jwk) as Record<string, unknown>,
      encryptedPrivateJwk: this.kek.encrypt(JSON.stringify(jwk), aad(tenantId, kid)),
      createdAt,
    };
    await this.models.SigningKey.create(doc);
    return doc;
  }

  /**
   * Retires the active key of `alg` and creates a new one. The retired key stays in the JWKS for
   * `publishForSeconds` (the longest lifetime of anything it signed). Rotations that run at once leave one active
   * key, the newest: `active` is the key in use afterwards, `created` the one this call made (the same key unless
   * a concurrent rotation's key is newer).
   */
  async rotate(
    tenantId: number,
    alg: SigningAlg,
    publishForSeconds: number,
  ): Promise<{ created: SigningKeyDoc; active: SigningKeyDoc }> {
    // "Newest" is by creation time, stamped by whichever replica creates the key: a replica whose clock is behind
    // the one that created the current key must still make a newer one, or the rotation would retire its own key
    // and leave the old one (perhaps compromised) in use.
    // at(0): undefined when the tenant has no active key of alg.
    const current = (await this.models.SigningKey.find({ tenantId, alg, status: 'active' }).lean<SigningKeyDoc[]>())
      .sort(newestFirst)
      .at(0);
    const now = Date.now();
    const createdAt = new Date(current && current.createdAt.getTime() >= now ? current.createdAt.getTime() + 1 : now);
    const created = await this.createKey(tenantId, alg, createdAt);
    return { created, active: await this.settle(tenantId, alg, publishForSeconds) };
  }

  /**
   * Leaves one active key of `alg`, the newest (creation time, then kid), and retires the others, published for
   * `publishForSeconds`. Racing writers converge without a lock (there are no transactions on FerretDB): each
   * retires only keys older than the newest it sees, so the newest key of all is never retired, and its writer,
   * having read after inserting it, sees and retires every key older than its own that the others kept.
   */
  private async settle(tenantId: number, alg: SigningAlg, publishForSeconds: number): Promise<SigningKeyDoc> {
    const active = await this.models.SigningKey.find({ tenantId, alg, status: 'active' }).lean<SigningKeyDoc[]>();
    const sorted = active.sort(newestFirst);
    const newest = sorted.at(0); // undefined when no key is active
    const older = sorted.slice(1);
    if (!newest) throw new Error(`tenant ${tenantId} has no active ${alg} key`);
    if (older.length) {
      const now = new Date();
      await this.models.SigningKey.updateMany(
        { tenantId, kid: { $in: older.map((k) => k.kid) }, status: 'active' },
        {
          $set: { status: 'retired', retiredAt: now, publishUntil: new Date(now.getTime() + publishForSeconds * 1000) },
        },
      );
    }
    return newest;
  }

  async load(tenantId: number, now = new Date()): Promise<TenantKeys> {
    const docs = await this.models.SigningKey.find({
      tenantId,
      $or: [{ status: 'active' }, { status: 'retired', publishUntil: { $gt: now } }],
    }).lean();
    docs.sort(newestFirst);
    const open = (d: (typeof docs)[number]) =>
      JSON.parse(this.kek.decrypt(d.encryptedPrivateJwk, aad(tenantId, d.kid))) as PrivateJwk;
    const signing = docs.filter((d) => d.status === 'active').map(open);
    const retired = docs.filter((d) => d.status !== 'active').map((d) => ({ ...open(d), key_ops: ['verify'] }));
    return { signing, retired, publicJwks: { keys: docs.map((d) => d.publicJwk as JWK) } };
  }
}
