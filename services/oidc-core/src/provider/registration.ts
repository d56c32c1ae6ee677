/**
 * Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592), per tenant.
 *
 * node-oidc-provider's `features.registration` and `features.registrationManagement` serve the endpoints
 * (`{issuer}/reg`, `{issuer}/reg/{client_id}`), parse and validate the metadata, issue the registration access token
 * and advertise `registration_endpoint`. What the tenant adds, through the provider's public API:
 * - the mode (settings.registration.mode): `off` (no endpoint), `initial-access-token` (a token issued through the
 *   management API, single or multi use, expiring; checked and spent here before the provider runs), `open`;
 * - a limit of registrations per source address and window, counted in MongoDB (login_failures rows keyed
 *   `reg:ip:<address>`, as failed sign-ins are) so that it holds across replicas;
 * - the policy (domain/client-registration-policy.ts): the grant types and authentication methods the tenant allows
 *   (never a shared secret, never token exchange), redirect URIs after RFC 8252 for native clients and exact https
 *   otherwise. It is applied where the provider stores the client (the Client adapter's upsert, dynamicClientRecord
 *   below), so a 7592 update is held to it as a registration is;
 * - what it stores: a client record marked `registration: "dynamic"`, never first-party, no NHE delegation, no
 *   roles (so no management scopes of its own); visible and removable through the management API;
 * - the `scope` a client registers (RFC 7591 section 2; MCP clients send the protected resource's scopes_supported
 *   there, e.g. `mcp:tools`): node-oidc-provider accepts only its own OpenID scopes in it and refuses the whole
 *   registration otherwise. A client's API scopes are not the client's to register here (they are decided per
 *   request by the resource server's scopes, the user's roles and consent), so the value is replaced (RFC 7591
 *   section 3.2.1) by its OpenID scopes before the provider parses the body: the answer's `scope` tells the client
 *   what was registered, and no `scope` (every OpenID scope) when none is left;
 * - what stock clients send (MCP hosts: loopback http redirect URIs without `application_type`, and a secret-based
 *   or no `token_endpoint_auth_method`): a native client, and `none` in place of a secret method, replaced the same
 *   way before the provider parses the body (domain/client-registration-policy.ts, registrableMetadata).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Types } from 'mongoose';
import {
  REGISTRATION_SETTINGS_DEFAULTS,
  type ClientDoc,
  type Models,
  type RegistrationSettings,
  type TenantDoc,
} from '@idp/db';
import {
  clientPolicyProblem,
  registrableMetadata,
  type SelfIntroducedClientPolicy,
} from '../domain/client-registration-policy';
import { REQUIRE_PKCE_METADATA } from './openid-dynamic/client-choices';
import { storedSettingsOf } from '../domain/stored-docs';
import { clientAddress } from './client-address';
import { LOGIN_SCOPES } from './claims';

export function registrationSettingsOf(tenant: Pick<TenantDoc, 'settings'>): RegistrationSettings {
  const s = storedSettingsOf(tenant).registration;
  return {
    mode: s?.mode ?? REGISTRATION_SETTINGS_DEFAULTS.mode,
    grantTypes: s?.grantTypes ?? [...REGISTRATION_SETTINGS_DEFAULTS.grantTypes],
    tokenEndpointAuthMethods: s?.tokenEndpointAuthMethods ?? [
      ...REGISTRATION_SETTINGS_DEFAULTS.tokenEndpointAuthMethods,
    ],
    rateLimit: { ...REGISTRATION_SETTINGS_DEFAULTS.rateLimit, ...(s?.rateLimit ?? {}) },
  };
}

/**
 * The tenant's registration settings as its provider applies them: with the OpenID Dynamic profile on, a client may
 * also register the id_token response types (domain/client-registration-policy.ts).
 */
export type TenantRegistration = RegistrationSettings & Pick<SelfIntroducedClientPolicy, 'idTokenResponseTypes'>;

/** Client ids of registered clients: `dyn_` and 24 url-safe characters (the management API's client id form). */
export const dynamicClientId = (): string => `dyn_${randomBytes(18).toString('base64url')}`;

/** SHA-256 (hex) of an initial access token, as the management API stores it. */
export const initialAccessTokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

/** `features.registration` and `features.registrationManagement` for the tenant. */
export function registrationFeatures(settings: RegistrationSettings) {
  const enabled = settings.mode !== 'off';
  return {
    registration: {
      enabled,
      // Checked by registerClientRegistration (our own tokens, issued through the management API).
      initialAccessToken: false,
      idFactory: dynamicClientId,
      issueRegistrationAccessToken: true,
    },
    // RFC 7592 read, update, delete with the registration access token; an update rotates it.
    registrationManagement: { enabled, rotateRegistrationAccessToken: true },
  };
}

function invalidMetadata(description: string): never {
  const err = new errors.InvalidClientMetadata(description);
  err.error_description = description;
  throw err;
}

/**
 * The client record for metadata the provider accepted at registration or update, held to the tenant's policy
 * (InvalidClientMetadata otherwise, which the provider answers as 400 invalid_client_metadata).
 */
export function dynamicClientRecord(
  settings: TenantRegistration,
  metadata: Record<string, unknown>,
): Partial<ClientDoc> {
  if (settings.mode === 'off') invalidMetadata('client registration is not enabled');
  const problem = clientPolicyProblem(metadata, settings);
  if (problem) invalidMetadata(problem);
  const registered: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(metadata))
    if (!k.startsWith('idp_') && v !== undefined && k !== 'client_secret') registered[k] = v;
  const name =
    typeof metadata.client_name === 'string' && metadata.client_name.trim()
      ? metadata.client_name.slice(0, 128)
      : 'Dynamically registered client';
  const alg = metadata.id_token_signed_response_alg;
  return {
    name,
    tokenEndpointAuthMethod: metadata.token_endpoint_auth_method as ClientDoc['tokenEndpointAuthMethod'],
    ...(metadata.jwks ? { jwks: metadata.jwks as ClientDoc['jwks'] } : {}),
    idTokenSignedResponseAlg: alg === 'RS256' ? 'RS256' : 'ES256',
    redirectUris: (metadata.redirect_uris as string[] | undefined) ?? [],
    postLogoutRedirectUris: (metadata.post_logout_redirect_uris as string[] | undefined) ?? [],
    grantTypes: (metadata.grant_types as string[] | undefined) ?? [],
    responseTypes: (metadata.response_types as string[] | undefined) ?? [],
    requireDpop: metadata.dpop_bound_access_tokens === true,
    // A confidential client's choice under the OpenID Dynamic profile (provider/openid-dynamic/client-choices.ts).
    pkceRequired: metadata[REQUIRE_PKCE_METADATA] !== false,
    roleIds: [],
    firstParty: false,
    registration: 'dynamic',
    registeredMetadata: JSON.stringify(registered),
  };
}

/** Answer of a refused request at the registration endpoint (RFC 7591 section 3.2.2 / RFC 6750 section 3). */
function answer(
  ctx: { status: number; body: unknown; set(k: string, v: string): void },
  status: number,
  error: string,
  description: string,
  extra: Record<string, string> = {},
): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(extra)) ctx.set(k, v);
  ctx.body = { error, error_description: description };
}

/** Counts this registration attempt for its source address; the seconds to wait when over the limit. */
async function overRateLimit(
  models: Models,
  tenantId: number,
  ip: string,
  limit: RegistrationSettings['rateLimit'],
): Promise<number | undefined> {
  const now = new Date();
  const key = `reg:ip:${ip}`;
  const windowStart = new Date(now.getTime() - limit.windowSeconds * 1000);
  const [row] = await models.LoginFailure.insertMany([
    { tenantId, key, at: now, expiresAt: new Date(now.getTime() + limit.windowSeconds * 1000) },
  ]);
  const count = await models.LoginFailure.countDocuments({ tenantId, key, at: { $gt: windowStart } });
  if (count <= limit.maxPerWindow) return undefined;
  // Refused attempts do not count: the address can register again once its oldest registration leaves the window.
  await models.LoginFailure.deleteOne({ _id: row!._id as Types.ObjectId });
  const oldest = await models.LoginFailure.find({ tenantId, key, at: { $gt: windowStart } }, { at: 1 })
    .sort({ at: 1 })
    .limit(1)
    .lean();
  const unlockAt = (oldest[0]?.at.getTime() ?? now.getTime()) + limit.windowSeconds * 1000;
  return Math.max(1, Math.ceil((unlockAt - now.getTime()) / 1000));
}

/**
 * Spends one use of the initial access token presented; undefined when it is unknown, expired or spent. Each use is
 * an insert with a unique key below maxUses, so concurrent registrations never use a token more often.
 */
async function spendInitialAccessToken(
  models: Models,
  tenantId: number,
  token: string,
): Promise<{ release(): Promise<void> } | undefined> {
  const iat = await models.InitialAccessToken.findOne({ tenantId, digest: initialAccessTokenDigest(token) }).lean();
  if (!iat || iat.expiresAt.getTime() <= Date.now()) return undefined;
  const used = await models.InitialAccessTokenUse.countDocuments({ tenantId, tokenId: iat.tokenId });
  for (let n = used; n < iat.maxUses; n++) {
    const _id = `${tenantId}:${iat.tokenId}:${n}`;
    try {
      await models.InitialAccessTokenUse.create({
        _id,
        tenantId,
        tokenId: iat.tokenId,
        at: new Date(),
        expiresAt: iat.expiresAt,
      });
      return { release: async () => void (await models.InitialAccessTokenUse.deleteOne({ _id })) };
    } catch (err) {
      if ((err as { code?: number }).code !== 11000) throw err;
    }
  }
  return undefined;
}

const REGISTRATION_PATH = /^\/reg(\/[^/]+)?$/;

/** node-oidc-provider's own bound on a request body. */
const MAX_REGISTRATION_BODY_BYTES = 56 * 1024;

/** The registration's `scope` without what is not an OpenID scope of the provider (absent when nothing is left). */
export function registrableScope(scope: unknown): string | undefined {
  if (typeof scope !== 'string') return undefined;
  const kept = [...new Set(scope.split(' ').filter((s) => LOGIN_SCOPES.has(s)))];
  return kept.length ? kept.join(' ') : undefined;
}

/**
 * Reads a registration's JSON body (bounded) and hands it to the provider already parsed, its `scope` replaced by
 * registrableScope and its application type and authentication method by registrableMetadata (node-oidc-provider
 * reads a consumed request's `req.body`). False when the body was answered here.
 */
async function withRegistrableMetadata(
  ctx: {
    req: Readable & { body?: unknown };
    is(t: string): string | false | null;
    status: number;
    body: unknown;
    set(k: string, v: string): void;
  },
  settings: RegistrationSettings,
): Promise<boolean> {
  if (!ctx.is('application/json')) return true;
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on an early return: the answer goes out on the same connection.
  for await (const chunk of ctx.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REGISTRATION_BODY_BYTES) {
      answer(ctx, 413, 'invalid_request', 'request entity too large');
      return false;
    }
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    answer(ctx, 400, 'invalid_request', 'failed to parse the request body');
    return false;
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    const body = parsed as Record<string, unknown>;
    if ('scope' in body) {
      const scope = registrableScope(body.scope);
      if (scope === undefined) delete body.scope;
      else body.scope = scope;
    }
    registrableMetadata(body, settings);
  }
  ctx.req.body = parsed;
  return true;
}

/**
 * Guards the registration endpoint (provider.use, before the provider's router): the rate limit and the initial
 * access token on POST /reg; every answer of /reg and /reg/{id} without our own client properties.
 */
export function registerClientRegistration(
  provider: Provider,
  tenantId: number,
  settings: RegistrationSettings,
  models: Models,
): void {
  if (settings.mode === 'off') return;
  provider.use(async (ctx, next) => {
    const match = REGISTRATION_PATH.exec(ctx.path);
    if (!match) return next();
    let spent: { release(): Promise<void> } | undefined;
    if (!match[1] && ctx.method === 'POST') {
      // The address under the trusted hop count: a client that writes X-Forwarded-For still counts as itself.
      const wait = await overRateLimit(models, tenantId, clientAddress(ctx), settings.rateLimit);
      if (wait !== undefined)
        return answer(
          ctx,
          429,
          'temporarily_unavailable',
          `too many client registrations from this address; retry in ${wait} seconds`,
          { 'Retry-After': String(wait) },
        );
      if (settings.mode === 'initial-access-token') {
        const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(ctx.get('authorization'));
        const challenge = (error?: string) => ({
          'WWW-Authenticate': `Bearer realm="${provider.issuer}"${error ? `, error="${error}"` : ''}`,
        });
        if (!m)
          return answer(
            ctx,
            401,
            'invalid_token',
            'an initial access token is required to register a client (Authorization: Bearer)',
            challenge(),
          );
        spent = await spendInitialAccessToken(models, tenantId, m[1]!);
        if (!spent)
          return answer(
            ctx,
            401,
            'invalid_token',
            'the initial access token is unknown, expired or spent',
            challenge('invalid_token'),
          );
      }
    }
    try {
      if ((ctx.method === 'POST' && !match[1]) || (ctx.method === 'PUT' && match[1])) {
        if (!(await withRegistrableMetadata(ctx as never, settings))) return;
      }
      await next();
    } finally {
      // A registration that did not happen does not spend the token.
      if (spent && ctx.status !== 201) await spent.release();
    }
    const body = ctx.body as Record<string, unknown> | undefined;
    if (ctx.status < 300 && body && typeof body === 'object' && !Buffer.isBuffer(body)) {
      for (const key of Object.keys(body)) if (key.startsWith('idp_')) delete body[key];
    }
  });
}
