import { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import type { Models, NheDoc, TenantDoc } from '@idp/db';
import { NHE_SETTINGS_DEFAULTS } from '@idp/db';
import { problems } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { callerOf, requireScope } from '../auth/bearer';
import { parse, tenantIdOf } from './validation';

export interface NheRouteDeps {
  models: Models;
  logger: Logger;
}

const scopeString = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be a scope token (RFC 6749 section 3.3)');

/** An identifier is used verbatim in `act.sub = "nhe:" + identifier` and as agent.id: a conservative charset. */
export const nheIdentifier = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, dot, underscore and hyphen; 1 to 128 characters, starting with a letter or digit');

export const createNheBody = z
  .object({
    identifier: nheIdentifier,
    type: z.string().min(1).max(64),
    allowedScopes: z.array(scopeString).max(200),
    maxTokenLifetime: z.number().int().positive().optional(),
    operator: z.string().min(1).max(256),
    model: z.object({ name: z.string().max(128).optional(), version: z.string().max(64).optional(), provider: z.string().max(128).optional() }).strict().optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

export function nheView(doc: NheDoc & { _id: unknown }) {
  return {
    id: String(doc._id),
    identifier: doc.identifier,
    type: doc.type,
    allowedScopes: doc.allowedScopes,
    maxTokenLifetime: doc.maxTokenLifetime,
    operator: doc.operator,
    ...(doc.model ? { model: doc.model } : {}),
    enabled: doc.enabled,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** NHE registrations (spec, "Management API: NHE registration"). Issue 6 adds list, get, count, patch, delete. */
export function nheRegistrationRoutes(deps: NheRouteDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/', requireScope('auth.nhe.create'), async (req: Request, res: Response, next: NextFunction) => {
    try {
      const tenantId = tenantIdOf(req);
      const body = parse(createNheBody, req.body, 'body');
      const tenant = await deps.models.Tenant.findById(tenantId).lean<TenantDoc>();
      if (!tenant) throw problems.notFound('tenant not found');
      const settings = { ...NHE_SETTINGS_DEFAULTS, ...(tenant.settings?.nhe ?? {}) };
      if (!settings.allowedNheTypes.includes(body.type)) {
        throw problems.validation('the NHE type is not allowed in this tenant', [
          { name: 'body.type', reason: `must be one of: ${settings.allowedNheTypes.join(', ')}` },
        ]);
      }
      const maxTokenLifetime = body.maxTokenLifetime ?? settings.defaultMaxTokenLifetime;
      if (maxTokenLifetime > settings.hardMaxTokenLifetime) {
        throw problems.validation('maxTokenLifetime exceeds the tenant hard maximum', [
          { name: 'body.maxTokenLifetime', reason: `must be at most settings.nhe.hardMaxTokenLifetime (${settings.hardMaxTokenLifetime})` },
        ]);
      }
      const count = await deps.models.Nhe.countDocuments({ tenantId });
      if (count >= settings.maxNhePerTenant) {
        throw problems.limitExceeded(`the tenant already has ${count} NHE registrations (settings.nhe.maxNhePerTenant = ${settings.maxNhePerTenant})`, {
          name: 'settings.nhe.maxNhePerTenant',
          value: settings.maxNhePerTenant,
        });
      }
      const created = await deps.models.Nhe.create({ ...body, maxTokenLifetime, tenantId });
      const caller = callerOf(req);
      deps.logger.info({ tenantId, caller: { tenantId: caller.tenantId, clientId: caller.clientId }, nheId: String(created._id), action: 'nhe.create' }, 'management write');
      res.status(201).location(`${req.baseUrl}/${String(created._id)}`).json(nheView(created.toObject()));
    } catch (err) {
      next(err);
    }
  });

  return router;
}
