/**
 * The transmitter's two collections (plain MongoDB collections, like the kill switch's `nhe_revocations`; FerretDB
 * has no TTL index, so expired rows are pruned by code):
 *
 * - `ssf_streams`: one row per stream, `_id` = stream_id, scoped by tenantId and the receiver's clientId;
 * - `ssf_events`: one row per Security Event Token per stream, `_id` = `{stream_id}:{txn}:{event kind}`, so writing
 *   the same kill-switch entry twice (NATS redelivery, the reconciliation, two replicas) is a duplicate key and never
 *   a second event. A row is `pending` until the receiver acknowledges it (poll `ack`/`setErrs`) or answers 2xx to
 *   the push (`delivered`; `rejected` when it refused the SET with an RFC 8935 error); rows that are no longer
 *   pending stay until `expiresAt` as tombstones, so a later write of the same entry is still a duplicate and an
 *   acknowledged event is never delivered again.
 */
import type { Collection, Connection } from 'mongoose';
import { DELIVERY_POLL } from '../domain/event-types';
import type { StreamRecord } from '../domain/stream-config';

export const STREAMS_COLLECTION = 'ssf_streams';
export const EVENTS_COLLECTION = 'ssf_events';

export type EventState = 'pending' | 'acknowledged' | 'delivered' | 'rejected';

export interface EventRow {
  _id: string;
  tenantId: number;
  streamId: string;
  /** The kill-switch entry id (or the verification request's id): the SET's txn. */
  txn: string;
  jti: string;
  /** The signed SET (compact JWS). */
  set: string;
  state: EventState;
  createdAt: Date;
  expiresAt: Date;
  error?: string;
}

export interface Collections {
  streams: Collection<StreamRecord>;
  events: Collection<EventRow>;
}

export function collections(connection: Connection): Collections {
  return {
    streams: connection.collection<StreamRecord>(STREAMS_COLLECTION),
    events: connection.collection<EventRow>(EVENTS_COLLECTION),
  };
}

/** Creates the indexes the queries and the idempotence rely on (idempotent; every replica calls it at start). */
export async function ensureIndexes(c: Collections): Promise<void> {
  await c.streams.createIndex({ tenantId: 1, clientId: 1 });
  await c.streams.createIndex({ tenantId: 1, status: 1 });
  await c.streams.createIndex({ 'delivery.method': 1, status: 1, pushRetryAt: 1 });
  await c.events.createIndex({ streamId: 1, state: 1, createdAt: 1 });
  await c.events.createIndex({ streamId: 1, jti: 1 });
  await c.events.createIndex({ streamId: 1, txn: 1 });
  await c.events.createIndex({ expiresAt: 1 });
}

/**
 * Deletes the poll streams whose receiver has not asked about them (poll, read, update) for `timeoutSeconds`, and their
 * events (SSF 1.0 section 8.1.1 `inactivity_timeout`: the transmitter may delete such a stream). Returns how many.
 */
export async function deleteInactiveStreams(c: Collections, timeoutSeconds: number, now = Date.now()): Promise<number> {
  const cutoff = new Date(now - timeoutSeconds * 1000);
  const stale = await c.streams
    .find(
      {
        'delivery.method': DELIVERY_POLL,
        $or: [{ activeAt: { $lt: cutoff } }, { activeAt: { $exists: false }, createdAt: { $lt: cutoff } }],
      },
      { projection: { _id: 1 } },
    )
    .limit(1000)
    .toArray();
  if (!stale.length) return 0;
  const ids = stale.map((s) => s._id);
  // Again with the cutoff: a poll that arrived meanwhile keeps its stream.
  const { deletedCount } = await c.streams.deleteMany({
    _id: { $in: ids },
    $or: [{ activeAt: { $lt: cutoff } }, { activeAt: { $exists: false }, createdAt: { $lt: cutoff } }],
  });
  const left = new Set(
    (await c.streams.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((s) => s._id),
  );
  await c.events.deleteMany({ streamId: { $in: ids.filter((id) => !left.has(id)) } });
  return deletedCount;
}
