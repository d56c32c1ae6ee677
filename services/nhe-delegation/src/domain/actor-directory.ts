/**
 * Where the keys that verify actor tokens come from: an NHE's own keys (inline `jwks`, or its `jwks_uri`) and the
 * tenant's trusted workload identity issuers (their `jwks_uri`), with the NHEs a workload (issuer, subject) maps to.
 * Read from MongoDB and kept in memory for a short while (dropped at once on the tenant's invalidation, like the facts
 * cache); remote key sets are fetched through {@link JwksFetcher} (SSRF-safe in the service, main.ts), cached, and
 * fetched again early only when a token names a key the cached set lacks (at most once per cool-down).
 */
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import type { Models, NheDoc, WorkloadIssuerDoc } from '@idp/db';

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

/** Fetches a JWK Set document; rejects on any failure (network, status, not a JWK Set). */
export type JwksFetcher = (uri: string) => Promise<{ keys: JWK[] }>;

/** One public key, imported on first use per algorithm, with its RFC 7638 thumbprint. */
export interface ActorKey {
  jwk: JWK;
  jkt: string;
  /** The key object for `alg` (imported once, then reused). */
  importFor(alg: string): Promise<ImportedKey>;
}

/** The keys an actor token of one source (an NHE, a workload issuer) may be signed with. */
export interface KeySource {
  keys(): Promise<ActorKey[]>;
  /** The keys again from the remote set, when it may be refetched now (a token named a key not in the set). */
  refresh(): Promise<ActorKey[] | undefined>;
  /** Where the keys come from, for messages: `jwks` or the URI. */
  origin: string;
}

export interface NheActor {
  identifier: string;
  /** Undefined when the NHE registered no keys. */
  keys?: KeySource;
}

export interface ActorDirectory {
  /** The NHE with this identifier (null when none). */
  nhe(tenantId: number, identifier: string): Promise<NheActor | null>;
  /** The enabled trusted workload issuer with exactly this `iss` (null when none). */
  workloadIssuer(tenantId: number, issuer: string): Promise<{ issuer: string; keys: KeySource } | null>;
  /** Identifiers of the NHEs whose workloadIdentity is (issuer, subject): exactly one is a match. */
  nhesForWorkload(tenantId: number, issuer: string, subject: string): Promise<string[]>;
  invalidateTenant(tenantId: number): void;
  clear(): void;
}

export interface ActorDirectoryOptions {
  fetchJwks: JwksFetcher;
  /** Milliseconds registrations are cached (0: read every time). */
  ttlMs: number;
  /** Milliseconds a remote key set is kept. */
  jwksTtlMs?: number;
  /** Milliseconds between two early refetches of one remote set (unknown kid). */
  jwksCooldownMs?: number;
  now?: () => number;
}

/** At most this many keys of a set are considered. */
const MAX_KEYS = 20;

/** `jwks`: the members of a stored or fetched set, unchecked (an administrator's document, MongoDB's Mixed field). */
async function actorKeys(jwks: readonly unknown[]): Promise<ActorKey[]> {
  const usable = jwks
    .filter(
      (k): k is JWK =>
        typeof k === 'object' &&
        k !== null &&
        typeof (k as JWK).kty === 'string' &&
        (k as JWK).kty !== 'oct' &&
        ((k as JWK).use === undefined || (k as JWK).use === 'sig') &&
        !('d' in k),
    )
    .slice(0, MAX_KEYS);
  const out: ActorKey[] = [];
  for (const jwk of usable) {
    let jkt: string;
    try {
      jkt = await calculateJwkThumbprint(jwk);
    } catch {
      continue; // not a key jose understands: skipped
    }
    const imported = new Map<string, Promise<ImportedKey>>();
    out.push({
      jwk,
      jkt,
      importFor(alg) {
        let key = imported.get(alg);
        if (!key) {
          key = importJWK({ ...jwk, alg }, alg);
          imported.set(alg, key);
          key.catch(() => imported.delete(alg));
        }
        return key;
      },
    });
  }
  return out;
}

/** A cache of remote JWK Sets by URI, shared by every NHE and workload issuer that names the URI. */
function remoteSets(fetchJwks: JwksFetcher, ttlMs: number, cooldownMs: number, now: () => number) {
  const sets = new Map<string, { at: number; keys: Promise<ActorKey[]> }>();
  const load = (uri: string) => {
    const keys = fetchJwks(uri).then((doc) => actorKeys(Array.isArray(doc.keys) ? doc.keys : []));
    const entry = { at: now(), keys };
    sets.set(uri, entry);
    keys.catch(() => {
      if (sets.get(uri) === entry) sets.delete(uri);
    });
    return keys;
  };
  return (uri: string): KeySource => ({
    origin: uri,
    keys() {
      const hit = sets.get(uri);
      if (hit && now() - hit.at < ttlMs) return hit.keys;
      return load(uri);
    },
    async refresh() {
      const hit = sets.get(uri);
      if (hit && now() - hit.at < cooldownMs) return undefined;
      return load(uri);
    },
  });
}

function inlineSource(jwks: readonly unknown[]): KeySource {
  const keys = actorKeys(jwks);
  return { origin: 'jwks', keys: () => keys, refresh: () => Promise.resolve(undefined) };
}

/** The directory over MongoDB; `fetchJwks` reaches remote key sets. */
export function actorDirectory(models: Models, o: ActorDirectoryOptions): ActorDirectory {
  const now = o.now ?? Date.now;
  const remote = remoteSets(o.fetchJwks, o.jwksTtlMs ?? 5 * 60_000, o.jwksCooldownMs ?? 30_000, now);
  const byTenant = new Map<number, Map<string, { at: number; value: Promise<unknown> }>>();

  function cached<T>(tenantId: number, key: string, load: () => Promise<T>): Promise<T> {
    if (o.ttlMs <= 0) return load();
    let entries = byTenant.get(tenantId);
    if (!entries) {
      if (byTenant.size > 10_000) byTenant.clear();
      entries = new Map();
      byTenant.set(tenantId, entries);
    }
    const hit = entries.get(key);
    if (hit && now() - hit.at < o.ttlMs) return hit.value as Promise<T>;
    if (entries.size > 10_000) entries.clear();
    const value = load();
    const entry = { at: now(), value };
    entries.set(key, entry);
    value.catch(() => {
      if (byTenant.get(tenantId)?.get(key) === entry) byTenant.get(tenantId)?.delete(key);
    });
    return value;
  }

  return {
    nhe(tenantId, identifier) {
      return cached(tenantId, `nhe\0${identifier}`, async (): Promise<NheActor | null> => {
        // `jwks` is a Mixed field: a document written by hand or by an older version may hold anything there.
        const doc = await models.Nhe.findOne({ tenantId, identifier }, { identifier: 1, jwks: 1, jwksUri: 1 }).lean<
          Pick<NheDoc, 'identifier' | 'jwksUri'> & { jwks?: { keys?: unknown[] } | null }
        >();
        if (!doc) return null;
        const keys = doc.jwks?.keys?.length
          ? inlineSource(doc.jwks.keys)
          : doc.jwksUri
            ? remote(doc.jwksUri)
            : undefined;
        return { identifier: doc.identifier, ...(keys ? { keys } : {}) };
      });
    },
    workloadIssuer(tenantId, issuer) {
      return cached(tenantId, `wi\0${issuer}`, async () => {
        const doc = await models.WorkloadIssuer.findOne({ tenantId, issuer, enabled: true }).lean<WorkloadIssuerDoc>();
        return doc ? { issuer: doc.issuer, keys: remote(doc.jwksUri) } : null;
      });
    },
    nhesForWorkload(tenantId, issuer, subject) {
      return cached(tenantId, `wl\0${issuer}\0${subject}`, async () => {
        const docs = await models.Nhe.find(
          { tenantId, 'workloadIdentity.issuer': issuer, 'workloadIdentity.subject': subject },
          { identifier: 1 },
        )
          .limit(2)
          .lean<Array<{ identifier: string }>>();
        return docs.map((d) => d.identifier);
      });
    },
    invalidateTenant(tenantId) {
      byTenant.delete(tenantId);
    },
    clear() {
      byTenant.clear();
    },
  };
}
