import type { Connection, Model } from 'mongoose';
import {
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
} from './schemas';

export * from './schemas';

export interface Models {
  Tenant: Model<TenantDoc>;
  Client: Model<ClientDoc>;
  ResourceServer: Model<ResourceServerDoc>;
  Role: Model<RoleDoc>;
  Group: Model<GroupDoc>;
  User: Model<UserDoc>;
  Nhe: Model<NheDoc>;
  DelegationPolicy: Model<DelegationPolicyDoc>;
  TokenAudit: Model<TokenAuditDoc>;
  SigningKey: Model<SigningKeyDoc>;
  OidcPayload: Model<OidcPayloadDoc>;
  Counter: Model<CounterDoc>;
}

/** Models bound to one connection (never mongoose's global registry, so tests can hold several). */
export function createModels(connection: Connection): Models {
  const m = <T>(name: string, schema: import('mongoose').Schema<T>) =>
    (connection.models[name] as Model<T> | undefined) ?? connection.model<T>(name, schema);
  return {
    Tenant: m('Tenant', tenantSchema),
    Client: m('Client', clientSchema),
    ResourceServer: m('ResourceServer', resourceServerSchema),
    Role: m('Role', roleSchema),
    Group: m('Group', groupSchema),
    User: m('User', userSchema),
    Nhe: m('Nhe', nheSchema),
    DelegationPolicy: m('DelegationPolicy', delegationPolicySchema),
    TokenAudit: m('TokenAudit', tokenAuditSchema),
    SigningKey: m('SigningKey', signingKeySchema),
    OidcPayload: m('OidcPayload', oidcPayloadSchema),
    Counter: m('Counter', counterSchema),
  };
}
