import { createHttpApp, oauthErrorHandler, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter } from 'prom-client';
import type { ExchangeDeps } from './domain/exchange';
import { dpopNonces } from './domain/dpop-nonce';
import { tokenExchangeRoutes } from './routes/token-exchange';

export interface AppDeps extends Omit<ExchangeDeps, 'onDecision' | 'dpopNonces'> {
  logger: Logger;
  sidecarSecret: string;
  readiness: ReadinessCheck[];
}

export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({ service: 'nhe-delegation', logger: deps.logger, readiness: deps.readiness });
  const decisions = new Counter({
    name: 'nhe_token_exchange_decisions_total',
    help: 'NHE token-exchange outcomes: granted, denied (gate = the gate that refused) or rejected (gate = the stage that failed: parameters, subject-token, dpop, audit, client, internal)',
    labelNames: ['outcome', 'error', 'gate'],
    registers: [registry],
  });
  const narrowed = new Counter({
    name: 'nhe_token_exchange_scopes_removed_total',
    help: 'Requested scopes removed from granted NHE tokens, by the layer of the intersection that removed them',
    labelNames: ['layer'],
    registers: [registry],
  });
  const onDecision: ExchangeDeps['onDecision'] = (decision, input) => {
    // Never the tokens: only the NHE identifier (actor_token is a name, not a credential) and the resource.
    const log = deps.logger.child({ tenantId: input.tenantId, client_id: input.clientId, nhe: input.params.actor_token, resource: input.params.resource, sourceIp: input.sourceIp });
    if (decision.outcome === 'granted') {
      decisions.inc({ outcome: 'granted', error: '', gate: '' });
      for (const r of decision.removed) narrowed.inc({ layer: r.layer });
      log.info({ decision: { outcome: decision.outcome, scopes: decision.scopes, removed: decision.removed, ttl: decision.ttl, ttlSetBy: decision.ttlSetBy, ttlTerms: decision.ttlTerms, policyIds: decision.policyIds } }, 'delegation granted');
    } else if (decision.outcome === 'denied') {
      decisions.inc({ outcome: 'denied', error: decision.error, gate: decision.gate });
      log.info({ decision }, 'delegation denied');
    } else {
      decisions.inc({ outcome: 'rejected', error: decision.error, gate: decision.stage });
      if (decision.stage === 'internal' || decision.stage === 'audit') log.warn({ decision }, 'token exchange failed');
      else log.info({ decision }, 'token exchange rejected');
    }
  };
  app.use(tokenExchangeRoutes({ ...deps, onDecision, dpopNonces: dpopNonces(deps.sidecarSecret) }, deps.sidecarSecret));
  app.use(oauthNotFound);
  app.use(oauthErrorHandler(deps.logger));
  return { app, registry };
}
