/**
 * Per-tenant hash chain over token-audit rows (tamper evidence, not tamper proofing).
 *
 * Row n of tenant T stores seq = n, prevHash = hash of row n-1 (or of the retention anchor, or GENESIS_HASH for
 * n = 1) and hash = sha256(canonical fields of row n + prevHash). The chain key `<T>:<n>` is unique, so when several
 * writer replicas append at once exactly one wins each position and the others re-read the tail and retry: no
 * transactions are needed (FerretDB has none). Retention removes rows from the oldest end only and first records
 * the last pruned row's (seq, hash) as the tenant's anchor; verification starts from there. A counter document
 * `audit-chain-head:<T>` keeps the highest seq ever written, so deleting the newest rows is detected too.
 */
import { createHash } from 'node:crypto';
import { isDuplicateKeyError } from '@idp/errors';
import { upsertRacing } from './ids';
import type { Models } from './models';
import type { AuditChainAnchorDoc, TokenAuditDoc } from './models/schemas';

export const GENESIS_HASH = '0'.repeat(64);

export const chainKey = (tenantId: number, seq: number) => `${tenantId}:${seq}`;
export const chainHeadId = (tenantId: number) => `audit-chain-head:${tenantId}`;

/**
 * The fields the hash covers, in a fixed order (an array, so key order can never change the hash). A row that records
 * how its actor was authenticated (named, key or workload) covers it too, in a fixed order before prevHash, and so does
 * a row of a delegation chain (its parent jti and actor chain); rows without them hash exactly as before, so older
 * chains still verify.
 */
export function canonicalAuditRow(row: TokenAuditDoc, seq: number, prevHash: string): string {
  const a = row.actorAuth;
  return JSON.stringify([
    'nhe-token-audit/v1',
    row.tenantId,
    seq,
    row.jti,
    row.userId,
    row.nheId,
    row.nheIdentifier,
    row.clientId,
    row.clientNumericId,
    row.resourceServer,
    row.scopes,
    row.ttl,
    row.sourceIp,
    new Date(row.issuedAt).toISOString(),
    row.dpopJkt ?? null,
    ...(a ? [['actor', a.method, a.jkt ?? null, a.issuer ?? null, a.subject ?? null, a.jti ?? null]] : []),
    // A token exchanged from another NHE token (a delegation chain): its parent and its whole actor chain.
    ...(row.parentJti !== undefined
      ? [['chain', row.parentJti, (row.actorChain ?? []).map((c) => [c.nheIdentifier, c.method])]]
      : []),
    // A token that crossed an organisation boundary: which way, the other party, and what the assertion said.
    ...(row.crossDomain !== undefined
      ? [
          [
            'cross-domain',
            row.crossDomain.direction,
            row.crossDomain.peer,
            row.crossDomain.assertionJti ?? null,
            row.crossDomain.subject ?? null,
            row.crossDomain.actor ?? null,
            // Only when present: rows written before it hash as they always did.
            ...(row.crossDomain.actors !== undefined ? [row.crossDomain.actors] : []),
          ],
        ]
      : []),
    // A token a person approved on their own device (CIBA): the request, what they approved, when and how they had
    // signed in. Only when present: rows without it hash as they always did.
    ...(row.approval !== undefined
      ? [
          [
            'approval',
            row.approval.requestId,
            new Date(row.approval.approvedAt).toISOString(),
            row.approval.authorizationDetails ?? null,
            row.approval.bindingMessage ?? null,
            row.approval.authTime ? new Date(row.approval.authTime).toISOString() : null,
            row.approval.amr ?? null,
            row.approval.acr ?? null,
          ],
        ]
      : []),
    prevHash,
  ]);
}

export function auditRowHash(row: TokenAuditDoc, seq: number, prevHash: string): string {
  return createHash('sha256')
    .update(canonicalAuditRow(row, seq, prevHash))
    .digest('hex');
}

/** Links `rows` after (tailSeq, tailHash): returns them with seq, prevHash, hash and chainKey set. */
export function linkRows(rows: TokenAuditDoc[], tail: { seq: number; hash: string }): TokenAuditDoc[] {
  let { seq, hash } = tail;
  return rows.map((row) => {
    seq += 1;
    const prevHash = hash;
    hash = auditRowHash(row, seq, prevHash);
    return { ...row, seq, prevHash, hash, chainKey: chainKey(row.tenantId, seq) };
  });
}

/** The last link of a tenant's chain: its newest row, else the retention anchor, else genesis. */
export async function chainTail(models: Models, tenantId: number): Promise<{ seq: number; hash: string }> {
  const last = await models.TokenAudit.findOne({ tenantId, seq: { $gte: 1 } }, { seq: 1, hash: 1 })
    .sort({ seq: -1 })
    .lean<{ seq: number; hash: string }>();
  if (last) return { seq: last.seq, hash: last.hash };
  const anchor = await models.AuditChainAnchor.findById(tenantId).lean<AuditChainAnchorDoc>();
  return anchor ? { seq: anchor.seq, hash: anchor.hash } : { seq: 0, hash: GENESIS_HASH };
}

/** Records the highest seq written (never lowered). */
export async function advanceChainHead(models: Models, tenantId: number, seq: number): Promise<void> {
  // Two writers may create the head at once: the loser applies $max to the document the winner inserted.
  await upsertRacing(() =>
    models.Counter.updateOne({ _id: chainHeadId(tenantId) }, { $max: { seq } }, { upsert: true }).exec(),
  );
}

/** Records that retention pruned the chain up to (seq, hash); never moves the anchor backwards. */
export async function advanceChainAnchor(
  models: Models,
  tenantId: number,
  seq: number,
  hash: string,
  now = new Date(),
): Promise<void> {
  try {
    await models.AuditChainAnchor.updateOne(
      { _id: tenantId, seq: { $lt: seq } },
      { $set: { seq, hash, prunedAt: now } },
      { upsert: true },
    );
  } catch (err) {
    // Upsert hit the existing anchor that is already at or past seq: nothing to do.
    if (!isDuplicateKeyError(err)) throw err;
  }
}

export type ChainProblemKind = 'missing' | 'altered' | 'broken-link' | 'truncated';

export interface ChainProblem {
  kind: ChainProblemKind;
  /** First and last seq concerned (equal for a single row). */
  fromSeq: number;
  toSeq: number;
  jti?: string;
}

export interface ChainVerification {
  tenantId: number;
  valid: boolean;
  /** Rows whose hash and link were checked. */
  checked: number;
  firstSeq: number | null;
  lastSeq: number | null;
  /** Where retention pruned up to (verification of the oldest rows starts after it). */
  anchor: { seq: number; hash: string; prunedAt: string } | null;
  headSeq: number;
  problems: ChainProblem[];
  /** True when more than `maxProblems` problems were found and the list was cut. */
  problemsTruncated: boolean;
}

export interface VerifyOptions {
  /** Rows issued at or after this instant (default: from the start of the chain). */
  from?: Date;
  /** Rows issued at or before this instant (default: up to the head, which also detects a truncated tail). */
  to?: Date;
  batchSize?: number;
  maxProblems?: number;
}

type ChainRow = TokenAuditDoc & { seq: number };

/**
 * Verifies a tenant's chain over the rows issued in [from, to], walking them in seq order. Reports gaps
 * (deleted rows), rows whose content no longer matches their hash (altered), rows whose prevHash does not match
 * the previous row's hash (re-hashed or re-ordered rows), and rows deleted from the newest end (truncated).
 */
export async function verifyAuditChain(
  models: Models,
  tenantId: number,
  o: VerifyOptions = {},
): Promise<ChainVerification> {
  const batchSize = o.batchSize ?? 1000;
  const maxProblems = o.maxProblems ?? 100;
  const anchorDoc = await models.AuditChainAnchor.findById(tenantId).lean<AuditChainAnchorDoc>();
  const head = await models.Counter.findById(chainHeadId(tenantId)).lean<{ seq: number }>();
  const baseSeq = anchorDoc?.seq ?? 0;
  const result: ChainVerification = {
    tenantId,
    valid: true,
    checked: 0,
    firstSeq: null,
    lastSeq: null,
    anchor: anchorDoc
      ? { seq: anchorDoc.seq, hash: anchorDoc.hash, prunedAt: new Date(anchorDoc.prunedAt).toISOString() }
      : null,
    headSeq: head?.seq ?? 0,
    problems: [],
    problemsTruncated: false,
  };
  const report = (p: ChainProblem) => {
    result.valid = false;
    if (result.problems.length < maxProblems) result.problems.push(p);
    else result.problemsTruncated = true;
  };

  const issued: Record<string, Date> = {};
  if (o.from) issued.$gte = o.from;
  if (o.to) issued.$lte = o.to;
  const inRange = { tenantId, seq: { $gt: baseSeq }, ...(o.from || o.to ? { issuedAt: issued } : {}) };
  // The seq bounds of the rows issued in the range (issuedAt and seq order agree up to delivery delays).
  const first = o.from
    ? await models.TokenAudit.findOne(inRange, { seq: 1 }).sort({ seq: 1 }).lean<{ seq: number }>()
    : { seq: baseSeq + 1 };
  const last = o.to
    ? await models.TokenAudit.findOne(inRange, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>()
    : null;
  if (o.from && !first) {
    // No row issued in the range: only the newest end can still be checked.
    const newest = await models.TokenAudit.findOne({ tenantId, seq: { $gte: 1 } }, { seq: 1 })
      .sort({ seq: -1 })
      .lean<{ seq: number }>();
    const tailSeq = Math.max(newest?.seq ?? 0, baseSeq);
    if (!o.to && result.headSeq > tailSeq) report({ kind: 'truncated', fromSeq: tailSeq + 1, toSeq: result.headSeq });
    return result;
  }
  const startSeq = first?.seq ?? baseSeq + 1;
  const endSeq = o.to ? (last?.seq ?? startSeq - 1) : Number.MAX_SAFE_INTEGER;

  // The link into the range: the anchor / genesis, or the row just before it.
  let prev: { seq: number; hash: string } | null;
  if (startSeq === baseSeq + 1)
    prev = anchorDoc ? { seq: anchorDoc.seq, hash: anchorDoc.hash } : { seq: 0, hash: GENESIS_HASH };
  else {
    const before = await models.TokenAudit.findOne({ tenantId, seq: startSeq - 1 }, { seq: 1, hash: 1 }).lean<{
      seq: number;
      hash: string;
    }>();
    prev = before ?? null;
    if (!before) report({ kind: 'missing', fromSeq: startSeq - 1, toSeq: startSeq - 1 });
  }
  let expectedSeq = startSeq;
  let cursor = startSeq - 1;
  for (;;) {
    const rows = await models.TokenAudit.find({ tenantId, seq: { $gt: cursor, $lte: endSeq } })
      .sort({ seq: 1 })
      .limit(batchSize)
      .lean<ChainRow[]>();
    for (const row of rows) {
      if (row.seq > expectedSeq) {
        report({ kind: 'missing', fromSeq: expectedSeq, toSeq: row.seq - 1 });
        prev = null;
      }
      if (auditRowHash(row, row.seq, row.prevHash ?? '') !== row.hash)
        report({ kind: 'altered', fromSeq: row.seq, toSeq: row.seq, jti: row.jti });
      if (prev && row.prevHash !== prev.hash)
        report({ kind: 'broken-link', fromSeq: row.seq, toSeq: row.seq, jti: row.jti });
      result.firstSeq ??= row.seq;
      result.lastSeq = row.seq;
      result.checked += 1;
      prev = { seq: row.seq, hash: row.hash ?? '' };
      expectedSeq = row.seq + 1;
      cursor = row.seq;
    }
    if (rows.length < batchSize) break;
  }
  if (!o.to && result.headSeq >= expectedSeq)
    report({ kind: 'truncated', fromSeq: expectedSeq, toSeq: result.headSeq });
  return result;
}
