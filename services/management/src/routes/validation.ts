import type { Request } from 'express';
import type { z } from 'zod';
import { problems } from '@idp/errors';

/** Parses part of a request with a zod schema; a failure is a 400 problem listing every failing field path. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'params'): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw problems.validation(
    `the request ${where} is not valid`,
    result.error.issues.map((i) => ({
      name: [where, ...i.path.map(String)].join('.'),
      reason: i.message,
    })),
  );
}

export const tenantIdOf = (req: Request): number => Number(req.params.tenantId);
