/**
 * The OpenID Connect Dynamic OP profile (OpenID Connect Core 1.0 section 15.2, Dynamic Client Registration 1.0,
 * Discovery 1.0), per tenant: `settings.openidDynamicProfile.enabled`, off by default, never in a FAPI 2.0 tenant
 * (whose profile allows no request object outside PAR, no implicit response types and no public clients) and never in
 * the system tenant. On, it turns on what the profile needs and nothing more, through node-oidc-provider's own
 * features and configuration:
 * - request objects (Core section 6, RFC 9101): `features.requestObjects`, signed only, with the client's registered
 *   keys (asymmetric algorithms: a registered client holds no shared secret); `request_uri` by reference is fetched
 *   here (request-uri.ts) through the outbound layer metadata documents use;
 * - signed UserInfo (Core section 5.3.2): `features.jwtUserinfo`, for a client that registered
 *   `userinfo_signed_response_alg`, with the tenant's ES256 or RS256 key;
 * - the `id_token` and `id_token token` response types (Core section 15.2: a Dynamic OP MUST support them) for a
 *   client that registers them. RFC 9700 section 2.1.2 says clients SHOULD NOT use the implicit grant (`token`
 *   in a front channel); they stay off everywhere else, are never offered to an agent client (agent-clients.ts:
 *   its tokens come from the sidecar), and never in a FAPI 2.0 tenant;
 * - the PKCE choice at registration for a confidential client (pkce.ts).
 */
import type { Configuration } from 'oidc-provider';
import type { TenantDoc } from '@idp/db';
import { storedSettingsOf } from '../../domain/stored-docs';
import { isFapi2Tenant } from '../fapi2';

/** Whether the tenant serves the OpenID Dynamic profile. */
export function openidDynamicProfileOn(tenant: Pick<TenantDoc, 'settings' | 'system'>): boolean {
  return storedSettingsOf(tenant).openidDynamicProfile?.enabled === true && !isFapi2Tenant(tenant) && !tenant.system;
}

/** Response types of every tenant (the code flow), and those the profile adds for clients that register them. */
export const CODE_RESPONSE_TYPES = ['code'] as const;
export const ID_TOKEN_RESPONSE_TYPES = ['id_token', 'id_token token'] as const;

/**
 * Request object signature algorithms: asymmetric only, verified with the client's registered keys (`jwks` or
 * `jwks_uri`). No `none` (an unsigned request object is refused: Core section 6.1 lets the OP require signatures) and
 * no HMAC (the provider stores only a digest of a client secret, and registration issues none).
 */
export const REQUEST_OBJECT_SIGNING_ALGS = ['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'] as const;

/** What the tenant can sign UserInfo responses with: its own keys are ES256 and RS256 (libs/tokens key-store.ts). */
export const USERINFO_SIGNING_ALGS = ['ES256', 'RS256'] as const;

type Features = NonNullable<Configuration['features']>;
type EnabledJwa = NonNullable<Configuration['enabledJWA']>;

/** The provider configuration the profile sets; each member is spread into providerConfiguration. */
export interface DynamicProfileConfiguration {
  responseTypes: NonNullable<Configuration['responseTypes']>;
  features: Pick<Features, 'requestObjects' | 'jwtUserinfo'>;
  enabledJWA: Pick<EnabledJwa, 'requestObjectSigningAlgValues' | 'userinfoSigningAlgValues'>;
}

export function dynamicProfileConfiguration(on: boolean): DynamicProfileConfiguration {
  if (!on) {
    return {
      responseTypes: [...CODE_RESPONSE_TYPES],
      features: { requestObjects: { enabled: false }, jwtUserinfo: { enabled: false } },
      enabledJWA: {},
    };
  }
  return {
    responseTypes: [...CODE_RESPONSE_TYPES, ...ID_TOKEN_RESPONSE_TYPES],
    features: {
      // Not every request must carry one (requireSignedRequestObject false); one that is sent must be signed with an
      // algorithm of REQUEST_OBJECT_SIGNING_ALGS (the provider refuses `none` as an unsupported alg).
      requestObjects: { enabled: true, requireSignedRequestObject: false },
      jwtUserinfo: { enabled: true },
    },
    enabledJWA: {
      requestObjectSigningAlgValues: [...REQUEST_OBJECT_SIGNING_ALGS],
      userinfoSigningAlgValues: [...USERINFO_SIGNING_ALGS],
    },
  };
}

/** Whether a response_type value asks for an ID token from the authorization endpoint (implicit or hybrid). */
export function isIdTokenResponseType(responseType: unknown): boolean {
  return typeof responseType === 'string' && responseType.split(' ').includes('id_token');
}
