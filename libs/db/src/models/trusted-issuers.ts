import { Schema } from 'mongoose';

/**
 * A trusted external issuer of a tenant: another organisation's authorization server or identity provider whose
 * signed assertions this tenant redeems at its token endpoint with the JWT bearer grant (RFC 7523), plain or as
 * Identity Assertion Authorization Grants (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant). Nothing an
 * issuer says is trusted beyond what this record allows: its keys, its algorithms, the audiences it may name, how its
 * subjects become local users.
 */
export const ISSUER_SUBJECT_MAPPINGS = ['linked_identity', 'user_id', 'username_claim'] as const;
export type IssuerSubjectMapping = (typeof ISSUER_SUBJECT_MAPPINGS)[number];

/** Default, least and greatest seconds between polls of a trusted issuer's Shared Signals transmitter. */
export const ISSUER_SIGNALS_POLL_DEFAULT_SECONDS = 5;
export const ISSUER_SIGNALS_POLL_MIN_SECONDS = 1;
export const ISSUER_SIGNALS_POLL_MAX_SECONDS = 300;

/**
 * Revocation across organisations: this tenant subscribes (OpenID Shared Signals 1.0, RFC 8936 poll) to the issuer's
 * transmitter, and the issuer's revocations become this tenant's kill-switch entries for the tokens it minted from
 * that issuer's assertions (services/signals, issuer-receivers.ts).
 */
export interface TrustedIssuerSignals {
  enabled: boolean;
  /** This tenant's client at the issuer (client_credentials; `ssf.manage` on the issuer's SSF audience). */
  clientId: string;
  /** Its secret, sealed with the key-encryption key ({@link trustedIssuerSecretAad}); never returned by the API. */
  clientSecretSealed?: string;
  /** Seconds between polls (the issuer's part of the revocation bound). */
  pollIntervalSeconds: number;
}

/** Additional data the signals client secret is sealed under: bound to the tenant and the (immutable) issuer. */
export const trustedIssuerSecretAad = (tenantId: number, issuer: string) =>
  `trusted-issuer:${tenantId}:${issuer}:signals_client_secret`;

/** One agent of a trusted issuer, as this tenant knows it. */
export interface TrustedIssuerActor {
  /** The assertion's `act.sub`, exactly. */
  subject: string;
  /** The NHE of this tenant it acts as. */
  nheIdentifier: string;
}

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
   * by upstream sign-in; `user_id`, the local user id itself (an issuer of this same deployment); `username_claim`,
   * the local user whose username is the value of the claim `subjectClaim` (the issuer is authoritative for them).
   */
  subjectMapping: IssuerSubjectMapping;
  /** linked_identity: the upstream provider's alias whose links name this issuer's subjects. */
  upstreamProvider?: string;
  /** username_claim: the assertion's claim that holds the local username (e.g. `preferred_username`). */
  subjectClaim?: string;
  /**
   * Just-in-time provisioning: a subject that maps to nobody becomes a new user (linked_identity: an account linked to
   * the upstream provider, as its sign-in would make; username_claim: a user with that username). Off by default.
   */
  jitProvisioning: boolean;
  /** Assertions live at most this long (exp - iat, and exp - now); longer ones are refused. */
  maxLifetimeSeconds: number;
  /** An assertion may be redeemed again until it expires (the ID-JAG draft allows it; the MCP extension does not). */
  allowReuse: boolean;
  /** Its assertions may carry `act` (a delegation); otherwise an assertion with `act` is refused. */
  allowAct: boolean;
  /**
   * Its agents this tenant accepts (with allowAct): an assertion's `act.sub` (the issuer's words, e.g.
   * `nhe:orders-agent`) mapped to one of this tenant's NHE identifiers; its token is that NHE's delegation token. An
   * `act.sub` not listed is refused.
   */
  actors: TrustedIssuerActor[];
  enabled: boolean;
  /** Its Shared Signals transmitter, polled for revocations (absent: not subscribed). */
  signals?: TrustedIssuerSignals;
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
    subjectClaim: { type: String },
    jitProvisioning: { type: Boolean, default: false },
    maxLifetimeSeconds: { type: Number, default: 300 },
    allowReuse: { type: Boolean, default: false },
    allowAct: { type: Boolean, default: false },
    actors: {
      type: [
        new Schema<TrustedIssuerActor>(
          { subject: { type: String, required: true }, nheIdentifier: { type: String, required: true } },
          { _id: false },
        ),
      ],
      default: [],
    },
    enabled: { type: Boolean, default: true },
    signals: {
      type: new Schema<TrustedIssuerSignals>(
        {
          enabled: { type: Boolean, required: true },
          clientId: { type: String, required: true },
          clientSecretSealed: { type: String },
          pollIntervalSeconds: { type: Number, default: ISSUER_SIGNALS_POLL_DEFAULT_SECONDS },
        },
        { _id: false },
      ),
      required: false,
    },
    description: { type: String },
  },
  { timestamps: true, collection: 'trusted_issuers', versionKey: false },
);
trustedIssuerSchema.index({ tenantId: 1, issuer: 1 }, { unique: true });
