/**
 * A local https server for Client ID Metadata Documents in tests: its own CA (handed to oidc-core's outbound
 * requests as `ca`), a certificate for 127.0.0.1, localhost and the test names a custom resolver points at it, and
 * routes the test sets per path (counted, so a test can show that a refused document was never fetched).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { generate } from 'selfsigned';

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocServer {
  port: number;
  ca: string;
  /** `https://{host}:{port}{path}`. */
  url(path: string, host?: string): string;
  /** Serves `path` with `route`. */
  route(path: string, route: Route): void;
  /** Serves a JSON document at `path` (with headers). */
  json(path: string, body: unknown, headers?: Record<string, string>): void;
  /** Requests each path received. */
  hits: Map<string, number>;
  stop(): Promise<void>;
}

/** Names the custom resolver answers: to where the server is, or to private and metadata addresses. */
export const TEST_NAMES: Partial<Record<string, string[]>> = {
  localhost: ['127.0.0.1'],
  'docs.loopback.test': ['127.0.0.1'],
  'private.test': ['10.0.0.7'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '10.0.0.8'],
};

/** A dns.lookup that answers TEST_NAMES and resolves anything else as usual. */
export const testResolver = ((
  hostname: string,
  // Callers of the legacy signature may leave the options out.
  options: { all?: boolean } | undefined,
  callback: (err: Error | null, a: LookupAddress[] | string, f?: number) => void,
) => {
  const known = TEST_NAMES[hostname.toLowerCase()];
  if (!known) return (dnsLookup as unknown as (h: string, o: unknown, c: unknown) => void)(hostname, options, callback);
  const list = known.map((address) => ({ address, family: isIP(address) }));
  if (options?.all) return callback(null, list);
  return callback(null, list[0]!.address, list[0]!.family);
}) as unknown as typeof dnsLookup;

export async function startDocServer(): Promise<DocServer> {
  const now = new Date();
  const ca = await generate([{ name: 'commonName', value: 'CIMD test CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 86_400_000),
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const names = ['localhost', ...Object.keys(TEST_NAMES).filter((n) => n !== 'localhost')];
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate: new Date(now.getTime() - 60_000),
    notAfterDate: new Date(now.getTime() + 86_400_000),
    ca: { cert: ca.cert, key: ca.private },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [{ type: 7 as const, ip: '127.0.0.1' }, ...names.map((value) => ({ type: 2 as const, value }))],
      },
    ],
  });
  const routes = new Map<string, Route>();
  const hits = new Map<string, number>();
  const server: Server = createServer(
    { cert: `${leaf.cert.trim()}\n${ca.cert.trim()}\n`, key: leaf.private },
    (req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const route = routes.get(path);
      if (!route) {
        res.statusCode = 404;
        res.end('not found');
        return;
      }
      route(req, res);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca: ca.cert,
    url: (path, host = 'localhost') => `https://${host}:${port}${path}`,
    route: (path, route) => void routes.set(path, route),
    json: (path, body, headers = {}) =>
      void routes.set(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      }),
    hits,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
