import { randomUUID } from 'node:crypto';
import type { NheTokenRefused, RefusalFlow } from '@idp/events';

/** Why a refusal event was not published: too many still in flight, or JetStream refused or timed out. */
export type RefusalDropReason = 'queue-full' | 'publish-failed';

export interface RefusalPublisherOptions {
  /** Publishes one event and resolves on JetStream's ack (main.ts: Nats-Msg-Id = the event id). */
  publish: (event: NheTokenRefused) => Promise<void>;
  /** Publishes in flight at once; past it new refusals are dropped (counted), never queued behind a slow server. */
  maxInFlight: number;
  onDropped: (reason: RefusalDropReason) => void;
}

export interface RefusalFacts {
  tenantId: number;
  outcome: 'denied' | 'rejected';
  error: string;
  gate: string;
  flow: RefusalFlow;
  clientId: string;
  nheIdentifier?: string;
}

/**
 * Fire-and-forget: the refusal is handed to JetStream and the caller goes on at once (the token response never waits
 * for it, and a failure never reaches it). At most `maxInFlight` publishes are pending; a refusal past that, or one
 * JetStream does not acknowledge, is dropped and counted. Best effort by design: the decision log's refusals are
 * counts for the console, not the audit ledger of issued tokens (which is published and acknowledged before issuing).
 */
export function refusalPublisher(o: RefusalPublisherOptions): (facts: RefusalFacts, at?: Date) => void {
  let inFlight = 0;
  return (facts, at = new Date()) => {
    if (inFlight >= o.maxInFlight) {
      o.onDropped('queue-full');
      return;
    }
    const event: NheTokenRefused = {
      type: 'nhe.token.refused',
      id: randomUUID(),
      tenantId: facts.tenantId,
      outcome: facts.outcome,
      error: /^[a-z_]{1,64}$/.test(facts.error) ? facts.error : 'server_error',
      gate: /^[a-z0-9-]{1,64}$/.test(facts.gate) ? facts.gate : 'unknown',
      flow: facts.flow,
      clientId: facts.clientId.slice(0, 2048) || '(unknown)',
      ...(facts.nheIdentifier ? { nheIdentifier: facts.nheIdentifier.slice(0, 256) } : {}),
      at: at.toISOString(),
    };
    inFlight += 1;
    let sent: Promise<void>;
    try {
      sent = o.publish(event);
    } catch {
      sent = Promise.reject(new Error('publish threw'));
    }
    sent.then(
      () => {
        inFlight -= 1;
      },
      () => {
        inFlight -= 1;
        o.onDropped('publish-failed');
      },
    );
  };
}
