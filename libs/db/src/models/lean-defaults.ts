import type { Query, Schema } from 'mongoose';

/**
 * Schema defaults for documents read with `lean()`. A lean read returns what is stored, and mongoose applies no
 * default to it: a document written by an older version, restored from a backup or fixed by hand may lack a field
 * that every current writer sets (a user without `groupIds`), and a reader that trusts the declared type then fails
 * on it (`user.groupIds.map` turned the token endpoint into a 500). This fills each absent top-level field that has a
 * default, as a hydrated document would, so readers see the shape the schema declares.
 *
 * Only top-level fields: nested settings are read with their own fallbacks (`settings?.x ?? DEFAULT`), and creating
 * parent objects there would change what "not set" means. A field left out by an inclusive projection stays out.
 */
const READS: Array<'find' | 'findOne' | 'findOneAndUpdate' | 'findOneAndReplace' | 'findOneAndDelete'> = [
  'find',
  'findOne',
  'findOneAndUpdate',
  'findOneAndReplace',
  'findOneAndDelete',
];

/** The part of mongoose's SchemaType that its typings leave out (public in its API docs). */
interface PathWithDefault {
  defaultValue?: unknown;
  getDefault(scope: object, init: boolean, options: { skipCast: boolean }): unknown;
}

export function leanDefaults(schema: Schema): void {
  let fields: Array<[string, PathWithDefault]> | undefined;
  const topLevelWithDefault = () =>
    (fields ??= (Object.entries(schema.paths) as unknown as Array<[string, PathWithDefault]>).filter(
      ([path, type]) => !path.includes('.') && path !== '_id' && type.defaultValue !== undefined,
    ));

  schema.post(READS, function (this: Query<unknown, unknown>, result: unknown) {
    if (!this.mongooseOptions().lean || result === null || typeof result !== 'object') return;
    const included = inclusiveFields(this.projection() as Record<string, unknown> | undefined);
    const docs = Array.isArray(result) ? (result as unknown[]) : [resultDocument(result)];
    for (const doc of docs) {
      if (!doc || typeof doc !== 'object') continue;
      const d = doc as Record<string, unknown>;
      for (const [path, type] of topLevelWithDefault()) {
        if (d[path] !== undefined || (included && !included.has(path))) continue;
        const value: unknown = type.getDefault(d, false, { skipCast: true });
        if (value !== undefined) d[path] = value;
      }
    }
  });
}

/** The fields an inclusive projection names (`{ roleIds: 1 }`), or undefined when every field is returned. */
function inclusiveFields(projection: Record<string, unknown> | undefined): Set<string> | undefined {
  if (!projection) return undefined;
  const named = Object.entries(projection).filter(([k]) => k !== '_id');
  if (!named.some(([, v]) => v === 1 || v === true)) return undefined;
  return new Set(named.map(([k]) => k.split('.')[0]!));
}

/** `findOneAndUpdate(..., { includeResultMetadata: true })` answers `{ value, ok }`; the document is `value`. */
function resultDocument(result: object): unknown {
  return 'lastErrorObject' in result && 'value' in result ? (result as { value: unknown }).value : result;
}
