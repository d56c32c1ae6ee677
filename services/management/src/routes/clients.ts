/**
 * OAuth clients: redirect URIs, grant types, authentication method, secrets (generated here, returned once, stored
 * as a keyed digest), config.nhe, feature toggles, logout settings, legacy role compatibility and the
 * customizeUserInfoClaims script (syntax-checked on save; run by oidc-core's sandbox).
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ClientDoc } from '@idp/db';
import { insertClient } from '@idp/db';
import { problems } from '@idp/errors';
import {
  clientSecretDigest,
  generateClientSecret,
  GRANT_TYPE_JWT_BEARER,
  GRANT_TYPE_TOKEN_EXCHANGE,
  MANAGEMENT_SCOPES,
} from '@idp/tokens';
import { assertCallerHolds, clientManagementScopes } from '../auth/escalation';
import { revokeClientGrants } from '../domain/client-grants';
import { clientJwks } from './client-jwks';
import { defineRoute, type RouteDef } from '../openapi/route';
import { countSchema, emptyBody, isoDate, page, tenantParams } from '../openapi/schemas';
import { loadTenant, nheSettingsOf, pageOf, prefixRegex, type RouteDeps } from './deps';
import { nheIdentifier } from './nhe-registrations';

export const GRANT_TYPES = [
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
  GRANT_TYPE_TOKEN_EXCHANGE,
  GRANT_TYPE_JWT_BEARER,
  // OpenID CIBA Core 1.0 (only where the tenant turned settings.backchannelAuthentication on).
  'urn:openid:params:grant-type:ciba',
] as const;
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'] as const;
const FIRST_PARTY = "a first-party client (it obtains signed-in users' tokens, for any API, without their consent)";
const FIRST_PARTY_SENSITIVE = ['redirectUris', 'grantTypes', 'tokenEndpointAuthMethod', 'jwks'] as const;
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);
/** Same bound as oidc-core's sandbox (MAX_SCRIPT_LENGTH). */
export const MAX_SCRIPT_LENGTH = 64 * 1024;

export const clientIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._-]{3,64}$/, '3 to 64 letters, digits, dot, underscore or hyphen');

/** Absolute URI without fragment; http only for loopback hosts (RFC 8252); custom schemes allowed for native apps. */
const redirectUri = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URI' });
      return;
    }
    if (u.hash) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment' });
    if (u.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname))
      ctx.addIssue({ code: 'custom', message: 'http is allowed for loopback hosts only; use https' });
    if (['javascript:', 'data:', 'file:', 'vbscript:'].includes(u.protocol))
      ctx.addIssue({ code: 'custom', message: `scheme ${u.protocol} is not allowed` });
  });

/** Light check of the script: a string, bounded, that parses as a function body `(input) => { ... }`. Nothing runs. */
export const userInfoScript = z
  .string()
  .min(1)
  .max(MAX_SCRIPT_LENGTH)
  .superRefine((src, ctx) => {
    try {
      // Compiles (never calls) the body, exactly as the sandbox wraps it: a syntax check only.
      new Function('input', src);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `syntax error: ${(err as Error).message}` });
    }
  });

const clientConfig = z
  .object({
    nhe: z
      .object({
        delegationEnabled: z.boolean(),
        allowedNheIdentifiers: z.array(nheIdentifier).max(200),
        maxTokenLifetime: z.number().int().min(1).nullable().describe('null removes it'),
      })
      .partial()
      .strict(),
    featureToggles: z
      .object({ requireAuthorizationScopesInRequest: z.boolean(), requireResourceIndicatorInRequest: z.boolean() })
      .partial()
      .strict(),
    legacyRoleCompatibility: z.boolean(),
    customizeUserInfoClaims: userInfoScript
      .nullable()
      .describe('Body of a function of `input` returning the custom_claims object; null removes it'),
  })
  .partial()
  .strict();

const fields = {
  name: z.string().min(1).max(128),
  tokenEndpointAuthMethod: z.enum(AUTH_METHODS),
  jwks: clientJwks,
  redirectUris: z.array(redirectUri).max(50),
  postLogoutRedirectUris: z.array(redirectUri).max(50),
  grantTypes: z.array(z.enum(GRANT_TYPES)).min(1).max(GRANT_TYPES.length),
  firstParty: z.boolean(),
  showLogoutPrompt: z.boolean(),
  enabled: z.boolean(),
  idTokenSignedResponseAlg: z.enum(['ES256', 'RS256']),
  pkceRequired: z
    .boolean()
    .describe(
      'Authorization-code requests must carry PKCE (S256); default true. Only a confidential client may turn it off (400 for a public one); a code_challenge that is sent is always checked',
    ),
  dpopBoundAccessTokens: z
    .boolean()
    .describe(
      'Every token request must carry a DPoP proof: access and refresh tokens are always DPoP-bound (RFC 9449 dpop_bound_access_tokens); default false',
    ),
  requirePushedAuthorizationRequests: z
    .boolean()
    .describe(
      'Authorization requests only through the pushed authorization request endpoint; a plain one is refused (RFC 9126 require_pushed_authorization_requests); default false',
    ),
  backchannelTokenDeliveryMode: z
    .enum(['poll', 'ping'])
    .describe(
      'CIBA clients (grant type urn:openid:params:grant-type:ciba): poll (default) or ping (CIBA Core section 5; push is not supported)',
    ),
  backchannelClientNotificationEndpoint: z
    .url({ protocol: /^https$/ })
    .max(2048)
    .describe("A ping client's notification endpoint (https; CIBA Core section 10.2)"),
  config: clientConfig,
};

const createBody = z
  .object({ clientId: clientIdSchema.optional().describe('Generated when absent'), ...fields })
  .partial({
    tokenEndpointAuthMethod: true,
    jwks: true,
    redirectUris: true,
    postLogoutRedirectUris: true,
    firstParty: true,
    showLogoutPrompt: true,
    enabled: true,
    idTokenSignedResponseAlg: true,
    pkceRequired: true,
    dpopBoundAccessTokens: true,
    requirePushedAuthorizationRequests: true,
    backchannelTokenDeliveryMode: true,
    backchannelClientNotificationEndpoint: true,
    config: true,
  })
  .strict();

const patchBody = z.object(fields).partial().strict();

export const clientSchema = z
  .object({
    clientId: z.string(),
    numericId: z.number().int(),
    name: z.string(),
    tokenEndpointAuthMethod: z.enum(AUTH_METHODS),
    hasSecret: z.boolean(),
    jwks: z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).optional(),
    redirectUris: z.array(z.string()),
    postLogoutRedirectUris: z.array(z.string()),
    grantTypes: z.array(z.string()),
    responseTypes: z.array(z.string()),
    roleIds: z.array(z.string()),
    firstParty: z.boolean(),
    showLogoutPrompt: z.boolean(),
    enabled: z.boolean(),
    idTokenSignedResponseAlg: z.enum(['ES256', 'RS256']),
    pkceRequired: z.boolean().describe('Always true for a public client (tokenEndpointAuthMethod none)'),
    dpopBoundAccessTokens: z.boolean(),
    requirePushedAuthorizationRequests: z.boolean(),
    backchannelTokenDeliveryMode: z.enum(['poll', 'ping']).optional(),
    backchannelClientNotificationEndpoint: z.string().optional(),
    registration: z
      .enum(['managed', 'dynamic'])
      .describe(
        '`dynamic`: registered through RFC 7591 at {issuer}/reg (never first-party, no delegation, no roles of its own; only enabled and name change here, the rest through RFC 7592); `managed`: created through this API',
      ),
    config: z.object({
      nhe: z.object({
        delegationEnabled: z.boolean(),
        allowedNheIdentifiers: z.array(z.string()),
        maxTokenLifetime: z.number().int().optional(),
      }),
      featureToggles: z.object({
        requireAuthorizationScopesInRequest: z.boolean(),
        requireResourceIndicatorInRequest: z.boolean(),
      }),
      legacyRoleCompatibility: z.boolean(),
      customizeUserInfoClaims: z.string().optional(),
    }),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Client' });

const clientWithSecret = clientSchema
  .extend({ clientSecret: z.string().optional().describe('Shown once: store it now; only a digest is kept') })
  .meta({ id: 'ClientWithSecret' });

/**
 * A client record as stored: one written before a member existed lacks it (the view fills in its default; a
 * missing member never fails a read).
 */
type StoredClient = Omit<ClientDoc, DefaultedMember | 'config'> &
  Partial<Pick<ClientDoc, DefaultedMember>> & {
    config?: {
      nhe?: Partial<ClientDoc['config']['nhe']>;
      featureToggles?: Partial<ClientDoc['config']['featureToggles']>;
      legacyRoleCompatibility?: boolean;
      customizeUserInfoClaims?: string;
    };
  };
type DefaultedMember =
  | 'redirectUris'
  | 'postLogoutRedirectUris'
  | 'grantTypes'
  | 'responseTypes'
  | 'roleIds'
  | 'firstParty'
  | 'showLogoutPrompt'
  | 'enabled';
type ClientRow = StoredClient & { _id: unknown; createdAt?: Date; updatedAt?: Date };

export function clientView(doc: ClientRow) {
  const c = doc.config;
  return {
    clientId: doc.clientId,
    numericId: doc.numericId,
    name: doc.name,
    tokenEndpointAuthMethod: doc.tokenEndpointAuthMethod,
    hasSecret: Boolean(doc.secretDigest),
    ...(doc.jwks ? { jwks: doc.jwks } : {}),
    redirectUris: doc.redirectUris ?? [],
    postLogoutRedirectUris: doc.postLogoutRedirectUris ?? [],
    grantTypes: doc.grantTypes ?? [],
    responseTypes: doc.responseTypes ?? [],
    roleIds: doc.roleIds ?? [],
    firstParty: doc.firstParty ?? false,
    showLogoutPrompt: doc.showLogoutPrompt ?? true,
    enabled: doc.enabled ?? true,
    idTokenSignedResponseAlg: doc.idTokenSignedResponseAlg ?? 'ES256',
    pkceRequired: pkceRequiredOf(doc),
    registration: doc.registration === 'dynamic' ? ('dynamic' as const) : ('managed' as const),
    dpopBoundAccessTokens: doc.requireDpop === true,
    requirePushedAuthorizationRequests: doc.requirePushedAuthorizationRequests === true,
    ...(doc.backchannelTokenDeliveryMode ? { backchannelTokenDeliveryMode: doc.backchannelTokenDeliveryMode } : {}),
    ...(doc.backchannelClientNotificationEndpoint
      ? { backchannelClientNotificationEndpoint: doc.backchannelClientNotificationEndpoint }
      : {}),
    config: {
      nhe: {
        delegationEnabled: c?.nhe?.delegationEnabled ?? false,
        allowedNheIdentifiers: c?.nhe?.allowedNheIdentifiers ?? [],
        ...(typeof c?.nhe?.maxTokenLifetime === 'number' ? { maxTokenLifetime: c.nhe.maxTokenLifetime } : {}),
      },
      featureToggles: {
        requireAuthorizationScopesInRequest: c?.featureToggles?.requireAuthorizationScopesInRequest ?? false,
        requireResourceIndicatorInRequest: c?.featureToggles?.requireResourceIndicatorInRequest ?? false,
      },
      legacyRoleCompatibility: c?.legacyRoleCompatibility ?? false,
      ...(c?.customizeUserInfoClaims ? { customizeUserInfoClaims: c.customizeUserInfoClaims } : {}),
    },
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** PKCE is required unless a confidential client's record turns it off; a public client needs it whatever it says. */
const pkceRequiredOf = (doc: Pick<ClientDoc, 'tokenEndpointAuthMethod' | 'pkceRequired'>): boolean =>
  doc.tokenEndpointAuthMethod === 'none' || doc.pkceRequired !== false;

/** The body's client settings under the record's names (the API's dpopBoundAccessTokens is the record's requireDpop). */
function recordFields<T extends { config?: unknown; dpopBoundAccessTokens?: boolean }>(body: T) {
  const { config: _config, dpopBoundAccessTokens, ...rest } = body;
  return { ...rest, ...(dpopBoundAccessTokens !== undefined ? { requireDpop: dpopBoundAccessTokens } : {}) };
}

/** Cross-field rules on the merged client. */
function checkClient(
  c: {
    tokenEndpointAuthMethod: string;
    grantTypes: string[];
    redirectUris: string[];
    jwks?: unknown;
    pkceRequired?: boolean | undefined;
    backchannelTokenDeliveryMode?: string | undefined;
    backchannelClientNotificationEndpoint?: string | undefined;
  },
  hardMax: number,
  nheMax: number | null | undefined,
) {
  const invalid: Array<{ name: string; reason: string }> = [];
  // RFC 9700 section 2.1.1: a public client's code is protected by PKCE alone.
  if (c.tokenEndpointAuthMethod === 'none' && c.pkceRequired === false)
    invalid.push({
      name: 'body.pkceRequired',
      reason: 'a public client (tokenEndpointAuthMethod none) always needs PKCE',
    });
  if (c.grantTypes.includes('authorization_code') && c.redirectUris.length === 0)
    invalid.push({ name: 'body.redirectUris', reason: 'authorization_code needs at least one redirect URI' });
  // CIBA Core section 4: a ping client registers where it is notified.
  if (
    c.grantTypes.includes('urn:openid:params:grant-type:ciba') &&
    c.backchannelTokenDeliveryMode === 'ping' &&
    !c.backchannelClientNotificationEndpoint
  )
    invalid.push({
      name: 'body.backchannelClientNotificationEndpoint',
      reason: 'a ping client needs the https endpoint it is notified at',
    });
  if (
    c.grantTypes.includes('refresh_token') &&
    !c.grantTypes.includes('authorization_code') &&
    !c.grantTypes.includes('urn:ietf:params:oauth:grant-type:device_code')
  ) {
    invalid.push({ name: 'body.grantTypes', reason: 'refresh_token needs authorization_code or device_code' });
  }
  // RFC 6749 section 4.4 (client_credentials); a bearer assertion (RFC 7521 section 8.2, the ID-JAG draft) is
  // redeemed only by a client that authenticates, so that a stolen one is not spendable by anyone.
  if (
    c.tokenEndpointAuthMethod === 'none' &&
    (c.grantTypes.includes('client_credentials') ||
      c.grantTypes.includes(GRANT_TYPE_TOKEN_EXCHANGE) ||
      c.grantTypes.includes(GRANT_TYPE_JWT_BEARER) ||
      // CIBA Core section 7.1: the backchannel authentication request is authenticated.
      c.grantTypes.includes('urn:openid:params:grant-type:ciba'))
  ) {
    invalid.push({
      name: 'body.grantTypes',
      reason:
        'client_credentials, token exchange, jwt-bearer and CIBA need a confidential client (tokenEndpointAuthMethod other than none)',
    });
  }
  if (c.tokenEndpointAuthMethod === 'private_key_jwt' && !c.jwks)
    invalid.push({ name: 'body.jwks', reason: "private_key_jwt needs the client's public keys" });
  if (typeof nheMax === 'number' && nheMax > hardMax)
    invalid.push({
      name: 'body.config.nhe.maxTokenLifetime',
      reason: `must be at most settings.nhe.hardMaxTokenLifetime (${hardMax})`,
    });
  if (invalid.length) throw problems.validation('the client configuration is not consistent', invalid);
}

function configSet(config: z.output<typeof clientConfig> | undefined): {
  $set: Record<string, unknown>;
  $unset: Record<string, 1>;
} {
  const $set: Record<string, unknown> = {};
  const $unset: Record<string, 1> = {};
  for (const [k, v] of Object.entries(config?.nhe ?? {})) {
    if (v === null) $unset[`config.nhe.${k}`] = 1;
    else $set[`config.nhe.${k}`] = v;
  }
  for (const [k, v] of Object.entries(config?.featureToggles ?? {})) $set[`config.featureToggles.${k}`] = v;
  if (config?.legacyRoleCompatibility !== undefined)
    $set['config.legacyRoleCompatibility'] = config.legacyRoleCompatibility;
  if (config?.customizeUserInfoClaims === null) $unset['config.customizeUserInfoClaims'] = 1;
  else if (config?.customizeUserInfoClaims !== undefined)
    $set['config.customizeUserInfoClaims'] = config.customizeUserInfoClaims;
  return { $set, $unset };
}

const BASE = '/tenants/:tenantId/clients';
const clientParams = tenantParams.extend({ clientId: z.string().max(64) }).strict();
const TAG = 'Clients';

export function clientRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const find = async (tenantId: number, clientId: string) => {
    const doc = await models.Client.findOne({ tenantId, clientId }).lean<ClientRow>();
    if (!doc) throw problems.notFound('client not found');
    return doc;
  };
  const listFilter = (
    tenantId: number,
    q: {
      clientIdPrefix?: string | undefined;
      grantType?: string | undefined;
      registration?: 'managed' | 'dynamic' | undefined;
    },
  ) => ({
    ...(q.registration === 'dynamic'
      ? { registration: 'dynamic' as const }
      : q.registration === 'managed'
        ? { registration: { $exists: false } }
        : {}),
    tenantId,
    ...(q.clientIdPrefix ? { clientId: prefixRegex(q.clientIdPrefix) } : {}),
    ...(q.grantType ? { grantTypes: q.grantType } : {}),
  });
  const filters = {
    clientIdPrefix: z.string().min(1).max(64).optional(),
    grantType: z.enum(GRANT_TYPES).optional(),
    registration: z
      .enum(['managed', 'dynamic'])
      .optional()
      .describe('Only clients created through this API, or only dynamically registered ones'),
  };
  /**
   * The system tenant's bootstrap administrator is the deployment's (BOOTSTRAP_ADMIN_CLIENT_ID and _SECRET): every
   * start re-applies it, so no API caller, however strong, disables or deletes it; change the bootstrap secret instead.
   */
  const assertNotBootstrapAdmin = (tenantId: number, clientId: string, what: 'disabled' | 'deleted') => {
    const b = deps.bootstrapAdmin;
    if (b && b.tenantId === tenantId && b.clientId === clientId) {
      throw problems.conflict(
        `the bootstrap administrator cannot be ${what} through the API; it is managed by the deployment's bootstrap configuration`,
      );
    }
  };

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createClient',
      summary: 'Create a client',
      description:
        'For client_secret_basic / client_secret_post a secret is generated and returned once in `clientSecret`.',
      tag: TAG,
      scope: 'auth.clients.create',
      params: tenantParams,
      body: createBody,
      responses: {
        201: {
          description: 'The client, with its secret',
          schema: clientWithSecret,
          headers: { Location: 'URL of the client' },
        },
      },
      errors: [409],
      handler: async ({ tenantId, body, caller, req, audit, invalidate }) => {
        if (body.firstParty === true) assertCallerHolds(caller, MANAGEMENT_SCOPES, FIRST_PARTY);
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        const method = body.tokenEndpointAuthMethod ?? 'client_secret_basic';
        checkClient(
          {
            tokenEndpointAuthMethod: method,
            grantTypes: body.grantTypes,
            redirectUris: body.redirectUris ?? [],
            jwks: body.jwks,
            pkceRequired: body.pkceRequired,
            backchannelTokenDeliveryMode: body.backchannelTokenDeliveryMode,
            backchannelClientNotificationEndpoint: body.backchannelClientNotificationEndpoint,
          },
          settings.hardMaxTokenLifetime,
          body.config?.nhe?.maxTokenLifetime,
        );
        const clientId = body.clientId ?? randomBytes(12).toString('base64url');
        if (await models.Client.exists({ tenantId, clientId }))
          throw problems.conflict('a client with this clientId already exists');
        // Consents a deleted client of the same clientId left behind (from before deletes cleared them) are not this one's.
        if (body.clientId) await revokeClientGrants(models, tenantId, clientId);
        const secret = SECRET_METHODS.has(method) ? generateClientSecret() : undefined;
        const { config } = body;
        const fields = {
          ...recordFields(body),
          clientId,
          tenantId,
          tokenEndpointAuthMethod: method,
          responseTypes: body.grantTypes.includes('authorization_code') ? ['code'] : [],
          ...(secret ? { secretDigest: clientSecretDigest(deps.clientSecretPepper, secret) } : {}),
        };
        const created = await insertClient(models, fields);
        if (!created) throw problems.conflict('a client with this clientId already exists');
        const cfg = configSet(config);
        if (Object.keys(cfg.$set).length) await models.Client.updateOne({ _id: created._id }, { $set: cfg.$set });
        const doc = await find(tenantId, clientId);
        audit({ clientId, grantTypes: body.grantTypes, secretIssued: Boolean(secret) });
        invalidate('client', clientId);
        return {
          status: 201,
          body: { ...clientView(doc), ...(secret ? { clientSecret: secret } : {}) },
          headers: { Location: `${req.baseUrl}${req.path}/${clientId}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listClients',
      summary: 'List clients (oldest first)',
      tag: TAG,
      scope: 'auth.clients.list',
      params: tenantParams,
      query: z
        .object({
          limit: z.coerce.number().int().min(1).max(200).default(50),
          cursor: z
            .string()
            .regex(/^[0-9a-f]{24}$/)
            .optional(),
          ...filters,
        })
        .strict(),
      responses: { 200: { description: 'A page of clients', schema: page(clientSchema, 'ClientPage') } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.Client, listFilter(tenantId, query), query, clientView),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countClients',
      summary: 'Count clients',
      tag: TAG,
      scope: 'auth.clients.list',
      params: tenantParams,
      query: z.object(filters).strict(),
      responses: { 200: { description: 'The number of matching clients', schema: countSchema } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: { count: await models.Client.countDocuments(listFilter(tenantId, query)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:clientId`,
      operationId: 'getClient',
      summary: 'Get a client',
      tag: TAG,
      scope: 'auth.clients.list',
      params: clientParams,
      responses: { 200: { description: 'The client (never its secret)', schema: clientSchema } },
      handler: async ({ tenantId, params }) => ({
        status: 200,
        body: clientView(await find(tenantId, params.clientId)),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:clientId`,
      operationId: 'updateClient',
      summary: 'Update a client',
      description:
        'Switching to a secret-based method on a client without a secret generates one (returned once). Turning ' +
        'config.nhe.delegationEnabled off, or disabling the client, revokes its NHE tokens already issued. ' +
        'Disabling the client, taking a grant type away from it, or changing its authentication method or keys needs ' +
        'every management scope the client holds (403 otherwise), and so does turning dpopBoundAccessTokens off. ' +
        'On a first-party client, turning pkceRequired, dpopBoundAccessTokens or requirePushedAuthorizationRequests ' +
        'off needs every management scope. pkceRequired false on a public client is 400; a client that becomes ' +
        "public gets PKCE required again. The system tenant's bootstrap administrator cannot be disabled (409).",
      tag: TAG,
      scope: 'auth.clients.update',
      params: clientParams,
      body: patchBody,
      responses: { 200: { description: 'The updated client', schema: clientWithSecret } },
      errors: [409, 503],
      handler: async ({ tenantId, params, body, caller, audit, invalidate }) => {
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        const existing = await find(tenantId, params.clientId);
        // A dynamically registered client (RFC 7591) stays what it registered as: never first-party, no delegation,
        // its metadata changed through RFC 7592 by its own registration access token.
        const changed = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
        if (existing.registration === 'dynamic' && changed.some((k) => k !== 'enabled' && k !== 'name')) {
          throw problems.conflict(
            'a dynamically registered client changes through RFC 7592 with its registration access token; here only enabled and name can change (it cannot become first-party or delegate)',
          );
        }
        // Replacing how the client authenticates is taking it over; disabling it, or taking away a grant type it
        // has, is locking it out. Either is guarded like granting its scopes (auth/escalation.ts).
        const dropsGrant =
          body.grantTypes !== undefined &&
          (existing.grantTypes ?? []).some((g) => !body.grantTypes!.includes(g as (typeof GRANT_TYPES)[number]));
        // Unbinding its tokens from a key (DPoP off) makes a leaked token of the client usable by anyone.
        const unbindsTokens = body.dpopBoundAccessTokens === false && existing.requireDpop === true;
        if (
          body.tokenEndpointAuthMethod !== undefined ||
          body.jwks !== undefined ||
          body.enabled === false ||
          dropsGrant ||
          unbindsTokens
        ) {
          assertCallerHolds(caller, await clientManagementScopes(models, tenantId, params.clientId), 'the client');
        }
        if (body.enabled === false) assertNotBootstrapAdmin(tenantId, existing.clientId, 'disabled');
        // A first-party client gets a signed-in user's tokens without asking: making one, or changing where its
        // codes go or how it authenticates, is as strong as holding every management scope.
        // Demoting one counts too: its users' saved grants would still skip the consent page.
        // So is lowering the protection of its codes and tokens (PKCE, DPoP binding, PAR) below what the client has.
        const firstParty = existing.firstParty === true || body.firstParty === true;
        const lowers =
          (body.pkceRequired === false && pkceRequiredOf(existing)) ||
          unbindsTokens ||
          (body.requirePushedAuthorizationRequests === false && existing.requirePushedAuthorizationRequests === true);
        if (
          firstParty &&
          (body.firstParty !== undefined || lowers || FIRST_PARTY_SENSITIVE.some((f) => body[f] !== undefined))
        ) {
          assertCallerHolds(caller, MANAGEMENT_SCOPES, FIRST_PARTY);
        }
        const method = body.tokenEndpointAuthMethod ?? existing.tokenEndpointAuthMethod;
        // Records written through mongoose always hold both arrays (its array default); the reads above still guard.
        const grantTypes = body.grantTypes ?? existing.grantTypes!;
        checkClient(
          {
            tokenEndpointAuthMethod: method,
            grantTypes,
            redirectUris: body.redirectUris ?? existing.redirectUris!,
            jwks: body.jwks ?? existing.jwks,
            pkceRequired: body.pkceRequired,
            backchannelTokenDeliveryMode: body.backchannelTokenDeliveryMode ?? existing.backchannelTokenDeliveryMode,
            backchannelClientNotificationEndpoint:
              body.backchannelClientNotificationEndpoint ?? existing.backchannelClientNotificationEndpoint,
          },
          settings.hardMaxTokenLifetime,
          body.config?.nhe?.maxTokenLifetime,
        );
        const cfg = configSet(body.config);
        const $set: Record<string, unknown> = { ...recordFields(body), ...cfg.$set };
        // A client that becomes public needs PKCE whatever it had; should it turn confidential again, PKCE stays on.
        if (method === 'none' && existing.pkceRequired === false) $set.pkceRequired = true;
        if (body.grantTypes) $set.responseTypes = body.grantTypes.includes('authorization_code') ? ['code'] : [];
        let secret: string | undefined;
        if (SECRET_METHODS.has(method) && !existing.secretDigest) {
          secret = generateClientSecret();
          $set.secretDigest = clientSecretDigest(deps.clientSecretPepper, secret);
        }
        if (!SECRET_METHODS.has(method)) cfg.$unset.secretDigest = 1;
        // Consents were given to the client as it was: a new redirect target, a new way to authenticate, or the end of
        // its first-party standing (whose grants users never saw) asks again. Deleted before the update, so that a
        // failure leaves the change undone and its retry deletes them; and after, for a consent given meanwhile.
        const newRedirect = body.redirectUris?.some((u) => !(existing.redirectUris ?? []).includes(u)) ?? false;
        const newAuth =
          (body.tokenEndpointAuthMethod !== undefined &&
            body.tokenEndpointAuthMethod !== existing.tokenEndpointAuthMethod) ||
          body.jwks !== undefined;
        const demoted = existing.firstParty === true && body.firstParty === false;
        const reconsent = newRedirect || newAuth || demoted;
        let grantsRevoked = reconsent ? await revokeClientGrants(models, tenantId, params.clientId) : 0;
        const doc = await models.Client.findOneAndUpdate(
          { _id: existing._id },
          { $set, ...(Object.keys(cfg.$unset).length ? { $unset: cfg.$unset } : {}) },
          { returnDocument: 'after' },
        ).lean<ClientRow>();
        if (!doc) throw problems.notFound('client not found');
        if (reconsent) grantsRevoked += await revokeClientGrants(models, tenantId, params.clientId);
        audit({ clientId: params.clientId, fields: Object.keys(body), secretIssued: Boolean(secret), grantsRevoked });
        invalidate('client', params.clientId);
        if (body.config?.nhe?.delegationEnabled === false || body.enabled === false) {
          await deps.revoke?.({
            tenantId,
            clientNumericId: existing.numericId,
            reason: 'client.delegation.disabled',
            maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
          });
        }
        return { status: 200, body: { ...clientView(doc), ...(secret ? { clientSecret: secret } : {}) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:clientId/secret-rotations`,
      operationId: 'rotateClientSecret',
      summary: 'Generate a new client secret (the old one stops working now)',
      description: 'Needs every management scope the client holds (403 otherwise).',
      tag: TAG,
      scope: 'auth.clients.update',
      params: clientParams,
      body: emptyBody,
      responses: {
        200: {
          description: 'The new secret, shown once',
          schema: z.object({ clientId: z.string(), clientSecret: z.string() }).meta({ id: 'ClientSecret' }),
        },
      },
      errors: [409],
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        const existing = await find(tenantId, params.clientId);
        assertCallerHolds(caller, await clientManagementScopes(models, tenantId, params.clientId), 'the client');
        if (!SECRET_METHODS.has(existing.tokenEndpointAuthMethod))
          throw problems.conflict(`a ${existing.tokenEndpointAuthMethod} client has no secret`);
        const secret = generateClientSecret();
        await models.Client.updateOne(
          { _id: existing._id },
          { $set: { secretDigest: clientSecretDigest(deps.clientSecretPepper, secret) } },
        );
        audit({ clientId: params.clientId, secretRotated: true });
        invalidate('client', params.clientId);
        return { status: 200, body: { clientId: params.clientId, clientSecret: secret } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:clientId`,
      operationId: 'deleteClient',
      summary: 'Delete a client',
      description:
        'Revokes the NHE tokens issued to it. Token audit rows stay. Needs every management scope the client holds ' +
        "(403 otherwise). A client cannot delete itself, and the system tenant's bootstrap administrator cannot be deleted (409).",
      tag: TAG,
      scope: 'auth.clients.delete',
      params: clientParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409, 503],
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        const existing = await find(tenantId, params.clientId);
        if (caller.tenantId === tenantId && caller.clientId === existing.clientId)
          throw problems.conflict('a client cannot delete itself');
        // Deleting a client takes every scope it holds away: guarded like granting them.
        assertCallerHolds(caller, await clientManagementScopes(models, tenantId, params.clientId), 'the client');
        assertNotBootstrapAdmin(tenantId, existing.clientId, 'deleted');
        const settings = nheSettingsOf(await loadTenant(models, tenantId));
        // Revoke first: if that cannot be confirmed (503) nothing is deleted yet, so a retry of the DELETE does both.
        await deps.revoke?.({
          tenantId,
          clientNumericId: existing.numericId,
          reason: 'client.deleted',
          maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
        });
        // Its users' consents go with it: a client created later under the same clientId starts without them.
        await revokeClientGrants(models, tenantId, existing.clientId);
        // So is the sandbox's record of its script (a later client of the same clientId starts without it).
        await models.CustomClaimsScriptState.deleteMany({ tenantId, clientId: existing.clientId });
        // And its right to introspect APIs' tokens (a later client of the same clientId is not their introspector).
        await models.ResourceServer.updateMany(
          { tenantId, introspectionClientIds: existing.clientId },
          { $pull: { introspectionClientIds: existing.clientId } },
        );
        await models.Client.deleteOne({ _id: existing._id });
        audit({ clientId: params.clientId });
        invalidate('client', params.clientId);
        return { status: 204 };
      },
    }),
  ];
}
