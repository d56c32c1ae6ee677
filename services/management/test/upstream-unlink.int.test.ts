/**
 * Removing upstream links against the real store (one database for this file): the link goes, and with it exactly
 * the group and role memberships that provider's mappers granted (recorded on the link); what an administrator gave
 * and what another provider granted stay, and another tenant's rows are not touched.
 */
import type { Database } from '@idp/db';
import { DUMMY_PASSWORD_HASH } from '@idp/tokens';
import { openTestDatabase } from '@idp/testing';
import { removeUpstreamLinks } from '../src/domain/upstream-unlink';

const T = 6201;
const OTHER = 6202;

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase('upstreamunlink');
});
afterAll(async () => {
  await db.close();
});

async function ids(tenantId: number, kind: 'Group' | 'Role', names: string[]): Promise<string[]> {
  const made =
    kind === 'Group'
      ? await Promise.all(names.map((name) => db.models.Group.create({ tenantId, name })))
      : await Promise.all(
          names.map((name) => db.models.Role.create({ tenantId, name, resourceServer: 'https://api.example' })),
        );
  return made.map((d) => String(d._id));
}

async function user(tenantId: number, username: string, groupIds: string[], roleIds: string[]) {
  const u = await db.models.User.create({ tenantId, username, passwordHash: DUMMY_PASSWORD_HASH, groupIds, roleIds });
  return String(u._id);
}

const memberships = async (tenantId: number, userId: string) => {
  const u = await db.models.User.findOne({ tenantId, _id: userId }, { groupIds: 1, roleIds: 1 }).lean();
  return { groupIds: [...(u?.groupIds ?? [])].sort(), roleIds: [...(u?.roleIds ?? [])].sort() };
};
const sorted = (...xs: string[]) => [...xs].sort();

it('removes the link and exactly the memberships its provider granted', async () => {
  const [adminGroup, corpGroup, corpGroup2, partnerGroup] = await ids(T, 'Group', ['staff', 'eng', 'ops', 'partners']);
  const [adminRole, corpRole] = await ids(T, 'Role', ['reader', 'deployer']);
  const alice = await user(T, 'alice', [adminGroup!, corpGroup!, corpGroup2!, partnerGroup!], [adminRole!, corpRole!]);
  const bob = await user(T, 'bob', [adminGroup!, corpGroup!], []);
  await db.models.UpstreamLink.create([
    {
      tenantId: T,
      provider: 'corp',
      subject: 'a-1',
      issuer: 'https://corp.example',
      userId: alice,
      linkedBy: 'jit',
      grantedGroupIds: [corpGroup, corpGroup2],
      grantedRoleIds: [corpRole],
    },
    {
      tenantId: T,
      provider: 'partner',
      subject: 'a-2',
      issuer: 'https://partner.example',
      userId: alice,
      linkedBy: 'admin',
      grantedGroupIds: [partnerGroup],
      grantedRoleIds: [],
    },
    // Bob's engineers membership was an administrator's: his link records no grant.
    { tenantId: T, provider: 'corp', subject: 'b-1', issuer: 'https://corp.example', userId: bob, linkedBy: 'admin' },
  ]);
  // Another tenant: same provider alias, a user with the same ids granted.
  const [otherGroup] = await ids(OTHER, 'Group', ['eng']);
  const carol = await user(OTHER, 'carol', [otherGroup!], []);
  await db.models.UpstreamLink.create({
    tenantId: OTHER,
    provider: 'corp',
    subject: 'c-1',
    issuer: 'https://corp.example',
    userId: carol,
    linkedBy: 'jit',
    grantedGroupIds: [otherGroup],
  });

  // An administrator unlinks Alice's corp identity.
  expect(await removeUpstreamLinks(db.models, { tenantId: T, provider: 'corp', userId: alice })).toBe(1);
  expect(await memberships(T, alice)).toEqual({
    groupIds: sorted(adminGroup!, partnerGroup!),
    roleIds: [adminRole],
  });
  expect(await memberships(T, bob)).toEqual({ groupIds: sorted(adminGroup!, corpGroup!), roleIds: [] });
  expect((await db.models.UpstreamLink.find({ tenantId: T }).lean()).map((l) => l.subject).sort()).toEqual([
    'a-2',
    'b-1',
  ]);

  // The corp provider is removed: Bob's link goes, his administrator-given membership stays.
  expect(await removeUpstreamLinks(db.models, { tenantId: T, provider: 'corp' })).toBe(1);
  expect(await memberships(T, bob)).toEqual({ groupIds: sorted(adminGroup!, corpGroup!), roleIds: [] });

  // Everything of Alice's: the partner's grant goes too.
  expect(await removeUpstreamLinks(db.models, { tenantId: T, userId: alice })).toBe(1);
  expect(await memberships(T, alice)).toEqual({ groupIds: [adminGroup], roleIds: [adminRole] });
  expect(await db.models.UpstreamLink.countDocuments({ tenantId: T })).toBe(0);
  expect(await removeUpstreamLinks(db.models, { tenantId: T, provider: 'corp' })).toBe(0);

  // The other tenant is untouched.
  expect(await memberships(OTHER, carol)).toEqual({ groupIds: [otherGroup], roleIds: [] });
  expect(await db.models.UpstreamLink.countDocuments({ tenantId: OTHER })).toBe(1);
});
