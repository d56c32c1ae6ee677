import { createHttpApp, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter } from 'prom-client';

/** The writer serves only health and metrics; `onOutcome` feeds its counters. */
export function createApp(deps: { logger: Logger; readiness: ReadinessCheck[] }) {
  const { app, registry } = createHttpApp({ service: 'audit-writer', logger: deps.logger, readiness: deps.readiness });
  const outcomes = new Counter({
    name: 'audit_writer_messages_total',
    help: 'Audit messages handled, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  app.use(oauthNotFound);
  return { app, registry, onOutcome: (outcome: string, count: number) => count > 0 && outcomes.inc({ outcome }, count) };
}
