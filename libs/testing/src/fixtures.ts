import type { Models } from '@idp/db';
import { nextSequence } from '@idp/db';
import {
  clientSecretDigest,
  generateClientSecret,
  GRANT_TYPE_TOKEN_EXCHANGE,
  hashPassword,
  MANAGEMENT_AUDIENCE,
  MANAGEMENT_SCOPES,
  type KeyStore,
} from '@idp/tokens';

export interface SeedOptions {
  tenantId: number;
  tenantName?: string;
  clientSecretPepper: string;
  /** Redirect URI of the demo application. */
  redirectUri?: string;
  /** Post-logout redirect URI of the demo application (RP-Initiated Logout); none when absent. */
  postLogoutRedirectUri?: string;
  nheEnabled?: boolean;
  password?: string;
}

export interface SeededTenant {
  tenantId: number;
  tenantName: string;
  resource: string;
  user: { id: string; username: string; password: string };
  client: {
    clientId: string;
    clientSecret: string;
    numericId: number;
    redirectUri: string;
    postLogoutRedirectUri?: string;
  };
  admin: { clientId: string; clientSecret: string };
  nhe: { id: string; identifier: string };
  policyId: string;
}

/** Creates a confidential client with a fresh secret; returns the secret once. */
export async function createClient(
  models: Models,
  pepper: string,
  fields: {
    tenantId: number;
    clientId: string;
    name: string;
    grantTypes: string[];
    responseTypes?: string[];
    redirectUris?: string[];
    roleIds?: string[];
    firstParty?: boolean;
    delegationEnabled?: boolean;
    postLogoutRedirectUris?: string[];
    /** client_secret_basic (default), client_secret_post, private_key_jwt (give jwks) or none (public client). */
    tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';
    jwks?: { keys: object[] };
    idTokenSignedResponseAlg?: 'ES256' | 'RS256';
    requireDpop?: boolean;
  },
): Promise<{ clientId: string; clientSecret: string; numericId: number }> {
  const method = fields.tokenEndpointAuthMethod ?? 'client_secret_basic';
  const hasSecret = method === 'client_secret_basic' || method === 'client_secret_post';
  const clientSecret = hasSecret ? generateClientSecret() : '';
  const numericId = await nextSequence(models, 'clients');
  await models.Client.create({
    tenantId: fields.tenantId,
    clientId: fields.clientId,
    numericId,
    name: fields.name,
    ...(hasSecret ? { secretDigest: clientSecretDigest(pepper, clientSecret) } : {}),
    tokenEndpointAuthMethod: method,
    ...(fields.jwks ? { jwks: fields.jwks } : {}),
    ...(fields.idTokenSignedResponseAlg ? { idTokenSignedResponseAlg: fields.idTokenSignedResponseAlg } : {}),
    ...(fields.requireDpop ? { requireDpop: true } : {}),
    grantTypes: fields.grantTypes,
    responseTypes: fields.responseTypes ?? (fields.grantTypes.includes('authorization_code') ? ['code'] : []),
    redirectUris: fields.redirectUris ?? [],
    postLogoutRedirectUris: fields.postLogoutRedirectUris ?? [],
    roleIds: fields.roleIds ?? [],
    firstParty: fields.firstParty ?? false,
    config: { nhe: { delegationEnabled: fields.delegationEnabled ?? false, allowedNheIdentifiers: [] } },
  });
  return { clientId: fields.clientId, clientSecret, numericId };
}

/**
 * A tenant ready for delegation: a resource server that accepts NHE tokens, a role on it, a user holding the
 * role, a first-party confidential client with delegation enabled, a tenant admin client for the management
 * API, an NHE and a delegation policy for the user. Used by the demo and the tests.
 */
export async function seedDelegationTenant(models: Models, keyStore: KeyStore, o: SeedOptions): Promise<SeededTenant> {
  const tenantName = o.tenantName ?? `tenant-${o.tenantId}`;
  const resource = 'https://api.orders.example';
  const redirectUri = o.redirectUri ?? 'http://127.0.0.1:8400/callback';
  await models.Tenant.create({
    _id: o.tenantId,
    name: tenantName,
    settings: { nhe: { enabled: o.nheEnabled ?? true } },
  });
  await keyStore.ensureKeys(o.tenantId);
  await models.ResourceServer.create({
    tenantId: o.tenantId,
    identifier: resource,
    name: 'Orders API',
    scopes: ['orders:read', 'orders:write', 'orders:refund'],
    config: {
      accessToken: { lifetime: 3600 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: false, allowedNheTypes: [] },
    },
  });
  const role = await models.Role.create({
    tenantId: o.tenantId,
    name: 'orders-clerk',
    resourceServer: resource,
    permissions: ['orders:read', 'orders:write'],
  });
  const adminRole = await models.Role.create({
    tenantId: o.tenantId,
    name: 'tenant-admin',
    resourceServer: MANAGEMENT_AUDIENCE,
    permissions: [...MANAGEMENT_SCOPES],
  });
  const password = o.password ?? 'correct horse battery staple';
  const user = await models.User.create({
    tenantId: o.tenantId,
    username: 'alice',
    passwordHash: await hashPassword(password),
    roleIds: [String(role._id)],
    claims: {
      name: 'Alice Example',
      given_name: 'Alice',
      family_name: 'Example',
      email: 'alice@example.com',
      email_verified: true,
    },
  });
  const client = await createClient(models, o.clientSecretPepper, {
    tenantId: o.tenantId,
    clientId: 'demo-app',
    name: 'Demo App',
    grantTypes: ['authorization_code', 'refresh_token', GRANT_TYPE_TOKEN_EXCHANGE],
    redirectUris: [redirectUri],
    ...(o.postLogoutRedirectUri ? { postLogoutRedirectUris: [o.postLogoutRedirectUri] } : {}),
    firstParty: true,
    delegationEnabled: true,
  });
  const admin = await createClient(models, o.clientSecretPepper, {
    tenantId: o.tenantId,
    clientId: 'tenant-admin',
    name: 'Tenant administrator',
    grantTypes: ['client_credentials'],
    roleIds: [String(adminRole._id)],
  });
  const nhe = await models.Nhe.create({
    tenantId: o.tenantId,
    identifier: 'orders-agent',
    type: 'llm-assistive',
    allowedScopes: ['orders:read', 'orders:write'],
    maxTokenLifetime: 300,
    operator: 'Demo Operations',
    model: { name: 'demo-model', provider: 'example' },
  });
  const policy = await models.DelegationPolicy.create({
    tenantId: o.tenantId,
    nheId: String(nhe._id),
    target: { type: 'user', id: String(user._id) },
    allowedScopes: ['orders:read', 'orders:write'],
  });
  return {
    tenantId: o.tenantId,
    tenantName,
    resource,
    user: { id: String(user._id), username: 'alice', password },
    client: {
      ...client,
      redirectUri,
      ...(o.postLogoutRedirectUri ? { postLogoutRedirectUri: o.postLogoutRedirectUri } : {}),
    },
    admin,
    nhe: { id: String(nhe._id), identifier: 'orders-agent' },
    policyId: String(policy._id),
  };
}
