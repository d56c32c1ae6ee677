/**
 * Revocation across organisations: for every trusted issuer a tenant subscribed to (`TrustedIssuer.signals`, enabled),
 * an OpenID Shared Signals receiver polls the issuer's transmitter (RFC 8936, the SDK's createSsfPollReceiver:
 * discovery, client-credentials token, its own stream, every SET verified against the issuer's keys, `iss` = that
 * issuer, `aud` = this tenant's client there). Each revocation it carries becomes this tenant's own kill-switch entries
 * (libs/events revocations: persisted, then published on NATS) for the live tokens this tenant minted from that
 * issuer's assertions (domain/issuer-revocation.ts). This service's transmitter then tells the tenant's own receivers
 * (its APIs, MCP servers) as for any entry, and its verifiers (introspection, the sidecar) refuse the tokens: the bound
 * is the issuer's poll interval + the tenant's receivers' interval.
 *
 * - One receiver per (tenant, trusted issuer), in every replica (each has its own stream at the issuer; the entries'
 *   ids are derived from what they stand for, so two replicas, a redelivery or a restart write each entry once).
 * - Started and stopped as records change: reloaded every SSF_ISSUER_RELOAD_SECONDS and at once on the tenant
 *   invalidation the management API publishes when a trusted issuer changes. A trusted issuer that is disabled keeps
 *   its subscription: tokens already minted from its assertions are still alive, and a revocation only takes away.
 * - A SET that fails verification never reaches the mapping (the SDK reports it in `setErrs`); a mapping that fails
 *   (database down) leaves the SET unacknowledged, so the issuer delivers it again.
 * - Tokens minted here after the event from assertions issued before it: each selector is kept while such tokens can
 *   still appear (one assertion lifetime, domain/issuer-revocation.ts) and matched again every poll interval; that
 *   also catches audit rows written a moment after the event.
 * - Outbound requests go through the SSRF-safe outbound client under the operator's policy (outbound-fetch.ts).
 */
import type { Connection } from 'mongoose';
import type { Models, TrustedIssuerDoc } from '@idp/db';
import {
  ISSUER_SIGNALS_POLL_DEFAULT_SECONDS,
  ISSUER_SIGNALS_POLL_MAX_SECONDS,
  ISSUER_SIGNALS_POLL_MIN_SECONDS,
  trustedIssuerSecretAad,
} from '@idp/db';
import { isDuplicateKeyError } from '@idp/errors';
import { publishRevocation, REVOCATION_COLLECTION, subscribeInvalidations, type RevocationStore } from '@idp/events';
import type { Logger } from '@idp/logger';
import {
  createSsfPollReceiver,
  type RevocationSelector,
  type SsfFetch,
  type SsfPollReceiver,
  type SsfPollReceiverOptions,
} from '@idp/resource-server';
import type { KeyEncryptionKey } from '@idp/tokens';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  bridgedEntry,
  bridgedEntryId,
  isAlive,
  redeemedRowsFilter,
  selectorWindowEnd,
  unevaluable,
  type IssuerScope,
  type RedeemedTokenRow,
} from './domain/issuer-revocation';

/** Selectors kept per issuer for later matches; beyond, the oldest window is dropped (and logged). */
const MAX_OPEN_SELECTORS = 10_000;

export interface IssuerReceiversDeps {
  models: Models;
  connection: Connection;
  nc: NatsConnection;
  store: RevocationStore;
  kek: KeyEncryptionKey;
  logger: Logger;
  fetch: SsfFetch;
  maxEntriesPerEvent: number;
  reloadIntervalMs: number;
  /** Extra receiver options (tests: a short back-off). */
  receiverOptions?: Partial<SsfPollReceiverOptions>;
  now?: () => number;
}

export interface IssuerBridgeStatus {
  tenantId: number;
  issuer: string;
  streamId: string | undefined;
  lastSuccessAt: number | undefined;
  lastError: string | undefined;
  /** The last attempt (stream creation, poll) failed: no revocation of this issuer arrives until one succeeds. */
  failing: boolean;
  openSelectors: number;
}

export interface IssuerReceivers {
  /** Reads the records again and starts or stops receivers accordingly. */
  reload(): Promise<void>;
  status(): IssuerBridgeStatus[];
  /** Stops every receiver (each deletes its stream at the issuer). */
  stop(): Promise<void>;
}

interface BridgeState {
  fingerprint: string;
  scope: IssuerScope;
  /** Selectors whose window is still open, by the issuer's entry id. */
  open: Map<string, { selector: RevocationSelector; until: number }>;
  /** Mapping runs one at a time per issuer (the SET hook and the periodic match). */
  queue: Promise<unknown>;
  /** A periodic match is in progress: the next interval skips rather than queueing another behind it. */
  matching: boolean;
}

interface Bridge extends BridgeState {
  receiver: SsfPollReceiver;
  timer: ReturnType<typeof setInterval>;
  /** The first sync (settles either way). */
  started: Promise<void>;
}

/** How long stopping waits for a first sync still in progress, so a stream it is creating is deleted too. */
const STOP_WAITS_FOR_START_MS = 3000;

type StoredIssuer = TrustedIssuerDoc & { _id: unknown };

/** What a bridge needs of a stored `signals` member, or why it has none (hand-written or older documents included). */
type SignalsSettings =
  { clientId: string; clientSecretSealed: string; pollIntervalSeconds: number } | { invalid: string };

/**
 * The `signals` member as the bridge uses it: `.lean()` fills no nested defaults, so a document written by hand, restored
 * or from an older version may lack members or hold other types; the poll interval defaults and is clamped.
 */
export function signalsSettingsOf(doc: Pick<TrustedIssuerDoc, 'signals'>): SignalsSettings {
  const s = doc.signals as Partial<Record<string, unknown>> | undefined;
  if (typeof s?.clientId !== 'string' || !s.clientId) return { invalid: 'no clientId' };
  if (typeof s.clientSecretSealed !== 'string' || !s.clientSecretSealed) return { invalid: 'no client secret' };
  const asked = typeof s.pollIntervalSeconds === 'number' && Number.isFinite(s.pollIntervalSeconds);
  const pollIntervalSeconds = asked
    ? Math.min(
        ISSUER_SIGNALS_POLL_MAX_SECONDS,
        Math.max(ISSUER_SIGNALS_POLL_MIN_SECONDS, s.pollIntervalSeconds as number),
      )
    : ISSUER_SIGNALS_POLL_DEFAULT_SECONDS;
  return { clientId: s.clientId, clientSecretSealed: s.clientSecretSealed, pollIntervalSeconds };
}

export function startIssuerReceivers(deps: IssuerReceiversDeps): IssuerReceivers {
  const { models, logger } = deps;
  const now = deps.now ?? Date.now;
  const revocationRows = deps.connection.collection<{ _id: string }>(REVOCATION_COLLECTION);
  const bridges = new Map<string, Bridge>();
  const life = { stopped: false, reloadAgain: false };
  /** Read through a call: the loops ask again after every await. */
  const stopped = () => life.stopped;

  /** This tenant's entries for the live tokens a selector names; returns what it did. */
  async function revokeMatching(scope: IssuerScope, selector: RevocationSelector) {
    const at = now();
    const cap = deps.maxEntriesPerEvent;
    const rows = await models.TokenAudit.find(redeemedRowsFilter(scope, selector, at), {
      _id: 0,
      jti: 1,
      issuedAt: 1,
      ttl: 1,
    })
      .sort({ issuedAt: -1 })
      .limit(cap + 1)
      .lean<RedeemedTokenRow[]>();
    let alive = rows.filter((r) => isAlive(r, at));
    if (alive.length > cap) {
      logger.warn(
        { tenantId: scope.tenantId, issuer: scope.issuer, entryId: selector.id, cap },
        "a trusted issuer's revocation names more live tokens than SSF_ISSUER_MAX_ENTRIES_PER_EVENT: the newest are revoked",
      );
      alive = alive.slice(0, cap);
    }
    if (!alive.length) return { matched: 0, created: 0 };
    const ids = alive.map((r) => bridgedEntryId(scope, selector.id, r.jti));
    const known = new Set(
      (await revocationRows.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((r) => r._id),
    );
    let created = 0;
    for (const row of alive) {
      const entry = bridgedEntry(scope, selector.id, row, at);
      if (known.has(entry.id)) continue;
      try {
        await publishRevocation(deps.nc, entry, { store: deps.store });
        created++;
      } catch (err) {
        // Another replica wrote it first: the entry exists and was published there.
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
    return { matched: alive.length, created };
  }

  function enqueue<T>(bridge: BridgeState, task: () => Promise<T>): Promise<T> {
    const run = bridge.queue.then(task, task);
    bridge.queue = run.catch(() => undefined);
    return run;
  }

  /** The SET hook: map now (a failure leaves the SET for redelivery), then keep the selector while its window is open. */
  async function onSelector(bridge: BridgeState, selector: RevocationSelector): Promise<void> {
    if (unevaluable(selector)) {
      logger.info(
        { tenantId: bridge.scope.tenantId, issuer: bridge.scope.issuer, entryId: selector.id, reason: selector.reason },
        "a trusted issuer's revocation names only one of its clients, which this tenant cannot map: ignored",
      );
      return;
    }
    const { matched, created } = await enqueue(bridge, () => revokeMatching(bridge.scope, selector));
    logger.info(
      {
        tenantId: bridge.scope.tenantId,
        issuer: bridge.scope.issuer,
        entryId: selector.id,
        reason: selector.reason,
        matched,
        created,
        ...(selector.azp !== undefined ? { unmatchedMember: 'azp' } : {}),
      },
      "trusted issuer's revocation applied to the tokens minted from its assertions",
    );
    const until = selectorWindowEnd(bridge.scope, selector, now());
    if (until <= now()) return;
    if (!bridge.open.has(selector.id) && bridge.open.size >= MAX_OPEN_SELECTORS) {
      const oldest = bridge.open.keys().next().value;
      if (oldest !== undefined) bridge.open.delete(oldest);
      logger.warn(
        { tenantId: bridge.scope.tenantId, issuer: bridge.scope.issuer },
        'too many open revocations of a trusted issuer: the oldest is no longer matched against new tokens',
      );
    }
    const before = bridge.open.get(selector.id);
    bridge.open.set(selector.id, { selector, until: Math.max(until, before?.until ?? 0) });
  }

  /** Every poll interval: the selectors still open, against tokens minted (or audited) since. */
  async function matchOpen(bridge: BridgeState): Promise<void> {
    // A pass slower than the interval: the next one waits for the interval after it (passes never pile up).
    if (bridge.matching) return;
    bridge.matching = true;
    try {
      for (const [id, { selector, until }] of bridge.open) {
        if (stopped()) return;
        if (until <= now()) {
          bridge.open.delete(id);
          continue;
        }
        const { created } = await enqueue(bridge, () => revokeMatching(bridge.scope, selector));
        if (created)
          logger.info(
            { tenantId: bridge.scope.tenantId, issuer: bridge.scope.issuer, entryId: id, created },
            "trusted issuer's revocation applied to tokens minted after it from assertions issued before it",
          );
      }
    } finally {
      bridge.matching = false;
    }
  }

  function fingerprintOf(doc: StoredIssuer): string {
    const s = signalsSettingsOf(doc);
    return JSON.stringify([doc.tenantId, doc.issuer, s]);
  }

  function startBridge(doc: StoredIssuer): Bridge | undefined {
    const s = signalsSettingsOf(doc);
    if ('invalid' in s) {
      logger.error(
        { tenantId: doc.tenantId, issuer: doc.issuer, problem: s.invalid },
        "a trusted issuer's Shared Signals settings are incomplete: not subscribed",
      );
      return undefined;
    }
    let clientSecret: string;
    try {
      clientSecret = deps.kek.decrypt(s.clientSecretSealed, trustedIssuerSecretAad(doc.tenantId, doc.issuer));
    } catch (err) {
      logger.error(
        { tenantId: doc.tenantId, issuer: doc.issuer, err: (err as Error).message },
        "a trusted issuer's Shared Signals client secret cannot be opened (another key-encryption key?): not subscribed",
      );
      return undefined;
    }
    const scope: IssuerScope = {
      tenantId: doc.tenantId,
      issuer: doc.issuer,
      assertionLifetimeSeconds: doc.maxLifetimeSeconds,
    };
    const intervalMs = s.pollIntervalSeconds * 1000;
    const state: BridgeState = {
      fingerprint: fingerprintOf(doc),
      scope,
      open: new Map(),
      queue: Promise.resolve(),
      matching: false,
    };
    const receiver = createSsfPollReceiver({
      issuer: doc.issuer,
      clientCredentials: { clientId: s.clientId, clientSecret },
      description: `revocations for tenant ${doc.tenantId} (signals service)`,
      intervalMs,
      fetch: deps.fetch,
      onRevocation: (selector) => onSelector(state, selector),
      onError: (err) =>
        logger.warn(
          { tenantId: doc.tenantId, issuer: doc.issuer, err: err.message },
          "trusted issuer's Shared Signals receiver",
        ),
      ...deps.receiverOptions,
    });
    const timer = setInterval(() => {
      void matchOpen(state).catch((err: unknown) =>
        logger.warn(
          { tenantId: doc.tenantId, issuer: doc.issuer, err: (err as Error).message },
          "matching a trusted issuer's open revocations failed; the next interval retries",
        ),
      );
    }, intervalMs);
    timer.unref();
    // start() rejects when the first sync fails; the receiver keeps retrying with back-off on its own.
    const started = receiver.start().catch((err: unknown) => {
      if (!stopped())
        logger.warn(
          { tenantId: doc.tenantId, issuer: doc.issuer, err: (err as Error).message },
          "trusted issuer's Shared Signals transmitter not reachable yet; retrying",
        );
    });
    const bridge: Bridge = Object.assign(state, { receiver, timer, started });
    logger.info(
      { tenantId: doc.tenantId, issuer: doc.issuer, pollIntervalSeconds: s.pollIntervalSeconds },
      "subscribed to a trusted issuer's Shared Signals",
    );
    return bridge;
  }

  async function stopBridge(key: string, bridge: Bridge): Promise<void> {
    bridges.delete(key);
    clearInterval(bridge.timer);
    let waited: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      bridge.started,
      new Promise((resolve) => (waited = setTimeout(resolve, STOP_WAITS_FOR_START_MS))),
    ]);
    clearTimeout(waited);
    await bridge.receiver.stop();
    await bridge.queue;
  }

  let reloading: Promise<void> | undefined;
  const reloadAgain = () => life.reloadAgain;
  async function reloadOnce(): Promise<void> {
    const docs = await models.TrustedIssuer.find({ 'signals.enabled': true }).lean<StoredIssuer[]>();
    if (stopped()) return;
    const wanted = new Map<string, StoredIssuer>();
    for (const doc of docs) if (doc.signals?.clientSecretSealed) wanted.set(String(doc._id), doc);
    for (const [key, bridge] of bridges) {
      const doc = wanted.get(key);
      if (!doc || fingerprintOf(doc) !== bridge.fingerprint) await stopBridge(key, bridge);
      // A new assertion lifetime applies without a new stream.
      else bridge.scope.assertionLifetimeSeconds = doc.maxLifetimeSeconds;
    }
    for (const [key, doc] of wanted) {
      if (stopped() || bridges.has(key)) continue;
      // One document that cannot start (hand-written, restored, older) never keeps the others from starting.
      try {
        const bridge = startBridge(doc);
        if (bridge) bridges.set(key, bridge);
      } catch (err) {
        logger.error(
          { tenantId: doc.tenantId, issuer: doc.issuer, err: (err as Error).message },
          "a trusted issuer's Shared Signals subscription could not start; the next reload tries again",
        );
      }
    }
  }
  /** One reload at a time; a request during one runs once more after it. */
  function reload(): Promise<void> {
    if (reloading) {
      life.reloadAgain = true;
      return reloading;
    }
    reloading = (async () => {
      try {
        do {
          life.reloadAgain = false;
          await reloadOnce();
        } while (reloadAgain() && !stopped());
      } finally {
        reloading = undefined;
      }
    })();
    return reloading;
  }
  const reloadLogged = () =>
    void reload().catch((err: unknown) =>
      logger.warn({ err: (err as Error).message }, 'trusted issuers (Shared Signals) reload failed; next pass retries'),
    );

  // The management API publishes a tenant invalidation whenever a trusted issuer changes.
  const invalidations = subscribeInvalidations(deps.nc, (e) => {
    if (e.kind === 'tenant') reloadLogged();
  });
  const timer = setInterval(reloadLogged, deps.reloadIntervalMs);
  timer.unref();
  reloadLogged();

  return {
    reload,
    status: () =>
      [...bridges.values()].map((b) => {
        const s = b.receiver.status();
        return {
          tenantId: b.scope.tenantId,
          issuer: b.scope.issuer,
          streamId: s.streamId,
          lastSuccessAt: s.lastSuccessAt,
          lastError: s.lastError,
          failing: s.lastError !== undefined,
          openSelectors: b.open.size,
        };
      }),
    async stop() {
      life.stopped = true;
      clearInterval(timer);
      invalidations.unsubscribe();
      await reloading?.catch(() => undefined);
      await Promise.all([...bridges].map(([key, bridge]) => stopBridge(key, bridge)));
    },
  };
}
