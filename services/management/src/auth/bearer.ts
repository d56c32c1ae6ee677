import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { decodeJwt, type JWTVerifyGetKey } from 'jose';
import { problems, type ProblemError } from '@idp/errors';
import {
  memoryReplayStore,
  parseAuthorization,
  ResourceServerError,
  verifyAccessToken,
  type ReplayStore,
} from '@idp/resource-server';
import { CLAIM_NHE_DELEGATION, MANAGEMENT_AUDIENCE } from '@idp/tokens';
import type { TenantKeys } from './tenant-keys';

export interface Caller {
  tenantId: number;
  system: boolean;
  clientId: string;
  subject: string;
  scopes: Set<string>;
}

export interface BearerDeps {
  /** The configured public origin (PUBLIC_BASE_URL): issuers are `{publicBaseUrl}/auth/{tenantId}`, DPoP `htu` starts with it. */
  publicBaseUrl: string;
  /** Public JWKS of a tenant, or undefined when the tenant does not exist. */
  tenantKeys: ((tenantId: number) => Promise<TenantKeys>) & {
    /** Drops cached keys (rate-limited); true when the next call re-reads them. */
    refresh?: (tenantId: number) => boolean;
  };
  /**
   * DPoP proof replay store of a tenant, shared by every replica. Default (app.ts): the `oidc_payloads` DPoPProof
   * records the sidecar's token endpoint writes (libs/db dpopProofReplayStore).
   */
  replayStore?: (tenantId: number) => ReplayStore;
}

/** Proof algorithms accepted with DPoP-bound management tokens (`algs` of the DPoP challenge). */
export const MANAGEMENT_DPOP_ALGORITHMS = ['ES256', 'ES384', 'Ed25519', 'EdDSA', 'RS256', 'PS256'];
const CHALLENGE = { realm: 'management', dpopAlgorithms: MANAGEMENT_DPOP_ALGORITHMS };

export const callerOf = (req: Request): Caller => (req as unknown as { caller: Caller }).caller;

/** The problem+json 401 for a refusal of the shared verifier, with its RFC 6750 / RFC 9449 challenge. */
function unauthorized(err: ResourceServerError, detail = err.message): ProblemError {
  return problems.unauthorized(detail, err.wwwAuthenticate(CHALLENGE));
}

/** Management's wording for token refusals that jose reports (kept from before the shared verifier). */
function detailOf(err: ResourceServerError): string {
  switch (err.reason) {
    case 'missing_token':
      return 'an access token is required (Authorization: Bearer, or DPoP with a DPoP proof)';
    case 'expired':
      return 'the access token has expired';
    case 'claim_invalid':
    case 'not_yet_valid':
    case 'signature_invalid':
    case 'no_matching_key':
    case 'alg_not_allowed':
    case 'malformed_token':
      return 'the access token is not valid for the management API';
    default:
      return err.message;
  }
}

/**
 * Authenticates management calls with the shared verifier (@idp/resource-server): a JWT access token for the
 * management audience, signed by the key of the tenant named in its issuer (only this deployment's issuers), in
 * canonical compact form. A DPoP-bound token (cnf.jkt) is accepted only as `Authorization: DPoP` with a DPoP proof
 * for this request (htu: the configured public base URL plus the path the request came in on, `/_api` alias
 * included; never the Host header) made with its key, never seen before on any replica.
 */
export function authenticate(deps: BearerDeps): RequestHandler {
  // app.ts always passes the shared store; the in-process fallback serves a single instance (and unit-level tests).
  const fallback = memoryReplayStore();
  const replayStore =
    deps.replayStore ??
    ((tenantId: number) => ({
      remember: (key: string, expiresAt: Date) => fallback.remember(`${tenantId}:${key}`, expiresAt),
    }));
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const issuerPattern = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/auth/(\\d{1,15})$`);
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const authorization = req.get('authorization');
      let scheme: 'Bearer' | 'DPoP';
      let token: string;
      try {
        ({ scheme, token } = parseAuthorization(authorization));
      } catch (err) {
        if (err instanceof ResourceServerError) throw unauthorized(err, detailOf(err));
        throw err;
      }
      const invalid = (detail: string) =>
        unauthorized(new ResourceServerError('invalid_token', 'claim_invalid', detail, { scheme }));
      // The tenant comes from the (not yet verified) issuer: its keys then verify the token.
      let iss: unknown;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        throw invalid('the access token is malformed');
      }
      const tenantMatch = typeof iss === 'string' ? issuerPattern.exec(iss) : null;
      if (!tenantMatch) throw invalid('the access token was not issued by this deployment');
      const tenantId = Number(tenantMatch[1]);
      let keys = await deps.tenantKeys(tenantId);
      if (!keys) throw invalid('the access token was not issued by this deployment');
      // A kid we have not seen: the tenant's keys may have been rotated since they were cached.
      const key: JWTVerifyGetKey = async (header, jws) => {
        try {
          return await keys!.keySet(header, jws);
        } catch (err) {
          if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || !deps.tenantKeys.refresh?.(tenantId))
            throw err;
          const fresh = await deps.tenantKeys(tenantId);
          if (!fresh) throw err;
          keys = fresh;
          return fresh.keySet(header, jws);
        }
      };
      const dpop = req.headersDistinct.dpop ?? req.get('dpop');
      let payload;
      try {
        ({ payload } = await verifyAccessToken(authorization, {
          key,
          issuer: iss as string,
          audience: MANAGEMENT_AUDIENCE,
          typ: 'at+jwt',
          algorithms: ['ES256', 'RS256'],
          dpop: {
            proof: dpop,
            htm: req.method,
            htu: `${base}${req.originalUrl}`,
            algorithms: MANAGEMENT_DPOP_ALGORITHMS,
          },
          replay: replayStore(tenantId),
        }));
      } catch (err) {
        if (err instanceof ResourceServerError) throw unauthorized(err, detailOf(err));
        throw err;
      }
      if (payload[CLAIM_NHE_DELEGATION] === true) throw invalid('delegated tokens cannot call the management API');
      const caller: Caller = {
        tenantId,
        system: keys!.system,
        clientId: String(payload.client_id ?? ''),
        subject: String(payload.sub ?? ''),
        scopes: new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []),
      };
      (req as unknown as { caller: Caller }).caller = caller;
      next();
    } catch (err) {
      next(err);
    }
  };
}
