/**
 * OpenID Client-Initiated Backchannel Authentication (CIBA Core 1.0, poll and ping) with Rich Authorization Requests
 * (RFC 9396), for agents that ask a person before acting: node-oidc-provider's `features.ciba` and
 * `features.richAuthorizationRequests`, on only for a tenant whose settings.backchannelAuthentication.enabled is set.
 *
 * The backchannel authentication endpoint runs these hooks in this order (lib/actions/authorization/index.js):
 * validateRequestContext and validateBindingMessage, then the hint (processLoginHint, or the library's id_token_hint),
 * then verifyUserCode with the person's account, then the request is stored and triggerAuthenticationDevice runs
 * before the response is sent. verifyUserCode is the first hook that knows the person, so it is where the request is
 * checked before anyone is asked: the per-person limit of pending requests, and the delegation decision of the
 * sidecar as if the person approved (a disabled NHE, a client that may not delegate to it, scopes beyond the
 * policies: refused here, and the person is never notified).
 */
import type {
  CIBAEnabledConfiguration,
  Configuration,
  KoaContextWithOIDC,
  RichAuthorizationRequestsActiveConfiguration,
} from 'oidc-provider';
import { errors } from 'oidc-provider';
import { Types } from 'mongoose';
import type { Models, TenantDoc } from '@idp/db';
import { TOKEN_TYPE_NHE_ID } from '@idp/tokens';
import { LOGIN_SCOPES } from '../claims';
import { CLIENT_PROPS } from '../client-metadata';
import { clientAddress } from '../client-address';
import { userinfoAudience } from '../userinfo-audience';
import { validateAgentAction } from './authorization-details';
import { countPending, countPendingOfClient, parseDetails, requestHandle } from './pending';
import { cibaRuntimeOf } from './runtime';
import { AGENT_ACTION_TYPE, cibaSettingsOf } from './settings';

/** Extra parameters of the backchannel authentication request: the NHE it is for (as token exchange names it). */
export const CIBA_ACTOR_PARAMS = ['actor_token', 'actor_token_type'] as const;

/** Binding messages people read (CIBA Core section 7.1): printable text, no control or bidi-override characters. */
const BINDING_MESSAGE = /^[^\p{Cc}\p{Cf}]{1,128}$/u;

interface Features {
  ciba?: CIBAEnabledConfiguration;
  richAuthorizationRequests?: RichAuthorizationRequestsActiveConfiguration;
}

/** `features.ciba` and `features.richAuthorizationRequests` for the tenant; nothing when it has not turned CIBA on. */
export function cibaFeatures(
  tenant: Pick<TenantDoc, '_id' | 'settings' | 'system'>,
  models: Models,
): Record<never, never> {
  const settings = cibaSettingsOf(tenant);
  if (!settings.enabled) return {};
  const tenantId = tenant._id;
  // Checked against the library's types here; handed back as an opaque spread, since the Configuration's features
  // union (OpenID4VCI branches) cannot be narrowed from a spread.
  const features: Features = {
    ciba: {
      enabled: true,
      // node-oidc-provider implements poll and ping; push (tokens posted to the client) it refuses at configuration.
      deliveryModes: ['poll', 'ping'],
      // A public client is refused before its hint is looked up: it may not probe usernames (unknown_user_id) either.
      processLoginHint: (ctx, hint) => {
        refusePublicClient(ctx);
        return accountOfHint(models, tenantId, hint);
      },
      processLoginHintToken: () => {
        throw new errors.InvalidRequest('login_hint_token is not supported; send login_hint or id_token_hint');
      },
      validateBindingMessage: (_ctx, message) => {
        if (message !== undefined && !BINDING_MESSAGE.test(message.trim()))
          throw new errors.InvalidBindingMessage(
            'binding_message must be 1 to 128 printable characters (the person reads it on their device)',
          );
      },
      // request_context has no meaning here: refused rather than silently ignored.
      validateRequestContext: (_ctx, context) => {
        if (context !== undefined) throw new errors.InvalidRequest('request_context is not supported');
      },
      verifyUserCode: async (ctx, account, userCode) => {
        // backchannel_user_code_parameter_supported is false (discovery): no client may send one.
        if (userCode !== undefined) throw new errors.InvalidRequest('user_code is not supported');
        await checkBeforeAsking(ctx, models, tenantId, account.accountId);
      },
      // Runs before the response is sent (lib/actions/authorization/ciba.js): it only tells the notifier and returns.
      triggerAuthenticationDevice: (ctx, request, account, client) => {
        const runtime = cibaRuntimeOf(ctx.oidc.provider);
        runtime?.notify?.({
          tenantId,
          accountId: account.accountId,
          handle: requestHandle(request.jti),
          clientId: client.clientId,
          expiresAt: new Date((request.exp ?? 0) * 1000).toISOString(),
        });
      },
    },
    richAuthorizationRequests: {
      enabled: true,
      types: {
        [AGENT_ACTION_TYPE]: {
          validate: (ctx, detail) => {
            // Only a person who reads them approves details: not at the authorization endpoint's consent page.
            const route = ctx.oidc.route;
            if (route !== 'backchannel_authentication' && route !== 'token')
              throw new errors.InvalidAuthorizationDetails(
                'authorization_details are accepted with backchannel authentication requests only',
              );
            validateAgentAction(detail as unknown as Record<string, unknown>);
          },
        },
      },
      // Codes and device codes carry none (refused above).
      authorizationDetailsForGrantSource: () => undefined,
      // What the person approved (backchannelResult's rar), narrowed by the token request if it asks for less.
      authorizationDetailsForAccessToken: (_ctx, _token, source) => (source as { rar?: never[] } | undefined)?.rar,
      authorizationDetailsForIntrospection: (_ctx, token) => (token as { rar?: never[] }).rar,
    },
  };
  return features;
}

/** `ttl.BackchannelAuthenticationRequest`: the tenant's lifetime; a client's requested_expiry may only shorten it. */
export function cibaTtl(tenant: Pick<TenantDoc, 'settings' | 'system'>): NonNullable<Configuration['ttl']> {
  const { enabled, requestLifetimeSeconds } = cibaSettingsOf(tenant);
  if (!enabled) return {};
  return {
    BackchannelAuthenticationRequest: (ctx) => {
      const requested = Number((ctx.oidc.params as { requested_expiry?: unknown } | undefined)?.requested_expiry);
      return Number.isSafeInteger(requested) && requested > 0
        ? Math.min(requested, requestLifetimeSeconds)
        : requestLifetimeSeconds;
    },
  };
}

/** extraParams: actor_token and actor_token_type, at the backchannel authentication endpoint only. */
export function cibaParams(
  tenant: Pick<TenantDoc, 'settings' | 'system'>,
): Record<string, (ctx: KoaContextWithOIDC, value: unknown) => void> {
  if (!cibaSettingsOf(tenant).enabled) return {};
  const only = (ctx: KoaContextWithOIDC, value: unknown) => {
    if (value !== undefined && ctx.oidc.route !== 'backchannel_authentication')
      throw new errors.InvalidRequest('actor_token belongs to token exchange or backchannel authentication requests');
  };
  return { actor_token: only, actor_token_type: only };
}

/** login_hint: the person's username, or their id. Disabled accounts are unknown (unknown_user_id). */
async function accountOfHint(models: Models, tenantId: number, hint: string | undefined): Promise<string | undefined> {
  if (!hint || hint.length > 256) return undefined;
  const byName = await models.User.findOne({ tenantId, username: hint, enabled: true }, { _id: 1 }).lean();
  if (byName) return String(byName._id);
  if (!Types.ObjectId.isValid(hint) || !/^[0-9a-f]{24}$/i.test(hint)) return undefined;
  const byId = await models.User.findOne({ tenantId, _id: hint, enabled: true }, { _id: 1 }).lean();
  return byId ? String(byId._id) : undefined;
}

/**
 * CIBA Core section 7.1: the client authenticates to this endpoint. A public client (none) proves nothing, so anyone who
 * knows its client_id could ask a person in its name and then poll for the token they approve.
 */
function refusePublicClient(ctx: KoaContextWithOIDC): void {
  if (ctx.oidc.client?.clientAuthMethod === 'none')
    throw new errors.UnauthorizedClient('backchannel authentication requests need a client that authenticates');
}

const refuse = (error: string, description: string, status = 400) => {
  const err = new errors.CustomOIDCProviderError(error, description);
  err.status = status;
  err.statusCode = status;
  return err;
};

/** The per-person limit, then the sidecar's decision as if the person approved: before anyone is notified. */
async function checkBeforeAsking(ctx: KoaContextWithOIDC, models: Models, tenantId: number, accountId: string) {
  const runtime = cibaRuntimeOf(ctx.oidc.provider);
  if (!runtime?.forward) throw refuse('temporarily_unavailable', 'delegation is unavailable, retry later', 503);
  const client = ctx.oidc.client!;
  refusePublicClient(ctx);
  const params = ctx.oidc.params as Record<string, unknown>;
  // The delegation is for one API: a resource server of this tenant (RFC 8707), not the UserInfo audience.
  const resources = Object.keys(ctx.oidc.resourceServers ?? {});
  if (resources.length !== 1 || resources[0] === userinfoAudience(ctx.oidc.provider.issuer))
    throw new errors.InvalidTarget('name exactly one API (resource) the agent asks to act on');
  const resource = resources[0]!;
  const scopes = [...ctx.oidc.requestParamScopes].filter((s) => !LOGIN_SCOPES.has(s));
  if (!scopes.length)
    throw new errors.InvalidScope('ask for at least one scope of the API', String(params.scope ?? ''));
  let nheIdentifier: string | undefined;
  if (params.actor_token !== undefined) {
    if (params.actor_token_type !== TOKEN_TYPE_NHE_ID || typeof params.actor_token !== 'string')
      throw new errors.InvalidRequest(`actor_token names the NHE: actor_token_type must be ${TOKEN_TYPE_NHE_ID}`);
    nheIdentifier = params.actor_token;
  }
  // No notification flooding: a person has at most maxPendingPerUser undecided requests.
  if ((await countPending(models, tenantId, accountId)) >= runtime.settings.maxPendingPerUser)
    throw refuse(
      'access_denied',
      `this person already has ${runtime.settings.maxPendingPerUser} requests waiting for their decision; retry after they answer or the requests expire`,
    );
  // Nor by one client over many people: a client has at most maxPendingPerClient undecided requests.
  if ((await countPendingOfClient(models, tenantId, client.clientId)) >= runtime.settings.maxPendingPerClient)
    throw refuse(
      'access_denied',
      `this client already has ${runtime.settings.maxPendingPerClient} requests waiting for people's decisions; retry after they answer or the requests expire`,
    );
  const numericId = Number(client[CLIENT_PROPS.numericId]);
  const details = parseDetails(params.authorization_details);
  const answer = await runtime.forward({
    stage: 'check',
    tenantId,
    clientId: client.clientId,
    clientNumericId: Number.isSafeInteger(numericId) && numericId >= 0 ? numericId : 0,
    userId: accountId,
    ...(nheIdentifier ? { nheIdentifier } : {}),
    resource,
    scopes,
    ...(details ? { authorizationDetails: details as [{ type: string }] } : {}),
    sourceIp: clientAddress(ctx),
  });
  if (answer.status !== 200) {
    const body = answer.body as { error?: unknown; error_description?: unknown };
    throw refuse(
      typeof body.error === 'string' ? body.error : 'temporarily_unavailable',
      typeof body.error_description === 'string' ? body.error_description : 'the request was refused',
      answer.status >= 500 ? 503 : 400,
    );
  }
  // The person approves exactly what would be granted: a scope the policies would remove is refused now.
  const granted = new Set(Array.isArray(answer.body.scopes) ? (answer.body.scopes as string[]) : []);
  const beyond = scopes.filter((s) => !granted.has(s));
  if (beyond.length)
    throw new errors.InvalidScope(
      `beyond what the delegation policies allow this agent for this person: ${beyond.join(' ')}`,
      beyond.join(' '),
    );
}
