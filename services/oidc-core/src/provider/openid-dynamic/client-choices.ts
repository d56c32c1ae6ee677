/**
 * What a client chooses at registration under the OpenID Dynamic profile, and what no client may choose.
 *
 * PKCE (RFC 7636): every authorization-code request carries it unless a confidential client's record turns it off
 * (configuration.ts, pkceRequiredFor). A managed client's record is set through the management API; a client that
 * registers itself (RFC 7591) under the profile sets it with the registration member REQUIRE_PKCE_METADATA
 * (a collision-resistant name, RFC 7591 section 2, since no registered client metadata names it). A confidential
 * client (private_key_jwt) that sends none registers without it: OpenID Connect Core clients of the code flow rely on
 * `nonce` (RFC 9700 section 2.1.1 allows a confidential client to), and the Dynamic OP profile's tests send no PKCE.
 * A public client always needs it, whatever it sends. The registration answer says what was recorded.
 */
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import { agentLinkFor } from '../agent-clients';
import { CLIENT_PROPS, pkceRequiredFor } from '../client-metadata';
import { isIdTokenResponseType } from './profile';

/** The registration member of the PKCE choice (boolean). */
export const REQUIRE_PKCE_METADATA = 'org.vendor.require_pkce';

/** Client metadata properties the profile adds to node-oidc-provider's (extraClientMetadata.properties). */
export const OPENID_DYNAMIC_CLIENT_PROPS = [REQUIRE_PKCE_METADATA] as const;

function invalidMetadata(description: string): never {
  const err = new errors.InvalidClientMetadata(description);
  err.error_description = description;
  throw err;
}

/**
 * extraClientMetadata.validator for REQUIRE_PKCE_METADATA. At registration or update (`registering`) under the
 * profile, a confidential client's choice is recorded (false when it sent none); anywhere else the member is dropped,
 * so neither a public client, nor a metadata document, nor a registration outside the profile carries one. A stored
 * client loaded outside the registration routes keeps what it registered.
 */
export function validatePkceChoice(
  metadata: Record<string, unknown>,
  o: { profile: boolean; registering: boolean; selfIntroduced: 'dynamic' | 'metadata_document' | undefined },
): void {
  if (!o.registering) {
    if (o.selfIntroduced !== 'dynamic') delete metadata[REQUIRE_PKCE_METADATA];
    return;
  }
  // Outside the profile the member means nothing here: dropped like any unknown metadata (RFC 7591 section 2), never
  // refused, so a registration is answered as it was before the profile existed.
  if (!o.profile || o.selfIntroduced !== 'dynamic') {
    delete metadata[REQUIRE_PKCE_METADATA];
    return;
  }
  const sent = metadata[REQUIRE_PKCE_METADATA];
  if (sent !== undefined && typeof sent !== 'boolean') invalidMetadata(`${REQUIRE_PKCE_METADATA} must be a boolean`);
  if (metadata.token_endpoint_auth_method === 'none') {
    delete metadata[REQUIRE_PKCE_METADATA];
    return;
  }
  metadata[REQUIRE_PKCE_METADATA] = sent ?? false;
}

/**
 * Whether an authorization-code request of this client must carry PKCE: pkceRequiredFor, except that under the
 * profile a dynamically registered confidential client that registered REQUIRE_PKCE_METADATA false need not.
 */
export function pkceRequired(profile: boolean, client: { clientAuthMethod?: string; [key: string]: unknown }): boolean {
  if (
    profile &&
    client[CLIENT_PROPS.registration] === 'dynamic' &&
    client.clientAuthMethod !== 'none' &&
    client[REQUIRE_PKCE_METADATA] === false
  )
    return false;
  return pkceRequiredFor(client);
}

/** The extraParams entry whose validator refuses ID tokens at the authorization endpoint to agent clients. */
export const ID_TOKEN_RESPONSE_CHECK_PARAM = 'idp_id_token_response_check';

/**
 * extraParams: an agent client (agent-clients.ts) never gets an ID token from the authorization endpoint. Its
 * tokens are the sidecar's delegation tokens, issued at the token endpoint only; the implicit and hybrid response
 * types would hand it tokens in the front channel that the sidecar never decided. The provider offers these
 * response types only under the profile, to clients that registered them; this holds whatever a client record says.
 */
export function idTokenResponseParams(models: Models, tenantId: number) {
  return {
    [ID_TOKEN_RESPONSE_CHECK_PARAM]: async (
      ctx: KoaContextWithOIDC,
      _value: unknown,
      client: { clientId: string } | undefined,
    ) => {
      if (!client || !isIdTokenResponseType(ctx.oidc.params?.response_type)) return;
      const link = await agentLinkFor(models, tenantId, ctx, client.clientId);
      if (link.kind === 'none') return;
      const err = new errors.UnauthorizedClient(
        'an agent client cannot use the id_token response types; use response_type code',
      );
      err.error_description = 'an agent client cannot use the id_token response types; use response_type code';
      throw err;
    },
  };
}
