import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { endToEndHeaders } from './hop-by-hop';
import type { RouteTable } from './route-table';
import { routeFor } from './route-table';

export interface DevRouterOptions {
  /** Address to bind (default 127.0.0.1). */
  host?: string;
  /** Terminate TLS with this PEM certificate (chain) and key, as the ingress does; plain http without it. */
  tls?: { cert: string; key: string };
  /**
   * X-Forwarded-Proto sent to the services: the scheme of the public URL (default: https when the router
   * terminates TLS, else http). `https` without `tls` stands behind something else that terminates it (a tunnel).
   */
  forwardedProto?: 'http' | 'https';
}

/**
 * The local stand-in for the ingress: routes by the chart's route table (one source for both), forwards the
 * path unchanged and sets X-Forwarded-For/Proto/Host as the ingress controller does (overwriting what the client
 * sent for Proto and Host). With `tls` it terminates TLS like the ingress and forwards plain http on loopback.
 */
export function startDevRouter(
  table: RouteTable,
  upstreams: Record<string, number>,
  port: number,
  options: DevRouterOptions = {},
): Promise<Server> {
  const host = options.host ?? '127.0.0.1';
  const forwardedProto = options.forwardedProto ?? (options.tls ? 'https' : 'http');
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const service = routeFor(table, path);
    const upstream = service ? upstreams[service] : undefined;
    if (!upstream) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'not_found', error_description: 'no route for this path' }));
      return;
    }
    const headers = endToEndHeaders(req.headers);
    const forwardedFor = req.socket.remoteAddress ?? '';
    headers['x-forwarded-for'] = headers['x-forwarded-for']
      ? `${String(headers['x-forwarded-for'])}, ${forwardedFor}`
      : forwardedFor;
    headers['x-forwarded-proto'] = forwardedProto;
    headers['x-forwarded-host'] = req.headers.host ?? `${host}:${port}`;
    const upstreamReq = request(
      { host: '127.0.0.1', port: upstream, method: req.method, path: req.url, headers },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, endToEndHeaders(upstreamRes.headers));
        upstreamRes.pipe(res);
      },
    );
    upstreamReq.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'temporarily_unavailable', error_description: `${service} is not reachable` }));
    });
    req.pipe(upstreamReq);
  };
  const server: Server = options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : createServer(handler);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
