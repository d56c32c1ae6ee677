import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Models, TenantDoc } from '@idp/db';
import {
  ACTOR_TOKEN_TYPES_SUPPORTED,
  DISCOVERY_ACTOR_TOKEN_TYPES,
  DISCOVERY_MAX_CHAIN_DEPTH,
  tenantFacts,
  tenantChainDepth,
} from '@idp/delegation';
import { CLAIM_TENANT_ID, CLAIM_TENANT_NAME, MANAGEMENT_AUDIENCE, SSF_AUDIENCE, type PrivateJwk } from '@idp/tokens';
import { errors } from 'oidc-provider';
import { acrValuesFor } from '../passkeys/settings';
import { withAcrChecks } from './acr-policy';
import { createAdapterFactory, type GrantEnded } from './adapter';
import { SCOPE_CLAIMS, SUPPORTED_SCOPES } from './claims';
import { ClaimsResolver, createFindAccount, userTokenClaims } from './claims-account';
import { CLIENT_PROPS, isSelfIntroduced, selfIntroducedProps } from './client-metadata';
import {
  cimdSettingsOf,
  clientIdMetadataDocumentFeature,
  isMetadataDocumentClientId,
  outboundFetch,
  type OutboundOptions,
} from './client-id-metadata';
import { OutboundFetches } from './outbound-fetches';
import { registrationFeatures, registrationSettingsOf } from './registration';
import { cibaFeatures, cibaParams, cibaTtl } from './ciba';
import { consentPolicy } from './consent';
import { agentClientParams } from './agent-clients';
import { defaultResourceScopeParams } from './default-resource-scope';
import { IDP_HINT_PARAM, KC_IDP_HINT_PARAM } from '../upstream/providers';
import { rememberedAgentGrantId } from './agent-grants';
import { accessTokenScopeCustomizer, defaultResource, resourceServerInfo } from './resource-servers';
import { referenceGrant } from './introspection';
import { renderErrorPage } from '../views/pages';
import { devicePages } from './device-pages';
import { logoutSource, postLogoutSuccessSource } from './logout';
import { accountClientMetadata } from '../account/account-client';
import { corsOriginAllowed } from './cors';
import {
  FAPI2_CLIENT_AUTH_METHODS,
  FAPI2_ID_TOKEN_ALGS,
  FAPI2_SIGNING_ALGS,
  fapi2ClientMetadata,
  isFapi2Tenant,
} from './fapi2';
import {
  dynamicProfileConfiguration,
  idTokenResponseParams,
  OPENID_DYNAMIC_CLIENT_PROPS,
  openidDynamicProfileOn,
  pkceRequired,
  REQUIRE_PKCE_METADATA,
  requestUriParams,
  validatePkceChoice,
} from './openid-dynamic';

export interface ProviderDeps {
  models: Models;
  /** Keys signing this provider's cookies (rotate by prepending). */
  cookieKeys: string[];
  /** Countdown of the logout confirmation page, seconds (default 30). */
  logoutPromptSeconds?: number;
  /** The tenant's claims resolver, shared with the JWT UserInfo route (default: one built here). */
  claims?: ClaimsResolver;
  /** Outbound requests (metadata documents, jwks_uri): the operator's policy and limits; trusted CAs, resolver and time bounds (tests). */
  outbound?: OutboundOptions;
  /** The process's limits on outbound fetches, shared by every tenant's provider (default: one of this provider's own). */
  fetches?: OutboundFetches;
  /** Where the user's ledger page receives its sign-in (`{issuer}/account/callback`): its built-in client (account/). */
  accountRedirectUri?: string;
  /** Told when a grant ends (the adapter): published as a `grant` invalidation for the sidecars' grant cache. */
  grantEnded?: GrantEnded;
}

/** Built-in admin audiences no self-introduced client (metadata document, dynamic registration) gets tokens for. */
const ADMIN_AUDIENCES = new Set([MANAGEMENT_AUDIENCE, SSF_AUDIENCE]);

/** Route names of node-oidc-provider's registration endpoints that build a client from a request body. */
const REGISTERING_ROUTES = new Set(['registration', 'client_update']);

/** `/auth/{t}` or `/_api/auth/{t}`, whichever the request came in on. */
export function mountPrefix(ctx: KoaContextWithOIDC, tenantId: number): string {
  return (ctx.req as { originalUrl?: string }).originalUrl?.startsWith('/_api/')
    ? `/_api/auth/${tenantId}`
    : `/auth/${tenantId}`;
}

/** How long a browser session lasts (seconds). */
const SESSION_TTL = 14 * 24 * 3600;

/** node-oidc-provider configuration for one tenant. */
export function providerConfiguration(tenant: TenantDoc, keys: PrivateJwk[], deps: ProviderDeps): Configuration {
  const tenantId = tenant._id;
  const { models } = deps;
  const claims = deps.claims ?? new ClaimsResolver({ models, tenant, keys });
  // What discovery advertises is exactly what clients can be registered with (management routes/clients.ts):
  // no client_secret_jwt (only a digest of the secret is stored, so no HMAC can be checked), and asymmetric
  // algorithms only for private_key_jwt. The provider authenticates clients the same way at the token, revocation,
  // introspection, PAR and device authorization endpoints (a public client only for its own tokens).
  // A tenant under FAPI 2.0 (settings.security.profile `fapi2`, provider/fapi2.ts): private_key_jwt only, with
  // PS256, ES256 or EdDSA.
  const fapi2 = isFapi2Tenant(tenant);
  // The OpenID Dynamic profile (provider/openid-dynamic): request objects, signed UserInfo, the id_token response
  // types for clients that register them, the PKCE choice at registration; off unless the tenant turns it on.
  const dynamicProfile = openidDynamicProfileOn(tenant);
  const dynamic = dynamicProfileConfiguration(dynamicProfile);
  const clientAuthMethods: NonNullable<Configuration['clientAuthMethods']> = fapi2
    ? [...FAPI2_CLIENT_AUTH_METHODS]
    : ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'];
  const clientAuthSigningAlgValues: NonNullable<
    NonNullable<Configuration['enabledJWA']>['clientAuthSigningAlgValues']
  > = fapi2 ? [...FAPI2_SIGNING_ALGS] : ['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'];
  // Clients that introduce themselves: Client ID Metadata Documents (provider/client-id-metadata.ts) and
  // Dynamic Client Registration (provider/registration.ts), each off unless the tenant's settings turn it on; never
  // in the system tenant (the management API refuses them there too).
  const cimd = { ...cimdSettingsOf(tenant), ...(tenant.system ? { enabled: false } : {}) };
  const registration = {
    ...registrationSettingsOf(tenant),
    ...(tenant.system ? { mode: 'off' as const } : {}),
    idTokenResponseTypes: dynamicProfile,
  };
  const fetches = deps.fetches ?? new OutboundFetches(deps.outbound);
  const resourceInfo = resourceServerInfo(models, tenantId);

  return {
    adapter: createAdapterFactory(
      models,
      tenantId,
      undefined,
      fapi2 ? fapi2ClientMetadata : undefined,
      registration,
      deps.grantEnded,
    ),
    // The built-in client of the user's own ledger page (account/): first-party, public, PKCE. Not in a
    // FAPI 2.0 tenant (no public clients there): its users reach the page with a session from an application.
    clients: deps.accountRedirectUri && !fapi2 ? [accountClientMetadata(deps.accountRedirectUri)] : [],
    jwks: { keys: keys as unknown as NonNullable<Configuration['jwks']>['keys'] },
    cookies: {
      names: {
        session: `_session_${tenantId}`,
        interaction: `_interaction_${tenantId}`,
        resume: `_interaction_resume_${tenantId}`,
      },
      keys: deps.cookieKeys,
    },
    claims: SCOPE_CLAIMS,
    scopes: SUPPORTED_SCOPES,
    // Off: provider/claims-account.ts applies OpenID Connect Core 5.4 itself. The provider's option would leave
    // every scope's claims (amr, tenant, ...) out of the ID token; only the profile, email, address and phone
    // claims move to UserInfo, and only while the access token can call it.
    conformIdTokenClaims: false,
    // acr_values and the claims parameter (OpenID Connect Core 5.5): domain/acr.ts, provider/acr-policy.ts.
    // phr/phrh only where the tenant's passkeys can reach them (passkeys/settings.ts).
    acrValues: acrValuesFor(tenant),
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'ES256',
    },
    extraClientMetadata: {
      properties: [...Object.values(CLIENT_PROPS), ...OPENID_DYNAMIC_CLIENT_PROPS],
      // A metadata document or a registration request cannot set our own properties: such a client is a third
      // party (consent page), with PKCE, without a numeric id (so no NHE delegation).
      validator(ctx, key, _value, metadata) {
        // Also called outside the provider's routes (a client loaded by an interaction page): no `oidc` there.
        const route = (ctx as { oidc?: { route: string } } | undefined)?.oidc?.route;
        if (key === REQUIRE_PKCE_METADATA) {
          const registration = (metadata as Record<string, unknown>)[CLIENT_PROPS.registration];
          return validatePkceChoice(metadata as Record<string, unknown>, {
            profile: dynamicProfile,
            registering: route !== undefined && REGISTERING_ROUTES.has(route),
            selfIntroduced: isMetadataDocumentClientId(metadata.client_id)
              ? 'metadata_document'
              : route && REGISTERING_ROUTES.has(route)
                ? 'dynamic'
                : registration === 'dynamic'
                  ? 'dynamic'
                  : undefined,
          });
        }
        const own = isMetadataDocumentClientId(metadata.client_id)
          ? selfIntroducedProps('metadata_document')
          : route && REGISTERING_ROUTES.has(route)
            ? selfIntroducedProps('dynamic')
            : undefined;
        if (own) (metadata as Record<string, unknown>)[key] = own[key];
      },
    },
    // Every outbound request (metadata documents, jwks_uri) through the SSRF-safe helper, under the operator's policy
    // and the process's fetch limits; documents capped by the tenant.
    fetch: outboundFetch(tenantId, fetches, deps.outbound),
    fetchResponseBodyLimits: {
      'client_id metadata document': cimd.maxDocumentBytes,
      jwks_uri: 256 * 1024,
      sector_identifier_uri: 256 * 1024,
    },
    routes: { authorization: '/authorize', token: '/oidc/token' },
    clientBasedCORS: (_ctx, origin, client) => corsOriginAllowed(origin, client),
    // Agent clients (provider/agent-clients.ts): no offline_access at authorization. A request
    // naming APIs but no scope takes their scopes as its default (provider/default-resource-scope.ts).
    // idp_hint (and Keycloak's kc_idp_hint, which clients written for Keycloak send): the upstream provider to sign in
    // through, skipping the choice (upstream/routes.ts); an alias the tenant lacks is ignored there.
    extraParams: {
      ...defaultResourceScopeParams(),
      ...agentClientParams(models, tenantId),
      ...idTokenResponseParams(models, tenantId),
      ...requestUriParams(),
      [IDP_HINT_PARAM]: null,
      [KC_IDP_HINT_PARAM]: null,
      // CIBA's backchannel authentication request names its NHE (provider/ciba): only where the tenant turned it on.
      ...cibaParams(tenant),
    },
    // The code flow only; under the OpenID Dynamic profile also id_token and `id_token token`, for clients that
    // register them (provider/openid-dynamic/profile.ts). Client authentication as above.
    responseTypes: dynamic.responseTypes,
    clientAuthMethods,
    enabledJWA: {
      clientAuthSigningAlgValues,
      ...dynamic.enabledJWA,
      ...(fapi2
        ? { dPoPSigningAlgValues: [...FAPI2_SIGNING_ALGS], idTokenSigningAlgValues: [...FAPI2_ID_TOKEN_ALGS] }
        : {}),
    },
    // Discovery members the provider does not write itself (RFC 8414 section 2; OpenID Connect Discovery 1.0
    // section 3). Revocation and introspection authenticate clients as the token endpoint does: without these, a
    // client would assume client_secret_basic only (RFC 8414's default for revocation) or nothing.
    discovery: {
      revocation_endpoint_auth_methods_supported: [...clientAuthMethods],
      revocation_endpoint_auth_signing_alg_values_supported: [...clientAuthSigningAlgValues],
      introspection_endpoint_auth_methods_supported: [...clientAuthMethods],
      introspection_endpoint_auth_signing_alg_values_supported: [...clientAuthSigningAlgValues],
      // No request objects (JAR) unless the OpenID Dynamic profile turns them on (the provider then writes true
      // itself; this is only a default): said explicitly, as request_uri_parameter_supported already is.
      request_parameter_supported: false,
      // Token exchange's actor_token_type values: the spec's nhe-id and a JWT proving the actor.
      [DISCOVERY_ACTOR_TOKEN_TYPES]: [...ACTOR_TOKEN_TYPES_SUPPORTED],
      // The deepest delegation chain this tenant issues (the tenant's maxChainDepth; 1: no re-delegation).
      [DISCOVERY_MAX_CHAIN_DEPTH]: tenantChainDepth(tenantFacts(tenant)),
    },
    // Every authorization-code request carries PKCE (S256) (spec: Authentication), unless a confidential client's
    // record turns it off (RFC 9700 section 2.1.1: such a client may rely on nonce); a public client never can.
    // A code_challenge that is sent is enforced whatever the setting (the provider checks the code_verifier).
    // A FAPI 2.0 tenant requires it of every client.
    pkce: {
      required: (_ctx, client) =>
        fapi2 || pkceRequired(dynamicProfile, client as unknown as Parameters<typeof pkceRequired>[1]),
    },
    features: {
      devInteractions: { enabled: false },
      claimsParameter: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      userinfo: { enabled: true },
      deviceFlow: { enabled: true, ...devicePages({ tenantName: tenant.name, sessionTtl: SESSION_TTL }) },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: logoutSource({
          tenantId,
          tenantName: tenant.name,
          promptSeconds: deps.logoutPromptSeconds ?? 30,
        }),
        postLogoutSuccessSource: postLogoutSuccessSource({
          tenantId,
          tenantName: tenant.name,
          promptSeconds: deps.logoutPromptSeconds ?? 30,
        }),
      },
      dPoP: { enabled: true },
      clientIdMetadataDocument: clientIdMetadataDocumentFeature(cimd, {
        allowLoopback: deps.outbound?.allowLoopback === true,
        tenantId,
        fetches,
      }),
      ...registrationFeatures(registration),
      // OpenID CIBA Core 1.0 + RFC 9396 for agents asking a person (provider/ciba), off unless the tenant turns it on.
      ...cibaFeatures(tenant, models),
      // Request objects and signed UserInfo under the OpenID Dynamic profile (provider/openid-dynamic/profile.ts).
      ...dynamic.features,
      // FAPI 2.0 Security Profile for tenants that ask for it (provider/fapi2.ts); PAR for every client there.
      ...(fapi2 ? { fapi: { enabled: true, profile: '2.0' as const } } : {}),
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: fapi2 },
      resourceIndicators: {
        enabled: true,
        defaultResource: (ctx, client, oneOf) =>
          defaultResource(ctx, client as unknown as Record<string, unknown>, oneOf ? [...oneOf] : undefined),
        useGrantedResource: () => true,
        getResourceServerInfo: async (ctx, resource, client) => {
          if (ADMIN_AUDIENCES.has(resource) && isSelfIntroduced(client as unknown as Record<string, unknown>)) {
            throw new errors.InvalidTarget(
              'a client that registered itself or is identified by a metadata document cannot obtain tokens for this audience',
            );
          }
          return resourceInfo(ctx, resource);
        },
      },
    },
    interactions: {
      // Consent lists what the tokens will carry and asks again before they carry more (provider/consent.ts).
      // An essential acr the session does not meet asks for the second factor (provider/acr-policy.ts).
      policy: withAcrChecks(consentPolicy(models, tenantId)),
      url: (ctx, interaction) => `${mountPrefix(ctx, tenantId)}/interaction/${interaction.uid}`,
    },
    /** Claims by scope, UserInfo-only claims, custom_claims and passports: provider/claims-account.ts. */
    findAccount: createFindAccount(claims),
    /** First-party clients skip the consent page: their grant covers what they asked for. */
    async loadExistingGrant(ctx) {
      const client = ctx.oidc.client;
      const grantId = ctx.oidc.result?.consent?.grantId || (client && ctx.oidc.session?.grantIdFor(client.clientId));
      // A grant the session names may be gone (management deletes a client's grants when it gains a redirect URI):
      // a first-party client then gets a fresh one below instead of a consent page.
      const saved = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      if (saved) return saved;
      // An agent client's consent is remembered per user beyond the session (provider/agent-grants.ts).
      if (client && ctx.oidc.session?.accountId) {
        const remembered = await rememberedAgentGrantId(
          models,
          tenantId,
          ctx,
          client.clientId,
          ctx.oidc.session.accountId,
        );
        const grant = remembered ? await ctx.oidc.provider.Grant.find(remembered) : undefined;
        if (grant) return grant;
      }
      if (client && client[CLIENT_PROPS.firstParty] === true && ctx.oidc.session?.accountId) {
        const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: ctx.oidc.session.accountId });
        const scope = ctx.oidc.params?.scope;
        if (typeof scope === 'string') grant.addOIDCScope(scope);
        // Claims asked for by name with the claims parameter (OpenID Connect Core 5.5).
        const named = ctx.oidc.params?.claims ? [...ctx.oidc.requestParamClaims] : [];
        if (named.length) grant.addOIDCClaims(named);
        const resource = ctx.oidc.params?.resource;
        const resources = Array.isArray(resource) ? resource : typeof resource === 'string' ? [resource] : [];
        for (const r of resources) if (typeof scope === 'string') grant.addResourceScope(r, scope);
        await grant.save();
        return grant;
      }
      return undefined;
    },
    extraTokenClaims: (ctx, token) => ({
      ...userTokenClaims(ctx, token as { accountId?: string }, claims.amrProfile),
      ...((token as { extra?: Record<string, unknown> }).extra ?? {}),
      [CLAIM_TENANT_ID]: tenantId,
      [CLAIM_TENANT_NAME]: tenant.name,
    }),
    formats: {
      customizers: {
        /**
         * Decides the signed `scope` from RBAC (provider/resource-servers.ts, domain/access-token-scope.ts); a user's
         * token names its grant for introspection (provider/introspection.ts).
         */
        jwt: referenceGrant(accessTokenScopeCustomizer(models, tenantId)) as never,
      },
    },
    ttl: {
      AccessToken: (_ctx, token) =>
        (token as { resourceServer?: { accessTokenTTL?: number } }).resourceServer?.accessTokenTTL ?? 3600,
      ClientCredentials: (_ctx, token) =>
        (token as { resourceServer?: { accessTokenTTL?: number } }).resourceServer?.accessTokenTTL ?? 600,
      AuthorizationCode: 60,
      DeviceCode: 600,
      IdToken: 3600,
      Interaction: 3600,
      Session: SESSION_TTL,
      Grant: 14 * 24 * 3600,
      RefreshToken: 14 * 24 * 3600,
      ...cibaTtl(tenant),
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = renderErrorPage(out.error, out.error_description ?? '', tenant.name);
    },
  };
}
