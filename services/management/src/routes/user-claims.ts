/**
 * The identity fields of a user that oidc-core releases as claims (libs/db UserDoc; oidc-core
 * domain/claims-user.ts, provider/claims-account.ts, provider/claims-passport.ts): validated strictly on the way in,
 * returned as stored. Standard OIDC claims (name, email, ...) stay in `claims`.
 *
 *   externalGroups       external_groups      group names from an upstream identity provider
 *   identityProvider     identity_provider    the provider the account signs in through
 *   linkedIdentity       linked_identity      {provider, subject} of the account this one is linked to
 *   providerClaims       provider_claims      claims as the upstream provider sent them
 *   federatedIdentities  federated_identities RAS-compatible list (released as {identities: [...]})
 *   customClaims         custom_claims        identity-provider profile mapping (UserInfo only)
 *   ga4ghVisas           ga4gh_passport_v1    GA4GH visa assertions, signed into visas at UserInfo time
 *
 * Free-form objects are stored in MongoDB as they are, so their keys must not contain dots or start with `$` and
 * no array may sit directly inside an array (FerretDB refuses both), and they are bounded in depth and size. Visa
 * `conditions` (a list of lists) are stored in libs/db's storage form and returned as sent.
 */
import { z } from 'zod';
import { readVisaConditions, storeVisaConditions, type VisaConditions } from '@idp/db';

/** Bytes (as JSON) of one free-form object or list. */
export const MAX_JSON_BYTES = 16_384;
/** Nesting levels below a free-form object. */
export const MAX_JSON_DEPTH = 8;

const badKey = (k: string) =>
  k.length === 0 || k.length > 128 || k.startsWith('$') || k.includes('.') || k.includes('\u0000');
const KEY_RULE = 'keys are 1 to 128 characters, without dots, not starting with $';

const NESTED_ARRAY_RULE = 'an array directly inside an array cannot be stored; wrap it in an object';

/**
 * Reports every bad key, array inside an array, non-finite number and too deep nesting below `value`, at its path.
 * True when it reported nothing. Never deeper than MAX_JSON_DEPTH levels of recursion.
 */
export function checkJson(value: unknown, path: Array<string | number>, depth: number, ctx: z.RefinementCtx): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return true;
    ctx.addIssue({ code: 'custom', path, message: 'must be a finite number' });
    return false;
  }
  if (typeof value !== 'object') {
    ctx.addIssue({ code: 'custom', path, message: 'must be a JSON value' });
    return false;
  }
  if (depth >= MAX_JSON_DEPTH) {
    ctx.addIssue({ code: 'custom', path, message: `nested too deeply (at most ${MAX_JSON_DEPTH} levels)` });
    return false;
  }
  let ok = true;
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (Array.isArray(v)) {
        ctx.addIssue({ code: 'custom', path: [...path, i], message: NESTED_ARRAY_RULE });
        ok = false;
      } else ok = checkJson(v, [...path, i], depth + 1, ctx) && ok;
    });
    return ok;
  }
  for (const [k, v] of Object.entries(value)) {
    if (badKey(k)) {
      ctx.addIssue({ code: 'custom', path: [...path, k], message: KEY_RULE });
      ok = false;
    } else ok = checkJson(v, [...path, k], depth + 1, ctx) && ok;
  }
  return ok;
}

/** Size as JSON. A value too deep to serialise (the body parser's depth bound makes that unreachable) is too large. */
export function jsonSizeOk(v: unknown, max = MAX_JSON_BYTES): boolean {
  try {
    return JSON.stringify(v).length <= max;
  } catch {
    return false;
  }
}
const sizeOk = (v: unknown) => jsonSizeOk(v);
const SIZE_RULE = `at most ${MAX_JSON_BYTES} bytes as JSON`;

/** A free-form JSON object (keys checked at every level). */
export const jsonObject = z
  .record(
    z.string().refine((k) => !badKey(k), KEY_RULE),
    z.unknown(),
  )
  .superRefine((o, ctx) => {
    let ok = true;
    for (const [k, v] of Object.entries(o)) ok = checkJson(v, [k], 1, ctx) && ok;
    // Sized only once its depth is known to be bounded.
    if (ok && !sizeOk(o)) ctx.addIssue({ code: 'custom', message: SIZE_RULE });
  });

/** An identifier-like text: 1 to `max` characters, no control characters. */
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    // eslint-disable-next-line no-control-regex -- refusing control characters is the point of this pattern
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'must not contain control characters');

/** Absolute URI (GA4GH visa `source`). */
const absoluteUri = text(255).refine((v) => {
  try {
    new URL(v);
    return true;
  } catch {
    return false;
  }
}, 'must be an absolute URI');

/** Visa condition clause (GA4GH Passport v1: `const:`, `pattern:` or `split_pattern:` string matchers). */
const visaCondition = z
  .object({ type: text(128), value: text(255).optional(), source: text(255).optional(), by: text(64).optional() })
  .strict()
  .refine(
    (c) => c.value !== undefined || c.source !== undefined || c.by !== undefined,
    'a condition matches at least one of value, source or by',
  );

/** GA4GH visa assertion: what oidc-core signs into a Visa JWT (`ga4gh_visa_v1`). */
export const visaAssertion = z
  .object({
    type: text(128).describe(
      'Visa type, e.g. ControlledAccessGrants, AffiliationAndRole, AcceptedTermsAndPolicies, ResearcherStatus, LinkedIdentities',
    ),
    value: text(255),
    source: absoluteUri.describe('Absolute URI of the organisation that asserted the visa'),
    by: z.enum(['self', 'peer', 'system', 'so', 'dac']).optional(),
    asserted: z
      .number()
      .int()
      .min(0)
      .max(9_999_999_999, 'seconds since the epoch (not milliseconds)')
      .describe('When the source asserted it, seconds since the epoch'),
    conditions: z
      .array(z.array(visaCondition).min(1).max(20))
      .min(1)
      .max(20)
      .optional()
      .describe('Disjunction (outer list) of conjunctions (inner lists)'),
  })
  .strict()
  .meta({ id: 'Ga4ghVisaAssertion' });

export const linkedIdentity = z.object({ provider: text(256), subject: text(256) }).strict();

/** The writable identity fields (create; PATCH makes each optional and nullable). */
export const identityFields = {
  externalGroups: z.array(text(256)).max(500).describe('external_groups claim'),
  identityProvider: text(256).describe('identity_provider claim'),
  linkedIdentity: linkedIdentity.describe('linked_identity claim'),
  providerClaims: jsonObject.describe("provider_claims claim: the upstream provider's claims"),
  federatedIdentities: z
    .array(jsonObject)
    .max(50)
    .refine(sizeOk, SIZE_RULE)
    .describe('federated_identities claim (released as {identities: [...]})'),
  customClaims: jsonObject.describe('custom_claims values (UserInfo only; a client script may replace them)'),
  ga4ghVisas: z.array(visaAssertion).max(100).describe('GA4GH visa assertions signed into ga4gh_passport_v1'),
};

export type IdentityFieldName = keyof typeof identityFields;
export const IDENTITY_FIELD_NAMES = Object.keys(identityFields) as IdentityFieldName[];

/** Create: each field optional. */
export const identityCreateFields = Object.fromEntries(
  IDENTITY_FIELD_NAMES.map((k) => [k, identityFields[k].optional()]),
) as {
  [K in IdentityFieldName]: z.ZodOptional<(typeof identityFields)[K]>;
};

/** PATCH: each field optional; null removes it. */
export const identityPatchFields = Object.fromEntries(
  IDENTITY_FIELD_NAMES.map((k) => [k, identityFields[k].nullable().optional()]),
) as {
  [K in IdentityFieldName]: z.ZodOptional<z.ZodNullable<(typeof identityFields)[K]>>;
};

/** As returned: present only when stored. */
export const identityViewFields = {
  externalGroups: z.array(z.string()).optional(),
  identityProvider: z.string().optional(),
  linkedIdentity: z.object({ provider: z.string(), subject: z.string() }).optional(),
  providerClaims: z.record(z.string(), z.unknown()).optional(),
  federatedIdentities: z.array(z.record(z.string(), z.unknown())).optional(),
  customClaims: z.record(z.string(), z.unknown()).optional(),
  ga4ghVisas: z
    .array(
      z.object({
        type: z.string(),
        value: z.string(),
        source: z.string(),
        by: z.string().optional(),
        asserted: z.number(),
        conditions: z.unknown().optional(),
      }),
    )
    .optional(),
};

type Visa = z.output<typeof visaAssertion>;

/** Visas as stored: `conditions` in storage form. */
export const storeVisas = (visas: Visa[]) =>
  visas.map(({ conditions, ...v }) => ({
    ...v,
    ...(conditions ? { conditions: storeVisaConditions(conditions as VisaConditions) } : {}),
  }));

/** The identity fields of a write, in their storage form. */
export function toStored<T extends Partial<Record<IdentityFieldName, unknown>>>(fields: T): T {
  const visas = fields.ga4ghVisas;
  return Array.isArray(visas) ? { ...fields, ga4ghVisas: storeVisas(visas as Visa[]) } : fields;
}

/** The stored identity fields of a user document (absent ones left out), visa conditions as sent. */
export function identityView(doc: Partial<Record<IdentityFieldName, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of IDENTITY_FIELD_NAMES) if (doc[k] !== undefined && doc[k] !== null) out[k] = doc[k];
  if (Array.isArray(out.ga4ghVisas)) {
    out.ga4ghVisas = (out.ga4ghVisas as Array<Record<string, unknown>>).map(({ conditions, ...v }) => {
      const c = readVisaConditions(conditions);
      return c ? { ...v, conditions: c } : v;
    });
  }
  return out;
}

/** `$set` / `$unset` of a PATCH body: null removes a field. */
export function patchUpdate(body: Record<string, unknown>): {
  $set?: Record<string, unknown>;
  $unset?: Record<string, 1>;
} {
  const set: Record<string, unknown> = {};
  const unset: Record<string, 1> = {};
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    if (v === null) unset[k] = 1;
    else set[k] = v;
  }
  return { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
}
