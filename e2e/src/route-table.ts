import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RouteTable {
  aliasPrefix: string;
  routes: Array<{ prefix: string; service: string }>;
}

export function loadRouteTable(root: string): RouteTable {
  return JSON.parse(readFileSync(join(root, 'charts', 'idp', 'files', 'routes.json'), 'utf8')) as RouteTable;
}

/** The service a path reaches: the alias prefix is optional, then the longest matching prefix wins. */
export function routeFor(table: RouteTable, path: string): string | undefined {
  const bare = path === table.aliasPrefix || path.startsWith(`${table.aliasPrefix}/`) ? path.slice(table.aliasPrefix.length) || '/' : path;
  const match = [...table.routes]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .find((r) => bare === r.prefix || bare.startsWith(`${r.prefix}/`));
  return match?.service;
}
