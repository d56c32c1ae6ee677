import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import { insertClient, type ClientDoc, type Models } from '@idp/db';
import { CIBA_MODEL } from './ciba/pending';
import { firstTimeFor } from './single-use';
import { clientMetadata } from './client-metadata';
import { dynamicClientRecord, type TenantRegistration } from './registration';
import { RECORD_CACHE_MS, recordCache } from './record-cache';

/** Records redeemed once at the token endpoint, and what an error calls them. */
const REDEEMED_ONCE = new Map([
  ['AuthorizationCode', 'authorization code'],
  ['DeviceCode', 'device code'],
  [CIBA_MODEL, 'backchannel authentication request'],
]);
/** How long the redemption marker of a code or device code is kept (both expire well before). */
const REDEMPTION_MARKER_MS = 15 * 60_000;

const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);

/**
 * node-oidc-provider's storage, partitioned by tenant: one MongoDB collection, `_id` = tenant:model:id,
 * a TTL index on expiresAt. Clients are read from the clients collection (managed by the management API).
 */
export function createAdapterFactory(
  models: Models,
  tenantId: number,
  clientCacheMs = RECORD_CACHE_MS,
  /** A client record as the provider sees it, or undefined where the tenant's profile has no place for it (provider/fapi2.ts). */
  clientView: (doc: ClientDoc) => Record<string, unknown> | undefined = clientMetadata,
  /** Dynamic Client Registration (provider/registration.ts): where registered clients are stored; absent: off. */
  registration?: TenantRegistration,
  /** Told when a grant ends here (its id; undefined: several of the tenant's), after the store has it (ProviderDeps.grantEnded). */
  grantEnded?: GrantEnded,
): (name: string) => Adapter {
  // One cache per provider: evicting the tenant from the pool (invalidation event, pool TTL) drops it too. Every
  // token request looks its client up; this keeps that off MongoDB under load.
  const clients = recordCache<AdapterPayload | undefined>(clientCacheMs);
  return (name: string) =>
    name === 'Client'
      ? new ClientAdapter(models, tenantId, clients, clientView, registration, grantEnded)
      : new MongoAdapter(models, tenantId, name, name === 'Grant' ? grantEnded : undefined);
}

/** Reports that a tenant's grant ended (undefined id: several of them); resolves when reported, never rejects. */
export type GrantEnded = (tenantId: number, grantId: string | undefined) => Promise<void>;

class MongoAdapter implements Adapter {
  constructor(
    private readonly models: Models,
    private readonly tenantId: number,
    private readonly name: string,
    private readonly grantEnded?: GrantEnded,
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
      // A backchannel authentication request (CIBA) names its person and its client while nobody has decided it: the
      // person's pending list, the per-person and per-client limits (provider/ciba/pending.ts). Approved or denied,
      // the record is rewritten without them.
      ...(this.name === 'BackchannelAuthenticationRequest' &&
      typeof payload.accountId === 'string' &&
      !payload.grantId &&
      !payload.error
        ? {
            accountId: payload.accountId,
            ...(typeof payload.clientId === 'string' ? { clientId: payload.clientId } : {}),
          }
        : {}),
    };
    await this.models.OidcPayload.replaceOne({ _id: this.key(id) }, doc, { upsert: true });
  }

  private async findOne(filter: Record<string, unknown>): Promise<AdapterPayload | undefined> {
    const doc = await this.models.OidcPayload.findOne({ tenantId: this.tenantId, model: this.name, ...filter }).lean();
    if (!doc) return undefined;
    // The sweeper runs once a minute: never hand out something that has expired meanwhile. Device codes are the
    // exception: the provider checks their expiry itself and answers `expired_token` (RFC 8628) to a late poll.
    // Backchannel authentication requests likewise (CIBA Core section 11: `expired_token`).
    if (
      doc.expiresAt &&
      doc.expiresAt.getTime() <= Date.now() &&
      this.name !== 'DeviceCode' &&
      this.name !== 'BackchannelAuthenticationRequest'
    )
      return undefined;
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
    // node-oidc-provider reads the record, checks `consumed`, then calls consume: two token requests with the same
    // authorization code, device code or auth_req_id on two replicas could both pass that check. Exactly one redeems
    // it (a unique key: provider/single-use.ts); the other gets invalid_grant (RFC 6749 sections 4.1.2 and 5.2, RFC
    // 8628 section 3.5, CIBA Core section 11). The marker outlives the code (60 s) and the device code (10 min).
    if (
      REDEEMED_ONCE.has(this.name) &&
      !(await firstTimeFor(
        this.models,
        this.tenantId,
        this.name,
        'redeemed',
        id,
        this.name === CIBA_MODEL ? undefined : new Date(Date.now() + REDEMPTION_MARKER_MS),
      ))
    )
      throw new errors.InvalidGrant(`${REDEEMED_ONCE.get(this.name)} already used`);
    await this.models.OidcPayload.updateOne(
      { _id: this.key(id) },
      { $set: { consumed: Math.floor(Date.now() / 1000) } },
    );
  }

  async destroy(id: string): Promise<void> {
    await this.models.OidcPayload.deleteOne({ _id: this.key(id) });
    await this.grantEnded?.(this.tenantId, id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.models.OidcPayload.deleteMany({ tenantId: this.tenantId, grantId });
  }
}

/**
 * The tenant's clients as the provider sees them; a disabled client does not exist for the protocol. Managed clients
 * are read-only here (the management API owns them); with Dynamic Client Registration on, the provider's
 * registration endpoints create, update and delete `registration: "dynamic"` records, held to the tenant's policy.
 */
class ClientAdapter implements Adapter {
  constructor(
    private readonly models: Models,
    private readonly tenantId: number,
    private readonly cache: ReturnType<typeof recordCache<AdapterPayload | undefined>>,
    private readonly view: (doc: ClientDoc) => Record<string, unknown> | undefined,
    private readonly registration?: TenantRegistration,
    private readonly grantEnded?: GrantEnded,
  ) {}

  async find(id: string): Promise<AdapterPayload | undefined> {
    const value = await this.cache(id, () =>
      this.models.Client.findOne({ tenantId: this.tenantId, clientId: id, enabled: true })
        .lean<ClientDoc>()
        .then((doc) => (doc ? (this.view(doc) as AdapterPayload | undefined) : undefined)),
    );
    // The provider may annotate what it gets: hand out a copy, never the cached object.
    return value ? { ...value } : undefined;
  }

  async upsert(id: string, payload: AdapterPayload): Promise<void> {
    if (!this.registration || this.registration.mode === 'off')
      throw new Error('clients are managed through the management API');
    const fields = dynamicClientRecord(this.registration, payload as Record<string, unknown>);
    const existing = await this.models.Client.findOne(
      { tenantId: this.tenantId, clientId: id },
      { registration: 1 },
    ).lean<Pick<ClientDoc, 'registration'> & { _id: unknown }>();
    if (existing && existing.registration !== 'dynamic')
      throw new Error('only dynamically registered clients change through the registration endpoint');
    if (existing) {
      await this.models.Client.updateOne({ _id: existing._id }, { $set: fields });
    } else {
      const created = await insertClient(this.models, {
        ...fields,
        tenantId: this.tenantId,
        clientId: id,
        enabled: true,
        config: { nhe: { delegationEnabled: false, allowedNheIdentifiers: [] } },
      });
      if (!created) throw new Error('client id already taken');
    }
    this.cache.forget(id);
  }
  findByUserCode() {
    return Promise.resolve(undefined);
  }
  findByUid() {
    return Promise.resolve(undefined);
  }
  async consume(): Promise<void> {}
  async destroy(id: string): Promise<void> {
    const doc = await this.models.Client.findOneAndDelete({
      tenantId: this.tenantId,
      clientId: id,
      registration: 'dynamic',
    }).lean();
    if (!doc) throw new Error('only dynamically registered clients are deleted through the registration endpoint');
    this.cache.forget(id);
    // Its users' consents go with it (as the management API's delete does).
    const grants = await this.models.OidcPayload.find(
      {
        tenantId: this.tenantId,
        model: 'Grant',
        payload: { $regex: `"clientId":${JSON.stringify(id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` },
      },
      { _id: 1, payload: 1 },
    ).lean();
    const ids = grants
      .filter((g) => (JSON.parse(g.payload) as { clientId?: unknown }).clientId === id)
      .map((g) => g._id);
    if (ids.length) {
      await this.models.OidcPayload.deleteMany({ tenantId: this.tenantId, model: 'Grant', _id: { $in: ids } });
      await this.grantEnded?.(this.tenantId, undefined);
    }
  }
  async revokeByGrantId(): Promise<void> {}
}
