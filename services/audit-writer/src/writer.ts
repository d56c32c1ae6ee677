import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import { AUDIT_DEAD_LETTER_SUBJECT, nheTokenIssuedSchema, type NheTokenIssued } from '@idp/events';
import { isDuplicateKeyError } from '@idp/errors';
import type { Models, TokenAuditDoc } from '@idp/db';
import type { Logger } from '@idp/logger';

export interface WriterDeps {
  models: Models;
  js: JetStreamClient;
  logger: Logger;
  /** Counts rows written, duplicates and dead-lettered messages. */
  onOutcome?: (outcome: 'written' | 'duplicate' | 'dead-letter' | 'retry', count: number) => void;
}

export function toAuditRow(event: NheTokenIssued): TokenAuditDoc {
  return {
    tenantId: event.tenantId,
    jti: event.jti,
    userId: event.userId,
    nheId: event.nheId,
    nheIdentifier: event.nheIdentifier,
    clientId: event.clientId,
    clientNumericId: event.clientNumericId,
    resourceServer: event.resourceServer,
    scopes: event.scopes,
    ttl: event.ttl,
    sourceIp: event.sourceIp,
    issuedAt: new Date(event.issuedAt),
    ...(event.dpopJkt ? { dpopJkt: event.dpopJkt } : {}),
  };
}

function parse(msg: JsMsg): NheTokenIssued | undefined {
  try {
    const result = nheTokenIssuedSchema.safeParse(JSON.parse(msg.string()));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes one batch: valid events are inserted in one unordered insertMany (a duplicate jti counts as written,
 * so redelivery and several writer replicas are safe); each message is acked only after its row is stored.
 * Malformed messages go to the dead-letter subject (acknowledged by JetStream) and are then terminated.
 * If the database fails, every message of the batch is nak'ed and comes back after a back-off.
 */
export async function writeBatch(deps: WriterDeps, msgs: JsMsg[]): Promise<void> {
  const valid: Array<{ msg: JsMsg; row: TokenAuditDoc }> = [];
  for (const msg of msgs) {
    const event = parse(msg);
    if (event) {
      valid.push({ msg, row: toAuditRow(event) });
      continue;
    }
    try {
      await deps.js.publish(AUDIT_DEAD_LETTER_SUBJECT, msg.data, {
        headers: undefined,
        msgID: `dead-letter:${msg.info.stream}:${msg.info.streamSequence}`,
      });
      msg.term('malformed audit event');
      deps.logger.warn({ subject: msg.subject, seq: msg.info.streamSequence }, 'malformed audit event moved to dead-letter subject');
      deps.onOutcome?.('dead-letter', 1);
    } catch (err) {
      deps.logger.error({ err }, 'could not dead-letter a malformed message; it will be redelivered');
      msg.nak(5000);
    }
  }
  if (!valid.length) return;

  let failedIndexes = new Set<number>();
  try {
    // The event schema (zod) is the validation: rows go to the driver as they are, so writeErrors' indexes
    // match `valid` and no row can be dropped silently by a second validator.
    await deps.models.TokenAudit.collection.insertMany(
      valid.map((v) => ({ ...v.row })),
      { ordered: false, writeConcern: { w: 'majority' } },
    );
    deps.onOutcome?.('written', valid.length);
  } catch (err) {
    const writeErrors = (err as { writeErrors?: Array<{ index?: number; code?: number; err?: { index?: number; code?: number } }> }).writeErrors;
    if (Array.isArray(writeErrors) && writeErrors.length) {
      const nonDuplicate = writeErrors.filter((w) => (w.code ?? w.err?.code) !== 11000);
      failedIndexes = new Set(nonDuplicate.map((w) => w.index ?? w.err?.index ?? -1));
      deps.onOutcome?.('duplicate', writeErrors.length - nonDuplicate.length);
      deps.onOutcome?.('written', valid.length - writeErrors.length);
      if (nonDuplicate.length) deps.logger.error({ count: nonDuplicate.length }, 'audit rows failed to insert; they will be redelivered');
    } else if (isDuplicateKeyError(err)) {
      deps.onOutcome?.('duplicate', valid.length);
    } else {
      deps.logger.error({ err: (err as Error).message }, 'audit insert failed; batch will be redelivered');
      for (const v of valid) v.msg.nak(2000);
      deps.onOutcome?.('retry', valid.length);
      return;
    }
  }
  valid.forEach((v, i) => (failedIndexes.has(i) ? v.msg.nak(2000) : v.msg.ack()));
}
