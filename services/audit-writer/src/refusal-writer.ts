/**
 * The decision log's refusals (`idp.audit.nhe.refused.<tenant>`, published fire-and-forget by the nhe-delegation
 * sidecar) into hourly counters per (tenant, UTC hour, NHE identifier, error code, gate).
 *
 * Counted once under redelivery: each event's id is first inserted into nhe_token_refusal_events (its `_id`, so a
 * second insert of the same id fails on the primary key, on MongoDB and FerretDB alike), and only the events whose id
 * was new are added to the counters with `$inc` upserts. When adding fails, the ids just inserted are removed again
 * and the messages nak'ed, to be counted on redelivery. A writer killed between the two steps loses those counts
 * (never counts twice): refusals are best effort from end to end (docs/reference/behaviour-decisions.md).
 */
import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import { nheTokenRefusedSchema, refusalHour, refusalSubject, type NheTokenRefused } from '@idp/events';
import { isDuplicateKeyError } from '@idp/errors';
import type { Models, TokenRefusalEventDoc } from '@idp/db';
import type { mongo } from 'mongoose';
import type { Logger } from '@idp/logger';
import { deadLetter, nakDelayMs } from './writer';

export type RefusalOutcome = 'counted' | 'duplicate' | 'dead-letter' | 'retry';

export interface RefusalWriterDeps {
  models: Models;
  js: JetStreamClient;
  logger: Logger;
  onOutcome?: (outcome: RefusalOutcome, count: number) => void;
}

/** The event, or the reason it is not one (zod schema, and the subject must name the event's tenant). */
export function parseRefusalMessage(subject: string, data: string): { event: NheTokenRefused } | { reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { reason: 'not JSON' };
  }
  const result = nheTokenRefusedSchema.safeParse(json);
  if (!result.success)
    return {
      reason: result.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')
        .slice(0, 500),
    };
  if (subject !== refusalSubject(result.data.tenantId))
    return { reason: `subject ${subject} does not match tenantId ${result.data.tenantId}` };
  return { event: result.data };
}

interface CounterKey {
  tenantId: number;
  hour: Date;
  nheIdentifier: string;
  error: string;
  gate: string;
}

const keyOf = (e: NheTokenRefused): CounterKey => ({
  tenantId: e.tenantId,
  hour: refusalHour(new Date(e.at)),
  nheIdentifier: e.nheIdentifier ?? '',
  error: e.error,
  gate: e.gate,
});
const keyString = (k: CounterKey) => JSON.stringify([k.tenantId, k.hour.getTime(), k.nheIdentifier, k.error, k.gate]);

/**
 * Inserts the ids; returns those that were new (the others were counted before). A failure other than a duplicate
 * id throws, after removing what it inserted.
 */
async function claimIds(models: Models, events: NheTokenRefused[]): Promise<Set<string>> {
  if (!events.length) return new Set();
  const docs = events.map((e) => ({ _id: e.id, tenantId: e.tenantId, at: new Date(e.at) }));
  try {
    // The ids are strings (the events' UUIDs), which the driver's default document type does not expect of an _id.
    const collection = models.TokenRefusalEvent.collection as unknown as mongo.Collection<TokenRefusalEventDoc>;
    await collection.insertMany(docs, { ordered: false, writeConcern: { w: 'majority' } });
    return new Set(docs.map((d) => d._id));
  } catch (err) {
    const writeErrors =
      (err as { writeErrors?: Array<{ index?: number; code?: number; err?: { index?: number; code?: number } }> })
        .writeErrors ?? [];
    const failed = writeErrors.map((w) => ({ index: w.index ?? w.err?.index, code: w.code ?? w.err?.code }));
    if (!isDuplicateKeyError(err) || !failed.length || failed.some((f) => f.code !== 11000 || f.index === undefined)) {
      await models.TokenRefusalEvent.deleteMany({ _id: { $in: docs.map((d) => d._id) } }).catch(() => undefined);
      throw err;
    }
    const duplicates = new Set(failed.map((f) => f.index));
    return new Set(docs.filter((_, i) => !duplicates.has(i)).map((d) => d._id));
  }
}

/** Adds `n` to one counter; a concurrent first upsert of the same key (another replica) is retried as an update. */
async function addToCounter(models: Models, key: CounterKey, n: number, now: Date): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await models.TokenRefusalCounter.collection.updateOne(
        { ...key },
        { $inc: { count: n }, $set: { updatedAt: now } },
        { upsert: true, writeConcern: { w: 'majority' } },
      );
      return;
    } catch (err) {
      if (!isDuplicateKeyError(err) || attempt >= 3) throw err;
    }
  }
}

/** Writes one batch of refusal messages: counts the new ones, acks every message once its count is stored. */
export async function writeRefusalBatch(deps: RefusalWriterDeps, msgs: JsMsg[]): Promise<void> {
  const valid: Array<{ msg: JsMsg; event: NheTokenRefused }> = [];
  for (const msg of msgs) {
    const parsed = parseRefusalMessage(msg.subject, msg.string());
    if ('event' in parsed) valid.push({ msg, event: parsed.event });
    else deps.onOutcome?.(await deadLetter(deps, msg, parsed.reason), 1);
  }
  if (!valid.length) return;
  // The same event twice in one batch (a redelivery that caught up with its first delivery) is claimed once.
  const unique = [...new Map(valid.map((v) => [v.event.id, v.event])).values()];
  let fresh: Set<string>;
  try {
    fresh = await claimIds(deps.models, unique);
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, count: valid.length }, 'refusal ids not stored; nak');
    for (const { msg } of valid) msg.nak(nakDelayMs(msg.info.deliveryCount));
    deps.onOutcome?.('retry', valid.length);
    return;
  }
  const byKey = new Map<string, { key: CounterKey; ids: string[] }>();
  for (const e of unique) {
    if (!fresh.has(e.id)) continue;
    const key = keyOf(e);
    const k = keyString(key);
    const entry = byKey.get(k) ?? { key, ids: [] };
    entry.ids.push(e.id);
    byKey.set(k, entry);
  }
  const failedIds = new Set<string>();
  const now = new Date();
  for (const { key, ids } of byKey.values()) {
    try {
      await addToCounter(deps.models, key, ids.length, now);
    } catch (err) {
      deps.logger.error({ tenantId: key.tenantId, err: (err as Error).message }, 'refusal counter not updated; nak');
      for (const id of ids) failedIds.add(id);
    }
  }
  if (failedIds.size) {
    // Unclaimed again, so that the redelivery counts them.
    await deps.models.TokenRefusalEvent.deleteMany({ _id: { $in: [...failedIds] } }).catch((err: unknown) =>
      deps.logger.error({ err: (err as Error).message }, 'could not release refusal ids; their counts are lost'),
    );
  }
  let counted = 0;
  let duplicates = 0;
  let retried = 0;
  for (const { msg, event } of valid) {
    if (failedIds.has(event.id)) {
      msg.nak(nakDelayMs(msg.info.deliveryCount));
      retried += 1;
      continue;
    }
    if (fresh.delete(event.id)) counted += 1;
    else duplicates += 1;
    msg.ack();
  }
  deps.onOutcome?.('counted', counted);
  deps.onOutcome?.('duplicate', duplicates);
  deps.onOutcome?.('retry', retried);
}
