/**
 * A user's passkeys (WebAuthn credentials enrolled at oidc-core's /account/passkeys): list them, remove one or all
 * (the administrator's recovery when a person lost their devices), and make a one-time enrolment link (how an account
 * without a password gets its first passkey on a passkey-only tenant). Never returns a public key: only what an
 * administrator needs to recognise a passkey.
 */
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { problems } from '@idp/errors';
import { assertCallerHolds, userManagementScopes } from '../auth/escalation';
import { defineRoute, type RouteDef } from '../openapi/route';
import { isoDate } from '../openapi/schemas';
import { idOr404, type RouteDeps } from './deps';
import { userParams } from './users';

/** An enrolment link works for a week at most (oidc-core passkeys/challenges.ts stores it the same way). */
const LINK_TTL_SECONDS = 7 * 24 * 3600;

const passkeySchema = z
  .object({
    credentialId: z.string().describe('WebAuthn credential ID (base64url)'),
    name: z.string(),
    deviceType: z
      .enum(['singleDevice', 'multiDevice'])
      .describe('singleDevice: bound to one authenticator (amr hwk); multiDevice: may be synced (amr swk)'),
    backedUp: z.boolean(),
    transports: z.array(z.string()),
    aaguid: z.string(),
    attestationVerified: z.boolean().describe('Only then can a device-bound passkey reach acr phrh'),
    createdAt: isoDate,
    lastUsedAt: isoDate.optional(),
  })
  .meta({ id: 'UserPasskey' });

const passkeyParams = userParams.extend({ credentialId: z.string().min(1).max(1024) }).strict();

export function userPasskeyRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const userOr404 = async (tenantId: number, userId: string) => {
    const user = await models.User.findOne({ tenantId, _id: idOr404(userId, 'user') }, { _id: 1, enabled: 1 }).lean();
    if (!user) throw problems.notFound('user not found');
    return user;
  };
  return [
    defineRoute({
      method: 'get',
      path: '/tenants/:tenantId/users/:userId/passkeys',
      operationId: 'listUserPasskeys',
      summary: "A user's passkeys",
      tag: 'Users',
      scope: 'auth.users.list',
      params: userParams,
      responses: {
        200: {
          description: 'The passkeys, oldest first, and how many recovery codes the user has left',
          schema: z
            .object({ items: z.array(passkeySchema), recoveryCodesLeft: z.number().int() })
            .meta({ id: 'UserPasskeyList' }),
        },
      },
      handler: async ({ tenantId, params }) => {
        await userOr404(tenantId, params.userId);
        const items = await models.WebauthnCredential.find({ tenantId, userId: params.userId })
          .sort({ createdAt: 1 })
          .lean();
        return {
          status: 200,
          body: {
            items: items.map((c) => ({
              credentialId: c.credentialId,
              name: c.name,
              deviceType: c.deviceType,
              backedUp: c.backedUp,
              transports: c.transports,
              aaguid: c.aaguid,
              attestationVerified: c.attestationVerified,
              createdAt: c.createdAt.toISOString(),
              ...(c.lastUsedAt ? { lastUsedAt: c.lastUsedAt.toISOString() } : {}),
            })),
            recoveryCodesLeft: await models.PasskeyRecoveryCode.countDocuments({ tenantId, userId: params.userId }),
          },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/tenants/:tenantId/users/:userId/passkeys',
      operationId: 'deleteUserPasskeys',
      summary: "Remove all of a user's passkeys and recovery codes",
      description:
        'The recovery for a person who lost their devices: none of their passkeys or recovery codes signs in any more. ' +
        'Give them a password reset link or (passkey-only tenants) an enrolment link to enrol again.',
      tag: 'Users',
      scope: 'auth.users.update',
      params: userParams,
      responses: { 204: { description: 'Removed' } },
      handler: async ({ tenantId, params, audit }) => {
        await userOr404(tenantId, params.userId);
        const { deletedCount } = await models.WebauthnCredential.deleteMany({ tenantId, userId: params.userId });
        await models.PasskeyRecoveryCode.deleteMany({ tenantId, userId: params.userId });
        audit({ userId: params.userId, passkeysRemoved: deletedCount, recoveryCodesRemoved: true });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/tenants/:tenantId/users/:userId/passkeys/:credentialId',
      operationId: 'deleteUserPasskey',
      summary: "Remove one of a user's passkeys",
      tag: 'Users',
      scope: 'auth.users.update',
      params: passkeyParams,
      responses: { 204: { description: 'Removed' } },
      handler: async ({ tenantId, params, audit }) => {
        await userOr404(tenantId, params.userId);
        const { deletedCount } = await models.WebauthnCredential.deleteOne({
          tenantId,
          userId: params.userId,
          credentialId: params.credentialId,
        });
        if (!deletedCount) throw problems.notFound('passkey not found');
        audit({ userId: params.userId, passkeyRemoved: params.credentialId });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/tenants/:tenantId/users/:userId/passkeys/enrolment-link',
      operationId: 'createPasskeyEnrolmentLink',
      summary: 'Make a one-time passkey enrolment link for a user',
      description:
        'The answer holds the link once; give it to the person out of band. Opening it lets them register a passkey ' +
        'without signing in (an account without a password on a passkey-only tenant); it works once, for a week at ' +
        "most. A new link replaces the user's older ones. 409 when the tenant has passkeys off.",
      tag: 'Users',
      scope: 'auth.users.update',
      params: userParams,
      responses: {
        201: {
          description: 'The link (shown once)',
          schema: z
            .object({ path: z.string(), url: z.string().optional(), expiresAt: isoDate })
            .meta({ id: 'PasskeyEnrolmentLink' }),
        },
      },
      errors: [409],
      handler: async ({ tenantId, params, caller, audit }) => {
        const user = await userOr404(tenantId, params.userId);
        if (!user.enabled)
          throw problems.validation('the user is disabled', [{ name: 'userId', reason: 'enable the user first' }]);
        const tenant = await models.Tenant.findById(tenantId, { settings: 1 }).lean();
        if (!tenant?.settings.passkeys?.enabled)
          throw problems.conflict('passkeys are off for this tenant: set settings.passkeys.enabled first');
        // A passkey of their own is a way into their account: guarded like granting the scopes they hold.
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        const secret = randomBytes(32).toString('base64url');
        const expiresAt = new Date(Date.now() + LINK_TTL_SECONDS * 1000);
        await models.WebauthnChallenge.deleteMany({ tenantId, purpose: 'enrolment-link', userId: params.userId });
        await models.WebauthnChallenge.create({
          tenantId,
          purpose: 'enrolment-link',
          value: createHash('sha256').update(secret).digest('hex'),
          userId: params.userId,
          expiresAt,
        });
        audit({ userId: params.userId, passkeyEnrolmentLink: true, expiresAt: expiresAt.toISOString() });
        const path = `/auth/${tenantId}/account/passkeys/enrol?${new URLSearchParams({ token: secret })}`;
        const origin = deps.publicBaseUrl?.replace(/\/+$/, '');
        return {
          status: 201,
          body: { path, ...(origin ? { url: `${origin}${path}` } : {}), expiresAt: expiresAt.toISOString() },
        };
      },
    }),
  ];
}
