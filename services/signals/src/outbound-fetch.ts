/**
 * The fetch the Shared Signals poll receivers use towards another organisation (its discovery documents, token
 * endpoint, key set, stream management and poll endpoints): every request through @idp/http's SSRF-safe outbound
 * client under the operator's policy (UPSTREAM_ALLOW_LOOPBACK / UPSTREAM_ALLOW_PRIVATE_NETWORKS), so a tenant cannot
 * aim this service at the cluster's own network by naming a trusted issuer. Redirects are never followed.
 */
import { outboundRequest, type OutboundPolicy } from '@idp/http';
import type { SsfFetch } from '@idp/resource-server';

export interface OutboundFetchOptions {
  policy: OutboundPolicy;
  /** Whole exchange (default 10 s, the receiver's own request timeout). */
  timeoutMs?: number;
  /** Longest answer kept (default 1 MiB: a poll answer of 100 SETs is well below). */
  maxResponseBytes?: number;
}

export function outboundSsfFetch(o: OutboundFetchOptions): SsfFetch {
  const maxResponseBytes = o.maxResponseBytes ?? 1024 * 1024;
  return async (url, init) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const exchange = outboundRequest(url, {
      method: init.method,
      headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      timeoutMs: o.timeoutMs ?? 10_000,
      connectTimeoutMs: 3_000,
      maxResponseBytes,
      policy: o.policy,
    });
    // The receiver aborts on stop(): give up waiting (the request itself ends at its own timeout).
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () => reject(init.signal.reason instanceof Error ? init.signal.reason : new Error('aborted'));
      if (init.signal.aborted) onAbort();
      else init.signal.addEventListener('abort', onAbort, { once: true });
      void exchange.finally(() => init.signal.removeEventListener('abort', onAbort)).catch(() => undefined);
    });
    aborted.catch(() => undefined); // an abort after the answer is nobody's error
    const answer = await Promise.race([exchange, aborted]);
    if (answer.truncated) throw new Error(`${new URL(url).origin} answered more than ${maxResponseBytes} bytes`);
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one);
    }
    // A Response cannot carry a body with these statuses; statuses outside 200-599 (none in HTTP/1.1) are errors.
    const empty = answer.status === 204 || answer.status === 304;
    if (answer.status < 200 || answer.status > 599) throw new Error(`${new URL(url).origin} answered ${answer.status}`);
    return new Response(empty ? null : answer.body, { status: answer.status, headers: responseHeaders });
  };
}
