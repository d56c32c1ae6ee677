import { connect, headers, type NatsConnection, type Status } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type PubAck,
} from '@nats-io/jetstream';
import type { Logger } from '@idp/logger';
import { AUDIT_DEAD_LETTER_SUBJECT, AUDIT_STREAM, AUDIT_SUBJECT_WILDCARD, AUDIT_WRITER_DURABLE } from './audit-event';
import { REFUSAL_STREAM, REFUSAL_SUBJECT_WILDCARD, REFUSAL_WRITER_DURABLE } from './refusal-event';

export type { NatsConnection, JetStreamClient, JetStreamManager, PubAck };
export { headers };

const NANOS_PER_SECOND = 1_000_000_000;

export interface NatsHandle {
  nc: NatsConnection;
  js: JetStreamClient;
  ping: () => Promise<void>;
  close: () => Promise<void>;
}

/** Connects with unlimited reconnects; a service keeps running (and reports not-ready) while NATS is away. */
/**
 * Splits `nats://user:pass@host:port,...` into servers and credentials: nats.js 3 ignores credentials inside
 * server URLs, so they are passed as options (the chart composes NATS_URL with the password from a Secret). A
 * `tls://` URL requires TLS (the `tls` option), as its scheme says.
 */
export function natsConnectionOptions(servers: string): {
  servers: string[];
  user?: string;
  pass?: string;
  tls?: Record<string, never>;
} {
  let user: string | undefined;
  let pass: string | undefined;
  const list = servers
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const m = /^([a-z]+:\/\/)([^@/]*)@(.*)$/i.exec(s);
      if (!m) return s;
      // No ':' in the user info: no password (passPart undefined).
      const [userPart = '', passPart] = m[2].split(':') as Array<string | undefined>;
      user ??= decodeURIComponent(userPart);
      if (passPart !== undefined) pass ??= decodeURIComponent(passPart);
      return `${m[1]}${m[3]}`;
    });
  // nats.js 3 does not require TLS for a tls:// URL (it connects in plain text to a server that offers none, and the
  // password goes with it): a tls:// server anywhere in the list makes TLS required for every connection.
  const tls = list.some((s) => /^tls:\/\//i.test(s)) ? { tls: {} } : {};
  return { servers: list, ...(user ? { user } : {}), ...(pass !== undefined ? { pass } : {}), ...tls };
}

/** A NATS connection status event type ('disconnect', 'reconnect', 'error', ...). */
export type NatsStatusType = Status['type'];

/**
 * Runs `handler` for every status event of the connection whose type is listed, one at a time, until the returned
 * stop function is called or the connection closes. What holds state fed by subscriptions (caches dropped by
 * invalidation events, the kill-switch deny list) uses it to start over after a reconnect: messages published while
 * the connection was down are not redelivered to core subscriptions.
 */
export function onNatsStatus(
  nc: NatsConnection,
  types: readonly NatsStatusType[],
  handler: (type: NatsStatusType) => unknown,
): () => void {
  const status = nc.status()[Symbol.asyncIterator]();
  void (async () => {
    for (let next = await status.next(); !next.done; next = await status.next()) {
      if (types.includes(next.value.type)) await handler(next.value.type);
    }
  })().catch(() => undefined);
  return () => void status.return?.();
}

export async function connectNats(servers: string, logger: Logger, name: string): Promise<NatsHandle> {
  const nc = await connect({
    ...natsConnectionOptions(servers),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 5000,
    // nats.js otherwise builds an Error (a captured stack) up front on every request and JetStream publish, to
    // say where a later failure started: about 8% of the sidecar's CPU per exchange (bench/README.md). Failures
    // still carry their message and cause.
    noAsyncTraces: true,
  });
  onNatsStatus(nc, ['disconnect', 'reconnect', 'error'], (type) => logger.warn({ nats: type }, 'nats status'));
  return {
    nc,
    js: jetstream(nc, { timeout: 5000 }),
    ping: async () => {
      if (nc.isClosed()) throw new Error('nats connection closed');
      await nc.flush();
    },
    close: async () => {
      if (!nc.isClosed()) await nc.drain();
    },
  };
}

export interface StreamOptions {
  replicas: number;
  /** Duplicate-detection window in seconds (>= 120 per DESIGN.md). */
  duplicateWindowSeconds: number;
  /** How long events stay in the stream after being consumed (they are also in MongoDB). */
  maxAgeSeconds: number;
}

/**
 * Creates the audit stream, or updates it to these settings (idempotent). The audit-writer owns the stream: it
 * calls this at start; the chart's stream job calls it at install. It carries the issuance events, the refusals of
 * the decision log (their own subjects and consumer) and the dead letters of both.
 */
export async function ensureAuditStream(nc: NatsConnection, options: StreamOptions): Promise<JetStreamManager> {
  return ensureStream(nc, {
    name: AUDIT_STREAM,
    subjects: [AUDIT_SUBJECT_WILDCARD, AUDIT_DEAD_LETTER_SUBJECT],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: options.replicas,
    duplicate_window: options.duplicateWindowSeconds * NANOS_PER_SECOND,
    max_age: options.maxAgeSeconds * NANOS_PER_SECOND,
  });
}

/** Most bytes the refusal stream keeps (its oldest messages go first beyond it). */
export const REFUSAL_STREAM_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The decision log's refusal stream (`idp.audit.nhe.refused.*`): its own limits (at most REFUSAL_STREAM_MAX_BYTES,
 * the audit stream's age), discarding the oldest, so refusals can never fill the issuance audit stream.
 */
export async function ensureRefusalStream(nc: NatsConnection, options: StreamOptions): Promise<JetStreamManager> {
  return ensureStream(nc, {
    name: REFUSAL_STREAM,
    subjects: [REFUSAL_SUBJECT_WILDCARD],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: options.replicas,
    duplicate_window: options.duplicateWindowSeconds * NANOS_PER_SECOND,
    max_age: options.maxAgeSeconds * NANOS_PER_SECOND,
    max_bytes: REFUSAL_STREAM_MAX_BYTES,
  });
}

/** Creates the stream, or updates the config of one that exists (several replicas converge on one config). */
async function ensureStream(
  nc: NatsConnection,
  config: {
    name: string;
    subjects: string[];
    storage: StorageType;
    retention: RetentionPolicy;
    discard: DiscardPolicy;
    num_replicas: number;
    duplicate_window: number;
    max_age: number;
    max_bytes?: number;
  },
): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  const { storage: _storage, ...updatable } = config;
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, updatable);
  } catch (err) {
    if (
      (err as { name?: string }).name !== 'StreamNotFoundError' &&
      !/stream not found/i.test(String((err as Error).message))
    )
      throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // Another replica created it between our info and add.
      if (!/already in use|already exists/i.test(String((addErr as Error).message))) throw addErr;
      await jsm.streams.update(config.name, updatable);
    }
  }
  return jsm;
}

/**
 * How long JetStream waits for the writer's ack of a message before delivering it again, per delivery (seconds):
 * the first value is the ack wait of a first delivery (nats-server replaces ack_wait with the back-off's first value),
 * the next ones space out the redeliveries of a message that keeps going unacked (a writer that crashes on it). The
 * first must cover a whole fetch window (the writer's fetch waits up to 1 s for a full batch, so a message can sit
 * in it that long before the batch is written) plus the batch's write under load. At 1 s, as it once was, messages
 * that had waited in a fetch were delivered again while their batch was being written: stored once, but each a
 * duplicate to look up, and settling a run took tens of seconds (bench/memory).
 */
export const AUDIT_CONSUMER_BACKOFF_SECONDS = [10, 20, 30, 60];

/**
 * Consumer lag: messages not yet delivered (num_pending) and delivered but not yet acked (num_ack_pending).
 * Any process can read it; several writer replicas share one durable, so the figures are the same from each.
 */
export async function auditConsumerLag(
  jsm: JetStreamManager,
): Promise<{ pending: number; ackPending: number; redelivered: number }> {
  const info = await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
  return { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
}

/**
 * The durable pull consumer of the audit-writer (explicit ack, bounded in-flight, back-off redelivery). The
 * writer owns it, like the stream: created or updated at every start, so several replicas converge on one config.
 */
export async function ensureAuditConsumer(jsm: JetStreamManager, maxAckPending: number): Promise<void> {
  await ensureWriterConsumer(jsm, AUDIT_STREAM, AUDIT_WRITER_DURABLE, AUDIT_SUBJECT_WILDCARD, maxAckPending);
}

/**
 * The durable pull consumer of the refusals of the decision log (`idp.audit.nhe.refused.*`, on the refusal stream):
 * the same settings as the issuance consumer, its own durable, so a backlog of one never holds up the other.
 */
export async function ensureRefusalConsumer(jsm: JetStreamManager, maxAckPending: number): Promise<void> {
  await ensureWriterConsumer(jsm, REFUSAL_STREAM, REFUSAL_WRITER_DURABLE, REFUSAL_SUBJECT_WILDCARD, maxAckPending);
}

async function ensureWriterConsumer(
  jsm: JetStreamManager,
  stream: string,
  durable: string,
  filterSubject: string,
  maxAckPending: number,
): Promise<void> {
  const config = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: filterSubject,
    ack_wait: AUDIT_CONSUMER_BACKOFF_SECONDS[0]! * NANOS_PER_SECOND,
    max_ack_pending: maxAckPending,
    max_deliver: -1,
    backoff: AUDIT_CONSUMER_BACKOFF_SECONDS.map((s) => s * NANOS_PER_SECOND),
  };
  try {
    await jsm.consumers.info(stream, durable);
    await jsm.consumers.update(stream, durable, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
      backoff: config.backoff,
      max_deliver: config.max_deliver,
    });
  } catch (err) {
    if (
      !/consumer not found/i.test(String((err as Error).message)) &&
      (err as { name?: string }).name !== 'ConsumerNotFoundError'
    )
      throw err;
    try {
      await jsm.consumers.add(stream, config);
    } catch (addErr) {
      // Another replica created it between our info and add: that is the config we wanted.
      if (!/already (exists|in use)/i.test(String((addErr as Error).message))) throw addErr;
    }
  }
}

/**
 * Publishes with Nats-Msg-Id = `msgId` and resolves only once JetStream has stored the message (PubAck).
 * A duplicate within the window resolves too (the first copy is stored). Rejects on timeout or no responders.
 */
export async function publishAndAwaitAck(
  js: JetStreamClient,
  subject: string,
  data: unknown,
  msgId: string,
  timeoutMs = 3000,
): Promise<PubAck> {
  return js.publish(subject, JSON.stringify(data), { msgID: msgId, timeout: timeoutMs });
}
