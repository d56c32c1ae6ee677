/** The URNs and claim names of the NHE delegation contract (spec: "NHE delegation token (JWT) claims"). */
export const GRANT_TYPE_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 7523 section 2.1: a JWT used as an authorization grant. */
export const GRANT_TYPE_JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const TOKEN_TYPE_ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
export const TOKEN_TYPE_NHE_ID = 'urn:vendor:token-type:nhe-id';

export const CLAIM_TENANT_NAME = 'org.vendor.tenant.name';
export const CLAIM_TENANT_ID = 'org.vendor.tenant.id';
export const CLAIM_NHE_DELEGATION = 'org.vendor.nhe.delegation';
/** The node-oidc-provider grant a user's JWT access token was issued under (introspection and exchange check it). */
export const CLAIM_GRANT_ID = 'org.vendor.grant.id';
export const NHE_SUBJECT_PREFIX = 'nhe:';

/** Audience of access tokens for the management API; every tenant has it built in. */
export const MANAGEMENT_AUDIENCE = 'urn:idp:management';

/**
 * Audience of access tokens for the Shared Signals transmitter (services/signals): every tenant has it built in, like
 * the management audience. A receiver manages its streams and polls with a client-credentials token carrying
 * {@link SSF_MANAGE_SCOPE}, granted through a client role on this audience.
 */
export const SSF_AUDIENCE = 'urn:idp:ssf';
/** The one scope of the SSF audience: create, read, update and delete the caller's own streams, and poll them. */
export const SSF_MANAGE_SCOPE = 'ssf.manage';
export const SSF_SCOPES = [SSF_MANAGE_SCOPE] as const;

/** The management scopes (spec, "Management API"). */
export const MANAGEMENT_SCOPES = [
  'auth.nhe.create',
  'auth.nhe.list',
  'auth.nhe.update',
  'auth.nhe.delete',
  'auth.nhe.policies.create',
  'auth.nhe.policies.list',
  'auth.nhe.policies.update',
  'auth.nhe.policies.delete',
  'auth.nhe.audit.list',
  'auth.jobs.list',
  'auth.jobs.update',
  'auth.jobs.run',
  // Sibling scopes of the rest of the management API, named the same way.
  'auth.tenants.create',
  'auth.tenants.list',
  'auth.tenants.update',
  'auth.tenants.delete',
  'auth.clients.create',
  'auth.clients.list',
  'auth.clients.update',
  'auth.clients.delete',
  'auth.resource-servers.create',
  'auth.resource-servers.list',
  'auth.resource-servers.update',
  'auth.resource-servers.delete',
  'auth.users.create',
  'auth.users.list',
  'auth.users.update',
  'auth.users.delete',
  // SCIM 2.0 provisioning (RFC 7644) at /auth/{tenantId}/scim/v2 with an access token instead of a SCIM credential.
  'auth.scim.provision',
  'auth.groups.create',
  'auth.groups.list',
  'auth.groups.update',
  'auth.groups.delete',
  'auth.roles.create',
  'auth.roles.list',
  'auth.roles.update',
  'auth.roles.delete',
  // Assigning roles to users, groups and clients: apart from auth.users.update because it grants privileges.
  'auth.roles.assign',
  'auth.keys.list',
  'auth.keys.rotate',
] as const;

/** Bounds of an NHE token's lifetime (spec, "Limits"). */
export const NHE_MIN_TTL_SECONDS = 60;
/** No NHE token lives longer than 15 minutes, whatever a tenant's settings say. */
export const NHE_MAX_TTL_SECONDS = 900;
