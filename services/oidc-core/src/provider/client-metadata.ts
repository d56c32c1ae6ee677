import type { ClientDoc } from '@idp/db';

/** Names of our client properties inside node-oidc-provider's client metadata (extraClientMetadata). */
export const CLIENT_PROPS = {
  numericId: 'idp_numeric_id',
  firstParty: 'idp_first_party',
  requireAuthorizationScopesInRequest: 'idp_require_authorization_scopes_in_request',
  requireResourceIndicatorInRequest: 'idp_require_resource_indicator_in_request',
  showLogoutPrompt: 'idp_show_logout_prompt',
  pkceRequired: 'idp_pkce_required',
} as const;

/**
 * Whether an authorization-code request of this client must carry PKCE: always for a public client (RFC 9700
 * section 2.1.1), whatever its record says; for a confidential client unless its record turns it off.
 */
export function pkceRequiredFor(client: { clientAuthMethod?: string; [key: string]: unknown }): boolean {
  return client.clientAuthMethod === 'none' || client[CLIENT_PROPS.pkceRequired] !== false;
}

/** The provider's view of a client record. `client_secret` carries the digest; see internals.ts. */
export function clientMetadata(doc: ClientDoc): Record<string, unknown> {
  return {
    client_id: doc.clientId,
    client_name: doc.name,
    ...(doc.secretDigest ? { client_secret: doc.secretDigest } : {}),
    token_endpoint_auth_method: doc.tokenEndpointAuthMethod,
    ...(doc.jwks ? { jwks: doc.jwks } : {}),
    redirect_uris: doc.redirectUris,
    post_logout_redirect_uris: doc.postLogoutRedirectUris,
    grant_types: doc.grantTypes,
    response_types: doc.responseTypes,
    id_token_signed_response_alg: doc.idTokenSignedResponseAlg ?? 'ES256',
    dpop_bound_access_tokens: doc.requireDpop === true,
    require_pushed_authorization_requests: doc.requirePushedAuthorizationRequests === true,
    [CLIENT_PROPS.numericId]: doc.numericId,
    [CLIENT_PROPS.firstParty]: doc.firstParty,
    [CLIENT_PROPS.requireAuthorizationScopesInRequest]: doc.config?.featureToggles?.requireAuthorizationScopesInRequest ?? false,
    [CLIENT_PROPS.requireResourceIndicatorInRequest]: doc.config?.featureToggles?.requireResourceIndicatorInRequest ?? false,
    [CLIENT_PROPS.showLogoutPrompt]: doc.showLogoutPrompt !== false,
    // The record's setting, true for a public client whatever the record says (pkceRequiredFor checks it again).
    [CLIENT_PROPS.pkceRequired]: doc.tokenEndpointAuthMethod === 'none' || doc.pkceRequired !== false,
  };
}
