/**
 * Trusted workload identity issuers of a tenant: a Kubernetes service-account token issuer, a SPIFFE
 * JWT-SVID trust domain, a CI system's OIDC issuer. A JWT one of them signed authenticates, at token exchange, the
 * NHE whose workloadIdentity names its (iss, sub). Trusting an issuer is a tenant-level decision: the tenant scopes
 * (auth.tenants.list to read, auth.tenants.update to change).
 */
import { z } from 'zod';
import type { WorkloadIssuerDoc } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, objectIdParam, page, pageQuery, tenantParams } from '../openapi/schemas';
import { idOr404, loadTenant, pageOf, type RouteDeps } from './deps';
import { httpsUrl } from './nhe-actor-proof';

const issuerValue = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
  .describe(
    'The `iss` of its JWTs, exactly (e.g. https://kubernetes.default.svc.cluster.local or spiffe://example.org)',
  );

const createBody = z
  .object({
    issuer: issuerValue,
    jwksUri: httpsUrl.describe('https URL of its JWK Set (fetched SSRF-safely by the token-exchange sidecar, cached)'),
    description: z.string().min(1).max(256).optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

/** The issuer value is immutable: NHE workload identities name it. */
const patchBody = z
  .object({
    jwksUri: httpsUrl.optional(),
    description: z.string().min(1).max(256).nullable().optional().describe('null removes it'),
    enabled: z.boolean().optional().describe('A disabled issuer authenticates nobody'),
  })
  .strict();

export const workloadIssuerSchema = z
  .object({
    id: z.string(),
    issuer: z.string(),
    jwksUri: z.string(),
    description: z.string().optional(),
    enabled: z.boolean(),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'WorkloadIssuer' });

function view(doc: WorkloadIssuerDoc & { _id: unknown }) {
  return {
    id: String(doc._id),
    issuer: doc.issuer,
    jwksUri: doc.jwksUri,
    ...(doc.description ? { description: doc.description } : {}),
    enabled: doc.enabled,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const BASE = '/tenants/:tenantId/workload-issuers';
const TAG = 'Workload issuers';
const params = tenantParams.extend({ issuerId: objectIdParam }).strict();

export function workloadIssuerRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const find = async (tenantId: number, id: string) => {
    const doc = await models.WorkloadIssuer.findOne({ tenantId, _id: idOr404(id, 'workload issuer') }).lean<
      WorkloadIssuerDoc & { _id: unknown }
    >();
    if (!doc) throw problems.notFound('workload issuer not found');
    return doc;
  };
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createWorkloadIssuer',
      summary: 'Trust a workload identity issuer',
      tag: TAG,
      scope: 'auth.tenants.update',
      params: tenantParams,
      body: createBody,
      responses: {
        201: { description: 'The issuer', schema: workloadIssuerSchema, headers: { Location: 'URL of the issuer' } },
      },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        await loadTenant(models, tenantId);
        let created;
        try {
          created = await models.WorkloadIssuer.create({ ...body, tenantId });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw problems.conflict('this issuer is already trusted by the tenant');
          throw err;
        }
        const id = String(created._id);
        audit({ workloadIssuerId: id, issuer: body.issuer });
        // The sidecar drops the tenant's cached actor registrations on any invalidation; NHE configuration is the kind.
        invalidate('nhe', id);
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
      operationId: 'listWorkloadIssuers',
      summary: 'List the trusted workload identity issuers (oldest first)',
      tag: TAG,
      scope: 'auth.tenants.list',
      params: tenantParams,
      query: pageQuery,
      responses: {
        200: { description: 'A page of issuers', schema: page(workloadIssuerSchema, 'WorkloadIssuerPage') },
      },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.WorkloadIssuer, { tenantId }, query, view),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:issuerId`,
      operationId: 'getWorkloadIssuer',
      summary: 'Get a trusted workload identity issuer',
      tag: TAG,
      scope: 'auth.tenants.list',
      params,
      responses: { 200: { description: 'The issuer', schema: workloadIssuerSchema } },
      handler: async ({ tenantId, params: p }) => ({ status: 200, body: view(await find(tenantId, p.issuerId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:issuerId`,
      operationId: 'updateWorkloadIssuer',
      summary: 'Update a trusted workload identity issuer',
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      body: patchBody,
      responses: { 200: { description: 'The updated issuer', schema: workloadIssuerSchema } },
      handler: async ({ tenantId, params: p, body, audit, invalidate }) => {
        const existing = await find(tenantId, p.issuerId);
        const { description, ...rest } = body;
        const update: Record<string, unknown> = { $set: { ...rest, ...(description ? { description } : {}) } };
        if (description === null) update.$unset = { description: 1 };
        const doc = await models.WorkloadIssuer.findOneAndUpdate({ tenantId, _id: existing._id }, update, {
          returnDocument: 'after',
        }).lean<WorkloadIssuerDoc & { _id: unknown }>();
        if (!doc) throw problems.notFound('workload issuer not found');
        audit({ workloadIssuerId: p.issuerId, issuer: doc.issuer, fields: Object.keys(body) });
        invalidate('nhe', p.issuerId);
        return { status: 200, body: view(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:issuerId`,
      operationId: 'deleteWorkloadIssuer',
      summary: 'Stop trusting a workload identity issuer',
      description:
        "Refused (409) while an NHE's workloadIdentity names the issuer: remove it from those NHEs first. Tokens already issued stay valid until they expire.",
      tag: TAG,
      scope: 'auth.tenants.update',
      params,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ tenantId, params: p, audit, invalidate }) => {
        const existing = await find(tenantId, p.issuerId);
        if (await models.Nhe.exists({ tenantId, 'workloadIdentity.issuer': existing.issuer })) {
          throw problems.conflict("an NHE's workloadIdentity names this issuer: remove it from those NHEs first");
        }
        await models.WorkloadIssuer.deleteOne({ tenantId, _id: existing._id });
        audit({ workloadIssuerId: p.issuerId, issuer: existing.issuer });
        invalidate('nhe', p.issuerId);
        return { status: 204 };
      },
    }),
  ];
}
