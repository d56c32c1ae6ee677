/** Signing keys of a tenant: list (public halves only) and rotate. */
import { z } from 'zod';
import type { SigningKeyDoc } from '@idp/db';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate, tenantParams } from '../openapi/schemas';
import type { RouteDeps } from './deps';
import { longestTokenLifetime } from './resource-servers';

export const signingKeySchema = z
  .object({
    kid: z.string(),
    alg: z.enum(['ES256', 'RS256']),
    status: z.enum(['active', 'retired']),
    publicJwk: z.record(z.string(), z.unknown()),
    createdAt: isoDate,
    retiredAt: isoDate.optional(),
    publishUntil: isoDate.optional().describe('A retired key stays in the JWKS until then'),
  })
  .meta({ id: 'SigningKey' });

const keyView = (d: SigningKeyDoc) => ({
  kid: d.kid,
  alg: d.alg,
  status: d.status,
  publicJwk: d.publicJwk,
  createdAt: d.createdAt,
  ...(d.retiredAt ? { retiredAt: d.retiredAt } : {}),
  ...(d.publishUntil ? { publishUntil: d.publishUntil } : {}),
});

const TAG = 'Signing keys';

export function keyRoutes(deps: RouteDeps): RouteDef[] {
  const { models, keyStore } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/tenants/:tenantId/signing-keys',
      operationId: 'listSigningKeys',
      summary: 'List the signing keys still published (newest first); private halves are never returned',
      tag: TAG,
      scope: 'auth.keys.list',
      params: tenantParams,
      responses: {
        200: {
          description: 'The keys',
          schema: z.object({ items: z.array(signingKeySchema) }).meta({ id: 'SigningKeyList' }),
        },
      },
      handler: async ({ tenantId }) => {
        const now = new Date();
        const docs = await models.SigningKey.find(
          { tenantId, $or: [{ status: 'active' }, { publishUntil: { $gt: now } }] },
          { encryptedPrivateJwk: 0 },
        )
          .sort({ createdAt: -1 })
          .lean<SigningKeyDoc[]>();
        return { status: 200, body: { items: docs.map(keyView) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/tenants/:tenantId/signing-keys/rotations',
      operationId: 'rotateSigningKey',
      summary: 'Rotate the active key of an algorithm',
      description:
        'Creates a new active key; the previous one is retired but stays published for the longest access-token ' +
        'lifetime of the tenant, so tokens it signed keep verifying.',
      tag: TAG,
      scope: 'auth.keys.rotate',
      params: tenantParams,
      body: z.object({ alg: z.enum(['ES256', 'RS256']).default('ES256') }).strict(),
      responses: { 201: { description: 'The new active key', schema: signingKeySchema } },
      handler: async ({ tenantId, body, audit, invalidate }) => {
        const publishFor = await longestTokenLifetime(deps, tenantId);
        const { created, active } = await keyStore.rotate(tenantId, body.alg, publishFor);
        audit({ kid: active.kid, createdKid: created.kid, alg: body.alg, retiredPublishedForSeconds: publishFor });
        invalidate('keys');
        return { status: 201, body: keyView(active) };
      },
    }),
  ];
}
