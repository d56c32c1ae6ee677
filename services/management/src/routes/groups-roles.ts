/**
 * Groups and their memberships, roles (a bundle of one resource server's permissions) and their assignment to
 * users, groups and clients. Assignment needs `auth.roles.assign`; a role on the management API can only hold,
 * and be assigned by, a caller holding every scope it grants (no privilege escalation through roles).
 */
import { z } from 'zod';
import type { GroupDoc, Models, RoleDoc } from '@idp/db';
import { toObjectId } from '@idp/db';
import { isDuplicateKeyError, problems } from '@idp/errors';
import { MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES, SSF_AUDIENCE, SSF_SCOPES } from '@idp/tokens';
import type { Caller } from '../auth/bearer';
import {
  assertCallerHolds,
  clientManagementScopes,
  groupManagementScopes,
  userManagementScopes,
} from '../auth/escalation';
import { defineRoute, type RouteDef } from '../openapi/route';
import { countSchema, isoDate, objectIdParam, page, pageQuery, scopeList, tenantParams } from '../openapi/schemas';
import { idOr404, loadTenant, nheSettingsOf, pageOf, prefixRegex, type RouteDeps } from './deps';
import { userPage, userParams, userView } from './users';

const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 ._:-]{0,127}$/, '1 to 128 letters, digits, space or . _ : -');

export const groupSchema = z
  .object({ id: z.string(), name: z.string(), roleIds: z.array(z.string()), createdAt: isoDate, updatedAt: isoDate })
  .meta({ id: 'Group' });
export const roleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    resourceServer: z.string(),
    permissions: z.array(z.string()),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Role' });

// As stored: a record written without its list (by an older version, or by hand) reads as an empty one.
type GroupRow = Omit<GroupDoc, 'roleIds'> & { roleIds?: string[]; _id: unknown; createdAt?: Date; updatedAt?: Date };
type RoleRow = Omit<RoleDoc, 'permissions'> & {
  permissions?: string[];
  _id: unknown;
  createdAt?: Date;
  updatedAt?: Date;
};

const groupView = (d: GroupRow) => ({
  id: String(d._id),
  name: d.name,
  roleIds: d.roleIds ?? [],
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});
const roleView = (d: RoleRow) => ({
  id: String(d._id),
  name: d.name,
  resourceServer: d.resourceServer,
  permissions: d.permissions ?? [],
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
});

const groupParams = tenantParams.extend({ groupId: objectIdParam }).strict();
const roleParams = tenantParams.extend({ roleId: objectIdParam }).strict();

async function findGroup(models: Models, tenantId: number, id: string) {
  const doc = await models.Group.findOne({ tenantId, _id: idOr404(id, 'group') }).lean<GroupRow>();
  if (!doc) throw problems.notFound('group not found');
  return doc;
}
async function findRole(models: Models, tenantId: number, id: string) {
  const doc = await models.Role.findOne({ tenantId, _id: idOr404(id, 'role') }).lean<RoleRow>();
  if (!doc) throw problems.notFound('role not found');
  return doc;
}

/** Management roles: permissions must be management scopes the caller itself holds. */
function checkNoEscalation(caller: Caller, role: { resourceServer: string; permissions?: string[] | undefined }) {
  // Every role record is written through mongoose, whose array default gives it a list (the view still guards).
  if (role.resourceServer === MANAGEMENT_AUDIENCE)
    assertCallerHolds(caller, role.permissions!, 'a role on the management API');
}

async function checkPermissions(models: Models, tenantId: number, resourceServer: string, permissions: string[]) {
  // Built-in audiences: the management API and the Shared Signals transmitter (ssf.manage, services/signals).
  const builtIn =
    resourceServer === MANAGEMENT_AUDIENCE
      ? MANAGEMENT_SCOPES
      : resourceServer === SSF_AUDIENCE
        ? SSF_SCOPES
        : undefined;
  const allowed = builtIn
    ? new Set<string>(builtIn)
    : new Set(
        (await models.ResourceServer.findOne({ tenantId, identifier: resourceServer }, { scopes: 1 }).lean())?.scopes ??
          [],
      );
  if (!builtIn && !(await models.ResourceServer.exists({ tenantId, identifier: resourceServer }))) {
    throw problems.validation('the resource server does not exist', [
      { name: 'body.resourceServer', reason: 'no resource server with this identifier in the tenant' },
    ]);
  }
  const unknown = permissions.map((p, i) => [p, i] as const).filter(([p]) => !allowed.has(p));
  if (unknown.length)
    throw problems.validation(
      'permissions must be registered on the resource server',
      unknown.map(([p, i]) => ({
        name: `body.permissions.${i}`,
        reason: `${p} is not a permission of ${resourceServer}`,
      })),
    );
}

export function groupRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const BASE = '/tenants/:tenantId/groups';
  const TAG = 'Groups';
  const conflict = (err: unknown) => {
    throw isDuplicateKeyError(err) ? problems.conflict('a group with this name already exists') : err;
  };
  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createGroup',
      summary: 'Create a group',
      tag: TAG,
      scope: 'auth.groups.create',
      params: tenantParams,
      body: z.object({ name }).strict(),
      errors: [409],
      responses: { 201: { description: 'The group', schema: groupSchema, headers: { Location: 'URL of the group' } } },
      handler: async ({ tenantId, body, req, audit, invalidate }) => {
        if (await models.Group.exists({ tenantId, name: body.name }))
          throw problems.conflict('a group with this name already exists');
        const created = await models.Group.create({ tenantId, name: body.name }).catch(conflict);
        const id = String(created._id);
        audit({ groupId: id, name: body.name });
        invalidate('group', id);
        return {
          status: 201,
          body: groupView(created.toObject() as GroupRow),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listGroups',
      summary: 'List groups (oldest first)',
      tag: TAG,
      scope: 'auth.groups.list',
      params: tenantParams,
      query: pageQuery.extend({ namePrefix: z.string().min(1).max(128).optional() }).strict(),
      responses: { 200: { description: 'A page of groups', schema: page(groupSchema, 'GroupPage') } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(
          models.Group,
          { tenantId, ...(query.namePrefix ? { name: prefixRegex(query.namePrefix) } : {}) },
          query,
          groupView,
        ),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countGroups',
      summary: 'Count groups',
      tag: TAG,
      scope: 'auth.groups.list',
      params: tenantParams,
      responses: { 200: { description: 'The number of groups', schema: countSchema } },
      handler: async ({ tenantId }) => ({
        status: 200,
        body: { count: await models.Group.countDocuments({ tenantId }) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:groupId`,
      operationId: 'getGroup',
      summary: 'Get a group',
      tag: TAG,
      scope: 'auth.groups.list',
      params: groupParams,
      responses: { 200: { description: 'The group', schema: groupSchema } },
      handler: async ({ tenantId, params }) => ({
        status: 200,
        body: groupView(await findGroup(models, tenantId, params.groupId)),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:groupId`,
      operationId: 'updateGroup',
      summary: 'Rename a group',
      tag: TAG,
      scope: 'auth.groups.update',
      params: groupParams,
      body: z.object({ name: name.optional() }).strict(),
      errors: [409],
      responses: { 200: { description: 'The group', schema: groupSchema } },
      handler: async ({ tenantId, params, body, audit, invalidate }) => {
        const existing = await findGroup(models, tenantId, params.groupId);
        if (body.name && body.name !== existing.name && (await models.Group.exists({ tenantId, name: body.name })))
          throw problems.conflict('a group with this name already exists');
        const doc = await models.Group.findOneAndUpdate(
          { _id: existing._id, tenantId },
          { $set: body },
          { returnDocument: 'after' },
        )
          .lean<GroupRow>()
          .catch(conflict);
        if (!doc) throw problems.notFound('group not found');
        audit({ groupId: params.groupId, fields: Object.keys(body) });
        invalidate('group', params.groupId);
        return { status: 200, body: groupView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:groupId`,
      operationId: 'deleteGroup',
      summary: 'Delete a group',
      description:
        "Removes it from its members and deletes the delegation policies that target it; tokens already issued to those policies' NHEs are revoked, as when a policy is deleted.",
      tag: TAG,
      scope: 'auth.groups.delete',
      params: groupParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [503],
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        const existing = await findGroup(models, tenantId, params.groupId);
        // Deleting the group takes its scopes from every member: guarded like removing one member.
        assertCallerHolds(caller, await groupManagementScopes(models, tenantId, params.groupId), 'the group');
        const target = { tenantId, 'target.type': 'group' as const, 'target.id': params.groupId };
        const nheIds = [
          ...new Set(
            (await models.DelegationPolicy.find(target, { nheId: 1 }).lean())
              .map((p) => toObjectId(p.nheId))
              .filter((x) => x !== undefined),
          ),
        ];
        if (nheIds.length) {
          // The kill switch, as for deleting each policy: tokens issued under them stop working within seconds.
          // Revoke first: if that cannot be confirmed (503) nothing is deleted yet, so a retry of the DELETE does both.
          const settings = nheSettingsOf(await loadTenant(models, tenantId));
          const nhes = await models.Nhe.find({ tenantId, _id: { $in: nheIds } }, { identifier: 1 }).lean();
          for (const nhe of nhes) {
            await deps.revoke?.({
              tenantId,
              nheIdentifier: nhe.identifier,
              reason: 'policy.deleted',
              maxTokenLifetimeSeconds: settings.hardMaxTokenLifetime,
            });
          }
        }
        await models.Group.deleteOne({ _id: existing._id, tenantId });
        await models.User.updateMany({ tenantId, groupIds: params.groupId }, { $pull: { groupIds: params.groupId } });
        const policies = await models.DelegationPolicy.deleteMany(target);
        audit({ groupId: params.groupId, policiesDeleted: policies.deletedCount });
        invalidate('group', params.groupId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:groupId/members`,
      operationId: 'listGroupMembers',
      summary: 'List the members of a group',
      tag: TAG,
      scope: 'auth.groups.list',
      params: groupParams,
      query: pageQuery.strict(),
      responses: { 200: { description: 'A page of users', schema: userPage } },
      handler: async ({ tenantId, params, query }) => {
        await findGroup(models, tenantId, params.groupId);
        return {
          status: 200,
          body: await pageOf(models.User, { tenantId, groupIds: params.groupId }, query, userView),
        };
      },
    }),
    defineRoute({
      method: 'put',
      path: `${BASE}/:groupId/members/:userId`,
      operationId: 'addGroupMember',
      summary: 'Add a user to a group (idempotent)',
      tag: TAG,
      scope: 'auth.groups.update',
      params: groupParams.extend(userParams.shape).strict(),
      responses: { 204: { description: 'The user is a member' } },
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        await findGroup(models, tenantId, params.groupId);
        assertCallerHolds(caller, await groupManagementScopes(models, tenantId, params.groupId), 'the group');
        const res = await models.User.updateOne(
          { tenantId, _id: idOr404(params.userId, 'user') },
          { $addToSet: { groupIds: params.groupId } },
        );
        if (!res.matchedCount) throw problems.notFound('user not found');
        audit({ groupId: params.groupId, userId: params.userId });
        invalidate('user', params.userId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:groupId/members/:userId`,
      operationId: 'removeGroupMember',
      summary: 'Remove a user from a group',
      tag: TAG,
      scope: 'auth.groups.update',
      params: groupParams.extend(userParams.shape).strict(),
      responses: { 204: { description: 'The user is not a member' } },
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        await findGroup(models, tenantId, params.groupId);
        // Taking scopes away is guarded like granting them: stripping an administrator, resetting its password and
        // waiting for the access to be given back would otherwise hand its account over.
        assertCallerHolds(caller, await groupManagementScopes(models, tenantId, params.groupId), 'the group');
        const res = await models.User.updateOne(
          { tenantId, _id: idOr404(params.userId, 'user') },
          { $pull: { groupIds: params.groupId } },
        );
        if (!res.matchedCount) throw problems.notFound('user not found');
        audit({ groupId: params.groupId, userId: params.userId });
        invalidate('user', params.userId);
        return { status: 204 };
      },
    }),
  ];
}

export function roleRoutes(deps: RouteDeps): RouteDef[] {
  const { models } = deps;
  const BASE = '/tenants/:tenantId/roles';
  const TAG = 'Roles';
  const conflict = (err: unknown) => {
    throw isDuplicateKeyError(err) ? problems.conflict('a role with this name already exists') : err;
  };

  const holderScopes = (holder: 'users' | 'groups' | 'clients', tenantId: number, id: string) =>
    holder === 'users'
      ? userManagementScopes(models, tenantId, id)
      : holder === 'groups'
        ? groupManagementScopes(models, tenantId, id)
        : clientManagementScopes(models, tenantId, id);

  /** PUT/DELETE `/<holder>/:holderId/roles/:roleId` for users, groups and clients. */
  const assignment = (holder: 'users' | 'groups' | 'clients', method: 'put' | 'delete'): RouteDef => {
    const idName = holder === 'users' ? 'userId' : holder === 'groups' ? 'groupId' : 'clientId';
    const params = tenantParams.extend({ [idName]: z.string().max(64), roleId: objectIdParam }).strict();
    const what = holder.slice(0, -1);
    return defineRoute({
      method,
      path: `/tenants/:tenantId/${holder}/:${idName}/roles/:roleId`,
      operationId: `${method === 'put' ? 'assign' : 'unassign'}Role${what[0]!.toUpperCase()}${what.slice(1)}`,
      summary: `${method === 'put' ? 'Assign a role to' : 'Remove a role from'} a ${what} (idempotent)`,
      description:
        method === 'put'
          ? 'A role on the management API needs every scope it grants (403 otherwise).'
          : `A role on the management API needs every scope it grants, and removing any role needs every management scope the ${what} holds (403 otherwise).`,
      tag: TAG,
      scope: 'auth.roles.assign',
      params,
      responses: { 204: { description: method === 'put' ? 'Assigned' : 'Not assigned' } },
      handler: async ({ tenantId, params: p, caller, audit, invalidate }) => {
        const role = await findRole(models, tenantId, p.roleId);
        // Both ways: removing a management role from an administrator is guarded like granting it.
        checkNoEscalation(caller, role);
        const holderId = (p as Record<string, string>)[idName]!;
        // Removing any role from a holder of management scopes needs them all (a narrower caller could otherwise
        // strip a stronger administrator bit by bit, whatever the role): guarded like the holder's other lock-outs.
        if (method === 'delete')
          assertCallerHolds(caller, await holderScopes(holder, tenantId, holderId), `the ${what}`);
        const filter =
          holder === 'clients' ? { tenantId, clientId: holderId } : { tenantId, _id: idOr404(holderId, what) };
        const update = method === 'put' ? { $addToSet: { roleIds: p.roleId } } : { $pull: { roleIds: p.roleId } };
        const model = holder === 'users' ? models.User : holder === 'groups' ? models.Group : models.Client;
        const res = await (model as typeof models.User).updateOne(filter, update);
        if (!res.matchedCount) throw problems.notFound(`${what} not found`);
        audit({ [idName]: holderId, roleId: p.roleId, role: role.name });
        invalidate(holder === 'clients' ? 'client' : holder === 'users' ? 'user' : 'group', holderId);
        return { status: 204 };
      },
    });
  };

  return [
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createRole',
      summary: 'Create a role',
      tag: TAG,
      scope: 'auth.roles.create',
      params: tenantParams,
      errors: [409],
      body: z
        .object({
          name,
          resourceServer: z
            .string()
            .min(1)
            .max(2048)
            .describe('Identifier of a resource server of the tenant, or urn:idp:management'),
          permissions: scopeList,
        })
        .strict(),
      responses: { 201: { description: 'The role', schema: roleSchema, headers: { Location: 'URL of the role' } } },
      handler: async ({ tenantId, body, caller, req, audit, invalidate }) => {
        await checkPermissions(models, tenantId, body.resourceServer, body.permissions);
        checkNoEscalation(caller, body);
        if (await models.Role.exists({ tenantId, name: body.name }))
          throw problems.conflict('a role with this name already exists');
        const created = await models.Role.create({ tenantId, ...body }).catch(conflict);
        const id = String(created._id);
        audit({ roleId: id, name: body.name, resourceServer: body.resourceServer });
        invalidate('role', id);
        return {
          status: 201,
          body: roleView(created.toObject() as RoleRow),
          headers: { Location: `${req.baseUrl}${req.path}/${id}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listRoles',
      summary: 'List roles (oldest first)',
      tag: TAG,
      scope: 'auth.roles.list',
      params: tenantParams,
      query: pageQuery.extend({ resourceServer: z.string().min(1).max(2048).optional() }).strict(),
      responses: { 200: { description: 'A page of roles', schema: page(roleSchema, 'RolePage') } },
      handler: async ({ tenantId, query }) => ({
        status: 200,
        body: await pageOf(
          models.Role,
          { tenantId, ...(query.resourceServer ? { resourceServer: query.resourceServer } : {}) },
          query,
          roleView,
        ),
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/count`,
      operationId: 'countRoles',
      summary: 'Count roles',
      tag: TAG,
      scope: 'auth.roles.list',
      params: tenantParams,
      responses: { 200: { description: 'The number of roles', schema: countSchema } },
      handler: async ({ tenantId }) => ({
        status: 200,
        body: { count: await models.Role.countDocuments({ tenantId }) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/:roleId`,
      operationId: 'getRole',
      summary: 'Get a role',
      tag: TAG,
      scope: 'auth.roles.list',
      params: roleParams,
      responses: { 200: { description: 'The role', schema: roleSchema } },
      handler: async ({ tenantId, params }) => ({
        status: 200,
        body: roleView(await findRole(models, tenantId, params.roleId)),
      }),
    }),
    defineRoute({
      method: 'patch',
      path: `${BASE}/:roleId`,
      operationId: 'updateRole',
      summary: 'Update a role (its resource server is immutable)',
      tag: TAG,
      scope: 'auth.roles.update',
      params: roleParams,
      body: z.object({ name: name.optional(), permissions: scopeList.optional() }).strict(),
      errors: [409],
      responses: { 200: { description: 'The role', schema: roleSchema } },
      handler: async ({ tenantId, params, body, caller, audit, invalidate }) => {
        const existing = await findRole(models, tenantId, params.roleId);
        if (body.permissions) {
          await checkPermissions(models, tenantId, existing.resourceServer, body.permissions);
          // What the role grants now and what it would grant: neither may exceed the caller.
          checkNoEscalation(caller, {
            resourceServer: existing.resourceServer,
            permissions: [...(existing.permissions ?? []), ...body.permissions],
          });
        }
        if (body.name && body.name !== existing.name && (await models.Role.exists({ tenantId, name: body.name })))
          throw problems.conflict('a role with this name already exists');
        const doc = await models.Role.findOneAndUpdate(
          { _id: existing._id, tenantId },
          { $set: body },
          { returnDocument: 'after' },
        )
          .lean<RoleRow>()
          .catch(conflict);
        if (!doc) throw problems.notFound('role not found');
        audit({ roleId: params.roleId, fields: Object.keys(body) });
        invalidate('role', params.roleId);
        return { status: 200, body: roleView(doc) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/:roleId`,
      operationId: 'deleteRole',
      summary: 'Delete a role and every assignment of it',
      tag: TAG,
      scope: 'auth.roles.delete',
      params: roleParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ tenantId, params, caller, audit, invalidate }) => {
        const existing = await findRole(models, tenantId, params.roleId);
        checkNoEscalation(caller, existing);
        await models.Role.deleteOne({ _id: existing._id, tenantId });
        for (const m of [models.User, models.Group, models.Client] as Array<typeof models.User>)
          await m.updateMany({ tenantId, roleIds: params.roleId }, { $pull: { roleIds: params.roleId } });
        audit({ roleId: params.roleId, name: existing.name });
        invalidate('role', params.roleId);
        return { status: 204 };
      },
    }),
    ...(['users', 'groups', 'clients'] as const).flatMap((holder) => [
      assignment(holder, 'put'),
      assignment(holder, 'delete'),
    ]),
  ];
}
