/**
 * Delegation chains in the management API: the tenant's settings.nhe.maxChainDepth (default 1,
 * at most 5), NHE -> NHE delegation policies with maxChainDepth, the dry run explaining a hand-on hop by hop, and the
 * token audit's parent jti and actor chain with the whole chain listed from any of its tokens (the hash chain covers
 * them); every response validated against the OpenAPI document.
 */
import { chainTail, linkRows, verifyAuditChain, type TokenAuditDoc } from '@idp/db';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let userId: string;
const ids: Record<string, string> = {};

const nhePath = (t: number, rest = '') => `/auth/admin/tenants/${t}/non-human-entities${rest}`;
const RS = 'https://api.chains.example';

beforeAll(async () => {
  h = await startHarness('mgmtchains');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  const m = h.db.models;
  await m.ResourceServer.create({
    tenantId: A,
    identifier: RS,
    name: 'chains',
    scopes: ['r', 'w'],
    config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true, allowedNheTypes: [] } },
  });
  const role = await m.Role.create({ tenantId: A, name: 'rw', resourceServer: RS, permissions: ['r', 'w'] });
  userId = String(
    (await m.User.create({ tenantId: A, username: 'chain-user', passwordHash: 'x', roleIds: [String(role._id)] }))._id,
  );
  await m.Client.create({
    tenantId: A,
    clientId: 'chain-app',
    numericId: 991,
    name: 'chain app',
    firstParty: true,
    grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'],
    config: { nhe: { delegationEnabled: true, allowedNheIdentifiers: [] } },
  });
  for (const identifier of ['planner', 'tool', 'other']) {
    const res = await h.call('post', nhePath(A), adminA, {
      identifier,
      type: 'llm-assistive',
      allowedScopes: ['r', 'w'],
      operator: 'ops',
    });
    expect(res.status).toBe(201);
    ids[identifier] = res.body.id;
  }
  ids.foreign = (
    await h.db.models.Nhe.create({
      tenantId: B,
      identifier: 'foreign',
      type: 'llm-assistive',
      allowedScopes: ['r'],
      maxTokenLifetime: 300,
      operator: 'ops',
    })
  )._id.toString();
});
afterAll(async () => h.close());

describe('settings.nhe.maxChainDepth', () => {
  it('defaults to 1 (no re-delegation); 1 to 5 accepted; 0 and 6 are 400 naming the field', async () => {
    expect((await h.call('get', `/auth/admin/tenants/${A}`, adminA)).body.settings.nhe.maxChainDepth).toBe(1);
    for (const bad of [0, 6, 2.5]) {
      const res = await h.call('patch', `/auth/admin/tenants/${A}`, adminA, {
        settings: { nhe: { maxChainDepth: bad } },
      });
      expect(res.status).toBe(400);
      expect(invalidNames(res)).toContain('body.settings.nhe.maxChainDepth');
    }
    const res = await h.call('patch', `/auth/admin/tenants/${A}`, adminA, { settings: { nhe: { maxChainDepth: 3 } } });
    expect(res.status).toBe(200);
    expect(res.body.settings.nhe.maxChainDepth).toBe(3);
  });
});

describe('NHE -> NHE delegation policies', () => {
  const policies = (nhe: string) => nhePath(A, `/${ids[nhe]}/delegation-policies`);
  it.each([
    [
      'an NHE target with maxChainDepth 1',
      () => ({ target: { type: 'nhe', id: ids.planner }, allowedScopes: ['r'], maxChainDepth: 1 }),
      'body.maxChainDepth',
    ],
    [
      'maxChainDepth 6',
      () => ({ target: { type: 'nhe', id: ids.planner }, allowedScopes: ['r'], maxChainDepth: 6 }),
      'body.maxChainDepth',
    ],
    ['the NHE itself', () => ({ target: { type: 'nhe', id: ids.tool }, allowedScopes: ['r'] }), 'body.target.id'],
    [
      "another tenant's NHE",
      () => ({ target: { type: 'nhe', id: ids.foreign }, allowedScopes: ['r'] }),
      'body.target.id',
    ],
  ])('400 for %s', async (_n, body, name) => {
    const res = await h.call('post', policies('tool'), adminA, body());
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain(name);
  });

  it('planner may hand on to tool: created, listed by target type, patched; a user policy carries maxChainDepth too', async () => {
    const created = await h.call('post', policies('tool'), adminA, {
      target: { type: 'nhe', id: ids.planner },
      allowedScopes: ['r'],
      maxChainDepth: 3,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      nheId: ids.tool,
      target: { type: 'nhe', id: ids.planner },
      allowedScopes: ['r'],
      maxChainDepth: 3,
    });
    expect(
      (
        await h.call('post', policies('tool'), adminA, {
          target: { type: 'nhe', id: ids.planner },
          allowedScopes: ['w'],
        })
      ).status,
    ).toBe(409);
    const listed = await h.call('get', `${policies('tool')}?targetType=nhe`, adminA);
    expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    const patched = await h.call('patch', `${policies('tool')}/${created.body.id}`, adminA, { maxChainDepth: null });
    expect(patched.status).toBe(200);
    expect(patched.body).not.toHaveProperty('maxChainDepth');
    expect((await h.call('patch', `${policies('tool')}/${created.body.id}`, adminA, { maxChainDepth: 1 })).status).toBe(
      400,
    );
    // Changing a hand-on policy revokes the receiving NHE's tokens (every user: no subject in the entry).
    expect(h.revocations.at(-1)).toMatchObject({ tenantId: A, nheIdentifier: 'tool', reason: 'policy.updated' });
    expect(h.revocations.at(-1)).not.toHaveProperty('subject');
    const user = await h.call('post', policies('planner'), adminA, {
      target: { type: 'user', id: userId },
      allowedScopes: ['r', 'w'],
      maxChainDepth: 3,
    });
    expect(user.status).toBe(201);
    expect(user.body.maxChainDepth).toBe(3);
  });
});

describe('the dry run explains a hand-on hop by hop', () => {
  const simulate = (nhe: string, extra: Record<string, unknown>) =>
    h.call('post', nhePath(A, `/${ids[nhe]}/delegation-simulations`), adminA, {
      userId,
      clientId: 'chain-app',
      resource: RS,
      scope: 'r',
      ...extra,
    });

  it('granted: user -> planner -> tool, with each hop and its policies', async () => {
    const res = await simulate('tool', { parent: { actors: ['planner'], scope: 'r w' } });
    expect(res.status).toBe(200);
    expect(res.body.decision).toMatchObject({
      outcome: 'granted',
      scopes: ['r'],
      chain: {
        depth: 2,
        maxDepth: 2,
        hops: [
          { depth: 1, from: `user:${userId}`, to: 'nhe:planner', maxChainDepth: 3 },
          { depth: 2, from: 'nhe:planner', to: 'nhe:tool', maxChainDepth: 2 },
        ],
      },
    });
  });

  it.each([
    [
      'no hand-on policy',
      'other',
      { parent: { actors: ['planner'], scope: 'r' } },
      { gate: 'chain-no-policy', error: 'access_denied' },
    ],
    [
      'widening beyond the parent',
      'tool',
      { scope: 'r w', parent: { actors: ['planner'], scope: 'r' } },
      { gate: 'scope-exceeds-parent', error: 'invalid_scope', scopes: ['w'] },
    ],
    [
      'deeper than the tenant allows',
      'tool',
      { parent: { actors: ['planner', 'other', 'tool'], scope: 'r' } },
      { gate: 'chain-depth-exceeded', error: 'invalid_grant' },
    ],
  ])('denied: %s', async (_n, nhe, extra, expected) => {
    const res = await simulate(nhe, extra);
    expect(res.status).toBe(200);
    expect(res.body.decision).toMatchObject({ outcome: 'denied', ...expected });
  });
});

describe('token audit: parent jti, actor chain, the whole chain from any token', () => {
  it('rows of a chain list from the leaf or the root; the hash chain covers parentJti and actorChain', async () => {
    const base = {
      tenantId: A,
      userId,
      clientId: 'chain-app',
      clientNumericId: 991,
      resourceServer: RS,
      scopes: ['r'],
      ttl: 300,
      sourceIp: '127.0.0.1',
    };
    const at = (s: number) => new Date(Date.now() - 60_000 + s * 1000);
    const rows: TokenAuditDoc[] = [
      {
        ...base,
        jti: 'c-root',
        nheId: ids.planner!,
        nheIdentifier: 'planner',
        issuedAt: at(0),
        actorAuth: { method: 'key', jkt: 'x' },
      },
      {
        ...base,
        jti: 'c-tool',
        nheId: ids.tool!,
        nheIdentifier: 'tool',
        issuedAt: at(1),
        actorAuth: { method: 'named' },
        parentJti: 'c-root',
        actorChain: [
          { nheIdentifier: 'tool', method: 'named' },
          { nheIdentifier: 'planner', method: 'key' },
        ],
      },
      {
        ...base,
        jti: 'c-tool-2',
        nheId: ids.tool!,
        nheIdentifier: 'tool',
        issuedAt: at(2),
        parentJti: 'c-root',
        actorChain: [
          { nheIdentifier: 'tool', method: 'workload' },
          { nheIdentifier: 'planner', method: 'key' },
        ],
      },
      {
        ...base,
        jti: 'c-leaf',
        nheId: ids.other!,
        nheIdentifier: 'other',
        issuedAt: at(3),
        parentJti: 'c-tool',
        actorChain: [
          { nheIdentifier: 'other', method: 'named' },
          { nheIdentifier: 'tool', method: 'named' },
          { nheIdentifier: 'planner', method: 'key' },
        ],
      },
      { ...base, jti: 'c-unrelated', nheId: ids.planner!, nheIdentifier: 'planner', issuedAt: at(4) },
    ];
    await h.db.models.TokenAudit.insertMany(linkRows(rows, await chainTail(h.db.models, A)));
    const leaf = await h.call('get', `${nhePath(A)}/token-audit?jti=c-leaf`, adminA);
    expect(leaf.body.items).toEqual([
      expect.objectContaining({ jti: 'c-leaf', parentJti: 'c-tool', actorChain: rows[3]!.actorChain }),
    ]);
    const children = await h.call('get', `${nhePath(A)}/token-audit?parentJti=c-root`, adminA);
    expect(children.body.items.map((r: { jti: string }) => r.jti).sort()).toEqual(['c-tool', 'c-tool-2']);

    const expected = { rootJti: 'c-root', truncated: false, missingParents: [] };
    const fromLeaf = await h.call('get', `${nhePath(A)}/token-audit/${leaf.body.items[0].id}/delegation-chain`, adminA);
    expect(fromLeaf.status).toBe(200);
    expect(fromLeaf.body).toMatchObject(expected);
    expect(fromLeaf.body.tokens.map((r: { jti: string }) => r.jti)).toEqual(['c-root', 'c-tool', 'c-tool-2', 'c-leaf']);
    const root = (await h.call('get', `${nhePath(A)}/token-audit?jti=c-root`, adminA)).body.items[0];
    expect(root).not.toHaveProperty('parentJti');
    const fromRoot = await h.call('get', `${nhePath(A)}/token-audit/${root.id}/delegation-chain`, adminA);
    expect(fromRoot.body.tokens.map((r: { jti: string }) => r.jti)).toEqual(['c-root', 'c-tool', 'c-tool-2', 'c-leaf']);
    // Another tenant's admin cannot read it.
    expect(
      (
        await h.call(
          'get',
          `${nhePath(A)}/token-audit/${root.id}/delegation-chain`,
          await h.token(B, [...MANAGEMENT_SCOPES]),
        )
      ).status,
    ).toBe(404);
    // Not a way to change anything.
    expect((await h.call('delete', `${nhePath(A)}/token-audit/${root.id}/delegation-chain`, adminA)).status).toBe(405);

    expect((await verifyAuditChain(h.db.models, A)).valid).toBe(true);
    await h.db.models.TokenAudit.collection.updateOne(
      { tenantId: A, jti: 'c-leaf' },
      { $set: { parentJti: 'c-tool-2' } },
    );
    expect((await verifyAuditChain(h.db.models, A)).problems).toEqual([
      expect.objectContaining({ kind: 'altered', jti: 'c-leaf' }),
    ]);
  });
});

describe('deleting an NHE', () => {
  it('also deletes the NHE -> NHE policies that let it hand on (and revokes its tokens, chains below it included)', async () => {
    expect(
      await h.db.models.DelegationPolicy.countDocuments({
        tenantId: A,
        'target.type': 'nhe',
        'target.id': ids.planner,
      }),
    ).toBe(1);
    expect((await h.call('delete', nhePath(A, `/${ids.planner}`), adminA)).status).toBe(204);
    expect(
      await h.db.models.DelegationPolicy.countDocuments({
        tenantId: A,
        'target.type': 'nhe',
        'target.id': ids.planner,
      }),
    ).toBe(0);
    expect(h.revocations.at(-1)).toMatchObject({ tenantId: A, nheIdentifier: 'planner', reason: 'nhe.deleted' });
  });
});
