import { ProblemError, problems } from './problem-error';

interface MongoLikeError {
  name?: string;
  code?: number;
  keyValue?: Record<string, unknown>;
  keyPattern?: Record<string, unknown>;
  errors?: Record<string, { path?: string; message?: string }>;
}

/**
 * True for MongoDB duplicate-key errors (E11000), also when wrapped in a bulk write error, and for FerretDB's
 * answer to an update that collides with a unique index (code 1, "UNIQUE constraint failed": its inserts give
 * 11000, its updates do not).
 */
export function isDuplicateKeyError(err: unknown): boolean {
  // Anything can be thrown, null and undefined included.
  const e = err as
    | (MongoLikeError & {
        message?: string;
        writeErrors?: Array<{ code?: number; err?: { code?: number } }>;
      })
    | null
    | undefined;
  if (e?.code === 11000) return true;
  if (e?.code === 1 && /UNIQUE constraint failed/.test(String(e.message ?? ''))) return true;
  return (
    Array.isArray(e?.writeErrors) &&
    e.writeErrors.length > 0 &&
    e.writeErrors.every((w) => (w.code ?? w.err?.code) === 11000)
  );
}

/**
 * Maps the errors MongoDB and mongoose raise for bad input to problems; anything else is returned unchanged
 * so that the caller's generic handler logs it and answers 500.
 */
export function mapMongoError(err: unknown): unknown {
  const e = err as MongoLikeError | null | undefined; // anything can be thrown
  if (isDuplicateKeyError(err)) {
    const fields = Object.keys(e?.keyPattern ?? e?.keyValue ?? {}).filter((k) => k !== 'tenantId');
    return problems.conflict(`a resource with the same ${fields.join(', ') || 'key'} already exists`);
  }
  if (e?.name === 'ValidationError' && e.errors) {
    return problems.validation(
      'the resource failed validation',
      Object.values(e.errors).map((v) => ({ name: `body.${v.path ?? ''}`, reason: v.message ?? 'invalid' })),
    );
  }
  if (e?.name === 'CastError') {
    return problems.validation('a value has the wrong type', [
      { name: String((e as { path?: string }).path ?? ''), reason: 'wrong type' },
    ]);
  }
  return err;
}

export { ProblemError };
