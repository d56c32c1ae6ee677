/**
 * Push delivery (RFC 8935): each pass takes the enabled push streams that have pending events and are not backing
 * off, leases each one (so one replica at a time delivers a stream, in order), and POSTs its pending SETs oldest
 * first as `application/secevent+jwt` with the receiver's authorization header:
 *
 * - 2xx (202 per the RFC) marks the event delivered; it is never sent again;
 * - 400 with an RFC 8935 error body (`{"err": ..., "description": ...}`) marks it rejected (the receiver read and
 *   refused this SET: sending it again cannot help), logged with the receiver's reason;
 * - anything else (network error, timeout, refused address, 3xx, 401, 403, 404, 429, 5xx) stops the stream's pass
 *   and backs the stream off: 1, 2, 4, ... s, at most SSF_PUSH_MAX_BACKOFF_SECONDS, until a delivery succeeds.
 *   Events stay pending (at least once) until they expire.
 *
 * The lease is a stream-row field (`leaseUntil`) set by a conditional update; a replica that dies mid-pass leaves
 * it to expire (60 s), after which another replica resends what was not marked, so a receiver can see a SET twice
 * (RFC 8935 receivers dedupe by jti).
 */
import { outboundRequest, OutboundUrlError, type OutboundPolicy } from '@idp/http';
import type { Logger } from '@idp/logger';
import { DELIVERY_PUSH } from './domain/event-types';
import type { StreamRecord } from './domain/stream-config';
import type { Collections } from './store/collections';

const LEASE_MS = 60_000;
const BATCH = 50;
const STREAMS_PER_PASS = 50;
const CONCURRENCY = 8;

export type PushOutcome = 'delivered' | 'rejected' | 'failed';

export interface PushDeps {
  c: Collections;
  logger: Logger;
  policy: OutboundPolicy;
  timeoutMs: number;
  maxBackoffSeconds: number;
  onOutcome?: (outcome: PushOutcome) => void;
  now?: () => Date;
}

/** Back-off after `failures` consecutive failures: 1, 2, 4, ... seconds, capped. */
export const pushBackoffMs = (failures: number, maxSeconds: number) =>
  Math.min(maxSeconds * 1000, 1000 * 2 ** Math.min(Math.max(failures - 1, 0), 20));

/** The RFC 8935 section 2.4 error of a 400 answer, when the body is one. */
function rfc8935Error(status: number, body: string): { err: string; description?: string } | undefined {
  if (status !== 400) return undefined;
  try {
    const json = JSON.parse(body) as { err?: unknown; description?: unknown };
    if (typeof json.err === 'string')
      return { err: json.err, ...(typeof json.description === 'string' ? { description: json.description } : {}) };
  } catch {
    // not JSON: a transient failure as far as we can tell
  }
  return undefined;
}

async function deliverStream(deps: PushDeps, stream: StreamRecord): Promise<void> {
  const now = () => deps.now?.() ?? new Date();
  const leaseUntil = new Date(now().getTime() + LEASE_MS);
  const leased = await deps.c.streams.findOneAndUpdate(
    { _id: stream._id, status: 'enabled', $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now() } }] },
    { $set: { leaseUntil } },
  );
  if (!leased) return;
  let failed = false;
  try {
    const endpoint = stream.delivery.endpointUrl!;
    for (;;) {
      const rows = await deps.c.events
        .find({ streamId: stream._id, state: 'pending', expiresAt: { $gt: now() } })
        .sort({ createdAt: 1, _id: 1 })
        .limit(BATCH)
        .toArray();
      if (!rows.length) break;
      for (const row of rows) {
        if (Date.now() > leaseUntil.getTime() - 5_000) return; // lease nearly over: the next pass goes on
        let outcome: PushOutcome;
        let detail: string | undefined;
        try {
          const res = await outboundRequest(endpoint, {
            method: 'POST',
            headers: {
              'content-type': 'application/secevent+jwt',
              accept: 'application/json',
              ...(stream.delivery.authorizationHeader ? { authorization: stream.delivery.authorizationHeader } : {}),
            },
            body: row.set,
            timeoutMs: deps.timeoutMs,
            maxResponseBytes: 4096,
            policy: deps.policy,
          });
          const refused = rfc8935Error(res.status, res.body);
          if (res.status >= 200 && res.status < 300) outcome = 'delivered';
          else if (refused) {
            outcome = 'rejected';
            detail = `${refused.err}${refused.description ? `: ${refused.description}` : ''}`.slice(0, 500);
          } else {
            outcome = 'failed';
            detail = `HTTP ${res.status}`;
          }
        } catch (err) {
          outcome = 'failed';
          detail = err instanceof OutboundUrlError ? `refused: ${err.message}` : (err as Error).message;
        }
        deps.onOutcome?.(outcome);
        if (outcome === 'failed') {
          failed = true;
          const failures = (stream.pushFailures ?? 0) + 1;
          await deps.c.streams.updateOne(
            { _id: stream._id },
            {
              $set: {
                pushFailures: failures,
                pushRetryAt: new Date(now().getTime() + pushBackoffMs(failures, deps.maxBackoffSeconds)),
              },
            },
          );
          deps.logger.warn(
            { tenantId: stream.tenantId, streamId: stream._id, failures, err: detail },
            'push delivery failed; backing off',
          );
          return;
        }
        await deps.c.events.updateOne(
          { _id: row._id, state: 'pending' },
          { $set: { state: outcome, ...(detail ? { error: detail } : {}) } },
        );
        if (outcome === 'rejected')
          deps.logger.warn(
            { tenantId: stream.tenantId, streamId: stream._id, jti: row.jti, err: detail },
            'receiver rejected a SET',
          );
      }
    }
  } finally {
    await deps.c.streams
      .updateOne(
        { _id: stream._id },
        failed
          ? { $unset: { leaseUntil: '' } }
          : { $unset: { leaseUntil: '', pushRetryAt: '' }, $set: { pushFailures: 0 } },
      )
      .catch(() => undefined);
  }
}

/** One pass over the push streams that are due. */
export async function pushPass(deps: PushDeps, only?: ReadonlySet<string>): Promise<void> {
  const now = deps.now?.() ?? new Date();
  const due = await deps.c.streams
    .find({
      'delivery.method': DELIVERY_PUSH,
      status: 'enabled',
      $or: [{ pushRetryAt: { $exists: false } }, { pushRetryAt: { $lte: now } }],
      ...(only ? { _id: { $in: [...only] } } : {}),
    })
    .limit(STREAMS_PER_PASS)
    .toArray();
  const withEvents: StreamRecord[] = [];
  for (const s of due)
    if (
      await deps.c.events.findOne(
        { streamId: s._id, state: 'pending', expiresAt: { $gt: now } },
        { projection: { _id: 1 } },
      )
    )
      withEvents.push(s);
  for (let i = 0; i < withEvents.length; i += CONCURRENCY) {
    await Promise.all(
      withEvents
        .slice(i, i + CONCURRENCY)
        .map((s) =>
          deliverStream(deps, s).catch((err: unknown) =>
            deps.logger.error({ streamId: s._id, err: (err as Error).message }, 'push pass failed'),
          ),
        ),
    );
  }
}

/** Runs passes every `intervalMs`, and at once when woken (new events); resolves when `signal` aborts. */
export function startPushWorker(
  deps: PushDeps,
  intervalMs: number,
  signal: AbortSignal,
): { wake: () => void; done: Promise<void> } {
  let wake: () => void = () => undefined;
  const done = (async () => {
    while (!signal.aborted) {
      await pushPass(deps).catch((err: unknown) =>
        deps.logger.error({ err: (err as Error).message }, 'push pass failed'),
      );
      await new Promise<void>((resolve) => {
        // One abort listener per wait, removed when the wait ends: left behind, one would pile up per pass.
        const end = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', end);
          resolve();
        };
        const timer = setTimeout(end, intervalMs);
        wake = end;
        signal.addEventListener('abort', end, { once: true });
      });
    }
  })();
  return { wake: () => wake(), done };
}
