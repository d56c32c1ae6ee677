import type { Models } from '@idp/db';
import { isDuplicateKeyError } from '@idp/errors';

/**
 * Claims a scheduled tick for one replica: the first to insert the tick's document wins (unique _id, atomic on
 * MongoDB and FerretDB). Outside Kubernetes every management replica schedules the jobs; this makes exactly one
 * of them run each tick. One small document per tick stays behind in `counters`.
 */
export function counterTickClaim(models: Models): (key: string) => Promise<boolean> {
  return (key) =>
    models.Counter.create({ _id: `job-tick:${key}`, seq: 0 }).then(
      () => true,
      (err: unknown) => {
        if (isDuplicateKeyError(err)) return false;
        throw err;
      },
    );
}
