import { Schema } from 'mongoose';

/**
 * A one-time password reset an administrator started for a user: the link's secret is shown once (to hand to the
 * person out of band) and stored only as its SHA-256 digest, so a copy of the store opens no account. The link works
 * once, until `expiresAt`, and only for the user it was made for; a newer link replaces older ones.
 */
export interface PasswordResetDoc {
  tenantId: number;
  userId: string;
  /** SHA-256 of the link's secret (hex). */
  digest: string;
  expiresAt: Date;
  /** Who made it (the management caller's client id), for the audit trail. */
  createdBy: string;
  createdAt: Date;
}

export const passwordResetSchema = new Schema<PasswordResetDoc>(
  {
    tenantId: { type: Number, required: true },
    userId: { type: String, required: true },
    digest: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    createdBy: { type: String, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, collection: 'password_resets', versionKey: false },
);
passwordResetSchema.index({ digest: 1 }, { unique: true });
passwordResetSchema.index({ tenantId: 1, userId: 1 });
