/**
 * How kill-switch entries reach the transmitter, durably:
 *
 * 1. The JetStream stream `IDP_REVOCATIONS` captures the subjects management publishes entries on
 *    (`idp.nhe.revoked.<tenantId>`, core NATS): the server stores each message even though the publisher does not
 *    wait for JetStream. The transmitter owns the stream and its durable pull consumer `signals` (created or updated
 *    at every start, like audit-writer's), and acknowledges a message only after its SETs are stored in MongoDB;
 *    a failure naks it with a back-off, a restart resumes where the consumer stood.
 * 2. Management persists every entry in `nhe_revocations` before publishing it. The reconciliation re-reads the
 *    entries still in force every SSF_RECONCILE_INTERVAL_SECONDS (and at start) and writes whatever a stream lacks:
 *    it covers what the NATS path cannot (a message published before the stream existed, a JetStream outage, a
 *    stream created after the change). Writes are idempotent, so the two paths never duplicate an event.
 */
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type Consumer,
  type JsMsg,
} from '@nats-io/jetstream';
import {
  REVOCATION_SUBJECT_WILDCARD,
  revocationEntrySchema,
  type NatsConnection,
  type RevocationEntry,
  type RevocationStore,
} from '@idp/events';
import type { Logger } from '@idp/logger';
import { fanOut, type FanOutDeps } from './fan-out';

export const REVOCATION_STREAM = 'IDP_REVOCATIONS';
export const SIGNALS_DURABLE = 'signals';
const NANOS = 1_000_000_000;
/** Entries live 16 minutes; a day in the stream outlasts any restart (the reconciliation covers longer outages). */
const STREAM_MAX_AGE_SECONDS = 24 * 3600;

/** Creates or updates the stream and the durable consumer (idempotent; several replicas converge). */
export async function ensureRevocationFeed(nc: NatsConnection, replicas: number): Promise<Consumer> {
  const jsm = await jetstreamManager(nc);
  const stream = {
    name: REVOCATION_STREAM,
    subjects: [REVOCATION_SUBJECT_WILDCARD],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: replicas,
    max_age: STREAM_MAX_AGE_SECONDS * NANOS,
    duplicate_window: 120 * NANOS,
  };
  const { storage: _storage, ...updatable } = stream;
  try {
    await jsm.streams.info(REVOCATION_STREAM);
    await jsm.streams.update(REVOCATION_STREAM, updatable);
  } catch (err) {
    if (
      !/stream not found/i.test(String((err as Error).message)) &&
      (err as { name?: string }).name !== 'StreamNotFoundError'
    )
      throw err;
    try {
      await jsm.streams.add(stream);
    } catch (addErr) {
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
      await jsm.streams.update(REVOCATION_STREAM, updatable);
    }
  }
  const consumer = {
    durable_name: SIGNALS_DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: REVOCATION_SUBJECT_WILDCARD,
    // nats-server takes the back-off's first value as the ack wait of a first delivery (written here as it is). One
    // second is enough here: each message is handled as soon as it arrives (runRevocationConsumer), not after a
    // fetch window as the audit writer's batches are; a redelivered entry is written once (fanOut is idempotent).
    ack_wait: 1 * NANOS,
    max_ack_pending: 1000,
    max_deliver: -1,
    backoff: [1, 2, 5, 10, 30].map((s) => s * NANOS),
  };
  try {
    await jsm.consumers.info(REVOCATION_STREAM, SIGNALS_DURABLE);
  } catch (err) {
    if (
      !/consumer not found/i.test(String((err as Error).message)) &&
      (err as { name?: string }).name !== 'ConsumerNotFoundError'
    )
      throw err;
    try {
      await jsm.consumers.add(REVOCATION_STREAM, consumer);
    } catch (addErr) {
      if (!/already (exists|in use)/i.test(String((addErr as Error).message))) throw addErr;
    }
  }
  return jetstream(nc).consumers.get(REVOCATION_STREAM, SIGNALS_DURABLE);
}

const nakDelayMs = (deliveryCount: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, Math.min(deliveryCount - 1, 5)));

/**
 * Handles one batch: valid entries are written into their tenants' streams, then acked; an invalid message is
 * terminated (logged; the entry, if real, is still in `nhe_revocations` for the reconciliation); a failed write
 * naks the tenant's messages with a back-off.
 */
export async function handleRevocationMessages(
  deps: FanOutDeps & { logger: Logger; onWritten?: (n: number) => void },
  msgs: JsMsg[],
): Promise<void> {
  const byTenant = new Map<number, Array<{ msg: JsMsg; entry: RevocationEntry }>>();
  for (const msg of msgs) {
    let entry: RevocationEntry;
    try {
      entry = revocationEntrySchema.parse(msg.json());
    } catch {
      deps.logger.warn(
        { subject: msg.subject, seq: msg.info.streamSequence },
        'invalid kill-switch message terminated',
      );
      msg.term('invalid revocation entry');
      continue;
    }
    if (msg.subject !== `${REVOCATION_SUBJECT_WILDCARD.slice(0, -1)}${entry.tenantId}`) {
      deps.logger.warn(
        { subject: msg.subject, tenantId: entry.tenantId },
        "kill-switch message on another tenant's subject terminated",
      );
      msg.term('subject does not match tenantId');
      continue;
    }
    const list = byTenant.get(entry.tenantId) ?? [];
    list.push({ msg, entry });
    byTenant.set(entry.tenantId, list);
  }
  await Promise.all(
    [...byTenant].map(async ([tenantId, items]) => {
      try {
        deps.onWritten?.(
          await fanOut(
            deps,
            tenantId,
            items.map((i) => i.entry),
          ),
        );
      } catch (err) {
        deps.logger.error(
          { tenantId, err: (err as Error).message },
          'writing SETs failed; the entries will be redelivered',
        );
        for (const { msg } of items) msg.nak(nakDelayMs(msg.info.deliveryCount));
        return;
      }
      await Promise.all(items.map(({ msg }) => msg.ackAck().catch(() => false)));
    }),
  );
}

/**
 * Pulls until `signal` aborts. Each message is handled as soon as it arrives (not when the pull request expires), so
 * a revocation reaches the streams without waiting for the rest of a batch.
 */
export async function runRevocationConsumer(
  consumer: Consumer,
  handle: (msgs: JsMsg[]) => Promise<void>,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const messages = await consumer.fetch({ max_messages: 100, expires: 1000 });
      for await (const m of messages) await handle([m]);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal may fire while awaiting
      if (signal.aborted) break;
      logger.warn({ err: (err as Error).message }, 'revocation fetch failed; retrying');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** One reconciliation pass: every entry still in force, written where missing (one tenant's streams, or all). */
export async function reconcile(
  deps: FanOutDeps & { store: RevocationStore },
  tenantId?: number,
  streamId?: string,
): Promise<number> {
  const entries = await deps.store.active(deps.now?.() ?? new Date(), tenantId);
  const byTenant = new Map<number, RevocationEntry[]>();
  for (const e of entries) byTenant.set(e.tenantId, [...(byTenant.get(e.tenantId) ?? []), e]);
  let written = 0;
  for (const [t, list] of byTenant) written += await fanOut(deps, t, list, streamId);
  return written;
}
