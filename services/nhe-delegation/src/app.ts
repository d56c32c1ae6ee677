import { createHttpApp, oauthErrorHandler, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter } from 'prom-client';
import type { ExchangeDeps } from './domain/exchange';
import { tokenExchangeRoutes } from './routes/token-exchange';

export interface AppDeps extends Omit<ExchangeDeps, 'onDecision'> {
  logger: Logger;
  sidecarSecret: string;
  readiness: ReadinessCheck[];
}

export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({ service: 'nhe-delegation', logger: deps.logger, readiness: deps.readiness });
  const decisions = new Counter({
    name: 'nhe_token_exchange_decisions_total',
    help: 'NHE token-exchange decisions by outcome and the gate that refused',
    labelNames: ['outcome', 'error', 'gate'],
    registers: [registry],
  });
  const onDecision: ExchangeDeps['onDecision'] = (decision, input) => {
    const log = deps.logger.child({ tenantId: input.tenantId, client_id: input.clientId });
    if (decision.outcome === 'granted') {
      decisions.inc({ outcome: 'granted', error: '', gate: '' });
      log.info({ decision: { outcome: decision.outcome, scopes: decision.scopes, removed: decision.removed, ttl: decision.ttl, ttlSetBy: decision.ttlSetBy } }, 'delegation granted');
    } else if (decision.outcome === 'denied') {
      decisions.inc({ outcome: 'denied', error: decision.error, gate: decision.gate });
      log.info({ decision }, 'delegation denied');
    } else {
      decisions.inc({ outcome: 'rejected', error: decision.error, gate: '' });
      log.info({ decision }, 'token exchange rejected');
    }
  };
  app.use(tokenExchangeRoutes({ ...deps, onDecision }, deps.sidecarSecret));
  app.use(oauthNotFound);
  app.use(oauthErrorHandler(deps.logger));
  return { app, registry };
}
