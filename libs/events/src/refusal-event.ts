import { z } from 'zod';

/**
 * Refusals of the delegation decision log: one compact event per token request the nhe-delegation sidecar refused
 * (a denied delegation decision, or a request rejected before or after it), published fire-and-forget on the audit
 * stream (IDP_AUDIT) under their own subjects, consumed by the audit-writer into hourly counters. Best effort: an
 * event the sidecar could not publish is dropped and counted, never retried at the cost of a token response.
 * Never a token, a secret or a caller's free text: only the tenant, the NHE the request authenticated (when it got
 * that far), the client, the RFC 6749 / RFC 8693 error code and where the refusal happened.
 */
export const REFUSAL_SUBJECT_PREFIX = 'idp.audit.nhe.refused';
export const REFUSAL_SUBJECT_WILDCARD = `${REFUSAL_SUBJECT_PREFIX}.*`;
/** The audit-writer's durable consumer of refusals (separate from the issuance consumer, whose lag it leaves alone). */
export const REFUSAL_WRITER_DURABLE = 'audit-writer-refusals';
/**
 * Refusals travel in a stream of their own, bounded in bytes and age, discarding the oldest: a client that makes
 * refused requests as fast as it can fills this one and loses counts, never the issuance audit stream that every
 * token waits on.
 */
export const REFUSAL_STREAM = 'IDP_REFUSALS';

export const refusalSubject = (tenantId: number) => `${REFUSAL_SUBJECT_PREFIX}.${tenantId}`;

/**
 * The flows of the sidecar that refuse: RFC 8693 token exchange, an agent client's token (code, device, jwt-bearer), or a
 * backchannel authentication request (CIBA: refused before the person is asked, denied by the person, or at minting).
 */
export type RefusalFlow = 'token-exchange' | 'agent-token' | 'ciba';

export const nheTokenRefusedSchema = z
  .object({
    type: z.literal('nhe.token.refused'),
    /** Unique per refusal (a UUID): the JetStream message id and the writer's de-duplication key. */
    id: z.string().min(8).max(64),
    tenantId: z.number().int().nonnegative(),
    /** denied: the delegation decision refused; rejected: the request failed outside the decision. */
    outcome: z.enum(['denied', 'rejected']),
    /** The OAuth error code answered (RFC 6749 section 5.2, RFC 8693 section 2.2.2, RFC 9449): a closed, short token. */
    error: z.string().regex(/^[a-z_]{1,64}$/),
    /** The gate of the decision that refused (denied) or the stage that failed (rejected). */
    gate: z.string().regex(/^[a-z0-9-]{1,64}$/),
    flow: z.enum(['token-exchange', 'agent-token', 'ciba']),
    /** The NHE the request authenticated or named from the tenant's registry; absent when it never got that far. */
    nheIdentifier: z.string().min(1).max(256).optional(),
    /** The authenticated client (oidc-core authenticated it before forwarding). */
    clientId: z.string().min(1).max(2048),
    at: z.iso.datetime(),
  })
  .strict();

export type NheTokenRefused = z.infer<typeof nheTokenRefusedSchema>;

/** The start of the UTC hour holding `at` (the counters' bucket). */
export function refusalHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3_600_000) * 3_600_000);
}
