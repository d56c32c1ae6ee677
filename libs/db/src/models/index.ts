import type { Connection, Model } from 'mongoose';
import {
  agentOptOutSchema,
  type AgentOptOutDoc,
  auditChainAnchorSchema,
  deletedTenantSchema,
  type DeletedTenantDoc,
  jobRunSchema,
  jobSchema,
  type AuditChainAnchorDoc,
  type JobDoc,
  type JobRunDoc,
  clientSchema,
  counterSchema,
  delegationPolicySchema,
  groupSchema,
  nheSchema,
  oidcPayloadSchema,
  resourceServerSchema,
  roleSchema,
  signingKeySchema,
  tenantSchema,
  tokenAuditSchema,
  userSchema,
  workloadIssuerSchema,
  type WorkloadIssuerDoc,
  loginFailureSchema,
  type LoginFailureDoc,
  customClaimsScriptStateSchema,
  initialAccessTokenSchema,
  initialAccessTokenUseSchema,
  type InitialAccessTokenDoc,
  type InitialAccessTokenUseDoc,
  type CustomClaimsScriptStateDoc,
  type ClientDoc,
  type CounterDoc,
  type DelegationPolicyDoc,
  type GroupDoc,
  type NheDoc,
  type OidcPayloadDoc,
  type ResourceServerDoc,
  type RoleDoc,
  type SigningKeyDoc,
  type TenantDoc,
  type TokenAuditDoc,
  type UserDoc,
  scimCredentialSchema,
  type ScimCredentialDoc,
} from './schemas';
import { leanDefaults } from './lean-defaults';
import {
  upstreamLinkSchema,
  upstreamProviderSchema,
  type UpstreamLinkDoc,
  type UpstreamProviderDoc,
} from './upstream-providers';
import { samlRequestCacheSchema, type SamlRequestCacheDoc } from './saml-request-cache';
import { trustedIssuerSchema, type TrustedIssuerDoc } from './trusted-issuers';
import { idJagAudienceSchema, type IdJagAudienceDoc } from './id-jag-audiences';
import { passwordResetSchema, type PasswordResetDoc } from './password-resets';
import {
  passkeyRecoveryCodeSchema,
  webauthnChallengeSchema,
  webauthnCredentialSchema,
  type PasskeyRecoveryCodeDoc,
  type WebauthnChallengeDoc,
  type WebauthnCredentialDoc,
} from './webauthn-credentials';
import {
  tokenRefusalCounterSchema,
  tokenRefusalEventSchema,
  type TokenRefusalCounterDoc,
  type TokenRefusalEventDoc,
} from './token-refusals';

export * from './schemas';
export * from './upstream-providers';
export * from './saml-request-cache';
export * from './trusted-issuers';
export * from './id-jag-audiences';
export * from './password-resets';
export * from './webauthn-credentials';
export * from './token-refusals';

export interface Models {
  Tenant: Model<TenantDoc>;
  DeletedTenant: Model<DeletedTenantDoc>;
  Client: Model<ClientDoc>;
  ResourceServer: Model<ResourceServerDoc>;
  Role: Model<RoleDoc>;
  Group: Model<GroupDoc>;
  User: Model<UserDoc>;
  LoginFailure: Model<LoginFailureDoc>;
  Nhe: Model<NheDoc>;
  DelegationPolicy: Model<DelegationPolicyDoc>;
  TokenAudit: Model<TokenAuditDoc>;
  SigningKey: Model<SigningKeyDoc>;
  OidcPayload: Model<OidcPayloadDoc>;
  Counter: Model<CounterDoc>;
  AuditChainAnchor: Model<AuditChainAnchorDoc>;
  Job: Model<JobDoc>;
  JobRun: Model<JobRunDoc>;
  CustomClaimsScriptState: Model<CustomClaimsScriptStateDoc>;
  InitialAccessToken: Model<InitialAccessTokenDoc>;
  InitialAccessTokenUse: Model<InitialAccessTokenUseDoc>;
  WorkloadIssuer: Model<WorkloadIssuerDoc>;
  AgentOptOut: Model<AgentOptOutDoc>;
  UpstreamProvider: Model<UpstreamProviderDoc>;
  UpstreamLink: Model<UpstreamLinkDoc>;
  SamlRequestCache: Model<SamlRequestCacheDoc>;
  TrustedIssuer: Model<TrustedIssuerDoc>;
  IdJagAudience: Model<IdJagAudienceDoc>;
  PasswordReset: Model<PasswordResetDoc>;
  TokenRefusalCounter: Model<TokenRefusalCounterDoc>;
  TokenRefusalEvent: Model<TokenRefusalEventDoc>;
  ScimCredential: Model<ScimCredentialDoc>;
  WebauthnCredential: Model<WebauthnCredentialDoc>;
  WebauthnChallenge: Model<WebauthnChallengeDoc>;
  PasskeyRecoveryCode: Model<PasskeyRecoveryCodeDoc>;
}

// Typed as leanDefaults takes them (mongoose's default Schema): each schema's own document type differs.
const SCHEMAS: Array<import('mongoose').Schema> = [
  tenantSchema,
  deletedTenantSchema,
  clientSchema,
  resourceServerSchema,
  roleSchema,
  groupSchema,
  userSchema,
  loginFailureSchema,
  nheSchema,
  delegationPolicySchema,
  tokenAuditSchema,
  signingKeySchema,
  oidcPayloadSchema,
  counterSchema,
  auditChainAnchorSchema,
  jobSchema,
  jobRunSchema,
  customClaimsScriptStateSchema,
  initialAccessTokenSchema,
  initialAccessTokenUseSchema,
  workloadIssuerSchema,
  agentOptOutSchema,
  upstreamProviderSchema,
  upstreamLinkSchema,
  samlRequestCacheSchema,
  trustedIssuerSchema,
  idJagAudienceSchema,
  passwordResetSchema,
  tokenRefusalCounterSchema,
  tokenRefusalEventSchema,
  scimCredentialSchema,
  webauthnCredentialSchema,
  webauthnChallengeSchema,
  passkeyRecoveryCodeSchema,
];
// Once per schema, before any model is compiled from it (createModels runs once per connection).
for (const schema of SCHEMAS) schema.plugin(leanDefaults);

/** Models bound to one connection (never mongoose's global registry, so tests can hold several). */
export function createModels(connection: Connection): Models {
  const m = <T>(name: string, schema: import('mongoose').Schema<T>) =>
    (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
  return {
    Tenant: m('Tenant', tenantSchema),
    DeletedTenant: m('DeletedTenant', deletedTenantSchema),
    Client: m('Client', clientSchema),
    ResourceServer: m('ResourceServer', resourceServerSchema),
    Role: m('Role', roleSchema),
    Group: m('Group', groupSchema),
    User: m('User', userSchema),
    LoginFailure: m('LoginFailure', loginFailureSchema),
    Nhe: m('Nhe', nheSchema),
    DelegationPolicy: m('DelegationPolicy', delegationPolicySchema),
    TokenAudit: m('TokenAudit', tokenAuditSchema),
    SigningKey: m('SigningKey', signingKeySchema),
    OidcPayload: m('OidcPayload', oidcPayloadSchema),
    Counter: m('Counter', counterSchema),
    AuditChainAnchor: m('AuditChainAnchor', auditChainAnchorSchema),
    Job: m('Job', jobSchema),
    JobRun: m('JobRun', jobRunSchema),
    CustomClaimsScriptState: m('CustomClaimsScriptState', customClaimsScriptStateSchema),
    InitialAccessToken: m('InitialAccessToken', initialAccessTokenSchema),
    InitialAccessTokenUse: m('InitialAccessTokenUse', initialAccessTokenUseSchema),
    WorkloadIssuer: m('WorkloadIssuer', workloadIssuerSchema),
    AgentOptOut: m('AgentOptOut', agentOptOutSchema),
    UpstreamProvider: m('UpstreamProvider', upstreamProviderSchema),
    UpstreamLink: m('UpstreamLink', upstreamLinkSchema),
    SamlRequestCache: m('SamlRequestCache', samlRequestCacheSchema),
    TrustedIssuer: m('TrustedIssuer', trustedIssuerSchema),
    IdJagAudience: m('IdJagAudience', idJagAudienceSchema),
    PasswordReset: m('PasswordReset', passwordResetSchema),
    TokenRefusalCounter: m('TokenRefusalCounter', tokenRefusalCounterSchema),
    TokenRefusalEvent: m('TokenRefusalEvent', tokenRefusalEventSchema),
    ScimCredential: m('ScimCredential', scimCredentialSchema),
    WebauthnCredential: m('WebauthnCredential', webauthnCredentialSchema),
    WebauthnChallenge: m('WebauthnChallenge', webauthnChallengeSchema),
    PasskeyRecoveryCode: m('PasskeyRecoveryCode', passkeyRecoveryCodeSchema),
  };
}
