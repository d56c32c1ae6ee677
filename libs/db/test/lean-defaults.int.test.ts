/**
 * A document written without fields every current writer sets (by hand, by an older version, by a restore) reads
 * with the schema's defaults through `lean()`, so no reader fails on it: a user without `groupIds` made the token
 * endpoint answer 500 when its permissions were read.
 */
import { Types } from 'mongoose';
import { userMemberships, userPermissions } from '@idp/db';
import { openTestDatabase } from '@idp/testing';

// The models as every service gets them (connectDatabase), on a database of this file's own.
let db: Awaited<ReturnType<typeof openTestDatabase>>;
const tenantId = 77;

beforeAll(async () => {
  db = await openTestDatabase('lean_defaults');
});
afterAll(async () => {
  await db.connection.dropDatabase();
  await db.close();
});

it('a user stored without roleIds and groupIds reads with empty lists, and its permissions and memberships are empty', async () => {
  const _id = new Types.ObjectId();
  await db.models.User.collection.insertOne({ _id, tenantId, username: 'by-hand', passwordHash: 'x' });

  const user = await db.models.User.findOne({ tenantId, _id }).lean();
  expect(user).toMatchObject({ roleIds: [], groupIds: [], enabled: true, claims: {} });
  await expect(userPermissions(db.models, tenantId, String(_id), 'https://api.example')).resolves.toEqual(new Set());
  await expect(userMemberships(db.models, tenantId, { roleIds: undefined, groupIds: undefined })).resolves.toEqual({
    groups: [],
    roles: [],
  });
});

it('a role reached through a group without roleIds, and a role without permissions, give no permission instead of an error', async () => {
  const role = new Types.ObjectId();
  const group = new Types.ObjectId();
  const user = new Types.ObjectId();
  await db.models.Role.collection.insertOne({
    _id: role,
    tenantId,
    name: 'bare',
    resourceServer: 'https://api.example',
  });
  await db.models.Group.collection.insertOne({ _id: group, tenantId, name: 'bare-group' });
  await db.models.User.collection.insertOne({
    _id: user,
    tenantId,
    username: 'grouped',
    passwordHash: 'x',
    roleIds: [String(role)],
    groupIds: [String(group)],
  });
  await expect(userPermissions(db.models, tenantId, String(user), 'https://api.example')).resolves.toEqual(new Set());
  await expect(
    userMemberships(db.models, tenantId, { roleIds: [String(role)], groupIds: [String(group)] }),
  ).resolves.toEqual({
    groups: ['bare-group'],
    roles: [{ name: 'bare', resourceServer: 'https://api.example' }],
  });
});

it('an inclusive projection returns only what it names; a stored value is never replaced by a default', async () => {
  const _id = new Types.ObjectId();
  await db.models.User.collection.insertOne({
    _id,
    tenantId,
    username: 'projected',
    passwordHash: 'x',
    enabled: false,
  });
  const projected = await db.models.User.findOne({ tenantId, _id }, { roleIds: 1 }).lean();
  expect(Object.keys(projected ?? {}).sort()).toEqual(['_id', 'roleIds']);
  const many = await db.models.User.find({ tenantId, _id }).lean();
  expect(many[0]).toMatchObject({ enabled: false, groupIds: [] });
  // A hydrated (non-lean) read is mongoose's own business and unchanged.
  expect((await db.models.User.findById(_id))?.groupIds).toHaveLength(0);
});
