import { dpopProofReplayStore, type Models } from '@idp/db';
import { OAuthError, oauthErrors } from '@idp/errors';
import { ResourceServerError, verifyDpopProof, type VerifiedDpopProof } from '@idp/resource-server';
import type { DpopNonces } from './dpop-nonce';

/** Proof algorithms the token endpoint accepts (asymmetric only). */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'];
/** A proof's iat may be this far from now (seconds). */
const IAT_WINDOW = 60;

export interface TokenEndpointProofOptions {
  models: Models;
  tenantId: number;
  htm: string;
  /** The token endpoint's URL as oidc-core built it from the configured public base URL. */
  htu: string;
  /** Stateless nonces; without them nonces are neither issued nor checked. */
  nonces?: DpopNonces;
  /** The tenant requires a fresh server nonce in every proof (requireDpop). */
  requireNonce: boolean;
  currentDate?: Date;
}

/** The token endpoint's answer (400 OAuth JSON) for a refusal of the shared verifier. */
function toOAuthError(err: ResourceServerError): OAuthError {
  if (err.error === 'use_dpop_nonce' && err.nonce) return oauthErrors.useDpopNonce(err.nonce);
  return oauthErrors.invalidDpopProof(err.message);
}

/**
 * Validates a DPoP proof for the token request (RFC 9449 section 4.3) with the shared verifier (@idp/resource-server):
 * the checks, then the tenant's nonce, then replay through the store every replica and the management API share.
 */
export async function verifyTokenEndpointProof(
  proof: string,
  o: TokenEndpointProofOptions,
): Promise<VerifiedDpopProof> {
  const nonces = o.nonces;
  try {
    return await verifyDpopProof(proof, {
      htm: o.htm,
      htu: o.htu,
      algorithms: DPOP_ALGORITHMS,
      maxAge: IAT_WINDOW,
      clockSkew: 0,
      ...(o.currentDate ? { currentDate: o.currentDate } : {}),
      ...(nonces
        ? {
            nonce: {
              required: o.requireNonce,
              isValid: (n: string) => nonces.isValid(o.tenantId, n),
              issue: () => nonces.issue(o.tenantId),
            },
          }
        : {}),
      replay: dpopProofReplayStore(o.models, o.tenantId),
    });
  } catch (err) {
    if (err instanceof ResourceServerError) throw toOAuthError(err);
    throw err;
  }
}
