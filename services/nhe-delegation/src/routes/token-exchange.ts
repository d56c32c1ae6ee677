import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedExchangeSchema } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { exchangeToken, type ExchangeDeps } from '../domain/exchange';
import { tenantDisabledError, type TenantEnabledLookup } from '../domain/tenant-enabled';
import { internalCallHandler, isPostTo, type ErrorResponder } from './internal-call';

export const EXCHANGE_PATH = '/internal/token-exchange';

/** Is this the exchange call (POST /internal/token-exchange, any query string)? */
export const isExchangeRequest = (req: IncomingMessage): boolean => isPostTo(req, EXCHANGE_PATH);

/** RFC 8693 token exchange forwarded by oidc-core (domain/exchange.ts), behind the internal-call checks. */
export function tokenExchangeHandler(
  deps: ExchangeDeps & { tenantEnabled: TenantEnabledLookup },
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  return internalCallHandler(
    {
      name: 'token-exchange',
      schema: forwardedExchangeSchema,
      run: async (input) => {
        if (!(await deps.tenantEnabled(input.tenantId))) {
          const err = tenantDisabledError();
          deps.onDecision(
            { outcome: 'denied', error: 'access_denied', gate: 'tenant-disabled', description: err.message },
            input,
          );
          throw err;
        }
        return exchangeToken(deps, input);
      },
    },
    sidecarSecret,
    logger,
    fail,
  );
}
