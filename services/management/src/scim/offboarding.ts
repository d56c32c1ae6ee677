/**
 * Offboarding: when the directory sets `active` to false or deletes the person (RFC 7644 sections 3.5 and 3.6), every
 * credential that acts for them stops at once, and nothing comes back when they are reactivated:
 *
 * 1. The kill switch (libs/events revocations): one deny-list entry for the subject. Delegation tokens of every agent
 *    acting for the person (also tokens handed down a delegation chain, whose `sub` stays the person's) issued at or
 *    before this instant are refused by every verifier reading the list, and the signals service transmits it to
 *    receivers outside the cluster (Shared Signals). Tokens minted after a reactivation carry a later `iat`.
 * 2. The provider's stored state for the account (oidc-core provider/adapter.ts): sign-in sessions, grants and
 *    everything issued under them (refresh tokens, opaque access tokens, authorization codes; node-oidc-provider's
 *    revokeByGrantId), device and backchannel requests, and in-flight interactions (pending approvals and consent
 *    prompts) are deleted.
 */
import type { Models } from '@idp/db';
import type { RevocationInput } from '@idp/events';
import { nheSettingsOf, loadTenant } from '../routes/deps';
import { scimErrors } from './errors';

export type OffboardingReason = 'user.deprovisioned' | 'user.deleted';

export interface OffboardingResult {
  reason: OffboardingReason;
  revocationPublished: boolean;
  sessionsEnded: number;
  grantsEnded: number;
  tokensDeleted: number;
  pendingCancelled: number;
}

/** Stored payload kinds that belong to an account (node-oidc-provider model names). */
const ACCOUNT_MODELS = [
  'RefreshToken',
  'AccessToken',
  'AuthorizationCode',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
];
const PENDING_MODELS = ['Interaction'];

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function ownedBy(payload: string, accountId: string): boolean {
  try {
    const p = JSON.parse(payload) as {
      accountId?: unknown;
      session?: { accountId?: unknown };
      result?: { login?: { accountId?: unknown } };
    };
    return p.accountId === accountId || p.session?.accountId === accountId || p.result?.login?.accountId === accountId;
  } catch {
    return false;
  }
}

async function payloadsOf(models: Models, tenantId: number, model: string[], accountId: string) {
  const docs = await models.OidcPayload.find(
    { tenantId, model: { $in: model }, payload: { $regex: escapeRegExp(`"accountId":${JSON.stringify(accountId)}`) } },
    { payload: 1, grantId: 1, model: 1 },
  )
    .limit(10_000)
    .lean<Array<{ _id: string; payload: string; model: string; grantId?: string }>>();
  return docs.filter((d) => d._id.startsWith(`${tenantId}:`) && ownedBy(d.payload, accountId));
}

export async function offboard(
  deps: { models: Models; revoke?: (input: RevocationInput) => Promise<void> },
  tenantId: number,
  userId: string,
  reason: OffboardingReason,
): Promise<OffboardingResult> {
  const { models } = deps;
  // The kill switch first: if it cannot be confirmed the directory gets a 503 and retries, and the retry does it all.
  let revocationPublished = false;
  if (deps.revoke) {
    const settings = nheSettingsOf(await loadTenant(models, tenantId));
    try {
      await deps.revoke({ tenantId, subject: userId, reason, maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime });
    } catch {
      throw scimErrors.unavailable('the revocation of the delegation tokens could not be confirmed; retry the request');
    }
    revocationPublished = true;
  }
  return { reason, revocationPublished, ...(await endStoredAccess(models, tenantId, userId)) };
}

/**
 * The provider's stored state for the account (step 2 above), without the kill switch: also what a password set
 * through SCIM ends, so that whoever held the old password keeps no session, refresh token or grant.
 */
export async function endStoredAccess(models: Models, tenantId: number, userId: string) {
  const sessions = await payloadsOf(models, tenantId, ['Session'], userId);
  const grants = await payloadsOf(models, tenantId, ['Grant'], userId);
  const grantIds = grants.map((g) => g._id.slice(`${tenantId}:Grant:`.length));
  const tokens = await payloadsOf(models, tenantId, ACCOUNT_MODELS, userId);
  const pending = await payloadsOf(models, tenantId, PENDING_MODELS, userId);
  const ids = [...sessions, ...grants, ...tokens, ...pending].map((d) => d._id);
  if (ids.length) await models.OidcPayload.deleteMany({ tenantId, _id: { $in: ids } });
  let underGrants = 0;
  if (grantIds.length)
    underGrants = (await models.OidcPayload.deleteMany({ tenantId, grantId: { $in: grantIds } })).deletedCount;
  return {
    sessionsEnded: sessions.length,
    grantsEnded: grants.length,
    tokensDeleted: tokens.length + underGrants,
    pendingCancelled: pending.length,
  };
}
