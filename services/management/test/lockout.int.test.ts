/**
 * Lock-outs: a narrow admin could lock out a stronger one. A client holding only
 * `auth.clients.update auth.clients.delete` disabled (PATCH {"enabled":false}) and deleted a client holding every
 * management scope; users could be disabled and deleted the same way. Disabling, deleting, rotating the secret of,
 * or removing roles (or group memberships) from a client or user now needs every management scope the target holds,
 * and the system tenant's bootstrap administrator cannot be disabled or deleted through the API at all.
 */
import { clientPermissions, userPermissions } from '@idp/db';
import { MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { bootstrapSystemTenant } from '../src/domain/bootstrap';
import { BOOTSTRAP_ADMIN_CLIENT_ID, PEPPER, startHarness, type Harness } from './harness';

let h: Harness;
let T: number;
let adminRole: string;
let apiRole: string;
const ALL = [...MANAGEMENT_SCOPES];
const path = (rest: string) => `/auth/admin/tenants/${T}${rest}`;
let n = 0;

beforeAll(async () => {
  h = await startHarness('mgmtlockout');
  T = h.tenants.a;
  adminRole = String(
    (
      await h.db.models.Role.create({
        tenantId: T,
        name: 'lock-admin',
        resourceServer: MANAGEMENT_AUDIENCE,
        permissions: ALL,
      })
    )._id,
  );
  await h.db.models.ResourceServer.create({
    tenantId: T,
    identifier: 'https://orders.example',
    name: 'orders',
    scopes: ['orders:read'],
  });
  apiRole = String(
    (
      await h.db.models.Role.create({
        tenantId: T,
        name: 'lock-orders',
        resourceServer: 'https://orders.example',
        permissions: ['orders:read'],
      })
    )._id,
  );
});
afterAll(async () => h.close());

const expectForbidden = (res: { status: number; body: { type?: string; detail?: string } }, what: string) => {
  expect([res.status, res.body.type, res.body.detail]).toEqual([
    403,
    'https://idp.dev/problems/forbidden',
    expect.stringMatching(new RegExp(`^${what} holds management scopes the caller does not; missing: auth\\.`)),
  ]);
};

async function adminClient(roleIds = [adminRole, apiRole]) {
  const clientId = `lock-admin-${++n}`;
  await h.db.models.Client.create({
    tenantId: T,
    clientId,
    numericId: 700_000 + n,
    name: clientId,
    tokenEndpointAuthMethod: 'client_secret_basic',
    secretDigest: 'unchanged',
    grantTypes: ['client_credentials'],
    responseTypes: [],
    redirectUris: [],
    roleIds,
  });
  return clientId;
}
async function adminUser(extra: Record<string, unknown> = { roleIds: [adminRole, apiRole] }) {
  return String(
    (
      await h.db.models.User.create({
        tenantId: T,
        username: `lock-user-${++n}`,
        passwordHash: 'x',
        enabled: true,
        ...extra,
      })
    )._id,
  );
}
const clientDoc = (clientId: string) => h.db.models.Client.findOne({ tenantId: T, clientId }).lean();
const userDoc = (id: string) => h.db.models.User.findById(id).lean();

describe('clients', () => {
  it('auth.clients.update auth.clients.delete cannot disable or delete a client holding every management scope (the attack as reported)', async () => {
    const target = await adminClient();
    const narrow = await h.token(T, ['auth.clients.update', 'auth.clients.delete']);
    expectForbidden(await h.call('patch', path(`/clients/${target}`), narrow, { enabled: false }), 'the client');
    expectForbidden(await h.call('delete', path(`/clients/${target}`), narrow), 'the client');
    expectForbidden(await h.call('post', path(`/clients/${target}/secret-rotations`), narrow, {}), 'the client');
    // Taking its only grant type away locks it out as surely as disabling it.
    expectForbidden(
      await h.call('patch', path(`/clients/${target}`), narrow, {
        grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
      }),
      'the client',
    );
    const doc = await clientDoc(target);
    expect([doc?.enabled ?? true, doc?.grantTypes, doc?.secretDigest]).toEqual([
      true,
      ['client_credentials'],
      'unchanged',
    ]);
    expect(
      h.revocations.filter((r) => r.reason === 'client.deleted' || r.reason === 'client.delegation.disabled'),
    ).toHaveLength(0);
    // What does not lock it out stays the narrow scope's (renaming); the full admin may disable and delete it.
    expect((await h.call('patch', path(`/clients/${target}`), narrow, { name: 'renamed' })).status).toBe(200);
    const full = await h.token(T, ALL);
    expect((await h.call('patch', path(`/clients/${target}`), full, { enabled: false })).status).toBe(200);
    expect((await h.call('delete', path(`/clients/${target}`), full)).status).toBe(204);
  });

  it('the narrow scopes still manage a client that holds no more than they do', async () => {
    const narrowRole = String(
      (
        await h.db.models.Role.create({
          tenantId: T,
          name: 'lock-narrow',
          resourceServer: MANAGEMENT_AUDIENCE,
          permissions: ['auth.clients.update'],
        })
      )._id,
    );
    const peer = await adminClient([narrowRole, apiRole]);
    const narrow = await h.token(T, ['auth.clients.update', 'auth.clients.delete']);
    expect((await h.call('patch', path(`/clients/${peer}`), narrow, { enabled: false })).status).toBe(200);
    expect((await h.call('delete', path(`/clients/${peer}`), narrow)).status).toBe(204);
  });

  it('auth.roles.assign alone cannot remove any role, management or not, from a stronger client', async () => {
    const target = await adminClient();
    const assign = await h.token(T, ['auth.roles.assign']);
    expectForbidden(await h.call('delete', path(`/clients/${target}/roles/${apiRole}`), assign), 'the client');
    expectForbidden(
      await h.call('delete', path(`/clients/${target}/roles/${adminRole}`), assign),
      'a role on the management API',
    );
    expect((await clientPermissions(h.db.models, T, target, MANAGEMENT_AUDIENCE)).size).toBe(ALL.length);
    expect((await clientDoc(target))?.roleIds).toEqual([adminRole, apiRole]);
    // An ordinary client's roles are the role assigner's; the full admin may strip the administrator.
    const plain = await adminClient([apiRole]);
    expect((await h.call('delete', path(`/clients/${plain}/roles/${apiRole}`), assign)).status).toBe(204);
    expect((await h.call('delete', path(`/clients/${target}/roles/${apiRole}`), await h.token(T, ALL))).status).toBe(
      204,
    );
  });
});

describe('users', () => {
  it('auth.users.update auth.users.delete cannot disable, rename or delete a user holding every management scope', async () => {
    const target = await adminUser();
    const before = await userDoc(target);
    const narrow = await h.token(T, ['auth.users.update', 'auth.users.delete']);
    expectForbidden(await h.call('patch', path(`/users/${target}`), narrow, { enabled: false }), 'the user');
    expectForbidden(await h.call('patch', path(`/users/${target}`), narrow, { username: 'renamed-away' }), 'the user');
    expectForbidden(await h.call('delete', path(`/users/${target}`), narrow), 'the user');
    const after = await userDoc(target);
    expect([after?.enabled, after?.username]).toEqual([true, before?.username]);
    expect(h.revocations.filter((r) => r.subject === target)).toHaveLength(0);
    // Other fields stay the narrow scope's; the full admin may disable and delete the administrator.
    expect((await h.call('patch', path(`/users/${target}`), narrow, { claims: { name: 'Root' } })).status).toBe(200);
    const full = await h.token(T, ALL);
    expect((await h.call('patch', path(`/users/${target}`), full, { enabled: false })).status).toBe(200);
    expect((await h.call('delete', path(`/users/${target}`), full)).status).toBe(204);
  });

  it('an administrator through a group is guarded the same way, and its membership is too', async () => {
    const group = String(
      (await h.db.models.Group.create({ tenantId: T, name: 'lock-admins', roleIds: [adminRole] }))._id,
    );
    const target = await adminUser({ groupIds: [group] });
    const narrow = await h.token(T, ['auth.users.update', 'auth.users.delete', 'auth.groups.update']);
    expectForbidden(await h.call('patch', path(`/users/${target}`), narrow, { enabled: false }), 'the user');
    expectForbidden(await h.call('delete', path(`/users/${target}`), narrow), 'the user');
    expectForbidden(await h.call('delete', path(`/groups/${group}/members/${target}`), narrow), 'the group');
    expect((await userPermissions(h.db.models, T, target, MANAGEMENT_AUDIENCE)).size).toBe(ALL.length);
  });

  it('auth.roles.assign alone cannot remove any role from a stronger user or group', async () => {
    const target = await adminUser();
    const group = String(
      (await h.db.models.Group.create({ tenantId: T, name: 'lock-admins-2', roleIds: [adminRole, apiRole] }))._id,
    );
    const assign = await h.token(T, ['auth.roles.assign']);
    expectForbidden(await h.call('delete', path(`/users/${target}/roles/${apiRole}`), assign), 'the user');
    expectForbidden(await h.call('delete', path(`/groups/${group}/roles/${apiRole}`), assign), 'the group');
    expect((await userDoc(target))?.roleIds).toEqual([adminRole, apiRole]);
    // A user without management scopes: the role assigner's to manage.
    const plain = await adminUser({ roleIds: [apiRole] });
    expect((await h.call('delete', path(`/users/${plain}/roles/${apiRole}`), assign)).status).toBe(204);
  });
});

describe("the system tenant's bootstrap administrator", () => {
  it('cannot be disabled or deleted through the API, by a narrow caller or by a full system administrator', async () => {
    const sys = h.tenants.system;
    await bootstrapSystemTenant(h.db.models, h.keyStore, {
      systemTenantId: sys,
      adminClientId: BOOTSTRAP_ADMIN_CLIENT_ID,
      adminClientSecret: 's'.repeat(40),
      clientSecretPepper: PEPPER,
    });
    const url = `/auth/admin/tenants/${sys}/clients/${BOOTSTRAP_ADMIN_CLIENT_ID}`;
    const narrow = await h.token(sys, ['auth.clients.update', 'auth.clients.delete']);
    expectForbidden(await h.call('patch', url, narrow, { enabled: false }), 'the client');
    expectForbidden(await h.call('delete', url, narrow), 'the client');
    const full = await h.token(sys, ALL);
    for (const res of [await h.call('patch', url, full, { enabled: false }), await h.call('delete', url, full)]) {
      expect([res.status, res.body.type, res.body.detail]).toEqual([
        409,
        'https://idp.dev/problems/conflict',
        expect.stringMatching(/^the bootstrap administrator cannot be (disabled|deleted) through the API/),
      ]);
    }
    expect(
      (await h.db.models.Client.findOne({ tenantId: sys, clientId: BOOTSTRAP_ADMIN_CLIENT_ID }).lean())?.enabled,
    ).toBe(true);
    // Another system administrator client is the full administrator's to disable and delete.
    await h.db.models.Client.create({
      tenantId: sys,
      clientId: 'second-admin',
      numericId: 799_999,
      name: 'second',
      tokenEndpointAuthMethod: 'client_secret_basic',
      secretDigest: 'x',
      grantTypes: ['client_credentials'],
      responseTypes: [],
      redirectUris: [],
      roleIds: [],
    });
    expect(
      (await h.call('patch', `/auth/admin/tenants/${sys}/clients/second-admin`, full, { enabled: false })).status,
    ).toBe(200);
    expect((await h.call('delete', `/auth/admin/tenants/${sys}/clients/second-admin`, full)).status).toBe(204);
  });
});
