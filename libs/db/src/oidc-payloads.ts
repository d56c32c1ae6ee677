import type { Models } from './models';

/**
 * node-oidc-provider's storage (oidc-core provider/adapter.ts) keeps each payload as JSON text under
 * `_id` `<tenantId>:<model>:<id>`. An account's sessions and grants are found by their accountId: matched in the text
 * (an index-free scan bounded by the tenant and model), then checked on the parsed payload, so an id that only appears
 * inside another member never matches. Expired payloads the sweeper has not removed yet are left out; a payload that
 * is not JSON (written by hand) is nobody's.
 */
export interface AccountPayload {
  /** The provider's id (the part after `<tenantId>:<model>:`). */
  id: string;
  /** The stored document's `_id`. */
  docId: string;
  expiresAt?: Date;
  payload: Record<string, unknown>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export async function accountPayloads(
  models: Models,
  tenantId: number,
  model: 'Session' | 'Grant' | 'RefreshToken',
  accountId: string,
  limit = 500,
): Promise<AccountPayload[]> {
  const docs = await models.OidcPayload.find(
    { tenantId, model, payload: { $regex: escapeRegExp(`"accountId":${JSON.stringify(accountId)}`) } },
    { payload: 1, expiresAt: 1 },
  )
    .limit(limit)
    .lean<Array<{ _id: string; payload: string; expiresAt?: Date }>>();
  const now = Date.now();
  const prefix = `${tenantId}:${model}:`;
  const out: AccountPayload[] = [];
  for (const d of docs) {
    if (d.expiresAt && d.expiresAt.getTime() <= now) continue;
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(d.payload) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (payload.accountId !== accountId || !d._id.startsWith(prefix)) continue;
    out.push({
      id: d._id.slice(prefix.length),
      docId: d._id,
      ...(d.expiresAt ? { expiresAt: d.expiresAt } : {}),
      payload,
    });
  }
  return out;
}

/**
 * Ends what a stolen password could have obtained for an account: its sign-in sessions and its refresh tokens (the
 * provider's Session and RefreshToken payloads). Access tokens run out by their short lifetime; consents stay.
 * Returns how many of each ended.
 */
export async function endAccountSignIns(
  models: Models,
  tenantId: number,
  accountId: string,
): Promise<{ sessions: number; refreshTokens: number }> {
  const sessions = await endAccountSessions(models, tenantId, accountId);
  const tokens = await accountPayloads(models, tenantId, 'RefreshToken', accountId, 10_000);
  const refreshTokens = tokens.length
    ? (await models.OidcPayload.deleteMany({ tenantId, _id: { $in: tokens.map((t) => t.docId) } })).deletedCount
    : 0;
  return { sessions, refreshTokens };
}

/** Ends every sign-in session of an account (the provider's Session payloads); returns how many. */
export async function endAccountSessions(models: Models, tenantId: number, accountId: string): Promise<number> {
  const sessions = await accountPayloads(models, tenantId, 'Session', accountId, 10_000);
  if (!sessions.length) return 0;
  const res = await models.OidcPayload.deleteMany({ tenantId, _id: { $in: sessions.map((s) => s.docId) } });
  return res.deletedCount;
}
