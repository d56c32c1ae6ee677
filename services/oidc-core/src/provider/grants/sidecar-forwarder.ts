import { Agent, request as httpRequest } from 'node:http';
import type { Logger } from '@idp/logger';
import type { ForwardedAgentToken, ForwardedCiba } from '@idp/delegation';
import type { NheTokenIssued } from '@idp/events';
import type { AgentTokenForwarder } from '../agent-clients';
import type { TokenExchangeForwarder, TokenExchangeResponse } from './token-exchange';

const UNAVAILABLE = {
  status: 503,
  body: { error: 'temporarily_unavailable', error_description: 'token exchange is unavailable, retry later' },
};

/** Records an agent's ID-JAG issuance: 200 once JetStream stored it; anything else means no ID-JAG. */
export type IdJagAuditForwarder = (event: NheTokenIssued) => Promise<TokenExchangeResponse>;

/** Largest sidecar answer accepted (a token response or an error is a few KB). */
const MAX_RESPONSE_BYTES = 256 * 1024;

/**
 * Forwards token-exchange requests to the sidecar on loopback, authenticated with the shared secret. Plain
 * node:http with a keep-alive agent (cheaper per call than fetch on the hot path).
 */
export function sidecarForwarder(
  url: string,
  secret: string,
  logger: Logger,
  timeoutMs = 10_000,
): TokenExchangeForwarder & {
  agentToken: AgentTokenForwarder;
  idJagIssued: IdJagAuditForwarder;
  cibaToken: (request: ForwardedCiba) => Promise<TokenExchangeResponse>;
} {
  const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
  const exchange = sidecarCall<Parameters<TokenExchangeForwarder>[0]>(
    url,
    '/internal/token-exchange',
    secret,
    logger,
    agent,
    timeoutMs,
  );
  // The sidecar's second call: an agent client's token, minted and audited like an exchange's.
  return Object.assign(exchange, {
    agentToken: sidecarCall<ForwardedAgentToken>(url, '/internal/agent-token', secret, logger, agent, timeoutMs),
    // Its third: the audit record of an ID-JAG issued for an agent (grants/id-jag-issuer.ts), published by the sidecar
    // on the delegation tokens' JetStream path.
    idJagIssued: sidecarCall<NheTokenIssued>(url, '/internal/id-jag-issued', secret, logger, agent, timeoutMs),
    // Its fourth: a backchannel authentication request's check, its token once the person approved, their denial.
    cibaToken: sidecarCall<ForwardedCiba>(url, '/internal/ciba-token', secret, logger, agent, timeoutMs),
  });
}

function sidecarCall<T extends { tenantId: number }>(
  url: string,
  path: string,
  secret: string,
  logger: Logger,
  agent: Agent,
  timeoutMs: number,
): (forwarded: T) => Promise<TokenExchangeResponse> {
  const endpoint = new URL(`${url.replace(/\/+$/, '')}${path}`);
  if (endpoint.protocol !== 'http:') throw new Error('SIDECAR_URL must be an http:// loopback URL');
  return (forwarded) =>
    new Promise((resolve) => {
      const payload = Buffer.from(JSON.stringify(forwarded));
      let settled = false;
      const done = (value: TokenExchangeResponse) => {
        if (settled) return;
        settled = true;
        resolve(value);
      };
      const unavailable = (reason: string) => {
        logger.error({ err: reason, tenantId: forwarded.tenantId }, 'nhe-delegation sidecar unreachable');
        done(UNAVAILABLE);
      };
      const req = httpRequest(
        {
          agent,
          host: endpoint.hostname,
          port: endpoint.port,
          path: endpoint.pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': payload.length, 'x-sidecar-secret': secret },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              req.destroy(new Error('sidecar response too large'));
              return;
            }
            chunks.push(chunk);
          });
          res.on('error', (err) => unavailable(err.message));
          res.on('end', () => {
            let body: unknown;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              body = undefined;
            }
            if (!body || typeof body !== 'object' || Array.isArray(body)) {
              logger.error({ status: res.statusCode }, 'nhe-delegation sidecar answered without a JSON body');
              done(UNAVAILABLE);
              return;
            }
            const headers: Record<string, string> = {};
            const nonce = res.headers['dpop-nonce'];
            if (typeof nonce === 'string' && nonce) headers['DPoP-Nonce'] = nonce;
            done({ status: res.statusCode ?? 502, body: body as Record<string, unknown>, headers });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`sidecar did not answer within ${timeoutMs} ms`)));
      req.on('error', (err) => unavailable(err.message));
      req.end(payload);
    });
}
