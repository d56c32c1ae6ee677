import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { decodeJwt, jwtVerify } from 'jose';
import { problems } from '@idp/errors';
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
  publicBaseUrl: string;
  /** Public JWKS of a tenant, or undefined when the tenant does not exist. */
  tenantKeys: ((tenantId: number) => Promise<TenantKeys>) & {
    /** Drops cached keys (rate-limited); true when the next call re-reads them. */
    refresh?: (tenantId: number) => boolean;
  };
}

const CHALLENGE = `Bearer realm="management", error="invalid_token"`;

export const callerOf = (req: Request): Caller => (req as unknown as { caller: Caller }).caller;

/**
 * Authenticates management calls: a Bearer JWT access token for the management audience, signed by the key of
 * the tenant named in its issuer. Only tokens of this deployment's issuers are considered.
 */
export function authenticate(deps: BearerDeps): RequestHandler {
  const issuerPattern = new RegExp(`^${deps.publicBaseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/auth/(\\d{1,15})$`);
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header);
      if (!match) throw problems.unauthorized('a Bearer access token is required', `Bearer realm="management"`);
      const token = match[1] as string;
      let iss: unknown;
      try {
        iss = decodeJwt(token).iss;
      } catch {
        throw problems.unauthorized('the access token is malformed', CHALLENGE);
      }
      const tenantMatch = typeof iss === 'string' ? issuerPattern.exec(iss) : null;
      if (!tenantMatch) throw problems.unauthorized('the access token was not issued by this deployment', CHALLENGE);
      const tenantId = Number(tenantMatch[1]);
      let keys = await deps.tenantKeys(tenantId);
      if (!keys) throw problems.unauthorized('the access token was not issued by this deployment', CHALLENGE);
      const verify = (keySet: NonNullable<TenantKeys>['keySet']) =>
        jwtVerify(token, keySet, { issuer: iss as string, audience: MANAGEMENT_AUDIENCE, typ: 'at+jwt', algorithms: ['ES256', 'RS256'] });
      let payload;
      try {
        try {
          ({ payload } = await verify(keys.keySet));
        } catch (err) {
          // A kid we have not seen: the tenant's keys may have been rotated since they were cached.
          if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || !deps.tenantKeys.refresh?.(tenantId)) throw err;
          keys = await deps.tenantKeys(tenantId);
          if (!keys) throw err;
          ({ payload } = await verify(keys.keySet));
        }
      } catch (err) {
        const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
        throw problems.unauthorized(expired ? 'the access token has expired' : 'the access token is not valid for the management API', CHALLENGE);
      }
      if (payload[CLAIM_NHE_DELEGATION] === true) throw problems.unauthorized('delegated tokens cannot call the management API', CHALLENGE);
      const caller: Caller = {
        tenantId,
        system: keys.system,
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
