/**
 * What the transmitter says about a kill-switch entry (libs/events revocations): each entry becomes two Security
 * Event Tokens per stream, one per event type (SSF 1.0 section 4.2.1: "events" holds one event), tied by `txn` =
 * the entry's id:
 *
 * - CAEP `session-revoked`: the tokens (sessions of a delegation) the entry names are revoked. Chosen over
 *   `token-claims-change` for every reason, policy changes included: the deny list refuses those tokens outright
 *   (nothing about them changes, they stop working), and `token-claims-change` needs the new claim values, which
 *   exist only in the next token the new policy mints.
 * - The vendor event {@link NHE_REVOCATION_EVENT}: the exact selector the deny list applies, for receivers that keep
 *   one (the SDK's poll receiver).
 *
 * The subject (`sub_id`) is a complex subject (SSF 1.0 section 3.3) whose members are the selectors the entry
 * names; a member the entry leaves out is a wildcard (SSF's subject matching), exactly as in the deny list:
 * - `tenant`: `{format: "opaque", id: "<tenantId>"}`, always;
 * - `user`: `{format: "iss_sub", iss, sub}`, the delegating user (the token's `sub`);
 * - `application`: `{format: "opaque", id: "<azp>"}`, the client (the token's numeric `azp`, as a string);
 * - `nhe` (an additional member): `{format: "iss_sub", iss, sub: "nhe:<identifier>"}`, the agent, the token's
 *   `act.sub`;
 * - `token` (an additional member): `{format: "jwt_id", iss, jti}` (SSF 1.0 section 3.5.1), one token.
 */
import type { RevocationEntry } from '@idp/events';

export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
/** Vendor event type carrying the deny-list selector. */
export const NHE_REVOCATION_EVENT = 'urn:vendor:secevent:nhe-revocation';
/** SSF 1.0 section 8.1.4: sent on request (verification endpoint); always delivered, never requested. */
export const SSF_VERIFICATION_EVENT = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

/** The event types a receiver may request (events_supported). */
export const EVENTS_SUPPORTED = [CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT] as const;
export type RevocationEventType = (typeof EVENTS_SUPPORTED)[number];

/** RFC 8935 push and RFC 8936 poll delivery (SSF 1.0 section 7.1 delivery_methods_supported). */
export const DELIVERY_PUSH = 'urn:ietf:rfc:8935';
export const DELIVERY_POLL = 'urn:ietf:rfc:8936';
export const DELIVERY_METHODS = [DELIVERY_PUSH, DELIVERY_POLL] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

export interface SubjectIdentifier {
  format: string;
  [member: string]: unknown;
}

/** The complex subject of an entry (members: the selectors it names, plus the tenant). */
export function revocationSubject(entry: RevocationEntry, issuer: string): SubjectIdentifier {
  return {
    format: 'complex',
    tenant: { format: 'opaque', id: String(entry.tenantId) },
    ...(entry.subject !== undefined ? { user: { format: 'iss_sub', iss: issuer, sub: entry.subject } } : {}),
    ...(entry.clientNumericId !== undefined
      ? { application: { format: 'opaque', id: String(entry.clientNumericId) } }
      : {}),
    ...(entry.nheIdentifier !== undefined
      ? { nhe: { format: 'iss_sub', iss: issuer, sub: `nhe:${entry.nheIdentifier}` } }
      : {}),
    ...(entry.jti !== undefined ? { token: { format: 'jwt_id', iss: issuer, jti: entry.jti } } : {}),
  };
}

/** Seconds since the epoch, rounded down (JWT NumericDate). */
const numericDate = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** What an administrator reads about each known reason (CAEP reason_admin). */
const REASON_TEXT: Record<string, string> = {
  'nhe.disabled': 'The non-human entity (agent) was disabled',
  'nhe.deleted': 'The non-human entity (agent) was deleted',
  'policy.updated': 'A delegation policy was changed',
  'policy.deleted': 'A delegation policy was deleted',
  'client.delegation.disabled': 'Delegation was turned off for the client',
  'client.deleted': 'The client was deleted',
  'user.disabled': 'The delegating user was disabled',
  'user.deleted': 'The delegating user was deleted',
  'tenant.nhe.disabled': 'Delegation was turned off for the tenant',
  'token.revoked': 'The token was revoked',
  'user.agent.revoked': "The delegating user revoked the agent's access on their agents page",
  'user.agent.blocked': 'The delegating user blocked the agent for themselves on their agents page',
  'issuer.revoked':
    'The trusted issuer (another organisation) revoked the assertion, agent or user the token was minted from',
};

/** Reasons of the delegating user's own actions (oidc-core's delegation ledger page). */
const USER_REASONS = new Set(['user.agent.revoked', 'user.agent.blocked']);
/** Reasons no person of this tenant initiated: one token revoked, a trusted issuer's revocation carried over. */
const SYSTEM_REASONS = new Set(['token.revoked', 'issuer.revoked']);

/**
 * The deny-list selector as the vendor event carries it. A token is revoked when it matches every member present:
 * `nhe` = its `act.sub` without `nhe:`, `azp`, `sub`, `jti`; and, when `jti` is absent, `iat <= issuedBefore`
 * (NumericDate: a token issued in the same second as the revocation counts as revoked). `until` (NumericDate) is
 * when the entry stops mattering: every token it can match has expired by then.
 */
export interface NheRevocationSelector {
  id: string;
  reason: string;
  nhe?: string;
  azp?: number;
  sub?: string;
  jti?: string;
  issuedBefore?: number;
  until: number;
}

export function nheRevocationEvent(entry: RevocationEntry): NheRevocationSelector {
  return {
    id: entry.id,
    reason: entry.reason,
    ...(entry.nheIdentifier !== undefined ? { nhe: entry.nheIdentifier } : {}),
    ...(entry.clientNumericId !== undefined ? { azp: entry.clientNumericId } : {}),
    ...(entry.subject !== undefined ? { sub: entry.subject } : {}),
    ...(entry.jti !== undefined ? { jti: entry.jti } : { issuedBefore: numericDate(entry.revokedAt) }),
    until: Math.ceil(Date.parse(entry.expiresAt) / 1000),
  };
}

/** The CAEP session-revoked event object (CAEP 1.0 section 3.1 and the common claims of section 2). */
export function sessionRevokedEvent(entry: RevocationEntry): Record<string, unknown> {
  const text = REASON_TEXT[entry.reason] ?? `Revoked (${entry.reason})`;
  return {
    event_timestamp: numericDate(entry.revokedAt),
    // issuer.revoked: this tenant's signals service acted on another organisation's Shared Signals, no one here.
    initiating_entity: SYSTEM_REASONS.has(entry.reason) ? 'system' : USER_REASONS.has(entry.reason) ? 'user' : 'admin',
    reason_admin: { en: text },
  };
}

/** The claims (without iss, aud, iat, jti) of the SET of one event type for an entry. */
export function revocationSetClaims(
  entry: RevocationEntry,
  issuer: string,
  type: RevocationEventType,
): { sub_id: SubjectIdentifier; txn: string; events: Record<string, unknown> } {
  const event = type === CAEP_SESSION_REVOKED ? sessionRevokedEvent(entry) : nheRevocationEvent(entry);
  return { sub_id: revocationSubject(entry, issuer), txn: entry.id, events: { [type]: event } };
}
