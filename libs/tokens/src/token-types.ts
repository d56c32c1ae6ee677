/** The URNs and claim names of the NHE delegation contract (spec: "NHE delegation token (JWT) claims"). */
export const GRANT_TYPE_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const TOKEN_TYPE_ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
export const TOKEN_TYPE_NHE_ID = 'urn:vendor:token-type:nhe-id';

export const CLAIM_TENANT_NAME = 'org.vendor.tenant.name';
export const CLAIM_TENANT_ID = 'org.vendor.tenant.id';
export const CLAIM_NHE_DELEGATION = 'org.vendor.nhe.delegation';
export const NHE_SUBJECT_PREFIX = 'nhe:';

/** Audience of access tokens for the management API; every tenant has it built in. */
export const MANAGEMENT_AUDIENCE = 'urn:idp:management';

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
] as const;

/** Bounds of an NHE token's lifetime (spec, "Limits"). */
export const NHE_MIN_TTL_SECONDS = 60;
