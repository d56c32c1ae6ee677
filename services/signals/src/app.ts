import { createHttpApp, oauthErrorHandler, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter } from 'prom-client';
import { ssfRoutes, type SsfRouteDeps } from './routes/ssf';

export interface AppDeps extends SsfRouteDeps {
  logger: Logger;
  readiness: ReadinessCheck[];
  trustProxy: boolean;
}

/**
 * The transmitter's HTTP app: SSF metadata, stream management and poll (routes/ssf.ts), health and metrics. Errors
 * are OAuth JSON (`{error, error_description}`), token refusals carry their RFC 6750 / RFC 9449 challenge.
 */
export function createApp(deps: AppDeps) {
  const { app, registry } = createHttpApp({
    service: 'signals',
    logger: deps.logger,
    readiness: deps.readiness,
    trustProxy: deps.trustProxy ? 1 : false,
  });
  const written = new Counter({
    name: 'signals_events_written_total',
    help: 'Security Event Tokens written into streams',
    registers: [registry],
  });
  const pushed = new Counter({
    name: 'signals_push_total',
    help: 'Push deliveries by outcome (delivered, rejected, failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  app.use(ssfRoutes(deps));
  app.use(oauthNotFound);
  app.use(oauthErrorHandler(deps.logger));
  return {
    app,
    registry,
    onWritten: (n: number) => n > 0 && written.inc(n),
    onPush: (outcome: string) => pushed.inc({ outcome }),
  };
}
