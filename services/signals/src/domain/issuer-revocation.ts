/**
 * Revocation across organisations: what a trusted issuer's revocation (a Security Event Token from its OpenID Shared
 * Signals transmitter, already verified) revokes among this tenant's own tokens.
 *
 * This tenant mints delegation tokens from the issuer's assertions (RFC 7523 JWT bearer grant, ID-JAG); each such token
 * has a token-audit row whose `crossDomain` is `{direction: 'redeemed', peer: <the issuer>, assertionJti, subject,
 * actor}` (the assertion's jti, sub and act.sub). The issuer's selector names its own tokens by members that combine
 * with AND (SSF 1.0 section 3.3, complex subject; the deny list's rule):
 *
 * - `nhe` (the `nhe` member, `iss_sub` with sub `nhe:<id>`): an agent there, matched against every actor of the
 *   assertion's chain (`crossDomain.actors`, outermost first; `crossDomain.actor` on rows written before), as the
 *   issuer's own deny list matches an agent anywhere in a token's chain;
 * - `sub` (the `user` member): the person there, matched against `crossDomain.subject`;
 * - `jti` (the `token` member, `jwt_id`): one of its tokens, matched against `crossDomain.assertionJti`;
 * - `azp` (the `application` member): a client of the issuer, which this tenant does not record and cannot map. Beside
 *   another member it is left out (the entry revokes more, never less); as the only member (the issuer deleted or
 *   disabled one of its clients) the entry is ignored and logged (`unevaluable`): revoking every token minted from
 *   the issuer's assertions would turn routine administration there into an outage here;
 * - no member at all (delegation switched off at the issuer): every token minted from its assertions.
 *
 * An entry without `jti` revokes the issuer's tokens issued at or before `issuedBefore`. The assertion's own `iat` is
 * not recorded here, only when this tenant redeemed it: a token minted here up to the trusted issuer's
 * `maxLifetimeSeconds` after `issuedBefore` may come from an assertion issued before it (an assertion lives at most
 * that long). Those are revoked too (fail closed for one assertion lifetime: after a re-enable at the issuer, tokens
 * minted here within that window are refused as well). One-token entries (`jti`) have no time bound: that assertion
 * is revoked whenever it is redeemed. The issuer's assertions with `act` carry `iat` (the JWT bearer grant requires
 * it for them), so an assertion issued before `issuedBefore` is redeemed within that window.
 *
 * Whatever the issuer says (`until`), a selector is re-checked at most one assertion lifetime (+ the skew) after it
 * arrived (`selectorWindowEnd`): no token is minted here from an assertion issued before it after that.
 *
 * Each matching token becomes one kill-switch entry of this tenant naming its jti, with the reason `issuer.revoked`
 * and an id derived from (issuer, the issuer's entry, the token), so an event delivered again (a redelivery, a new
 * stream after a restart, a second replica) is the same entry.
 */
import { createHash } from 'node:crypto';
import type { RevocationInput } from '@idp/events';
import type { RevocationSelector } from '@idp/resource-server';
import { NHE_MAX_TTL_SECONDS } from '@idp/tokens';

export const ISSUER_REVOKED_REASON = 'issuer.revoked';
/** Added to windows that depend on another server's clock (the deny list's skew). */
export const ISSUER_CLOCK_SKEW_SECONDS = 60;

/** The token-audit fields a cross-domain revocation reads. */
export interface RedeemedTokenRow {
  jti: string;
  issuedAt: Date;
  /** Seconds. */
  ttl: number;
}

export interface IssuerScope {
  /** This tenant. */
  tenantId: number;
  /** The trusted issuer's `iss`, exactly: the rows' `crossDomain.peer`. */
  issuer: string;
  /** The trusted issuer record's maxLifetimeSeconds (how long one of its assertions may live). */
  assertionLifetimeSeconds: number;
}

/**
 * The token-audit filter of the rows a selector can revoke at `now`: this tenant, minted from this issuer's assertions,
 * matching every member the selector names, issued recently enough to be alive (delegation tokens live at most
 * NHE_MAX_TTL_SECONDS) and, without `jti`, early enough to come from an assertion issued at or before `issuedBefore`.
 */
export function redeemedRowsFilter(scope: IssuerScope, selector: RevocationSelector, now: number) {
  const issuedAt: { $gt: Date; $lte?: Date } = { $gt: new Date(now - NHE_MAX_TTL_SECONDS * 1000) };
  const latest = latestIssuedAt(scope, selector);
  if (latest !== undefined) issuedAt.$lte = new Date(latest);
  return {
    tenantId: scope.tenantId,
    'crossDomain.direction': 'redeemed' as const,
    'crossDomain.peer': scope.issuer,
    ...(selector.nhe !== undefined
      ? {
          $or: [{ 'crossDomain.actors': `nhe:${selector.nhe}` }, { 'crossDomain.actor': `nhe:${selector.nhe}` }],
        }
      : {}),
    ...(selector.sub !== undefined ? { 'crossDomain.subject': selector.sub } : {}),
    ...(selector.jti !== undefined ? { 'crossDomain.assertionJti': selector.jti } : {}),
    issuedAt,
  };
}

/**
 * Without `jti`: the latest time (epoch ms) a token minted here can have been minted from an assertion issued at or
 * before `issuedBefore`: one assertion lifetime later, plus the skew between the two servers' clocks, plus the second
 * `issuedBefore` is rounded down to (a NumericDate). Undefined for one-token entries (no time bound).
 */
export function latestIssuedAt(scope: IssuerScope, selector: RevocationSelector): number | undefined {
  if (selector.jti !== undefined || selector.issuedBefore === undefined) return undefined;
  return (selector.issuedBefore + 1 + scope.assertionLifetimeSeconds + ISSUER_CLOCK_SKEW_SECONDS) * 1000;
}

/** Whether a row's token is still alive at `now` (issuedAt + ttl in the future). */
export const isAlive = (row: RedeemedTokenRow, now: number) => row.issuedAt.getTime() + row.ttl * 1000 > now;

/**
 * Until when (epoch ms) tokens minted here can still fall under the selector: one-token entries until the issuer's
 * entry ends (the assertion has expired by then); the others one assertion lifetime after `issuedBefore`. Never
 * later than one assertion lifetime (+ the skew) after `now`, whatever the issuer's `until` or `issuedBefore` say:
 * an assertion redeemed later was issued after the selector arrived.
 */
export function selectorWindowEnd(scope: IssuerScope, selector: RevocationSelector, now: number): number {
  const cap = now + (scope.assertionLifetimeSeconds + ISSUER_CLOCK_SKEW_SECONDS) * 1000;
  const end = latestIssuedAt(scope, selector) ?? selector.until * 1000;
  return Number.isFinite(end) ? Math.min(end, cap) : cap;
}

/**
 * A selector whose only member is the issuer's client (`azp`): this tenant does not know the issuer's clients, so it
 * cannot tell which tokens came through that one; such an entry revokes nothing here (logged by the caller).
 */
export const unevaluable = (selector: RevocationSelector): boolean =>
  selector.azp !== undefined && selector.nhe === undefined && selector.sub === undefined && selector.jti === undefined;

/** The id of this tenant's entry for one token and one entry of the issuer (stable across redeliveries). */
export function bridgedEntryId(scope: IssuerScope, selectorId: string, jti: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([scope.tenantId, scope.issuer, selectorId, jti]))
    .digest('base64url');
  return `issuer-${digest}`;
}

/** This tenant's kill-switch entry for one token: its jti, kept until the token has expired (+ the skew). */
export function bridgedEntry(
  scope: IssuerScope,
  selectorId: string,
  row: RedeemedTokenRow,
  now: number,
): RevocationInput & { id: string } {
  return {
    id: bridgedEntryId(scope, selectorId, row.jti),
    tenantId: scope.tenantId,
    jti: row.jti,
    reason: ISSUER_REVOKED_REASON,
    revokedAt: new Date(now),
    expiresAt: new Date(row.issuedAt.getTime() + (row.ttl + ISSUER_CLOCK_SKEW_SECONDS) * 1000),
  };
}
