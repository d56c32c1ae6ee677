/**
 * Initial access tokens for Dynamic Client Registration (RFC 7591 section 3): a tenant whose
 * settings.registration.mode is `initial-access-token` registers a client at `{issuer}/reg` only with one of these
 * as `Authorization: Bearer`. Each is single or multi use (maxUses) and expires; the token is returned once, only its
 * SHA-256 digest is kept, and oidc-core spends a use per registration (provider/registration.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { InitialAccessTokenDoc } from '@idp/db';
import { problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantIdParam, tenantParams } from '../openapi/schemas';
import { loadTenant, type RouteDeps } from './deps';

const TAG = 'Clients';
const BASE = '/tenants/:tenantId/initial-access-tokens';
/** Longest an initial access token may live (30 days). */
const MAX_LIFETIME = 30 * 86_400;

const tokenSchema = z
  .object({
    id: z.string(),
    description: z.string().optional(),
    maxUses: z.number().int(),
    uses: z.number().int().describe('Registrations made with it so far'),
    expiresAt: isoDate,
    createdAt: isoDate,
  })
  .meta({ id: 'InitialAccessToken' });

const issuedSchema = tokenSchema
  .extend({ token: z.string().describe('Shown once: hand it to the client developer now; only a digest is kept') })
  .meta({ id: 'IssuedInitialAccessToken' });

const view = (doc: InitialAccessTokenDoc, uses: number) => ({
  id: doc.tokenId,
  ...(doc.description ? { description: doc.description } : {}),
  maxUses: doc.maxUses,
  uses,
  expiresAt: doc.expiresAt,
  createdAt: doc.createdAt,
});

export function initialAccessTokenRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const usesOf = (tenantId: number, tokenId: string) =>
    models.InitialAccessTokenUse.countDocuments({ tenantId, tokenId });
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createInitialAccessToken',
      summary: 'Issue an initial access token for Dynamic Client Registration',
      description:
        'For a tenant whose settings.registration.mode is `initial-access-token`: the client sends it as `Authorization: Bearer` to `{issuer}/reg`. ' +
        'Single use by default (maxUses); expires after expiresInSeconds (default 1 day, at most 30 days). A registration that is refused does not spend a use.',
      tag: TAG,
      scope: 'auth.clients.create',
      params: tenantParams,
      body: z
        .object({
          description: z.string().min(1).max(256).optional(),
          maxUses: z.number().int().min(1).max(1000).default(1),
          expiresInSeconds: z.number().int().min(60).max(MAX_LIFETIME).default(86_400),
        })
        .strict(),
      responses: { 201: { description: 'The token, shown once', schema: issuedSchema } },
      errors: [409],
      handler: async ({ tenantId, body, audit }) => {
        const tenant = await loadTenant(models, tenantId);
        if (tenant.system) throw problems.conflict('the system tenant accepts no dynamic registration');
        const token = randomBytes(32).toString('base64url');
        const now = new Date();
        const doc = await models.InitialAccessToken.create({
          tenantId,
          tokenId: randomBytes(9).toString('base64url'),
          digest: createHash('sha256').update(token).digest('hex'),
          ...(body.description ? { description: body.description } : {}),
          maxUses: body.maxUses,
          expiresAt: new Date(now.getTime() + body.expiresInSeconds * 1000),
          createdAt: now,
        });
        audit({ initialAccessTokenId: doc.tokenId, maxUses: body.maxUses, expiresAt: doc.expiresAt.toISOString() });
        return { status: 201, body: { ...view(doc.toObject(), 0), token } };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listInitialAccessTokens',
      summary: "List the tenant's unexpired initial access tokens (never the tokens themselves)",
      tag: TAG,
      scope: 'auth.clients.list',
      params: tenantParams,
      responses: {
        200: {
          description: 'The tokens',
          schema: z.object({ items: z.array(tokenSchema) }).meta({ id: 'InitialAccessTokenList' }),
        },
      },
      handler: async ({ tenantId }) => {
        await loadTenant(models, tenantId);
        const rows = await models.InitialAccessToken.find({ tenantId, expiresAt: { $gt: new Date() } })
          .sort({ createdAt: 1 })
          .limit(1000)
          .lean<InitialAccessTokenDoc[]>();
        return {
          status: 200,
          body: { items: await Promise.all(rows.map(async (r) => view(r, await usesOf(tenantId, r.tokenId)))) },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:tokenId`,
      operationId: 'deleteInitialAccessToken',
      summary: 'Revoke an initial access token (clients registered with it stay)',
      tag: TAG,
      scope: 'auth.clients.delete',
      params: z.object({ tenantId: tenantIdParam, tokenId: z.string().max(64) }).strict(),
      responses: { 204: { description: 'Revoked' } },
      handler: async ({ tenantId, params, audit }) => {
        const res = await models.InitialAccessToken.deleteOne({ tenantId, tokenId: params.tokenId });
        if (!res.deletedCount) throw problems.notFound('initial access token not found');
        await models.InitialAccessTokenUse.deleteMany({ tenantId, tokenId: params.tokenId });
        audit({ initialAccessTokenId: params.tokenId });
        return { status: 204 };
      },
    }),
  ];
}
