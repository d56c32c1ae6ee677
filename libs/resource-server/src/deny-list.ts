/**
 * An in-memory deny list of revoked delegation tokens, bounded in size, fed by the SSF poll receiver (or by you). An
 * entry is the selector the provider's kill switch uses: a token is revoked when it matches every member present
 * (`nhe` = an agent of the token's `act` chain, `act.sub` or a nested actor's `sub` without `nhe:`, so revoking an
 * agent also revokes the tokens handed on below it; `azp`; `sub`; `jti`) and, for an entry without `jti`, was issued at
 * or before `issuedBefore` (seconds; a token issued in the same second as the revocation counts as revoked, so
 * tokens minted after a re-enable are not affected). Entries without `jti` concern delegation (NHE) tokens only, as
 * the provider's own deny list does; an entry with `jti` names one token, delegated or not. An entry is dropped at
 * `until` (seconds): every token it can match has expired by then.
 *
 * Bounded: at most `maxEntries` live entries. When it is full of live entries, a new entry cannot be stored, and
 * the list fails closed: every delegation token is refused until that entry's `until` has passed (the entry could
 * match any of them). The condition is reported by `add()` (`'overflow'`) and by `overflowUntil`.
 */
import { chainAgents } from './delegation';
import type { Access, RevocationSource } from './verifier';

/** The deny-list selector (the vendor SET event `urn:vendor:secevent:nhe-revocation`). */
export interface RevocationSelector {
  /** The kill-switch entry's id (SSF: the SET's `txn`): the same change delivered twice is one entry. */
  id: string;
  reason?: string;
  /** The NHE identifier (the token's `act.sub` without `nhe:`). */
  nhe?: string;
  /** The token's `azp` (the numeric client id of NHE tokens). */
  azp?: number;
  /** The token's `sub` (the delegating user). */
  sub?: string;
  /** One token. */
  jti?: string;
  /** NumericDate: tokens with `iat` at or before it are revoked (ignored with `jti`). */
  issuedBefore?: number;
  /** NumericDate: when the entry stops mattering. */
  until: number;
}

export type DenyListAddResult = 'added' | 'updated' | 'known' | 'expired' | 'overflow';

export interface DenyListOptions {
  /** Most live entries kept (default 50,000). */
  maxEntries?: number;
  /** Clock in milliseconds (tests). */
  now?: () => number;
}

/** Bucket of the entries that name no agent (client, user, tenant-wide, or one token). */
const ANY_AGENT = '\u0000any';

export class DenyList implements RevocationSource {
  readonly maxEntries: number;
  private readonly now: () => number;
  private readonly byId = new Map<string, RevocationSelector>();
  /** Entries by `nhe` (ANY_AGENT for those without), so a lookup reads the agent's entries and the agent-less ones. */
  private readonly byAgent = new Map<string, Map<string, RevocationSelector>>();
  private closedUntil = 0;

  constructor(o: DenyListOptions = {}) {
    this.maxEntries = o.maxEntries ?? 50_000;
    if (!Number.isInteger(this.maxEntries) || this.maxEntries < 1)
      throw new TypeError('DenyList: maxEntries must be a positive integer');
    this.now = o.now ?? Date.now;
  }

  /** Live entries. */
  get size(): number {
    return this.byId.size;
  }

  /** NumericDate until which every delegation token is refused because an entry could not be stored (0: none). */
  get overflowUntil(): number {
    return this.closedUntil > this.nowSeconds() ? this.closedUntil : 0;
  }

  private nowSeconds(): number {
    return this.now() / 1000;
  }

  /** Stores an entry (the same id again keeps the later `until`). */
  add(selector: RevocationSelector): DenyListAddResult {
    const now = this.nowSeconds();
    if (!(selector.until > now)) return 'expired';
    const known = this.byId.get(selector.id);
    if (known) {
      if (selector.until <= known.until) return 'known';
      known.until = selector.until;
      return 'updated';
    }
    if (this.byId.size >= this.maxEntries) this.sweep();
    if (this.byId.size >= this.maxEntries) {
      this.closedUntil = Math.max(this.closedUntil, selector.until);
      return 'overflow';
    }
    const entry = { ...selector };
    this.byId.set(entry.id, entry);
    const key = entry.nhe ?? ANY_AGENT;
    let bucket = this.byAgent.get(key);
    if (!bucket) this.byAgent.set(key, (bucket = new Map()));
    bucket.set(entry.id, entry);
    return 'added';
  }

  /** Removes expired entries. */
  sweep(): void {
    const now = this.nowSeconds();
    for (const [id, e] of this.byId) if (e.until <= now) this.remove(id, e);
  }

  private remove(id: string, e: RevocationSelector): void {
    this.byId.delete(id);
    const key = e.nhe ?? ANY_AGENT;
    const bucket = this.byAgent.get(key);
    bucket?.delete(id);
    if (bucket && bucket.size === 0) this.byAgent.delete(key);
  }

  /** The live entry that revokes this token, if any. */
  match(access: Access): RevocationSelector | undefined {
    if (this.byId.size === 0) return undefined;
    // Every agent of the act chain: revoking an agent revokes the tokens handed on below it.
    const agents = access.delegation ? chainAgents(access.delegation) : [];
    for (const nhe of new Set(agents)) {
      const hit = this.scan(this.byAgent.get(nhe), access);
      if (hit) return hit;
    }
    return this.scan(this.byAgent.get(ANY_AGENT), access);
  }

  private scan(bucket: Map<string, RevocationSelector> | undefined, access: Access): RevocationSelector | undefined {
    if (!bucket) return undefined;
    const now = this.nowSeconds();
    for (const [id, e] of bucket) {
      if (e.until <= now) {
        this.remove(id, e);
        continue;
      }
      if (matches(e, access)) return e;
    }
    return undefined;
  }

  /** The `revocations` hook of createVerifier. */
  isRevoked(access: Access): boolean {
    if (access.delegation && this.closedUntil > this.nowSeconds()) return true;
    return this.match(access) !== undefined;
  }

  /** Every live entry (a copy). */
  entries(): RevocationSelector[] {
    this.sweep();
    return [...this.byId.values()].map((e) => ({ ...e }));
  }

  clear(): void {
    this.byId.clear();
    this.byAgent.clear();
    this.closedUntil = 0;
  }
}

/** Whether an entry revokes a token (every member present matches; `issuedBefore` when there is no `jti`). */
export function matches(e: RevocationSelector, access: Access): boolean {
  const claims = access.claims;
  if (e.jti !== undefined) {
    if (claims.jti !== e.jti) return false;
  } else if (!access.delegation) {
    return false;
  }
  if (e.nhe !== undefined && !(access.delegation && chainAgents(access.delegation).includes(e.nhe))) return false;
  if (e.azp !== undefined && claims.azp !== e.azp) return false;
  if (e.sub !== undefined && access.userId !== e.sub) return false;
  if (e.jti === undefined && e.issuedBefore !== undefined) {
    return typeof claims.iat === 'number' && claims.iat <= e.issuedBefore;
  }
  return true;
}
