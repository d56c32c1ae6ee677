/**
 * The local ingresses (the HA round-robin router and the dev router) keep hop-by-hop headers on their hop, as
 * ingress-nginx does. Found by the rolling-restart test: the services answer `Keep-Alive: timeout=65`, the routers
 * forwarded it while closing idle client connections after their own 5 s, and a client that trusted the hint reused
 * a connection the router had just closed ("fetch failed", other side closed). About 1 s.
 */
import { request, type Server } from 'node:http';
import { listen, type Listening } from '@idp/http';
import { createLogger } from '@idp/logger';
import { startDevRouter } from '../../src/dev-router';
import { startHaRouter, type HaRouter } from '../../src/ha/ha-router';
import type { RouteTable } from '../../src/route-table';
import { ifAssigned } from '../../src/if-assigned';

const table: RouteTable = { aliasPrefix: '/auth', routes: [{ prefix: '/x', service: 'oidc-core' }] };
let upstream: Listening;
let seen: Record<string, string | string[] | undefined>[] = [];
let ha: HaRouter;
let dev: Server;

const port = (s: Server) => (s.address() as { port: number }).port;

beforeAll(async () => {
  // The services' own listener (keep-alive 65 s, as behind a load balancer).
  upstream = await listen(
    (req, res) => {
      seen.push(req.headers);
      res.setHeader('x-custom-hop', 'should-not-pass');
      res.setHeader('connection', 'x-custom-hop');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    },
    '127.0.0.1',
    0,
    createLogger({ service: 'router-test', level: 'silent' }),
  );
  ha = await startHaRouter(table, { 'oidc-core': [upstream.port] }, 0);
  dev = await startDevRouter(table, { 'oidc-core': upstream.port }, 0);
});

afterAll(async () => {
  await ifAssigned(ha)?.close();
  await new Promise((r) => ifAssigned(dev)?.close(r));
  ifAssigned(dev)?.closeAllConnections();
  await ifAssigned(upstream)?.close(0);
});

describe.each([
  ['HA router', () => ha.server],
  ['dev router', () => dev],
])('%s', (_name, server) => {
  test("the client is promised the keep-alive time the router keeps, not the upstream's", async () => {
    expect(upstream.server.keepAliveTimeout).toBe(65_000);
    const res = await fetch(`http://127.0.0.1:${port(server())}/auth/x`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(res.headers.get('keep-alive')).toBe(`timeout=${Math.floor(server().keepAliveTimeout / 1000)}`);
    // A field the upstream's Connection header names stays on the upstream's hop too.
    expect(res.headers.get('x-custom-hop')).toBeNull();
  });

  test("the request's hop-by-hop fields do not reach the service; end-to-end fields do", async () => {
    seen = [];
    // fetch refuses to send Connection; node:http sends what it is given.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: port(server()),
          path: '/auth/x',
          headers: {
            connection: 'keep-alive, x-client-hop',
            'x-client-hop': 'secret',
            'x-end-to-end': 'kept',
            te: 'trailers',
          },
          agent: false,
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!['x-client-hop']).toBeUndefined();
    expect(seen[0]!.te).toBeUndefined();
    expect(seen[0]!['x-end-to-end']).toBe('kept');
    expect(seen[0]!['x-forwarded-host']).toBe(`127.0.0.1:${port(server())}`);
  });
});
