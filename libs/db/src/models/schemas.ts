import { Schema } from 'mongoose';

/** NHE types the spec names; a tenant's settings.nhe.allowedNheTypes defaults to all of them. */
export const DEFAULT_NHE_TYPES = ['llm-autonomous', 'llm-assistive', 'automated-pipeline'] as const;

/** Defaults of settings.nhe exactly as the spec's table gives them. */
export const NHE_SETTINGS_DEFAULTS = {
  enabled: false,
  defaultMaxTokenLifetime: 300,
  hardMaxTokenLifetime: 900,
  requireDpop: false,
  allowedNheTypes: [...DEFAULT_NHE_TYPES] as string[],
  maxNhePerTenant: 50,
  auditRetentionDays: 90,
  /**
   * Authenticated actors: the spec's `nhe-id` actor token (a name, no proof) keeps working unless this is turned on.
   */
  requireActorProof: false,
  /**
   * Delegation chains: the deepest chain (actors in `act`) a token of this tenant may carry. 1: an NHE
   * token is never a valid subject token (the spec's behaviour); at most {@link MAX_CHAIN_DEPTH}.
   */
  maxChainDepth: 1,
  /**
   * Phishing-resistant delegation: the default, for delegation policies without their own, of the maximum age in
   * minutes of the phishing-resistant sign-in (acr phr/phrh) a subject token must come from. 0: no requirement.
   */
  phishingResistantSignInMaxAgeMinutes: 0,
};

/** Hard maximum of settings.nhe.maxChainDepth and of a delegation policy's maxChainDepth (delegation chains). */
export const MAX_CHAIN_DEPTH = 5;

export interface NheSettings {
  enabled: boolean;
  defaultMaxTokenLifetime: number;
  hardMaxTokenLifetime: number;
  requireDpop: boolean;
  allowedNheTypes: string[];
  maxNhePerTenant: number;
  auditRetentionDays: number;
  /** An NHE must prove who it is (actor_token_type jwt) at token exchange; an NHE's own setting overrides it. */
  requireActorProof: boolean;
  /** Deepest delegation chain a token may carry (1 = no re-delegation, the spec's behaviour; at most 5). */
  maxChainDepth: number;
  /** Token exchange needs a phishing-resistant sign-in (acr phr/phrh) within this many minutes; 0: none (default). */
  phishingResistantSignInMaxAgeMinutes: number;
}

/** settings.claims: how claims are released. */
export interface ClaimsSettings {
  /** `rfc8176` (default): amr as recorded; `projected`: sc -> hwk + mfa, swk -> mfa. */
  amrProfile: 'rfc8176' | 'projected';
  /** GA4GH passports (`ga4gh_passport_v1` in UserInfo) are issued only when enabled. */
  ga4ghPassport: { enabled: boolean; visaLifetimeSeconds: number };
}

export const CLAIMS_SETTINGS_DEFAULTS: ClaimsSettings = {
  amrProfile: 'rfc8176',
  ga4ghPassport: { enabled: false, visaLifetimeSeconds: 3600 },
};

/** Security profiles a tenant can be put under (settings.security.profile). */
export const SECURITY_PROFILES = ['standard', 'fapi2'] as const;
export type SecurityProfile = (typeof SECURITY_PROFILES)[number];

/**
 * settings.security, the tenant's security profile: `standard` (default): the OpenID Connect and OAuth behaviour every
 * tenant has; `fapi2`: FAPI 2.0 Security Profile (PAR, DPoP-bound tokens, private_key_jwt only, PKCE S256).
 */
export interface SecuritySettings {
  profile: SecurityProfile;
}

export const SECURITY_SETTINGS_DEFAULTS: SecuritySettings = { profile: 'standard' };

/**
 * settings.openidDynamicProfile: what the OpenID Connect Dynamic OP profile needs beyond the code flow (request objects
 * by value and by reference, signed UserInfo, the id_token and `id_token token` response types for clients that
 * register them, the PKCE choice at registration for confidential clients). Off by default; never with FAPI 2.0.
 */
export interface OpenidDynamicProfileSettings {
  enabled: boolean;
}

export const OPENID_DYNAMIC_PROFILE_DEFAULTS: OpenidDynamicProfileSettings = { enabled: false };

/**
 * settings.clientIdMetadataDocuments (OAuth Client ID Metadata Document draft): a `client_id` that is an https URL
 * names a Client ID Metadata Document, fetched (SSRF-safe), validated and cached by oidc-core
 * (provider/client-id-metadata.ts). Off by default.
 */
export interface ClientIdMetadataDocumentSettings {
  enabled: boolean;
  /** Host patterns documents may be fetched from (`mcp.example.com`, `*.example.com`); empty: any public host. */
  allowedHosts: string[];
  /** Upper bound of how long a document is cached, whatever its caching headers say (seconds). */
  cacheMaxSeconds: number;
  /** Largest document accepted (bytes). */
  maxDocumentBytes: number;
}

export const CIMD_SETTINGS_DEFAULTS: ClientIdMetadataDocumentSettings = {
  enabled: false,
  allowedHosts: [],
  cacheMaxSeconds: 3600,
  maxDocumentBytes: 5120,
};

/** Dynamic Client Registration modes (settings.registration.mode). */
export const REGISTRATION_MODES = ['off', 'initial-access-token', 'open'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];
/** Grant types a tenant's registration policy may allow (never token exchange). */
export const REGISTRATION_GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const;
/** Client authentication methods a registration policy may allow (no shared secrets). */
export const REGISTRATION_AUTH_METHODS = ['none', 'private_key_jwt'] as const;

/** settings.registration: RFC 7591 / 7592 Dynamic Client Registration. Off by default. */
export interface RegistrationSettings {
  mode: RegistrationMode;
  /** Grant types a registered client may have. */
  grantTypes: string[];
  /** Client authentication methods a registered client may use. */
  tokenEndpointAuthMethods: string[];
  /** Registrations per source address and window (stored, so it holds across replicas). */
  rateLimit: { maxPerWindow: number; windowSeconds: number };
}

export const REGISTRATION_SETTINGS_DEFAULTS: RegistrationSettings = {
  mode: 'off',
  grantTypes: ['authorization_code', 'refresh_token'],
  tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
  rateLimit: { maxPerWindow: 10, windowSeconds: 3600 },
};

/**
 * settings.passkeys: WebAuthn passkeys (services/oidc-core/src/passkeys). Absent or `enabled: false`: no passkey
 * anywhere (the default). `rpId` is fixed once the tenant has its first enrolment (a credential is bound to its RP ID).
 */
export interface PasskeySettings {
  enabled: boolean;
  /** WebAuthn RP ID; absent: the host of the tenant's public base URL. */
  rpId?: string;
  /** The login page offers only passkeys (and recovery codes); accounts are set up with one-time enrolment links. */
  passkeyOnly: boolean;
  /** WebAuthn userVerification of every ceremony. */
  userVerification: 'required' | 'preferred';
  /** WebAuthn attestation conveyance at registration. */
  attestation: 'none' | 'direct';
  /** The agent-client consent page asks for a fresh passkey confirmation (users with a passkey). */
  confirmAgentConsent: boolean;
}

export const PASSKEY_SETTINGS_DEFAULTS: PasskeySettings = {
  enabled: false,
  passkeyOnly: false,
  userVerification: 'required',
  attestation: 'none',
  confirmAgentConsent: false,
};

/**
 * settings.backchannelAuthentication: OpenID CIBA Core 1.0 for agent clients (oidc-core provider/ciba). Off by default;
 * absent on tenants that never set it (defaults below).
 */
export interface BackchannelAuthenticationSettings {
  enabled: boolean;
  /** Seconds a pending request waits for the person (CIBA Core section 7.3 `expires_in`); requested_expiry only shortens it. */
  requestLifetimeSeconds: number;
  /** Pending requests one person may have at once (no notification flooding); one more is refused. */
  maxPendingPerUser: number;
  /**
   * Pending requests one client may have at once, over all the people it asks (a client cannot prompt every person of
   * the tenant at once); one more is refused.
   */
  maxPendingPerClient: number;
  /** Seconds a polling client waits between token requests (`interval`); faster polls are answered slow_down. */
  pollIntervalSeconds: number;
  /** When set, approving needs a sign-in no older than this many seconds (a fresh sign-in or passkey). */
  approvalMaxAuthAgeSeconds?: number;
}

export const BACKCHANNEL_AUTHENTICATION_DEFAULTS: BackchannelAuthenticationSettings = {
  enabled: false,
  requestLifetimeSeconds: 300,
  maxPendingPerUser: 5,
  maxPendingPerClient: 100,
  pollIntervalSeconds: 5,
};

export interface TenantDoc {
  _id: number;
  name: string;
  system: boolean;
  /**
   * false: the tenant is disabled: its OAuth and OpenID endpoints refuse every request, its tokens introspect as
   * inactive and the sidecar exchanges none; only the platform's administrators manage it. Absent (tenants stored
   * before the field existed): enabled.
   */
  enabled?: boolean;
  settings: {
    nhe: NheSettings;
    claims?: ClaimsSettings;
    security?: SecuritySettings;
    clientIdMetadataDocuments?: ClientIdMetadataDocumentSettings;
    registration?: RegistrationSettings;
    backchannelAuthentication?: Partial<BackchannelAuthenticationSettings>;
    passkeys?: Partial<PasskeySettings>;
    openidDynamicProfile?: OpenidDynamicProfileSettings;
  };
  createdAt: Date;
  updatedAt: Date;
}

export const tenantSchema = new Schema<TenantDoc>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    system: { type: Boolean, default: false },
    enabled: { type: Boolean, default: true },
    settings: {
      nhe: {
        enabled: { type: Boolean, default: NHE_SETTINGS_DEFAULTS.enabled },
        defaultMaxTokenLifetime: { type: Number, default: NHE_SETTINGS_DEFAULTS.defaultMaxTokenLifetime },
        hardMaxTokenLifetime: { type: Number, default: NHE_SETTINGS_DEFAULTS.hardMaxTokenLifetime },
        requireDpop: { type: Boolean, default: NHE_SETTINGS_DEFAULTS.requireDpop },
        allowedNheTypes: { type: [String], default: () => [...DEFAULT_NHE_TYPES] },
        maxNhePerTenant: { type: Number, default: NHE_SETTINGS_DEFAULTS.maxNhePerTenant },
        auditRetentionDays: { type: Number, default: NHE_SETTINGS_DEFAULTS.auditRetentionDays },
        requireActorProof: { type: Boolean, default: NHE_SETTINGS_DEFAULTS.requireActorProof },
        maxChainDepth: { type: Number, default: NHE_SETTINGS_DEFAULTS.maxChainDepth },
        phishingResistantSignInMaxAgeMinutes: {
          type: Number,
          default: NHE_SETTINGS_DEFAULTS.phishingResistantSignInMaxAgeMinutes,
        },
      },
      claims: {
        amrProfile: { type: String, enum: ['rfc8176', 'projected'], default: CLAIMS_SETTINGS_DEFAULTS.amrProfile },
        ga4ghPassport: {
          enabled: { type: Boolean, default: CLAIMS_SETTINGS_DEFAULTS.ga4ghPassport.enabled },
          visaLifetimeSeconds: {
            type: Number,
            min: 60,
            max: 86400,
            default: CLAIMS_SETTINGS_DEFAULTS.ga4ghPassport.visaLifetimeSeconds,
          },
        },
      },
      security: {
        profile: { type: String, enum: [...SECURITY_PROFILES], default: SECURITY_SETTINGS_DEFAULTS.profile },
      },
      // Absent on tenants that never set them (defaults in CIMD_SETTINGS_DEFAULTS, REGISTRATION_SETTINGS_DEFAULTS).
      clientIdMetadataDocuments: {
        type: new Schema(
          {
            enabled: { type: Boolean },
            allowedHosts: { type: [String], default: undefined },
            // Written by earlier versions, read by nothing: whether any outbound fetch may reach a loopback host is
            // the operator's choice (oidc-core's CIMD_ALLOW_LOOPBACK), never a tenant's.
            allowLoopback: { type: Boolean },
            cacheMaxSeconds: { type: Number },
            maxDocumentBytes: { type: Number },
          },
          { _id: false },
        ),
        required: false,
      },
      registration: {
        type: new Schema(
          {
            mode: { type: String, enum: [...REGISTRATION_MODES] },
            grantTypes: { type: [String], default: undefined },
            tokenEndpointAuthMethods: { type: [String], default: undefined },
            rateLimit: {
              type: new Schema({ maxPerWindow: Number, windowSeconds: Number }, { _id: false }),
              required: false,
            },
          },
          { _id: false },
        ),
        required: false,
      },
      // Absent on tenants that never set it (OPENID_DYNAMIC_PROFILE_DEFAULTS: off).
      openidDynamicProfile: {
        type: new Schema({ enabled: { type: Boolean } }, { _id: false }),
        required: false,
      },
      // Absent on tenants that never set them (defaults in PASSKEY_SETTINGS_DEFAULTS).
      passkeys: {
        type: new Schema(
          {
            enabled: { type: Boolean },
            rpId: { type: String },
            passkeyOnly: { type: Boolean },
            userVerification: { type: String, enum: ['required', 'preferred'] },
            attestation: { type: String, enum: ['none', 'direct'] },
            confirmAgentConsent: { type: Boolean },
          },
          { _id: false },
        ),
        required: false,
      },
    },
  },
  { timestamps: true, collection: 'tenants', versionKey: false },
);
// Absent on tenants that never set it (defaults in BACKCHANNEL_AUTHENTICATION_DEFAULTS).
tenantSchema.add({
  settings: {
    backchannelAuthentication: {
      type: new Schema(
        {
          enabled: { type: Boolean },
          requestLifetimeSeconds: { type: Number, min: 30, max: 3600 },
          maxPendingPerUser: { type: Number, min: 1, max: 100 },
          maxPendingPerClient: { type: Number, min: 1, max: 10000 },
          pollIntervalSeconds: { type: Number, min: 1, max: 60 },
          approvalMaxAuthAgeSeconds: { type: Number, min: 30, max: 86400 },
        },
        { _id: false },
      ),
      required: false,
    },
  },
});

export interface ClientDoc {
  tenantId: number;
  /** Numeric id: the `azp` claim of NHE tokens. */
  numericId: number;
  /** OAuth client_id. */
  clientId: string;
  name: string;
  /** Keyed SHA-256 digest (hex) of the secret; absent for public clients. */
  secretDigest?: string;
  tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
  jwks?: { keys: Record<string, unknown>[] };
  idTokenSignedResponseAlg?: 'ES256' | 'RS256';
  /** Management API `dpopBoundAccessTokens`; provider metadata `dpop_bound_access_tokens`. */
  requireDpop?: boolean;
  /**
   * Authorization-code requests must carry PKCE (the default). Only a confidential client may be set to false;
   * a public client (`tokenEndpointAuthMethod: none`) needs PKCE whatever this says.
   */
  pkceRequired?: boolean;
  /** Authorization requests only through PAR (RFC 9126 `require_pushed_authorization_requests`). */
  requirePushedAuthorizationRequests?: boolean;
  /** CIBA (grant type urn:openid:params:grant-type:ciba): poll (default) or ping, and where a ping goes (https). */
  backchannelTokenDeliveryMode?: 'poll' | 'ping';
  backchannelClientNotificationEndpoint?: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  roleIds: string[];
  firstParty: boolean;
  showLogoutPrompt: boolean;
  enabled: boolean;
  /** `dynamic`: registered through RFC 7591 (never first-party, no delegation); absent: managed through the API. */
  registration?: 'dynamic';
  /** A dynamic client's registered metadata as JSON text (what RFC 7592 reads back and the provider loads). */
  registeredMetadata?: string;
  config: {
    nhe: { delegationEnabled: boolean; allowedNheIdentifiers: string[]; maxTokenLifetime?: number };
    featureToggles: { requireAuthorizationScopesInRequest: boolean; requireResourceIndicatorInRequest: boolean };
    legacyRoleCompatibility: boolean;
    customizeUserInfoClaims?: string;
  };
}

export const clientSchema = new Schema<ClientDoc>(
  {
    tenantId: { type: Number, required: true },
    numericId: { type: Number, required: true, unique: true },
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    secretDigest: { type: String },
    tokenEndpointAuthMethod: { type: String, required: true, default: 'client_secret_basic' },
    jwks: { type: Schema.Types.Mixed },
    /** ID tokens are ES256 unless the client asks for RS256. */
    idTokenSignedResponseAlg: { type: String, enum: ['ES256', 'RS256'], default: 'ES256' },
    /** Every token request of this client must carry a DPoP proof (RFC 9449 dpop_bound_access_tokens). */
    requireDpop: { type: Boolean, default: false },
    /** PKCE on every authorization-code request; false only on confidential clients (absent means true). */
    pkceRequired: { type: Boolean, default: true },
    /** Plain authorization requests are refused: only a pushed one (RFC 9126) starts the flow. */
    requirePushedAuthorizationRequests: { type: Boolean, default: false },
    backchannelTokenDeliveryMode: { type: String, enum: ['poll', 'ping'] },
    backchannelClientNotificationEndpoint: { type: String },
    redirectUris: { type: [String], default: [] },
    postLogoutRedirectUris: { type: [String], default: [] },
    grantTypes: { type: [String], default: ['authorization_code', 'refresh_token'] },
    responseTypes: { type: [String], default: ['code'] },
    roleIds: { type: [String], default: [] },
    firstParty: { type: Boolean, default: false },
    showLogoutPrompt: { type: Boolean, default: true },
    enabled: { type: Boolean, default: true },
    registration: { type: String, enum: ['dynamic'] },
    registeredMetadata: { type: String },
    config: {
      nhe: {
        delegationEnabled: { type: Boolean, default: false },
        allowedNheIdentifiers: { type: [String], default: [] },
        maxTokenLifetime: { type: Number },
      },
      featureToggles: {
        requireAuthorizationScopesInRequest: { type: Boolean, default: false },
        requireResourceIndicatorInRequest: { type: Boolean, default: false },
      },
      legacyRoleCompatibility: { type: Boolean, default: false },
      customizeUserInfoClaims: { type: String },
    },
  },
  { timestamps: true, collection: 'clients', versionKey: false },
);
clientSchema.index({ tenantId: 1, clientId: 1 }, { unique: true });

export interface ResourceServerDoc {
  tenantId: number;
  identifier: string;
  name: string;
  /** Permissions (scope strings) registered on this API. */
  scopes: string[];
  /**
   * What the consent page says for some of `scopes` (optional; a list, not a map, since scope strings may hold
   * dots, which MongoDB field names cannot).
   */
  scopeDescriptions?: Array<{ scope: string; description: string }>;
  /**
   * URL of the API's OAuth 2.0 Protected Resource Metadata (RFC 9728), recorded by an admin so the provider can
   * name it (optional; https, or http on loopback).
   */
  metadataUrl?: string;
  /**
   * client_ids of the clients that may introspect this API's access tokens (RFC 7662 section 4), usually the
   * API's own client; the client a token was issued to may always introspect it. Absent: none.
   */
  introspectionClientIds?: string[];
  config: {
    accessToken: { lifetime: number };
    nhe: { acceptDelegationTokens: boolean; requireDelegationTokens: boolean; allowedNheTypes: string[] };
  };
}

export const resourceServerSchema = new Schema<ResourceServerDoc>(
  {
    tenantId: { type: Number, required: true },
    identifier: { type: String, required: true },
    name: { type: String, required: true },
    scopes: { type: [String], default: [] },
    scopeDescriptions: {
      type: [{ _id: false, scope: { type: String, required: true }, description: { type: String, required: true } }],
      default: undefined,
    },
    metadataUrl: { type: String },
    introspectionClientIds: { type: [String], default: undefined },
    config: {
      accessToken: { lifetime: { type: Number, default: 3600 } },
      nhe: {
        acceptDelegationTokens: { type: Boolean, default: false },
        requireDelegationTokens: { type: Boolean, default: false },
        allowedNheTypes: { type: [String], default: [] },
      },
    },
  },
  { timestamps: true, collection: 'resource_servers', versionKey: false },
);
resourceServerSchema.index({ tenantId: 1, identifier: 1 }, { unique: true });

export interface RoleDoc {
  tenantId: number;
  name: string;
  /** Identifier of the resource server whose permissions this role bundles. */
  resourceServer: string;
  permissions: string[];
}

export const roleSchema = new Schema<RoleDoc>(
  {
    tenantId: { type: Number, required: true },
    name: { type: String, required: true },
    resourceServer: { type: String, required: true },
    permissions: { type: [String], default: [] },
  },
  { timestamps: true, collection: 'roles', versionKey: false },
);
roleSchema.index({ tenantId: 1, name: 1 }, { unique: true });

export interface GroupDoc {
  tenantId: number;
  name: string;
  roleIds: string[];
  /** `scim`: provisioned by the tenant's directory through SCIM 2.0 (RFC 7643), which owns its name and members. */
  managedBy?: 'scim';
  /** The directory's identifier of the group (RFC 7643 section 3.1 `externalId`). */
  externalId?: string;
}

export const groupSchema = new Schema<GroupDoc>(
  {
    tenantId: { type: Number, required: true },
    name: { type: String, required: true },
    roleIds: { type: [String], default: [] },
    managedBy: { type: String },
    externalId: { type: String },
  },
  { timestamps: true, collection: 'groups', versionKey: false },
);
groupSchema.index({ tenantId: 1, name: 1 }, { unique: true });

export interface UserDoc {
  tenantId: number;
  username: string;
  passwordHash: string;
  enabled: boolean;
  roleIds: string[];
  groupIds: string[];
  /** Profile and identity claims (name, email, phone_number, address, ...), keyed by claim name. */
  claims: Record<string, unknown>;
  totpSecret?: string;
  /** Last TOTP time step accepted for this user: a code is never accepted twice (replay). */
  totpLastTimeStep?: number;
  /** Group names asserted by an external identity provider (`external_groups` claim). */
  externalGroups?: string[];
  /** The identity provider the account signs in through (`identity_provider` claim), e.g. `google`. */
  identityProvider?: string;
  /** The account this one is linked to (`linked_identity` claim). */
  linkedIdentity?: { provider: string; subject: string };
  /** Claims as the upstream provider sent them (`provider_claims` claim). */
  providerClaims?: Record<string, unknown>;
  /** RAS-compatible federated identities (`federated_identities` claim). */
  federatedIdentities?: Array<Record<string, unknown>>;
  /** Values of the identity-provider profile mapping: the `custom_claims` object unless a client script replaces it. */
  customClaims?: Record<string, unknown>;
  /** GA4GH visa assertions; signed into the passport (`ga4gh_passport_v1`) at UserInfo time. `conditions` in storage form (ga4gh-visas.ts). */
  ga4ghVisas?: Array<{
    type: string;
    value: string;
    source: string;
    by?: string;
    asserted: number;
    conditions?: unknown;
  }>;
  /** `scim`: provisioned by the tenant's directory through SCIM 2.0 (RFC 7643), which owns its profile and `active`. */
  managedBy?: 'scim';
  /** The directory's identifier of the person (RFC 7643 section 3.1 `externalId`). */
  externalId?: string;
  /**
   * The SCIM attributes the directory sent that have no place of their own (RFC 7643 section 4.1 core and 4.3
   * enterprise extension: name, emails, title, manager, ...), kept so a GET returns what was written.
   */
  scim?: Record<string, unknown>;
}

export const userSchema = new Schema<UserDoc>(
  {
    tenantId: { type: Number, required: true },
    username: { type: String, required: true },
    passwordHash: { type: String, required: true },
    enabled: { type: Boolean, default: true },
    roleIds: { type: [String], default: [] },
    groupIds: { type: [String], default: [] },
    claims: { type: Schema.Types.Mixed, default: {} },
    totpSecret: { type: String },
    totpLastTimeStep: { type: Number },
    externalGroups: { type: [String], default: undefined },
    identityProvider: { type: String },
    linkedIdentity: {
      type: new Schema(
        { provider: { type: String, required: true }, subject: { type: String, required: true } },
        { _id: false },
      ),
    },
    providerClaims: { type: Schema.Types.Mixed },
    federatedIdentities: { type: [Schema.Types.Mixed], default: undefined },
    customClaims: { type: Schema.Types.Mixed },
    ga4ghVisas: { type: [Schema.Types.Mixed], default: undefined },
    managedBy: { type: String },
    externalId: { type: String },
    scim: { type: Schema.Types.Mixed },
  },
  { timestamps: true, collection: 'users', versionKey: false, minimize: false },
);
userSchema.index({ tenantId: 1, username: 1 }, { unique: true });

/**
 * One failed (or in-flight) sign-in attempt, appended per throttle key (an account name's digest or a client
 * IP). Only inserts, counts and deletes: FerretDB loses concurrent `$inc` updates, so counters are not used.
 */
export interface LoginFailureDoc {
  tenantId: number;
  /** `acct:<sha256 of the name typed>` or `ip:<address>`. */
  key: string;
  at: Date;
  expiresAt: Date;
}

export const loginFailureSchema = new Schema<LoginFailureDoc>(
  {
    tenantId: { type: Number, required: true },
    key: { type: String, required: true },
    at: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'login_failures', versionKey: false },
);
loginFailureSchema.index({ tenantId: 1, key: 1, at: 1 });
loginFailureSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/**
 * The circuit-breaker state of one client's customizeUserInfoClaims script, as oidc-core last reported it (written
 * when the breaker opens, half-opens or closes, and at most every few seconds on failures; never per call), read by
 * the management API. `scriptSha256` names the script the state is about: a state of a script since replaced is
 * stale. With several oidc-core replicas each keeps its own breaker; this is the latest report of any of them.
 */
export interface CustomClaimsScriptStateDoc {
  tenantId: number;
  clientId: string;
  /** SHA-256 (hex) of the script the state is about. */
  scriptSha256: string;
  state: 'closed' | 'open' | 'half_open';
  /** Timeouts and memory failures in a row. */
  consecutiveFailures: number;
  /** When the breaker last opened (while not closed). */
  openedAt?: Date;
  /** When the next call runs as a probe (while open). */
  retryAt?: Date;
  lastError?: { reason: string; message: string; at: Date };
  updatedAt: Date;
}

export const customClaimsScriptStateSchema = new Schema<CustomClaimsScriptStateDoc>(
  {
    tenantId: { type: Number, required: true },
    clientId: { type: String, required: true },
    scriptSha256: { type: String, required: true },
    state: { type: String, required: true, enum: ['closed', 'open', 'half_open'] },
    consecutiveFailures: { type: Number, required: true },
    openedAt: { type: Date },
    retryAt: { type: Date },
    lastError: { type: new Schema({ reason: String, message: String, at: Date }, { _id: false }) },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'custom_claims_script_states', versionKey: false },
);
customClaimsScriptStateSchema.index({ tenantId: 1, clientId: 1 }, { unique: true });

export interface NheDoc {
  tenantId: number;
  identifier: string;
  type: string;
  allowedScopes: string[];
  maxTokenLifetime: number;
  operator: string;
  model?: { name?: string; version?: string; provider?: string };
  enabled: boolean;
  /**
   * Authenticated actors: public keys the NHE signs its actor tokens (and DPoP proofs, when pinned) with: inline ...
   */
  jwks?: { keys: Array<Record<string, unknown>> };
  /** ... or published at an https URL (fetched SSRF-safely, cached). At most one of jwks and jwksUri. */
  jwksUri?: string;
  /** A workload identity (issuer + subject) that authenticates as this NHE; the issuer is a tenant workload issuer. */
  workloadIdentity?: { issuer: string; subject: string };
  /** Overrides settings.nhe.requireActorProof; absent or null: the tenant's setting. */
  requireActorProof?: boolean | null;
  /** Tokens of this NHE must be DPoP-bound to one of its registered keys (jwks / jwksUri). */
  requireKeyBoundDpop?: boolean;
  /**
   * Agent clients: OAuth clients that embody this NHE: client ids, or Client ID Metadata Document URL
   * patterns ending with `*` (libs/delegation agent-clients.ts). Their user tokens are NHE delegation tokens.
   */
  agentClients?: string[];
  /**
   * `<tenantId>:<n>` with n below settings.nhe.maxNhePerTenant: a unique slot, so concurrent registrations can never
   * exceed the limit (one unique index, no transaction). Absent on records created outside the management API.
   */
  slotKey?: string;
  createdAt: Date;
  updatedAt: Date;
}

export const nheSchema = new Schema<NheDoc>(
  {
    tenantId: { type: Number, required: true },
    identifier: { type: String, required: true },
    type: { type: String, required: true },
    allowedScopes: { type: [String], default: [] },
    maxTokenLifetime: { type: Number, required: true },
    operator: { type: String, required: true },
    model: { type: new Schema({ name: String, version: String, provider: String }, { _id: false }), required: false },
    enabled: { type: Boolean, default: true },
    jwks: { type: Schema.Types.Mixed, required: false },
    jwksUri: { type: String, required: false },
    workloadIdentity: {
      type: new Schema(
        { issuer: { type: String, required: true }, subject: { type: String, required: true } },
        { _id: false },
      ),
      required: false,
    },
    requireActorProof: { type: Boolean, required: false, default: undefined },
    requireKeyBoundDpop: { type: Boolean, required: false },
    agentClients: { type: [String], default: undefined },
    slotKey: { type: String },
  },
  { timestamps: true, collection: 'non_human_entities', versionKey: false },
);
nheSchema.index({ tenantId: 1, identifier: 1 }, { unique: true });
// Sparse single-field index: FerretDB has no partial indexes, and a compound one would count missing keys as equal.
nheSchema.index({ slotKey: 1 }, { unique: true, sparse: true });
// Workload federation: the NHE a trusted workload (issuer, subject) authenticates as.
nheSchema.index({ tenantId: 1, 'workloadIdentity.issuer': 1, 'workloadIdentity.subject': 1 });

/**
 * A trusted workload identity issuer of a tenant (an NHE may authenticate with a workload JWT): a Kubernetes
 * service-account token issuer, a SPIFFE JWT-SVID trust domain, a CI system... Its JWTs authenticate the NHE whose
 * workloadIdentity names (issuer, sub).
 */
export interface WorkloadIssuerDoc {
  tenantId: number;
  /** The `iss` its JWTs carry, exactly. */
  issuer: string;
  /** Where its public keys are published (https; fetched SSRF-safely, cached). */
  jwksUri: string;
  description?: string;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const workloadIssuerSchema = new Schema<WorkloadIssuerDoc>(
  {
    tenantId: { type: Number, required: true },
    issuer: { type: String, required: true },
    jwksUri: { type: String, required: true },
    description: { type: String },
    enabled: { type: Boolean, default: true },
  },
  { timestamps: true, collection: 'workload_issuers', versionKey: false },
);
workloadIssuerSchema.index({ tenantId: 1, issuer: 1 }, { unique: true });

/** How the actor of a delegated token was authenticated: a name only, its own key, or a workload JWT. */
export const ACTOR_AUTH_METHODS = ['named', 'key', 'workload'] as const;
export type ActorAuthMethod = (typeof ACTOR_AUTH_METHODS)[number];

/**
 * The actor's authentication, as the decision, the audit event and the audit row record it. One per hop: a chain of
 * actors (a delegation chain) is a list of these, outermost first.
 */
export interface ActorAuthentication {
  method: ActorAuthMethod;
  /** key: RFC 7638 thumbprint of the NHE key that verified the actor token. */
  jkt?: string;
  /** workload: the trusted issuer and the subject of the workload JWT. */
  issuer?: string;
  subject?: string;
  /** key, workload: the actor token's jti (single use). */
  jti?: string;
}

const actorAuthenticationSchema = new Schema<ActorAuthentication>(
  {
    method: { type: String, enum: [...ACTOR_AUTH_METHODS], required: true },
    jkt: String,
    issuer: String,
    subject: String,
    jti: String,
  },
  { _id: false },
);

/**
 * A delegation policy of an NHE. Its target is who may delegate to the NHE: a user, a group, or
 * another NHE of the tenant (`nhe`, id = that NHE's record id), which may then hand a delegated token on to this one
 * (a delegation chain).
 */
export interface DelegationPolicyDoc {
  tenantId: number;
  nheId: string;
  target: { type: 'user' | 'group' | 'nhe'; id: string };
  allowedScopes: string[];
  maxTokenLifetime?: number;
  /**
   * Deepest delegation chain a token issued through this policy may lead to; absent: 1 for a
   * user or group target (no onward delegation), 2 for an NHE target (the hand-off itself, no further).
   */
  maxChainDepth?: number;
  /**
   * Phishing-resistant delegation: the subject token must come from a sign-in with acr phr or phrh (OpenID EAP ACR
   * values) at most this many minutes old (its auth_time). 0: not required by this policy; absent: the tenant's
   * settings.nhe.phishingResistantSignInMaxAgeMinutes.
   */
  phishingResistantSignInMaxAgeMinutes?: number;
  /**
   * Scopes of allowedScopes this policy grants only with the person's approval on their own device (OpenID CIBA,
   * oidc-core provider/ciba): token exchange and agent clients' tokens leave them out (layer `needs-approval`).
   */
  approvalRequiredScopes?: string[];
}

export const delegationPolicySchema = new Schema<DelegationPolicyDoc>(
  {
    tenantId: { type: Number, required: true },
    nheId: { type: String, required: true },
    target: {
      type: { type: String, enum: ['user', 'group', 'nhe'], required: true },
      id: { type: String, required: true },
    },
    allowedScopes: { type: [String], default: [] },
    maxTokenLifetime: { type: Number },
    maxChainDepth: { type: Number },
    phishingResistantSignInMaxAgeMinutes: { type: Number },
  },
  { timestamps: true, collection: 'delegation_policies', versionKey: false },
);
delegationPolicySchema.index({ tenantId: 1, nheId: 1 });
delegationPolicySchema.add({ approvalRequiredScopes: { type: [String], default: undefined } });

/**
 * A user's "block this agent for me" on their delegation ledger: while the row exists, the delegation decision refuses
 * every token of this NHE for this user (gate `user-opt-out`), whatever the policies say. Set and lifted by the user on
 * their delegation ledger page (oidc-core src/account/); deleting the NHE or the user leaves it harmless.
 */
export interface AgentOptOutDoc {
  tenantId: number;
  userId: string;
  nheId: string;
  /** The NHE's identifier when the block was set (shown on the page; the decision matches nheId). */
  nheIdentifier: string;
  createdAt: Date;
}

export const agentOptOutSchema = new Schema<AgentOptOutDoc>(
  {
    tenantId: { type: Number, required: true },
    userId: { type: String, required: true },
    nheId: { type: String, required: true },
    nheIdentifier: { type: String, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'agent_opt_outs', versionKey: false },
);
agentOptOutSchema.index({ tenantId: 1, userId: 1, nheId: 1 }, { unique: true });

/** One actor of a delegation chain as the audit row records it. */
export interface AuditActor {
  nheIdentifier: string;
  /** How that actor proved who it is when its hop was issued (the `act` member's proof; named when absent). */
  method: ActorAuthMethod;
}

export interface CrossDomainAudit {
  direction: 'issued' | 'redeemed';
  /** issued: the other authorization server (the ID-JAG's aud); redeemed: the trusted issuer (the assertion's iss). */
  peer: string;
  /** issued: the ID-JAG's jti (the row's own); redeemed: the redeemed assertion's jti. */
  assertionJti?: string;
  /** redeemed: the assertion's sub at its issuer. */
  subject?: string;
  /** redeemed: the assertion's act.sub at its issuer (the agent there). */
  actor?: string;
  /**
   * redeemed: every actor of the assertion's act chain at its issuer (RFC 8693 section 4.1 nested act), outermost
   * (`actor`) first: a revocation of an inner agent there reaches the token. Absent on rows written before.
   */
  actors?: string[];
}

/** How a person approved a token (CIBA): the request, what they approved, when, and how they had signed in. */
export interface ApprovalAudit {
  /** The backchannel authentication request's id (a digest of auth_req_id: the id itself is a credential). */
  requestId: string;
  approvedAt: Date;
  /** RFC 9396 authorization details the person approved (and the token carries). */
  authorizationDetails?: Record<string, unknown>[];
  bindingMessage?: string;
  /** The sign-in the approval was made under: its time, methods (RFC 8176) and level. */
  authTime?: Date;
  amr?: string[];
  acr?: string;
}

export interface TokenAuditDoc {
  tenantId: number;
  jti: string;
  userId: string;
  nheId: string;
  nheIdentifier: string;
  clientId: string;
  clientNumericId: number;
  resourceServer: string;
  scopes: string[];
  ttl: number;
  sourceIp: string;
  issuedAt: Date;
  dpopJkt?: string;
  /**
   * How the actor was authenticated (named, key or workload); absent on rows written before: those actors were `named`.
   */
  actorAuth?: ActorAuthentication;
  /** A token exchanged from another NHE token (a delegation chain): that token's jti. */
  parentJti?: string;
  /** With parentJti: every actor of the token's `act` chain, outermost (this token's NHE) first. */
  actorChain?: AuditActor[];
  /**
   * The token crossed an organisation boundary: `issued`, an ID-JAG this tenant issued for the authorization server
   * `peer`; `redeemed`, minted from an assertion of the trusted issuer `peer` (its jti, sub and act.sub kept).
   */
  crossDomain?: CrossDomainAudit;
  /** The person approved this token on their own device (OpenID CIBA Core 1.0; RFC 9396 authorization details). */
  approval?: ApprovalAudit;
  /** Position in the tenant's hash chain (1, 2, ...); absent only on rows written before the chain existed. */
  seq?: number;
  /** Hash of the tenant's previous row (or of the retention anchor / genesis); see libs/db/src/audit-chain.ts. */
  prevHash?: string;
  /** sha256 over this row's canonical fields and prevHash (hex). */
  hash?: string;
  /** `<tenantId>:<seq>`, unique: two replicas can never both write position seq of a tenant's chain. */
  chainKey?: string;
}

export const tokenAuditSchema = new Schema<TokenAuditDoc>(
  {
    tenantId: { type: Number, required: true },
    jti: { type: String, required: true, unique: true },
    userId: { type: String, required: true },
    nheId: { type: String, required: true },
    nheIdentifier: { type: String, required: true },
    clientId: { type: String, required: true },
    clientNumericId: { type: Number, required: true },
    resourceServer: { type: String, required: true },
    scopes: { type: [String], required: true },
    ttl: { type: Number, required: true },
    sourceIp: { type: String, required: true },
    issuedAt: { type: Date, required: true },
    dpopJkt: { type: String },
    actorAuth: { type: actorAuthenticationSchema, required: false },
    parentJti: { type: String },
    actorChain: {
      type: [
        new Schema<AuditActor>(
          {
            nheIdentifier: { type: String, required: true },
            method: { type: String, enum: [...ACTOR_AUTH_METHODS], required: true },
          },
          { _id: false },
        ),
      ],
      default: undefined,
    },
    crossDomain: {
      type: new Schema<CrossDomainAudit>(
        {
          direction: { type: String, enum: ['issued', 'redeemed'], required: true },
          peer: { type: String, required: true },
          assertionJti: { type: String },
          subject: { type: String },
          actor: { type: String },
          actors: { type: [String], default: undefined },
        },
        { _id: false },
      ),
      required: false,
    },
    seq: { type: Number },
    prevHash: { type: String },
    hash: { type: String },
    chainKey: { type: String },
  },
  { collection: 'nhe_token_audit', versionKey: false },
);
tokenAuditSchema.add({
  approval: {
    type: new Schema<ApprovalAudit>(
      {
        requestId: { type: String, required: true },
        approvedAt: { type: Date, required: true },
        authorizationDetails: { type: [Schema.Types.Mixed], default: undefined },
        bindingMessage: { type: String },
        authTime: { type: Date },
        amr: { type: [String], default: undefined },
        acr: { type: String },
      },
      { _id: false },
    ),
    required: false,
  },
});
tokenAuditSchema.index({ tenantId: 1, issuedAt: -1, _id: -1 });
tokenAuditSchema.index({ tenantId: 1, userId: 1, issuedAt: -1 });
tokenAuditSchema.index({ tenantId: 1, nheId: 1, issuedAt: -1 });
// The other management filters (token-audit list/count).
tokenAuditSchema.index({ tenantId: 1, clientId: 1, issuedAt: -1 });
tokenAuditSchema.index({ tenantId: 1, resourceServer: 1, issuedAt: -1 });
// The hash chain: one row per (tenant, seq). The unique sparse index on chainKey ("<tenantId>:<seq>") is what
// serialises concurrent writer replicas (a sparse single-field index behaves the same on MongoDB and FerretDB,
// which has no partialFilterExpression); the compound index serves chain walks and retention.
tokenAuditSchema.index({ chainKey: 1 }, { unique: true, sparse: true });
tokenAuditSchema.index({ tenantId: 1, seq: 1 });
// Delegation chains: the tokens exchanged from a token.
tokenAuditSchema.index({ tenantId: 1, parentJti: 1 });
// Revocation across organisations (services/signals): the tokens minted from one trusted issuer's assertions. A plain
// index (FerretDB has no partialFilterExpression): rows without crossDomain are indexed under a null peer.
tokenAuditSchema.index({ tenantId: 1, 'crossDomain.peer': 1, issuedAt: -1 });

/**
 * A deleted tenant, kept for good: its id is never handed out again (a new tenant with the same id would read the
 * token audit rows the old one left), and the retention job keeps pruning those rows by the tenant's last
 * auditRetentionDays, since rows are removed only by that job. `_id` = tenantId.
 */
export interface DeletedTenantDoc {
  _id: number;
  name: string;
  auditRetentionDays: number;
  deletedAt: Date;
}
export const deletedTenantSchema = new Schema<DeletedTenantDoc>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    auditRetentionDays: { type: Number, required: true },
    deletedAt: { type: Date, required: true },
  },
  { collection: 'deleted_tenants', versionKey: false },
);

/** Where retention pruned a tenant's chain up to: verification starts after this row. `_id` = tenantId. */
export interface AuditChainAnchorDoc {
  _id: number;
  seq: number;
  hash: string;
  prunedAt: Date;
}
export const auditChainAnchorSchema = new Schema<AuditChainAnchorDoc>(
  {
    _id: { type: Number, required: true },
    seq: { type: Number, required: true },
    hash: { type: String, required: true },
    prunedAt: { type: Date, required: true },
  },
  { collection: 'nhe_token_audit_anchors', versionKey: false },
);

/** Closed set of job types (CONVENTIONS 8). */
export type JobType = 'NHE_AUDIT_RETENTION';

/** A scheduled job of the jobs API; `_id` = its name (e.g. nhe-audit-retention). */
export interface JobDoc {
  _id: string;
  type: JobType;
  /** Five-field cron expression (UTC), the CronJob's schedule. */
  schedule: string;
  enabled: boolean;
  customOptions: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}
export const jobSchema = new Schema<JobDoc>(
  {
    _id: { type: String, required: true },
    type: { type: String, required: true },
    schedule: { type: String, required: true },
    enabled: { type: Boolean, default: true },
    customOptions: { type: Schema.Types.Mixed, default: {} },
  },
  { timestamps: true, collection: 'jobs', versionKey: false, minimize: false },
);

export interface JobRunTenantCount {
  tenantId: number;
  status: 'pruned' | 'dry-run' | 'skipped' | 'failed';
  reason?: string;
  deleted: number;
  batches: number;
  capped: boolean;
  durationMs: number;
  cutoff?: string;
}

/** One run of a job, with per-tenant counts. */
export interface JobRunDoc {
  jobName: string;
  type: JobType;
  trigger: 'schedule' | 'manual' | 'cli';
  status: 'running' | 'succeeded' | 'failed' | 'interrupted';
  dryRun: boolean;
  startedAt: Date;
  finishedAt?: Date;
  tenants: JobRunTenantCount[];
  deleted: number;
  error?: string;
}
export const jobRunSchema = new Schema<JobRunDoc>(
  {
    jobName: { type: String, required: true },
    type: { type: String, required: true },
    trigger: { type: String, required: true },
    status: { type: String, required: true },
    dryRun: { type: Boolean, default: false },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date },
    tenants: { type: Schema.Types.Mixed, default: () => [] },
    deleted: { type: Number, default: 0 },
    error: { type: String },
  },
  { collection: 'job_runs', versionKey: false, minimize: false },
);
jobRunSchema.index({ jobName: 1, startedAt: -1 });

export interface SigningKeyDoc {
  tenantId: number;
  kid: string;
  alg: 'ES256' | 'RS256';
  status: 'active' | 'retired';
  publicJwk: Record<string, unknown>;
  /** AES-256-GCM under the key-encryption key: base64url iv.tag.ciphertext. */
  encryptedPrivateJwk: string;
  createdAt: Date;
  retiredAt?: Date;
  /** Retired keys stay published until every token they signed has expired. */
  publishUntil?: Date;
}

export const signingKeySchema = new Schema<SigningKeyDoc>(
  {
    tenantId: { type: Number, required: true },
    kid: { type: String, required: true },
    alg: { type: String, required: true },
    status: { type: String, required: true, enum: ['active', 'retired'] },
    publicJwk: { type: Schema.Types.Mixed, required: true },
    encryptedPrivateJwk: { type: String, required: true },
    createdAt: { type: Date, required: true },
    retiredAt: { type: Date },
    publishUntil: { type: Date },
  },
  { collection: 'signing_keys', versionKey: false },
);
signingKeySchema.index({ tenantId: 1, kid: 1 }, { unique: true });

/** node-oidc-provider model storage (sessions, codes, grants, ...), one collection partitioned by tenant. */
export interface OidcPayloadDoc {
  _id: string;
  tenantId: number;
  model: string;
  /** The provider's payload as JSON text. */
  payload: string;
  expiresAt?: Date;
  grantId?: string;
  userCode?: string;
  uid?: string;
  consumed?: number;
  /** Device codes: when the client last polled (slow_down across replicas). */
  lastPolledAt?: Date;
  /** Backchannel authentication requests (CIBA): the person asked, so pending requests are counted and listed per person. */
  accountId?: string;
  /** Backchannel authentication requests (CIBA): the client that asked, so pending requests are counted per client. */
  clientId?: string;
}

export const oidcPayloadSchema = new Schema<OidcPayloadDoc>(
  {
    _id: { type: String, required: true },
    tenantId: { type: Number, required: true },
    model: { type: String, required: true },
    payload: { type: String, required: true },
    expiresAt: { type: Date },
    grantId: { type: String },
    userCode: { type: String },
    uid: { type: String },
    consumed: { type: Number },
    lastPolledAt: { type: Date },
    accountId: { type: String },
    clientId: { type: String },
  },
  { collection: 'oidc_payloads', versionKey: false, minimize: false },
);
oidcPayloadSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, grantId: 1 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, userCode: 1 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, uid: 1 });
// A person's pending backchannel authentication requests (CIBA): their approval list and the per-person limit.
oidcPayloadSchema.index({ tenantId: 1, model: 1, accountId: 1 });
// ... and the per-client limit.
oidcPayloadSchema.index({ tenantId: 1, model: 1, clientId: 1 });

export interface CounterDoc {
  _id: string;
  seq: number;
}
export const counterSchema = new Schema<CounterDoc>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { collection: 'counters', versionKey: false },
);

/**
 * An initial access token for Dynamic Client Registration (RFC 7591 section 3), issued through the management API.
 * Only the SHA-256 digest of the token is kept. Each use is a row of initial_access_token_uses with a unique
 * `<tenantId>:<tokenId>:<n>` key below maxUses (inserts only: FerretDB loses concurrent `$inc`).
 */
export interface InitialAccessTokenDoc {
  tenantId: number;
  /** Public id (management API path). */
  tokenId: string;
  /** SHA-256 (hex) of the token. */
  digest: string;
  description?: string;
  maxUses: number;
  expiresAt: Date;
  createdAt: Date;
}

export const initialAccessTokenSchema = new Schema<InitialAccessTokenDoc>(
  {
    tenantId: { type: Number, required: true },
    tokenId: { type: String, required: true },
    digest: { type: String, required: true, unique: true },
    description: { type: String },
    maxUses: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'initial_access_tokens', versionKey: false },
);
initialAccessTokenSchema.index({ tenantId: 1, tokenId: 1 }, { unique: true });
initialAccessTokenSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/** One use of an initial access token (see InitialAccessTokenDoc); `_id` = `<tenantId>:<tokenId>:<n>`. */
export interface InitialAccessTokenUseDoc {
  _id: string;
  tenantId: number;
  tokenId: string;
  at: Date;
  expiresAt: Date;
}

export const initialAccessTokenUseSchema = new Schema<InitialAccessTokenUseDoc>(
  {
    _id: { type: String, required: true },
    tenantId: { type: Number, required: true },
    tokenId: { type: String, required: true },
    at: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'initial_access_token_uses', versionKey: false },
);
initialAccessTokenUseSchema.index({ tenantId: 1, tokenId: 1 });
initialAccessTokenUseSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/**
 * A bearer credential of a tenant's SCIM 2.0 service provider (RFC 7644 section 2: the protocol leaves
 * authentication to the deployment; directories such as Entra ID and Okta send a long-lived `Authorization: Bearer`
 * token). The secret is shown once when created; only its SHA-256 digest is kept. A revoked credential is kept (with
 * `revokedAt`) so the console and audit can still name it, and is never accepted again.
 */
export interface ScimCredentialDoc {
  tenantId: number;
  /** Public identifier (shown in lists and logs, never the secret). */
  credentialId: string;
  /** Hex SHA-256 of the secret. */
  digest: string;
  description?: string;
  /**
   * The management scopes its creator held when it was made: the credential never reaches a user or group holding
   * more. A credential stored without them holds only auth.users.create/update/delete.
   */
  scopes?: string[];
  createdAt: Date;
  lastUsedAt?: Date;
  revokedAt?: Date;
}

export const scimCredentialSchema = new Schema<ScimCredentialDoc>(
  {
    tenantId: { type: Number, required: true },
    credentialId: { type: String, required: true },
    digest: { type: String, required: true },
    description: { type: String },
    scopes: { type: [String], default: undefined },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date },
    revokedAt: { type: Date },
  },
  { collection: 'scim_credentials', versionKey: false },
);
scimCredentialSchema.index({ tenantId: 1, credentialId: 1 }, { unique: true });
scimCredentialSchema.index({ digest: 1 }, { unique: true });
