/** Tenants and their settings (settings.nhe with the spec's defaults and limits, settings.claims, settings.security). */
import { z } from 'zod';
import {
  CLAIMS_SETTINGS_DEFAULTS,
  DEFAULT_NHE_TYPES,
  MAX_CHAIN_DEPTH,
  NHE_SETTINGS_DEFAULTS,
  nextSequence,
  SECURITY_PROFILES,
  SECURITY_SETTINGS_DEFAULTS,
} from '@idp/db';
import {
  CIMD_SETTINGS_DEFAULTS,
  OPENID_DYNAMIC_PROFILE_DEFAULTS,
  REGISTRATION_AUTH_METHODS,
  REGISTRATION_GRANT_TYPES,
  REGISTRATION_MODES,
  REGISTRATION_SETTINGS_DEFAULTS,
} from '@idp/db';
import { isDuplicateKeyError, ProblemError, problems } from '@idp/errors';
import { MAX_SIGN_IN_AGE_MINUTES } from '@idp/delegation';
import { NHE_MAX_TTL_SECONDS, NHE_MIN_TTL_SECONDS } from '@idp/tokens';
import { defineRoute, type RouteDef } from '../openapi/route';
import { CONSOLE_CLIENT_ID, ensureConsoleClient } from '../console/console-client';
import { isoDate, tenantParams } from '../openapi/schemas';
import { loadTenant, type RouteDeps, type StoredTenant } from './deps';
import { passkeySettingsPatch, passkeySettingsUpdate, passkeySettingsView, passkeysView } from './tenant-passkeys';
import {
  backchannelSettingsPatch,
  backchannelSettingsUpdate,
  backchannelSettingsView,
  backchannelView,
} from './tenant-backchannel';

/** Spec, "Limits": hard max NHE token TTL. */

const nheSettingsPatch = z
  .object({
    enabled: z.boolean(),
    defaultMaxTokenLifetime: z.number().int().min(NHE_MIN_TTL_SECONDS).max(NHE_MAX_TTL_SECONDS),
    hardMaxTokenLifetime: z.number().int().min(NHE_MIN_TTL_SECONDS).max(NHE_MAX_TTL_SECONDS),
    requireDpop: z.boolean(),
    allowedNheTypes: z
      .array(z.enum(DEFAULT_NHE_TYPES))
      .max(DEFAULT_NHE_TYPES.length)
      .refine((a) => new Set(a).size === a.length, 'must not repeat a type'),
    maxNhePerTenant: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .describe('Only system-tenant administrators may change it (a platform quota)'),
    auditRetentionDays: z.number().int().min(0).max(36_500).describe('0 disables pruning'),
    requireActorProof: z
      .boolean()
      .describe(
        "Token exchange needs an actor JWT (actor_token_type urn:ietf:params:oauth:token-type:jwt) proving the NHE; default false (the nhe-id actor token is enough). An NHE's own requireActorProof overrides it",
      ),
    maxChainDepth: z
      .number()
      .int()
      .min(1)
      .max(MAX_CHAIN_DEPTH)
      .describe(
        "Deepest delegation chain (actors nested in act) a token of this tenant may carry; the ceiling over every delegation policy's maxChainDepth. " +
          "Default 1: an NHE token is not a valid subject_token (no re-delegation). 2 to 5: an NHE token may be exchanged for another NHE's token (RFC 8693 section 4.1 nested act) where policies allow it",
      ),
    phishingResistantSignInMaxAgeMinutes: z
      .number()
      .int()
      .min(0)
      .max(MAX_SIGN_IN_AGE_MINUTES)
      .describe(
        'Phishing-resistant delegation, the default of delegation policies without their own: token exchange needs a subject_token from a ' +
          'phishing-resistant sign-in (acr phr or phrh, a passkey) whose auth_time is at most this many minutes old, else access_denied. ' +
          'Default 0: no requirement. Applies to user and group policies (a hand-on is bounded by its parent)',
      ),
  })
  .partial()
  .strict();

const claimsSettingsPatch = z
  .object({
    amrProfile: z.enum(['rfc8176', 'projected']),
    ga4ghPassport: z
      .object({ enabled: z.boolean(), visaLifetimeSeconds: z.number().int().min(60).max(86_400) })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

const SECURITY_PROFILE_DESCRIPTION =
  '`standard` (default): OpenID Connect and OAuth as every tenant has them. `fapi2`: FAPI 2.0 Security Profile: ' +
  'pushed authorization requests required (with redirect_uri), every access and refresh token DPoP-bound, client ' +
  'authentication by private_key_jwt only (assertion aud exactly the issuer; PS256, ES256 or EdDSA), PKCE S256, ' +
  'ES256 ID tokens; other clients of the tenant get invalid_client. Not available to the system tenant.';

const securitySettingsPatch = z
  .object({ profile: z.enum(SECURITY_PROFILES).describe(SECURITY_PROFILE_DESCRIPTION) })
  .partial()
  .strict();

/** A host name, or `*.` and a host name (any name below it). */
const hostPattern = z
  .string()
  .max(253)
  .regex(
    /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i,
    'a host name, or *. and a host name (mcp.example.com, *.example.com)',
  );

const CIMD_DESCRIPTION =
  'Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an https URL ' +
  'is resolved by fetching that document ' +
  '(SSRF-safe: no private, loopback, link-local or metadata addresses, the resolved address is the one connected to, ' +
  'no redirects, size cap, 1 s to connect and 2.5 s in all; a few fetches per tenant at once, failures remembered ' +
  'for 30 s), cached within cacheMaxSeconds, validated (client_id equals the URL; ' +
  'token_endpoint_auth_method none, or private_key_jwt with jwks_uri; no secrets; RFC 8252 redirect URIs for native ' +
  "clients, https otherwise). Such a client is always a third party: consent page with the document's name and the " +
  "URL's host, no delegation, no management or SSF tokens. Off by default; not available to the system tenant.";

const cimdSettingsPatch = z
  .object({
    enabled: z.boolean(),
    allowedHosts: z
      .array(hostPattern)
      .max(100)
      .describe(
        'Hosts documents may come from (exact names, or *.example.com for any name below example.com); empty: any public host',
      ),
    allowLoopback: z
      .boolean()
      .describe(
        "Not a tenant setting: only false is accepted (and changes nothing). Whether documents and key sets on loopback hosts are fetched is the operator's choice for the whole platform (oidc-core's CIMD_ALLOW_LOOPBACK, development only)",
      ),
    cacheMaxSeconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .describe('Longest a document is cached, whatever its Cache-Control says; default 3600'),
    maxDocumentBytes: z.number().int().min(1024).max(65_536).describe('Largest document accepted; default 5120'),
  })
  .partial()
  .strict()
  .describe(CIMD_DESCRIPTION);

const REGISTRATION_DESCRIPTION =
  'Dynamic Client Registration (RFC 7591, with RFC 7592 read/update/delete by registration access token) at ' +
  '{issuer}/reg. mode `off` (default): no endpoint. `initial-access-token`: a registration needs a token issued by ' +
  'POST /tenants/{tenantId}/initial-access-tokens. `open`: anyone who can reach the endpoint registers clients; ' +
  'WARNING: for development only. Registered clients get only the grant types and authentication methods listed ' +
  'here (never a shared secret or token exchange; client_credentials only with private_key_jwt, RFC 6749 section ' +
  '4.4), RFC 8252 redirect URIs for native clients and exact https ' +
  'otherwise; they are marked registration "dynamic", never first-party, without delegation or roles. Not available ' +
  'to the system tenant.';

const registrationSettingsPatch = z
  .object({
    mode: z.enum(REGISTRATION_MODES),
    grantTypes: z
      .array(z.enum(REGISTRATION_GRANT_TYPES))
      .min(1)
      .max(REGISTRATION_GRANT_TYPES.length)
      .describe('Grant types a registered client may have; default authorization_code, refresh_token'),
    tokenEndpointAuthMethods: z
      .array(z.enum(REGISTRATION_AUTH_METHODS))
      .min(1)
      .max(REGISTRATION_AUTH_METHODS.length)
      .describe('Default none, private_key_jwt'),
    rateLimit: z
      .object({
        maxPerWindow: z.number().int().min(1).max(100_000),
        windowSeconds: z.number().int().min(60).max(86_400),
      })
      .partial()
      .strict()
      .describe('Registration attempts per source address and window, counted across replicas; default 10 per 3600 s'),
  })
  .partial()
  .strict()
  .describe(REGISTRATION_DESCRIPTION);

const OPENID_DYNAMIC_PROFILE_DESCRIPTION =
  'OpenID Connect Dynamic OP profile (OpenID Connect Core 1.0 section 15.2; what the OpenID Foundation Dynamic OP ' +
  'certification tests), off by default. enabled true adds: signed request objects by value and by reference ' +
  "(request, request_uri; RFC 9101; verified with the client's registered keys, asymmetric algorithms only; " +
  'request_uri fetched through the same SSRF-safe, rate-bounded outbound layer as metadata documents), signed ' +
  'UserInfo for clients that register userinfo_signed_response_alg (ES256, RS256), the id_token and ' +
  '`id_token token` response types for clients that register them (discouraged by RFC 9700; never for agent ' +
  'clients), and for a dynamically registered confidential client the choice to register without PKCE ' +
  '(org.vendor.require_pkce false, its default there; public clients always use PKCE). Registration itself is ' +
  'settings.registration. Not available with the fapi2 security profile or to the system tenant.';

const openidDynamicProfilePatch = z
  .object({ enabled: z.boolean() })
  .partial()
  .strict()
  .describe(OPENID_DYNAMIC_PROFILE_DESCRIPTION);

const settingsPatch = z
  .object({
    nhe: nheSettingsPatch,
    claims: claimsSettingsPatch,
    security: securitySettingsPatch,
    clientIdMetadataDocuments: cimdSettingsPatch,
    registration: registrationSettingsPatch,
    openidDynamicProfile: openidDynamicProfilePatch,
    passkeys: passkeySettingsPatch,
    backchannelAuthentication: backchannelSettingsPatch,
  })
  .partial()
  .strict();

const createBody = z
  .object({
    id: z
      .number()
      .int()
      .min(1)
      .max(999_999_999_999_999)
      .optional()
      .describe('Numeric tenant id; allocated when absent'),
    name: z.string().min(1).max(128),
    settings: settingsPatch.optional(),
  })
  .strict();

const TENANT_ENABLED_DESCRIPTION =
  'false: the tenant is disabled. Its authorization, token, UserInfo, discovery, JWKS, device and registration ' +
  'endpoints and its sign-in and account pages answer 403 (access_denied, "tenant disabled"); introspection answers ' +
  'active false for every token (RFC 7662 section 2.2); the delegation sidecar exchanges no token; its own ' +
  "administrators' management tokens are refused. Revocation still works. The platform's (system-tenant) " +
  'administrators keep managing it. true again restores everything; nothing is deleted. The system tenant cannot ' +
  'be disabled. Default true.';

const patchBody = z
  .object({
    name: z.string().min(1).max(128).optional(),
    enabled: z.boolean().optional().describe(TENANT_ENABLED_DESCRIPTION),
    settings: settingsPatch.optional(),
  })
  .strict();

export const tenantSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    system: z.boolean(),
    enabled: z.boolean().describe(TENANT_ENABLED_DESCRIPTION),
    settings: z.object({
      nhe: z.object({
        enabled: z.boolean(),
        defaultMaxTokenLifetime: z.number().int(),
        hardMaxTokenLifetime: z.number().int(),
        requireDpop: z.boolean(),
        allowedNheTypes: z.array(z.string()),
        maxNhePerTenant: z.number().int(),
        auditRetentionDays: z.number().int(),
        requireActorProof: z.boolean(),
        maxChainDepth: z.number().int(),
        phishingResistantSignInMaxAgeMinutes: z.number().int(),
      }),
      claims: z.object({
        amrProfile: z.enum(['rfc8176', 'projected']),
        ga4ghPassport: z.object({ enabled: z.boolean(), visaLifetimeSeconds: z.number().int() }),
      }),
      security: z.object({ profile: z.enum(SECURITY_PROFILES).describe(SECURITY_PROFILE_DESCRIPTION) }),
      clientIdMetadataDocuments: z
        .object({
          enabled: z.boolean(),
          allowedHosts: z.array(z.string()),
          cacheMaxSeconds: z.number().int(),
          maxDocumentBytes: z.number().int(),
        })
        .describe(CIMD_DESCRIPTION),
      registration: z
        .object({
          mode: z.enum(REGISTRATION_MODES),
          grantTypes: z.array(z.string()),
          tokenEndpointAuthMethods: z.array(z.string()),
          rateLimit: z.object({ maxPerWindow: z.number().int(), windowSeconds: z.number().int() }),
        })
        .describe(REGISTRATION_DESCRIPTION),
      openidDynamicProfile: z.object({ enabled: z.boolean() }).describe(OPENID_DYNAMIC_PROFILE_DESCRIPTION),
      passkeys: passkeySettingsView,
      backchannelAuthentication: backchannelSettingsView,
    }),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Tenant' });

export function tenantView(doc: StoredTenant) {
  const claims = doc.settings?.claims;
  return {
    id: doc._id,
    name: doc.name,
    system: doc.system === true,
    // A tenant stored before the field existed is enabled.
    enabled: doc.enabled !== false,
    settings: {
      nhe: { ...NHE_SETTINGS_DEFAULTS, ...(doc.settings?.nhe ?? {}) },
      claims: {
        amrProfile: claims?.amrProfile ?? CLAIMS_SETTINGS_DEFAULTS.amrProfile,
        ga4ghPassport: { ...CLAIMS_SETTINGS_DEFAULTS.ga4ghPassport, ...(claims?.ga4ghPassport ?? {}) },
      },
      security: { profile: doc.settings?.security?.profile ?? SECURITY_SETTINGS_DEFAULTS.profile },
      clientIdMetadataDocuments: cimdView(doc),
      registration: {
        ...REGISTRATION_SETTINGS_DEFAULTS,
        ...definedOf(doc.settings?.registration),
        rateLimit: { ...REGISTRATION_SETTINGS_DEFAULTS.rateLimit, ...definedOf(doc.settings?.registration?.rateLimit) },
      },
      openidDynamicProfile: { ...OPENID_DYNAMIC_PROFILE_DEFAULTS, ...definedOf(doc.settings?.openidDynamicProfile) },
      passkeys: passkeysView(doc.settings?.passkeys),
      backchannelAuthentication: backchannelView(doc.settings?.backchannelAuthentication),
    },
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** settings.clientIdMetadataDocuments as stored, with defaults; an `allowLoopback` earlier versions stored is no setting (not shown). */
function cimdView(doc: StoredTenant) {
  const stored: Record<string, unknown> = { ...definedOf(doc.settings?.clientIdMetadataDocuments) };
  delete stored.allowLoopback;
  return { ...CIMD_SETTINGS_DEFAULTS, ...(stored as Partial<typeof CIMD_SETTINGS_DEFAULTS>) };
}

/** The members of a stored settings object that are set (absent ones take their defaults). */
function definedOf<T extends object>(o: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

type SettingsPatch = z.output<typeof settingsPatch>;

/** Flattens a settings patch into `$set` paths and checks the merged NHE settings are consistent. */
function settingsUpdate(current: StoredTenant | undefined, patch: SettingsPatch | undefined): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch?.nhe ?? {})) set[`settings.nhe.${k}`] = v;
  if (patch?.claims?.amrProfile !== undefined) set['settings.claims.amrProfile'] = patch.claims.amrProfile;
  for (const [k, v] of Object.entries(patch?.claims?.ga4ghPassport ?? {}))
    set[`settings.claims.ga4ghPassport.${k}`] = v;
  if (patch?.security?.profile !== undefined) set['settings.security.profile'] = patch.security.profile;
  // A tenant setting never widens the platform's outbound policy: loopback fetching is the operator's (oidc-core's
  // CIMD_ALLOW_LOOPBACK). `false` is accepted as the nothing it is (a client writing back what it read before).
  if (patch?.clientIdMetadataDocuments?.allowLoopback === true) {
    throw problems.validation('loopback fetching is not a tenant setting', [
      {
        name: 'body.settings.clientIdMetadataDocuments.allowLoopback',
        reason:
          "a tenant cannot widen the platform's outbound policy: whether documents and key sets on loopback hosts are fetched is the operator's choice (CIMD_ALLOW_LOOPBACK of oidc-core, for development only)",
      },
    ]);
  }
  for (const [k, v] of Object.entries(patch?.clientIdMetadataDocuments ?? {}))
    if (k !== 'allowLoopback') set[`settings.clientIdMetadataDocuments.${k}`] = v;
  for (const [k, v] of Object.entries(patch?.registration ?? {})) {
    if (k === 'rateLimit')
      for (const [rk, rv] of Object.entries(v as object)) set[`settings.registration.rateLimit.${rk}`] = rv;
    else set[`settings.registration.${k}`] = v;
  }
  // Clients that introduce themselves never reach the system tenant, whose clients hold the platform's management
  // scopes.
  if (
    current?.system &&
    (patch?.clientIdMetadataDocuments?.enabled === true ||
      (patch?.registration?.mode !== undefined && patch.registration.mode !== 'off'))
  ) {
    throw problems.validation('client self-registration is not available to the system tenant', [
      {
        name:
          patch.clientIdMetadataDocuments?.enabled === true
            ? 'body.settings.clientIdMetadataDocuments.enabled'
            : 'body.settings.registration.mode',
        reason: 'the system tenant accepts no Client ID Metadata Documents and no dynamic registration',
      },
    ]);
  }
  // The system tenant issues the management API's tokens to its bootstrap admin (client_secret_basic): under FAPI
  // 2.0 that client would be invalid_client and the platform locked out.
  if (current?.system && patch?.security?.profile === 'fapi2') {
    throw problems.validation('settings.security is not available to the system tenant', [
      {
        name: 'body.settings.security.profile',
        reason:
          'the system tenant cannot use the fapi2 profile (its bootstrap admin authenticates with a client secret)',
      },
    ]);
  }
  if (patch?.openidDynamicProfile?.enabled !== undefined)
    set['settings.openidDynamicProfile.enabled'] = patch.openidDynamicProfile.enabled;
  // The OpenID Dynamic profile and FAPI 2.0 exclude each other: FAPI 2.0 allows no request object outside PAR, no
  // response type but code and no public client. Checked on the merged settings, whichever of the two a patch turns on.
  const dynamicOn = patch?.openidDynamicProfile?.enabled ?? current?.settings?.openidDynamicProfile?.enabled ?? false;
  const profile =
    patch?.security?.profile ?? current?.settings?.security?.profile ?? SECURITY_SETTINGS_DEFAULTS.profile;
  if (dynamicOn && (patch?.openidDynamicProfile?.enabled === true || patch?.security?.profile !== undefined)) {
    if (current?.system) {
      throw problems.validation('the OpenID Dynamic profile is not available to the system tenant', [
        {
          name: 'body.settings.openidDynamicProfile.enabled',
          reason:
            "the system tenant issues the platform's management tokens: no request objects or implicit response types there",
        },
      ]);
    }
    if (profile === 'fapi2') {
      throw problems.validation('the OpenID Dynamic profile cannot be combined with FAPI 2.0', [
        {
          name:
            patch.openidDynamicProfile?.enabled === true
              ? 'body.settings.openidDynamicProfile.enabled'
              : 'body.settings.security.profile',
          reason:
            'a FAPI 2.0 tenant allows only pushed authorization requests, the code response type and private_key_jwt clients; turn settings.openidDynamicProfile off, or keep the standard security profile',
        },
      ]);
    }
  }
  // RFC 6749 section 4.4: client_credentials is for confidential clients. A policy may allow it beside public clients
  // (a registration then asks for one or the other); one that allows it with no confidential method could never
  // register such a client, so it is refused as contradictory (checked when a patch changes either list, so a policy
  // stored before this rule does not block unrelated changes).
  const registration = {
    ...REGISTRATION_SETTINGS_DEFAULTS,
    ...definedOf(current?.settings?.registration),
    ...definedOf(patch?.registration),
  };
  const policyChanged =
    patch?.registration?.grantTypes !== undefined || patch?.registration?.tokenEndpointAuthMethods !== undefined;
  if (
    policyChanged &&
    registration.grantTypes.includes('client_credentials') &&
    !registration.tokenEndpointAuthMethods.some((m) => m !== 'none')
  ) {
    throw problems.validation('settings.registration is inconsistent', [
      {
        name: patch.registration?.grantTypes
          ? 'body.settings.registration.grantTypes'
          : 'body.settings.registration.tokenEndpointAuthMethods',
        reason:
          'client_credentials needs a confidential client (RFC 6749 section 4.4): allow private_key_jwt among tokenEndpointAuthMethods, or drop client_credentials',
      },
    ]);
  }
  const merged = { ...NHE_SETTINGS_DEFAULTS, ...(current?.settings?.nhe ?? {}), ...(patch?.nhe ?? {}) };
  if (merged.defaultMaxTokenLifetime > merged.hardMaxTokenLifetime) {
    throw problems.validation('settings.nhe is inconsistent', [
      {
        name: 'body.settings.nhe.defaultMaxTokenLifetime',
        reason: `must not exceed hardMaxTokenLifetime (${merged.hardMaxTokenLifetime})`,
      },
    ]);
  }
  return set;
}

const TAG = 'Tenants';

export function tenantRoutes(deps: RouteDeps): RouteDef[] {
  const { models, keyStore } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/tenants',
      operationId: 'createTenant',
      summary: 'Create a tenant (with its signing keys)',
      tag: TAG,
      access: 'system',
      scope: 'auth.tenants.create',
      body: createBody,
      responses: {
        201: { description: 'The tenant', schema: tenantSchema, headers: { Location: 'URL of the tenant' } },
      },
      errors: [409],
      handler: async ({ body, req, audit, invalidate }) => {
        const set = {
          ...settingsUpdate(undefined, body.settings),
          ...(await passkeySettingsUpdate(models, undefined, undefined, body.settings?.passkeys)),
          ...backchannelSettingsUpdate(false, body.settings?.backchannelAuthentication),
        };
        let id = body.id;
        if (id !== undefined && (await models.Tenant.exists({ _id: id })))
          throw problems.conflict(`tenant ${id} already exists`);
        // An id is spent once a tenant had it: its tombstone says so, and so do audit rows a tenant deleted before
        // tombstones existed left behind.
        const spent = async (tenantId: number) =>
          Boolean(
            (await models.DeletedTenant.exists({ _id: tenantId })) ?? (await models.TokenAudit.exists({ tenantId })),
          );
        if (id !== undefined && (await spent(id)))
          throw problems.conflict(`tenant id ${id} belonged to a deleted tenant: ids are never reused`);
        for (let attempt = 0; ; attempt++) {
          const candidate = id ?? (await nextSequence(models, 'tenants', 1000));
          // A generated id may land on one a deleted tenant had (given explicitly once): move on to the next (the
          // sequence only grows and spent ids are finite, so this ends).
          if (id === undefined && (await spent(candidate))) continue;
          try {
            await models.Tenant.create({ _id: candidate, name: body.name });
            id = candidate;
            break;
          } catch (err) {
            if (!isDuplicateKeyError(err) || body.id !== undefined || attempt > 20) throw err;
          }
        }
        if (Object.keys(set).length) await models.Tenant.updateOne({ _id: id }, { $set: set });
        await keyStore.ensureKeys(id);
        if (deps.consoleRedirectUris) await ensureConsoleClient(models, id, deps.consoleRedirectUris);
        const doc = await loadTenant(models, id);
        audit({ createdTenantId: id, name: body.name });
        invalidate('tenant', String(id)); // clears negative caches of the new id
        return { status: 201, body: tenantView(doc), headers: { Location: `${req.baseUrl}/tenants/${id}` } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tenants',
      operationId: 'listTenants',
      summary: 'List tenants (by id)',
      tag: TAG,
      access: 'system',
      scope: 'auth.tenants.list',
      query: z
        .object({
          limit: z.coerce.number().int().min(1).max(200).default(50),
          cursor: z
            .string()
            .regex(/^\d{1,15}$/, 'must be a cursor returned by a previous page')
            .optional(),
          namePrefix: z.string().min(1).max(128).optional(),
        })
        .strict(),
      responses: {
        200: {
          description: 'A page of tenants',
          schema: z
            .object({ items: z.array(tenantSchema), nextCursor: z.string().nullable() })
            .meta({ id: 'TenantPage' }),
        },
      },
      handler: async ({ query }) => {
        const filter: Record<string, unknown> = {};
        if (query.cursor) filter._id = { $gt: Number(query.cursor) };
        if (query.namePrefix) filter.name = new RegExp(`^${query.namePrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
        const rows = await models.Tenant.find(filter)
          .sort({ _id: 1 })
          .limit(query.limit + 1)
          .lean<StoredTenant[]>();
        const items = rows.slice(0, query.limit);
        return {
          status: 200,
          body: {
            items: items.map(tenantView),
            nextCursor: rows.length > query.limit ? String(items[items.length - 1]!._id) : null,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tenants/:tenantId',
      operationId: 'getTenant',
      summary: 'Get a tenant and its settings',
      tag: TAG,
      scope: 'auth.tenants.list',
      params: tenantParams,
      responses: { 200: { description: 'The tenant', schema: tenantSchema } },
      handler: async ({ tenantId }) => ({ status: 200, body: tenantView(await loadTenant(models, tenantId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/tenants/:tenantId',
      operationId: 'updateTenant',
      summary: "Update a tenant's name, enabled or settings",
      description:
        'enabled false disables the whole tenant (system-tenant administrators only; see Tenant.enabled). ' +
        "Turning settings.nhe.enabled off also revokes every NHE token of the tenant already issued. A change of settings.security.profile applies to the next request of each client (the tenant's provider is rebuilt); access tokens already issued stay valid until they expire.",
      tag: TAG,
      scope: 'auth.tenants.update',
      params: tenantParams,
      body: patchBody,
      responses: { 200: { description: 'The updated tenant', schema: tenantSchema } },
      errors: [503],
      handler: async ({ tenantId, body, caller, audit, invalidate }) => {
        if (body.settings?.nhe?.maxNhePerTenant !== undefined && !caller.system) {
          throw new ProblemError(
            'forbidden',
            403,
            'settings.nhe.maxNhePerTenant is a platform quota: only system-tenant administrators may change it',
          );
        }
        const current = await loadTenant(models, tenantId);
        // Only the platform's administrators turn a tenant off or on: a tenant's own administrators could not turn it
        // back on (their tokens are refused while it is off). The system tenant issues the platform's tokens.
        if (body.enabled !== undefined && !caller.system)
          throw new ProblemError('forbidden', 403, "only system-tenant administrators may change a tenant's enabled");
        if (body.enabled === false && current.system)
          throw problems.validation('the system tenant cannot be disabled', [
            { name: 'body.enabled', reason: "the system tenant issues the platform's management tokens" },
          ]);
        const set = {
          ...settingsUpdate(current, body.settings),
          ...(await passkeySettingsUpdate(models, tenantId, current.settings?.passkeys, body.settings?.passkeys)),
          ...backchannelSettingsUpdate(current.system === true, body.settings?.backchannelAuthentication),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.enabled !== undefined ? { enabled: body.enabled } : {}),
        };
        const doc = Object.keys(set).length
          ? await models.Tenant.findOneAndUpdate(
              { _id: tenantId },
              { $set: set },
              { returnDocument: 'after' },
            ).lean<StoredTenant>()
          : current;
        if (!doc) throw problems.notFound('tenant not found');
        audit({ fields: Object.keys(set) });
        invalidate('tenant', String(tenantId));
        if (body.settings?.nhe?.enabled === false) {
          await deps.revoke?.({
            tenantId,
            reason: 'tenant.nhe.disabled',
            maxTokenLifetimeSeconds: doc.settings?.nhe?.hardMaxTokenLifetime ?? NHE_MAX_TTL_SECONDS,
          });
        }
        return { status: 200, body: tenantView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/tenants/:tenantId',
      operationId: 'deleteTenant',
      summary: 'Delete an empty tenant',
      description:
        "Only a tenant without clients (besides the admin console's built-in one, which goes with it), users, groups, roles, resource servers and NHEs can be deleted (409 otherwise); the system tenant never. Its signing keys go with it. Its id is never reused, and its token audit rows stay until the retention job removes them by the tenant's last auditRetentionDays.",
      tag: TAG,
      access: 'system',
      scope: 'auth.tenants.delete',
      params: tenantParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ tenantId, audit, invalidate }) => {
        const tenant = await loadTenant(models, tenantId);
        if (tenant.system) throw problems.conflict('the system tenant cannot be deleted');
        // The admin console's built-in client is the tenant's own, made with it: it goes with it, like its keys.
        const counts = await Promise.all([
          models.Client.countDocuments({ tenantId, clientId: { $ne: CONSOLE_CLIENT_ID } }),
          models.User.countDocuments({ tenantId }),
          models.Group.countDocuments({ tenantId }),
          models.Role.countDocuments({ tenantId }),
          models.ResourceServer.countDocuments({ tenantId }),
          models.Nhe.countDocuments({ tenantId }),
        ]);
        if (counts.some((n) => n > 0))
          throw problems.conflict(
            'the tenant still has clients, users, groups, roles, resource servers or NHEs: delete them first',
          );
        // The tombstone first: from the moment the tenant is gone its id must already be reserved.
        const auditRetentionDays = tenant.settings?.nhe?.auditRetentionDays ?? NHE_SETTINGS_DEFAULTS.auditRetentionDays;
        await models.DeletedTenant.updateOne(
          { _id: tenantId },
          { $set: { name: tenant.name, auditRetentionDays, deletedAt: new Date() } },
          { upsert: true },
        );
        await models.Client.deleteMany({ tenantId, clientId: CONSOLE_CLIENT_ID });
        await models.SigningKey.deleteMany({ tenantId });
        await models.WorkloadIssuer.deleteMany({ tenantId });
        await models.TrustedIssuer.deleteMany({ tenantId });
        await models.IdJagAudience.deleteMany({ tenantId });
        await models.PasswordReset.deleteMany({ tenantId });
        // Passkey data left by users deleted before this code removed it with them, and unused challenges.
        await models.WebauthnCredential.deleteMany({ tenantId });
        await models.PasskeyRecoveryCode.deleteMany({ tenantId });
        await models.WebauthnChallenge.deleteMany({ tenantId });
        await models.ScimCredential.deleteMany({ tenantId });
        await models.UpstreamProvider.deleteMany({ tenantId });
        await models.Tenant.deleteOne({ _id: tenantId });
        audit({ deletedTenantId: tenantId });
        invalidate('tenant', String(tenantId));
        return { status: 204 };
      },
    }),
  ];
}
