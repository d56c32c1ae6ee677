/**
 * SCIM credentials: the bearer tokens a tenant's directory (Entra ID, Okta, ...) presents to the tenant's SCIM 2.0
 * service provider at `/auth/{tenantId}/scim/v2` (scim/router.ts). The secret is returned once; only its SHA-256
 * digest is kept. Revoking keeps the record (for the console and the audit) and refuses the secret from then on.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { ScimCredentialDoc } from '@idp/db';
import { problems } from '@idp/errors';
import { assertCallerHolds } from '../auth/escalation';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantIdParam, tenantParams } from '../openapi/schemas';
import { credentialDigest, SCIM_CREDENTIAL_PREFIX } from '../scim/auth';
import { loadTenant, type RouteDeps } from './deps';

const TAG = 'SCIM';
const BASE = '/tenants/:tenantId/scim-credentials';
/** What a SCIM credential can do: create, change and delete users and groups. */
const CREDENTIAL_SCOPES = [
  'auth.users.create',
  'auth.users.update',
  'auth.users.delete',
  'auth.groups.create',
  'auth.groups.update',
  'auth.groups.delete',
];
/** At most this many credentials (revoked ones included) per tenant: enough for a rotation with overlap. */
const MAX_CREDENTIALS = 50;

const credentialSchema = z
  .object({
    id: z.string(),
    description: z.string().optional(),
    createdAt: isoDate,
    lastUsedAt: isoDate.optional().describe('When the directory last authenticated with it'),
    revokedAt: isoDate.optional().describe('Set once revoked: it is refused from then on'),
  })
  .meta({ id: 'ScimCredential' });

const issuedSchema = credentialSchema
  .extend({
    secret: z.string().describe('Shown once: paste it into the directory as the bearer token; only a digest is kept'),
    scimBaseUrl: z
      .string()
      .describe("The tenant's SCIM 2.0 base URL (the directory's Tenant URL / SCIM connector base URL)"),
  })
  .meta({ id: 'IssuedScimCredential' });

const view = (doc: ScimCredentialDoc) => ({
  id: doc.credentialId,
  ...(doc.description ? { description: doc.description } : {}),
  createdAt: doc.createdAt,
  ...(doc.lastUsedAt ? { lastUsedAt: doc.lastUsedAt } : {}),
  ...(doc.revokedAt ? { revokedAt: doc.revokedAt } : {}),
});

export function scimCredentialRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const params = z.object({ tenantId: tenantIdParam, credentialId: z.string().min(1).max(64) }).strict();
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createScimCredential',
      summary: 'Create a SCIM credential (the secret is shown once)',
      description:
        "The directory sends it as `Authorization: Bearer` to the tenant's SCIM 2.0 base URL, `{PUBLIC_BASE_URL}/auth/{tenantId}/scim/v2`. " +
        'Whoever holds it can create, change, deactivate and delete the users and groups the directory manages.',
      tag: TAG,
      scope: 'auth.users.create',
      params: tenantParams,
      body: z.object({ description: z.string().min(1).max(256).optional() }).strict(),
      responses: { 201: { description: 'The credential and its secret, shown once', schema: issuedSchema } },
      errors: [409],
      handler: async ({ tenantId, body, caller, audit }) => {
        // The credential can create, change and delete users and groups: only a caller who may do all of that hands
        // one out. It keeps the caller's management scopes and never reaches a user or group holding more (no
        // privilege escalation, auth/escalation.ts; enforced by scim/router.ts).
        assertCallerHolds(caller, CREDENTIAL_SCOPES, 'a SCIM credential');
        await loadTenant(models, tenantId);
        if ((await models.ScimCredential.countDocuments({ tenantId })) >= MAX_CREDENTIALS)
          throw problems.conflict(`at most ${MAX_CREDENTIALS} SCIM credentials per tenant: delete revoked ones first`);
        const secret = `${SCIM_CREDENTIAL_PREFIX}${randomBytes(32).toString('base64url')}`;
        const doc = await models.ScimCredential.create({
          tenantId,
          credentialId: randomBytes(9).toString('base64url'),
          digest: credentialDigest(secret),
          // The caller's token scopes: what assertCallerHolds compares with in the management API.
          scopes: [...caller.scopes].sort(),
          ...(body.description ? { description: body.description } : {}),
          createdAt: new Date(),
        });
        audit({ scimCredentialId: doc.credentialId });
        const base = (deps.publicBaseUrl ?? '').replace(/\/+$/, '');
        return {
          status: 201,
          body: { ...view(doc.toObject()), secret, scimBaseUrl: `${base}/auth/${tenantId}/scim/v2` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listScimCredentials',
      summary: "List the tenant's SCIM credentials (never the secrets)",
      tag: TAG,
      scope: 'auth.users.list',
      params: tenantParams,
      responses: {
        200: {
          description: 'The credentials, oldest first',
          schema: z.object({ items: z.array(credentialSchema) }).meta({ id: 'ScimCredentialList' }),
        },
      },
      handler: async ({ tenantId }) => {
        await loadTenant(models, tenantId);
        const rows = await models.ScimCredential.find({ tenantId }, { digest: 0 })
          .sort({ createdAt: 1 })
          .limit(MAX_CREDENTIALS)
          .lean<ScimCredentialDoc[]>();
        return { status: 200, body: { items: rows.map(view) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:credentialId/revoke`,
      operationId: 'revokeScimCredential',
      summary: 'Revoke a SCIM credential: the directory is refused with it from now on',
      tag: TAG,
      scope: 'auth.users.delete',
      params,
      responses: { 200: { description: 'The revoked credential', schema: credentialSchema } },
      handler: async ({ tenantId, params: p, audit }) => {
        // The first revocation time stays (a second call changes nothing).
        await models.ScimCredential.updateOne(
          { tenantId, credentialId: p.credentialId, revokedAt: { $exists: false } },
          { $set: { revokedAt: new Date() } },
        );
        const doc = await models.ScimCredential.findOne(
          { tenantId, credentialId: p.credentialId },
          { digest: 0 },
        ).lean<ScimCredentialDoc>();
        if (!doc) throw problems.notFound('SCIM credential not found');
        audit({ scimCredentialId: p.credentialId, revoked: true });
        return { status: 200, body: view(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:credentialId`,
      operationId: 'deleteScimCredential',
      summary: 'Delete a SCIM credential (revokes it and forgets it)',
      tag: TAG,
      scope: 'auth.users.delete',
      params,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params: p, audit }) => {
        const res = await models.ScimCredential.deleteOne({ tenantId, credentialId: p.credentialId });
        if (!res.deletedCount) throw problems.notFound('SCIM credential not found');
        audit({ scimCredentialId: p.credentialId, deleted: true });
        return { status: 204 };
      },
    }),
  ];
}
