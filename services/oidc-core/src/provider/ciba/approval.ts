/**
 * The person's decision on a pending backchannel authentication request (CIBA Core section 7: the authentication
 * device). Approval builds the grant the token endpoint redeems (the requested scopes, for the one API) and completes
 * the request with node-oidc-provider's backchannelResult, with how the person had signed in (acr, amr, auth_time) and
 * the authorization details they saw (rar); a ping client is then notified by the library. Denial completes it with
 * access_denied (section 11) and records the refusal in the decision log through the sidecar.
 */
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Models } from '@idp/db';
import { agentLinkOf } from '@idp/delegation';
import type { Logger } from '@idp/logger';
import { LOGIN_SCOPES } from '../claims';
import { CLIENT_PROPS } from '../client-metadata';
import { describeDetail } from './authorization-details';
import { firstTime, listPending, type PendingRequest } from './pending';
import { cibaRuntimeOf } from './runtime';

/** The person's browser session as the approval needs it. */
export interface ApprovingSession {
  accountId: string;
  /** Seconds since the epoch of the sign-in. */
  authTime?: number | undefined;
  amr?: string[] | undefined;
  acr?: string | undefined;
}

export type DecisionOutcome = 'approved' | 'denied' | 'gone' | 'reauthenticate';

/** A pending request in the page's words (JSON for the live list, HTML for the first render). */
export interface PendingView {
  handle: string;
  agent: { identifier: string; type?: string; operator?: string } | null;
  client: { id: string; name: string };
  bindingMessage: string | null;
  scopes: string[];
  resource: string | null;
  details: string[];
  expiresAt: string;
}

/** The person's pending requests with names the page shows. */
export async function pendingViews(models: Models, tenantId: number, accountId: string): Promise<PendingView[]> {
  const pending = await listPending(models, tenantId, accountId);
  if (!pending.length) return [];
  const clientIds = [...new Set(pending.map((p) => p.clientId))];
  const clients = await models.Client.find({ tenantId, clientId: { $in: clientIds } }, { clientId: 1, name: 1 }).lean();
  const names = new Map(clients.map((c) => [c.clientId, c.name]));
  const agents = new Map<string, PendingView['agent']>();
  for (const p of pending) {
    const key = p.nheIdentifier ? `nhe:${p.nheIdentifier}` : `client:${p.clientId}`;
    if (agents.has(key)) continue;
    agents.set(key, await agentOf(models, tenantId, p));
  }
  return pending.map((p) => ({
    handle: p.handle,
    agent: agents.get(p.nheIdentifier ? `nhe:${p.nheIdentifier}` : `client:${p.clientId}`) ?? null,
    client: { id: p.clientId, name: names.get(p.clientId) ?? p.clientId },
    bindingMessage: p.bindingMessage ?? null,
    scopes: p.scope.split(' ').filter((s) => s && !LOGIN_SCOPES.has(s)),
    resource: p.resource ?? null,
    details: (p.authorizationDetails ?? []).map(describeDetail),
    expiresAt: p.expiresAt.toISOString(),
  }));
}

async function agentOf(models: Models, tenantId: number, p: PendingRequest): Promise<PendingView['agent']> {
  if (p.nheIdentifier) {
    const nhe = await models.Nhe.findOne(
      { tenantId, identifier: p.nheIdentifier },
      { identifier: 1, type: 1, operator: 1 },
    ).lean();
    return nhe
      ? { identifier: nhe.identifier, type: nhe.type, operator: nhe.operator }
      : { identifier: p.nheIdentifier };
  }
  const link = await agentLinkOf(models, tenantId, p.clientId);
  return link.kind === 'agent'
    ? { identifier: link.nhe.identifier, type: link.nhe.type, operator: link.nhe.operator }
    : null;
}

/** Approve or deny the person's pending request named by its handle. */
export async function decide(
  provider: Provider,
  models: Models,
  tenantId: number,
  session: ApprovingSession,
  handle: string,
  decision: 'approve' | 'deny',
  logger?: Logger,
): Promise<DecisionOutcome> {
  const runtime = cibaRuntimeOf(provider);
  if (!runtime) return 'gone';
  const pending = (await listPending(models, tenantId, session.accountId)).find((p) => p.handle === handle);
  if (!pending) return 'gone';
  const request = await provider.BackchannelAuthenticationRequest.find(pending.id);
  // Another tab or device decided it meanwhile, or it expired: nothing to do.
  if (!request || request.accountId !== session.accountId || request.grantId || request.error || request.isExpired)
    return 'gone';
  // One decision per request, whatever the tabs, devices or replicas: the first to claim it decides. Without this, two
  // approvals that both read it pending would each save a grant, and the second save (a whole-record rewrite) would
  // drop `consumed`, so the auth_req_id could be redeemed twice.
  const claim = () => firstTime(models, tenantId, 'decided', pending.id, pending.expiresAt);
  if (decision === 'deny') {
    if (!(await claim())) return 'gone';
    await provider.backchannelResult(request, new errors.AccessDenied('the person denied the request'));
    await recordDenial(provider, tenantId, pending, logger);
    return 'denied';
  }
  const maxAge = runtime.settings.approvalMaxAuthAgeSeconds;
  if (maxAge !== undefined && (!session.authTime || Date.now() / 1000 - session.authTime > maxAge))
    return 'reauthenticate';
  if (!(await claim())) return 'gone';
  const grant = new provider.Grant({ accountId: session.accountId, clientId: pending.clientId });
  const scopes = pending.scope.split(' ').filter(Boolean);
  const login = scopes.filter((s) => LOGIN_SCOPES.has(s));
  if (login.length) grant.addOIDCScope(login.join(' '));
  const api = scopes.filter((s) => !LOGIN_SCOPES.has(s));
  if (pending.resource && api.length) grant.addResourceScope(pending.resource, api.join(' '));
  await grant.save();
  try {
    await provider.backchannelResult(request, grant, {
      ...(session.acr ? { acr: session.acr } : {}),
      ...(session.amr ? { amr: session.amr } : {}),
      ...(session.authTime ? { authTime: session.authTime } : {}),
      ...(pending.authorizationDetails ? { rar: pending.authorizationDetails as never } : {}),
    });
  } catch (err) {
    // Saved before the ping (lib/provider.js): a client notification endpoint that fails does not undo the approval;
    // the client still obtains the token by polling.
    logger?.warn({ err, tenantId }, 'ciba: approval saved, client notification failed');
  }
  return 'approved';
}

/** The person's denial in the decision log (the sidecar publishes refusals); best effort. */
async function recordDenial(provider: Provider, tenantId: number, p: PendingRequest, logger?: Logger): Promise<void> {
  const runtime = cibaRuntimeOf(provider);
  if (!runtime?.forward) return;
  const client = await provider.Client.find(p.clientId);
  const numericId = Number(client?.[CLIENT_PROPS.numericId]);
  const answer = await runtime.forward({
    stage: 'denied',
    tenantId,
    clientId: p.clientId,
    clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
    userId: p.accountId,
    ...(p.nheIdentifier ? { nheIdentifier: p.nheIdentifier } : {}),
    resource: p.resource ?? provider.issuer,
    scopes: p.scope.split(' ').filter((s) => s && !LOGIN_SCOPES.has(s)),
    sourceIp: '127.0.0.1',
  });
  if (answer.status !== 200)
    logger?.warn({ tenantId, status: answer.status }, 'ciba: denial not recorded in the decision log');
}
