/**
 * The tenant's users as SCIM User resources (RFC 7643 section 4.1, with the enterprise extension of section 4.3):
 * `userName` is the username people sign in with, `active` is `enabled`, `externalId` the directory's own id; the
 * other core attributes are kept as sent and feed the OpenID Connect claims (email, given_name, family_name, ...).
 * `groups` is read-only (RFC 7643: membership changes go through the Group resource). `password` is write-only.
 */
import type { UserDoc } from '@idp/db';
import { scimErrors } from './errors';
import { USER_SCHEMA } from './filter';

export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** Core attributes kept as the directory sent them (RFC 7643 section 4.1.1 and 4.1.2). */
const KEPT = [
  'name',
  'displayName',
  'nickName',
  'profileUrl',
  'title',
  'userType',
  'preferredLanguage',
  'locale',
  'timezone',
  'emails',
  'phoneNumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
  'x509Certificates',
] as const;
/** Read-only or server-assigned: ignored when sent (RFC 7644 section 3.5.1: "SHALL be ignored"). */
const IGNORED = new Set(['id', 'meta', 'groups', 'schemas']);
/** Claims this mapping owns on a directory-managed user (recomputed on every write). */
const DERIVED_CLAIMS = [
  'email',
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'locale',
  'zoneinfo',
  'phone_number',
  'profile',
];
const USERNAME = /^[A-Za-z0-9._@+-]{1,128}$/;

export type StoredUser = Omit<UserDoc, 'roleIds' | 'groupIds' | 'claims'> &
  Partial<Pick<UserDoc, 'roleIds' | 'groupIds' | 'claims'>> & { _id: unknown; createdAt?: Date; updatedAt?: Date };

/** `$ref` (RFC 7643 section 2.3.7) as stored: FerretDB and MongoDB refuse field names with a leading `$`. */
const STORED_REF = '_scimRef';

/** A stored SCIM value: no dots in names (the store refuses them; no SCIM attribute has one), `$ref` renamed. */
function clean(value: unknown, depth = 0): unknown {
  if (depth > 6) throw scimErrors.invalidValue('attribute values are nested too deeply');
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref') {
        out[STORED_REF] = clean(v, depth + 1);
        continue;
      }
      if (k.includes('.') || k.startsWith('$') || k === STORED_REF || k.length > 64)
        throw scimErrors.invalidValue(`attribute name not allowed: ${k.slice(0, 64)}`);
      out[k] = clean(v, depth + 1);
    }
    return out;
  }
  return value;
}

/** The stored value as SCIM: `$ref` back under its name. */
function unclean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unclean);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k === STORED_REF ? '$ref' : k, unclean(v)]));
  return value;
}

/** RFC 7643 section 2.1: attribute names are case-insensitive. */
function lookup(body: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(body).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : body[key];
}

/** Entra ID has sent booleans as the strings "True" / "False"; RFC 7643 section 2.3.2 says true / false. */
export function booleanOf(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw scimErrors.invalidValue(`${name} must be true or false`);
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

function primaryValue(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  const items = list.filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  const chosen = items.find((x) => x.primary === true || x.primary === 'True' || x.primary === 'true') ?? items.at(0);
  return chosen ? str(chosen.value) : undefined;
}

export interface UserWrite {
  username: string;
  enabled: boolean;
  externalId?: string;
  password?: string;
  scim: Record<string, unknown>;
}

/** A full User representation (POST, PUT, or the result of a PATCH) as what is stored. */
export function userWriteOf(body: unknown): UserWrite {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw scimErrors.invalidSyntax('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  const schemas = lookup(b, 'schemas');
  if (schemas !== undefined && (!Array.isArray(schemas) || !schemas.includes(USER_SCHEMA)))
    throw scimErrors.invalidValue(`schemas must include ${USER_SCHEMA}`);
  const userName = lookup(b, 'userName');
  if (typeof userName !== 'string' || userName === '') throw scimErrors.invalidValue('userName is required');
  if (!USERNAME.test(userName))
    throw scimErrors.invalidValue(
      'userName: 1 to 128 letters, digits or . _ @ + - (this service provider signs people in with it)',
    );
  const activeRaw = lookup(b, 'active');
  const enabled = activeRaw === undefined || activeRaw === null ? true : booleanOf(activeRaw, 'active');
  const externalId = lookup(b, 'externalId');
  if (externalId !== undefined && externalId !== null && (typeof externalId !== 'string' || externalId.length > 256))
    throw scimErrors.invalidValue('externalId must be a string of at most 256 characters');
  const password = lookup(b, 'password');
  if (password !== undefined && (typeof password !== 'string' || password.length < 8 || password.length > 256))
    throw scimErrors.invalidValue('password: 8 to 256 characters');
  const scim: Record<string, unknown> = {};
  for (const name of KEPT) {
    const v = lookup(b, name);
    if (v !== undefined && v !== null) scim[name] = clean(v);
  }
  const enterprise = lookup(b, ENTERPRISE_SCHEMA);
  if (enterprise !== undefined && enterprise !== null) {
    if (typeof enterprise !== 'object' || Array.isArray(enterprise))
      throw scimErrors.invalidValue(`${ENTERPRISE_SCHEMA} must be an object`);
    if (Object.keys(enterprise).length) scim.enterprise = clean(enterprise);
  }
  for (const k of Object.keys(b)) {
    const known =
      IGNORED.has(k) ||
      ['username', 'active', 'externalid', 'password', ENTERPRISE_SCHEMA.toLowerCase()].includes(k.toLowerCase()) ||
      KEPT.some((n) => n.toLowerCase() === k.toLowerCase());
    if (!known) throw scimErrors.invalidValue(`unknown attribute: ${k.slice(0, 64)}`);
  }
  return {
    username: userName,
    enabled,
    ...(typeof externalId === 'string' ? { externalId } : {}),
    ...(typeof password === 'string' ? { password } : {}),
    scim,
  };
}

/** The OpenID Connect claims (OIDC Core section 5.1) the SCIM attributes give. */
export function claimsOf(existing: Record<string, unknown>, scim: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(existing)) if (!DERIVED_CLAIMS.includes(k)) out[k] = v;
  const name = scim.name && typeof scim.name === 'object' ? (scim.name as Record<string, unknown>) : {};
  const set = (k: string, v: string | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('email', primaryValue(scim.emails));
  set('phone_number', primaryValue(scim.phoneNumbers));
  set('given_name', str(name.givenName));
  set('family_name', str(name.familyName));
  set('middle_name', str(name.middleName));
  set('name', str(name.formatted) ?? str(scim.displayName));
  set('nickname', str(scim.nickName));
  set('locale', str(scim.locale));
  set('zoneinfo', str(scim.timezone));
  set('profile', str(scim.profileUrl));
  // OIDC Core section 5.1: email_verified / phone_number_verified speak of the address the claim holds now. SCIM
  // (RFC 7643) asserts no verification, so a changed or removed address is unverified: an older `true` would let a
  // relying party that links accounts by verified email trust an address nobody verified.
  if (out.email !== existing.email) delete out.email_verified;
  if (out.phone_number !== existing.phone_number) delete out.phone_number_verified;
  return out;
}

export const versionOf = (updatedAt: Date | undefined) => `W/"${updatedAt ? updatedAt.getTime() : 0}"`;

export function userResource(
  doc: StoredUser,
  base: string,
  groups: Array<{ id: string; name: string }>,
): Record<string, unknown> {
  const id = String(doc._id);
  const scim = { ...(unclean(doc.scim ?? {}) as Record<string, unknown>) };
  const enterprise = scim.enterprise;
  delete scim.enterprise;
  return {
    schemas: enterprise ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id,
    ...(doc.externalId ? { externalId: doc.externalId } : {}),
    userName: doc.username,
    active: doc.enabled,
    ...scim,
    ...(groups.length
      ? {
          groups: groups.map((g) => ({ value: g.id, display: g.name, $ref: `${base}/Groups/${g.id}`, type: 'direct' })),
        }
      : {}),
    ...(enterprise ? { [ENTERPRISE_SCHEMA]: enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: (doc.createdAt ?? new Date(0)).toISOString(),
      lastModified: (doc.updatedAt ?? new Date(0)).toISOString(),
      location: `${base}/Users/${id}`,
      version: versionOf(doc.updatedAt),
    },
  };
}
