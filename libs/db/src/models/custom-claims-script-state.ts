import { Schema } from 'mongoose';

/**
 * The circuit-breaker state of one client's customizeUserInfoClaims script, as oidc-core last reported it (written
 * when the breaker opens, half-opens or closes, and at most every few seconds on failures; never per call), read by
 * the management API. `scriptSha256` names the script the state is about: a state of a script since replaced is
 * stale. With several oidc-core replicas each keeps its own breaker; this is the latest report of any of them.
 */
export interface CustomClaimsScriptStateDoc {
  tenantId: number;
  clientId: string;
  /** SHA-256 (hex) of the script the state is about. */
  scriptSha256: string;
  state: 'closed' | 'open' | 'half_open';
  /** Timeouts and memory failures in a row. */
  consecutiveFailures: number;
  /** When the breaker last opened (while not closed). */
  openedAt?: Date;
  /** When the next call runs as a probe (while open). */
  retryAt?: Date;
  lastError?: { reason: string; message: string; at: Date };
  updatedAt: Date;
}

export const customClaimsScriptStateSchema = new Schema<CustomClaimsScriptStateDoc>(
  {
    tenantId: { type: Number, required: true },
    clientId: { type: String, required: true },
    scriptSha256: { type: String, required: true },
    state: { type: String, required: true, enum: ['closed', 'open', 'half_open'] },
    consecutiveFailures: { type: Number, required: true },
    openedAt: { type: Date },
    retryAt: { type: Date },
    lastError: { type: new Schema({ reason: String, message: String, at: Date }, { _id: false }) },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'custom_claims_script_states', versionKey: false },
);
customClaimsScriptStateSchema.index({ tenantId: 1, clientId: 1 }, { unique: true });
