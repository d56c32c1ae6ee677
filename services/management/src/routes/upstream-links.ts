/**
 * A user's links to upstream identities (tenant, provider, upstream subject). An administrator sees them, removes
 * them (the identity then signs in as nobody until linked again) and links one by hand: the only way, beside the
 * person proving the account's password, that an upstream identity reaches an existing account, unless the provider
 * is authoritative for a verified email domain. An unlinked identity's next sign-in asks to link an account, or gets
 * a new one where the provider creates accounts. Memberships the provider's mappers granted go with the link.
 */
import { z } from 'zod';
import type { UpstreamLinkDoc } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate } from '../openapi/schemas';
import { idOr404, type RouteDeps } from './deps';
import { userParams } from './users';
import { removeUpstreamLinks } from '../domain/upstream-unlink';

export const upstreamLinkSchema = z
  .object({
    provider: z.string().describe("The provider's alias"),
    subject: z.string().describe('The upstream subject'),
    issuer: z.string().describe('Empty until the first sign-in for a link an administrator made to a SAML IdP'),
    linkedBy: z.enum(['jit', 'password', 'verified_email', 'admin']),
    lastSignInAt: isoDate.optional(),
    createdAt: isoDate,
  })
  .meta({ id: 'UpstreamLink' });

const view = (l: UpstreamLinkDoc) => ({
  provider: l.provider,
  subject: l.subject,
  issuer: l.issuer,
  linkedBy: l.linkedBy,
  ...(l.lastSignInAt ? { lastSignInAt: l.lastSignInAt } : {}),
  createdAt: l.createdAt,
});

const BASE = '/tenants/:tenantId/users/:userId/upstream-links';
const TAG = 'Users';
const linkParams = userParams.extend({ provider: z.string().max(64) }).strict();

export function upstreamLinkRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const user = async (tenantId: number, userId: string) => {
    const doc = await models.User.findOne({ tenantId, _id: idOr404(userId, 'user') }, { _id: 1 }).lean();
    if (!doc) throw problems.notFound('user not found');
  };
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listUserUpstreamLinks',
      summary: "List a user's linked upstream identities",
      tag: TAG,
      scope: 'auth.users.list',
      params: userParams,
      responses: { 200: { description: 'The links', schema: z.object({ items: z.array(upstreamLinkSchema) }) } },
      handler: async ({ tenantId, params }) => {
        await user(tenantId, params.userId);
        const links = await models.UpstreamLink.find({ tenantId, userId: params.userId })
          .sort({ _id: 1 })
          .lean<UpstreamLinkDoc[]>();
        return { status: 200, body: { items: links.map(view) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'linkUserUpstreamIdentity',
      summary: 'Link an upstream identity to a user (an administrator vouches for it)',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      body: z
        .object({
          provider: z.string().max(64).describe("The provider's alias"),
          subject: z.string().min(1).max(512).describe('The upstream subject (OIDC subject claim or SAML NameID)'),
        })
        .strict(),
      responses: { 201: { description: 'The link', schema: upstreamLinkSchema } },
      errors: [409],
      handler: async ({ tenantId, params, body, audit }) => {
        await user(tenantId, params.userId);
        const provider = await models.UpstreamProvider.findOne({ tenantId, alias: body.provider }).lean();
        if (!provider)
          throw problems.validation('no such upstream provider', [{ name: 'body.provider', reason: 'unknown alias' }]);
        let created;
        try {
          created = await models.UpstreamLink.create({
            tenantId,
            provider: body.provider,
            subject: body.subject,
            // A SAML IdP's entity id is known once its metadata is read: the first sign-in fills it in.
            issuer: provider.oidc?.issuer ?? '',
            userId: params.userId,
            linkedBy: 'admin',
          });
        } catch (err) {
          if (isDuplicateKeyError(err)) throw problems.conflict('this upstream identity is already linked to a user');
          throw err;
        }
        audit({ userId: params.userId, upstreamProvider: body.provider, linked: true });
        return { status: 201, body: view(created.toObject()) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:provider`,
      operationId: 'unlinkUserUpstreamIdentity',
      summary: "Remove a user's links to an upstream provider",
      tag: TAG,
      scope: 'auth.users.update',
      params: linkParams,
      responses: { 204: { description: 'Removed' } },
      handler: async ({ tenantId, params, audit }) => {
        await user(tenantId, params.userId);
        const removed = await removeUpstreamLinks(models, {
          tenantId,
          userId: params.userId,
          provider: params.provider,
        });
        if (removed === 0) throw problems.notFound('the user has no link to this provider');
        audit({ userId: params.userId, upstreamProvider: params.provider, linked: false });
        return { status: 204 };
      },
    }),
  ];
}
