import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Models, TokenAuditDoc } from '@idp/db';
import { toObjectId } from '@idp/db';
import { problems } from '@idp/errors';
import { requireScope } from '../auth/bearer';
import { parse, tenantIdOf } from './validation';

const listQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().regex(/^[0-9a-f]{24}$/, 'must be a cursor returned by a previous page').optional(),
    userId: z.string().max(128).optional(),
    nheId: z.string().max(64).optional(),
  })
  .strict();

function auditView(doc: TokenAuditDoc & { _id: unknown }) {
  return {
    id: String(doc._id),
    jti: doc.jti,
    userId: doc.userId,
    nheId: doc.nheId,
    nheIdentifier: doc.nheIdentifier,
    clientId: doc.clientId,
    clientNumericId: doc.clientNumericId,
    resourceServer: doc.resourceServer,
    scopes: doc.scopes,
    ttl: doc.ttl,
    sourceIp: doc.sourceIp,
    issuedAt: doc.issuedAt,
    ...(doc.dpopJkt ? { dpopJkt: doc.dpopJkt } : {}),
  };
}

/**
 * Token audit, read only. There is no code path here that updates or deletes rows; every other method is 405
 * with `Allow: GET` (spec, "Token audit record").
 */
export function tokenAuditRoutes(deps: { models: Models }): Router {
  const router = Router({ mergeParams: true });
  const methodNotAllowed = (_req: Request, _res: Response, next: NextFunction) => next(problems.methodNotAllowed(['GET', 'HEAD']));

  router.get('/', requireScope('auth.nhe.audit.list'), async (req, res, next) => {
    try {
      const tenantId = tenantIdOf(req);
      const q = parse(listQuery, req.query, 'query');
      const filter: Record<string, unknown> = { tenantId };
      if (q.userId) filter.userId = q.userId;
      if (q.nheId) filter.nheId = q.nheId;
      if (q.cursor) filter._id = { $lt: toObjectId(q.cursor) };
      const rows = await deps.models.TokenAudit.find(filter).sort({ _id: -1 }).limit(q.limit + 1).lean<Array<TokenAuditDoc & { _id: unknown }>>();
      const page = rows.slice(0, q.limit);
      res.json({ items: page.map(auditView), nextCursor: rows.length > q.limit ? String(page[page.length - 1]?._id) : null });
    } catch (err) {
      next(err);
    }
  });
  router.all('/', methodNotAllowed);

  router.get('/count', requireScope('auth.nhe.audit.list'), async (req, res, next) => {
    try {
      res.json({ count: await deps.models.TokenAudit.countDocuments({ tenantId: tenantIdOf(req) }) });
    } catch (err) {
      next(err);
    }
  });
  router.all('/count', methodNotAllowed);
  router.all('/*rest', methodNotAllowed);
  return router;
}
