/**
 * Removing upstream links (an administrator unlinks an identity, or removes the provider): the group and role
 * memberships the provider's mappers granted go with them, so that cutting off a compromised provider also takes its
 * people out of what it put them in. Memberships an administrator gave stay (the link records only what the provider
 * added). Read and written back, not `$pull`ed: the MongoDB-compatible store used in tests ignores a conditional pull.
 */
import type { Models } from '@idp/db';

export async function removeUpstreamLinks(
  models: Models,
  filter: { tenantId: number; provider?: string; userId?: string },
): Promise<number> {
  const links = await models.UpstreamLink.find(filter).lean();
  if (!links.length) return 0;
  await models.UpstreamLink.deleteMany({ tenantId: filter.tenantId, _id: { $in: links.map((l) => l._id) } });
  for (const link of links) {
    if (!link.grantedGroupIds.length && !link.grantedRoleIds.length) continue;
    const user = await models.User.findOne(
      { tenantId: filter.tenantId, _id: link.userId },
      { groupIds: 1, roleIds: 1 },
    ).lean();
    if (!user) continue;
    await models.User.updateOne(
      { tenantId: filter.tenantId, _id: link.userId },
      {
        $set: {
          groupIds: user.groupIds.filter((id) => !link.grantedGroupIds.includes(id)),
          roleIds: user.roleIds.filter((id) => !link.grantedRoleIds.includes(id)),
        },
      },
    );
  }
  return links.length;
}
