/**
 * TOTP second factor (RFC 6238 through otplib: SHA-1, 6 digits, 30-second steps, base32 secrets as authenticator
 * apps use them). A code is accepted for the current step or the one before (clock drift), and each time step
 * is accepted once per user: the last accepted step is stored and later codes must be newer (no replay).
 * Secrets are stored sealed with the key-encryption key for their tenant and user (@idp/tokens totp-secret.ts);
 * a value that does not open (another user's, another key's, or a legacy plain one) accepts no code.
 */
import { generate, verify } from 'otplib';
import type { Models } from '@idp/db';
import { isDuplicateKeyError } from '@idp/errors';
import type { Logger } from '@idp/logger';
import { openTotpSecret, type KeyEncryptionKey } from '@idp/tokens';

/** Previous step tolerated for clock drift and typing time (seconds). */
const PAST_TOLERANCE_SECONDS = 30;

export const TOTP_CODE = /^\d{6}$/;

/** Normalises what a person types ("123 456", "123-456") to six digits, or undefined. */
export function normaliseTotpCode(raw: string): string | undefined {
  const code = raw.replace(/[\s-]/g, '');
  return TOTP_CODE.test(code) ? code : undefined;
}

/** True when `code` is valid for `secret` now and newer than `lastTimeStep`; returns the matched step. */
export async function checkTotp(
  secret: string,
  code: string,
  lastTimeStep?: number,
  epochSeconds?: number,
): Promise<number | undefined> {
  try {
    const result = await verify({
      secret,
      token: code,
      ...(epochSeconds !== undefined ? { epoch: epochSeconds } : {}),
      epochTolerance: [PAST_TOLERANCE_SECONDS, 0],
      ...(lastTimeStep !== undefined ? { afterTimeStep: lastTimeStep } : {}),
    });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    // Malformed secret or token: not a valid code.
    return undefined;
  }
}

/** Longer than the window of steps a code is accepted in (the current and the previous 30 s step). */
const TOTP_STEP_MARKER_SECONDS = 120;

/**
 * Verifies a user's code and records its time step atomically, so two concurrent submissions of one code cannot
 * both succeed. Returns true when the code is accepted.
 */
export async function verifyUserTotp(
  models: Models,
  kek: KeyEncryptionKey,
  tenantId: number,
  userId: string,
  code: string,
  logger?: Logger,
): Promise<boolean> {
  const user = await models.User.findOne({ tenantId, _id: userId }, { totpSecret: 1, totpLastTimeStep: 1 }).lean();
  if (!user?.totpSecret) return false;
  let secret: string;
  try {
    secret = openTotpSecret(kek, tenantId, userId, user.totpSecret);
  } catch {
    // Never the value itself: the user must be enrolled again (management DELETE then POST .../totp).
    logger?.warn(
      { event: 'totp.secret_unreadable', tenantId, userId },
      'stored TOTP secret does not open with the key-encryption key; no code is accepted',
    );
    return false;
  }
  const step = await checkTotp(secret, code, user.totpLastTimeStep);
  if (step === undefined) return false;
  // One use per time step, enforced by a unique _id: atomic on MongoDB and on FerretDB alike (a conditional update
  // alone is not atomic on FerretDB). The marker outlives the steps the check accepts and is then swept.
  try {
    await models.OidcPayload.create({
      _id: `${tenantId}:TotpStep:${userId}:${step}`,
      tenantId,
      model: 'TotpStep',
      payload: '{}',
      expiresAt: new Date(Date.now() + TOTP_STEP_MARKER_SECONDS * 1000),
    });
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
  const previous = user.totpLastTimeStep;
  const res = await models.User.updateOne(
    {
      tenantId,
      _id: userId,
      ...(previous === undefined ? { totpLastTimeStep: { $exists: false } } : { totpLastTimeStep: previous }),
    },
    { $set: { totpLastTimeStep: step } },
  );
  return res.modifiedCount === 1;
}

/** The current code for a secret (tests and tooling). */
export function currentTotp(secret: string, epochSeconds?: number): Promise<string> {
  return generate({ secret, ...(epochSeconds !== undefined ? { epoch: epochSeconds } : {}) });
}
