import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Counter } from 'prom-client';
import { forwardedCibaSchema } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { cibaToken, type CibaTokenDeps } from '../domain/ciba-token';
import type { RefusalFacts } from '../domain/refusal-publisher';
import { internalCallHandler, isPostTo, type ErrorResponder } from './internal-call';

export const CIBA_TOKEN_PATH = '/internal/ciba-token';

/** Is this the CIBA call (POST /internal/ciba-token, any query string)? */
export const isCibaTokenRequest = (req: IncomingMessage): boolean => isPostTo(req, CIBA_TOKEN_PATH);

/**
 * A backchannel authentication request's delegation (domain/ciba-token.ts): its check before the person is asked, its
 * token after they approved, their denial; for oidc-core alone, behind the same internal-call checks as token exchange.
 */
export function cibaTokenHandler(
  deps: CibaTokenDeps,
  sidecarSecret: string,
  logger: Logger,
  fail: ErrorResponder,
): (req: IncomingMessage, res: ServerResponse) => void {
  return internalCallHandler(
    {
      name: 'ciba-token',
      schema: forwardedCibaSchema,
      run: async (input) => ({ body: await cibaToken(deps, input) }),
    },
    sidecarSecret,
    logger,
    fail,
  );
}

/**
 * The decision log of the CIBA flow: the same counters as the other flows, refusals (including a person's denial,
 * gate `person-denied`) published as `flow: ciba`, and one log line per decision.
 */
export function cibaDecisionLog(o: {
  logger: Logger;
  decisions: Counter<'outcome' | 'error' | 'gate'>;
  refused: (facts: RefusalFacts) => void;
}): CibaTokenDeps['onDecision'] {
  const { decisions } = o;
  return (decision, input, nheIdentifier) => {
    const fields = {
      tenantId: input.tenantId,
      client_id: input.clientId.slice(0, 128),
      nhe: nheIdentifier,
      resource: input.resource.slice(0, 128),
      stage: input.stage,
      gty: 'urn:openid:params:grant-type:ciba',
      sourceIp: input.sourceIp,
    };
    if (decision.outcome === 'granted') {
      // The check before the person is asked is no issuance: only the mint counts as granted.
      if (input.stage === 'mint') decisions.inc({ outcome: 'granted', error: '', gate: '' });
      o.logger.info(
        {
          ...fields,
          decision: {
            outcome: decision.outcome,
            scopes: decision.scopes,
            ttl: decision.ttl,
            policyIds: decision.policyIds,
          },
        },
        input.stage === 'mint' ? 'ciba delegation granted' : 'ciba request allowed to ask the person',
      );
      return;
    }
    const gate = decision.outcome === 'denied' ? decision.gate : decision.stage;
    o.refused({
      tenantId: input.tenantId,
      outcome: decision.outcome,
      error: decision.error,
      gate,
      flow: 'ciba',
      clientId: input.clientId,
      ...(nheIdentifier ? { nheIdentifier } : {}),
    });
    decisions.inc({ outcome: decision.outcome, error: decision.error, gate });
    o.logger.info({ ...fields, decision }, 'ciba delegation refused');
  };
}
