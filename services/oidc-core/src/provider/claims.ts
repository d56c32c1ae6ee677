import { PROFILE_CLAIMS } from '../domain/claims-user';

/**
 * The spec's scope table ("Scopes"): which claims each login scope releases in the ID token and UserInfo. The
 * provider masks what findAccount returns by this table, and discovery's scopes_supported / claims_supported come
 * from it. Resource scopes (API permissions) are not here: they come from resource servers and RBAC.
 */
export const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  iss: ['iss'],
  address: ['address'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  profile: [
    ...PROFILE_CLAIMS,
    'resource_roles',
    // Flattened role claims: produced only for clients with legacy role compatibility.
    'access_roles',
    'roles',
  ],
  external_groups: ['external_groups'],
  tenant: ['tenant'],
  groups: ['groups'],
  identity_provider: ['identity_provider'],
  linked_identity: ['linked_identity'],
  amr: ['amr'],
  custom_claims: ['custom_claims'],
  provider_claims: ['provider_claims'],
  ga4gh_passport_v1: ['ga4gh_passport_v1'],
  federated_identities: ['federated_identities'],
};

/** Every login scope, in discovery order: the table's scopes plus offline_access (which releases no claim). */
export const SUPPORTED_SCOPES = [
  'openid',
  'offline_access',
  ...Object.keys(SCOPE_CLAIMS).filter((s) => s !== 'openid'),
];

/** Login (identity) scopes: never part of a JWT access token's `scope`. */
export const LOGIN_SCOPES: ReadonlySet<string> = new Set(SUPPORTED_SCOPES);

/**
 * Claims released in UserInfo only, never in an ID token: they are large or unbounded (role, group and identity
 * lists, upstream profiles, passports of signed visas) or resolved at call time (custom_claims). README.md of
 * oidc-core has the table.
 */
export const USERINFO_ONLY_CLAIMS: ReadonlySet<string> = new Set([
  'resource_roles',
  'access_roles',
  'roles',
  'groups',
  'external_groups',
  'custom_claims',
  'provider_claims',
  'ga4gh_passport_v1',
  'federated_identities',
]);

/**
 * OpenID Connect Core 5.4: when an access token is issued, the claims of the profile, email, address and phone
 * scopes are returned from UserInfo, not in the ID token, unless the client asks for them there with the claims
 * parameter (provider/claims-account.ts; only while the access token can call UserInfo).
 */
export const STANDARD_SCOPE_CLAIMS: ReadonlySet<string> = new Set(
  ['profile', 'email', 'address', 'phone'].flatMap((s) => SCOPE_CLAIMS[s] ?? []),
);

/** The claims a set of granted scopes releases. */
export function claimsForScopes(scopes: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const scope of scopes) for (const claim of SCOPE_CLAIMS[scope] ?? []) out.add(claim);
  return out;
}
