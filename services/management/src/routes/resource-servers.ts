/**
 * Resource servers (APIs): identifier, permissions (with optional descriptions, shown on the consent page),
 * accessToken.lifetime, config.nhe and the clients that may introspect its tokens. Identifiers that normalise to a
 * built-in audience, and scopes under the management API's `auth.` prefix, are refused (domain/reserved-identifiers.ts).
 */
import { z } from 'zod';
import type { ResourceServerDoc } from '@idp/db';
import { DEFAULT_NHE_TYPES } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { isReservedScope, reservedAudienceOf, RESERVED_SCOPE_PREFIX } from '../domain/reserved-identifiers';
import { defineRoute, type RouteDef } from '../openapi/route';
import { clientIdSchema } from './clients';
import {
  countSchema,
  isoDate,
  objectIdParam,
  page,
  pageQuery,
  scopeList,
  scopeString,
  tenantParams,
} from '../openapi/schemas';
import { idOr404, nheSettingsOf, loadTenant, pageOf, type RouteDeps } from './deps';

const identifier = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    try {
      const u = new URL(v);
      if (u.hash) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment (RFC 8707)' });
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URI (RFC 8707)' });
    }
    // Spellings that normalise to a built-in audience too (urn:IDP:management, urn:idp:management/, ...?).
    const reserved = reservedAudienceOf(v);
    if (reserved)
      ctx.addIssue({
        code: 'custom',
        message:
          reserved === MANAGEMENT_AUDIENCE
            ? `is reserved for the management API (${MANAGEMENT_AUDIENCE})`
            : `is reserved (${reserved})`,
      });
  });

const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;
const METADATA_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * Where the API publishes its Protected Resource Metadata (RFC 9728): https (http only on a loopback host, for
 * development), no credentials or fragment, at the well-known path (RFC 9728 section 3: the well-known string
 * inserted between host and path).
 */
const metadataUrl = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute URL' });
      return;
    }
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOOPBACK_HOST.test(u.hostname)))
      ctx.addIssue({ code: 'custom', message: 'must be an https URL (http only on a loopback host)' });
    if (u.username || u.password) ctx.addIssue({ code: 'custom', message: 'must not contain credentials' });
    if (u.hash || v.includes('#')) ctx.addIssue({ code: 'custom', message: 'must not contain a fragment' });
    if (u.pathname !== METADATA_WELL_KNOWN && !u.pathname.startsWith(`${METADATA_WELL_KNOWN}/`))
      ctx.addIssue({
        code: 'custom',
        message: `must be at the RFC 9728 well-known path (${METADATA_WELL_KNOWN}[/<resource path>])`,
      });
  })
  .describe(
    "URL of the API's OAuth 2.0 Protected Resource Metadata (RFC 9728), e.g. https://api.example/.well-known/oauth-protected-resource/orders; https, or http on a loopback host",
  );

/** The resource server's scopes: the `auth.` prefix belongs to the management API. */
const rsScopes = scopeList.superRefine((scopes, ctx) => {
  scopes.forEach((s, i) => {
    if (isReservedScope(s))
      ctx.addIssue({
        code: 'custom',
        path: [i],
        message: `the ${RESERVED_SCOPE_PREFIX} prefix is reserved for the management API's scopes`,
      });
  });
});

/**
 * Shortest access-token lifetime a resource server may set (seconds). Ordinary tokens get exactly the
 * lifetime set; an NHE delegation token is still clamped to at least 60 s (spec, "Limits"; libs/delegation resolveTtl).
 */
export const MIN_ACCESS_TOKEN_LIFETIME_SECONDS = 5;

const config = z
  .object({
    accessToken: z
      .object({
        lifetime: z
          .number()
          .int()
          .min(MIN_ACCESS_TOKEN_LIFETIME_SECONDS)
          .max(86_400)
          .describe(
            `Seconds, ${MIN_ACCESS_TOKEN_LIFETIME_SECONDS} to 86400: the lifetime of ordinary access tokens for this API; an NHE delegation token takes it as one term of its TTL, clamped to at least 60 s`,
          ),
      })
      .strict(),
    nhe: z
      .object({
        acceptDelegationTokens: z.boolean(),
        requireDelegationTokens: z.boolean(),
        allowedNheTypes: z.array(z.enum(DEFAULT_NHE_TYPES)).max(DEFAULT_NHE_TYPES.length).describe('Empty: every type'),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

/**
 * Clients that may introspect this API's access tokens (RFC 7662 section 4): confidential clients of the tenant,
 * usually the API's own. The client a token was issued to may always introspect it; any other caller is answered
 * `{ "active": false }`.
 */
const introspectionClientIds = z
  .array(clientIdSchema)
  .max(20)
  .describe(
    "client_ids of confidential clients of this tenant that may introspect this API's access tokens (RFC 7662 section 4), usually the API's own client; " +
      'the client a token was issued to may always introspect it, every other caller is answered {"active": false}. A PATCH replaces the list',
  );

/** What the consent page says for a scope (optional, per scope). */
const scopeDescriptions = z
  .record(scopeString, z.string().min(1).max(200))
  .describe(
    'Scope → what the consent page says for it, e.g. {"orders:read": "See your orders"}; every key must be one of `scopes`. A PATCH replaces the whole map; a PATCH of `scopes` alone drops the descriptions of scopes it removes',
  );

const createBody = z
  .object({
    identifier,
    name: z.string().min(1).max(128),
    scopes: rsScopes.default([]),
    scopeDescriptions: scopeDescriptions.optional(),
    metadataUrl: metadataUrl.optional(),
    introspectionClientIds: introspectionClientIds.optional(),
    config: config.optional(),
  })
  .strict();
const patchBody = z
  .object({
    name: z.string().min(1).max(128).optional(),
    scopes: rsScopes.optional(),
    scopeDescriptions: scopeDescriptions.optional(),
    metadataUrl: metadataUrl.nullable().optional().describe('null removes it'),
    introspectionClientIds: introspectionClientIds.optional(),
    config: config.optional(),
  })
  .strict();

export const resourceServerSchema = z
  .object({
    id: z.string(),
    identifier: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    scopeDescriptions: z
      .record(z.string(), z.string())
      .describe('Scope → what the consent page says for it (empty when none)'),
    metadataUrl: z
      .string()
      .nullable()
      .describe("URL of the API's RFC 9728 Protected Resource Metadata (null when not recorded)"),
    introspectionClientIds: z
      .array(z.string())
      .describe(
        "client_ids that may introspect this API's access tokens besides the token's own client (empty when none)",
      ),
    config: z.object({
      accessToken: z.object({ lifetime: z.number().int() }),
      nhe: z.object({
        acceptDelegationTokens: z.boolean(),
        requireDelegationTokens: z.boolean(),
        allowedNheTypes: z.array(z.string()),
      }),
    }),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'ResourceServer' });

/** As stored: a record written before a member existed lacks it, and the view shows its default. */
type StoredResourceServer = Omit<ResourceServerDoc, 'scopes' | 'config'> & {
  scopes?: string[];
  config?: {
    accessToken?: Partial<ResourceServerDoc['config']['accessToken']>;
    nhe?: Partial<ResourceServerDoc['config']['nhe']>;
  };
};
type Row = StoredResourceServer & { _id: unknown; createdAt?: Date; updatedAt?: Date };

export function resourceServerView(doc: Row) {
  return {
    id: String(doc._id),
    identifier: doc.identifier,
    name: doc.name,
    scopes: doc.scopes ?? [],
    scopeDescriptions: Object.fromEntries((doc.scopeDescriptions ?? []).map((d) => [d.scope, d.description])),
    metadataUrl: doc.metadataUrl ?? null,
    introspectionClientIds: doc.introspectionClientIds ?? [],
    config: {
      accessToken: { lifetime: doc.config?.accessToken?.lifetime ?? 3600 },
      nhe: {
        acceptDelegationTokens: doc.config?.nhe?.acceptDelegationTokens ?? false,
        requireDelegationTokens: doc.config?.nhe?.requireDelegationTokens ?? false,
        allowedNheTypes: doc.config?.nhe?.allowedNheTypes ?? [],
      },
    },
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function configSet(c: z.output<typeof config> | undefined): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (c?.accessToken) set['config.accessToken.lifetime'] = c.accessToken.lifetime;
  for (const [k, v] of Object.entries(c?.nhe ?? {})) set[`config.nhe.${k}`] = v;
  return set;
}

/**
 * Scope descriptions as stored (a list: scope strings may hold dots, which MongoDB field names cannot), each for a
 * registered scope: an unknown one is a 400 naming it. Without a new map, the existing descriptions of scopes that
 * stay registered are kept.
 */
function descriptionsFor(
  scopes: string[],
  given: Record<string, string> | undefined,
  existing: Row['scopeDescriptions'] = [],
): Array<{ scope: string; description: string }> {
  const registered = new Set(scopes);
  if (!given) return existing.filter((d) => registered.has(d.scope));
  const unknown = Object.keys(given).filter((scope) => !registered.has(scope));
  if (unknown.length) {
    throw problems.validation(
      'scopeDescriptions names scopes the resource server does not register',
      unknown.map((scope) => ({ name: `body.scopeDescriptions.${scope}`, reason: 'not one of scopes' })),
    );
  }
  return Object.entries(given).map(([scope, description]) => ({ scope, description }));
}

/**
 * Each introspecting client exists in the tenant and is confidential: a public client proves no identity, so naming
 * one would let anyone introspect the API's tokens. Duplicates are dropped.
 */
async function checkIntrospectionClients(
  models: RouteDeps['models'],
  tenantId: number,
  clientIds: string[],
): Promise<string[]> {
  const unique = [...new Set(clientIds)];
  const found = await models.Client.find(
    { tenantId, clientId: { $in: unique } },
    { clientId: 1, tokenEndpointAuthMethod: 1 },
  ).lean<Array<{ clientId: string; tokenEndpointAuthMethod?: string }>>();
  const invalid = unique.flatMap((clientId) => {
    const client = found.find((c) => c.clientId === clientId);
    const reason = !client
      ? 'no client with this client_id in the tenant'
      : client.tokenEndpointAuthMethod === 'none'
        ? 'a public client (tokenEndpointAuthMethod none) cannot introspect'
        : undefined;
    return reason ? [{ name: `body.introspectionClientIds.${clientIds.indexOf(clientId)}`, reason }] : [];
  });
  if (invalid.length) throw problems.validation('introspectionClientIds names clients that cannot introspect', invalid);
  return unique;
}

/** A resource server cannot require delegated tokens while refusing them. */
function checkNhe(merged: { acceptDelegationTokens: boolean; requireDelegationTokens: boolean }) {
  if (merged.requireDelegationTokens && !merged.acceptDelegationTokens) {
    throw problems.validation('config.nhe is inconsistent', [
      { name: 'body.config.nhe.requireDelegationTokens', reason: 'needs acceptDelegationTokens true' },
    ]);
  }
}

const BASE = '/tenants/:tenantId/resource-servers';
const rsParams = tenantParams.extend({ resourceServerId: objectIdParam }).strict();
const TAG = 'Resource servers';

export function resourceServerRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const find = async (tenantId: number, id: string) => {
    const doc = await models.ResourceServer.findOne({ tenantId, _id: idOr404(id, 'resource server') }).lean<Row>();
    if (!doc) throw problems.notFound('resource server not found');
    return doc;
  };
  const filterOf = (tenantId: number, q: { identifier?: string | undefined }) => ({
    tenantId,
    ...(q.identifier ? { identifier: q.identifier } : {}),
  });
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createResourceServer',
      summary: 'Create a resource server',
      description:
        'The identifier is an absolute URI without a fragment (RFC 8707). One that equals a built-in audience (`urn:idp:management`) ' +
        'after normalisation (scheme and host case, URN namespace case, trailing slash, empty query or fragment) is refused with 400 ' +
        "naming `body.identifier`; a scope beginning with `auth.` (the management API's prefix) is refused with 400 naming `body.scopes.<i>`. " +
        '`metadataUrl` records where the API publishes its RFC 9728 Protected Resource Metadata (https, or http on a loopback host, at the ' +
        '`/.well-known/oauth-protected-resource` path); the `@idp/resource-server` package serves that document. ' +
        "`introspectionClientIds` names the confidential clients (usually the API's own) that may introspect its access tokens; an unknown " +
        'or public client is refused with 400 naming `body.introspectionClientIds.<i>`.',
      tag: TAG,
      scope: 'auth.resource-servers.create',
      params: tenantParams,
      body: createBody,
      responses: {
        201: {
          description: 'The resource server',
          schema: resourceServerSchema,
          headers: { Location: 'URL of the resource server' },
        },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        await loadTenant(models, tenantId);
        checkNhe({
          acceptDelegationTokens: body.config?.nhe?.acceptDelegationTokens ?? false,
          requireDelegationTokens: body.config?.nhe?.requireDelegationTokens ?? false,
        });
        if (await models.ResourceServer.exists({ tenantId, identifier: body.identifier }))
          throw problems.conflict('a resource server with this identifier already exists');
        const descriptions = descriptionsFor(body.scopes, body.scopeDescriptions);
        const introspectors = body.introspectionClientIds
          ? await checkIntrospectionClients(models, tenantId, body.introspectionClientIds)
          : [];
        const created = await models.ResourceServer.create({
          tenantId,
          identifier: body.identifier,
          name: body.name,
          scopes: body.scopes,
          ...(descriptions.length ? { scopeDescriptions: descriptions } : {}),
          ...(body.metadataUrl !== undefined ? { metadataUrl: body.metadataUrl } : {}),
          ...(introspectors.length ? { introspectionClientIds: introspectors } : {}),
        }).catch((err: unknown) => {
          throw isDuplicateKeyError(err)
            ? problems.conflict('a resource server with this identifier already exists')
            : err;
        });
        const set = configSet(body.config);
        if (Object.keys(set).length) await models.ResourceServer.updateOne({ _id: created._id }, { $set: set });
        const id = String(created._id);
        audit({ resourceServerId: id, identifier: body.identifier });
        invalidate('resource-server', id);
        return {
          status: 201,
          body: resourceServerView(await find(tenantId, id)),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listResourceServers',
      summary: 'List resource servers (oldest first)',
      tag: TAG,
      scope: 'auth.resource-servers.list',
      params: tenantParams,
      query: pageQuery.extend({ identifier: z.string().min(1).max(2048).optional() }).strict(),
      responses: {
        200: { description: 'A page of resource servers', schema: page(resourceServerSchema, 'ResourceServerPage') },
      },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.ResourceServer, filterOf(tenantId, query), query, resourceServerView),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countResourceServers',
      summary: 'Count resource servers',
      tag: TAG,
      scope: 'auth.resource-servers.list',
      params: tenantParams,
      query: z.object({ identifier: z.string().min(1).max(2048).optional() }).strict(),
      responses: { 200: { description: 'The number of matching resource servers', schema: countSchema } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: { count: await models.ResourceServer.countDocuments(filterOf(tenantId, query)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:resourceServerId`,
      operationId: 'getResourceServer',
      summary: 'Get a resource server',
      tag: TAG,
      scope: 'auth.resource-servers.list',
      params: rsParams,
      responses: { 200: { description: 'The resource server', schema: resourceServerSchema } },
      handler: async ({ tenantId, params }) => ({
        status: 200,
        body: resourceServerView(await find(tenantId, params.resourceServerId)),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:resourceServerId`,
      operationId: 'updateResourceServer',
      summary: 'Update a resource server (the identifier is immutable)',
      description:
        "A scope beginning with `auth.` (the management API's prefix) is refused with 400 naming `body.scopes.<i>`; an unknown or public " +
        'client in `introspectionClientIds` with 400 naming `body.introspectionClientIds.<i>`.',
      tag: TAG,
      scope: 'auth.resource-servers.update',
      params: rsParams,
      body: patchBody,
      responses: { 200: { description: 'The updated resource server', schema: resourceServerSchema } },
      handler: async ({ tenantId, params, body, audit, invalidate }) => {
        const existing = await find(tenantId, params.resourceServerId);
        const view = resourceServerView(existing);
        checkNhe({ ...view.config.nhe, ...(body.config?.nhe ?? {}) });
        const set: Record<string, unknown> = {
          ...configSet(body.config),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.scopes !== undefined ? { scopes: body.scopes } : {}),
          ...(typeof body.metadataUrl === 'string' ? { metadataUrl: body.metadataUrl } : {}),
          ...(body.introspectionClientIds !== undefined
            ? { introspectionClientIds: await checkIntrospectionClients(models, tenantId, body.introspectionClientIds) }
            : {}),
        };
        if (body.scopes !== undefined || body.scopeDescriptions !== undefined) {
          set.scopeDescriptions = descriptionsFor(
            body.scopes ?? existing.scopes ?? [],
            body.scopeDescriptions,
            existing.scopeDescriptions,
          );
        }
        const update = body.metadataUrl === null ? { $set: set, $unset: { metadataUrl: 1 } } : { $set: set };
        const doc = await models.ResourceServer.findOneAndUpdate({ _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<Row>();
        if (!doc) throw problems.notFound('resource server not found');
        audit({ resourceServerId: params.resourceServerId, fields: Object.keys(body) });
        invalidate('resource-server', params.resourceServerId);
        return { status: 200, body: resourceServerView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:resourceServerId`,
      operationId: 'deleteResourceServer',
      summary: 'Delete a resource server',
      description: 'Refused (409) while roles still bundle its permissions.',
      tag: TAG,
      scope: 'auth.resource-servers.delete',
      params: rsParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ tenantId, params, audit, invalidate }) => {
        const existing = await find(tenantId, params.resourceServerId);
        const roles = await models.Role.countDocuments({ tenantId, resourceServer: existing.identifier });
        if (roles) throw problems.conflict(`${roles} role(s) still use this resource server: delete them first`);
        await models.ResourceServer.deleteOne({ _id: existing._id });
        audit({ resourceServerId: params.resourceServerId, identifier: existing.identifier });
        invalidate('resource-server', params.resourceServerId);
        return { status: 204 };
      },
    }),
  ];
}

/** Lifetime for which a retired signing key stays published: the longest access-token lifetime of the tenant. */
export async function longestTokenLifetime(deps: RouteDeps, tenantId: number): Promise<number> {
  // Undefined when the tenant has no resource server.
  const longest = (
    await deps.models.ResourceServer.find({ tenantId })
      .sort({ 'config.accessToken.lifetime': -1 })
      .limit(1)
      .lean<StoredResourceServer[]>()
  ).at(0);
  const tenant = await loadTenant(deps.models, tenantId);
  return Math.max(3600, longest?.config?.accessToken?.lifetime ?? 0, nheSettingsOf(tenant).hardMaxTokenLifetime);
}
