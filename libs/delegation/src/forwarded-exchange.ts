import { z } from 'zod';

/**
 * The wire contract between oidc-core and the nhe-delegation sidecar: what oidc-core forwards after it has
 * authenticated the client and checked that the token-exchange grant is allowed for it.
 */
export const forwardedExchangeSchema = z
  .object({
    tenantId: z.number().int().nonnegative(),
    clientId: z.string().min(1).max(256),
    clientNumericId: z.number().int(),
    /** The RFC 8693 parameters as received (each at most once). */
    params: z.record(z.string(), z.string().optional()),
    /** The DPoP proof header, if any, with the method and URL it must be bound to. */
    dpop: z.object({ proof: z.string().max(8192), htm: z.string(), htu: z.string() }).optional(),
    /** The client's address, from the trusted proxy chain. */
    sourceIp: z.string().max(64),
  })
  .strict();

export type ForwardedExchange = z.infer<typeof forwardedExchangeSchema>;
