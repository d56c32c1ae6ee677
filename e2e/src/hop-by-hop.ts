/**
 * Hop-by-hop header fields (RFC 9110 section 7.6.1): they describe one connection, so a proxy drops them, and the
 * fields the Connection header names, before forwarding a request or a response, as ingress-nginx does. Forwarding
 * an upstream's `Keep-Alive: timeout=65` would promise the client a keep-alive time the router does not keep: the
 * client then reuses a connection the router has just closed and the request fails with "other side closed".
 */
import type { IncomingHttpHeaders } from 'node:http';

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** A copy of `headers` without the hop-by-hop fields. */
export function endToEndHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_BY_HOP.includes(name) && !named.includes(name)) out[name] = value;
  }
  return out;
}
