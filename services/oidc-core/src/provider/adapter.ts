import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { ClientDoc, Models } from '@idp/db';
import { clientMetadata } from './client-metadata';

const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/**
 * node-oidc-provider's storage, partitioned by tenant: one MongoDB collection, `_id` = tenant:model:id,
 * a TTL index on expiresAt. Clients are read from the clients collection (managed by the management API).
 */
export function createAdapterFactory(models: Models, tenantId: number, clientCacheMs = CLIENT_CACHE_MS): (name: string) => Adapter {
  // One cache per provider: evicting the tenant from the pool (invalidation event, pool TTL) drops it too.
  const clientCache = new Map<string, { at: number; value: Promise<AdapterPayload | undefined> }>();
  return (name: string) => (name === 'Client' ? new ClientAdapter(models, tenantId, clientCache, clientCacheMs) : new MongoAdapter(models, tenantId, name));
}

/**
 * How long a client record read from the store is reused. Every token request looks its client up; this keeps
 * that off MongoDB under load while a changed or disabled client still takes effect within seconds even when no
 * invalidation event arrives (the event itself rebuilds the tenant's provider at once).
 */
export const CLIENT_CACHE_MS = 5_000;
const CLIENT_CACHE_MAX = 1_000;

class MongoAdapter implements Adapter {
  constructor(
    private readonly models: Models,
    private readonly tenantId: number,
    private readonly name: string,
  ) {}

  private key(id: string): string {
    return `${this.tenantId}:${this.name}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const doc = {
      tenantId: this.tenantId,
      model: this.name,
      // Stored as JSON text: payloads have keys with dots (resource URLs, client ids) that BSON stores refuse.
      payload: JSON.stringify(payload),
      ...(expiresIn ? { expiresAt: new Date(Date.now() + expiresIn * 1000) } : {}),
      ...(GRANTABLE.has(this.name) && payload.grantId ? { grantId: payload.grantId } : {}),
      ...(this.name === 'DeviceCode' && payload.userCode ? { userCode: payload.userCode } : {}),
      ...(this.name === 'Session' && payload.uid ? { uid: payload.uid } : {}),
    };
    await this.models.OidcPayload.replaceOne({ _id: this.key(id) }, doc, { upsert: true });
  }

  private async findOne(filter: Record<string, unknown>): Promise<AdapterPayload | undefined> {
    const doc = await this.models.OidcPayload.findOne({ tenantId: this.tenantId, model: this.name, ...filter }).lean();
    if (!doc) return undefined;
    // The sweeper runs once a minute: never hand out something that has expired meanwhile. Device codes are the
    // exception: the provider checks their expiry itself and answers `expired_token` (RFC 8628) to a late poll.
    if (doc.expiresAt && doc.expiresAt.getTime() <= Date.now() && this.name !== 'DeviceCode') return undefined;
    return { ...(JSON.parse(doc.payload) as AdapterPayload), ...(doc.consumed ? { consumed: doc.consumed } : {}) };
  }

  find(id: string) {
    return this.findOne({ _id: this.key(id) });
  }

  findByUserCode(userCode: string) {
    return this.findOne({ userCode });
  }

  findByUid(uid: string) {
    return this.findOne({ uid });
  }

  async consume(id: string): Promise<void> {
    await this.models.OidcPayload.updateOne({ _id: this.key(id) }, { $set: { consumed: Math.floor(Date.now() / 1000) } });
  }

  async destroy(id: string): Promise<void> {
    await this.models.OidcPayload.deleteOne({ _id: this.key(id) });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.models.OidcPayload.deleteMany({ tenantId: this.tenantId, grantId });
  }
}

/** Read-only view of the tenant's clients; a disabled client does not exist for the protocol. */
class ClientAdapter implements Adapter {
  constructor(
    private readonly models: Models,
    private readonly tenantId: number,
    private readonly cache: Map<string, { at: number; value: Promise<AdapterPayload | undefined> }>,
    private readonly cacheMs: number,
  ) {}

  find(id: string): Promise<AdapterPayload | undefined> {
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < this.cacheMs) return hit.value.then((v) => (v ? { ...v } : undefined));
    const value = this.models.Client.findOne({ tenantId: this.tenantId, clientId: id, enabled: true })
      .lean<ClientDoc>()
      .then((doc) => (doc ? (clientMetadata(doc) as AdapterPayload) : undefined));
    if (this.cache.size >= CLIENT_CACHE_MAX) this.cache.clear();
    this.cache.set(id, { at: Date.now(), value });
    value.catch(() => this.cache.delete(id));
    return value.then((v) => (v ? { ...v } : undefined));
  }

  async upsert(): Promise<void> {
    throw new Error('clients are managed through the management API');
  }
  async findByUserCode() {
    return undefined;
  }
  async findByUid() {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {
    throw new Error('clients are managed through the management API');
  }
  async revokeByGrantId(): Promise<void> {}
}
