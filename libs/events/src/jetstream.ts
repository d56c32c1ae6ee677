import { connect, type NatsConnection } from '@nats-io/transport-node';
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

export type { NatsConnection, JetStreamClient, JetStreamManager, PubAck };

const NANOS_PER_SECOND = 1_000_000_000;

export interface NatsHandle {
  nc: NatsConnection;
  js: JetStreamClient;
  ping: () => Promise<void>;
  close: () => Promise<void>;
}

/** Connects with unlimited reconnects; a service keeps running (and reports not-ready) while NATS is away. */
export async function connectNats(servers: string, logger: Logger, name: string): Promise<NatsHandle> {
  const nc = await connect({
    servers: servers.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout: 5000,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') logger.warn({ nats: s.type }, 'nats status');
    }
  })();
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
 * calls this at start; the chart's stream job calls it at install.
 */
export async function ensureAuditStream(nc: NatsConnection, options: StreamOptions): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: AUDIT_STREAM,
    subjects: [AUDIT_SUBJECT_WILDCARD, AUDIT_DEAD_LETTER_SUBJECT],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    num_replicas: options.replicas,
    duplicate_window: options.duplicateWindowSeconds * NANOS_PER_SECOND,
    max_age: options.maxAgeSeconds * NANOS_PER_SECOND,
  };
  try {
    await jsm.streams.info(AUDIT_STREAM);
    const { storage: _storage, ...updatable } = config;
    await jsm.streams.update(AUDIT_STREAM, updatable);
  } catch (err) {
    if ((err as { name?: string }).name !== 'StreamNotFoundError' && !/stream not found/i.test(String((err as Error).message))) throw err;
    await jsm.streams.add(config);
  }
  return jsm;
}

/** The durable pull consumer of the audit-writer (explicit ack, bounded in-flight, back-off redelivery). */
export async function ensureAuditConsumer(jsm: JetStreamManager, maxAckPending: number): Promise<void> {
  const config = {
    durable_name: AUDIT_WRITER_DURABLE,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: AUDIT_SUBJECT_WILDCARD,
    ack_wait: 30 * NANOS_PER_SECOND,
    max_ack_pending: maxAckPending,
    max_deliver: -1,
    backoff: [1, 2, 5, 10, 30].map((s) => s * NANOS_PER_SECOND),
  };
  try {
    await jsm.consumers.info(AUDIT_STREAM, AUDIT_WRITER_DURABLE);
    await jsm.consumers.update(AUDIT_STREAM, AUDIT_WRITER_DURABLE, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
      backoff: config.backoff,
      max_deliver: config.max_deliver,
    });
  } catch (err) {
    if (!/consumer not found/i.test(String((err as Error).message)) && (err as { name?: string }).name !== 'ConsumerNotFoundError') throw err;
    await jsm.consumers.add(AUDIT_STREAM, config);
  }
}

/**
 * Publishes with Nats-Msg-Id = `msgId` and resolves only once JetStream has stored the message (PubAck).
 * A duplicate within the window resolves too (the first copy is stored). Rejects on timeout or no responders.
 */
export async function publishAndAwaitAck(js: JetStreamClient, subject: string, data: unknown, msgId: string, timeoutMs = 3000): Promise<PubAck> {
  return js.publish(subject, JSON.stringify(data), { msgID: msgId, timeout: timeoutMs });
}
