import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardedExchangeSchema } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { exchangeToken, type ExchangeDeps } from '../domain/exchange';
import { internalCallHandler, isPostTo, type ErrorResponder } from './internal-call';

export const EXCHANGE_PATH = '/internal/token-exchange';

/** Is this the exchange call (POST /internal/token-exchange, any query string)? */
export const isExchangeRequest = (req: IncomingMessage): boolean => isPostTo(req, EXCHANGE_PATH);

/** RFC 8693 token exchange forwarded by oidc-core (domain/exchange.ts), behind the internal-call checks. */
export function tokenExchangeHandler(
  deps: ExchangeDeps,
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  return internalCallHandler(
    { name: 'token-exchange', schema: forwardedExchangeSchema, run: (input) => exchangeToken(deps, input) },
    sidecarSecret,
    logger,
    fail,
  );
}
