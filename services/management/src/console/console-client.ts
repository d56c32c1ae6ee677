/**
 * The admin console's built-in client: every tenant has one public, first-party client whose only
 * redirect URIs are the console's own URLs, so an administrator signs in to the console with the provider's
 * authorization-code + PKCE flow and gets a management-API token carrying exactly their roles' management scopes.
 * It holds no secret (token_endpoint_auth_method none) and no roles of its own: a user's token scopes come from the
 * user's roles (oidc-core resource-servers.ts), so the console can never do more than the person signed in.
 */
import type { Models } from '@idp/db';
import { insertClient } from '@idp/db';

export const CONSOLE_CLIENT_ID = 'admin-console';
/** Path of the console below the public origin (the `/_api` alias serves it too). */
export const CONSOLE_PATH = '/auth/admin/console/';
export const CONSOLE_ALIAS_PATH = '/_api/auth/admin/console/';

/** The console's redirect URIs for a public origin: the console's URL, directly and under the `/_api` alias. */
export function consoleRedirectUris(publicBaseUrl: string): string[] {
  const base = publicBaseUrl.replace(/\/+$/, '');
  return [`${base}${CONSOLE_PATH}`, `${base}${CONSOLE_ALIAS_PATH}`];
}

const consoleFields = (redirectUris: string[]) => ({
  name: 'Admin console',
  tokenEndpointAuthMethod: 'none' as const,
  grantTypes: ['authorization_code'],
  responseTypes: ['code'],
  redirectUris,
  postLogoutRedirectUris: redirectUris,
  pkceRequired: true,
  firstParty: true,
  showLogoutPrompt: false,
  roleIds: [],
  enabled: true,
});

/** Creates the tenant's console client, or brings its redirect URIs to the configured origin (idempotent). */
export async function ensureConsoleClient(models: Models, tenantId: number, redirectUris: string[]): Promise<void> {
  const fields = consoleFields(redirectUris);
  // Only the built-in client is brought up to date (a public first-party client); the id is reserved for it.
  const updated = await models.Client.updateOne(
    { tenantId, clientId: CONSOLE_CLIENT_ID, tokenEndpointAuthMethod: 'none', firstParty: true },
    { $set: { redirectUris, postLogoutRedirectUris: redirectUris } },
  );
  if (updated.matchedCount > 0) return;
  // A replica or a concurrent request that created it meanwhile wins (insertClient returns undefined then).
  await insertClient(models, { ...fields, tenantId, clientId: CONSOLE_CLIENT_ID });
}

/** Every tenant's console client (management start: tenants created before the console existed, a changed origin). */
export async function ensureConsoleClients(models: Models, redirectUris: string[]): Promise<void> {
  const tenants = await models.Tenant.find({}, { _id: 1 }).lean<Array<{ _id: number }>>();
  for (const t of tenants) await ensureConsoleClient(models, t._id, redirectUris);
}
