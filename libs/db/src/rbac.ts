import type { Models } from './models';
import { toObjectId } from './ids';

/**
 * The permissions a user holds now on one resource server: roles assigned directly, plus roles of every group
 * the user belongs to, restricted to roles of that resource server.
 */
export async function userPermissions(
  models: Models,
  tenantId: number,
  userId: string,
  resourceServer: string,
): Promise<Set<string>> {
  const _id = toObjectId(userId);
  if (!_id) return new Set();
  const user = await models.User.findOne({ tenantId, _id }, { roleIds: 1, groupIds: 1 }).lean();
  if (!user) return new Set();
  const groupIds = user.groupIds.map(toObjectId).filter((x) => x !== undefined);
  const groups = groupIds.length
    ? await models.Group.find({ tenantId, _id: { $in: groupIds } }, { roleIds: 1 }).lean()
    : [];
  return rolePermissions(models, tenantId, [...user.roleIds, ...groups.flatMap((g) => g.roleIds)], resourceServer);
}

/** The permissions a client holds on a resource server through its roles (client credentials). */
export async function clientPermissions(
  models: Models,
  tenantId: number,
  clientId: string,
  resourceServer: string,
): Promise<Set<string>> {
  const client = await models.Client.findOne({ tenantId, clientId }, { roleIds: 1 }).lean();
  if (!client) return new Set();
  return rolePermissions(models, tenantId, client.roleIds, resourceServer);
}

/** The permissions a group's roles grant its members on a resource server. */
export async function groupPermissions(
  models: Models,
  tenantId: number,
  groupId: string,
  resourceServer: string,
): Promise<Set<string>> {
  const _id = toObjectId(groupId);
  if (!_id) return new Set();
  const group = await models.Group.findOne({ tenantId, _id }, { roleIds: 1 }).lean();
  return group ? rolePermissions(models, tenantId, group.roleIds, resourceServer) : new Set();
}

async function rolePermissions(
  models: Models,
  tenantId: number,
  roleIds: string[],
  resourceServer: string,
): Promise<Set<string>> {
  const ids = [...new Set(roleIds)].map(toObjectId).filter((x) => x !== undefined);
  if (!ids.length) return new Set();
  const roles = await models.Role.find({ tenantId, _id: { $in: ids }, resourceServer }, { permissions: 1 }).lean();
  return new Set(roles.flatMap((r) => r.permissions));
}

/** A user's roles (directly and through groups) and group names, for the role and group claims. */
export interface UserMemberships {
  groups: string[];
  roles: Array<{ name: string; resourceServer: string }>;
}

/** The user may come from a read that applied no schema default (the driver's, not mongoose's): absent lists are empty. */
export async function userMemberships(
  models: Models,
  tenantId: number,
  user: { roleIds?: string[]; groupIds?: string[] },
): Promise<UserMemberships> {
  const groupIds = (user.groupIds ?? []).map(toObjectId).filter((x) => x !== undefined);
  const groups = groupIds.length
    ? await models.Group.find({ tenantId, _id: { $in: groupIds } }, { name: 1, roleIds: 1 }).lean()
    : [];
  const roleIds = [...new Set([...(user.roleIds ?? []), ...groups.flatMap((g) => g.roleIds)])]
    .map(toObjectId)
    .filter((x) => x !== undefined);
  const roles = roleIds.length
    ? await models.Role.find({ tenantId, _id: { $in: roleIds } }, { name: 1, resourceServer: 1 }).lean()
    : [];
  return {
    groups: groups.map((g) => g.name).sort(),
    roles: roles
      .map((r) => ({ name: r.name, resourceServer: r.resourceServer }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}
