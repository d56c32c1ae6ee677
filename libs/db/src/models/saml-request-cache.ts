import { Schema } from 'mongoose';

/**
 * Single-use SAML 2.0 state of one tenant's upstream IdP, shared by every oidc-core replica:
 * - `kind: 'request'`: the ID of an AuthnRequest we sent and whose Response we still await (SAML 2.0 Profiles
 *   4.1.4.2: the Response's InResponseTo, and its bearer SubjectConfirmationData's, MUST equal that ID), kept about
 *   ten minutes and removed when a Response to it is processed;
 * - `kind: 'consumed'`: an Assertion ID (`assertion:<ID>`) or request ID (`request:<ID>`) already accepted, kept
 *   until the assertion's NotOnOrAfter (Profiles 4.1.4.5: the SP MUST ensure that bearer assertions are not replayed,
 *   by keeping the set of used IDs for the length of time the assertion would be valid).
 * - `kind: 'logout'`: a sign-out towards the upstream provider in progress (OIDC RP-initiated logout or SAML
 *   single logout), by the random id its state or RelayState carries: where the browser goes once the provider
 *   answers; single use, kept ten minutes.
 * The unique index makes each insert the atomic check: the second insert of a key fails on whichever replica.
 * `expiresAt` drives the TTL index; readers also compare it themselves, since a server without TTL support
 * (FerretDB) keeps expired rows until a sweeper removes them.
 */
export interface SamlRequestCacheDoc {
  tenantId: number;
  /** The tenant's alias of the upstream SAML IdP. */
  providerAlias: string;
  kind: 'request' | 'consumed' | 'logout';
  key: string;
  /** For a request: when it was issued (ISO 8601), as node-saml's CacheProvider stores it. */
  value: string;
  createdAt: Date;
  expiresAt: Date;
}

export const samlRequestCacheSchema = new Schema<SamlRequestCacheDoc>(
  {
    tenantId: { type: Number, required: true },
    providerAlias: { type: String, required: true },
    kind: { type: String, required: true, enum: ['request', 'consumed', 'logout'] },
    key: { type: String, required: true },
    value: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'saml_request_cache', versionKey: false },
);
samlRequestCacheSchema.index({ tenantId: 1, providerAlias: 1, kind: 1, key: 1 }, { unique: true });
samlRequestCacheSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
