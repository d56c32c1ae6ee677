/**
 * Claims released per scope (spec, "Scopes"). The provider masks what findAccount returns by these.
 * Issue 4 completes the scope table (resource_roles, custom_claims, passports, ...).
 */
export const SCOPE_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  address: ['address'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  profile: [
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
  ],
};

export const SUPPORTED_SCOPES = ['openid', 'offline_access', ...Object.keys(SCOPE_CLAIMS).filter((s) => s !== 'openid')];
