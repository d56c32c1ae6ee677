/**
 * The built-in client of the user's ledger page: each tenant's provider knows it statically. It is the
 * page's own way to send a person through the tenant's normal sign-in (login page, TOTP, throttling, sessions) when
 * the browser has no session yet: a public, first-party client (no consent page), authorization code with PKCE,
 * one redirect URI on the tenant's issuer. Its id has a colon, which the management API refuses in client ids, so no
 * managed client can shadow it.
 */
import type { ClientMetadata } from 'oidc-provider';
import { CLIENT_PROPS } from '../provider/client-metadata';

export const ACCOUNT_CLIENT_ID = 'idp:account';

export function accountClientMetadata(redirectUri: string): ClientMetadata {
  return {
    client_id: ACCOUNT_CLIENT_ID,
    client_name: 'Your agents',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    response_types: ['code'],
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: [],
    id_token_signed_response_alg: 'ES256',
    [CLIENT_PROPS.firstParty]: true,
    [CLIENT_PROPS.requireAuthorizationScopesInRequest]: false,
    [CLIENT_PROPS.requireResourceIndicatorInRequest]: false,
    [CLIENT_PROPS.showLogoutPrompt]: true,
    [CLIENT_PROPS.pkceRequired]: true,
  };
}
