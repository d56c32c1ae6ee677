import { Schema } from 'mongoose';

/**
 * Refusals of the delegation decision log, counted per tenant, UTC hour, NHE identifier, OAuth error code and gate
 * (the audit-writer adds to them with `$inc` upserts; the console's audit chart reads them). Best effort: the
 * sidecar publishes refusals fire-and-forget and drops them rather than delay a token response, so these are
 * counts, not a ledger (docs/reference/behaviour-decisions.md). Pruned with the token audit by audit-retention
 * (the tenant's auditRetentionDays).
 */
export interface TokenRefusalCounterDoc {
  tenantId: number;
  /** Start of the UTC hour. */
  hour: Date;
  /** The NHE the refused request authenticated or named from the registry; '' when it never got that far. */
  nheIdentifier: string;
  /** The OAuth error code answered (access_denied, invalid_scope, invalid_grant, ...). */
  error: string;
  /** The decision's gate that refused (denied) or the stage that failed (rejected). */
  gate: string;
  count: number;
  updatedAt: Date;
}

export const tokenRefusalCounterSchema = new Schema<TokenRefusalCounterDoc>(
  {
    tenantId: { type: Number, required: true },
    hour: { type: Date, required: true },
    nheIdentifier: { type: String, default: '' },
    error: { type: String, required: true },
    gate: { type: String, required: true },
    count: { type: Number, required: true, default: 0 },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'nhe_token_refusal_counters', versionKey: false },
);
// One counter per key: concurrent upserts of several writer replicas meet at this index (the loser retries).
tokenRefusalCounterSchema.index({ tenantId: 1, hour: 1, nheIdentifier: 1, error: 1, gate: 1 }, { unique: true });

/**
 * The refusal events already counted, by event id (`_id`): the writer inserts these before it adds to the counters,
 * so a redelivered event (a lost ack, another replica) is counted once. Pruned with the counters.
 */
export interface TokenRefusalEventDoc {
  _id: string;
  tenantId: number;
  at: Date;
}

export const tokenRefusalEventSchema = new Schema<TokenRefusalEventDoc>(
  {
    _id: { type: String, required: true },
    tenantId: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'nhe_token_refusal_events', versionKey: false },
);
tokenRefusalEventSchema.index({ tenantId: 1, at: 1 });
