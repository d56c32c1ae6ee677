/**
 * Resource-server kit: what an API behind this IdP does with an access token, written the way a customer would
 * write it. Verifies with @idp/resource-server (the product's one access-token verifier: canonical JWS, signature
 * through jose's createRemoteJWKSet with jwks_uri from the tenant's discovery document, DPoP binding per RFC 9449
 * section 7 with a replay store), detects NHE delegation through `org.vendor.nhe.delegation` and `act.sub`, and
 * consults the kill-switch deny list (NATS subject idp.nhe.revoked.<tenant>, rebuilt from MongoDB at start).
 * The e2e suite runs it as a tiny express "Orders API".
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import { createRemoteJWKSet, type JWTPayload } from 'jose';
import { startDenyList, type DenyListHandle, type NatsConnection, type RevocationStore } from '@idp/events';
import { memoryReplayStore, ResourceServerError, verifyAccessToken } from '@idp/resource-server';

export interface Delegation {
  /** act.sub without the `nhe:` prefix. */
  nheIdentifier: string;
  agent: { id?: string; type?: string; operator?: string; model?: unknown };
}

export interface VerifiedAccess {
  payload: JWTPayload;
  /** The human: always `sub`. */
  userId: string;
  scopes: string[];
  /** Present for NHE delegation tokens. */
  delegation?: Delegation;
}

export class AccessDenied extends Error {
  constructor(
    readonly status: 401 | 403,
    readonly code: 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof',
    message: string,
    /** The WWW-Authenticate value, when the verifier chose the scheme (a DPoP-bound token sent as Bearer: DPoP). */
    readonly challenge?: string,
  ) {
    super(message);
  }
}

export interface KitOptions {
  /** The tenant's issuer, e.g. `{base}/auth/{tenantId}`. */
  issuer: string;
  /** This API's resource identifier (the token's aud). */
  audience: string;
  /** NATS connection for the deny list (kill switch); without it revoked tokens stay valid until they expire. */
  nc?: NatsConnection;
  /** Persisted deny-list entries (rebuilds the list on start and on NATS reconnect). */
  revocations?: RevocationStore;
}

export interface ResourceServerKit {
  /** Verifies `Authorization` (+ `DPoP`) of a request to `method url` (url from the API's public origin, not Host). Throws AccessDenied. */
  verify(headers: { authorization?: string; dpop?: string }, method: string, url: string): Promise<VerifiedAccess>;
  close(): void;
}

export async function createResourceServerKit(o: KitOptions): Promise<ResourceServerKit> {
  const discovery = (await (await fetch(`${o.issuer}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
  if (discovery.issuer !== o.issuer) throw new Error(`discovery issuer ${discovery.issuer} is not ${o.issuer}`);
  const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const deny: DenyListHandle | undefined = o.nc ? await startDenyList({ nc: o.nc, ...(o.revocations ? { store: o.revocations } : {}), reloadIntervalMs: 5000 }) : undefined;
  // One API process: an in-memory replay store is enough (a replicated API shares one, e.g. Redis SET NX).
  const replay = memoryReplayStore();

  return {
    async verify(headers, method, url) {
      let payload: JWTPayload;
      try {
        ({ payload } = await verifyAccessToken(headers.authorization, {
          key: jwks,
          issuer: o.issuer,
          audience: o.audience,
          algorithms: ['ES256', 'RS256'],
          replay,
          dpop: { proof: headers.dpop, htm: method, htu: url },
        }));
      } catch (err) {
        if (!(err instanceof ResourceServerError)) throw err;
        const code = err.error === 'invalid_dpop_proof' || err.error === 'use_dpop_nonce' ? 'invalid_dpop_proof' : 'invalid_token';
        throw new AccessDenied(401, code, err.message, err.wwwAuthenticate({ dpopAlgorithms: ['ES256', 'EdDSA'] }));
      }
      let delegation: Delegation | undefined;
      const act = payload.act as { sub?: unknown } | undefined;
      if (payload['org.vendor.nhe.delegation'] === true || act !== undefined) {
        if (typeof act?.sub !== 'string' || !act.sub.startsWith('nhe:')) throw new AccessDenied(401, 'invalid_token', 'delegation token without an NHE actor');
        delegation = { nheIdentifier: act.sub.slice(4), agent: (payload.agent ?? {}) as Delegation['agent'] };
        const tenantId = payload['org.vendor.tenant.id'];
        if (
          deny &&
          typeof tenantId === 'number' &&
          deny.denyList.isRevoked({
            tenantId,
            nheIdentifier: delegation.nheIdentifier,
            jti: String(payload.jti),
            iat: Number(payload.iat),
            ...(typeof payload.azp === 'number' ? { azp: payload.azp } : {}),
            ...(payload.sub ? { sub: payload.sub } : {}),
          })
        ) {
          throw new AccessDenied(401, 'invalid_token', 'access token has been revoked');
        }
      }
      return { payload, userId: String(payload.sub), scopes: typeof payload.scope === 'string' ? payload.scope.split(' ') : [], ...(delegation ? { delegation } : {}) };
    },
    close: () => deny?.close(),
  };
}

/** The Orders API of the e2e suite: GET /orders needs orders:read; it reports who acted and whether an agent did. */
export async function startResourceServer(kit: ResourceServerKit, port = 0): Promise<{ url: string; activity: Array<Record<string, unknown>>; close: () => Promise<void> }> {
  const app = express();
  const activity: Array<Record<string, unknown>> = [];
  // The API's public origin, known once it listens: the DPoP htu is built from it, never from the Host header.
  let origin = '';
  app.get('/orders', async (req: Request, res: Response) => {
    const url = `${origin}${req.originalUrl}`;
    try {
      const access = await kit.verify({ authorization: req.get('authorization'), dpop: req.get('dpop') }, req.method, url);
      if (!access.scopes.includes('orders:read')) throw new AccessDenied(403, 'insufficient_scope', 'orders:read required');
      // Delegation, not impersonation: the user is sub; the agent is logged for audit.
      activity.push({ id: randomUUID(), user: access.userId, agent: access.delegation?.nheIdentifier ?? null });
      res.json({ user: access.userId, delegated: Boolean(access.delegation), nhe: access.delegation?.nheIdentifier ?? null, agent: access.delegation?.agent ?? null, scopes: access.scopes });
    } catch (err) {
      if (!(err instanceof AccessDenied)) {
        res.status(500).json({ error: 'server_error' });
        return;
      }
      const scheme = req.get('authorization')?.startsWith('DPoP ') ? 'DPoP' : 'Bearer';
      res.setHeader('WWW-Authenticate', err.challenge ?? `${scheme} error="${err.code}", error_description="${err.message}"`);
      res.status(err.status).json({ error: err.code, error_description: err.message });
    }
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  origin = `http://127.0.0.1:${actual}`;
  return {
    url: origin,
    activity,
    close: () =>
      new Promise((r) => {
        kit.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
