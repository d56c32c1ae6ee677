import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { NatsConnection } from '@nats-io/transport-node';
import { onNatsStatus } from './jetstream';
import type { Logger } from '@idp/logger';
import { NHE_MAX_TTL_SECONDS } from '@idp/tokens';

/**
 * Kill switch for NHE delegation tokens: issued tokens must stop working within seconds, not at their expiry.
 *
 * NHE tokens are self-contained JWTs; disabling an NHE, deleting a policy or turning a client's delegation off must
 * also make tokens ALREADY issued fail "within seconds". The management API publishes a deny-list entry on
 * `idp.nhe.revoked.<tenantId>` (core NATS, fan-out to every replica); every verifier (oidc-core introspection, the
 * resource-server kit) keeps an in-memory {@link DenyList} fed by {@link subscribeRevocations}.
 *
 * An entry revokes every NHE token of its tenant that matches ALL the selectors it names (nheIdentifier, jti,
 * clientNumericId = azp, subject = sub) and was issued at or before `revokedAt` (tokens minted after a re-enable are
 * not affected). An entry without selectors revokes every NHE token of the tenant (tenant feature switched off).
 * Entries are kept until `expiresAt` = revokedAt + the longest lifetime an NHE token of that tenant can have
 * (hardMaxTokenLifetime, default 900 s) + clock skew; after that every token they could match has expired anyway.
 *
 * Durability: core NATS is fire-and-forget, so a verifier that is disconnected or restarting would miss an entry.
 * Publishers therefore also write the entry to MongoDB (collection `nhe_revocations`, see {@link revocationStore});
 * {@link startDenyList} loads the active entries at start, on every NATS reconnect and every `reloadIntervalMs`.
 */

export const REVOCATION_SUBJECT_PREFIX = 'idp.nhe.revoked';
export const REVOCATION_SUBJECT_WILDCARD = `${REVOCATION_SUBJECT_PREFIX}.*`;
export const revocationSubject = (tenantId: number) => `${REVOCATION_SUBJECT_PREFIX}.${tenantId}`;
/** Collection that persists entries (plain collection: FerretDB has no TTL indexes, expired rows are pruned by code). */
export const REVOCATION_COLLECTION = 'nhe_revocations';

/** Longest lifetime an NHE token can have when the tenant's hardMaxTokenLifetime is unknown (spec "Limits"). */
export const DEFAULT_MAX_NHE_TOKEN_LIFETIME_SECONDS = NHE_MAX_TTL_SECONDS;
/** Added to the retention of an entry so a verifier with a skewed clock still rejects the token. */
export const REVOCATION_CLOCK_SKEW_SECONDS = 60;

/** Reasons the management API uses; other strings are accepted (forward compatible), these are the known ones. */
export type RevocationReason =
  | 'nhe.disabled'
  | 'nhe.deleted'
  | 'policy.deleted'
  | 'policy.updated'
  | 'client.delegation.disabled'
  | 'client.deleted'
  | 'tenant.nhe.disabled'
  | 'token.revoked'
  /** A trusted issuer (another organisation) revoked what the token was minted from (its Shared Signals). */
  | 'issuer.revoked';

export const revocationEntrySchema = z
  .object({
    /** Unique id of the entry (dedupes the NATS copy against the MongoDB copy). */
    id: z.string().min(1).max(128),
    tenantId: z.number().int().nonnegative(),
    nheIdentifier: z.string().min(1).max(256).optional(),
    jti: z.string().min(1).max(128).optional(),
    /** The token's azp (numeric client id). */
    clientNumericId: z.number().int().optional(),
    /** The token's sub (the delegating user). */
    subject: z.string().min(1).max(256).optional(),
    reason: z.string().min(1).max(200),
    revokedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  })
  .strict();

export type RevocationEntry = z.infer<typeof revocationEntrySchema>;

export interface RevocationInput {
  /**
   * Default: a random UUID. A publisher that may produce the same entry twice (a Shared Signals event delivered again)
   * derives it from what the entry stands for, so the store's unique `_id` keeps one.
   */
  id?: string;
  tenantId: number;
  nheIdentifier?: string;
  jti?: string;
  clientNumericId?: number;
  subject?: string;
  reason: RevocationReason | (string & {});
  /** Default: now. */
  revokedAt?: Date;
  /** Default: revokedAt + maxTokenLifetimeSeconds + clock skew. */
  expiresAt?: Date;
  /** The tenant's hardMaxTokenLifetime; default 900. Ignored when expiresAt is given. */
  maxTokenLifetimeSeconds?: number;
}

export function buildRevocationEntry(input: RevocationInput): RevocationEntry {
  const revokedAt = input.revokedAt ?? new Date();
  // Never shorter than the spec's 15-minute ceiling: the tenant's hardMaxTokenLifetime may just have been lowered
  // (even in the same change), while tokens issued under the old value are still alive.
  const lifetime = Math.max(
    input.maxTokenLifetimeSeconds ?? DEFAULT_MAX_NHE_TOKEN_LIFETIME_SECONDS,
    DEFAULT_MAX_NHE_TOKEN_LIFETIME_SECONDS,
  );
  const expiresAt =
    input.expiresAt ?? new Date(revokedAt.getTime() + (lifetime + REVOCATION_CLOCK_SKEW_SECONDS) * 1000);
  const entry: RevocationEntry = {
    id: input.id ?? randomUUID(),
    tenantId: input.tenantId,
    ...(input.nheIdentifier !== undefined ? { nheIdentifier: input.nheIdentifier } : {}),
    ...(input.jti !== undefined ? { jti: input.jti } : {}),
    ...(input.clientNumericId !== undefined ? { clientNumericId: input.clientNumericId } : {}),
    ...(input.subject !== undefined ? { subject: input.subject } : {}),
    reason: input.reason,
    revokedAt: revokedAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  return revocationEntrySchema.parse(entry);
}

/** Structural subset of a MongoDB (driver or mongoose) collection: pass `connection.collection(REVOCATION_COLLECTION)`. */
export interface RevocationCollection {
  insertOne(doc: Record<string, unknown>): Promise<unknown>;
  find(filter: Record<string, unknown>): { toArray(): Promise<unknown[]> };
  deleteMany(filter: Record<string, unknown>): Promise<unknown>;
}

export interface RevocationStore {
  save(entry: RevocationEntry): Promise<void>;
  /** Entries not yet expired at `now`, of one tenant when `tenantId` is given. */
  active(now?: Date, tenantId?: number): Promise<RevocationEntry[]>;
  /** Deletes expired entries; returns nothing (FerretDB has no TTL index). */
  prune(now?: Date): Promise<void>;
}

/** MongoDB-backed store. Rows: { _id: entry.id, tenantId, expiresAt: Date, entry }. */
export function revocationStore(collection: RevocationCollection): RevocationStore {
  return {
    async save(entry) {
      await collection.insertOne({
        _id: entry.id,
        tenantId: entry.tenantId,
        expiresAt: new Date(entry.expiresAt),
        entry,
      });
    },
    async active(now = new Date(), tenantId?: number) {
      const rows = await collection
        .find({ expiresAt: { $gt: now }, ...(tenantId !== undefined ? { tenantId } : {}) })
        .toArray();
      const out: RevocationEntry[] = [];
      for (const row of rows) {
        const parsed = revocationEntrySchema.safeParse((row as { entry?: unknown }).entry);
        if (parsed.success) out.push(parsed.data);
      }
      return out;
    },
    async prune(now = new Date()) {
      await collection.deleteMany({ expiresAt: { $lte: now } });
    },
  };
}

export interface PublishRevocationOptions {
  /** Persist first (recommended) so verifiers that miss the NATS message rebuild the list from MongoDB. */
  store?: RevocationStore;
}

/**
 * Persists (when a store is given) and publishes a deny-list entry; resolves once the NATS server has the message
 * (flush). Throws when the store write fails (the caller should then report the mutation as failed or retry).
 */
export async function publishRevocation(
  nc: NatsConnection,
  input: RevocationInput,
  options: PublishRevocationOptions = {},
): Promise<RevocationEntry> {
  const entry = buildRevocationEntry(input);
  if (options.store) await options.store.save(entry);
  nc.publish(revocationSubject(entry.tenantId), JSON.stringify(entry));
  await nc.flush();
  return entry;
}

export interface RevocationSubscription {
  unsubscribe(): void;
}

/** Subscribes to every tenant's entries (or one tenant's); invalid messages are dropped and reported to onInvalid. */
export function subscribeRevocations(
  nc: NatsConnection,
  onEntry: (entry: RevocationEntry) => void,
  options: { tenantId?: number; onInvalid?: (err: unknown) => void } = {},
): RevocationSubscription {
  const subject = options.tenantId === undefined ? REVOCATION_SUBJECT_WILDCARD : revocationSubject(options.tenantId);
  const sub = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) {
        options.onInvalid?.(err);
        return;
      }
      try {
        onEntry(revocationEntrySchema.parse(msg.json()));
      } catch (e) {
        options.onInvalid?.(e);
      }
    },
  });
  return { unsubscribe: () => sub.unsubscribe() };
}

/** The claims of an NHE token a deny-list check needs. */
export interface RevocableToken {
  tenantId: number;
  /** act.sub without the `nhe:` prefix. */
  nheIdentifier: string;
  /**
   * Every actor of a handed-on token's `act` chain (a delegation chain), outermost first, without `nhe:`: an entry
   * naming any of them revokes the token (revoking an actor revokes every token below it in a chain).
   */
  actorChain?: readonly string[];
  jti: string;
  azp?: number;
  sub?: string;
  /** Seconds since epoch. */
  iat: number;
}

/** In-memory deny list; entries drop out once expired. Lookups are O(entries of the tenant). */
export class DenyList {
  private readonly byTenant = new Map<number, Map<string, RevocationEntry>>();
  constructor(private readonly now: () => number = Date.now) {}

  add(entry: RevocationEntry): void {
    if (Date.parse(entry.expiresAt) <= this.now()) return;
    let tenant = this.byTenant.get(entry.tenantId);
    if (!tenant) {
      tenant = new Map();
      this.byTenant.set(entry.tenantId, tenant);
    }
    tenant.set(entry.id, entry);
  }

  /** The first live entry revoking this token, or undefined. */
  match(token: RevocableToken): RevocationEntry | undefined {
    const tenant = this.byTenant.get(token.tenantId);
    if (!tenant) return undefined;
    const now = this.now();
    for (const [id, e] of tenant) {
      if (Date.parse(e.expiresAt) <= now) {
        tenant.delete(id);
        continue;
      }
      if (
        e.nheIdentifier !== undefined &&
        e.nheIdentifier !== token.nheIdentifier &&
        !token.actorChain?.includes(e.nheIdentifier)
      )
        continue;
      if (e.clientNumericId !== undefined && e.clientNumericId !== token.azp) continue;
      if (e.subject !== undefined && e.subject !== token.sub) continue;
      if (e.jti !== undefined) {
        if (e.jti !== token.jti) continue;
        return e;
      }
      // iat has second precision: a token issued in the same second as the revocation counts as revoked.
      if (token.iat * 1000 <= Date.parse(e.revokedAt)) return e;
    }
    return undefined;
  }

  isRevoked(token: RevocableToken): boolean {
    return this.match(token) !== undefined;
  }

  prune(): void {
    const now = this.now();
    for (const [tenantId, tenant] of this.byTenant) {
      for (const [id, e] of tenant) if (Date.parse(e.expiresAt) <= now) tenant.delete(id);
      if (tenant.size === 0) this.byTenant.delete(tenantId);
    }
  }

  get size(): number {
    let n = 0;
    for (const t of this.byTenant.values()) n += t.size;
    return n;
  }
}

export interface DenyListHandle {
  denyList: DenyList;
  /** Reloads from the store (no-op without one). */
  reload(): Promise<void>;
  close(): void;
}

/**
 * Builds a live deny list: loads the store's active entries, subscribes to the NATS subject, reloads from the store on
 * every NATS reconnect and every `reloadIntervalMs` (default 30 s), prunes expired entries.
 */
export async function startDenyList(options: {
  nc: NatsConnection;
  store?: RevocationStore;
  logger?: Logger;
  reloadIntervalMs?: number;
}): Promise<DenyListHandle> {
  const denyList = new DenyList();
  const { nc, store, logger } = options;
  const reload = async () => {
    if (!store) return;
    try {
      for (const e of await store.active()) denyList.add(e);
    } catch (err) {
      logger?.warn({ err: (err as Error).message }, 'deny list: reload from store failed');
    }
  };
  const sub = subscribeRevocations(nc, (e) => denyList.add(e), {
    onInvalid: (err) =>
      logger?.warn({ err: (err as Error | undefined)?.message }, 'deny list: invalid revocation message dropped'),
  });
  await reload();
  const stopStatus = onNatsStatus(nc, ['reconnect'], reload);
  const timer = setInterval(() => {
    denyList.prune();
    void reload();
  }, options.reloadIntervalMs ?? 30_000);
  timer.unref();
  return {
    denyList,
    reload,
    close: () => {
      stopStatus();
      clearInterval(timer);
      sub.unsubscribe();
    },
  };
}
