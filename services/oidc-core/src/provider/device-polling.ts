import type Provider from 'oidc-provider';
import type { Models } from '@idp/db';

/** RFC 8628 section 3.5: clients poll no faster than this unless told otherwise (our device responses omit `interval`). */
export const DEVICE_POLL_INTERVAL_SECONDS = 5;

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * node-oidc-provider answers every early poll with `authorization_pending` and never with `slow_down`. This
 * middleware turns a pending answer into `slow_down` when the same device code was polled less than the interval
 * ago. The last-poll time is kept on the device code's record in MongoDB (one atomic conditional update), so the
 * rule holds across replicas.
 */
export function enforceDevicePollingInterval(
  provider: Provider,
  models: Models,
  tenantId: number,
  intervalSeconds = DEVICE_POLL_INTERVAL_SECONDS,
): void {
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: string } | undefined;
    if (ctx.status !== 400 || body?.error !== 'authorization_pending') return;
    const params = (ctx as unknown as { oidc?: { params?: { grant_type?: unknown; device_code?: unknown } } }).oidc
      ?.params;
    if (params?.grant_type !== DEVICE_GRANT || typeof params.device_code !== 'string') return;
    const now = Date.now();
    const _id = `${tenantId}:DeviceCode:${params.device_code}`;
    try {
      // One conditional update: matches only when the previous poll is old enough (or there was none).
      const inTime = await models.OidcPayload.updateOne(
        {
          _id,
          $or: [
            { lastPolledAt: { $exists: false } },
            { lastPolledAt: { $lte: new Date(now - intervalSeconds * 1000) } },
          ],
        },
        { $set: { lastPolledAt: new Date(now) } },
      );
      if (inTime.matchedCount > 0) return;
      // Too early: remember this poll too, so a client that keeps hammering keeps getting slow_down.
      await models.OidcPayload.updateOne({ _id }, { $set: { lastPolledAt: new Date(now) } });
    } catch {
      return; // the store hiccuped: authorization_pending is still a correct answer
    }
    ctx.body = {
      error: 'slow_down',
      error_description: `polling too quickly; wait at least ${intervalSeconds} seconds between requests`,
    };
  });
}
