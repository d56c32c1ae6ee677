/**
 * Poll delivery (RFC 8936). One POST acknowledges what the receiver processed and returns what is still pending:
 *
 * - `ack`: jtis the receiver processed; they are never returned again (the rows become tombstones until they
 *   expire, so a rewrite of the same kill-switch entry stays a duplicate);
 * - `setErrs`: `{jti: {err, description}}` for SETs the receiver could not process; they count as answered (the
 *   receiver has them; sending them again cannot help), are logged with the row and are not returned again;
 * - `maxEvents` (default and cap SSF_POLL_MAX_EVENTS; 0 = acknowledge only), `returnImmediately` (default false:
 *   wait up to SSF_POLL_WAIT_SECONDS for an event);
 * - the answer is `{sets: {jti: SET}, moreAvailable}`, oldest first. Unacknowledged SETs come back in the next poll
 *   (at least once). A paused stream returns nothing (its events are held); a disabled one has none.
 */
import type { Socket } from 'node:net';
import { OAuthError } from '@idp/errors';
import { z } from 'zod';
import type { StreamRecord } from './domain/stream-config';
import type { Collections } from './store/collections';

const jti = z.string().min(1).max(128);
export const pollRequestSchema = z
  .object({
    ack: z.array(jti).max(1000).optional(),
    setErrs: z
      .record(jti, z.object({ err: z.string().max(200), description: z.string().max(1000).optional() }))
      .optional(),
    maxEvents: z.number().int().min(0).optional(),
    returnImmediately: z.boolean().optional(),
  })
  .strict();

/** Wakes waiting polls of a stream when events are written in this process (other replicas' writes: next check). */
export class PollWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  notify(streamIds: Iterable<string>): void {
    for (const id of streamIds) for (const wake of this.waiting.get(id) ?? []) wake();
  }

  /** Resolves after `ms`, or earlier when the stream is notified. */
  wait(streamId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(streamId);
      if (!set) this.waiting.set(streamId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        if (!set!.size) this.waiting.delete(streamId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }
}

export interface PollDeps {
  c: Collections;
  waiters: PollWaiters;
  maxEvents: number;
  waitMs: number;
}

/** Interval of the database check while a long poll waits (events written by another replica). */
const RECHECK_MS = 500;

export async function pollStream(
  deps: PollDeps,
  stream: StreamRecord,
  body: unknown,
  socket?: Socket,
): Promise<{ sets: Record<string, string>; moreAvailable: boolean }> {
  const parsed = pollRequestSchema.safeParse(body ?? {});
  if (!parsed.success)
    throw new OAuthError(
      'invalid_request',
      parsed.error.issues
        .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
        .join('; ')
        .slice(0, 500),
      400,
    );
  const input = parsed.data;
  if (input.ack?.length) {
    await deps.c.events.updateMany(
      { streamId: stream._id, jti: { $in: input.ack }, state: 'pending' },
      { $set: { state: 'acknowledged' } },
    );
  }
  for (const [id, error] of Object.entries(input.setErrs ?? {})) {
    await deps.c.events.updateOne(
      { streamId: stream._id, jti: id, state: 'pending' },
      {
        $set: {
          state: 'rejected',
          error: `${error.err}${error.description ? `: ${error.description}` : ''}`.slice(0, 500),
        },
      },
    );
  }
  const max = Math.min(input.maxEvents ?? deps.maxEvents, deps.maxEvents);
  if (max === 0 || stream.status !== 'enabled') return { sets: {}, moreAvailable: false };
  const deadline =
    Date.now() + (input.returnImmediately === false || input.returnImmediately === undefined ? deps.waitMs : 0);
  for (;;) {
    const rows = await deps.c.events
      .find(
        { streamId: stream._id, state: 'pending', expiresAt: { $gt: new Date() } },
        { projection: { jti: 1, set: 1 } },
      )
      .sort({ createdAt: 1, _id: 1 })
      .limit(max + 1)
      .toArray();
    if (rows.length || Date.now() >= deadline || socket?.destroyed) {
      const sets: Record<string, string> = {};
      for (const r of rows.slice(0, max)) sets[r.jti] = r.set;
      return { sets, moreAvailable: rows.length > max };
    }
    await deps.waiters.wait(stream._id, Math.min(RECHECK_MS, deadline - Date.now()));
  }
}
