/** Schema pieces shared by the route declarations (see route.ts for how routes use them). */
import { z } from 'zod';
import { PROBLEM_TYPE_BASE } from '@idp/errors';

/** The problem kinds of @idp/errors: `type` is PROBLEM_TYPE_BASE + kind, stable per kind. */
export const PROBLEM_KINDS = [
  'validation-error',
  'unauthorized',
  'forbidden',
  'not-found',
  'method-not-allowed',
  'conflict',
  'limit-exceeded',
  'payload-too-large',
  'unsupported-media-type',
  'service-unavailable',
  'internal-error',
] as const;

export const problemSchema = z
  .object({
    type: z.enum(PROBLEM_KINDS.map((k) => PROBLEM_TYPE_BASE + k) as [string, ...string[]]),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    invalid_params: z
      .array(z.object({ name: z.string(), reason: z.string() }))
      .optional()
      .describe('validation-error: every failing field path'),
    required_scope: z.string().optional().describe('forbidden: the missing scope'),
    limit: z
      .object({ name: z.string(), value: z.number() })
      .optional()
      .describe('limit-exceeded: the limit that was reached'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** A MongoDB ObjectId as it appears in paths and bodies. */
export const objectId = z.string().regex(/^[0-9a-f]{24}$/, 'must be a 24-character hexadecimal id');
/** Path ids: anything else is 404 rather than 400, so a typo reads as "no such resource". */
export const objectIdParam = z.string().max(64);
export const tenantIdParam = z.string().regex(/^(0|[1-9]\d{0,14})$/, 'must be a tenant id (digits, no leading zero)');
export const tenantParams = z.object({ tenantId: tenantIdParam }).strict();

export const isoDate = z.iso.datetime();

/** A scope token (RFC 6749 section 3.3). */
export const scopeString = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be a scope token (RFC 6749 section 3.3)');
export const scopeList = z.array(scopeString).max(200);

/** Query booleans: exactly `true` or `false`. */
export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');

export const cursorParam = z.string().regex(/^[0-9a-f]{24}$/, 'must be a cursor returned by a previous page');
export const limitParam = z.coerce.number().int().min(1).max(200).default(50);

/** `limit` and `cursor`: extend with a route's filters, then `.strict()`. */
export const pageQuery = z.object({ limit: limitParam, cursor: cursorParam.optional() });

/** A page of items: `nextCursor` is null on the last page. */
export function page<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() }).meta({ id });
}

export const countSchema = z.object({ count: z.number().int().min(0) }).meta({ id: 'Count' });

/** Empty JSON object body for action routes that take no input (`{}` or no body). */
export const emptyBody = z.object({}).strict();
