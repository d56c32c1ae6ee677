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
};

export interface NheSettings {
  enabled: boolean;
  defaultMaxTokenLifetime: number;
  hardMaxTokenLifetime: number;
  requireDpop: boolean;
  allowedNheTypes: string[];
  maxNhePerTenant: number;
  auditRetentionDays: number;
}

export interface TenantDoc {
  _id: number;
  name: string;
  system: boolean;
  settings: { nhe: NheSettings };
  createdAt: Date;
  updatedAt: Date;
}

export const tenantSchema = new Schema<TenantDoc>(
  {
    _id: { type: Number, required: true },
    name: { type: String, required: true },
    system: { type: Boolean, default: false },
    settings: {
      nhe: {
        enabled: { type: Boolean, default: NHE_SETTINGS_DEFAULTS.enabled },
        defaultMaxTokenLifetime: { type: Number, default: NHE_SETTINGS_DEFAULTS.defaultMaxTokenLifetime },
        hardMaxTokenLifetime: { type: Number, default: NHE_SETTINGS_DEFAULTS.hardMaxTokenLifetime },
        requireDpop: { type: Boolean, default: NHE_SETTINGS_DEFAULTS.requireDpop },
        allowedNheTypes: { type: [String], default: () => [...DEFAULT_NHE_TYPES] },
        maxNhePerTenant: { type: Number, default: NHE_SETTINGS_DEFAULTS.maxNhePerTenant },
        auditRetentionDays: { type: Number, default: NHE_SETTINGS_DEFAULTS.auditRetentionDays },
      },
    },
  },
  { timestamps: true, collection: 'tenants', versionKey: false },
);

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
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  roleIds: string[];
  firstParty: boolean;
  requirePkce: boolean;
  showLogoutPrompt: boolean;
  enabled: boolean;
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
    redirectUris: { type: [String], default: [] },
    postLogoutRedirectUris: { type: [String], default: [] },
    grantTypes: { type: [String], default: ['authorization_code', 'refresh_token'] },
    responseTypes: { type: [String], default: ['code'] },
    roleIds: { type: [String], default: [] },
    firstParty: { type: Boolean, default: false },
    requirePkce: { type: Boolean, default: true },
    showLogoutPrompt: { type: Boolean, default: true },
    enabled: { type: Boolean, default: true },
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
}

export const groupSchema = new Schema<GroupDoc>(
  {
    tenantId: { type: Number, required: true },
    name: { type: String, required: true },
    roleIds: { type: [String], default: [] },
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
  },
  { timestamps: true, collection: 'users', versionKey: false, minimize: false },
);
userSchema.index({ tenantId: 1, username: 1 }, { unique: true });

export interface NheDoc {
  tenantId: number;
  identifier: string;
  type: string;
  allowedScopes: string[];
  maxTokenLifetime: number;
  operator: string;
  model?: { name?: string; version?: string; provider?: string };
  enabled: boolean;
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
  },
  { timestamps: true, collection: 'non_human_entities', versionKey: false },
);
nheSchema.index({ tenantId: 1, identifier: 1 }, { unique: true });

export interface DelegationPolicyDoc {
  tenantId: number;
  nheId: string;
  target: { type: 'user' | 'group'; id: string };
  allowedScopes: string[];
  maxTokenLifetime?: number;
}

export const delegationPolicySchema = new Schema<DelegationPolicyDoc>(
  {
    tenantId: { type: Number, required: true },
    nheId: { type: String, required: true },
    target: {
      type: { type: String, enum: ['user', 'group'], required: true },
      id: { type: String, required: true },
    },
    allowedScopes: { type: [String], default: [] },
    maxTokenLifetime: { type: Number },
  },
  { timestamps: true, collection: 'delegation_policies', versionKey: false },
);
delegationPolicySchema.index({ tenantId: 1, nheId: 1 });

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
  },
  { collection: 'nhe_token_audit', versionKey: false },
);
tokenAuditSchema.index({ tenantId: 1, issuedAt: -1, _id: -1 });
tokenAuditSchema.index({ tenantId: 1, userId: 1, issuedAt: -1 });
tokenAuditSchema.index({ tenantId: 1, nheId: 1, issuedAt: -1 });

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
  },
  { collection: 'oidc_payloads', versionKey: false, minimize: false },
);
oidcPayloadSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, grantId: 1 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, userCode: 1 });
oidcPayloadSchema.index({ tenantId: 1, model: 1, uid: 1 });

export interface CounterDoc {
  _id: string;
  seq: number;
}
export const counterSchema = new Schema<CounterDoc>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { collection: 'counters', versionKey: false },
);
