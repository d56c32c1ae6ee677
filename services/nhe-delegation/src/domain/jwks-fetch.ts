/**
 * Fetching an NHE's or a workload issuer's JWK Set (to verify actor tokens) from a URL an administrator registered,
 * through the SSRF-safe outbound helper of @idp/http: https only, every resolved address checked (no loopback,
 * private, link-local or metadata addresses unless the policy allows the class), no redirects, bounded size and time.
 */
import type { JWK } from 'jose';
import { outboundRequest, type OutboundPolicy } from '@idp/http';
import type { JwksFetcher } from './actor-directory';

export interface JwksFetchOptions {
  policy?: OutboundPolicy;
  timeoutMs?: number;
  /** Largest document accepted (bytes). */
  maxBytes?: number;
}

export function safeJwksFetcher(o: JwksFetchOptions = {}): JwksFetcher {
  const maxBytes = o.maxBytes ?? 64 * 1024;
  return async (uri) => {
    const res = await outboundRequest(uri, {
      headers: { accept: 'application/jwk-set+json, application/json' },
      timeoutMs: o.timeoutMs ?? 5000,
      maxResponseBytes: maxBytes,
      ...(o.policy ? { policy: o.policy } : {}),
    });
    if (res.status !== 200) throw new Error(`JWK Set at ${uri} answered ${res.status}`);
    if (res.truncated) throw new Error(`JWK Set at ${uri} is larger than ${maxBytes} bytes`);
    let doc: unknown;
    try {
      doc = JSON.parse(res.body);
    } catch {
      throw new Error(`JWK Set at ${uri} is not JSON`);
    }
    // JSON.parse may give null or a scalar: only an object has a keys member.
    const keys = typeof doc === 'object' && doc !== null ? (doc as { keys?: unknown }).keys : undefined;
    if (!Array.isArray(keys)) throw new Error(`JWK Set at ${uri} has no keys array`);
    return { keys: keys.filter((k): k is JWK => typeof k === 'object' && k !== null && !Array.isArray(k)) };
  };
}
