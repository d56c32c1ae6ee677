/**
 * Builds every claim a user can release from the user's record, memberships and tenant (pure). The provider then
 * masks the result by the granted scopes (provider/claims.ts); UserInfo-only claims are dropped for ID tokens.
 */
/** The OpenID Connect standard claims of the `profile` scope. */
export const PROFILE_CLAIMS = [
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'updated_at',
] as const;

/** Every standard claim a user record can hold (profile, email, phone, address). */
export const STANDARD_CLAIMS = [
  ...PROFILE_CLAIMS,
  'email',
  'email_verified',
  'phone_number',
  'phone_number_verified',
  'address',
] as const;

export interface UserClaimSources {
  sub: string;
  issuer: string;
  tenant: { id: number; name: string };
  user: {
    claims?: Record<string, unknown>;
    externalGroups?: string[];
    identityProvider?: string;
    linkedIdentity?: { provider: string; subject: string };
    providerClaims?: Record<string, unknown>;
    federatedIdentities?: Array<Record<string, unknown>>;
  };
  /** Group names and roles (direct and through groups); omitted when the caller did not need them. */
  memberships?: { groups: string[]; roles: Array<{ name: string; resourceServer: string }> };
  amr: string[];
  /** The client has legacy role compatibility: flattened access_roles / roles next to resource_roles. */
  legacyRoleCompatibility: boolean;
}

/** `resource_roles`: role names keyed by the identifier of the resource server they belong to. */
export function resourceRoles(roles: Array<{ name: string; resourceServer: string }>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const r of roles) {
    const names = (out[r.resourceServer] ??= []);
    if (!names.includes(r.name)) names.push(r.name);
  }
  for (const k of Object.keys(out)) out[k]!.sort();
  return out;
}

export function userClaims(src: UserClaimSources): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const stored = src.user.claims ?? {};
  for (const name of STANDARD_CLAIMS) if (stored[name] !== undefined && stored[name] !== null) out[name] = stored[name];
  if (typeof out.updated_at === 'string' || out.updated_at instanceof Date)
    out.updated_at = Math.floor(new Date(out.updated_at as string).getTime() / 1000);
  out.sub = src.sub;
  out.iss = src.issuer;
  out.tenant = { id: src.tenant.id, name: src.tenant.name };
  out.amr = src.amr;
  if (src.memberships) {
    out.resource_roles = resourceRoles(src.memberships.roles);
    out.groups = src.memberships.groups;
    if (src.legacyRoleCompatibility) {
      const flat = [...new Set(src.memberships.roles.map((r) => r.name))].sort();
      out.access_roles = flat;
      out.roles = flat;
    }
  }
  out.external_groups = src.user.externalGroups ?? [];
  if (src.user.identityProvider) out.identity_provider = src.user.identityProvider;
  if (src.user.linkedIdentity)
    out.linked_identity = { provider: src.user.linkedIdentity.provider, subject: src.user.linkedIdentity.subject };
  if (src.user.providerClaims) out.provider_claims = src.user.providerClaims;
  if (src.user.federatedIdentities) out.federated_identities = { identities: src.user.federatedIdentities };
  return out;
}
