/**
 * ID-JAG audiences of a tenant: the other authorization servers this tenant, as the enterprise identity provider,
 * issues Identity Assertion Authorization Grants for (draft-ietf-oauth-identity-assertion-authz-grant, token exchange
 * with requested_token_type urn:ietf:params:oauth:token-type:id-jag). Each entry is one audience (that server's
 * issuer) with the resources there (the MCP Enterprise-Managed Authorization extension requires the identity provider
 * to keep a table of valid (audience, resource) pairs), the clients of this tenant that may ask and their client_id at
 * that server (the draft's client ID mapping: client ids are not global), the agents (NHE identifiers) that may obtain
 * one for the person they act for with their delegation token, the most scope an ID-JAG may carry and its lifetime. Nothing is issued for an audience without an enabled entry. Deciding which other organisations receive
 * assertions about this tenant's users is a tenant-level decision: the tenant scopes (auth.tenants.list to read,
 * auth.tenants.update to change).
 */
import { z } from 'zod';
import type { IdJagAudienceDoc } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, objectIdParam, page, pageQuery, scopeString, tenantParams } from '../openapi/schemas';
import { idOr404, loadTenant, pageOf, type RouteDeps } from './deps';
import { nheIdentifier } from './nhe-registrations';
import { isTenantUrl } from './outbound-urls';

/**
 * The other server's issuer identifier, which becomes the ID-JAG `aud`: an https URL without query or fragment
 * (RFC 8414 section 2), or http to a loopback host (local development), as trusted issuers' key URLs; no user info.
 */
const audienceValue = z
  .string()
  .max(2048)
  .refine(
    (v) => isTenantUrl(v, { query: false }),
    'must be an absolute https URL without user info, query or fragment (http only for a loopback host)',
  )
  .describe("The other authorization server's issuer identifier, the ID-JAG `aud` (RFC 8414 section 2); immutable");

/** A resource identifier (RFC 8707 section 2): an absolute URI without fragment, here an http(s) URL or a URN. */
const resource = z
  .string()
  .min(1)
  .max(2048)
  .refine((v) => {
    if (/^urn:[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]:[\x21-\x7e]+$/i.test(v)) return !v.includes('#');
    try {
      const u = new URL(v);
      return (
        (u.protocol === 'https:' || u.protocol === 'http:') && !u.hash && !v.includes('#') && !u.username && !u.password
      );
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL without fragment or a URN (RFC 8707 section 2)');

const resources = z
  .array(resource)
  .max(50)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
  .describe(
    'Resources (RFC 8707) at that server an ID-JAG may name: a request naming another is refused (the (audience, resource) pairs)',
  );

/** A client_id at another server: any visible ASCII (RFC 6749 appendix A.1 VSCHAR), without surrounding spaces. */
const clientIdAtAudience = z
  .string()
  .max(255)
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/, 'printable ASCII, not starting or ending with a space')
  .describe('The client_id that server knows this client by: the ID-JAG `client_id` claim');

const clients = z
  .array(
    z
      .object({
        clientId: z.string().min(1).max(64).describe('A client of this tenant that authenticates'),
        clientIdAtAudience,
      })
      .strict(),
  )
  .max(100)
  .refine((a) => new Set(a.map((c) => c.clientId)).size === a.length, 'must not repeat a clientId')
  .describe('The clients of this tenant that may ask for ID-JAGs for this audience, each with its client_id there');

const agents = z
  .array(nheIdentifier)
  .max(100)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
  .describe(
    'The agents (NHE identifiers of this tenant) that may obtain ID-JAGs for this audience, presenting their delegation ' +
      'token as the subject token through one of the listed clients; the ID-JAG then carries the delegation (act, agent). Empty: no agent may',
  );

const scopes = z
  .array(scopeString)
  .max(100)
  .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
  .describe('The most scope an ID-JAG may carry: requested scopes are cut to these');

const lifetimeSeconds = z
  .number()
  .int()
  .min(30)
  .max(300)
  .describe('Lifetime of the ID-JAGs issued (exp - iat), seconds: short, as they are bearer artifacts');

const description = z.string().min(1).max(256);

const createBody = z
  .object({
    audience: audienceValue,
    resources: resources.default([]),
    clients: clients.default([]),
    agents: agents.default([]),
    scopes: scopes.default([]),
    lifetimeSeconds: lifetimeSeconds.default(300),
    enabled: z.boolean().default(true),
    description: description.optional(),
  })
  .strict();

/** The audience is immutable: it is what an ID-JAG's `aud` is, what a request's `audience` is matched to, and what audits name. */
const patchBody = z
  .object({
    resources: resources.optional(),
    clients: clients.optional(),
    agents: agents.optional(),
    scopes: scopes.optional(),
    lifetimeSeconds: lifetimeSeconds.optional(),
    enabled: z.boolean().optional().describe('Nothing is issued for a disabled audience, from the next request on'),
    description: description.nullable().optional().describe('null removes it'),
  })
  .strict();

export const idJagAudienceSchema = z
  .object({
    id: z.string(),
    audience: z.string(),
    resources: z.array(z.string()),
    clients: z.array(z.object({ clientId: z.string(), clientIdAtAudience: z.string() })),
    agents: z.array(z.string()).describe('NHE identifiers of the agents that may obtain ID-JAGs for this audience'),
    scopes: z.array(z.string()),
    lifetimeSeconds: z.number().int(),
    enabled: z.boolean(),
    description: z.string().optional(),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'IdJagAudience' });

type Stored = IdJagAudienceDoc & { _id: unknown };

function view(doc: Stored) {
  return {
    id: String(doc._id),
    audience: doc.audience,
    resources: doc.resources,
    clients: doc.clients.map((c) => ({ clientId: c.clientId, clientIdAtAudience: c.clientIdAtAudience })),
    agents: doc.agents ?? [],
    scopes: doc.scopes,
    lifetimeSeconds: doc.lifetimeSeconds,
    enabled: doc.enabled,
    ...(doc.description ? { description: doc.description } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Scheme and host case and a trailing slash do not make another issuer (RFC 3986 section 6.2.2). */
function sameIssuer(a: string, b: string) {
  const norm = (v: string) => {
    try {
      return new URL(v).href.replace(/\/+$/, '');
    } catch {
      return v.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

const BASE = '/tenants/:tenantId/id-jag-audiences';
const TAG = 'ID-JAG audiences';
const params = tenantParams.extend({ audienceId: objectIdParam }).strict();

export function idJagAudienceRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;

  const find = async (tenantId: number, id: string) => {
    const doc = await models.IdJagAudience.findOne({ tenantId, _id: idOr404(id, 'ID-JAG audience') }).lean<Stored>();
    if (!doc) throw problems.notFound('ID-JAG audience not found');
    return doc;
  };

  /**
   * This tenant's own issuer is not another authorization server: an ID-JAG is for a different trust domain, and the
   * identity provider must not redeem the ID-JAGs it issued itself (draft-ietf-oauth-identity-assertion-authz-grant).
   * Another tenant of this deployment is another organisation, so its issuer is allowed.
   */
  function checkAudience(tenantId: number, audience: string) {
    if (!deps.publicBaseUrl) return;
    const own = `${deps.publicBaseUrl.replace(/\/+$/, '')}/auth/${tenantId}`;
    if (sameIssuer(audience, own))
      throw problems.validation('an ID-JAG audience must be another authorization server', [
        { name: 'body.audience', reason: "is this tenant's own issuer" },
      ]);
  }

  /**
   * Every client named is a client of this tenant that authenticates at the token endpoint: the MCP Enterprise-Managed
   * Authorization extension requires client authentication for the token exchange that issues an ID-JAG, so a public
   * client (tokenEndpointAuthMethod none) may not be listed.
   */
  async function checkClients(tenantId: number, list: Array<{ clientId: string }>) {
    if (list.length === 0) return;
    const found = await models.Client.find(
      { tenantId, clientId: { $in: list.map((c) => c.clientId) } },
      { clientId: 1, tokenEndpointAuthMethod: 1 },
    ).lean<Array<{ clientId: string; tokenEndpointAuthMethod: string }>>();
    const byId = new Map(found.map((c) => [c.clientId, c]));
    const invalid: Array<{ name: string; reason: string }> = [];
    list.forEach((c, i) => {
      const client = byId.get(c.clientId);
      if (!client)
        invalid.push({ name: `body.clients.${i}.clientId`, reason: 'the tenant has no client with this id' });
      else if (client.tokenEndpointAuthMethod === 'none')
        invalid.push({
          name: `body.clients.${i}.clientId`,
          reason: 'is a public client: the token exchange for an ID-JAG requires client authentication',
        });
    });
    if (invalid.length) throw problems.validation('the ID-JAG audience names clients that may not use it', invalid);
  }

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createIdJagAudience',
      summary: 'Issue Identity Assertion Authorization Grants (ID-JAG) for another authorization server',
      description:
        'Every client named must be a confidential client of this tenant (400 naming body.clients.<i>.clientId otherwise); ' +
        'it also needs the token-exchange grant to ask. The audience may not be this tenant’s own issuer.',
      tag: TAG,
      scope: 'auth.tenants.update',
      params: tenantParams,
      body: createBody,
      responses: {
        201: {
          description: 'The audience',
          schema: idJagAudienceSchema,
          headers: { Location: 'URL of the audience' },
        },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        await loadTenant(models, tenantId);
        checkAudience(tenantId, body.audience);
        await checkClients(tenantId, body.clients);
        let created;
        try {
          created = await models.IdJagAudience.create({ ...body, tenantId });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw problems.conflict('the tenant already has this ID-JAG audience');
          throw err;
        }
        const id = String(created._id);
        audit({
          idJagAudienceId: id,
          audience: body.audience,
          clientIds: body.clients.map((c) => c.clientId),
          agents: body.agents,
        });
        // The token endpoint is the tenant's provider: it is rebuilt with the new table.
        invalidate('tenant', String(tenantId));
        return {
          status: 201,
          body: view(created.toObject()),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listIdJagAudiences',
      summary: 'List the ID-JAG audiences (oldest first)',
      tag: TAG,
      scope: 'auth.tenants.list',
      params: tenantParams,
      query: pageQuery,
      responses: {
        200: { description: 'A page of audiences', schema: page(idJagAudienceSchema, 'IdJagAudiencePage') },
      },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.IdJagAudience, { tenantId }, query, view),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:audienceId`,
      operationId: 'getIdJagAudience',
      summary: 'Get an ID-JAG audience',
      tag: TAG,
      scope: 'auth.tenants.list',
      params,
      responses: { 200: { description: 'The audience', schema: idJagAudienceSchema } },
      handler: async ({ tenantId, params: p }) => ({ status: 200, body: view(await find(tenantId, p.audienceId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:audienceId`,
      operationId: 'updateIdJagAudience',
      summary: 'Update an ID-JAG audience',
      description:
        'Applies from the next token request. A clients list replaces the stored one and is checked like on create; ' +
        'a PATCH that leaves clients alone is not refused for a client changed or deleted since.',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      body: patchBody,
      responses: { 200: { description: 'The updated audience', schema: idJagAudienceSchema } },
      handler: async ({ tenantId, params: p, body, audit, invalidate }) => {
        const existing = await find(tenantId, p.audienceId);
        // Only a new list is checked: disabling, or narrowing scopes, must always work.
        if (body.clients) await checkClients(tenantId, body.clients);
        const { description: desc, ...rest } = body;
        const set: Record<string, unknown> = { ...rest };
        const update: Record<string, unknown> = { $set: set };
        if (desc) set.description = desc;
        else if (desc === null) update.$unset = { description: 1 };
        const doc = await models.IdJagAudience.findOneAndUpdate({ tenantId, _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<Stored>();
        if (!doc) throw problems.notFound('ID-JAG audience not found');
        audit({ idJagAudienceId: p.audienceId, audience: doc.audience, fields: Object.keys(body) });
        invalidate('tenant', String(tenantId));
        return { status: 200, body: view(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:audienceId`,
      operationId: 'deleteIdJagAudience',
      summary: 'Stop issuing ID-JAGs for an authorization server',
      description:
        'Token exchanges for it are refused from the next request. ID-JAGs already issued stay valid until they expire (at most their lifetime).',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params: p, audit, invalidate }) => {
        const existing = await find(tenantId, p.audienceId);
        await models.IdJagAudience.deleteOne({ tenantId, _id: existing._id });
        audit({ idJagAudienceId: p.audienceId, audience: existing.audience });
        invalidate('tenant', String(tenantId));
        return { status: 204 };
      },
    }),
  ];
}
