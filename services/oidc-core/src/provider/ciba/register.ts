/**
 * What node-oidc-provider's CIBA leaves to us, as middleware of the tenant's provider (provider.use, public API):
 *
 * - `interval` (CIBA Core section 7.3) in the backchannel authentication response, which the library omits;
 * - `slow_down` (section 11) to a client polling faster than that interval: the library answers every early poll
 *   `authorization_pending`. The last poll time is kept on the request's record in MongoDB (one conditional update),
 *   so the rule holds across replicas, as for device codes (provider/device-polling.ts);
 * - the delegation token: once the person approved and the library has redeemed the request, its own access token
 *   is discarded and the sidecar decides, mints and audits the NHE delegation token (act, agent,
 *   authorization_details) exactly as for token exchange; the audit row carries the approval;
 * - discovery: backchannel_user_code_parameter_supported false (the library writes true; we accept no user_code).
 */
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import type { Models, TenantDoc } from '@idp/db';
import type { Logger } from '@idp/logger';
import { LOGIN_SCOPES } from '../claims';
import { clientAddress } from '../client-address';
import { CLIENT_PROPS } from '../client-metadata';
import { parseDetails, requestHandle, requestKey } from './pending';
import { setCibaRuntime, type CibaForwarder, type CibaRequested } from './runtime';
import { CIBA_GRANT_TYPE, cibaSettingsOf } from './settings';

export interface RegisterCibaOptions {
  models: Models;
  tenant: Pick<TenantDoc, '_id' | 'settings' | 'system'>;
  forward?: CibaForwarder | undefined;
  notify?: ((event: CibaRequested) => void) | undefined;
  logger?: Logger | undefined;
}

interface StoredRequest {
  jti: string;
  params?: Record<string, unknown>;
  rar?: Array<Record<string, unknown>>;
  acr?: string;
  amr?: string[];
  authTime?: number;
}

export function registerCiba(provider: Provider, o: RegisterCibaOptions): void {
  const settings = cibaSettingsOf(o.tenant);
  if (!settings.enabled) return;
  const tenantId = o.tenant._id;
  setCibaRuntime(provider, { models: o.models, tenantId, settings, forward: o.forward, notify: o.notify });
  const interval = settings.pollIntervalSeconds;

  provider.use(async (koa, next) => {
    await next();
    const ctx = koa as unknown as KoaContextWithOIDC;
    const route = (ctx as { oidc?: { route?: string } }).oidc?.route;
    if (route === 'discovery' && ctx.status === 200) {
      (ctx.body as Record<string, unknown>).backchannel_user_code_parameter_supported = false;
      return;
    }
    if (route === 'backchannel_authentication' && ctx.status === 200) {
      (ctx.body as Record<string, unknown>).interval = interval;
      return;
    }
    if (route !== 'token' || ctx.oidc.params?.grant_type !== CIBA_GRANT_TYPE) return;
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status === 400 && body?.error === 'authorization_pending') {
      if (await tooFast(o.models, tenantId, String(ctx.oidc.params.auth_req_id), interval))
        ctx.body = {
          error: 'slow_down',
          error_description: `polling too quickly; wait at least ${interval} seconds between requests`,
        };
      return;
    }
    if (ctx.status !== 200 || !body || typeof body.access_token !== 'string') return;
    await mintDelegationToken(ctx, body, o, tenantId);
  });
}

/** True when the request was polled less than `interval` seconds ago (and this poll is remembered either way). */
async function tooFast(models: Models, tenantId: number, id: string, interval: number): Promise<boolean> {
  const now = Date.now();
  const _id = requestKey(tenantId, id);
  try {
    const inTime = await models.OidcPayload.updateOne(
      { _id, $or: [{ lastPolledAt: { $exists: false } }, { lastPolledAt: { $lte: new Date(now - interval * 1000) } }] },
      { $set: { lastPolledAt: new Date(now) } },
    );
    if (inTime.matchedCount > 0) return false;
    // Too early: this poll counts too, so a client that keeps hammering keeps getting slow_down.
    await models.OidcPayload.updateOne({ _id }, { $set: { lastPolledAt: new Date(now) } });
    return true;
  } catch {
    return false; // the store hiccuped: authorization_pending is still a correct answer
  }
}

async function mintDelegationToken(
  ctx: KoaContextWithOIDC,
  body: Record<string, unknown>,
  o: RegisterCibaOptions,
  tenantId: number,
): Promise<void> {
  const fail = (status: number, error: string, description: string) => {
    ctx.status = status;
    ctx.body = { error, error_description: description };
  };
  ctx.set('Cache-Control', 'no-store');
  const client = ctx.oidc.client!;
  const request = ctx.oidc.entities.BackchannelAuthenticationRequest as unknown as StoredRequest | undefined;
  const grant = ctx.oidc.entities.Grant as unknown as { iat?: number } | undefined;
  const at = ctx.oidc.entities.AccessToken as unknown as
    { accountId?: string; jkt?: string; scope?: string; resourceServer?: { identifier(): string } } | undefined;
  const resource = at?.resourceServer?.identifier();
  // The check before the person was asked refused anything else; a token without an API is never handed out here.
  if (!request || !at?.accountId || !resource)
    return fail(
      400,
      'invalid_grant',
      'this request was not for an API; start a new backchannel authentication request',
    );
  if (!o.forward) return fail(503, 'temporarily_unavailable', 'delegation tokens are unavailable, retry later');
  const params = request.params ?? {};
  const numericId = Number(client[CLIENT_PROPS.numericId]);
  const scopes = (at.scope ?? '').split(' ').filter((s) => s && !LOGIN_SCOPES.has(s));
  const details = request.rar?.length ? request.rar : parseDetails(params.authorization_details);
  const bindingMessage = typeof params.binding_message === 'string' ? params.binding_message : undefined;
  const result = await o.forward({
    stage: 'mint',
    tenantId,
    clientId: client.clientId,
    clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
    userId: at.accountId,
    ...(params.actor_token !== undefined && typeof params.actor_token === 'string'
      ? { nheIdentifier: params.actor_token }
      : {}),
    resource,
    scopes,
    ...(details?.length ? { authorizationDetails: details as [{ type: string }] } : {}),
    approval: {
      requestId: requestHandle(request.jti),
      approvedAt: new Date((grant?.iat ?? Math.floor(Date.now() / 1000)) * 1000).toISOString(),
      ...(bindingMessage ? { bindingMessage } : {}),
      ...(request.authTime ? { authTime: new Date(request.authTime * 1000).toISOString() } : {}),
      ...(request.amr?.length ? { amr: request.amr } : {}),
      ...(request.acr ? { acr: request.acr } : {}),
    },
    ...(at.jkt ? { jkt: at.jkt } : {}),
    sourceIp: clientAddress(ctx),
  });
  if (result.status !== 200 || typeof result.body.access_token !== 'string') {
    ctx.status = result.status === 200 ? 503 : result.status;
    ctx.body = result.body;
    return;
  }
  // The provider's own access token never leaves; no refresh token (delegation tokens are short-lived).
  const { refresh_token: _dropped, ...rest } = body;
  const login = typeof body.scope === 'string' ? body.scope.split(' ').filter((s) => LOGIN_SCOPES.has(s)) : [];
  ctx.body = {
    ...rest,
    access_token: result.body.access_token,
    token_type: result.body.token_type,
    expires_in: result.body.expires_in,
    scope: [
      ...new Set([
        ...login,
        ...String(result.body.scope ?? '')
          .split(' ')
          .filter(Boolean),
      ]),
    ].join(' '),
    ...(details?.length ? { authorization_details: details } : {}),
  };
}
