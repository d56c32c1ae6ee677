/**
 * The signed `scope` of an access token for a resource server (spec, "Scope narrowing by
 * requireAuthorizationScopesInRequest"):
 * - toggle false: every scope the subject (user or client) holds through RBAC on that API, whatever was requested;
 * - toggle true: exactly the requested scopes the subject holds.
 * Login scopes never appear: only the API's own permissions can be in `permissions`.
 */
export function accessTokenScope(
  requested: Iterable<string>,
  permissions: ReadonlySet<string>,
  narrowToRequested: boolean,
): string[] {
  if (!narrowToRequested) return [...permissions].sort();
  const wanted = new Set(requested);
  return [...permissions].filter((p) => wanted.has(p)).sort();
}
