/**
 * SCIM errors (RFC 7644 section 3.12): every refusal of the SCIM service provider is an
 * `urn:ietf:params:scim:api:messages:2.0:Error` body with the HTTP status as a string and, for 400s, a `scimType`
 * from the RFC's table. Nothing the client sends ends as a 500.
 */
import type { ErrorRequestHandler } from 'express';
import { ScimError as PatchLibraryError } from 'scim-patch';
import type { Logger } from '@idp/logger';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 section 3.12, table 9. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }
}

export const scimErrors = {
  invalidFilter: (detail: string) => new ScimError(400, detail, 'invalidFilter'),
  invalidSyntax: (detail: string) => new ScimError(400, detail, 'invalidSyntax'),
  invalidValue: (detail: string) => new ScimError(400, detail, 'invalidValue'),
  invalidPath: (detail: string) => new ScimError(400, detail, 'invalidPath'),
  noTarget: (detail: string) => new ScimError(400, detail, 'noTarget'),
  mutability: (detail: string) => new ScimError(400, detail, 'mutability'),
  uniqueness: (detail: string) => new ScimError(409, detail, 'uniqueness'),
  tooMany: (detail: string) => new ScimError(400, detail, 'tooMany'),
  unauthorized: (detail: string) => new ScimError(401, detail),
  forbidden: (detail: string) => new ScimError(403, detail),
  notFound: (detail: string) => new ScimError(404, detail),
  preconditionFailed: (detail: string) => new ScimError(412, detail),
  unavailable: (detail: string) => new ScimError(503, detail),
};

export function scimErrorBody(status: number, detail: string, scimType?: ScimType) {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

/** scim-patch's own refusals, in RFC 7644 words (its `scimCode` is already one of table 9's). */
function fromPatchLibrary(err: PatchLibraryError): ScimError {
  const known: ScimType[] = ['invalidPath', 'noTarget', 'invalidValue', 'invalidSyntax', 'mutability'];
  const code = known.find((k) => k === err.scimCode) ?? 'invalidValue';
  return new ScimError(400, err.message, code);
}

/** Error middleware of the SCIM router: SCIM bodies for everything, a generic 500 only for what nobody sent. */
export function scimErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    let e: ScimError;
    if (err instanceof ScimError) e = err;
    else if (err instanceof PatchLibraryError) e = fromPatchLibrary(err);
    else if (isBodyParserError(err)) {
      e =
        err.status === 413
          ? new ScimError(413, 'the request body is too large')
          : scimErrors.invalidSyntax('the request body is not valid JSON');
    } else {
      logger.error({ err }, 'SCIM request failed');
      e = new ScimError(500, 'internal error');
    }
    res
      .status(e.status)
      .type('application/scim+json')
      .json(scimErrorBody(e.status, e.message, e.scimType));
  };
}

function isBodyParserError(err: unknown): err is { status: number; type?: string } {
  return (
    typeof err === 'object' &&
    err !== null &&
    typeof (err as { status?: unknown }).status === 'number' &&
    (err as { status: number }).status < 500 &&
    'type' in err
  );
}
