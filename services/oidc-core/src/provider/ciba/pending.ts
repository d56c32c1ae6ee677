/**
 * A person's pending backchannel authentication requests, read from the provider's store (the adapter keeps the
 * request's accountId on its record while nobody has decided it: adapter.ts). One indexed query each: the per-person
 * limit counts them, the ledger page lists them.
 */
import { createHash } from 'node:crypto';
import type { Models } from '@idp/db';
import { firstTimeFor } from '../single-use';

export const CIBA_MODEL = 'BackchannelAuthenticationRequest';

/** The stored key of a request (the adapter's `_id`). */
export const requestKey = (tenantId: number, id: string) => `${tenantId}:${CIBA_MODEL}:${id}`;

/**
 * A request's public handle: the auth_req_id is the client's credential at the token endpoint, so the page, the
 * forms and the audit row name the request by a digest of it instead.
 */
export const requestHandle = (id: string) =>
  createHash('sha256').update(`idp-ciba:${id}`).digest('base64url').slice(0, 32);

/** True the first time `what` happens to the request (a decision, a redemption), false after: provider/single-use.ts. */
export function firstTime(
  models: Models,
  tenantId: number,
  what: 'decided' | 'redeemed',
  id: string,
  expiresAt?: Date,
): Promise<boolean> {
  return firstTimeFor(models, tenantId, CIBA_MODEL, what, id, expiresAt);
}

export interface PendingRequest {
  /** auth_req_id (never leaves the server: see requestHandle). */
  id: string;
  handle: string;
  clientId: string;
  accountId: string;
  scope: string;
  resource?: string;
  bindingMessage?: string;
  authorizationDetails?: Array<Record<string, unknown>>;
  /** The NHE the request named (actor_token), when it named one. */
  nheIdentifier?: string;
  createdAt: Date;
  expiresAt: Date;
}

/** How many undecided, unexpired requests the person has. */
export function countPending(models: Models, tenantId: number, accountId: string, now = new Date()): Promise<number> {
  return models.OidcPayload.countDocuments({ tenantId, model: CIBA_MODEL, accountId, expiresAt: { $gt: now } });
}

/** Undecided, unexpired requests of one client, over every person it asked (the per-client limit). */
export function countPendingOfClient(
  models: Models,
  tenantId: number,
  clientId: string,
  now = new Date(),
): Promise<number> {
  return models.OidcPayload.countDocuments({ tenantId, model: CIBA_MODEL, clientId, expiresAt: { $gt: now } });
}

/** The person's undecided, unexpired requests, oldest first. */
export async function listPending(
  models: Models,
  tenantId: number,
  accountId: string,
  now = new Date(),
): Promise<PendingRequest[]> {
  const docs = await models.OidcPayload.find(
    { tenantId, model: CIBA_MODEL, accountId, expiresAt: { $gt: now } },
    { payload: 1, expiresAt: 1 },
  )
    .limit(100)
    .lean();
  const out: PendingRequest[] = [];
  for (const doc of docs) {
    const p = pendingOf(String(doc._id).split(':').slice(2).join(':'), doc.payload, doc.expiresAt);
    if (p && p.accountId === accountId) out.push(p);
  }
  return out.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
}

/** One stored request as the page shows it; undefined when it is decided or not one. */
export function pendingOf(id: string, payload: string, expiresAt: Date | undefined): PendingRequest | undefined {
  let p: Record<string, unknown>;
  try {
    p = JSON.parse(payload) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (p.grantId || p.error || typeof p.accountId !== 'string' || typeof p.clientId !== 'string') return undefined;
  const params = (p.params ?? {}) as Record<string, unknown>;
  const details = parseDetails(params.authorization_details);
  const resource = typeof p.resource === 'string' ? p.resource : undefined;
  return {
    id,
    handle: requestHandle(id),
    clientId: p.clientId,
    accountId: p.accountId,
    scope: typeof p.scope === 'string' ? p.scope : '',
    ...(resource ? { resource } : {}),
    ...(typeof params.binding_message === 'string' ? { bindingMessage: params.binding_message } : {}),
    ...(details ? { authorizationDetails: details } : {}),
    ...(typeof params.actor_token === 'string' ? { nheIdentifier: params.actor_token } : {}),
    createdAt: new Date((typeof p.iat === 'number' ? p.iat : 0) * 1000),
    expiresAt: expiresAt ?? new Date((typeof p.exp === 'number' ? p.exp : 0) * 1000),
  };
}

/** authorization_details as sent (a JSON text, RFC 9396 section 2), or undefined. */
export function parseDetails(value: unknown): Array<Record<string, unknown>> | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) && parsed.every((d) => d && typeof d === 'object' && !Array.isArray(d))
      ? (parsed as Array<Record<string, unknown>>)
      : undefined;
  } catch {
    return undefined;
  }
}
