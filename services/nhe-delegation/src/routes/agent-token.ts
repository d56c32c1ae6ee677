import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedAgentTokenSchema } from '@idp/delegation';
import { OAuthError, oauthErrors } from '@idp/errors';
import { jsonBody } from '@idp/http';
import type { Logger } from '@idp/logger';
import { constantTimeEqual } from '@idp/tokens';
import { issueAgentToken, type AgentTokenDeps } from '../domain/agent-token';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
export const AGENT_TOKEN_PATH = '/internal/agent-token';

/** Is this the agent-token call (POST /internal/agent-token, any query string)? */
export function isAgentTokenRequest(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || !req.url) return false;
  const q = req.url.indexOf('?');
  return (q === -1 ? req.url : req.url.slice(0, q)) === AGENT_TOKEN_PATH;
}

type ErrorResponder = (err: unknown, req: IncomingMessage, res: ServerResponse) => void;

/**
 * An agent client's delegation token (issue 17 section 3; domain/agent-token.ts), for oidc-core alone: loopback and
 * the shared secret, as the token-exchange route (routes/token-exchange.ts).
 */
export function agentTokenHandler(deps: AgentTokenDeps, sidecarSecret: string, logger: Logger, fail: ErrorResponder): (req: IncomingMessage, res: ServerResponse) => void {
  const readJson = jsonBody({ limit: '64kb' });
  return (req, res) => {
    const header = req.headers['x-sidecar-secret'];
    const presented = typeof header === 'string' ? header : '';
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '') || !constantTimeEqual(presented, sidecarSecret)) {
      logger.warn({ remoteAddress: req.socket.remoteAddress, secretPresented: presented !== '' }, 'agent-token call refused: not oidc-core');
      fail(new OAuthError('access_denied', 'the token-exchange sidecar only answers oidc-core', 403), req, res);
      return;
    }
    readJson(req as Parameters<typeof readJson>[0], res as Parameters<typeof readJson>[1], (parseError?: unknown) => {
      if (parseError) {
        fail(parseError, req, res);
        return;
      }
      const parsed = forwardedAgentTokenSchema.safeParse((req as IncomingMessage & { body?: unknown }).body);
      if (!parsed.success) {
        fail(oauthErrors.invalidRequest('malformed forwarded request'), req, res);
        return;
      }
      issueAgentToken(deps, parsed.data).then(
        (result) => {
          const body = JSON.stringify(result);
          res.statusCode = 200;
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Content-Type', 'application/json; charset=utf-8');
          res.setHeader('Content-Length', Buffer.byteLength(body));
          res.end(body);
        },
        (err: unknown) => fail(err, req, res),
      );
    });
  };
}
