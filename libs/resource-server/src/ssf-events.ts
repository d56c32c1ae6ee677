/**
 * What a verified Security Event Token (RFC 8417) from the provider's Shared Signals transmitter means for the deny
 * list. Two event types carry a revocation, tied by `txn` (the kill-switch entry's id):
 *
 * - the vendor event `urn:vendor:secevent:nhe-revocation`: the deny-list selector itself,
 *   `{id, reason, nhe?, azp?, sub?, jti?, issuedBefore?, until}`;
 * - CAEP `session-revoked` (https://schemas.openid.net/secevent/caep/event-type/session-revoked): the same change as
 *   a standard event; its complex subject (`sub_id`) names the members (`nhe` iss_sub `nhe:<id>`, `user` iss_sub,
 *   `application` opaque = azp, `token` jwt_id) and `event_timestamp` is the revocation time. It carries no end, so
 *   the entry is kept for the longest token lifetime you configure.
 *
 * Both map to one entry per `txn`. The SSF verification event and event types this package does not know are
 * acknowledged and ignored.
 */
import type { JWTPayload } from 'jose';
import type { RevocationSelector } from './deny-list';

export const NHE_REVOCATION_EVENT = 'urn:vendor:secevent:nhe-revocation';
export const CAEP_SESSION_REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
export const SSF_VERIFICATION_EVENT = 'https://schemas.openid.net/secevent/ssf/event-type/verification';
/** RFC 8936 poll delivery. */
export const DELIVERY_POLL = 'urn:ietf:rfc:8936';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '' && v.length <= 256;
const numericDate = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A SET whose events cannot be understood (the receiver reports it to the transmitter in `setErrs`). */
export class SetProblem extends Error {}

/** The vendor event's selector, checked member by member. */
export function selectorFromVendorEvent(event: unknown): RevocationSelector {
  if (!isObject(event)) throw new SetProblem('the nhe-revocation event is not an object');
  const { id, reason, nhe, azp, sub, jti, issuedBefore, until } = event;
  if (!nonEmpty(id)) throw new SetProblem('the nhe-revocation event has no id');
  if (!numericDate(until)) throw new SetProblem('the nhe-revocation event has no until');
  if (nhe !== undefined && !nonEmpty(nhe)) throw new SetProblem('the nhe-revocation event has a malformed nhe');
  if (azp !== undefined && !(typeof azp === 'number' && Number.isInteger(azp)))
    throw new SetProblem('the nhe-revocation event has a malformed azp');
  if (sub !== undefined && !nonEmpty(sub)) throw new SetProblem('the nhe-revocation event has a malformed sub');
  if (jti !== undefined && !nonEmpty(jti)) throw new SetProblem('the nhe-revocation event has a malformed jti');
  if (issuedBefore !== undefined && !numericDate(issuedBefore))
    throw new SetProblem('the nhe-revocation event has a malformed issuedBefore');
  if (jti === undefined && issuedBefore === undefined)
    throw new SetProblem('the nhe-revocation event names neither jti nor issuedBefore');
  return {
    id,
    until,
    ...(typeof reason === 'string' ? { reason: reason.slice(0, 200) } : {}),
    ...(nhe !== undefined ? { nhe } : {}),
    ...(azp !== undefined ? { azp } : {}),
    ...(sub !== undefined ? { sub } : {}),
    ...(jti !== undefined ? { jti } : { issuedBefore: issuedBefore as number }),
  };
}

/** Members of a CAEP subject (complex, or one simple identifier) as selector members. */
function membersOfSubject(subject: unknown): Pick<RevocationSelector, 'nhe' | 'azp' | 'sub' | 'jti'> {
  if (!isObject(subject)) throw new SetProblem('the SET has no sub_id');
  const out: Pick<RevocationSelector, 'nhe' | 'azp' | 'sub' | 'jti'> = {};
  const simple = (id: unknown, member?: string) => {
    if (!isObject(id))
      throw new SetProblem(
        member ? `the SET's subject member ${member} is not an object` : 'the SET has a malformed sub_id',
      );
    if (id.format === 'iss_sub' && nonEmpty(id.sub)) {
      if (id.sub.startsWith('nhe:') && member !== 'user') out.nhe = id.sub.slice(4);
      else out.sub = id.sub;
    } else if (id.format === 'jwt_id' && nonEmpty(id.jti)) {
      out.jti = id.jti;
    } else if (
      id.format === 'opaque' &&
      member === 'application' &&
      typeof id.id === 'string' &&
      /^\d{1,15}$/.test(id.id)
    ) {
      out.azp = Number(id.id);
    }
    // Other members (the tenant, formats this package does not know) are not part of the selector: leaving a member
    // out widens the match, so an unknown one revokes more, never less.
  };
  if (subject.format === 'complex') {
    for (const [member, id] of Object.entries(subject)) if (member !== 'format') simple(id, member);
  } else {
    simple(subject);
  }
  return out;
}

/**
 * The deny-list entry a verified SET carries, or undefined for events that revoke nothing (verification, unknown
 * types). `caepLifetimeSeconds`: how long an entry learnt from CAEP alone is kept after its event_timestamp.
 */
export function selectorFromSet(payload: JWTPayload, caepLifetimeSeconds: number): RevocationSelector | undefined {
  const events = payload.events;
  if (!isObject(events)) throw new SetProblem('the SET has no events claim');
  if (NHE_REVOCATION_EVENT in events) return selectorFromVendorEvent(events[NHE_REVOCATION_EVENT]);
  if (CAEP_SESSION_REVOKED in events) {
    const event = events[CAEP_SESSION_REVOKED];
    if (!isObject(event)) throw new SetProblem('the session-revoked event is not an object');
    const at = numericDate(event.event_timestamp) ? event.event_timestamp : payload.iat;
    if (!numericDate(at)) throw new SetProblem('the session-revoked event has no event_timestamp');
    const id = nonEmpty(payload.txn) ? payload.txn : payload.jti;
    if (!nonEmpty(id)) throw new SetProblem('the SET has neither txn nor jti');
    const members = membersOfSubject(payload.sub_id);
    return {
      id,
      reason: 'caep.session-revoked',
      ...members,
      ...(members.jti === undefined ? { issuedBefore: at } : {}),
      until: at + caepLifetimeSeconds,
    };
  }
  return undefined;
}
