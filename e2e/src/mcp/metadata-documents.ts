/**
 * Client ID Metadata Documents on loopback for the MCP tests: an https server with its own CA (the MCP
 * SDK accepts only an https `clientMetadataUrl`), serving JSON documents per path and counting the requests. The CA
 * is written to a file that oidc-core trusts through NODE_EXTRA_CA_CERTS, as an operator would add a private CA; the
 * tenant allows loopback documents (development only).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';

export interface MetadataDocumentServer {
  /** `https://127.0.0.1:{port}`. */
  origin: string;
  /** A PEM file with the server's CA (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
  /** Serves `body` as JSON at `path`; returns the document's URL. */
  serve(path: string, body: (url: string) => Record<string, unknown>): string;
  /** Requests received per path. */
  hits: Map<string, number>;
  stop(): Promise<void>;
}

export async function startMetadataDocumentServer(): Promise<MetadataDocumentServer> {
  const now = Date.now();
  const validity = { notBeforeDate: new Date(now - 60_000), notAfterDate: new Date(now + 86_400_000) };
  const ca = await generate([{ name: 'commonName', value: 'MCP e2e metadata documents CA' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...validity,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    ...validity,
    ca: { cert: ca.cert, key: ca.private },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7 as const, ip: '127.0.0.1' },
          { type: 2 as const, value: 'localhost' },
        ],
      },
    ],
  });
  const dir = mkdtempSync(join(tmpdir(), 'mcp-cimd-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  const docs = new Map<string, string>();
  const hits = new Map<string, number>();
  const server: Server = createServer(
    { cert: `${leaf.cert.trim()}\n${ca.cert.trim()}\n`, key: leaf.private },
    (req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const doc = docs.get(path);
      if (doc === undefined || req.method !== 'GET') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(doc);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    caFile,
    serve: (path, body) => {
      const url = `${origin}${path}`;
      docs.set(path, JSON.stringify(body(url)));
      return url;
    },
    hits,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
