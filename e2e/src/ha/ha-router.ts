/**
 * The ingress of the HA topology: routes by the chart's route table like the dev router, and balances each service's
 * requests over its ready replicas round robin, as ingress-nginx does over a Service's endpoints. It retries on
 * another replica only where ingress-nginx would for any method (`proxy_next_upstream error timeout`, non-idempotent
 * requests never re-sent once written): the connection was refused, so no byte of the request reached a replica.
 * Anything else (a reset mid-request, a 5xx) goes back to the client as it is. Hop-by-hop headers stay on their hop.
 *
 * Endpoints are what Kubernetes keeps in the Service's EndpointSlice: a replica is removed before it is sent SIGTERM
 * (a terminating pod leaves the endpoints) and added back once ready.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { endToEndHeaders } from '../hop-by-hop';
import type { RouteTable } from '../route-table';
import { routeFor } from '../route-table';

export interface RouterStats {
  /** Requests forwarded per upstream port. */
  forwarded: Map<number, number>;
  /** Re-sends to another replica after a refused connection. */
  retriedRefused: number;
  /** Requests answered 502 by the router (no replica reachable, or a failure after the request was sent). */
  badGateway: number;
}

export interface HaRouter {
  server: Server;
  /** Ready endpoints (ports) per service, in round-robin order; change them to take a replica out or put it back. */
  endpoints: Record<string, number[]>;
  stats: RouterStats;
  close: () => Promise<void>;
}

/** Bodies the router buffers to be able to re-send after a refused connection (token requests are small). */
const MAX_BUFFERED_BODY = 1024 * 1024;

export function startHaRouter(
  table: RouteTable,
  endpoints: Record<string, number[]>,
  port: number,
  host = '127.0.0.1',
): Promise<HaRouter> {
  const stats: RouterStats = { forwarded: new Map(), retriedRefused: 0, badGateway: 0 };
  const cursor: Record<string, number> = {};
  const fail = (res: ServerResponse, service: string) => {
    stats.badGateway += 1;
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: `${service} is not reachable` }));
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const service = routeFor(table, path);
    const ready = service ? endpoints[service] : undefined;
    if (!service || !ready) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'not_found', error_description: 'no route for this path' }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BUFFERED_BODY) {
        res
          .writeHead(413, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_request', error_description: 'request body too large' }));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = endToEndHeaders(req.headers);
      const forwardedFor = req.socket.remoteAddress ?? '';
      headers['x-forwarded-for'] = headers['x-forwarded-for']
        ? `${String(headers['x-forwarded-for'])}, ${forwardedFor}`
        : forwardedFor;
      headers['x-forwarded-proto'] = 'http';
      headers['x-forwarded-host'] = req.headers.host ?? `${host}:${port}`;
      const tried = new Set<number>();
      const attempt = () => {
        const list = endpoints[service] ?? [];
        if (list.length === 0 || tried.size >= list.length) return fail(res, service);
        let upstream: number | undefined;
        for (let i = 0; i < list.length && upstream === undefined; i += 1) {
          const n = (cursor[service] = ((cursor[service] ?? -1) + 1) % list.length);
          if (!tried.has(list[n]!)) upstream = list[n];
        }
        if (upstream === undefined) return fail(res, service);
        tried.add(upstream);
        let connected = false;
        const upstreamReq = request(
          { host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers },
          (upstreamRes) => {
            stats.forwarded.set(upstream!, (stats.forwarded.get(upstream!) ?? 0) + 1);
            res.writeHead(upstreamRes.statusCode ?? 502, endToEndHeaders(upstreamRes.headers));
            upstreamRes.pipe(res);
          },
        );
        upstreamReq.on('socket', (socket) => {
          if (!socket.connecting) connected = true;
          else socket.once('connect', () => (connected = true));
        });
        upstreamReq.on('error', (err: NodeJS.ErrnoException) => {
          if (!connected && err.code === 'ECONNREFUSED' && !res.headersSent) {
            stats.retriedRefused += 1;
            attempt();
            return;
          }
          fail(res, service);
        });
        upstreamReq.end(body);
      };
      attempt();
    });
  };
  const server = createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({
        server,
        endpoints,
        stats,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      }),
    );
  });
}
