/**
 * Authentication of the SCIM service provider (RFC 7644 section 2: left to the deployment; RFC 6750 bearer tokens).
 * Either a SCIM credential of this very tenant (only its SHA-256 digest is stored; revoked ones never match), or an
 * access token of the management API (auth/bearer.ts) of this tenant, or of the system tenant, with the scope
 * `auth.scim.provision`. Another tenant's credential is refused like an unknown one.
 */
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Models } from '@idp/db';
import { callerOf } from '../auth/bearer';
import { scimErrors } from './errors';

export const SCIM_SCOPE = 'auth.scim.provision';
/** Prefix of the credentials this service issues: tells them apart from JWT access tokens without a lookup. */
export const SCIM_CREDENTIAL_PREFIX = 'scim_';

export const credentialDigest = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface ScimPrincipal {
  kind: 'credential' | 'access-token';
  /** The credential id, or the token's client id. */
  id: string;
  /**
   * The management scopes it acts with: the credential's creator's (stored with it), or the access token's own. A SCIM
   * write never reaches a user or group holding a management scope outside these (router.ts).
   */
  scopes: ReadonlySet<string>;
}

/** What a credential stored before credentials carried their creator's scopes holds. */
export const LEGACY_CREDENTIAL_SCOPES = ['auth.users.create', 'auth.users.update', 'auth.users.delete'];

/** 403 naming the management scopes `scopes` holds that the principal does not (auth/escalation.ts, for SCIM). */
export function assertPrincipalHolds(principal: ScimPrincipal, scopes: Iterable<string>, what: string): void {
  const missing = [...new Set(scopes)].filter((s) => !principal.scopes.has(s)).sort();
  if (missing.length)
    throw scimErrors.forbidden(
      `${what} holds management scopes this SCIM credential or token does not; missing: ${missing.join(' ')}`,
    );
}

export const principalOf = (req: Request): ScimPrincipal =>
  (req as unknown as { scimPrincipal: ScimPrincipal }).scimPrincipal;

export function scimAuthenticate(models: Models, accessToken: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const tenantId = Number(req.params.tenantId);
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const unauthorized = () => {
      res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
      return scimErrors.unauthorized('a SCIM credential or an access token is required (Authorization: Bearer)');
    };
    if (match?.[1]?.startsWith(SCIM_CREDENTIAL_PREFIX)) {
      const digest = credentialDigest(match[1]);
      models.ScimCredential.findOneAndUpdate(
        { tenantId, digest, revokedAt: { $exists: false } },
        { $set: { lastUsedAt: new Date() } },
      )
        .lean()
        .then(async (doc) => {
          if (!doc) {
            res.setHeader('WWW-Authenticate', 'Bearer realm="scim", error="invalid_token"');
            next(scimErrors.unauthorized('the SCIM credential is unknown, revoked, or of another tenant'));
            return;
          }
          // A disabled tenant (Tenant.enabled false) provisions nothing with its own credentials, as its own
          // administrators' access tokens are refused (auth/tenant-keys.ts); the platform's administrators still can.
          // Read on every request: a credential has no expiry, so a cached "enabled" would outlive the switch.
          if (await models.Tenant.exists({ _id: tenantId, enabled: false })) {
            next(scimErrors.forbidden('tenant disabled'));
            return;
          }
          (req as unknown as { scimPrincipal: ScimPrincipal }).scimPrincipal = {
            kind: 'credential',
            id: doc.credentialId,
            scopes: new Set(doc.scopes ?? LEGACY_CREDENTIAL_SCOPES),
          };
          next();
        })
        .catch(next);
      return;
    }
    if (!match && !/^DPoP\s/i.test(header)) {
      next(unauthorized());
      return;
    }
    // A JWT access token: the management API's verifier, then this tenant and the dedicated scope.
    accessToken(req, res, (err?: unknown) => {
      if (err) {
        const status = (err as { status?: unknown }).status;
        next(status === 401 ? scimErrors.unauthorized('the access token is not valid') : err);
        return;
      }
      const caller = callerOf(req);
      if (!caller.system && caller.tenantId !== tenantId) {
        next(scimErrors.forbidden('the access token is not of this tenant'));
        return;
      }
      if (!caller.scopes.has(SCIM_SCOPE)) {
        next(scimErrors.forbidden(`the access token lacks the scope ${SCIM_SCOPE}`));
        return;
      }
      (req as unknown as { scimPrincipal: ScimPrincipal }).scimPrincipal = {
        kind: 'access-token',
        id: caller.clientId,
        scopes: caller.scopes,
      };
      next();
    });
  };
}
