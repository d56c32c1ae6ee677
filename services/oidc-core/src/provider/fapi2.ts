import type { ClientDoc, TenantDoc } from '@idp/db';
import { storedSettingsOf } from '../domain/stored-docs';
import { clientMetadata } from './client-metadata';

/**
 * FAPI 2.0 Security Profile (final) for a tenant whose `settings.security.profile` is `fapi2`.
 *
 * node-oidc-provider implements the profile (`features.fapi`, profile '2.0'): PKCE S256 required, `redirect_uri`
 * required in every authorization request (the pushed one included), a client assertion's `aud` exactly the issuer
 * (an array, the token endpoint URL or the PAR endpoint URL is refused), no access tokens in query parameters.
 * provider/configuration.ts turns it on per tenant and adds what the profile leaves to the deployment:
 * - PAR required for every client (`requirePushedAuthorizationRequests`, advertised in discovery);
 * - client authentication by private_key_jwt only (no mTLS is configured), with FAPI2_SIGNING_ALGS;
 * - every client's tokens DPoP-bound (fapi2ClientMetadata below), DPoP proofs with FAPI2_SIGNING_ALGS;
 * - ID tokens signed with ES256 only (the tenant's RSA key signs RS256, which the profile does not allow).
 * Token exchange, which node-oidc-provider does not check, refuses a request without a DPoP proof or with another
 * proof algorithm in provider/grants/token-exchange.ts.
 */
export function isFapi2Tenant(tenant: Pick<TenantDoc, 'settings'>): boolean {
  return storedSettingsOf(tenant).security?.profile === 'fapi2';
}

/** FAPI 2.0 Security Profile section 5.4.1: the only JWS algorithms for client assertions and DPoP proofs. */
export const FAPI2_SIGNING_ALGS = ['PS256', 'ES256', 'EdDSA'] as const;

/** The only client authentication method of a FAPI 2.0 tenant (mutual TLS is not configured anywhere). */
export const FAPI2_CLIENT_AUTH_METHODS = ['private_key_jwt'] as const;

/** What the tenant signs ID tokens with under the profile (its ES256 key; RS256 is not among FAPI2_SIGNING_ALGS). */
export const FAPI2_ID_TOKEN_ALGS = ['ES256'] as const;

/** Whether a client record can take part under the profile: private_key_jwt, and ID tokens it can be sent. */
export function fapi2Admits(doc: ClientDoc): boolean {
  return (
    doc.tokenEndpointAuthMethod === 'private_key_jwt' &&
    (FAPI2_ID_TOKEN_ALGS as readonly string[]).includes(doc.idTokenSignedResponseAlg ?? 'ES256')
  );
}

/**
 * The provider's view of a client of a FAPI 2.0 tenant: every client's tokens are DPoP-bound
 * (`dpop_bound_access_tokens`, whatever its record says), so a token request or a refresh without a proof is refused
 * by every grant. A client that cannot take part (a client secret, a public client, RS256 ID tokens) does not exist
 * for the tenant's protocol endpoints: it gets `invalid_client`, as an unknown client does.
 */
export function fapi2ClientMetadata(doc: ClientDoc): Record<string, unknown> | undefined {
  if (!fapi2Admits(doc)) return undefined;
  return { ...clientMetadata(doc), dpop_bound_access_tokens: true };
}
