import { z } from 'zod';

/** Stream, subjects and durable names of the audit pipeline (DESIGN.md, "Events"). */
export const AUDIT_STREAM = 'IDP_AUDIT';
export const AUDIT_SUBJECT_PREFIX = 'idp.audit.nhe.issued';
export const AUDIT_SUBJECT_WILDCARD = `${AUDIT_SUBJECT_PREFIX}.*`;
export const AUDIT_DEAD_LETTER_SUBJECT = 'idp.audit.dead-letter';
export const AUDIT_WRITER_DURABLE = 'audit-writer';

export const auditSubject = (tenantId: number) => `${AUDIT_SUBJECT_PREFIX}.${tenantId}`;

/** Closed set of audit event types; a new one fails the build until every switch handles it. */
export type AuditEventType = 'nhe.token.issued';

/** The issuance event: one per NHE token, message id = the token's jti. */
export const nheTokenIssuedSchema = z
  .object({
    type: z.literal('nhe.token.issued'),
    jti: z.string().min(1).max(128),
    tenantId: z.number().int().nonnegative(),
    userId: z.string().min(1),
    nheId: z.string().min(1),
    nheIdentifier: z.string().min(1),
    clientId: z.string().min(1),
    clientNumericId: z.number().int(),
    resourceServer: z.string().min(1),
    scopes: z.array(z.string()),
    ttl: z.number().int().positive(),
    sourceIp: z.string(),
    issuedAt: z.iso.datetime(),
    dpopJkt: z.string().optional(),
    /**
     * How the actor was authenticated: `named` (the spec's nhe-id actor token), `key` (a JWT signed by
     * one of the NHE's keys) or `workload` (a JWT of a trusted workload issuer). Optional: events of older senders.
     */
    actorAuth: z
      .object({
        method: z.enum(['named', 'key', 'workload']),
        jkt: z.string().max(128).optional(),
        issuer: z.string().max(2048).optional(),
        subject: z.string().max(1024).optional(),
        jti: z.string().max(256).optional(),
      })
      .strict()
      .optional(),
    /** The token was exchanged from this NHE token (a delegation chain). */
    parentJti: z.string().min(1).max(128).optional(),
    /** With parentJti: every actor of the new token's `act` chain, outermost (its own NHE) first. */
    actorChain: z
      .array(
        z.object({ nheIdentifier: z.string().min(1).max(256), method: z.enum(['named', 'key', 'workload']) }).strict(),
      )
      .min(2)
      .max(5)
      .optional(),
    /**
     * The token crossed an organisation boundary (Identity Assertion Authorization Grants): `issued`, this row is an
     * ID-JAG this tenant issued for another authorization server (`peer`, the ID-JAG's aud); `redeemed`, this token
     * was minted from an assertion of the trusted issuer `peer` (its iss), whose jti, sub and act.sub are kept.
     */
    crossDomain: z
      .object({
        direction: z.enum(['issued', 'redeemed']),
        peer: z.string().min(1).max(2048),
        assertionJti: z.string().min(1).max(256).optional(),
        subject: z.string().min(1).max(1024).optional(),
        actor: z.string().min(1).max(1024).optional(),
        /** redeemed: every actor of the assertion's act chain at its issuer, outermost (actor) first. */
        actors: z.array(z.string().min(1).max(1024)).min(1).max(16).optional(),
      })
      .strict()
      .optional(),
    /**
     * The person approved this token on their own device (OpenID CIBA Core 1.0): the request (a digest of auth_req_id),
     * the RFC 9396 authorization details approved, when, and the sign-in it was approved under.
     */
    approval: z
      .object({
        requestId: z.string().min(1).max(128),
        approvedAt: z.iso.datetime(),
        authorizationDetails: z.array(z.record(z.string(), z.unknown())).max(16).optional(),
        bindingMessage: z.string().max(256).optional(),
        authTime: z.iso.datetime().optional(),
        amr: z.array(z.string().max(64)).max(16).optional(),
        acr: z.string().max(256).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type NheTokenIssued = z.infer<typeof nheTokenIssuedSchema>;

export function assertExhaustive(value: never): never {
  throw new Error(`unhandled case: ${String(value)}`);
}
