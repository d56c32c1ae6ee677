import type { Logger } from '@idp/logger';
import type { TokenExchangeForwarder } from './token-exchange';

const UNAVAILABLE = {
  status: 503,
  body: { error: 'temporarily_unavailable', error_description: 'token exchange is unavailable, retry later' },
};

/** Forwards token-exchange requests to the sidecar on loopback, authenticated with the shared secret. */
export function sidecarForwarder(url: string, secret: string, logger: Logger, timeoutMs = 10_000): TokenExchangeForwarder {
  const endpoint = `${url.replace(/\/+$/, '')}/internal/token-exchange`;
  return async (request) => {
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sidecar-secret': secret },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      logger.error({ err: (err as Error).message, tenantId: request.tenantId }, 'nhe-delegation sidecar unreachable');
      return UNAVAILABLE;
    }
    const body = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object') {
      logger.error({ status: response.status }, 'nhe-delegation sidecar answered without a JSON body');
      return UNAVAILABLE;
    }
    const headers: Record<string, string> = {};
    const nonce = response.headers.get('dpop-nonce');
    if (nonce) headers['DPoP-Nonce'] = nonce;
    return { status: response.status, body, headers };
  };
}
