/**
 * The Orders API: what a customer's API does with this identity provider's tokens, written only with the public
 * entry points of @idp/resource-server and express. It accepts a user's token and an agent's (NHE) delegated
 * token, logs the agent line for every request (the user stays the subject, the agent is named beside it), refuses
 * a token whose agent was disabled once the SSF poll receiver has learnt it, and serves its RFC 9728 metadata.
 */
import express, { type Express } from 'express';
import {
  auditLine,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type AuditLine,
  type Verifier,
} from '@idp/resource-server';
import { accessOf, protectedResourceMetadataHandler, requireAccess } from '@idp/resource-server/express';

export interface OrdersApiOptions {
  /** The tenant's issuer. */
  issuer: string;
  /** This API's resource identifier: its public URL and the tokens' aud. */
  resource: string;
  verifier: Verifier;
  /** Where the audit lines go (the API's own logger). */
  log: (line: { event: string } & AuditLine) => void;
  /** What /healthz reports about the revocation feed. */
  revocationStatus?: () => unknown;
}

const ORDERS = [
  { id: 'o-1001', item: 'Paper, A4, 5 reams', total: 24.5 },
  { id: 'o-1002', item: 'Toner cartridge', total: 61 },
];

export function createOrdersApi(o: OrdersApiOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  const resourceMetadataUrl = protectedResourceMetadataUrl(o.resource);
  app.use(
    protectedResourceMetadataHandler(
      protectedResourceMetadata({
        resource: o.resource,
        authorizationServers: [o.issuer],
        scopesSupported: ['orders:read', 'orders:write'],
        dpopSigningAlgValuesSupported: o.verifier.dpopAlgorithms,
        resourceName: 'Orders API',
      }),
    ),
  );

  app.get('/orders', requireAccess(o.verifier, { scopes: ['orders:read'], resourceMetadataUrl }), (req, res) => {
    const access = accessOf(req);
    o.log({ event: 'orders.list', ...auditLine(access) });
    res.json({
      user: access.userId,
      delegated: access.delegation !== undefined,
      agent: access.delegation?.agent ?? null,
      orders: ORDERS,
    });
  });

  // Refunds are for people: an agent's token is refused here (403 insufficient_scope), whatever its scopes.
  app.post(
    '/orders/:id/refund',
    requireAccess(o.verifier, { scopes: ['orders:write'], delegation: 'deny', resourceMetadataUrl }),
    (req, res) => {
      const access = accessOf(req);
      o.log({ event: 'orders.refund', ...auditLine(access) });
      res.status(202).json({ order: req.params.id, refundedBy: access.userId });
    },
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', revocations: o.revocationStatus?.() ?? null });
  });
  return app;
}
