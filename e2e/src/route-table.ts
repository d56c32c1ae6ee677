import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RouteTable {
  aliasPrefix: string;
  /** `component`: a part of the service the chart can leave out of the ingress on its own (scim: management.scim.enabled). */
  routes: Array<{ prefix: string; service: string; component?: string }>;
}

/**
 * The one placeholder a prefix may hold: `{tenantId}` matches one path segment of 1-15 digits (a tenant id), so a
 * service can own a subpath of every tenant's issuer path (`/auth/{tenantId}/ssf`). The chart's ingress renders it
 * as `[0-9]{1,15}` in a regex path.
 */
export const TENANT_ID_PLACEHOLDER = '{tenantId}';
const TENANT_ID_PATTERN = '[0-9]{1,15}';

export function loadRouteTable(root: string): RouteTable {
  return JSON.parse(readFileSync(join(root, 'charts', 'idp', 'files', 'routes.json'), 'utf8')) as RouteTable;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `path` is the prefix or below it (whole segments), the placeholder matching a tenant id. */
function matches(prefix: string, path: string): boolean {
  if (!prefix.includes(TENANT_ID_PLACEHOLDER)) return path === prefix || path.startsWith(`${prefix}/`);
  const source = prefix.split(TENANT_ID_PLACEHOLDER).map(escape).join(TENANT_ID_PATTERN);
  return new RegExp(`^${source}(?:/|$)`).test(path);
}

/** The service a path reaches: the alias prefix is optional, then the longest matching prefix (as written) wins. */
export function routeFor(table: RouteTable, path: string): string | undefined {
  const bare =
    path === table.aliasPrefix || path.startsWith(`${table.aliasPrefix}/`)
      ? path.slice(table.aliasPrefix.length) || '/'
      : path;
  const match = [...table.routes]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .find((r) => matches(r.prefix, bare));
  return match?.service;
}
