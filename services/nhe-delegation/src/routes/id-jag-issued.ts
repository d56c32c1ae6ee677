import type { IncomingMessage, ServerResponse } from 'node:http';
import { nheTokenIssuedSchema } from '@idp/events';
import type { Logger } from '@idp/logger';
import { recordIdJagIssuance, type IdJagIssuedDeps } from '../domain/id-jag-issued';
import { internalCallHandler, isPostTo, type ErrorResponder } from './internal-call';

export const ID_JAG_ISSUED_PATH = '/internal/id-jag-issued';

/** Is this the ID-JAG audit call (POST /internal/id-jag-issued, any query string)? */
export const isIdJagIssuedRequest = (req: IncomingMessage): boolean => isPostTo(req, ID_JAG_ISSUED_PATH);

/** Only ID-JAG issuances come this way: a delegation token's record is written where it is minted. */
const idJagIssuanceSchema = nheTokenIssuedSchema.refine(
  (e) => e.crossDomain?.direction === 'issued',
  'an ID-JAG issuance names its audience (crossDomain, direction issued)',
);

/**
 * The audit record of an ID-JAG oidc-core issued for an agent (domain/id-jag-issued.ts), behind the same internal-call
 * checks as token exchange (loopback, shared secret): 200 once JetStream stored it, 503 temporarily_unavailable if not.
 */
export function idJagIssuedHandler(
  deps: IdJagIssuedDeps,
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  return internalCallHandler(
    {
      name: 'id-jag-issued',
      schema: idJagIssuanceSchema,
      run: async (event) => ({ body: await recordIdJagIssuance(deps, event) }),
    },
    sidecarSecret,
    logger,
    fail,
  );
}
