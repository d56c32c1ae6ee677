/**
 * The ingress and the local dev router read one route table (charts/idp/files/routes.json). This renders the chart's
 * Ingress and checks, for a set of request paths built from the table plus edge cases, that the Ingress sends each
 * path to the same service the dev router chooses (e2e/src/route-table.ts routeFor), and that an aliased path
 * (/_api/...) reaches the service with the alias stripped.
 *
 * Matching follows the controllers: pathType Prefix matches whole path elements and the longest path wins
 * (Kubernetes Ingress semantics); with ingress-nginx regex paths (use-regex), the paths are tried longest first,
 * anchored at the start, and rewrite-target replaces the path with the capture groups.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRouteTable, routeFor, type RouteTable } from '../../src/route-table';
import { byKind, chartDir, K8sObject, render, repoRoot } from './render';

const table: RouteTable = loadRouteTable(repoRoot);

interface IngressPath {
  path: string;
  pathType: string;
  service: string;
  regex: boolean;
  rewriteTarget?: string;
}

/** Route-table service names of the chart's Services: idp-oidc -> oidc, idp-management -> management. */
function tableServiceOf(objs: K8sObject[], backend: string): string {
  const svc = byKind(objs, 'Service').find((s) => s.metadata.name === backend);
  if (!svc) throw new Error(`Ingress backend ${backend} is not a Service of the chart`);
  return svc.metadata.labels?.['app.kubernetes.io/component'] as string;
}

function ingressPaths(objs: K8sObject[], host: string): IngressPath[] {
  return byKind(objs, 'Ingress').flatMap((ing) => {
    const regex = ing.metadata.annotations?.['nginx.ingress.kubernetes.io/use-regex'] === 'true';
    const rewriteTarget = ing.metadata.annotations?.['nginx.ingress.kubernetes.io/rewrite-target'];
    return ing
      .spec!.rules!.filter((r: { host: string }) => r.host === host)
      .flatMap(
        (r: { http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string } } }> } }) =>
          r.http.paths.map((p) => ({
            path: p.path,
            pathType: p.pathType,
            service: tableServiceOf(objs, p.backend.service.name),
            regex,
            rewriteTarget,
          })),
      );
  });
}

/** Where the ingress sends `path`: the service, and the path the service receives. */
function ingressRoute(paths: IngressPath[], path: string): { service: string; upstreamPath: string } | undefined {
  const regexPaths = paths.filter((p) => p.regex).sort((a, b) => b.path.length - a.path.length);
  for (const p of regexPaths) {
    const re = new RegExp(`^${p.path}`);
    const m = re.exec(path);
    if (!m) continue;
    const upstreamPath = p.rewriteTarget
      ? p.rewriteTarget.replace(/\$(\d)/g, (_w, n: string) => m[Number(n)] ?? '')
      : path;
    return { service: p.service, upstreamPath };
  }
  const prefixMatch = (prefix: string) => {
    const trimmed = prefix.replace(/\/+$/, '');
    return path === trimmed || path.startsWith(`${trimmed}/`) || trimmed === '';
  };
  const best = paths
    .filter((p) => !p.regex && p.pathType === 'Prefix' && prefixMatch(p.path))
    .sort((a, b) => b.path.length - a.path.length)
    .at(0);
  return best ? { service: best.service, upstreamPath: path } : undefined;
}

/** Request paths: each prefix bare, with a trailing slash, with a sub-path, aliased, and the near misses. */
function samplePaths(): string[] {
  const paths = new Set<string>([
    '/',
    '/other',
    '/authx',
    '/auth/administrators',
    '/auth/admin/tenants/7',
    `${table.aliasPrefix}`,
    `${table.aliasPrefix}/`,
    `${table.aliasPrefix}/other`,
    `${table.aliasPrefix}x/auth`,
    // Per-tenant routes ({tenantId}: 1-15 digits, one segment): near misses stay with oidc.
    '/auth/admin/ssf',
    '/auth/abc/ssf',
    '/auth/7x/ssf',
    '/auth/7/ssfx',
    '/auth/7/8/ssf',
    '/auth/1234567890123456/ssf',
    '/auth/admin/scim/v2/Users',
    '/auth/7/scimx',
    '/auth/7/scim/v2/Users/abc',
    '/auth/7/.well-known/openid-configuration',
  ]);
  for (const { prefix: raw } of table.routes) {
    const prefix = raw.replace('{tenantId}', '7');
    for (const p of [prefix, `${prefix}/`, `${prefix}/42/.well-known/openid-configuration`, `${prefix}x`]) {
      paths.add(p);
      paths.add(`${table.aliasPrefix}${p}`);
    }
  }
  return [...paths];
}

const stripAlias = (path: string) =>
  path === table.aliasPrefix || path.startsWith(`${table.aliasPrefix}/`)
    ? path.slice(table.aliasPrefix.length) || '/'
    : path;

/** The table without the routes of a component the values turn off (the chart leaves them out). */
const deployed = (off: string[]): RouteTable => ({
  ...table,
  routes: table.routes.filter((r) => !off.includes(r.service) && !(r.component && off.includes(r.component))),
});

describe.each([
  ['ingress-nginx regex paths (alias stripped by the ingress)', [], []],
  // Standard Prefix paths cannot express {tenantId}: the per-tenant routes' component must be off.
  [
    'standard Prefix paths (alias forwarded unchanged)',
    ['ingress.alias.stripPrefix=none', 'signals.enabled=false', 'management.scim.enabled=false'],
    ['signals', 'scim'],
  ],
])('Ingress with %s', (_name, set, off) => {
  const objs = render(['ci/default-values.yaml'], set as string[]);
  const paths = ingressPaths(objs, 'id.example.com');
  const routes = deployed(off as string[]);

  it('has a path for every route of the table, each an absolute path', () => {
    expect(paths.length).toBeGreaterThanOrEqual(routes.routes.length);
    for (const p of paths) expect([p.path, p.path.startsWith('/')]).toEqual([p.path, true]);
    expect(new Set(paths.map((p) => p.service))).toEqual(new Set(routes.routes.map((r) => r.service)));
  });

  it.each(samplePaths())('%s reaches the service the dev router chooses', (path) => {
    const expected = routeFor(routes, path);
    const actual = ingressRoute(paths, path);
    expect(actual?.service).toBe(expected);
    if (actual && (set as string[]).length === 0) expect(actual.upstreamPath).toBe(stripAlias(path));
  });
});

describe('Ingress options', () => {
  it('uses the class and TLS from the values, one host', () => {
    const objs = render(['ci/ha-values.yaml']);
    const [ing] = byKind(objs, 'Ingress');
    expect(byKind(objs, 'Ingress')).toHaveLength(1);
    expect(ing.spec!.ingressClassName).toBe('nginx');
    expect(ing.spec!.tls).toEqual([{ hosts: ['id.example.com'], secretName: 'id-example-com-tls' }]);
    expect(ing.spec!.rules!.map((r) => r.host)).toEqual(['id.example.com']);
    expect(ing.metadata.annotations).toMatchObject({ 'cert-manager.io/cluster-issuer': 'letsencrypt' });
  });

  it('refuses to render per-tenant routes as standard Prefix paths, naming the way out', () => {
    expect(() => render(['ci/default-values.yaml'], ['ingress.alias.stripPrefix=none'])).toThrow(
      /route \/auth\/\{tenantId\}\/ssf \(service signals\) has a per-tenant segment.*stripPrefix=nginx.*signals.enabled=false/,
    );
  });

  it('sends the SSF paths of a tenant to signals, the rest of the tenant to oidc', () => {
    const paths = ingressPaths(render(['ci/default-values.yaml']), 'id.example.com');
    expect(ingressRoute(paths, '/auth/42/ssf/streams')).toEqual({
      service: 'signals',
      upstreamPath: '/auth/42/ssf/streams',
    });
    expect(ingressRoute(paths, '/_api/auth/42/.well-known/ssf-configuration')).toEqual({
      service: 'signals',
      upstreamPath: '/auth/42/.well-known/ssf-configuration',
    });
    expect(ingressRoute(paths, '/.well-known/ssf-configuration/auth/42')?.service).toBe('signals');
    expect(ingressRoute(paths, '/auth/42/oidc/token')?.service).toBe('oidc');
    expect(ingressRoute(paths, '/auth/admin/ssf')?.service).toBe('management');
  });

  it("sends a tenant's SCIM 2.0 paths to management, and leaves them out when management.scim.enabled=false", () => {
    const paths = ingressPaths(render(['ci/default-values.yaml']), 'id.example.com');
    expect(ingressRoute(paths, '/auth/42/scim/v2/Users')).toEqual({
      service: 'management',
      upstreamPath: '/auth/42/scim/v2/Users',
    });
    expect(ingressRoute(paths, '/_api/auth/42/scim/v2/Groups/x')?.upstreamPath).toBe('/auth/42/scim/v2/Groups/x');
    const off = ingressPaths(render(['ci/default-values.yaml'], ['management.scim.enabled=false']), 'id.example.com');
    expect(ingressRoute(off, '/auth/42/scim/v2/Users')?.service).toBe('oidc');
  });

  it('routes no alias when the alias is off', () => {
    const paths = ingressPaths(render(['ci/default-values.yaml'], ['ingress.alias.enabled=false']), 'id.example.com');
    expect(ingressRoute(paths, `${table.aliasPrefix}/auth/1`)).toBeUndefined();
    expect(ingressRoute(paths, '/auth/1')?.service).toBe('oidc');
  });

  it('fails to render when the route table names a service the chart does not deploy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-chart-routes-'));
    try {
      const copy = join(dir, 'idp');
      cpSync(chartDir, copy, { recursive: true });
      writeFileSync(
        join(copy, 'files', 'routes.json'),
        JSON.stringify({
          aliasPrefix: '/_api',
          routes: [...table.routes, { prefix: '/metrics', service: 'prometheus' }],
        }),
      );
      expect(() => render(['ci/default-values.yaml'], [], copy)).toThrow(
        /route \/metrics names service prometheus, which the chart does not deploy/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
