import type { JsMsg, JetStreamClient } from '@nats-io/jetstream';
import {
  AUDIT_DEAD_LETTER_SUBJECT,
  auditSubject,
  headers as natsHeaders,
  nheTokenIssuedSchema,
  type NheTokenIssued,
} from '@idp/events';
import { isDuplicateKeyError } from '@idp/errors';
import { advanceChainHead, chainTail, linkRows, type Models, type TokenAuditDoc } from '@idp/db';
import type { Logger } from '@idp/logger';

export type WriteOutcome = 'written' | 'duplicate' | 'dead-letter' | 'retry';

export interface WriterDeps {
  models: Models;
  js: JetStreamClient;
  logger: Logger;
  /** Counts rows written, duplicates, dead-lettered and retried messages. */
  onOutcome?: (outcome: WriteOutcome, count: number) => void;
  /** Attempts to win a run of chain positions against other replicas before the batch is nak'ed. */
  maxChainAttempts?: number;
  /** Last link written per tenant by this process (main.ts keeps one for the process' life). */
  tails?: ChainTailCache;
}

/** Redelivery back-off of a nak: 1 s, 2 s, 4 s, ... up to 30 s, by delivery count. */
export const nakDelayMs = (deliveryCount: number) =>
  Math.min(30_000, 1000 * 2 ** Math.max(0, Math.min(deliveryCount - 1, 5)));

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
    ...(event.actorAuth ? { actorAuth: event.actorAuth } : {}),
    ...(event.parentJti ? { parentJti: event.parentJti, actorChain: event.actorChain ?? [] } : {}),
    ...(event.crossDomain ? { crossDomain: { ...event.crossDomain } } : {}),
    // A person's approval on their own device (CIBA): kept as sent, times as dates.
    ...(event.approval
      ? {
          approval: (({ authTime, approvedAt, ...rest }) => ({
            ...rest,
            approvedAt: new Date(approvedAt),
            ...(authTime ? { authTime: new Date(authTime) } : {}),
          }))(event.approval),
        }
      : {}),
  };
}

/** The event, or the reason it is not one (zod schema, and the subject must name the event's tenant). */
export function parseAuditMessage(subject: string, data: string): { event: NheTokenIssued } | { reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return { reason: 'not JSON' };
  }
  const result = nheTokenIssuedSchema.safeParse(json);
  if (!result.success)
    return {
      reason: result.error.issues
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')
        .slice(0, 500),
    };
  if (subject !== auditSubject(result.data.tenantId))
    return { reason: `subject ${subject} does not match tenantId ${result.data.tenantId}` };
  return { event: result.data };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The last link this writer appended per tenant; saves a read per batch (checked by the unique chain key). */
export type ChainTailCache = Map<number, { seq: number; hash: string }>;

/**
 * Appends rows (one tenant, in order) to the tenant's hash chain. The insert is ordered and both the jti and the
 * chain key `<tenant>:<seq>` are unique, so the first attempt goes straight to the insert after the cached (or
 * stored) tail. If it stops on a duplicate key (a jti already stored: redelivery or another replica got there
 * first; or a position another replica took), the rows before it are stored, stored jtis are dropped as
 * duplicates, and the rest is relinked after the tail re-read from the database and retried. Returns the count
 * written and the count of duplicates.
 */
export async function appendToChain(
  models: Models,
  tenantId: number,
  rows: TokenAuditDoc[],
  maxAttempts = 50,
  tails?: ChainTailCache,
): Promise<{ written: number; duplicates: number }> {
  const seen = new Set<string>();
  let pending = rows.filter((r) => (seen.has(r.jti) ? false : (seen.add(r.jti), true)));
  let duplicates = rows.length - pending.length;
  let written = 0;
  let lastSeq = 0;
  let tail = tails?.get(tenantId);
  for (let attempt = 1; pending.length; attempt++) {
    if (attempt > maxAttempts)
      throw new Error(
        `could not append ${pending.length} rows to the chain of tenant ${tenantId} after ${maxAttempts} attempts`,
      );
    if (attempt > 1) {
      const stored = await models.TokenAudit.find({ jti: { $in: pending.map((r) => r.jti) } }, { jti: 1, _id: 0 }).lean<
        Array<{ jti: string }>
      >();
      if (stored.length) {
        const storedJtis = new Set(stored.map((x) => x.jti));
        duplicates += stored.length;
        pending = pending.filter((r) => !storedJtis.has(r.jti));
        if (!pending.length) break;
      }
      tail = undefined;
    }
    tail ??= await chainTail(models, tenantId);
    const linked = linkRows(pending, tail);
    try {
      await models.TokenAudit.collection.insertMany(
        linked.map((r) => ({ ...r })),
        { ordered: true, writeConcern: { w: 'majority' } },
      );
      written += linked.length;
      const last = linked[linked.length - 1]!;
      lastSeq = last.seq!;
      tails?.set(tenantId, { seq: last.seq!, hash: last.hash! });
      pending = [];
    } catch (err) {
      tails?.delete(tenantId);
      if (!isDuplicateKeyError(err)) throw err;
      const index = (err as { writeErrors?: Array<{ index?: number }> }).writeErrors?.[0]?.index ?? 0;
      written += index;
      if (index > 0) lastSeq = linked[index - 1]?.seq ?? lastSeq;
      pending = pending.slice(index);
      // Lost a position to another replica (or a jti race): back off a little, with jitter, and relink.
      if (attempt > 1) await sleep(Math.floor(Math.random() * 10 * Math.min(attempt, 10)));
    }
  }
  if (lastSeq) await advanceChainHead(models, tenantId, lastSeq);
  return { written, duplicates };
}

/**
 * Copies a malformed message to the dead-letter subject (acknowledged by JetStream) and terminates it, never dropping
 * it silently; if that copy fails, the message is nak'ed to come again.
 */
export async function deadLetter(
  deps: Pick<WriterDeps, 'js' | 'logger'>,
  msg: JsMsg,
  reason: string,
): Promise<'dead-letter' | 'retry'> {
  try {
    const headers = natsHeaders();
    headers.set('Idp-Original-Subject', msg.subject);
    headers.set('Idp-Original-Sequence', String(msg.info.streamSequence));
    headers.set('Idp-Reason', reason.replace(/[\r\n]/g, ' '));
    await deps.js.publish(AUDIT_DEAD_LETTER_SUBJECT, msg.data, {
      headers,
      msgID: `dead-letter:${msg.info.stream}:${msg.info.streamSequence}`,
    });
    msg.term('malformed audit event');
    deps.logger.warn(
      { subject: msg.subject, seq: msg.info.streamSequence, reason },
      'malformed audit event moved to dead-letter subject',
    );
    return 'dead-letter';
  } catch (err) {
    deps.logger.error(
      { err: (err as Error).message },
      'could not dead-letter a malformed message; it will be redelivered',
    );
    msg.nak(nakDelayMs(msg.info.deliveryCount));
    return 'retry';
  }
}

/**
 * Writes one batch: valid events are appended to their tenants' chains (a duplicate jti counts as written, so
 * redelivery and several writer replicas are safe); each message is acked only after its row is stored with write
 * concern majority. Malformed messages are copied to the dead-letter subject (acknowledged by JetStream) and then
 * terminated, never dropped silently. If the database fails, the tenant's messages are nak'ed with a back-off that
 * grows with the delivery count.
 */
export async function writeBatch(deps: WriterDeps, msgs: JsMsg[]): Promise<void> {
  const byTenant = new Map<number, Array<{ msg: JsMsg; row: TokenAuditDoc }>>();
  for (const msg of msgs) {
    const parsed = parseAuditMessage(msg.subject, msg.string());
    if ('event' in parsed) {
      const list = byTenant.get(parsed.event.tenantId) ?? [];
      list.push({ msg, row: toAuditRow(parsed.event) });
      byTenant.set(parsed.event.tenantId, list);
      continue;
    }
    deps.onOutcome?.(await deadLetter(deps, msg, parsed.reason), 1);
  }

  await Promise.all(
    [...byTenant].map(async ([tenantId, items]) => {
      try {
        const { written, duplicates } = await appendToChain(
          deps.models,
          tenantId,
          items.map((i) => i.row),
          deps.maxChainAttempts,
          deps.tails,
        );
        deps.onOutcome?.('written', written);
        deps.onOutcome?.('duplicate', duplicates);
      } catch (err) {
        deps.logger.error(
          { tenantId, err: (err as Error).message, count: items.length },
          'audit insert failed; messages will be redelivered',
        );
        for (const { msg } of items) msg.nak(nakDelayMs(msg.info.deliveryCount));
        deps.onOutcome?.('retry', items.length);
        return;
      }
      // Every row of the tenant is stored: now ack. A plain ack, not a double ack: the writer would do nothing with
      // the server's confirmation (a lost ack only means a redelivery, which is a duplicate and stored once), and
      // the confirmation costs a request, its reply and an Error object per message (it showed in the
      // writer's CPU profile).
      for (const { msg } of items) msg.ack();
    }),
  );
}
