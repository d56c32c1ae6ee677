/**
 * Authorization of stream management and polling (SSF 1.0 section 7.1 authorization_schemes: OAuth 2.0): a JWT
 * access token of THIS tenant (issuer `{PUBLIC_BASE_URL}/auth/{tenantId}` of the path) for the built-in audience
 * `urn:idp:ssf` carrying the scope `ssf.manage`, verified with the shared verifier (@idp/resource-server, RFC 9068
 * `typ: at+jwt`, the tenant's keys; DPoP-bound tokens with a DPoP proof). The receiver is the token's `client_id`:
 * it sees and changes only its own streams. Delegated (NHE) tokens are refused.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { OAuthError } from '@idp/errors';
import { memoryReplayStore, ResourceServerError, verifyAccessToken, type ReplayStore } from '@idp/resource-server';
import { CLAIM_NHE_DELEGATION, SSF_AUDIENCE, SSF_MANAGE_SCOPE } from '@idp/tokens';

export interface Receiver {
  tenantId: number;
  clientId: string;
}

export const receiverOf = (req: Request): Receiver => (req as unknown as { receiver: Receiver }).receiver;

export interface ReceiverAuthDeps {
  publicBaseUrl: string;
  /** The tenant's public JWKS (cached), or undefined when the tenant does not exist. */
  tenantJwks: (tenantId: number) => Promise<JSONWebKeySet | undefined>;
  replayStore?: (tenantId: number) => ReplayStore;
}

const DPOP_ALGORITHMS = ['ES256', 'ES384', 'Ed25519', 'EdDSA', 'RS256', 'PS256'];
const CHALLENGE = { realm: 'ssf', dpopAlgorithms: DPOP_ALGORITHMS };

/** Answers a refusal as RFC 6750 / RFC 9449 say: the status, the challenge, and the error body (none without a token). */
function refuse(res: Response, err: ResourceServerError): void {
  res
    .status(err.status)
    .set({ ...err.headers(CHALLENGE), 'Cache-Control': 'no-store' })
    .json(err.toJSON());
}

export function authenticateReceiver(deps: ReceiverAuthDeps): RequestHandler {
  const fallback = memoryReplayStore();
  const replayStore =
    deps.replayStore ??
    ((tenantId: number) => ({
      remember: (key: string, expiresAt: Date) => fallback.remember(`${tenantId}:${key}`, expiresAt),
    }));
  // One key resolver per key set the lookup returns (the lookup caches, so keys are imported once per refresh).
  const keySets = new WeakMap<JSONWebKeySet, JWTVerifyGetKey>();
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const tenantId = Number(req.params.tenantId);
      const jwks = await deps.tenantJwks(tenantId);
      if (!jwks) throw new OAuthError('not_found', 'unknown tenant', 404);
      let keySet = keySets.get(jwks);
      if (!keySet) {
        keySet = createLocalJWKSet(jwks);
        keySets.set(jwks, keySet);
      }
      const issuer = `${deps.publicBaseUrl}/auth/${tenantId}`;
      let payload;
      try {
        ({ payload } = await verifyAccessToken(req.get('authorization'), {
          key: keySet,
          issuer,
          audience: SSF_AUDIENCE,
          typ: 'at+jwt',
          algorithms: ['ES256', 'RS256'],
          dpop: {
            proof: req.headersDistinct.dpop ?? req.get('dpop'),
            htm: req.method,
            htu: `${deps.publicBaseUrl}${req.originalUrl}`,
            algorithms: DPOP_ALGORITHMS,
          },
          replay: replayStore(tenantId),
        }));
      } catch (err) {
        if (err instanceof ResourceServerError) return refuse(res, err);
        throw err;
      }
      if (payload[CLAIM_NHE_DELEGATION] === true)
        return refuse(
          res,
          new ResourceServerError('invalid_token', 'claim_invalid', 'delegated tokens cannot manage streams'),
        );
      const scopes = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
      if (!scopes.has(SSF_MANAGE_SCOPE)) {
        return refuse(
          res,
          new ResourceServerError(
            'insufficient_scope',
            'insufficient_scope',
            `the access token needs the scope ${SSF_MANAGE_SCOPE}`,
            { scope: [SSF_MANAGE_SCOPE] },
          ),
        );
      }
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
      if (!clientId)
        return refuse(
          res,
          new ResourceServerError('invalid_token', 'claim_invalid', 'the access token names no client_id'),
        );
      (req as unknown as { receiver: Receiver }).receiver = { tenantId, clientId };
      next();
    } catch (err) {
      next(err);
    }
  };
}
