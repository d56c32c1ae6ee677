/**
 * No privilege escalation through the management API (auth/escalation.ts): a token with one narrow scope cannot
 * take over a principal that holds more management scopes than it does, by group membership, by a user's
 * password or second factor, or by a client's secret or keys. Each case has its control: a caller holding every
 * scope the principal holds may do it.
 */
import { exportJWK, generateKeyPair } from 'jose';
import { userPermissions } from '@idp/db';
import { clientSecretDigest, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { bootstrapSystemTenant } from '../src/domain/bootstrap';
import { PEPPER, startHarness, type Harness } from './harness';

let h: Harness;
let T: number;
let adminRole: string;
const ALL = [...MANAGEMENT_SCOPES];
const path = (rest: string) => `/auth/admin/tenants/${T}${rest}`;

beforeAll(async () => {
  h = await startHarness('mgmtesc');
  T = h.tenants.a;
  adminRole = String(
    (
      await h.db.models.Role.create({
        tenantId: T,
        name: 'esc-admin',
        resourceServer: MANAGEMENT_AUDIENCE,
        permissions: ALL,
      })
    )._id,
  );
});
afterAll(async () => h.close());

const expectForbidden = (res: { status: number; body: { type?: string; detail?: string } }, what: string) => {
  expect([res.status, res.body.type]).toEqual([403, 'https://idp.dev/problems/forbidden']);
  expect(res.body.detail).toMatch(
    new RegExp(`^${what} holds management scopes the caller does not; missing: auth\\.[a-z.-]+( auth\\.[a-z.-]+)*$`),
  );
};

describe('no escalation through the management API', () => {
  it('auth.groups.update alone cannot add a user to a group whose roles grant more', async () => {
    const group = await h.db.models.Group.create({ tenantId: T, name: 'esc-admins', roleIds: [adminRole] });
    const helpdesk = await h.db.models.User.create({ tenantId: T, username: 'esc-helpdesk', passwordHash: 'x' });
    const member = path(`/groups/${group._id}/members/${helpdesk._id}`);
    expectForbidden(await h.call('put', member, await h.token(T, ['auth.groups.update'])), 'the group');
    expect((await userPermissions(h.db.models, T, String(helpdesk._id), MANAGEMENT_AUDIENCE)).size).toBe(0);
    // A group granting nothing on the management API is fine with the narrow scope; the full admin may add anyone.
    const plain = await h.db.models.Group.create({ tenantId: T, name: 'esc-plain' });
    expect(
      (
        await h.call(
          'put',
          path(`/groups/${plain._id}/members/${helpdesk._id}`),
          await h.token(T, ['auth.groups.update']),
        )
      ).status,
    ).toBe(204);
    expect((await h.call('put', member, await h.token(T, ALL))).status).toBe(204);
  });

  it('taking management scopes away is guarded like granting them (strip, reset the password, wait for the re-grant)', async () => {
    const role = await h.db.models.Role.create({
      tenantId: T,
      name: 'esc-strip',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ALL,
    });
    const group = await h.db.models.Group.create({ tenantId: T, name: 'esc-strip-group', roleIds: [String(role._id)] });
    const admin = await h.db.models.User.create({
      tenantId: T,
      username: 'esc-stripped',
      passwordHash: 'x',
      roleIds: [String(role._id)],
      groupIds: [String(group._id)],
    });
    expectForbidden(
      await h.call('delete', path(`/users/${admin._id}/roles/${role._id}`), await h.token(T, ['auth.roles.assign'])),
      'a role on the management API',
    );
    expectForbidden(
      await h.call(
        'delete',
        path(`/groups/${group._id}/members/${admin._id}`),
        await h.token(T, ['auth.groups.update']),
      ),
      'the group',
    );
    expectForbidden(
      await h.call('patch', path(`/roles/${role._id}`), await h.token(T, ['auth.roles.update']), { permissions: [] }),
      'a role on the management API',
    );
    expectForbidden(
      await h.call('delete', path(`/roles/${role._id}`), await h.token(T, ['auth.roles.delete'])),
      'a role on the management API',
    );
    expectForbidden(
      await h.call('delete', path(`/groups/${group._id}`), await h.token(T, ['auth.groups.delete'])),
      'the group',
    );
    expect((await userPermissions(h.db.models, T, String(admin._id), MANAGEMENT_AUDIENCE)).size).toBe(ALL.length);
    // The full admin may.
    expect((await h.call('delete', path(`/users/${admin._id}/roles/${role._id}`), await h.token(T, ALL))).status).toBe(
      204,
    );
  });

  it("auth.users.update alone cannot set an administrator's password or second factor", async () => {
    const admin = await h.db.models.User.create({
      tenantId: T,
      username: 'esc-root',
      passwordHash: 'unchanged',
      roleIds: [adminRole],
    });
    const narrow = await h.token(T, ['auth.users.update']);
    expectForbidden(
      await h.call('put', path(`/users/${admin._id}/password`), narrow, { password: 'attacker-chosen-pass' }),
      'the user',
    );
    expectForbidden(await h.call('delete', path(`/users/${admin._id}/totp`), narrow), 'the user');
    expectForbidden(await h.call('post', path(`/users/${admin._id}/totp`), narrow, {}), 'the user');
    expect((await h.db.models.User.findById(admin._id).lean())!.passwordHash).toBe('unchanged');
    // An ordinary user is the helpdesk's to manage; the full admin may manage the administrator.
    const ordinary = await h.db.models.User.create({ tenantId: T, username: 'esc-ordinary', passwordHash: 'x' });
    expect(
      (await h.call('put', path(`/users/${ordinary._id}/password`), narrow, { password: 'a-fine-new-password' }))
        .status,
    ).toBe(204);
    expect(
      (
        await h.call('put', path(`/users/${admin._id}/password`), await h.token(T, ALL), {
          password: 'a-fine-new-password',
        })
      ).status,
    ).toBe(204);
  });

  it("auth.clients.update alone cannot replace an administrator client's secret, auth method or keys", async () => {
    await h.db.models.Client.create({
      tenantId: T,
      clientId: 'esc-ops',
      numericId: 987_654,
      name: 'ops',
      tokenEndpointAuthMethod: 'client_secret_basic',
      secretDigest: 'unchanged',
      grantTypes: ['client_credentials'],
      responseTypes: [],
      redirectUris: [],
      roleIds: [adminRole],
    });
    const narrow = await h.token(T, ['auth.clients.update']);
    expectForbidden(await h.call('post', path('/clients/esc-ops/secret-rotations'), narrow, {}), 'the client');
    expectForbidden(
      await h.call('patch', path('/clients/esc-ops'), narrow, { tokenEndpointAuthMethod: 'client_secret_post' }),
      'the client',
    );
    expectForbidden(
      await h.call('patch', path('/clients/esc-ops'), narrow, {
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [await exportJWK((await generateKeyPair('ES256')).publicKey)] },
      }),
      'the client',
    );
    expect((await h.db.models.Client.findOne({ tenantId: T, clientId: 'esc-ops' }).lean())!.secretDigest).toBe(
      'unchanged',
    );
    // Other fields stay the narrow scope's; the full admin may rotate.
    expect((await h.call('patch', path('/clients/esc-ops'), narrow, { name: 'ops renamed' })).status).toBe(200);
    expect((await h.call('post', path('/clients/esc-ops/secret-rotations'), await h.token(T, ALL), {})).status).toBe(
      200,
    );
  });

  it('only a caller holding every management scope makes a first-party client or changes where its codes go', async () => {
    const FIRST = /^a first-party client .* holds management scopes the caller does not; missing: /;
    const create = await h.token(T, ['auth.clients.create']);
    const update = await h.token(T, ['auth.clients.update']);
    const firstParty = {
      name: 'First',
      grantTypes: ['authorization_code'],
      redirectUris: ['https://app.example/cb'],
      tokenEndpointAuthMethod: 'none',
      firstParty: true,
    };
    const refused = await h.call('post', path('/clients'), create, { ...firstParty, clientId: 'esc-first' });
    expect([refused.status, refused.body.detail]).toEqual([403, expect.stringMatching(FIRST)]);
    expect(await h.db.models.Client.exists({ tenantId: T, clientId: 'esc-first' })).toBeNull();
    expect(
      (await h.call('post', path('/clients'), create, { ...firstParty, clientId: 'esc-third', firstParty: false }))
        .status,
    ).toBe(201);
    expect(
      (await h.call('post', path('/clients'), await h.token(T, ALL), { ...firstParty, clientId: 'esc-first' })).status,
    ).toBe(201);
    // Where a first-party client's codes go, and turning a client first-party, are the full admin's.
    expect(
      (await h.call('patch', path('/clients/esc-first'), update, { redirectUris: ['https://evil.example/cb'] })).body
        .detail,
    ).toMatch(FIRST);
    expect((await h.call('patch', path('/clients/esc-third'), update, { firstParty: true })).body.detail).toMatch(
      FIRST,
    );
    expect(
      (
        await h.call('patch', path('/clients/esc-first'), update, {
          firstParty: false,
          redirectUris: ['https://evil.example/cb'],
        })
      ).body.detail,
    ).toMatch(FIRST);
    expect((await h.call('patch', path('/clients/esc-first'), update, { firstParty: false })).body.detail).toMatch(
      FIRST,
    );
    expect((await h.db.models.Client.findOne({ tenantId: T, clientId: 'esc-first' }).lean())!.redirectUris).toEqual([
      'https://app.example/cb',
    ]);
    expect((await h.call('patch', path('/clients/esc-first'), update, { name: 'First, renamed' })).status).toBe(200);
    expect(
      (await h.call('patch', path('/clients/esc-third'), update, { redirectUris: ['https://other.example/cb'] }))
        .status,
    ).toBe(200);
  });

  it("a client's saved grants go when it gains a redirect URI, new credentials, loses first-party standing or is deleted", async () => {
    const other = h.tenants.b;
    const grant = async (tenantId: number, id: string, clientId: string) =>
      h.db.models.OidcPayload.create({
        _id: `${tenantId}:Grant:${id}`,
        tenantId,
        model: 'Grant',
        payload: JSON.stringify({ jti: id, kind: 'Grant', clientId, accountId: 'u1', openid: { scope: 'openid' } }),
      });
    const left = async () =>
      (await h.db.models.OidcPayload.find({ model: 'Grant', tenantId: { $in: [T, other] } }, { _id: 1 }).lean())
        .map((d) => d._id)
        .sort();
    await h.db.models.Client.create({
      tenantId: T,
      clientId: 'esc.app',
      numericId: 876_001,
      name: 'app',
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      redirectUris: ['https://app.example/cb', 'https://app.example/cb2'],
    });
    await grant(T, 'g1', 'esc.app');
    await grant(T, 'g2', 'esc.app2'); // another client of the tenant
    await grant(other, 'g3', 'esc.app'); // the same clientId in another tenant
    const update = await h.token(T, ['auth.clients.update']);
    const full = await h.token(T, ALL);
    const kept = [`${T}:Grant:g2`, `${other}:Grant:g3`].sort();
    // Renaming, or dropping a redirect URI, keeps the consents.
    expect(
      (
        await h.call('patch', path('/clients/esc.app'), update, {
          name: 'renamed',
          redirectUris: ['https://app.example/cb'],
        })
      ).status,
    ).toBe(200);
    expect(await left()).toEqual([...kept, `${T}:Grant:g1`].sort());
    // A new target does not; neither do new credentials, the end of first-party standing, or deletion.
    expect(
      (
        await h.call('patch', path('/clients/esc.app'), update, {
          redirectUris: ['https://app.example/cb', 'https://evil.example/cb'],
        })
      ).status,
    ).toBe(200);
    expect(await left()).toEqual(kept);
    for (const [change, token] of [
      [{ tokenEndpointAuthMethod: 'client_secret_basic' }, full],
      [{ firstParty: true }, full],
      [{ firstParty: false }, full],
    ] as const) {
      await grant(T, 'g1', 'esc.app');
      expect([change, (await h.call('patch', path('/clients/esc.app'), token, change)).status]).toEqual([change, 200]);
      expect([change, await left()]).toEqual([
        change,
        change.firstParty === true ? [...kept, `${T}:Grant:g1`].sort() : kept,
      ]);
      if (change.firstParty === true) await h.db.models.OidcPayload.deleteOne({ _id: `${T}:Grant:g1` });
    }
    await grant(T, 'g1', 'esc.app');
    expect((await h.call('delete', path('/clients/esc.app'), await h.token(T, ['auth.clients.delete']))).status).toBe(
      204,
    );
    expect(await left()).toEqual(kept);
  });

  it('a system-tenant token with auth.clients.update alone cannot take over the bootstrap administrator client', async () => {
    const sys = h.tenants.system;
    await bootstrapSystemTenant(h.db.models, h.keyStore, {
      systemTenantId: sys,
      adminClientId: 'bootstrap-admin',
      adminClientSecret: 's'.repeat(40),
      clientSecretPepper: PEPPER,
    });
    const res = await h.call(
      'post',
      `/auth/admin/tenants/${sys}/clients/bootstrap-admin/secret-rotations`,
      await h.token(sys, ['auth.clients.update']),
      {},
    );
    expectForbidden(res, 'the client');
    expect(
      (await h.db.models.Client.findOne({ tenantId: sys, clientId: 'bootstrap-admin' }).lean())!.secretDigest,
    ).toBe(clientSecretDigest(PEPPER, 's'.repeat(40)));
  });
});
