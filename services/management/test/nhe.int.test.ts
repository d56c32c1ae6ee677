/**
 * NHE registrations, delegation policies, the delegation dry run and the read-only token audit, against a real
 * database; every response validated against the OpenAPI document.
 */
import { Types } from 'mongoose';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  h = await startHarness('mgmtnhe', { a: { maxNhePerTenant: 4 } });
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const nhePath = (t: number, rest = '') => `/auth/admin/tenants/${t}/non-human-entities${rest}`;
const nhe = (identifier: string, extra: Record<string, unknown> = {}) => ({
  identifier,
  type: 'llm-assistive',
  allowedScopes: ['orders:read'],
  operator: 'ops',
  ...extra,
});

describe('NHE registrations', () => {
  let id: string;

  it('creates with defaults, Location and a write that invalidates caches', async () => {
    const res = await h.call('post', nhePath(A), adminA, nhe('agent-1', { model: { name: 'gpt', version: '5' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      identifier: 'agent-1',
      maxTokenLifetime: 300,
      enabled: true,
      model: { name: 'gpt', version: '5' },
    });
    id = res.body.id;
    expect(res.headers.location).toBe(`${nhePath(A)}/${id}`);
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'nhe', id });
  });

  it.each([
    ['identifier with a space', { identifier: 'bad id' }, 'body.identifier'],
    ['identifier with a colon (nhe: prefixing)', { identifier: 'a:b' }, 'body.identifier'],
    ['type outside allowedNheTypes', { type: 'robot' }, 'body.type'],
    ['maxTokenLifetime above the hard maximum', { maxTokenLifetime: 901 }, 'body.maxTokenLifetime'],
    ['maxTokenLifetime not an integer', { maxTokenLifetime: 1.5 }, 'body.maxTokenLifetime'],
    ['a scope with a space', { allowedScopes: ['a b'] }, 'body.allowedScopes.0'],
    ['missing operator', { operator: undefined }, 'body.operator'],
    ['unknown model field', { model: { name: 'x', weights: 'y' } }, 'body.model'],
    ['enabled not boolean', { enabled: 'yes' }, 'body.enabled'],
    ['an unknown field', { owner: 'me' }, 'body'],
  ])('400 for %s, naming %s', async (_label, change, name) => {
    const res = await h.call('post', nhePath(A), adminA, nhe('agent-x', change));
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('https://idp.dev/problems/validation-error');
    expect(invalidNames(res)).toContain(name);
  });

  it('409 for a duplicate identifier; the same identifier is fine in another tenant', async () => {
    expect((await h.call('post', nhePath(A), adminA, nhe('agent-1'))).status).toBe(409);
    expect((await h.call('post', nhePath(B), adminB, nhe('agent-1'))).status).toBe(201);
  });

  it("a registration without maxTokenLifetime gets the tenant's defaultMaxTokenLifetime", async () => {
    expect(
      (
        await h.call('patch', `/auth/admin/tenants/${B}`, adminB, {
          settings: { nhe: { defaultMaxTokenLifetime: 240 } },
        })
      ).status,
    ).toBe(200);
    try {
      const res = await h.call('post', nhePath(B), adminB, nhe('agent-default-ttl'));
      expect([res.status, res.body.maxTokenLifetime]).toEqual([201, 240]);
      expect((await h.call('delete', nhePath(B, `/${res.body.id}`), adminB)).status).toBe(204);
    } finally {
      await h.call('patch', `/auth/admin/tenants/${B}`, adminB, {
        settings: { nhe: { defaultMaxTokenLifetime: 300 } },
      });
    }
  });

  it('refuses creation beyond maxNhePerTenant with a problem naming the limit', async () => {
    for (const i of [2, 3, 4])
      expect(
        (
          await h.call(
            'post',
            nhePath(A),
            adminA,
            nhe(`agent-${i}`, { enabled: i !== 3, type: i === 4 ? 'automated-pipeline' : 'llm-assistive' }),
          )
        ).status,
      ).toBe(201);
    const over = await h.call('post', nhePath(A), adminA, nhe('agent-5'));
    expect(over.status).toBe(409);
    expect(over.body.type).toBe('https://idp.dev/problems/limit-exceeded');
    expect(over.body.limit).toEqual({ name: 'settings.nhe.maxNhePerTenant', value: 4 });
  });

  it('holds maxNhePerTenant under concurrent creates', async () => {
    const before = await h.db.models.Nhe.countDocuments({ tenantId: B });
    await h.db.models.Tenant.updateOne({ _id: B }, { $set: { 'settings.nhe.maxNhePerTenant': before + 2 } });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => h.call('post', nhePath(B), adminB, nhe(`race-${i}`))),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409, 409]);
    expect(await h.db.models.Nhe.countDocuments({ tenantId: B })).toBe(before + 2);
    const { maxNhePerTenant: _limit, ...rest } = (await h.db.models.Tenant.findById(B).lean())!.settings
      .nhe as unknown as Record<string, unknown>;
    void _limit;
    await h.db.models.Nhe.deleteMany({ tenantId: B, identifier: /^race-/ });
    await h.db.models.Tenant.updateOne({ _id: B }, { $set: { 'settings.nhe': rest } });
  });

  it('holds a lowered maxNhePerTenant under concurrent creates, though records sit in slots above the new limit', async () => {
    const sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
    const created = await h.call('post', '/auth/admin/tenants', sys, {
      name: 'quota',
      settings: { nhe: { enabled: true, maxNhePerTenant: 10 } },
    });
    const T = created.body.id as number;
    const admin = await h.token(T, [...MANAGEMENT_SCOPES]);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await h.call('post', nhePath(T), admin, nhe(`slot-${i}`))).body.id);
    for (const id of ids.slice(0, 3)) expect((await h.call('delete', nhePath(T, `/${id}`), admin)).status).toBe(204);
    // Left: slots 3, 4 and 5. The quota drops to 4, so 4 and 5 are above it; one more registration fits.
    expect(
      (await h.call('patch', `/auth/admin/tenants/${T}`, sys, { settings: { nhe: { maxNhePerTenant: 4 } } })).status,
    ).toBe(200);
    const results = await Promise.all([1, 2, 3, 4].map((i) => h.call('post', nhePath(T), admin, nhe(`late-${i}`))));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await h.db.models.Nhe.countDocuments({ tenantId: T })).toBe(4);
    const slots = (await h.db.models.Nhe.find({ tenantId: T }, { slotKey: 1 }).lean()).map((d) => d.slotKey).sort();
    expect(slots).toEqual([0, 1, 2, 3].map((n) => `${T}:${n}`));
    await h.db.models.Nhe.deleteMany({ tenantId: T });
    expect((await h.call('delete', `/auth/admin/tenants/${T}`, sys)).status).toBe(204);
  });

  it('a lowered quota: a create interleaved with a delete and another create still ends below the limit, without a 500', async () => {
    const sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
    const T = (
      await h.call('post', '/auth/admin/tenants', sys, {
        name: 'quota-race',
        settings: { nhe: { enabled: true, maxNhePerTenant: 10 } },
      })
    ).body.id as number;
    const admin = await h.token(T, [...MANAGEMENT_SCOPES]);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await h.call('post', nhePath(T), admin, nhe(`s-${i}`))).body.id);
    for (const id of ids.slice(0, 3)) await h.call('delete', nhePath(T, `/${id}`), admin);
    await h.call('patch', `/auth/admin/tenants/${T}`, sys, { settings: { nhe: { maxNhePerTenant: 4 } } });
    // Left: s-3 in slot 3, s-4 and s-5 above the new limit. Create A moves s-4 into slot 0; right then an admin
    // deletes s-4 and create C moves s-5 into slot 0 and takes slot 1; A goes on from what it had seen.
    const Nhe = h.db.models.Nhe;
    const updateOne = Nhe.updateOne.bind(Nhe);
    const during: number[] = [];
    let interleaved = false;
    const spy = jest.spyOn(Nhe, 'updateOne').mockImplementation(((...args: Parameters<typeof Nhe.updateOne>) =>
      updateOne(...args).then(async (r) => {
        if (!interleaved) {
          interleaved = true;
          during.push(
            (await h.call('delete', nhePath(T, `/${ids[4]}`), admin)).status,
            (await h.call('post', nhePath(T), admin, nhe('c'))).status,
          );
        }
        return r;
      })) as unknown as typeof Nhe.updateOne);
    const a = await h.call('post', nhePath(T), admin, nhe('a'));
    spy.mockRestore();
    expect([a.status, ...during]).toEqual([201, 204, 201]);
    const slots = (await Nhe.find({ tenantId: T }, { slotKey: 1 }).lean()).map((d) => d.slotKey).sort();
    expect(slots).toEqual([0, 1, 2, 3].map((n) => `${T}:${n}`));
    await Nhe.deleteMany({ tenantId: T });
    expect((await h.call('delete', `/auth/admin/tenants/${T}`, sys)).status).toBe(204);
  });

  it('lists with filters and a stable cursor, and counts with the same filters', async () => {
    const page1 = await h.call('get', nhePath(A, '?limit=3'), adminA);
    expect(page1.body.items.map((i: { identifier: string }) => i.identifier)).toEqual([
      'agent-1',
      'agent-2',
      'agent-3',
    ]);
    const page2 = await h.call('get', nhePath(A, `?limit=3&cursor=${page1.body.nextCursor}`), adminA);
    expect(page2.body.items.map((i: { identifier: string }) => i.identifier)).toEqual(['agent-4']);
    expect(page2.body.nextCursor).toBeNull();
    const disabled = await h.call('get', nhePath(A, '?enabled=false'), adminA);
    expect(disabled.body.items.map((i: { identifier: string }) => i.identifier)).toEqual(['agent-3']);
    const typed = await h.call('get', nhePath(A, '?type=automated-pipeline'), adminA);
    expect(typed.body.items.map((i: { identifier: string }) => i.identifier)).toEqual(['agent-4']);
    const prefixed = await h.call('get', nhePath(A, '?identifierPrefix=agent-'), adminA);
    expect(prefixed.body.items).toHaveLength(4);
    expect((await h.call('get', nhePath(A, '?identifierPrefix=agent.'), adminA)).body.items).toHaveLength(0);
    expect((await h.call('get', nhePath(A, '/count'), adminA)).body).toEqual({ count: 4 });
    expect((await h.call('get', nhePath(A, '/count?enabled=true&type=llm-assistive'), adminA)).body).toEqual({
      count: 2,
    });
    expect((await h.call('get', nhePath(B, '/count'), adminB)).body).toEqual({ count: 1 });
  });

  it.each([
    ['?enabled=yes', 'query.enabled'],
    ['?limit=0', 'query.limit'],
    ['?limit=201', 'query.limit'],
    ['?cursor=xyz', 'query.cursor'],
    ['?sort=name', 'query'],
  ])('400 for list query %s', async (q, name) => {
    const res = await h.call('get', nhePath(A, q), adminA);
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain(name);
  });

  it('gets by id; unknown and malformed ids are 404', async () => {
    expect((await h.call('get', nhePath(A, `/${id}`), adminA)).body.identifier).toBe('agent-1');
    expect((await h.call('get', nhePath(A, `/${new Types.ObjectId().toHexString()}`), adminA)).status).toBe(404);
    expect((await h.call('get', nhePath(A, '/not-an-id'), adminA)).status).toBe(404);
  });

  it('patches; the identifier is immutable; disabling revokes issued tokens', async () => {
    const res = await h.call('patch', nhePath(A, `/${id}`), adminA, {
      allowedScopes: ['orders:read', 'orders:write'],
      maxTokenLifetime: 120,
      model: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowedScopes: ['orders:read', 'orders:write'], maxTokenLifetime: 120 });
    expect(res.body.model).toBeUndefined();
    expect(invalidNames(await h.call('patch', nhePath(A, `/${id}`), adminA, { identifier: 'renamed' }))).toContain(
      'body',
    );
    expect(invalidNames(await h.call('patch', nhePath(A, `/${id}`), adminA, { maxTokenLifetime: 5000 }))).toContain(
      'body.maxTokenLifetime',
    );
    expect(invalidNames(await h.call('patch', nhePath(A, `/${id}`), adminA, { type: 'robot' }))).toContain('body.type');
    const disabled = await h.call('patch', nhePath(A, `/${id}`), adminA, { enabled: false });
    expect(disabled.body.enabled).toBe(false);
    expect(h.revocations).toContainEqual(
      expect.objectContaining({
        tenantId: A,
        nheIdentifier: 'agent-1',
        reason: 'nhe.disabled',
        maxTokenLifetimeSeconds: 900,
      }),
    );
    await h.call('patch', nhePath(A, `/${id}`), adminA, { enabled: true });
  });

  it("tenant A's token cannot read, change, count or delete tenant B's NHE, even by id under its own tenant", async () => {
    const bId = (await h.call('get', nhePath(B), adminB)).body.items[0].id as string;
    expect((await h.call('get', nhePath(B, `/${bId}`), adminA)).status).toBe(404);
    expect((await h.call('get', nhePath(B, '/count'), adminA)).status).toBe(404);
    expect((await h.call('get', nhePath(A, `/${bId}`), adminA)).status).toBe(404);
    expect((await h.call('patch', nhePath(A, `/${bId}`), adminA, { enabled: false })).status).toBe(404);
    expect((await h.call('delete', nhePath(A, `/${bId}`), adminA)).status).toBe(404);
    expect(await h.db.models.Nhe.countDocuments({ tenantId: B, enabled: true })).toBe(1);
    expect(
      (await h.call('get', nhePath(B, `/${bId}`), await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]))).status,
    ).toBe(200);
  });
});

describe('delegation policies and the dry run', () => {
  let nheId: string;
  let userId: string;
  let groupId: string;
  let policyId: string;
  const pol = (rest = '') => nhePath(A, `/${nheId}/delegation-policies${rest}`);

  beforeAll(async () => {
    nheId = (await h.call('get', nhePath(A, '?identifierPrefix=agent-1'), adminA)).body.items[0].id;
    const role = await h.db.models.Role.create({
      tenantId: A,
      name: 'orders',
      resourceServer: 'https://orders.example',
      permissions: ['orders:read', 'orders:write'],
    });
    const group = await h.db.models.Group.create({ tenantId: A, name: 'g' });
    groupId = String(group._id);
    const user = await h.db.models.User.create({
      tenantId: A,
      username: 'u',
      passwordHash: 'x',
      roleIds: [String(role._id)],
      groupIds: [groupId],
    });
    userId = String(user._id);
    await h.db.models.ResourceServer.create({
      tenantId: A,
      identifier: 'https://orders.example',
      name: 'orders',
      scopes: ['orders:read', 'orders:write'],
      config: { accessToken: { lifetime: 600 }, nhe: { acceptDelegationTokens: true } },
    });
    await h.db.models.Client.create({
      tenantId: A,
      numericId: A * 10,
      clientId: 'app',
      name: 'app',
      config: { nhe: { delegationEnabled: true } },
    });
  });

  it('creates a policy for a user that exists; refuses missing targets, duplicates and long lifetimes', async () => {
    const res = await h.call('post', pol(), adminA, {
      target: { type: 'user', id: userId },
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 200,
    });
    expect(res.status).toBe(201);
    policyId = res.body.id;
    expect(res.body).toMatchObject({
      nheId,
      target: { type: 'user', id: userId },
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 200,
    });
    expect(res.headers.location).toBe(pol(`/${policyId}`));
    expect(
      (await h.call('post', pol(), adminA, { target: { type: 'user', id: userId }, allowedScopes: [] })).status,
    ).toBe(409);
    const ghost = await h.call('post', pol(), adminA, {
      target: { type: 'group', id: new Types.ObjectId().toHexString() },
      allowedScopes: [],
    });
    expect([ghost.status, invalidNames(ghost)]).toEqual([400, ['body.target.id']]);
    expect(
      invalidNames(await h.call('post', pol(), adminA, { target: { type: 'role', id: groupId }, allowedScopes: [] })),
    ).toContain('body.target.type');
    expect(
      invalidNames(
        await h.call('post', pol(), adminA, {
          target: { type: 'group', id: groupId },
          allowedScopes: [],
          maxTokenLifetime: 901,
        }),
      ),
    ).toContain('body.maxTokenLifetime');
    expect(
      (await h.call('post', pol(), adminA, { target: { type: 'group', id: groupId }, allowedScopes: ['orders:write'] }))
        .status,
    ).toBe(201);
  });

  it('a group of another tenant is not a valid target', async () => {
    const foreign = await h.db.models.Group.create({ tenantId: B, name: 'gb' });
    const res = await h.call('post', pol(), adminA, {
      target: { type: 'group', id: String(foreign._id) },
      allowedScopes: [],
    });
    expect(invalidNames(res)).toEqual(['body.target.id']);
  });

  it('lists, filters, gets and patches', async () => {
    expect((await h.call('get', pol(), adminA)).body.items).toHaveLength(2);
    expect((await h.call('get', pol('?targetType=group'), adminA)).body.items).toHaveLength(1);
    expect((await h.call('get', pol(`/${policyId}`), adminA)).body.target.id).toBe(userId);
    const patched = await h.call('patch', pol(`/${policyId}`), adminA, {
      allowedScopes: ['orders:read', 'orders:write'],
      maxTokenLifetime: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.maxTokenLifetime).toBeUndefined();
    expect(h.revocations).toContainEqual(
      expect.objectContaining({ nheIdentifier: 'agent-1', subject: userId, reason: 'policy.updated' }),
    );
    expect(
      (await h.call('patch', pol(`/${policyId}`), adminA, { target: { type: 'group', id: groupId } })).status,
    ).toBe(409);
    expect((await h.call('get', pol(`/${new Types.ObjectId().toHexString()}`), adminA)).status).toBe(404);
  });

  it('the dry run returns the decision record and mints nothing', async () => {
    const audits = await h.db.models.TokenAudit.countDocuments();
    // 'app' is a third-party client: the dry run caps it at the scopes the user consented to (consentedScope).
    const sim = (body: Record<string, string>) =>
      h.call('post', nhePath(A, `/${nheId}/delegation-simulations`), adminA, {
        userId,
        clientId: 'app',
        resource: 'https://orders.example',
        ...body,
      });
    const granted = await sim({
      scope: 'orders:read orders:write offline_access',
      consentedScope: 'orders:read orders:write',
    });
    expect(granted.status).toBe(200);
    expect(granted.body.decision).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read', 'orders:write'],
      ttl: 120,
      ttlSetBy: 'nhe.maxTokenLifetime',
      removed: [{ scope: 'offline_access', layer: 'no-refresh' }],
    });
    expect(
      (await sim({ scope: 'orders:read orders:write', consentedScope: 'orders:read' })).body.decision,
    ).toMatchObject({
      outcome: 'granted',
      scopes: ['orders:read'],
      removed: [{ scope: 'orders:write', layer: 'consent' }],
    });
    expect((await sim({ scope: 'orders:read' })).body.decision).toMatchObject({
      outcome: 'denied',
      error: 'invalid_scope',
      gate: 'scope-empty',
    });
    const denied = await h.call('post', nhePath(A, `/${nheId}/delegation-simulations`), adminA, {
      userId,
      clientId: 'app',
      resource: 'https://other.example',
      scope: 'orders:read',
    });
    expect(denied.body.decision).toMatchObject({
      outcome: 'denied',
      error: 'invalid_target',
      gate: 'resource-not-found',
    });
    const noClient = await h.call('post', nhePath(A, `/${nheId}/delegation-simulations`), adminA, {
      userId,
      clientId: 'nope',
      resource: 'https://orders.example',
      scope: 'orders:read',
    });
    expect([noClient.status, invalidNames(noClient)]).toEqual([400, ['body.clientId']]);
    expect(
      invalidNames(
        await h.call('post', nhePath(A, `/${nheId}/delegation-simulations`), adminA, {
          userId: 'x',
          clientId: 'app',
          resource: 'r',
          scope: 's',
        }),
      ),
    ).toEqual(['body.userId']);
    expect(await h.db.models.TokenAudit.countDocuments()).toBe(audits);
  });

  it("the user's own block (the delegation ledger's opt-out) is a layer of the dry run: access_denied at user-opt-out until lifted", async () => {
    const sim = () =>
      h.call('post', nhePath(A, `/${nheId}/delegation-simulations`), adminA, {
        userId,
        clientId: 'app',
        resource: 'https://orders.example',
        scope: 'orders:read',
        consentedScope: 'orders:read',
      });
    expect((await sim()).body.decision.outcome).toBe('granted');
    const block = await h.db.models.AgentOptOut.create({ tenantId: A, userId, nheId, nheIdentifier: 'agent-1' });
    const blocked = await sim();
    expect(blocked.body.decision).toMatchObject({ outcome: 'denied', error: 'access_denied', gate: 'user-opt-out' });
    expect(blocked.body.decision.description).toContain('user-opt-out');
    // Another tenant's or another user's block does not count.
    await h.db.models.AgentOptOut.create({ tenantId: B, userId, nheId, nheIdentifier: 'agent-1' });
    await block.deleteOne();
    expect((await sim()).body.decision.outcome).toBe('granted');
  });

  it("tenant A's token cannot touch tenant B's policies", async () => {
    const bNhe = (await h.call('get', nhePath(B), adminB)).body.items[0].id as string;
    const bUser = await h.db.models.User.create({ tenantId: B, username: 'ub', passwordHash: 'x' });
    const bPolicy = await h.call('post', nhePath(B, `/${bNhe}/delegation-policies`), adminB, {
      target: { type: 'user', id: String(bUser._id) },
      allowedScopes: [],
    });
    expect(bPolicy.status).toBe(201);
    expect((await h.call('get', nhePath(B, `/${bNhe}/delegation-policies`), adminA)).status).toBe(404);
    expect((await h.call('get', nhePath(A, `/${bNhe}/delegation-policies`), adminA)).status).toBe(404);
    expect((await h.call('get', nhePath(A, `/${nheId}/delegation-policies/${bPolicy.body.id}`), adminA)).status).toBe(
      404,
    );
    expect(
      (await h.call('delete', nhePath(A, `/${nheId}/delegation-policies/${bPolicy.body.id}`), adminA)).status,
    ).toBe(404);
    expect(await h.db.models.DelegationPolicy.countDocuments({ tenantId: B })).toBe(1);
  });

  it('deleting a policy revokes; deleting the NHE deletes its policies but never audit rows', async () => {
    expect((await h.call('delete', pol(`/${policyId}`), adminA)).status).toBe(204);
    expect(h.revocations).toContainEqual(
      expect.objectContaining({ nheIdentifier: 'agent-1', subject: userId, reason: 'policy.deleted' }),
    );
    await h.db.models.TokenAudit.create({
      tenantId: A,
      jti: `${A}-keep`,
      userId,
      nheId,
      nheIdentifier: 'agent-1',
      clientId: 'app',
      clientNumericId: 1,
      resourceServer: 'https://orders.example',
      scopes: ['orders:read'],
      ttl: 60,
      sourceIp: '127.0.0.1',
      issuedAt: new Date(),
    });
    expect((await h.call('delete', nhePath(A, `/${nheId}`), adminA)).status).toBe(204);
    expect(await h.db.models.DelegationPolicy.countDocuments({ tenantId: A, nheId })).toBe(0);
    expect(await h.db.models.TokenAudit.countDocuments({ tenantId: A, nheId })).toBe(1);
    expect(h.revocations).toContainEqual(expect.objectContaining({ nheIdentifier: 'agent-1', reason: 'nhe.deleted' }));
    expect((await h.call('get', nhePath(A, `/${nheId}`), adminA)).status).toBe(404);
    expect((await h.call('get', pol(), adminA)).status).toBe(404);
  });
});

describe('token audit', () => {
  const audit = (t: number, rest = '') => nhePath(t, `/token-audit${rest}`);
  const row = (tenantId: number, jti: string, extra: Record<string, unknown> = {}) => ({
    tenantId,
    jti,
    userId: 'u1',
    nheId: 'n1',
    nheIdentifier: 'agent',
    clientId: 'c1',
    clientNumericId: 1,
    resourceServer: 'https://api',
    scopes: ['s'],
    ttl: 60,
    sourceIp: '127.0.0.1',
    issuedAt: new Date('2026-01-02T00:00:00Z'),
    ...extra,
  });

  beforeAll(async () => {
    await h.db.models.TokenAudit.deleteMany({});
    await h.db.models.TokenAudit.create(row(A, 'a1', { issuedAt: new Date('2026-01-01T00:00:00Z') }));
    await h.db.models.TokenAudit.create(row(A, 'a2', { userId: 'u2', clientId: 'c2' }));
    await h.db.models.TokenAudit.create(
      row(A, 'a3', { resourceServer: 'https://other', nheId: 'n2', issuedAt: new Date('2026-01-03T00:00:00Z') }),
    );
    await h.db.models.TokenAudit.create(row(B, 'b1'));
  });

  it('lists newest first with a cursor, filters, counts', async () => {
    const t = await h.token(A, ['auth.nhe.audit.list']);
    const p1 = await h.call('get', audit(A, '?limit=2'), t);
    expect(p1.body.items.map((i: { jti: string }) => i.jti)).toEqual(['a3', 'a2']);
    const p2 = await h.call('get', audit(A, `?limit=2&cursor=${p1.body.nextCursor}`), t);
    expect([p2.body.items.map((i: { jti: string }) => i.jti), p2.body.nextCursor]).toEqual([['a1'], null]);
    const ids = async (q: string) =>
      (await h.call('get', audit(A, q), t)).body.items.map((i: { jti: string }) => i.jti);
    expect(await ids('?userId=u2')).toEqual(['a2']);
    expect(await ids('?clientId=c1')).toEqual(['a3', 'a1']);
    expect(await ids('?nheId=n2')).toEqual(['a3']);
    expect(await ids('?resourceServer=https%3A%2F%2Fapi')).toEqual(['a2', 'a1']);
    expect(await ids('?from=2026-01-02T00:00:00Z&to=2026-01-03T00:00:00Z')).toEqual(['a2']);
    expect((await h.call('get', audit(A, '/count?userId=u1'), t)).body).toEqual({ count: 2 });
    expect((await h.call('get', audit(A, '/count'), t)).body).toEqual({ count: 3 });
    const one = await h.call('get', audit(A, `/${p1.body.items[0].id}`), t);
    expect(one.body.jti).toBe('a3');
  });

  it.each([
    ['?from=yesterday', 'query.from'],
    ['?from=2026-01-03T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.from'],
    ['?limit=-1', 'query.limit'],
    ['?ip=1', 'query'],
  ])('400 for %s', async (q, name) => {
    const res = await h.call('get', audit(A, q), adminA);
    expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
  });

  it("tenant A's token cannot read or count tenant B's rows, nor read them by id", async () => {
    expect((await h.call('get', audit(B), adminA)).status).toBe(404);
    expect((await h.call('get', audit(B, '/count'), adminA)).status).toBe(404);
    const bRow = await h.db.models.TokenAudit.findOne({ tenantId: B }).lean();
    expect((await h.call('get', audit(A, `/${String(bRow!._id)}`), adminA)).status).toBe(404);
  });

  it.each(['post', 'put', 'patch', 'delete'] as const)(
    '%s is 405 with Allow: GET on every audit path, and rows are untouched',
    async (method) => {
      const id = String((await h.db.models.TokenAudit.findOne({ tenantId: A }).lean())!._id);
      for (const p of ['', '/count', `/${id}`, `/${id}/x`]) {
        const res = await h.call(method, audit(A, p), adminA, method === 'delete' ? undefined : { scopes: [] });
        expect([p, res.status]).toEqual([p, 405]);
        if (p !== `/${id}/x`) expect(res.headers.allow).toContain('GET');
      }
      expect(await h.db.models.TokenAudit.countDocuments({ tenantId: A })).toBe(3);
    },
  );
});
