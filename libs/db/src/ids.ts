import { isValidObjectId, Types } from 'mongoose';
import type { Models } from './models';

/** Next value of a named sequence (numeric client ids, tenant ids). */
export async function nextSequence(models: Models, name: string, floor = 1000): Promise<number> {
  const doc = await models.Counter.findOneAndUpdate(
    { _id: name },
    { $inc: { seq: 1 } },
    { upsert: true, returnDocument: 'after', setDefaultsOnInsert: true },
  ).lean();
  const seq = doc?.seq ?? 1;
  return floor + seq;
}

/** Parses a path id into an ObjectId, or undefined when it cannot be one (callers answer 404). */
export function toObjectId(id: string): Types.ObjectId | undefined {
  return isValidObjectId(id) && /^[0-9a-f]{24}$/i.test(id) ? new Types.ObjectId(id) : undefined;
}
