/**
 * Users: create, update, set password, enrol and reset TOTP, disable (PATCH enabled=false), delete. Never returns a
 * password hash or a stored TOTP secret; TOTP enrolment shows the new secret once.
 */
import { z } from 'zod';
import type { UserDoc } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import {
  DUMMY_PASSWORD_HASH,
  generateTotpSecret,
  hashPassword,
  sealTotpSecret,
  TOTP_PARAMETERS,
  totpUri,
} from '@idp/tokens';
import { assertCallerHolds, userManagementScopes } from '../auth/escalation';
import { defineRoute, type RouteDef } from '../openapi/route';
import {
  countSchema,
  emptyBody,
  isoDate,
  objectIdParam,
  page,
  pageQuery,
  queryBool,
  tenantParams,
} from '../openapi/schemas';
import { idOr404, loadTenant, nheSettingsOf, pageOf, prefixRegex, type RouteDeps } from './deps';
import {
  checkJson,
  jsonSizeOk,
  identityCreateFields,
  identityPatchFields,
  identityView,
  identityViewFields,
  patchUpdate,
  toStored,
} from './user-claims';

const username = z.string().regex(/^[A-Za-z0-9._@+-]{1,128}$/, '1 to 128 letters, digits or . _ @ + -');
/** NIST SP 800-63B: at least 8 characters, long passphrases allowed. */
const password = z.string().min(8).max(256);
/** Claims keyed by claim name; FerretDB refuses dots in keys. */
const claims = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, 'claim names: letters, digits, _ and -'), z.unknown())
  .refine((c) => Object.keys(c).length <= 100, 'at most 100 claims')
  // Nested keys (no dots, no leading $), arrays inside arrays and depth first, each reported at its path; the size
  // only of claims that passed (checkJson stops at MAX_JSON_DEPTH, so nothing here recurses without bound).
  .superRefine((c, ctx) => {
    let ok = true;
    for (const [k, v] of Object.entries(c)) ok = checkJson(v, [k], 1, ctx) && ok;
    if (ok && !jsonSizeOk(c, 16_384)) ctx.addIssue({ code: 'custom', message: 'at most 16 kB of claims' });
  });

const createBody = z
  .object({
    username,
    password: password.optional().describe('Without it the user cannot sign in with a password'),
    enabled: z.boolean().default(true),
    claims: claims
      .default({})
      .describe('Standard OIDC claims (name, email, phone_number, address, ...) keyed by claim name'),
    ...identityCreateFields,
  })
  .strict();
const patchBody = z
  .object({
    username: username.optional(),
    enabled: z.boolean().optional(),
    claims: claims.optional().describe('Replaces the claims'),
    ...identityPatchFields,
  })
  .strict()
  .describe('Each field given replaces the stored one; null removes an identity field');

export const userSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    enabled: z.boolean(),
    roleIds: z.array(z.string()),
    groupIds: z.array(z.string()),
    claims: z.record(z.string(), z.unknown()),
    ...identityViewFields,
    managedBy: z
      .literal('scim')
      .optional()
      .describe(
        "scim: provisioned by the tenant's directory (SCIM 2.0), which owns its username, profile and enabled state",
      ),
    externalId: z.string().optional().describe("The directory's identifier of the person (SCIM externalId)"),
    totpEnrolled: z.boolean(),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'User' });

export const userPage = page(userSchema, 'UserPage');

const totpEnrolment = z
  .object({
    secret: z.string().describe('Base32 shared secret (RFC 4648, unpadded)'),
    otpauthUri: z.string().describe('otpauth://totp/... Key URI for authenticator apps (QR code)'),
    algorithm: z.literal('SHA1'),
    digits: z.literal(6),
    period: z.literal(30),
  })
  .meta({ id: 'TotpEnrolment' });

/** As stored: a record written without one of these lists (an older version, an import) reads as empty. */
type Row = Omit<UserDoc, 'roleIds' | 'groupIds' | 'claims'> &
  Partial<Pick<UserDoc, 'roleIds' | 'groupIds' | 'claims'>> & { _id: unknown; createdAt?: Date; updatedAt?: Date };

export function userView(doc: Row) {
  return {
    id: String(doc._id),
    username: doc.username,
    enabled: doc.enabled,
    roleIds: doc.roleIds ?? [],
    groupIds: doc.groupIds ?? [],
    claims: doc.claims ?? {},
    ...identityView(doc),
    ...(doc.managedBy ? { managedBy: doc.managedBy } : {}),
    ...(doc.externalId ? { externalId: doc.externalId } : {}),
    totpEnrolled: Boolean(doc.totpSecret),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

const BASE = '/tenants/:tenantId/users';
export const userParams = tenantParams.extend({ userId: objectIdParam }).strict();
const filters = {
  usernamePrefix: z.string().min(1).max(128).optional(),
  enabled: queryBool.optional(),
  groupId: z.string().max(64).optional(),
};
const TAG = 'Users';
const PROJECTION = { passwordHash: 0 };

export function userRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const find = async (tenantId: number, id: string) => {
    const doc = await models.User.findOne({ tenantId, _id: idOr404(id, 'user') }, PROJECTION).lean<Row>();
    if (!doc) throw problems.notFound('user not found');
    return doc;
  };
  const filterOf = (
    tenantId: number,
    q: { usernamePrefix?: string | undefined; enabled?: boolean | undefined; groupId?: string | undefined },
  ) => ({
    tenantId,
    ...(q.usernamePrefix ? { username: prefixRegex(q.usernamePrefix) } : {}),
    ...(q.enabled !== undefined ? { enabled: q.enabled } : {}),
    ...(q.groupId ? { groupIds: q.groupId } : {}),
  });
  const revokeUser = async (tenantId: number, userId: string, reason: string) => {
    const settings = nheSettingsOf(await loadTenant(models, tenantId));
    await deps.revoke?.({ tenantId, subject: userId, reason, maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime });
  };
  const duplicate = (err: unknown) => {
    throw isDuplicateKeyError(err) ? problems.conflict('a user with this username already exists') : err;
  };

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createUser',
      summary: 'Create a user',
      tag: TAG,
      scope: 'auth.users.create',
      params: tenantParams,
      body: createBody,
      responses: { 201: { description: 'The user', schema: userSchema, headers: { Location: 'URL of the user' } } },
      errors: [409],
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        if (await models.User.exists({ tenantId, username: body.username }))
          throw problems.conflict('a user with this username already exists');
        const passwordHash = body.password ? await hashPassword(body.password) : DUMMY_PASSWORD_HASH;
        const { password: _password, ...fields } = body;
        const created = await models.User.create({ tenantId, ...toStored(fields), passwordHash }).catch(duplicate);
        const id = String(created._id);
        audit({
          userId: id,
          username: body.username,
          passwordSet: Boolean(body.password),
          fields: Object.keys(fields),
        });
        invalidate('user', id);
        return {
          status: 201,
          body: userView(await find(tenantId, id)),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listUsers',
      summary: 'List users (oldest first)',
      tag: TAG,
      scope: 'auth.users.list',
      params: tenantParams,
      query: pageQuery.extend(filters).strict(),
      responses: { 200: { description: 'A page of users', schema: userPage } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(models.User, filterOf(tenantId, query), query, userView),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countUsers',
      summary: 'Count users',
      tag: TAG,
      scope: 'auth.users.list',
      params: tenantParams,
      query: z.object(filters).strict(),
      responses: { 200: { description: 'The number of matching users', schema: countSchema } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: { count: await models.User.countDocuments(filterOf(tenantId, query)) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:userId`,
      operationId: 'getUser',
      summary: 'Get a user',
      tag: TAG,
      scope: 'auth.users.list',
      params: userParams,
      responses: { 200: { description: 'The user (never the password hash or TOTP secret)', schema: userSchema } },
      handler: async ({ tenantId, params }) => ({ status: 200, body: userView(await find(tenantId, params.userId)) }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:userId`,
      operationId: 'updateUser',
      summary: 'Update a user; enabled=false disables it',
      description:
        'Disabling a user revokes the NHE tokens delegated by that user. Disabling a user or changing its username needs every ' +
        'management scope the user holds (403 otherwise): a narrower caller could lock a stronger administrator out.',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      body: patchBody,
      responses: { 200: { description: 'The updated user', schema: userSchema } },
      errors: [409, 503],
      handler: async ({ tenantId, params, body, caller, audit, invalidate }) => {
        const existing = await find(tenantId, params.userId);
        // Disabling the user, or renaming the account it signs in with, locks it out: guarded like granting its scopes.
        if (body.enabled === false || (body.username !== undefined && body.username !== existing.username)) {
          assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        }
        if (
          body.username &&
          body.username !== existing.username &&
          (await models.User.exists({ tenantId, username: body.username }))
        ) {
          throw problems.conflict('a user with this username already exists');
        }
        const doc = await models.User.findOneAndUpdate({ _id: existing._id, tenantId }, patchUpdate(toStored(body)), {
          returnDocument: 'after',
        })
          .lean<Row>()
          .catch(duplicate);
        if (!doc) throw problems.notFound('user not found');
        audit({ userId: params.userId, fields: Object.keys(body) });
        invalidate('user', params.userId);
        if (body.enabled === false) {
          await revokeUser(tenantId, params.userId, 'user.disabled');
          // A reset link made before must not outlive the decision: enabling the user again does not revive it.
          await models.PasswordReset.deleteMany({ tenantId, userId: params.userId });
        }
        return { status: 200, body: userView(doc) };
      },
    }),
    defineRoute({
      method: 'put',
      path: `${BASE}/:userId/password`,
      operationId: 'setUserPassword',
      summary: "Set a user's password",
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      body: z.object({ password }).strict(),
      responses: { 204: { description: 'Password set' } },
      handler: async ({ tenantId, params, body, caller, audit }) => {
        const existing = await find(tenantId, params.userId);
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        await models.User.updateOne(
          { _id: existing._id, tenantId },
          { $set: { passwordHash: await hashPassword(body.password) } },
        );
        audit({ userId: params.userId, passwordSet: true });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${BASE}/:userId/totp`,
      operationId: 'enrolUserTotp',
      summary: 'Enrol a user in TOTP: returns the new secret once',
      description:
        'Generates a 160-bit TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s) and stores it sealed with the key-encryption key. ' +
        'The response is the only time the secret is shown: give it (or the otpauth URI, as a QR code) to the user. From now on ' +
        'the user signs in with password and code. 409 when the user is already enrolled: reset first to replace it.',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      body: emptyBody,
      responses: { 201: { description: 'The new secret (shown once)', schema: totpEnrolment } },
      errors: [409],
      handler: async ({ tenantId, params, caller, audit }) => {
        const existing = await find(tenantId, params.userId);
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        if (existing.totpSecret) throw problems.conflict('the user is already enrolled in TOTP; reset it first');
        const tenant = await loadTenant(models, tenantId);
        const secret = generateTotpSecret();
        const sealed = sealTotpSecret(deps.keyStore.kek, tenantId, params.userId, secret);
        // Conditional on "not enrolled", then read back: a concurrent enrolment that won answers 409 here (FerretDB
        // does not make the conditional update atomic, hence the read-back).
        const res = await models.User.updateOne(
          { _id: existing._id, tenantId, totpSecret: { $exists: false } },
          { $set: { totpSecret: sealed }, $unset: { totpLastTimeStep: 1 } },
        );
        const now = await models.User.findOne({ _id: existing._id, tenantId }, { totpSecret: 1 }).lean();
        if (res.modifiedCount !== 1 || now?.totpSecret !== sealed)
          throw problems.conflict('the user is already enrolled in TOTP; reset it first');
        audit({ userId: params.userId, totpEnrolled: true });
        return {
          status: 201,
          body: {
            secret,
            otpauthUri: totpUri({ issuer: tenant.name, account: existing.username, secret }),
            ...TOTP_PARAMETERS,
          },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:userId/totp`,
      operationId: 'resetUserTotp',
      summary: "Reset a user's TOTP enrolment",
      description:
        'Removes the secret: the user signs in with the password alone until enrolled again (POST on this path).',
      tag: TAG,
      scope: 'auth.users.update',
      params: userParams,
      responses: { 204: { description: 'TOTP removed' } },
      handler: async ({ tenantId, params, caller, audit }) => {
        const existing = await find(tenantId, params.userId);
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        await models.User.updateOne(
          { _id: existing._id, tenantId },
          { $unset: { totpSecret: 1, totpLastTimeStep: 1 } },
        );
        audit({ userId: params.userId, totpReset: true });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:userId`,
      operationId: 'deleteUser',
      summary: 'Delete a user',
      description:
        'Also deletes the delegation policies that target the user and revokes the NHE tokens it delegated. Token audit rows stay. ' +
        'Needs every management scope the user holds (403 otherwise).',
      tag: TAG,
      scope: 'auth.users.delete',
      params: userParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [503],
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        const existing = await find(tenantId, params.userId);
        // Deleting a user takes every scope it holds away: guarded like granting them.
        assertCallerHolds(caller, await userManagementScopes(models, tenantId, params.userId), 'the user');
        // Revoke first: if that cannot be confirmed (503) nothing is deleted yet, so a retry of the DELETE does both.
        await revokeUser(tenantId, params.userId, 'user.deleted');
        await models.User.deleteOne({ _id: existing._id, tenantId });
        // Its upstream links go with it: the upstream identity may then link to, or create, another account.
        await models.UpstreamLink.deleteMany({ tenantId, userId: params.userId });
        await models.PasswordReset.deleteMany({ tenantId, userId: params.userId });
        // Its passkeys, recovery codes and enrolment links (the public keys and digests are personal data).
        await models.WebauthnCredential.deleteMany({ tenantId, userId: params.userId });
        await models.PasskeyRecoveryCode.deleteMany({ tenantId, userId: params.userId });
        await models.WebauthnChallenge.deleteMany({ tenantId, userId: params.userId });
        const policies = await models.DelegationPolicy.deleteMany({
          tenantId,
          'target.type': 'user',
          'target.id': params.userId,
        });
        audit({ userId: params.userId, username: existing.username, policiesDeleted: policies.deletedCount });
        invalidate('user', params.userId);
        return { status: 204 };
      },
    }),
  ];
}
