import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Model } from 'mongoose';

/**
 * The record these stores read and write: structurally libs/db's `SamlRequestCacheDoc` (collection
 * `saml_request_cache`, unique on tenantId+providerAlias+kind+key, TTL on expiresAt). Declared here, by its consumer,
 * so this module needs only a mongoose Model of that shape.
 */
export interface SamlCacheRecord {
  tenantId: number;
  providerAlias: string;
  kind: 'request' | 'consumed' | 'logout';
  key: string;
  value: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface SamlScope {
  tenantId: number;
  providerAlias: string;
}

/** AuthnRequest IDs we sent and still await an answer to, per tenant and IdP. */
export interface PendingRequests {
  /** Records `requestId`; false when it already exists. */
  save(scope: SamlScope, requestId: string, issuedAt: Date, ttlMs: number): Promise<boolean>;
  /** When the request was issued, or null if unknown, expired or of another tenant/IdP. */
  get(scope: SamlScope, requestId: string): Promise<Date | null>;
  remove(scope: SamlScope, requestId: string): Promise<void>;
}

/** Single-use keys (assertion IDs, answered request IDs), per tenant and IdP, kept until `expiresAt`. */
export interface ConsumedAssertions {
  /** True when the key was new (and is now recorded); false when it was already consumed. Atomic across replicas. */
  consume(scope: SamlScope, key: string, expiresAt: Date): Promise<boolean>;
  isConsumed(scope: SamlScope, key: string): Promise<boolean>;
}

export interface SamlStores {
  pending: PendingRequests;
  consumed: ConsumedAssertions;
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

/** Both stores over one collection. Reads compare `expiresAt` themselves: a server without TTL keeps expired rows. */
export function mongoSamlStores(model: Model<SamlCacheRecord>): SamlStores {
  const live = (scope: SamlScope, kind: SamlCacheRecord['kind'], key: string) => ({
    tenantId: scope.tenantId,
    providerAlias: scope.providerAlias,
    kind,
    key,
    expiresAt: { $gt: new Date() },
  });
  /** Inserts; an expired row under the same key (not yet reaped) is replaced first. */
  const insertOnce = async (
    scope: SamlScope,
    kind: SamlCacheRecord['kind'],
    key: string,
    value: string,
    expiresAt: Date,
  ) => {
    const id = { tenantId: scope.tenantId, providerAlias: scope.providerAlias, kind, key };
    await model.deleteOne({ ...id, expiresAt: { $lte: new Date() } });
    try {
      await model.collection.insertOne({ ...id, value, createdAt: new Date(), expiresAt });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  };
  return {
    pending: {
      save: (scope, requestId, issuedAt, ttlMs) =>
        insertOnce(scope, 'request', requestId, issuedAt.toISOString(), new Date(issuedAt.getTime() + ttlMs)),
      async get(scope, requestId) {
        const row = await model.findOne(live(scope, 'request', requestId), { value: 1 }).lean();
        return row ? new Date(row.value) : null;
      },
      async remove(scope, requestId) {
        await model.deleteOne({
          tenantId: scope.tenantId,
          providerAlias: scope.providerAlias,
          kind: 'request',
          key: requestId,
        });
      },
    },
    consumed: {
      consume: (scope, key, expiresAt) => insertOnce(scope, 'consumed', key, '1', expiresAt),
      async isConsumed(scope, key) {
        return (await model.exists(live(scope, 'consumed', key))) !== null;
      },
    },
  };
}

/**
 * node-saml's CacheProvider over the pending store, bound to one tenant and IdP: node-saml saves the AuthnRequest ID
 * when it builds the request, and on the Response checks InResponseTo with getAsync (value: the ISO issue instant,
 * compared with requestIdExpirationPeriodMs) and removes it. A key of another tenant or IdP is simply absent here.
 */
export function pendingCacheProvider(pending: PendingRequests, scope: SamlScope, ttlMs: number): CacheProvider {
  return {
    async saveAsync(key: string, value: string): Promise<CacheItem | null> {
      const issuedAt = new Date(value);
      const at = Number.isNaN(issuedAt.getTime()) ? new Date() : issuedAt;
      return (await pending.save(scope, key, at, ttlMs)) ? { value, createdAt: at.getTime() } : null;
    },
    async getAsync(key: string): Promise<string | null> {
      return (await pending.get(scope, key))?.toISOString() ?? null;
    },
    async removeAsync(key: string | null): Promise<string | null> {
      if (key === null) return null;
      await pending.remove(scope, key);
      return key;
    },
  };
}
