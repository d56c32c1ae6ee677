import { createHttpApp, oauthNotFound, type ReadinessCheck } from '@idp/http';
import type { Logger } from '@idp/logger';
import { Counter, Gauge } from 'prom-client';

export interface ConsumerLag {
  pending: number;
  ackPending: number;
  redelivered: number;
}

/**
 * The writer serves only health and metrics; `onOutcome` feeds its counters. `lag` is read at scrape time from
 * the durable consumer (num_pending = consumer lag, num_ack_pending = in flight).
 */
export function createApp(deps: { logger: Logger; readiness: ReadinessCheck[]; lag?: () => Promise<ConsumerLag> }) {
  const { app, registry } = createHttpApp({ service: 'audit-writer', logger: deps.logger, readiness: deps.readiness });
  const outcomes = new Counter({
    name: 'audit_writer_messages_total',
    help: 'Audit messages handled, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'audit_writer_refusal_messages_total',
    help: 'Refusal events of the decision log handled, by outcome: counted, duplicate (counted before), dead-letter, retry',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const lag = deps.lag;
  if (lag) {
    let last: Promise<ConsumerLag | undefined> | undefined;
    const read = () =>
      (last ??= lag()
        .catch(() => undefined)
        .finally(() => setTimeout(() => (last = undefined), 1000)));
    new Gauge({
      name: 'audit_writer_consumer_pending_messages',
      help: 'Consumer lag: audit events in the stream not yet delivered to the writer (JetStream num_pending)',
      registers: [registry],
      async collect() {
        const v = await read();
        if (v) this.set(v.pending);
      },
    });
    new Gauge({
      name: 'audit_writer_consumer_ack_pending_messages',
      help: 'Audit events delivered but not yet acknowledged (JetStream num_ack_pending)',
      registers: [registry],
      async collect() {
        const v = await read();
        if (v) this.set(v.ackPending);
      },
    });
    new Gauge({
      name: 'audit_writer_consumer_redelivered_messages',
      help: 'Audit events currently being redelivered (JetStream num_redelivered)',
      registers: [registry],
      async collect() {
        const v = await read();
        if (v) this.set(v.redelivered);
      },
    });
  }
  app.use(oauthNotFound);
  return {
    app,
    registry,
    onOutcome: (outcome: string, count: number) => count > 0 && outcomes.inc({ outcome }, count),
    onRefusalOutcome: (outcome: string, count: number) => count > 0 && refusals.inc({ outcome }, count),
  };
}
