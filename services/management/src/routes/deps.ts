import type { Models, RegistrationSettings, TenantDoc } from '@idp/db';
import { NHE_SETTINGS_DEFAULTS, toObjectId } from '@idp/db';
import { problems } from '@idp/errors';
import type { RevocationInput } from '@idp/events';
import type { Logger } from '@idp/logger';
import type { KeyStore } from '@idp/tokens';

/** What the route modules need; app.ts builds it once. */
export interface RouteDeps {
  models: Models;
  logger: Logger;
  keyStore: KeyStore;
  /** Key of the client-secret digest (same as oidc-core's). */
  clientSecretPepper: string;
  /** The public origin (PUBLIC_BASE_URL): the URLs an upstream provider is told to call are under it. */
  publicBaseUrl?: string;
  /**
   * Kill switch: publishes a deny-list entry for already issued NHE tokens (libs/events revocations). Absent when
   * NATS is not configured; then tokens expire by their (short) TTL.
   */
  revoke?: (input: RevocationInput) => Promise<void>;
  /** The system tenant's bootstrap administrator client (config), which no API call disables or deletes. */
  bootstrapAdmin?: { tenantId: number; clientId: string };
  /** Redirect URIs of the admin console's built-in client, which every tenant created here gets (console/console-client.ts). */
  consoleRedirectUris?: string[];
}

/**
 * A tenant record as stored: one written before a setting existed lacks it (settings itself, a member of nhe, the
 * registration policy's rateLimit); readers take the defaults for what is missing.
 */
export type StoredTenant = Omit<TenantDoc, 'settings'> & {
  settings?: Omit<TenantDoc['settings'], 'nhe' | 'registration'> & {
    nhe?: Partial<TenantDoc['settings']['nhe']>;
    registration?: Partial<Omit<RegistrationSettings, 'rateLimit'>> & {
      rateLimit?: Partial<RegistrationSettings['rateLimit']>;
    };
  };
};

/** The tenant (lean) or 404. */
export async function loadTenant(models: Models, tenantId: number): Promise<StoredTenant> {
  const tenant = await models.Tenant.findById(tenantId).lean<StoredTenant>();
  if (!tenant) throw problems.notFound('tenant not found');
  return tenant;
}

/** A tenant record written before settings (or one of its members) existed lacks them: the defaults stand in. */
export const nheSettingsOf = (tenant: StoredTenant) => ({
  ...NHE_SETTINGS_DEFAULTS,
  ...(tenant.settings?.nhe ?? {}),
});

/** A path id as an ObjectId, or a 404 problem naming the resource. */
export function idOr404(id: string, what: string) {
  const oid = toObjectId(id);
  if (!oid) throw problems.notFound(`${what} not found`);
  return oid;
}

/** `{ items, nextCursor }` over `_id` order (ascending unless `newestFirst`): stable under inserts. */
export async function pageOf<T>(
  model: {
    find: (filter: Record<string, unknown>) => {
      sort: (s: Record<string, 1 | -1>) => { limit: (n: number) => { lean: () => Promise<unknown> } };
    };
  },
  filter: Record<string, unknown>,
  q: { limit: number; cursor?: string | undefined },
  view: (doc: T) => unknown,
  newestFirst = false,
): Promise<{ items: unknown[]; nextCursor: string | null }> {
  const f = { ...filter };
  if (q.cursor) {
    const c = toObjectId(q.cursor);
    if (c) f._id = newestFirst ? { $lt: c } : { $gt: c };
  }
  const rows = (await model
    .find(f)
    .sort({ _id: newestFirst ? -1 : 1 })
    .limit(q.limit + 1)
    .lean()) as Array<T & { _id: unknown }>;
  const items = rows.slice(0, q.limit);
  return { items: items.map(view), nextCursor: rows.length > q.limit ? String(items[items.length - 1]?._id) : null };
}

/** Regex-escaped prefix match. */
export const prefixRegex = (prefix: string) => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
