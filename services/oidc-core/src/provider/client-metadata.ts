import type { ClientDoc } from '@idp/db';
import { storedClientConfigOf } from '../domain/stored-docs';

/** Names of our client properties inside node-oidc-provider's client metadata (extraClientMetadata). */
export const CLIENT_PROPS = {
  numericId: 'idp_numeric_id',
  firstParty: 'idp_first_party',
  requireAuthorizationScopesInRequest: 'idp_require_authorization_scopes_in_request',
  requireResourceIndicatorInRequest: 'idp_require_resource_indicator_in_request',
  showLogoutPrompt: 'idp_show_logout_prompt',
  pkceRequired: 'idp_pkce_required',
  /** `dynamic` (RFC 7591), `metadata_document` (a Client ID Metadata Document), absent for managed clients. */
  registration: 'idp_registration',
} as const;

/** Our properties' values for a client that introduced itself (CIMD, DCR): never more than a third party. */
export function selfIntroducedProps(
  registration: 'dynamic' | 'metadata_document',
  numericId?: number,
): Record<string, unknown> {
  return {
    [CLIENT_PROPS.numericId]: numericId,
    [CLIENT_PROPS.firstParty]: false,
    [CLIENT_PROPS.requireAuthorizationScopesInRequest]: false,
    [CLIENT_PROPS.requireResourceIndicatorInRequest]: false,
    [CLIENT_PROPS.showLogoutPrompt]: true,
    [CLIENT_PROPS.pkceRequired]: true,
    [CLIENT_PROPS.registration]: registration,
  };
}

/** Whether the provider's client introduced itself (Client ID Metadata Document or Dynamic Client Registration). */
export function isSelfIntroduced(client: { [key: string]: unknown } | undefined): boolean {
  const r = client?.[CLIENT_PROPS.registration];
  return r === 'dynamic' || r === 'metadata_document';
}

/**
 * Whether an authorization-code request of this client must carry PKCE: always for a public client (RFC 9700
 * section 2.1.1), whatever its record says; for a confidential client unless its record turns it off.
 */
export function pkceRequiredFor(client: { clientAuthMethod?: string; [key: string]: unknown }): boolean {
  return client.clientAuthMethod === 'none' || client[CLIENT_PROPS.pkceRequired] !== false;
}

/**
 * A dynamically registered client (RFC 7591): the metadata it registered (provider/registration.ts stores what the
 * provider accepted), our own properties reset to a third party's whatever it sent.
 */
function dynamicClientMetadata(doc: ClientDoc): Record<string, unknown> {
  const registered = JSON.parse(doc.registeredMetadata ?? '{}') as Record<string, unknown>;
  for (const key of Object.keys(registered)) if (key.startsWith('idp_')) delete registered[key];
  delete registered.client_secret;
  // Registered before public clients were refused the client credentials grant (RFC 6749 section 4.4): such a client
  // keeps its other grants, never that one (the token endpoint then answers unauthorized_client).
  if (registered.token_endpoint_auth_method === 'none' && Array.isArray(registered.grant_types)) {
    registered.grant_types = (registered.grant_types as unknown[]).filter((g) => g !== 'client_credentials');
  }
  return { ...registered, client_id: doc.clientId, ...selfIntroducedProps('dynamic', doc.numericId) };
}

/** The provider's view of a client record. `client_secret` carries the digest; see internals.ts. */
export function clientMetadata(doc: ClientDoc): Record<string, unknown> {
  if (doc.registration === 'dynamic') return dynamicClientMetadata(doc);
  const toggles = storedClientConfigOf(doc).featureToggles;
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
    // CIBA clients (provider/ciba): the delivery mode, and a ping client's notification endpoint.
    ...(doc.grantTypes.includes('urn:openid:params:grant-type:ciba')
      ? {
          backchannel_token_delivery_mode: doc.backchannelTokenDeliveryMode ?? 'poll',
          // RFC 9396 section 10: the authorization-detail types this client may send (provider/ciba/settings.ts).
          authorization_details_types: ['urn:idp:agent-action'],
          ...(doc.backchannelClientNotificationEndpoint
            ? { backchannel_client_notification_endpoint: doc.backchannelClientNotificationEndpoint }
            : {}),
        }
      : {}),
    [CLIENT_PROPS.numericId]: doc.numericId,
    [CLIENT_PROPS.firstParty]: doc.firstParty,
    [CLIENT_PROPS.requireAuthorizationScopesInRequest]: toggles?.requireAuthorizationScopesInRequest ?? false,
    [CLIENT_PROPS.requireResourceIndicatorInRequest]: toggles?.requireResourceIndicatorInRequest ?? false,
    [CLIENT_PROPS.showLogoutPrompt]: doc.showLogoutPrompt !== false,
    // The record's setting, true for a public client whatever the record says (pkceRequiredFor checks it again).
    [CLIENT_PROPS.pkceRequired]: doc.tokenEndpointAuthMethod === 'none' || doc.pkceRequired !== false,
  };
}
