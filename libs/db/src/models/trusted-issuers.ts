import { Schema } from 'mongoose';

/**
 * A trusted external issuer of a tenant: another organisation's authorization server or identity provider whose
 * signed assertions this tenant redeems at its token endpoint with the JWT bearer grant (RFC 7523), plain or as
 * Identity Assertion Authorization Grants (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant). Nothing an
 * issuer says is trusted beyond what this record allows: its keys, its algorithms, the audiences it may name, how its
 * subjects become local users.
 */
export const ISSUER_SUBJECT_MAPPINGS = ['linked_identity', 'user_id'] as const;
export type IssuerSubjectMapping = (typeof ISSUER_SUBJECT_MAPPINGS)[number];

export interface TrustedIssuerDoc {
  tenantId: number;
  /** The `iss` of its assertions, exactly. */
  issuer: string;
  /** Where its public keys are (fetched through the SSRF-safe outbound client, cached). */
  jwksUri: string;
  /** Signature algorithms accepted (never `none`, never HMAC). */
  algorithms: string[];
  /** `aud` values accepted besides this tenant's issuer and token endpoint (RFC 7523 section 3 item 3). */
  audiences: string[];
  /**
   * How the assertion's `sub` becomes a local user: `linked_identity`, the user linked to (upstreamProvider, sub)
   * by upstream sign-in; `user_id`, the local user id itself (an issuer of this same deployment).
   */
  subjectMapping: IssuerSubjectMapping;
  /** linked_identity: the upstream provider's alias whose links name this issuer's subjects. */
  upstreamProvider?: string;
  /** Assertions live at most this long (exp - iat, and exp - now); longer ones are refused. */
  maxLifetimeSeconds: number;
  /** An assertion may be redeemed again until it expires (the ID-JAG draft allows it; the MCP extension does not). */
  allowReuse: boolean;
  /** Its assertions may carry `act` (a delegation); otherwise an assertion with `act` is refused. */
  allowAct: boolean;
  enabled: boolean;
  description?: string;
  createdAt: Date;
  updatedAt: Date;
}

export const trustedIssuerSchema = new Schema<TrustedIssuerDoc>(
  {
    tenantId: { type: Number, required: true },
    issuer: { type: String, required: true },
    jwksUri: { type: String, required: true },
    algorithms: { type: [String], default: ['RS256', 'ES256'] },
    audiences: { type: [String], default: [] },
    subjectMapping: { type: String, enum: ISSUER_SUBJECT_MAPPINGS, default: 'linked_identity' },
    upstreamProvider: { type: String },
    maxLifetimeSeconds: { type: Number, default: 300 },
    allowReuse: { type: Boolean, default: false },
    allowAct: { type: Boolean, default: false },
    enabled: { type: Boolean, default: true },
    description: { type: String },
  },
  { timestamps: true, collection: 'trusted_issuers', versionKey: false },
);
trustedIssuerSchema.index({ tenantId: 1, issuer: 1 }, { unique: true });
