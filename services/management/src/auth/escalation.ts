import { clientPermissions, groupPermissions, userPermissions, type Models } from '@idp/db';
import { ProblemError } from '@idp/errors';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import type { Caller } from './bearer';

/**
 * No privilege escalation through the management API: whatever lets a caller become, or act as, a principal
 * (grant a role, join a group, set a user's password or second factor, replace a client's secret or keys) is
 * allowed only when the caller already holds every management scope that principal holds or would grant.
 * Otherwise a token with one narrow scope (auth.groups.update, auth.users.update, auth.clients.update) could take
 * over an administrator and with it every scope. 403 `forbidden`, naming the missing scopes.
 */
export function assertCallerHolds(caller: Caller, scopes: Iterable<string>, what: string): void {
  const missing = [...new Set(scopes)].filter((s) => !caller.scopes.has(s)).sort();
  if (missing.length)
    throw new ProblemError(
      'forbidden',
      403,
      `${what} holds management scopes the caller does not; missing: ${missing.join(' ')}`,
    );
}

/** The management scopes a user holds (direct roles and roles through groups). */
export const userManagementScopes = (models: Models, tenantId: number, userId: string) =>
  userPermissions(models, tenantId, userId, MANAGEMENT_AUDIENCE);
/** The management scopes a client holds through its roles (client credentials). */
export const clientManagementScopes = (models: Models, tenantId: number, clientId: string) =>
  clientPermissions(models, tenantId, clientId, MANAGEMENT_AUDIENCE);
/** The management scopes a group's roles grant its members. */
export const groupManagementScopes = (models: Models, tenantId: number, groupId: string) =>
  groupPermissions(models, tenantId, groupId, MANAGEMENT_AUDIENCE);
