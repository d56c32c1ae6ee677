/**
 * Resource-server kit: what an API behind this IdP does with an access token, written the way a customer would
 * write it. Verifies with jose's createRemoteJWKSet (jwks_uri from the tenant's discovery document), detects NHE
 * delegation through `org.vendor.nhe.delegation` and `act.sub`, enforces DPoP binding (cnf.jkt, RFC 9449 section 7)
 * and consults the kill-switch deny list (NATS subject idp.nhe.revoked.<tenant>, rebuilt from MongoDB at start).
 * The e2e suite runs it as a tiny express "Orders API".
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import { calculateJwkThumbprint, createRemoteJWKSet, decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { startDenyList, type DenyListHandle, type NatsConnection, type RevocationStore } from '@idp/events';

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
  /** Verifies `Authorization` (+ `DPoP`) of a request to `method url`. Throws AccessDenied. */
  verify(headers: { authorization?: string; dpop?: string }, method: string, url: string): Promise<VerifiedAccess>;
  close(): void;
}

const DPOP_ALGS = ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'];

export async function createResourceServerKit(o: KitOptions): Promise<ResourceServerKit> {
  const discovery = (await (await fetch(`${o.issuer}/.well-known/openid-configuration`)).json()) as { issuer: string; jwks_uri: string };
  if (discovery.issuer !== o.issuer) throw new Error(`discovery issuer ${discovery.issuer} is not ${o.issuer}`);
  const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
  const deny: DenyListHandle | undefined = o.nc ? await startDenyList({ nc: o.nc, ...(o.revocations ? { store: o.revocations } : {}), reloadIntervalMs: 5000 }) : undefined;
  const seenProofs = new Map<string, number>();

  async function checkDpop(token: string, proof: string | undefined, jkt: string, method: string, url: string): Promise<void> {
    if (!proof) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP-bound token without a DPoP proof');
    let payload: JWTPayload;
    let jwk: JWK;
    try {
      const header = decodeProtectedHeader(proof);
      jwk = header.jwk as JWK;
      if (header.typ !== 'dpop+jwt' || !jwk || 'd' in jwk || !header.alg || !DPOP_ALGS.includes(header.alg)) throw new Error('header');
      ({ payload } = await jwtVerify(proof, await importJWK(jwk, header.alg), { typ: 'dpop+jwt', algorithms: DPOP_ALGS }));
    } catch {
      throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof is not valid');
    }
    const now = Math.floor(Date.now() / 1000);
    const ath = createHash('sha256').update(token).digest('base64url');
    const strip = (u: string) => {
      const x = new URL(u);
      return `${x.origin}${x.pathname}`;
    };
    if (payload.htm !== method || typeof payload.htu !== 'string' || strip(payload.htu) !== strip(url)) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof is for another request');
    if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > 60) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof is not recent');
    if (payload.ath !== ath) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof is for another token');
    if ((await calculateJwkThumbprint(jwk)) !== jkt) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof key is not the key the token is bound to');
    const id = `${jkt}:${String(payload.jti)}`;
    if (typeof payload.jti !== 'string' || seenProofs.has(id)) throw new AccessDenied(401, 'invalid_dpop_proof', 'DPoP proof replayed');
    seenProofs.set(id, now + 120);
    for (const [k, exp] of seenProofs) if (exp < now) seenProofs.delete(k);
  }

  return {
    async verify(headers, method, url) {
      const m = /^(Bearer|DPoP) ([A-Za-z0-9._~+/-]+=*)$/.exec(headers.authorization ?? '');
      if (!m) throw new AccessDenied(401, 'invalid_token', 'missing access token');
      const [, scheme, token] = m as unknown as [string, 'Bearer' | 'DPoP', string];
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, { issuer: o.issuer, audience: o.audience, typ: 'at+jwt', algorithms: ['ES256', 'RS256'] }));
      } catch (err) {
        throw new AccessDenied(401, 'invalid_token', `access token rejected: ${(err as { code?: string }).code ?? 'invalid'}`);
      }
      const jkt = (payload.cnf as { jkt?: string } | undefined)?.jkt;
      if (jkt) {
        if (scheme !== 'DPoP') throw new AccessDenied(401, 'invalid_token', 'DPoP-bound token presented as a bearer token');
        await checkDpop(token, headers.dpop, jkt, method, url);
      } else if (scheme === 'DPoP') {
        throw new AccessDenied(401, 'invalid_token', 'token is not DPoP-bound');
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
  app.get('/orders', async (req: Request, res: Response) => {
    const url = `${req.protocol}://${req.get('host')}${req.originalUrl}`;
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
      res.setHeader('WWW-Authenticate', `${scheme} error="${err.code}", error_description="${err.message}"`);
      res.status(err.status).json({ error: err.code, error_description: err.message });
    }
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${actual}`,
    activity,
    close: () =>
      new Promise((r) => {
        kit.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
