import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { oauthErrors } from '@idp/errors';
import { constantTimeEqual } from '@idp/tokens';
import { exchangeToken, type ExchangeDeps } from '../domain/exchange';

const requestSchema = z
  .object({
    tenantId: z.number().int().nonnegative(),
    clientId: z.string().min(1).max(256),
    clientNumericId: z.number().int(),
    params: z.record(z.string(), z.string().optional()),
    dpop: z.object({ proof: z.string().max(8192), htm: z.string(), htu: z.string() }).optional(),
    sourceIp: z.string().max(64),
  })
  .strict();

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * The sidecar's only route. It answers oidc-core alone: the caller must come from loopback and present the
 * shared secret (compared in constant time).
 */
export function tokenExchangeRoutes(deps: ExchangeDeps, sidecarSecret: string): Router {
  const router = Router();
  router.post(
    '/internal/token-exchange',
    (req: Request, res: Response, next: NextFunction) => {
      const presented = req.get('x-sidecar-secret') ?? '';
      if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !constantTimeEqual(presented, sidecarSecret)) {
        res.status(403).json({ error: 'access_denied', error_description: 'the token-exchange sidecar only answers oidc-core' });
        return;
      }
      next();
    },
    express.json({ limit: '64kb' }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const parsed = requestSchema.safeParse(req.body);
        if (!parsed.success) throw oauthErrors.invalidRequest('malformed forwarded request');
        const result = await exchangeToken(deps, parsed.data);
        res.setHeader('Cache-Control', 'no-store');
        res.json(result);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
