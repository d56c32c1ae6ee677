/**
 * Writes the SETs of kill-switch entries into the streams of their tenant: one row per (stream, entry, event type
 * the stream delivers), signed once, inserted idempotently (the row id names all three, see store/collections.ts).
 * Streams that are `disabled` get nothing (SSF: a disabled stream holds no events); `paused` streams keep theirs
 * until enabled. Every stream of the tenant gets every entry still in force, a stream created after the change
 * included: a receiver that subscribes late still learns about tokens that are revoked but not yet expired.
 */
import { randomUUID } from 'node:crypto';
import { isDuplicateKeyError } from '@idp/errors';
import type { RevocationEntry } from '@idp/events';
import {
  CAEP_SESSION_REVOKED,
  NHE_REVOCATION_EVENT,
  revocationSetClaims,
  SSF_VERIFICATION_EVENT,
  type RevocationEventType,
} from './domain/event-types';
import type { StreamRecord } from './domain/stream-config';
import { setJti, signSet, type TenantSigningKey } from './domain/set-signer';
import type { Collections, EventRow } from './store/collections';

/** Verification events live as long as revocation events do (the longest NHE token + the deny list's margin). */
export const VERIFICATION_EVENT_LIFETIME_SECONDS = 900 + 60;

const KIND: Record<RevocationEventType, string> = {
  [CAEP_SESSION_REVOKED]: 'session-revoked',
  [NHE_REVOCATION_EVENT]: 'nhe-revocation',
};

export interface FanOutDeps {
  c: Collections;
  signingKey: (tenantId: number) => Promise<TenantSigningKey>;
  issuerFor: (tenantId: number) => string;
  /** Told which streams got new rows (wakes the push worker and waiting polls). */
  notify?: (streamIds: string[]) => void;
  now?: () => Date;
}

const isRevocationType = (t: string): t is RevocationEventType =>
  t === CAEP_SESSION_REVOKED || t === NHE_REVOCATION_EVENT;

/** Inserts rows, a duplicate key (written before, or by another replica) counting as done. Returns rows newly written. */
export async function insertRows(c: Collections, rows: EventRow[]): Promise<number> {
  if (!rows.length) return 0;
  try {
    const result = await c.events.insertMany(rows, { ordered: false });
    return result.insertedCount;
  } catch (err) {
    const writeErrors = (err as { writeErrors?: Array<{ code?: number; err?: { code?: number } }> }).writeErrors;
    const onlyDuplicates =
      isDuplicateKeyError(err) && (!writeErrors || writeErrors.every((e) => (e.code ?? e.err?.code) === 11000));
    if (!onlyDuplicates) throw err;
    return (
      (err as { insertedCount?: number; result?: { insertedCount?: number } }).insertedCount ??
      (err as { result?: { insertedCount?: number } }).result?.insertedCount ??
      0
    );
  }
}

/**
 * Writes the entries (all of one tenant) into the tenant's streams (or only `streamId`'s). Expired entries are
 * skipped. Returns the number of rows written.
 */
export async function fanOut(
  deps: FanOutDeps,
  tenantId: number,
  entries: RevocationEntry[],
  streamId?: string,
): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const live = entries.filter((e) => e.tenantId === tenantId && Date.parse(e.expiresAt) > now.getTime());
  if (!live.length) return 0;
  const streams = await deps.c.streams
    .find({ tenantId, status: { $in: ['enabled', 'paused'] }, ...(streamId ? { _id: streamId } : {}) })
    .toArray();
  if (!streams.length) return 0;
  const existing = new Set(
    (
      await deps.c.events
        .find(
          { streamId: { $in: streams.map((s) => s._id) }, txn: { $in: live.map((e) => e.id) } },
          { projection: { _id: 1 } },
        )
        .toArray()
    ).map((r) => r._id),
  );
  const issuer = deps.issuerFor(tenantId);
  let signing: TenantSigningKey | undefined;
  const rows: EventRow[] = [];
  for (const stream of streams) {
    for (const entry of live) {
      for (const type of stream.eventsDelivered.filter(isRevocationType)) {
        const id = `${stream._id}:${entry.id}:${KIND[type]}`;
        if (existing.has(id)) continue;
        signing ??= await deps.signingKey(tenantId);
        const jti = setJti(stream._id, `${entry.id}:${KIND[type]}`);
        const set = await signSet(
          { iss: issuer, aud: stream.clientId, jti, ...revocationSetClaims(entry, issuer, type) },
          signing,
          now,
        );
        rows.push({
          _id: id,
          tenantId,
          streamId: stream._id,
          txn: entry.id,
          jti,
          set,
          state: 'pending',
          createdAt: now,
          expiresAt: new Date(entry.expiresAt),
        });
      }
    }
  }
  const written = await insertRows(deps.c, rows);
  if (rows.length) deps.notify?.([...new Set(rows.map((r) => r.streamId))]);
  return written;
}

/** Writes a verification event (SSF 1.0 section 8.1.4.2) for a stream, with the receiver's `state` when given. */
export async function writeVerification(
  deps: FanOutDeps,
  stream: StreamRecord,
  state: string | undefined,
): Promise<EventRow> {
  const now = deps.now?.() ?? new Date();
  const issuer = deps.issuerFor(stream.tenantId);
  const txn = randomUUID();
  const jti = setJti(stream._id, `${txn}:verification`);
  const set = await signSet(
    {
      iss: issuer,
      aud: stream.clientId,
      jti,
      txn,
      sub_id: { format: 'opaque', id: stream._id },
      events: { [SSF_VERIFICATION_EVENT]: state !== undefined ? { state } : {} },
    },
    await deps.signingKey(stream.tenantId),
    now,
  );
  const row: EventRow = {
    _id: `${stream._id}:${txn}:verification`,
    tenantId: stream.tenantId,
    streamId: stream._id,
    txn,
    jti,
    set,
    state: 'pending',
    createdAt: now,
    expiresAt: new Date(now.getTime() + VERIFICATION_EVENT_LIFETIME_SECONDS * 1000),
  };
  await insertRows(deps.c, [row]);
  deps.notify?.([stream._id]);
  return row;
}
