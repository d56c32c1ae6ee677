/**
 * Outbound HTTP to URLs that someone else chose (a Shared Signals receiver's push endpoint today; client metadata
 * documents tomorrow), without letting them aim this service at its own network (SSRF):
 *
 * - the URL must be https (http only to a loopback host, and only where the caller allows it: local development);
 *   no user info, no fragment;
 * - every address the host name resolves to is checked, and the connection is made to the checked address (the
 *   check runs inside the socket's own DNS lookup, so a name that resolves differently a second time, DNS
 *   rebinding, cannot slip through): loopback, private (RFC 1918, unique local, CGNAT), link-local (cloud metadata
 *   169.254.169.254 included), unspecified, multicast, broadcast, documentation and reserved ranges, and IPv6
 *   forms that embed an IPv4 address, are refused unless the policy allows that class;
 * - redirects are never followed (a 3xx is the answer), the response body is capped and the whole exchange is
 *   bounded in time.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

export interface OutboundPolicy {
  /** Allow loopback hosts (127.0.0.0/8, ::1, localhost), over http too. Local development and tests only. */
  allowLoopback?: boolean;
  /** Allow private-network addresses (RFC 1918, unique local, CGNAT): a receiver inside the same cluster. */
  allowPrivateNetworks?: boolean;
}

export class OutboundUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundUrlError';
  }
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const privateNets = new BlockList();
for (const [net, prefix] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
] as const)
  privateNets.addSubnet(net, prefix, 'ipv4');
privateNets.addSubnet('fc00::', 7, 'ipv6');

/** Never reachable through this helper, whatever the policy. */
const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  forbidden.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['2001:db8::', 32], // documentation
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address
  ['64:ff9b:1::', 48], // local NAT64
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['2001::', 32], // Teredo
  ['100::', 64], // discard-only
] as const)
  forbidden.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address an IPv4-mapped or IPv4-compatible IPv6 address stands for (::ffff:10.0.0.1, ::10.0.0.1). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::(?:ffff:(?:0:)?)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::(?:ffff:(?:0:)?)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return undefined;
}

/** Why an address may not be connected to under `policy`, or undefined when it may. */
export function addressProblem(address: string, policy: OutboundPolicy = {}): string | undefined {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const v4 = family === 6 ? embeddedIpv4(address) : undefined;
  if (v4) return addressProblem(v4, policy);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (loopback.check(address, type)) return policy.allowLoopback ? undefined : `${address} is a loopback address`;
  if (forbidden.check(address, type))
    return `${address} is a link-local, multicast, reserved or otherwise non-public address`;
  if (privateNets.check(address, type))
    return policy.allowPrivateNetworks ? undefined : `${address} is a private-network address`;
  return undefined;
}

/**
 * Whether a host name is a loopback name (RFC 6761 section 6.3: localhost and every name below it). A trailing dot
 * only marks the name as fully qualified (`localhost.` is `localhost`, and resolves to loopback as well), so it is
 * ignored here; IP literals need nothing of the kind, the URL parser already writes `127.0.0.1.` as `127.0.0.1`.
 */
const isLoopbackName = (host: string) => {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
};

/** The URL, parsed, when its form may be called under `policy`; throws OutboundUrlError otherwise. */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlError('not an absolute URL');
  }
  if (url.username || url.password) throw new OutboundUrlError('the URL must not carry user info');
  if (url.hash) throw new OutboundUrlError('the URL must not carry a fragment');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host) !== 0;
  const loopbackHost = literal
    ? addressProblem(host, { allowLoopback: true }) === undefined && addressProblem(host, {}) !== undefined
    : isLoopbackName(host);
  if (url.protocol !== 'https:') {
    if (!(url.protocol === 'http:' && policy.allowLoopback && loopbackHost))
      throw new OutboundUrlError('the URL must use https');
  }
  if (literal) {
    const problem = addressProblem(host, policy);
    if (problem) throw new OutboundUrlError(problem);
  } else if (isLoopbackName(host) && !policy.allowLoopback) {
    throw new OutboundUrlError(`${host} is a loopback host`);
  }
  return url;
}

/**
 * A socket lookup that resolves the name and refuses it when any of its addresses is refused by `policy` (all of
 * them are checked, so the answer a happy-eyeballs connect picks is one that passed).
 */
export function guardedLookup(policy: OutboundPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as LookupAddress[];
      if (!list.length)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      for (const a of list) {
        const problem = addressProblem(a.address, policy);
        if (problem)
          return callback(
            Object.assign(new OutboundUrlError(`${hostname} resolves to a refused address: ${problem}`), {
              code: 'EREFUSEDADDRESS',
            }),
            '',
            0,
          );
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Whole exchange, connect to last body byte (default 10 s). */
  timeoutMs?: number;
  /**
   * Bound on establishing the connection: name resolved, TCP connected and, for https, the TLS handshake done (default:
   * only timeoutMs). A host that accepts connections and never answers is given up on this early.
   */
  connectTimeoutMs?: number;
  /** Longest response body kept; the rest is discarded (default 64 KiB). */
  maxResponseBytes?: number;
  policy?: OutboundPolicy;
  /** DNS resolver (tests). */
  resolve?: typeof dnsLookup;
  /** Certificate authorities trusted for https instead of the default ones (tests, private CAs). */
  ca?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** True when the body was longer than maxResponseBytes. */
  truncated: boolean;
}

/**
 * One HTTP exchange with an outside URL under the rules above. Rejects with OutboundUrlError when the URL or its
 * addresses are refused, with an Error on network failure or timeout; any HTTP status (3xx included) resolves.
 */
export function outboundRequest(raw: string, o: OutboundRequest = {}): Promise<OutboundResponse> {
  const policy = o.policy ?? {};
  let url: URL;
  try {
    url = checkOutboundUrl(raw, policy);
  } catch (err) {
    return Promise.reject(err);
  }
  const maxBytes = o.maxResponseBytes ?? 64 * 1024;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = Buffer.byteLength(o.body);
    const req = send(
      url,
      {
        method: o.method ?? 'GET',
        headers,
        lookup: guardedLookup(policy, o.resolve),
        // No connection reuse: every request resolves (and checks) the name afresh.
        agent: false,
        ...(o.ca !== undefined && url.protocol === 'https:' ? { ca: o.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (chunk: Buffer) => {
          if (size >= maxBytes) {
            truncated = true;
            return;
          }
          const keep = chunk.subarray(0, maxBytes - size);
          if (keep.length < chunk.length) truncated = true;
          chunks.push(keep);
          size += keep.length;
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated,
          });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`request to ${url.origin} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const connectTimeoutMs = o.connectTimeoutMs;
    if (connectTimeoutMs !== undefined && connectTimeoutMs < timeoutMs) {
      const connectTimer = setTimeout(
        () => req.destroy(new Error(`connection to ${url.origin} not established within ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      const established = () => clearTimeout(connectTimer);
      req.on('socket', (socket) => socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', established));
      req.once('close', established);
    }
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(o.body);
  });
}
