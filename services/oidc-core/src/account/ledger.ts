/**
 * The user's delegation ledger: which agents act or may act for one user of one tenant, the live tokens
 * issued for them, and the user's own audit rows. Every query names the tenant and the user of the session; nothing
 * here takes a user id from a request.
 *
 * An agent (NHE) is on the ledger when
 * - a delegation policy names the user, or one of the user's groups (`policy`);
 * - the user consented to one of its agent clients (NHE `agentClients`) and the grant is still remembered (`consent`);
 * - it holds a live token for the user (`token`: the policy may have gone since);
 * - the user blocked it (`blocked`), until the user lifts the block.
 *
 * Live tokens are the token-audit rows of the user (the record of every NHE token issued) whose lifetime has not
 * run out, each marked revoked when a kill-switch entry in force matches it (the same deny-list rule as
 * introspection and the resource-server SDK). An identity assertion (ID-JAG) an agent obtained for another
 * organisation's authorization server is such a row too (crossDomain `issued`, its `peer` that server): it is listed as
 * an assertion for that server, and the agent's kill-switch entry covers it (the entry goes out through the tenant's
 * Shared Signals transmitter, so the other organisation can end what it issued from it).
 */
import type { AgentOptOutDoc, DelegationPolicyDoc, Models, NheDoc, TokenAuditDoc, UserDoc } from '@idp/db';
import { toObjectId } from '@idp/db';
import { agentClientMatches } from '@idp/delegation';
import { DenyList, type RevocationStore } from '@idp/events';
import { NHE_MAX_TTL_SECONDS } from '@idp/tokens';
import { ACCOUNT_CLIENT_ID } from './account-client';

/** At most this many audit rows and remembered grants are read for one page. */
export const LEDGER_AUDIT_ROWS = 50;
const MAX_GRANTS = 200;
/** Added to the spec's 15-minute ceiling when looking for live tokens (a stored lifetime is never longer). */
const LIVE_WINDOW_SECONDS = NHE_MAX_TTL_SECONDS + 60;

export type LedgerLink =
  | { kind: 'policy'; target: 'user' | 'group'; groupName?: string; scopes: string[]; maxTokenLifetime?: number }
  | { kind: 'consent'; clientId: string; scopes: string[] };

export interface LedgerToken {
  jti: string;
  clientId: string;
  resourceServer: string;
  scopes: string[];
  issuedAt: Date;
  expiresAt: Date;
  revoked: boolean;
  /** An identity assertion (ID-JAG) for another organisation's authorization server (`peer`, its issuer). */
  assertionFor?: string;
}

export interface LedgerAgent {
  nheId: string;
  identifier: string;
  type: string;
  operator: string;
  model?: string;
  enabled: boolean;
  links: LedgerLink[];
  blocked: boolean;
  blockedAt?: Date;
  tokens: LedgerToken[];
}

export interface LedgerAuditRow {
  issuedAt: Date;
  nheIdentifier: string;
  clientId: string;
  resourceServer: string;
  scopes: string[];
  ttl: number;
  sourceIp: string;
  /** An identity assertion (ID-JAG) for another organisation's authorization server (`peer`, its issuer). */
  assertionFor?: string;
}

export interface Ledger {
  username: string;
  agents: LedgerAgent[];
  audit: LedgerAuditRow[];
  /** Display names of the clients (by client_id) and APIs (by identifier) the ledger names, where registered. */
  names: { clients: Record<string, string>; resources: Record<string, string> };
  /** The applications the user consented to, each with the origin of its first registered redirect URI: a way back. */
  applications: Array<{ clientId: string; name: string; url: string }>;
}

/** The origin of a registered redirect URI a browser can open (http or https), else undefined. */
function homeOf(redirectUris: string[] | undefined): string | undefined {
  for (const uri of redirectUris ?? []) {
    try {
      const u = new URL(uri);
      if (u.protocol === 'https:' || u.protocol === 'http:') return u.origin;
    } catch {
      // A stored value that is not a URL leads nowhere.
    }
  }
  return undefined;
}

export interface RememberedGrant {
  grantId: string;
  clientId: string;
  /** Resource scopes the grant holds, per resource. */
  resources: Record<string, string>;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The user's remembered consents (node-oidc-provider grants), read from the provider's storage. */
export async function rememberedGrants(models: Models, tenantId: number, userId: string): Promise<RememberedGrant[]> {
  // Grants are stored as JSON text (provider/adapter.ts); the account id is matched in the text, then checked.
  const docs = await models.OidcPayload.find(
    { tenantId, model: 'Grant', payload: { $regex: `"accountId":"${escapeRegex(userId)}"` } },
    { payload: 1, expiresAt: 1 },
  )
    .limit(MAX_GRANTS)
    .lean();
  const now = Date.now();
  const out: RememberedGrant[] = [];
  for (const d of docs) {
    if (d.expiresAt && d.expiresAt.getTime() <= now) continue;
    const p = JSON.parse(d.payload) as {
      jti?: string;
      accountId?: string;
      clientId?: string;
      resources?: Record<string, string>;
    };
    if (p.accountId !== userId || typeof p.clientId !== 'string' || typeof p.jti !== 'string') continue;
    out.push({ grantId: p.jti, clientId: p.clientId, resources: p.resources ?? {} });
  }
  return out;
}

type NheRow = NheDoc & { _id: unknown };

/** Loads the ledger of one user of one tenant. */
export async function loadLedger(
  models: Models,
  store: RevocationStore,
  tenantId: number,
  userId: string,
  now = new Date(),
): Promise<Ledger | null> {
  const oid = toObjectId(userId);
  // A stored user is read as it is: one written by an older version or by hand may lack groupIds.
  const user = oid
    ? await models.User.findOne({ tenantId, _id: oid }, { username: 1, groupIds: 1 }).lean<
        Pick<UserDoc, 'username'> & Partial<Pick<UserDoc, 'groupIds'>>
      >()
    : null;
  if (!user) return null;
  const groupIds = user.groupIds ?? [];
  const since = new Date(now.getTime() - LIVE_WINDOW_SECONDS * 1000);
  const [policies, grants, agentNhes, optOuts, recent, audit, entries] = await Promise.all([
    models.DelegationPolicy.find({
      tenantId,
      $or: [
        { 'target.type': 'user' as const, 'target.id': userId },
        ...(groupIds.length ? [{ 'target.type': 'group' as const, 'target.id': { $in: groupIds } }] : []),
      ],
    }).lean<Array<DelegationPolicyDoc & { _id: unknown }>>(),
    rememberedGrants(models, tenantId, userId),
    models.Nhe.find({ tenantId, agentClients: { $exists: true, $ne: [] } }).lean<NheRow[]>(),
    models.AgentOptOut.find({ tenantId, userId }).lean<AgentOptOutDoc[]>(),
    models.TokenAudit.find({ tenantId, userId, issuedAt: { $gte: since } }).lean<TokenAuditDoc[]>(),
    models.TokenAudit.find({ tenantId, userId })
      .sort({ issuedAt: -1, _id: -1 })
      .limit(LEDGER_AUDIT_ROWS)
      .lean<TokenAuditDoc[]>(),
    store.active(now, tenantId),
  ]);

  // Every NHE the ledger names, loaded once.
  const ids = new Set<string>([
    ...policies.map((p) => p.nheId),
    ...optOuts.map((o) => o.nheId),
    ...recent.map((r) => r.nheId),
  ]);
  const byId = new Map<string, NheRow>(agentNhes.map((n) => [String(n._id), n]));
  const missing = [...ids]
    .filter((id) => !byId.has(id))
    .map(toObjectId)
    .filter((o): o is NonNullable<typeof o> => o !== undefined);
  if (missing.length)
    for (const n of await models.Nhe.find({ tenantId, _id: { $in: missing } }).lean<NheRow[]>())
      byId.set(String(n._id), n);

  // Group names for the policies that reach the user through a group.
  const groupPolicyIds = [...new Set(policies.filter((p) => p.target.type === 'group').map((p) => p.target.id))]
    .map(toObjectId)
    .filter(Boolean);
  const groupNames = new Map<string, string>();
  if (groupPolicyIds.length)
    for (const g of await models.Group.find({ tenantId, _id: { $in: groupPolicyIds } }, { name: 1 }).lean())
      groupNames.set(String(g._id), g.name);

  const agents = new Map<string, LedgerAgent>();
  const agentOf = (id: string): LedgerAgent | undefined => {
    const existing = agents.get(id);
    if (existing) return existing;
    const n = byId.get(id);
    if (!n) return undefined;
    const model = n.model ? [n.model.provider, n.model.name, n.model.version].filter(Boolean).join(' ') : '';
    const a: LedgerAgent = {
      nheId: id,
      identifier: n.identifier,
      type: n.type,
      operator: n.operator,
      ...(model ? { model } : {}),
      enabled: n.enabled,
      links: [],
      blocked: false,
      tokens: [],
    };
    agents.set(id, a);
    return a;
  };

  // A policy naming the user wins over group policies (libs/delegation matchPolicies): only the winners are shown.
  const direct = new Set(policies.filter((p) => p.target.type === 'user').map((p) => p.nheId));
  for (const p of policies) {
    if (p.target.type !== 'user' && p.target.type !== 'group') continue;
    if (p.target.type === 'group' && direct.has(p.nheId)) continue;
    agentOf(p.nheId)?.links.push({
      kind: 'policy',
      target: p.target.type,
      ...(p.target.type === 'group' ? { groupName: groupNames.get(p.target.id) ?? p.target.id } : {}),
      scopes: p.allowedScopes,
      ...(typeof p.maxTokenLifetime === 'number' ? { maxTokenLifetime: p.maxTokenLifetime } : {}),
    });
  }
  for (const g of grants) {
    for (const n of agentNhes) {
      if (!(n.agentClients ?? []).some((e) => agentClientMatches(e, g.clientId))) continue;
      const scopes = [...new Set(Object.values(g.resources).flatMap((s) => s.split(' ').filter(Boolean)))];
      agentOf(String(n._id))?.links.push({ kind: 'consent', clientId: g.clientId, scopes });
    }
  }
  for (const o of optOuts) {
    const a = agentOf(o.nheId);
    if (a) Object.assign(a, { blocked: true, blockedAt: o.createdAt });
  }
  const denyList = new DenyList(() => now.getTime());
  for (const e of entries) denyList.add(e);
  for (const r of recent) {
    const expiresAt = new Date(r.issuedAt.getTime() + r.ttl * 1000);
    if (expiresAt <= now) continue;
    const revoked = denyList.isRevoked({
      tenantId,
      nheIdentifier: r.nheIdentifier,
      jti: r.jti,
      azp: r.clientNumericId,
      sub: r.userId,
      iat: Math.floor(r.issuedAt.getTime() / 1000),
    });
    agentOf(r.nheId)?.tokens.push({
      jti: r.jti,
      clientId: r.clientId,
      resourceServer: r.resourceServer,
      scopes: r.scopes,
      issuedAt: r.issuedAt,
      expiresAt,
      revoked,
      ...assertionOf(r),
    });
  }
  for (const a of agents.values()) a.tokens.sort((x, y) => y.issuedAt.getTime() - x.issuedAt.getTime());

  // People know their applications and APIs by name, not by client_id or URL.
  const clientIds = new Set<string>([...recent, ...audit].map((r) => r.clientId));
  for (const g of grants) clientIds.add(g.clientId);
  const resourceIds = new Set<string>([...recent, ...audit].map((r) => r.resourceServer));
  const [clients, resources] = await Promise.all([
    models.Client.find(
      { tenantId, clientId: { $in: [...clientIds] } },
      { clientId: 1, name: 1, redirectUris: 1 },
    ).lean(),
    models.ResourceServer.find({ tenantId, identifier: { $in: [...resourceIds] } }, { identifier: 1, name: 1 }).lean(),
  ]);
  const names = {
    clients: Object.fromEntries(clients.filter((c) => c.name).map((c) => [c.clientId, c.name])),
    resources: Object.fromEntries(resources.filter((r) => r.name).map((r) => [r.identifier, r.name])),
  };

  const granted = new Set(grants.map((g) => g.clientId));
  const applications = clients
    .filter((c) => granted.has(c.clientId) && c.clientId !== ACCOUNT_CLIENT_ID)
    .flatMap((c) => {
      const url = homeOf(c.redirectUris);
      return url ? [{ clientId: c.clientId, name: c.name || c.clientId, url }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));

  return {
    username: user.username,
    names,
    applications,
    agents: [...agents.values()].sort((x, y) => x.identifier.localeCompare(y.identifier)),
    audit: audit.map((r) => ({
      issuedAt: r.issuedAt,
      nheIdentifier: r.nheIdentifier,
      clientId: r.clientId,
      resourceServer: r.resourceServer,
      scopes: r.scopes,
      ttl: r.ttl,
      sourceIp: r.sourceIp,
      ...assertionOf(r),
    })),
  };
}

/** An ID-JAG this tenant issued (crossDomain `issued`): the authorization server it is for. */
function assertionOf(r: TokenAuditDoc): { assertionFor?: string } {
  return r.crossDomain?.direction === 'issued' ? { assertionFor: r.crossDomain.peer } : {};
}

/** The agent clients of an NHE among the user's remembered grants: the consents "revoke" forgets. */
export function grantsOfAgent(grants: RememberedGrant[], nhe: Pick<NheDoc, 'agentClients'>): RememberedGrant[] {
  return grants.filter((g) => (nhe.agentClients ?? []).some((e) => agentClientMatches(e, g.clientId)));
}
