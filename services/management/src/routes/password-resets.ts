/**
 * One-time password reset links: an administrator makes one for a user and hands it to the person out of band; the
 * person opens it at the tenant's account page (oidc-core account/password-reset.ts) and chooses a new password.
 * The secret is shown once and stored only as its SHA-256 digest; a new link replaces the user's older ones.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { problems } from '@idp/errors';
import { assertCallerHolds, userManagementScopes } from '../auth/escalation';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate } from '../openapi/schemas';
import { idOr404, type RouteDeps } from './deps';
import { userParams } from './users';

/** How long a link works when the caller does not say (a working day), and at most (a week). */
const DEFAULT_TTL_SECONDS = 8 * 3600;
const MAX_TTL_SECONDS = 7 * 24 * 3600;

export const passwordResetDigest = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function passwordResetRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/tenants/:tenantId/users/:userId/password-reset',
      operationId: 'createPasswordResetLink',
      summary: 'Make a one-time password reset link for a user',
      description:
        'The answer holds the link once; give it to the person out of band. It works once, until it expires, and ' +
        "ends the user's sign-in sessions when used. A new link replaces the user's older ones.",
      tag: 'Users',
      scope: 'auth.users.update',
      params: userParams,
      body: z
        .object({
          ttlSeconds: z
            .number()
            .int()
            .min(300)
            .max(MAX_TTL_SECONDS)
            .default(DEFAULT_TTL_SECONDS)
            .describe('How long the link works (seconds; 300 to 604800, default 28800)'),
        })
        .strict()
        .default({ ttlSeconds: DEFAULT_TTL_SECONDS }),
      responses: {
        201: {
          description: 'The link (shown once)',
          schema: z
            .object({
              path: z.string().describe("The link's path under the public origin"),
              url: z.string().optional().describe('The whole link, when the public origin is configured'),
              expiresAt: isoDate,
            })
            .meta({ id: 'PasswordResetLink' }),
        },
      },
      handler: async ({ tenantId, params, body, caller, audit }) => {
        const user = await models.User.findOne(
          { tenantId, _id: idOr404(params.userId, 'user') },
          { _id: 1, enabled: 1 },
        ).lean();
        if (!user) throw problems.notFound('user not found');
        if (!user.enabled)
          throw problems.validation('the user is disabled', [{ name: 'userId', reason: 'enable the user first' }]);
        // Choosing someone's password is taking over their account: guarded like granting the scopes they hold.
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        const secret = randomBytes(32).toString('base64url');
        const expiresAt = new Date(Date.now() + body.ttlSeconds * 1000);
        await models.PasswordReset.deleteMany({ tenantId, userId: params.userId });
        await models.PasswordReset.create({
          tenantId,
          userId: params.userId,
          digest: passwordResetDigest(secret),
          expiresAt,
          createdBy: caller.clientId,
        });
        audit({ userId: params.userId, passwordResetLink: true, expiresAt: expiresAt.toISOString() });
        const path = `/auth/${tenantId}/account/password-reset?${new URLSearchParams({ token: secret })}`;
        const origin = deps.publicBaseUrl?.replace(/\/+$/, '');
        return {
          status: 201,
          body: { path, ...(origin ? { url: `${origin}${path}` } : {}), expiresAt: expiresAt.toISOString() },
        };
      },
    }),
  ];
}
