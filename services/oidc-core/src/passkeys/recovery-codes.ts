/**
 * Recovery codes: ten random codes made when a user first enrols a passkey, shown once, stored as scrypt digests
 * (RFC 7914) salted with the tenant and user: about 50 bits of entropy each is too little for a fast unsalted hash,
 * where one pass over guesses would test every stored code of every user at once (a leaked database would open
 * accounts); salted per user and slow, a guess costs a memory-hard hash for one account.
 * A code signs in once in place of a passkey (it is deleted atomically as it is used) and the sign-in then tells the
 * user to enrol a passkey again. A recovery sign-in is one factor, something the user has written down: it records an
 * empty amr (no value of RFC 8176 describes a printed code, and `pwd` would say a password was used) and the
 * single-factor acr `urn:idp:acr:pwd`.
 */
import { createHash, randomInt, scrypt } from 'node:crypto';
import type { Models } from '@idp/db';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** scrypt cost (N=2^14, r=8: about 16 MiB and a few tens of ms per code; a sign-in attempt checks one). */
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

const normalise = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');
/** Deterministic per user (the salt names tenant and user), so a code is found by its digest and deleted at once. */
const digest = (tenantId: number, userId: string, code: string) =>
  new Promise<string>((resolve, reject) => {
    const salt = createHash('sha256').update(`idp-recovery:${tenantId}:${userId}`).digest();
    scrypt(normalise(code), salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key.toString('hex'))));
  });

/** New codes for the user (replacing any earlier ones): the codes themselves, to show once. */
export async function newRecoveryCodes(models: Models, tenantId: number, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  await models.PasskeyRecoveryCode.deleteMany({ tenantId, userId });
  const digests = await Promise.all(codes.map((c) => digest(tenantId, userId, c)));
  await models.PasskeyRecoveryCode.insertMany(digests.map((d) => ({ tenantId, userId, digest: d })));
  return codes;
}

export async function hasRecoveryCodes(models: Models, tenantId: number, userId: string): Promise<boolean> {
  return (await models.PasskeyRecoveryCode.countDocuments({ tenantId, userId }).limit(1)) > 0;
}

/** Uses one code of the user up; true when it was theirs and unused. */
export async function useRecoveryCode(
  models: Models,
  tenantId: number,
  userId: string,
  code: string,
): Promise<boolean> {
  const n = normalise(code);
  if (n.length !== 10) return false;
  const d = await digest(tenantId, userId, code);
  return Boolean(await models.PasskeyRecoveryCode.findOneAndDelete({ tenantId, userId, digest: d }).lean());
}

/**
 * The same hash for a name that has no (enabled) account, so that a refusal takes as long either way and the answer's
 * timing does not tell which names exist (as the password check compares against a dummy hash).
 */
export async function refuseRecoveryCode(code: string): Promise<false> {
  await digest(0, '', code);
  return false;
}

export async function remainingRecoveryCodes(models: Models, tenantId: number, userId: string): Promise<number> {
  return models.PasskeyRecoveryCode.countDocuments({ tenantId, userId });
}
