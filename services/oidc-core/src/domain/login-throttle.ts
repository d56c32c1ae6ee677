/**
 * Failed sign-in limits per account name and per client IP, shared by every oidc-core replica through MongoDB.
 *
 * Each attempt first appends a record for each key (the name typed, as a digest, and the IP), then counts the
 * records inside the sliding window. Over the limit, the attempt is refused before any password or TOTP check and
 * its records are removed again (a locked account is not kept locked by further tries; it unlocks when its oldest
 * failure leaves the window). A failed check keeps the records; a successful one removes the account's records.
 * Counting records that are still in flight means N concurrent guesses cannot all slip under the limit.
 *
 * Why not rate-limiter-flexible's RateLimiterMongo: it counts with `findOneAndUpdate($inc, upsert)`, and
 * FerretDB (the local store) loses concurrent `$inc` updates (30 concurrent consumes left the counter at 3) and
 * refuses its TTL index. Inserts and counts are exact on both FerretDB and MongoDB.
 *
 * Keys never reveal whether an account exists: an unknown name is limited exactly like a real one.
 */
import { createHash } from 'node:crypto';
import type { Types } from 'mongoose';
import type { Models } from '@idp/db';

export interface LoginThrottleOptions {
  maxFailuresPerAccount: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = {
  maxFailuresPerAccount: 5,
  maxFailuresPerIp: 50,
  windowSeconds: 900,
};

export type AttemptOutcome = { allowed: true; attempt: LoginAttempt } | { allowed: false; retryAfterSeconds: number };

/** One sign-in attempt that passed the limits; report its result exactly once. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
  /** Neither: the step passed but sign-in is not complete (password right, TOTP pending). Earlier failures stay. */
  neutral(): Promise<void>;
}

export const accountKey = (name: string): string =>
  `acct:${createHash('sha256').update(name.normalize('NFC').toLowerCase()).digest('hex')}`;
export const ipKey = (ip: string): string => `ip:${ip}`;

export class LoginThrottle {
  constructor(
    private readonly models: Models,
    readonly options: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
    /** Milliseconds since the epoch; replaceable in tests to move through the window without waiting. */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records an attempt for `accountName` from `ip` and says whether it may be checked. */
  async begin(tenantId: number, accountName: string, ip: string): Promise<AttemptOutcome> {
    const { LoginFailure } = this.models;
    const now = new Date(this.clock());
    const windowStart = new Date(now.getTime() - this.options.windowSeconds * 1000);
    const expiresAt = new Date(now.getTime() + this.options.windowSeconds * 1000);
    const keys = [
      { key: accountKey(accountName), limit: this.options.maxFailuresPerAccount },
      { key: ipKey(ip), limit: this.options.maxFailuresPerIp },
    ];
    const inserted = await LoginFailure.insertMany(keys.map(({ key }) => ({ tenantId, key, at: now, expiresAt })));
    const ids = inserted.map((d) => d._id as Types.ObjectId);
    const counts = await Promise.all(
      keys.map(({ key }) => LoginFailure.countDocuments({ tenantId, key, at: { $gt: windowStart } })),
    );
    const over = keys.filter((k, i) => (counts[i] ?? 0) > k.limit);
    if (over.length) {
      await LoginFailure.deleteMany({ _id: { $in: ids } });
      const oldest = await Promise.all(
        over.map(({ key, limit }) =>
          LoginFailure.find({ tenantId, key, at: { $gt: windowStart } }, { at: 1 })
            .sort({ at: -1 })
            .skip(limit - 1)
            .limit(1)
            .lean(),
        ),
      );
      const unlockAt = Math.max(
        ...oldest.map((d) => (d[0]?.at.getTime() ?? now.getTime()) + this.options.windowSeconds * 1000),
      );
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((unlockAt - now.getTime()) / 1000)) };
    }
    let settled = false;
    return {
      allowed: true,
      attempt: {
        failed: () => {
          settled = true;
          return Promise.resolve();
        },
        neutral: async () => {
          if (settled) return;
          settled = true;
          await LoginFailure.deleteMany({ _id: { $in: ids } });
        },
        succeeded: async () => {
          if (settled) return;
          settled = true;
          // A successful sign-in clears the account's failures (not the IP's: one's own account must not reset them).
          await LoginFailure.deleteMany({ tenantId, key: keys[0]!.key });
          await LoginFailure.deleteMany({ _id: ids[1] });
        },
      },
    };
  }

  /** Removes expired records (MongoDB's TTL index does this too; FerretDB has none). */
  async sweep(): Promise<number> {
    const res = await this.models.LoginFailure.deleteMany({ expiresAt: { $lt: new Date(this.clock()) } });
    // The count is the store's own answer (`n`), which a MongoDB-compatible store might leave out.
    return (res.deletedCount as number | undefined) ?? 0;
  }
}
