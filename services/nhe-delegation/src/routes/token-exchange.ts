import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { forwardedExchangeSchema } from '@idp/delegation';
import { oauthErrors } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { constantTimeEqual } from '@idp/tokens';
import { exchangeToken, type ExchangeDeps } from '../domain/exchange';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
export const EXCHANGE_PATH = '/internal/token-exchange';

/**
 * The sidecar's only route. It answers oidc-core alone: the caller must come from loopback and present the
 * shared secret (compared in constant time).
 */
export function tokenExchangeRoutes(deps: ExchangeDeps, sidecarSecret: string, logger: Logger): Router {
  const router = Router();
  router.post(
    EXCHANGE_PATH,
    (req: Request, res: Response, next: NextFunction) => {
      const presented = req.get('x-sidecar-secret') ?? '';
      if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !constantTimeEqual(presented, sidecarSecret)) {
        // This route has no per-request log line (its decision record is one): a refused caller gets its own.
        logger.warn({ remoteAddress: req.socket.remoteAddress, secretPresented: presented !== '' }, 'token-exchange call refused: not oidc-core');
        res.status(403).json({ error: 'access_denied', error_description: 'the token-exchange sidecar only answers oidc-core' });
        return;
      }
      next();
    },
    express.json({ limit: '64kb' }),
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const parsed = forwardedExchangeSchema.safeParse(req.body);
        if (!parsed.success) throw oauthErrors.invalidRequest('malformed forwarded request');
        const result = await exchangeToken(deps, parsed.data);
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Pragma', 'no-cache');
        for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
        res.json(result.body);
      } catch (err) {
        next(err);
      }
    },
  );
  return router;
}
