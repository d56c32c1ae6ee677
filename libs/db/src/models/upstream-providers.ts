import { Schema } from 'mongoose';

/**
 * Upstream sign-in: the identity providers a tenant's people already have (an OpenID Connect provider such as Entra
 * ID, Okta, Google or Keycloak; a SAML 2.0 IdP), through which they sign in here. This service is the relying party
 * (OIDC) or service provider (SAML) towards them, and the broker towards the tenant's own clients.
 */
export const UPSTREAM_PROVIDER_TYPES = ['oidc', 'saml'] as const;
export type UpstreamProviderType = (typeof UPSTREAM_PROVIDER_TYPES)[number];

/** How this service authenticates at the upstream OP's token endpoint. */
export const UPSTREAM_CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type UpstreamClientAuthMethod = (typeof UPSTREAM_CLIENT_AUTH_METHODS)[number];

/**
 * Where a mapper writes, applied at every sign-in through the provider (not only the first):
 * - externalGroups: the values (strings or lists) of `source`, unioned over the provider's mappers of this target;
 *   the stored list is replaced, so what upstream removed is removed;
 * - providerClaims: the claim `source` copied into `provider_claims` (`*`: every claim upstream sent);
 * - identityProvider: `identity_provider` from `source` (default: the provider's alias);
 * - customClaims: `custom_claims.<claim>` from `source` (the identity-provider profile mapping);
 * - claim: the standard profile claim `<claim>` (name, given_name, email, ...) from `source`;
 * - username: the username of an account created on first sign-in;
 * - groups / roles: membership of the local groups or roles that `values` maps upstream values to. Only memberships
 *   the provider granted are ever removed by it, so what an admin assigned stays.
 */
export const UPSTREAM_MAPPER_TARGETS = [
  'externalGroups',
  'providerClaims',
  'identityProvider',
  'customClaims',
  'claim',
  'username',
  'groups',
  'roles',
] as const;
export type UpstreamMapperTarget = (typeof UPSTREAM_MAPPER_TARGETS)[number];

export interface UpstreamMapper {
  /** Upstream claim (a dot path into nested objects) or SAML attribute name; `*` for every claim (providerClaims). */
  source: string;
  target: UpstreamMapperTarget;
  /** customClaims and claim: the name written. */
  claim?: string;
  /** groups and roles: upstream value → local group or role name; values not listed grant nothing. */
  values?: Array<{ upstream: string; local: string }>;
}

export interface UpstreamOidcSettings {
  /** The OP's issuer identifier, exactly as its ID tokens carry it. */
  issuer: string;
  /** Where the OP's discovery document is; default `<issuer>/.well-known/openid-configuration`. */
  discoveryUrl?: string;
  /** Explicit endpoints (an OP without discovery); each one set overrides discovery's. */
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  userinfoEndpoint?: string;
  jwksUri?: string;
  endSessionEndpoint?: string;
  clientId: string;
  /** The client secret, sealed with the key-encryption key (never returned by the API). */
  clientSecretSealed?: string;
  clientAuthMethod: UpstreamClientAuthMethod;
  /** private_key_jwt: our private signing key for this provider (a JWK, sealed); its public half is published. */
  privateJwkSealed?: string;
  scopes: string[];
  pkce: boolean;
  /** acr_values asked of the OP (OpenID Connect Core 3.1.2.1). */
  acrValues?: string[];
  /** The claim that identifies the person stably at the OP (`sub`; for Entra ID `oid`, unique within `tid`). */
  subjectClaim: string;
  /** Ask the OP's UserInfo endpoint too, for claims the ID token lacks. */
  fetchUserinfo: boolean;
}

export interface UpstreamSamlSettings {
  /** Where the IdP's metadata is published; re-read hourly, so a certificate rotated there is picked up. */
  metadataUrl?: string;
  /** The IdP's metadata document, when given instead of a URL. */
  metadataXml?: string;
  /** Our entity id at this IdP; default the provider's SP metadata URL. */
  spEntityId?: string;
  signAuthnRequests: boolean;
  /** Our SP signing key (PKCS#8 PEM, sealed) and its certificate (in our SP metadata); made on first use. */
  spPrivateKeySealed?: string;
  spCertificate?: string;
  nameIdFormat?: string;
}

export interface UpstreamProviderDoc {
  tenantId: number;
  /** Names the provider in URLs, on the login page's button, and in `identity_provider`; immutable. */
  alias: string;
  displayName: string;
  type: UpstreamProviderType;
  /** A disabled provider signs nobody in, from the next request on. */
  enabled: boolean;
  oidc?: UpstreamOidcSettings;
  saml?: UpstreamSamlSettings;
  /** Home-realm discovery: an email address in one of these domains is sent to this provider. */
  emailDomains: string[];
  /**
   * Domains whose addresses this provider is authoritative for: a first sign-in asserting a VERIFIED address in one
   * of them links to the local account with that address. Empty (the default): never link by email.
   */
  authoritativeEmailDomains: string[];
  /** Create an account on a first sign-in that links to none (just-in-time provisioning). */
  jitProvisioning: boolean;
  /** The tenant's people sign in only through this provider: the login page goes straight to it. */
  exclusive: boolean;
  mappers: UpstreamMapper[];
  /** Upstream amr value → the amr values (RFC 8176) recorded here; unmapped values record nothing. */
  amrMap: Array<{ upstream: string; amr: string[] }>;
  /** Upstream acr value → our acr value; an unmapped acr is recorded as urn:idp:acr:federated (meets no requirement). */
  acrMap: Array<{ upstream: string; acr: string }>;
  createdAt: Date;
  updatedAt: Date;
}

const pair = (a: string, b: string, bType: unknown) =>
  new Schema({ [a]: { type: String, required: true }, [b]: { type: bType, required: true } }, { _id: false });

export const upstreamProviderSchema = new Schema<UpstreamProviderDoc>(
  {
    tenantId: { type: Number, required: true },
    alias: { type: String, required: true },
    displayName: { type: String, required: true },
    type: { type: String, enum: UPSTREAM_PROVIDER_TYPES, required: true },
    enabled: { type: Boolean, default: true },
    oidc: { type: Schema.Types.Mixed },
    saml: { type: Schema.Types.Mixed },
    emailDomains: { type: [String], default: [] },
    authoritativeEmailDomains: { type: [String], default: [] },
    jitProvisioning: { type: Boolean, default: true },
    exclusive: { type: Boolean, default: false },
    mappers: {
      type: [
        new Schema(
          {
            source: { type: String, required: true },
            target: { type: String, enum: UPSTREAM_MAPPER_TARGETS, required: true },
            claim: { type: String },
            values: { type: [pair('upstream', 'local', String)], default: undefined },
          },
          { _id: false },
        ),
      ],
      default: [],
    },
    amrMap: { type: [pair('upstream', 'amr', [String])], default: [] },
    acrMap: { type: [pair('upstream', 'acr', String)], default: [] },
  },
  { timestamps: true, collection: 'upstream_providers', versionKey: false },
);
upstreamProviderSchema.index({ tenantId: 1, alias: 1 }, { unique: true });

/**
 * A local account's link to a person at an upstream provider. The identity key is (tenant, provider, upstream
 * subject), never an email address: one upstream identity links to at most one account (unique index), an account
 * may have several links.
 */
export interface UpstreamLinkDoc {
  tenantId: number;
  /** The provider's alias. */
  provider: string;
  /** The upstream subject (the provider's subject claim, or the SAML NameID). */
  subject: string;
  /** The upstream issuer (OIDC `iss`, SAML IdP entity id); a sign-in from another issuer does not use the link. */
  issuer: string;
  userId: string;
  /** How the link was made: on first sign-in (jit), by proving the local password, by a verified email in an authoritative domain, or by an admin. */
  linkedBy: 'jit' | 'password' | 'verified_email' | 'admin';
  /** Local group and role ids this provider's mappers granted (the only ones its mappers ever remove). */
  grantedGroupIds: string[];
  grantedRoleIds: string[];
  lastSignInAt?: Date;
  /** The last upstream session, for logout towards the provider: the OIDC ID token, or the SAML NameID and SessionIndex. */
  lastSession?: { idToken?: string; nameId?: string; nameIdFormat?: string; sessionIndex?: string };
  createdAt: Date;
  updatedAt: Date;
}

export const upstreamLinkSchema = new Schema<UpstreamLinkDoc>(
  {
    tenantId: { type: Number, required: true },
    provider: { type: String, required: true },
    subject: { type: String, required: true },
    // Empty for a link an administrator made before the identity's first sign-in (filled in then).
    issuer: { type: String, default: '' },
    userId: { type: String, required: true },
    linkedBy: { type: String, enum: ['jit', 'password', 'verified_email', 'admin'], required: true },
    grantedGroupIds: { type: [String], default: [] },
    grantedRoleIds: { type: [String], default: [] },
    lastSignInAt: { type: Date },
    lastSession: { type: Schema.Types.Mixed },
  },
  { timestamps: true, collection: 'upstream_links', versionKey: false },
);
upstreamLinkSchema.index({ tenantId: 1, provider: 1, subject: 1 }, { unique: true });
upstreamLinkSchema.index({ tenantId: 1, userId: 1 });
