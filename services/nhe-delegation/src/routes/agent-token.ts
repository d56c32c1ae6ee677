import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedAgentTokenSchema } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { issueAgentToken, type AgentTokenDeps } from '../domain/agent-token';
import { tenantDisabledError, type TenantEnabledLookup } from '../domain/tenant-enabled';
import { internalCallHandler, isPostTo, type ErrorResponder } from './internal-call';

export const AGENT_TOKEN_PATH = '/internal/agent-token';

/** Is this the agent-token call (POST /internal/agent-token, any query string)? */
export const isAgentTokenRequest = (req: IncomingMessage): boolean => isPostTo(req, AGENT_TOKEN_PATH);

/**
 * An agent client's delegation token (domain/agent-token.ts), for oidc-core alone, behind the
 * same internal-call checks as token exchange.
 */
export function agentTokenHandler(
  deps: AgentTokenDeps & { tenantEnabled: TenantEnabledLookup },
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  return internalCallHandler(
    {
      name: 'agent-token',
      schema: forwardedAgentTokenSchema,
      run: async (input) => {
        // A disabled tenant mints no agent token (oidc-core refuses its token endpoint first).
        if (!(await deps.tenantEnabled(input.tenantId))) throw tenantDisabledError();
        return { body: await issueAgentToken(deps, input) };
      },
    },
    sidecarSecret,
    logger,
    fail,
  );
}
