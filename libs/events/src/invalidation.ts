import { z } from 'zod';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Configuration invalidation: when the management API changes a tenant, a client, a resource server,
 * signing keys, an NHE or a delegation policy, it publishes one message on `idp.config.invalidate.<tenantId>`
 * (core NATS: fan-out to every replica, at most once). oidc-core evicts the tenant's provider from its pool; the
 * sidecar drops the tenant's cached keys. A missed message (subscriber disconnected) is covered by the caches'
 * short TTLs, so the event only makes changes visible sooner; it is never needed for correctness.
 *
 * Kind `grant` comes from oidc-core when one of node-oidc-provider's grants ends (refresh token revoked, sign-out,
 * a dynamically registered client deleted): `id` is the grant id, absent for "every grant of the tenant". Sidecars
 * that cache grant lookups (GRANT_CACHE_TTL_MS) drop it; nothing else changes.
 */
export const INVALIDATION_SUBJECT_PREFIX = 'idp.config.invalidate';
export const INVALIDATION_SUBJECT_WILDCARD = `${INVALIDATION_SUBJECT_PREFIX}.*`;
export const invalidationSubject = (tenantId: number) => `${INVALIDATION_SUBJECT_PREFIX}.${tenantId}`;

export const INVALIDATION_KINDS = [
  'tenant',
  'client',
  'resource-server',
  'keys',
  'nhe',
  'policy',
  'user',
  'group',
  'role',
  'grant',
] as const;
export type InvalidationKindName = (typeof INVALIDATION_KINDS)[number];

export const invalidationEventSchema = z
  .object({
    tenantId: z.number().int().nonnegative(),
    kind: z.enum(INVALIDATION_KINDS),
    /** Id of the changed resource, when there is one. */
    id: z.string().max(256).optional(),
    at: z.iso.datetime(),
  })
  .strict();

export type InvalidationEvent = z.infer<typeof invalidationEventSchema>;

/** Publishes one invalidation; resolves once the server has it (flush). */
export async function publishInvalidation(
  nc: NatsConnection,
  e: { tenantId: number; kind: InvalidationKindName; id?: string },
): Promise<void> {
  const event = invalidationEventSchema.parse({ ...e, at: new Date().toISOString() });
  nc.publish(invalidationSubject(event.tenantId), JSON.stringify(event));
  await nc.flush();
}

/** Subscribes to every tenant's invalidations; malformed messages go to onInvalid and are otherwise ignored. */
export function subscribeInvalidations(
  nc: NatsConnection,
  onEvent: (e: InvalidationEvent) => void,
  options: { onInvalid?: (err: unknown) => void } = {},
): { unsubscribe(): void } {
  const sub = nc.subscribe(INVALIDATION_SUBJECT_WILDCARD, {
    callback: (err, msg) => {
      if (err) {
        options.onInvalid?.(err);
        return;
      }
      try {
        onEvent(invalidationEventSchema.parse(msg.json()));
      } catch (e) {
        options.onInvalid?.(e);
      }
    },
  });
  return { unsubscribe: () => sub.unsubscribe() };
}
