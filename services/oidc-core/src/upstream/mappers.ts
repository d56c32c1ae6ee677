/**
 * What a sign-in through an upstream provider writes on the local account: the provider's mappers applied to the
 * claims it asserted (OIDC ID token and UserInfo claims; SAML attributes, each a list of values). Applied at every
 * sign-in, so a value upstream stopped asserting is removed here too. Pure: accounts.ts stores the result.
 */
import type { UpstreamMapper, UpstreamProviderDoc } from '@idp/db';
import { AMR_VALUES } from '../domain/claims-amr';
import { ACR_VALUES } from '../domain/acr';

/** The acr of an upstream sign-in whose upstream acr is not in the provider's table: meets no acr requirement. */
export const ACR_FEDERATED = 'urn:idp:acr:federated';
/**
 * Recorded in a brokered login's amr beside the mapped values: never released (not an RFC 8176 value), it only says
 * that the login was made elsewhere, so that an empty mapping does not fall back to claiming a password here.
 */
export const AMR_FEDERATED = 'fed';

export interface UpstreamAssertion {
  /** The upstream issuer (OIDC `iss`, SAML IdP entity id). */
  issuer: string;
  /** The stable upstream subject (the provider's subject claim, or the SAML NameID). */
  subject: string;
  /** Claims as asserted: OIDC claims as they are; SAML attributes as lists of strings, by attribute name. */
  claims: Record<string, unknown>;
  /** Upstream authentication methods and context (OIDC `amr`/`acr`; SAML AuthnContextClassRef as the acr). */
  amr: string[];
  acr?: string;
  /** The email address the provider vouches for: present only when it asserted it verified (OIDC email_verified). */
  verifiedEmail?: string;
}

export interface MappedProfile {
  externalGroups: string[];
  providerClaims: Record<string, unknown>;
  identityProvider: string;
  linkedIdentity: { provider: string; subject: string };
  /** custom_claims keys the provider maps: a value to set, or undefined to remove. */
  customClaims: Record<string, unknown>;
  /** Standard profile claims the provider maps: a value to set, or undefined to remove. */
  claims: Record<string, unknown>;
  username?: string;
  /** Local group and role names the provider grants now. */
  groups: string[];
  roles: string[];
  amr: string[];
  acr: string;
}

/** Claims never copied into provider_claims: one-time protocol values, not facts about the person. */
const PROTOCOL_CLAIMS = new Set([
  'nonce',
  'at_hash',
  'c_hash',
  's_hash',
  'sid',
  'azp',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
]);

/** The value at a dot path (`realm_access.roles`), or the claim of that exact name when it has dots itself. */
export function valueAt(claims: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let v: unknown = claims;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
    v = Object.hasOwn(v, part) ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v;
}

/** The strings of a value: a string, or the strings of a list. */
export function stringsOf(v: unknown): string[] {
  if (typeof v === 'string') return v ? [v] : [];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x.length > 0);
  return [];
}

/** A single value for a single-valued target: SAML attributes come as lists, the first value is the value. */
function single(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? v[0] : undefined;
  return v === null ? undefined : v;
}

const unique = (xs: string[]) => [...new Set(xs)];

function mapValues(mapper: UpstreamMapper, asserted: string[]): string[] {
  const table = mapper.values ?? [];
  return asserted.flatMap((u) => table.filter((e) => e.upstream === u).map((e) => e.local));
}

/**
 * amr and acr of the brokered login, never more than upstream asserted: each upstream amr value through the table
 * (unmapped values record nothing), the upstream acr through its table, else ACR_FEDERATED.
 */
export function mappedAuthentication(
  provider: Pick<UpstreamProviderDoc, 'amrMap' | 'acrMap'>,
  amr: string[],
  acr: string | undefined,
): { amr: string[]; acr: string } {
  const known = new Set<string>(AMR_VALUES);
  const mapped = amr.flatMap((u) => provider.amrMap.filter((e) => e.upstream === u).flatMap((e) => e.amr));
  const mappedAcr = acr === undefined ? undefined : provider.acrMap.find((e) => e.upstream === acr)?.acr;
  return {
    amr: [...unique(mapped.filter((v) => known.has(v))), AMR_FEDERATED],
    acr: mappedAcr && ACR_VALUES.includes(mappedAcr) ? mappedAcr : ACR_FEDERATED,
  };
}

export function mapProfile(
  provider: Pick<UpstreamProviderDoc, 'alias' | 'mappers' | 'amrMap' | 'acrMap'>,
  a: UpstreamAssertion,
): MappedProfile {
  const out: MappedProfile = {
    externalGroups: [],
    // The raw upstream authentication facts are always kept: step-up policy may look at them.
    providerClaims: {
      iss: a.issuer,
      sub: a.subject,
      ...(a.amr.length ? { amr: a.amr } : {}),
      ...(a.acr ? { acr: a.acr } : {}),
      ...(a.claims.auth_time !== undefined ? { auth_time: a.claims.auth_time } : {}),
    },
    identityProvider: provider.alias,
    linkedIdentity: { provider: provider.alias, subject: a.subject },
    customClaims: {},
    claims: {},
    groups: [],
    roles: [],
    ...mappedAuthentication(provider, a.amr, a.acr),
  };
  for (const m of provider.mappers) {
    const v = m.source === '*' ? undefined : valueAt(a.claims, m.source);
    switch (m.target) {
      case 'externalGroups':
        out.externalGroups.push(...stringsOf(v));
        break;
      case 'providerClaims':
        if (m.source === '*') {
          // defineProperty: a claim named __proto__ is a key like any other, never the object's prototype.
          for (const [k, cv] of Object.entries(a.claims))
            if (!PROTOCOL_CLAIMS.has(k))
              Object.defineProperty(out.providerClaims, k, {
                value: cv,
                enumerable: true,
                writable: true,
                configurable: true,
              });
        } else if (v !== undefined) out.providerClaims[m.source] = v;
        break;
      case 'identityProvider': {
        const s = single(v);
        if (typeof s === 'string' && s) out.identityProvider = s;
        break;
      }
      case 'customClaims':
        if (m.claim) out.customClaims[m.claim] = single(v);
        break;
      case 'claim':
        // email_verified follows email (accounts.ts): a mapper cannot set it on an address nobody vouched for.
        if (m.claim && m.claim !== 'email_verified') out.claims[m.claim] = single(v);
        break;
      case 'username': {
        const s = single(v);
        if (typeof s === 'string' && s) out.username = s;
        break;
      }
      case 'groups':
        out.groups.push(...mapValues(m, stringsOf(v)));
        break;
      case 'roles':
        out.roles.push(...mapValues(m, stringsOf(v)));
        break;
    }
  }
  out.providerClaims = Object.fromEntries(
    Object.entries(bounded(storable(out.providerClaims) as Record<string, unknown>)).filter(([, v]) => v !== undefined),
  );
  out.customClaims = bounded(storable(out.customClaims) as Record<string, unknown>);
  out.claims = bounded(storable(out.claims) as Record<string, unknown>);
  // The same bounds an administrator's writes have (management API): every token carries these.
  out.externalGroups = unique(out.externalGroups.filter(fits)).slice(0, MAX_LIST);
  out.groups = out.groups.slice(0, MAX_LIST);
  out.roles = out.roles.slice(0, MAX_LIST);
  if (out.username !== undefined && !USERNAME.test(out.username)) delete out.username;
  if (!fits(out.identityProvider)) out.identityProvider = provider.alias;
  out.groups = unique(out.groups);
  out.roles = unique(out.roles);
  return out;
}

/**
 * A value as the store can keep it: object keys with a dot or a leading `$` (SAML attribute names such as
 * `urn:oid:0.9.2342.19200300.100.1.3`, namespaced OIDC claims such as `https://example.com/roles`) have those
 * characters replaced by `_`; depth is bounded.
 */
export function storable(value: unknown, depth = 0): unknown {
  if (depth > 8) return undefined;
  if (Array.isArray(value)) return value.map((v) => storable(v, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[storableKey(k)] = storable(v, depth + 1);
  return out;
}

export const storableKey = (key: string) =>
  key === '__proto__' ? '_proto__' : key.replace(/\./g, '_').replace(/^\$/, '_');

/** Bounds on what one upstream sign-in writes, as the management API bounds an administrator's writes. */
export const MAX_JSON_BYTES = 16_384;
const MAX_VALUE_BYTES = 4_096;
const MAX_LIST = 500;
const fits = (v: string) => v.length > 0 && v.length <= 256;
/** The management API's username rule: a name that cannot be one is not used (the account gets alias.subject). */
export const USERNAME = /^[A-Za-z0-9._@+-]{1,128}$/;

// JSON.stringify of undefined is undefined, whatever its declared type says.
const jsonBytes = (v: unknown) => Buffer.byteLength((JSON.stringify(v) as string | undefined) ?? '', 'utf8');

/**
 * A claim object within MAX_JSON_BYTES: values over MAX_VALUE_BYTES are left out (undefined: removed if stored), then
 * the largest go until the rest fits. A hostile or misconfigured upstream cannot make every token of the person huge.
 */
export function bounded(claims: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(claims))
    out[k] = v === undefined || jsonBytes(v) > MAX_VALUE_BYTES ? undefined : v;
  const bySize = Object.keys(out)
    .filter((k) => out[k] !== undefined)
    .sort((a, b) => jsonBytes(out[b]) - jsonBytes(out[a]));
  while (jsonBytes(out) > MAX_JSON_BYTES && bySize.length) out[bySize.shift()!] = undefined;
  return out;
}

/** The domain of an email address, lower-cased; undefined when it is not one. */
export function emailDomainOf(value: string): string | undefined {
  const at = value.lastIndexOf('@');
  if (at < 1 || at === value.length - 1) return undefined;
  return value.slice(at + 1).toLowerCase();
}
