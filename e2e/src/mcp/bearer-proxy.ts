/**
 * A loopback reverse proxy that presents a user's access token to a protected MCP server on behalf of a client
 * that cannot send one (the MCP conformance suite's `server` mode has no option for credentials). Requests pass
 * unchanged (method, path, body, headers) except: `Authorization: Bearer <token>` is added when absent, and a Host
 * naming the proxy itself is rewritten to the upstream's (any other Host, such as a DNS-rebinding probe's, is
 * passed as sent). Answers stream back unchanged (SSE included).
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** The proxy's URL for `path`. */
  url(path: string): string;
  close(): Promise<void>;
}

export async function startBearerProxy(upstreamOrigin: string, token: () => string): Promise<BearerProxy> {
  const upstream = new URL(upstreamOrigin);
  let self = '';
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers };
    if (!headers.authorization) headers.authorization = `Bearer ${token()}`;
    if (headers.host === self) headers.host = upstream.host;
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  self = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `http://${self}${path}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
