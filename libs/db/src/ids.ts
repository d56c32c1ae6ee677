import { isValidObjectId, Types } from 'mongoose';
import { isDuplicateKeyError } from '@idp/errors';
import type { Models } from './models';
import type { CounterDoc } from './models/schemas';

/**
 * Runs an upsert again when it lost the race to insert the document (duplicate key): the second run finds the
 * document the winner inserted and updates it. MongoDB retries such upserts itself; FerretDB does not, and
 * replicas starting together (bootstrap, job rows) or writers creating the same counter would fail for nothing.
 */
export async function upsertRacing<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
    return upsert();
  }
}

/** Next value of a named sequence (numeric client ids, tenant ids). */
export async function nextSequence(models: Models, name: string, floor = 1000): Promise<number> {
  const doc = await upsertRacing(() =>
    models.Counter.findOneAndUpdate(
      { _id: name },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true },
    )
      // A stored counter is read as it is: an older or hand-restored row may lack seq.
      .lean<Partial<CounterDoc> | null>()
      .exec(),
  );
  const seq = doc?.seq ?? 1;
  return floor + seq;
}

/**
 * Moves a named sequence forward so that its next value is above `inUse` (never backwards): for a counter found
 * handing out values already taken (restored from a backup behind the rows, or FerretDB's non-atomic `$inc`).
 */
async function advanceSequence(models: Models, name: string, inUse: number, floor = 1000): Promise<void> {
  await upsertRacing(() =>
    models.Counter.updateOne({ _id: name }, { $max: { seq: inUse - floor } }, { upsert: true }).exec(),
  );
}

/** How many numeric ids `insertClient` tries before it gives up (it moves the counter on after the first collision). */
const MAX_NUMERIC_ID_ATTEMPTS = 20;

/**
 * Inserts a client row with the next numeric client id; resolves to undefined when the tenant already has a client
 * with that clientId. The id comes from a counter: on FerretDB concurrent increments can hand out the same value,
 * and a counter restored from a backup can lag behind the rows, so a duplicate that is not the clientId moves the
 * counter past the highest id in use and takes the next value.
 */
export async function insertClient(
  models: Models,
  row: Record<string, unknown> & { tenantId: number; clientId: string },
) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await models.Client.create({ ...row, numericId: await nextSequence(models, 'clients') });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (await models.Client.exists({ tenantId: row.tenantId, clientId: row.clientId })) return undefined;
      if (attempt >= MAX_NUMERIC_ID_ATTEMPTS) throw err;
      // at(0): undefined when no client row has a numericId yet (the duplicate was on another index).
      const highest = (
        await models.Client.find({}, { numericId: 1 })
          .sort({ numericId: -1 })
          .limit(1)
          .lean<Array<{ numericId: number }>>()
      ).at(0);
      if (highest) await advanceSequence(models, 'clients', highest.numericId);
    }
  }
}

/** Parses a path id into an ObjectId, or undefined when it cannot be one (callers answer 404). */
export function toObjectId(id: string): Types.ObjectId | undefined {
  return isValidObjectId(id) && /^[0-9a-f]{24}$/i.test(id) ? new Types.ObjectId(id) : undefined;
}

/** A new document id, as a string (an id chosen before the document is written, e.g. to link to it first). */
export const newObjectId = (): string => String(new Types.ObjectId());
