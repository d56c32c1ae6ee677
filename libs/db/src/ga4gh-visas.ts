/**
 * Storage form of GA4GH visa `conditions`. In a visa they are a list of lists (any inner list whose conditions
 * all hold), but FerretDB stores no array directly inside an array, so each inner list is stored as `{ all: [...] }`
 * in `users.ga4ghVisas[].conditions`. Writers store with `storeVisaConditions`; readers (management's user view,
 * oidc-core's passport signer) read with `readVisaConditions`, which also takes the plain list-of-lists form.
 */
export type VisaConditions = Array<Array<Record<string, unknown>>>;
export type StoredVisaConditions = Array<{ all: Array<Record<string, unknown>> }>;

export function storeVisaConditions(conditions: VisaConditions): StoredVisaConditions {
  return conditions.map((all) => ({ all }));
}

/** The list of lists, or undefined when `stored` is absent or not a list. */
export function readVisaConditions(stored: unknown): VisaConditions | undefined {
  if (!Array.isArray(stored)) return undefined;
  return stored.map((c: unknown) =>
    Array.isArray(c)
      ? c
      : Array.isArray((c as { all?: unknown } | null)?.all)
        ? (c as { all: Array<Record<string, unknown>> }).all
        : [],
  );
}
