/**
 * Tenants, clients, resource servers, users, groups, roles (and their assignment) and signing keys, against a
 * real database; every response validated against the OpenAPI document. Cross-tenant isolation: one test per
 * resource kind (tenant A's token cannot read, change or count tenant B's rows).
 */
import { Types } from 'mongoose';
import { clientSecretDigest, MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES, verifyPassword } from '@idp/tokens';
import { invalidNames, PEPPER, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
let sys: string;
beforeAll(async () => {
  h = await startHarness('mgmtcfg');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
  sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const t = (tenantId: number, rest = '') => `/auth/admin/tenants/${tenantId}${rest}`;

describe('tenants', () => {
  let created: number;

  it('a system token creates a tenant with NHE settings and keys; defaults follow the spec', async () => {
    const res = await h.call('post', '/auth/admin/tenants', sys, {
      name: 'acme',
      settings: { nhe: { enabled: true, hardMaxTokenLifetime: 600 }, claims: { ga4ghPassport: { enabled: true } } },
    });
    expect(res.status).toBe(201);
    created = res.body.id;
    expect(res.body.settings.nhe).toEqual({
      enabled: true,
      defaultMaxTokenLifetime: 300,
      hardMaxTokenLifetime: 600,
      requireDpop: false,
      requireActorProof: false,
      maxChainDepth: 1,
      phishingResistantSignInMaxAgeMinutes: 0,
      allowedNheTypes: ['llm-autonomous', 'llm-assistive', 'automated-pipeline'],
      maxNhePerTenant: 50,
      auditRetentionDays: 90,
    });
    expect(res.body.settings.claims).toEqual({
      amrProfile: 'rfc8176',
      ga4ghPassport: { enabled: true, visaLifetimeSeconds: 3600 },
    });
    expect(res.headers.location).toBe(`/auth/admin/tenants/${created}`);
    expect(await h.db.models.SigningKey.countDocuments({ tenantId: created, status: 'active' })).toBe(2);
    expect((await h.call('post', '/auth/admin/tenants', sys, { id: created, name: 'dup' })).status).toBe(409);
  });

  it('a tenant created without NHE settings gets every default of the spec (hard maximum 900 s)', async () => {
    const res = await h.call('post', '/auth/admin/tenants', sys, { name: 'defaults' });
    expect(res.status).toBe(201);
    expect(res.body.settings.nhe).toEqual({
      enabled: false,
      defaultMaxTokenLifetime: 300,
      hardMaxTokenLifetime: 900,
      requireDpop: false,
      requireActorProof: false,
      maxChainDepth: 1,
      phishingResistantSignInMaxAgeMinutes: 0,
      allowedNheTypes: ['llm-autonomous', 'llm-assistive', 'automated-pipeline'],
      maxNhePerTenant: 50,
      auditRetentionDays: 90,
    });
    expect((await h.call('delete', t(res.body.id), sys)).status).toBe(204);
  });

  it.each([
    [{ name: 'x', settings: { nhe: { hardMaxTokenLifetime: 901 } } }, 'body.settings.nhe.hardMaxTokenLifetime'],
    [{ name: 'x', settings: { nhe: { defaultMaxTokenLifetime: 59 } } }, 'body.settings.nhe.defaultMaxTokenLifetime'],
    [
      { name: 'x', settings: { nhe: { defaultMaxTokenLifetime: 600, hardMaxTokenLifetime: 300 } } },
      'body.settings.nhe.defaultMaxTokenLifetime',
    ],
    [{ name: 'x', settings: { nhe: { allowedNheTypes: ['robot'] } } }, 'body.settings.nhe.allowedNheTypes.0'],
    [{ name: 'x', settings: { nhe: { auditRetentionDays: -1 } } }, 'body.settings.nhe.auditRetentionDays'],
    [{ name: 'x', settings: { claims: { amrProfile: 'other' } } }, 'body.settings.claims.amrProfile'],
    [{ name: '' }, 'body.name'],
    [{ name: 'x', plan: 'gold' }, 'body'],
  ])('400 for %j', async (body, name) => {
    const res = await h.call('post', '/auth/admin/tenants', sys, body);
    expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
  });

  it('lists with a cursor (system only) and gets one', async () => {
    const p1 = await h.call('get', '/auth/admin/tenants?limit=1', sys);
    expect(p1.body.items).toHaveLength(1);
    expect(p1.body.nextCursor).not.toBeNull();
    const named = await h.call('get', '/auth/admin/tenants?namePrefix=acme', sys);
    expect(named.body.items.map((x: { id: number }) => x.id)).toContain(created);
    expect((await h.call('get', '/auth/admin/tenants', adminA)).status).toBe(403);
    expect((await h.call('post', '/auth/admin/tenants', adminA, { name: 'mine' })).status).toBe(403);
    expect((await h.call('get', t(A), adminA)).body.id).toBe(A);
  });

  it('a tenant admin updates its own settings but not the platform quota; turning NHE off revokes', async () => {
    const res = await h.call('patch', t(A), adminA, {
      settings: { nhe: { requireDpop: true, auditRetentionDays: 30 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.nhe).toMatchObject({ requireDpop: true, auditRetentionDays: 30, enabled: true });
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'tenant', id: String(A) });
    const quota = await h.call('patch', t(A), adminA, { settings: { nhe: { maxNhePerTenant: 1000 } } });
    expect(quota.status).toBe(403);
    expect(
      (await h.call('patch', t(A), sys, { settings: { nhe: { maxNhePerTenant: 10 } } })).body.settings.nhe
        .maxNhePerTenant,
    ).toBe(10);
    expect((await h.call('patch', t(A), adminA, { settings: { nhe: { defaultMaxTokenLifetime: 950 } } })).status).toBe(
      400,
    );
    await h.call('patch', t(A), adminA, { settings: { nhe: { enabled: false } } });
    expect(h.revocations).toContainEqual(expect.objectContaining({ tenantId: A, reason: 'tenant.nhe.disabled' }));
    await h.call('patch', t(A), adminA, { settings: { nhe: { enabled: true } } });
  });

  it("tenant A's token cannot read or change tenant B; deletion is system-only, refused for non-empty and system tenants", async () => {
    expect((await h.call('get', t(B), adminA)).status).toBe(404);
    const padded = await h.call('get', `/auth/admin/tenants/0${A}`, adminA);
    expect([padded.status, invalidNames(padded)]).toEqual([400, ['params.tenantId']]);
    expect((await h.call('patch', t(B), adminA, { name: 'hacked' })).status).toBe(404);
    expect((await h.db.models.Tenant.findById(B).lean())!.name).toBe('b');
    expect((await h.call('delete', t(B), adminA)).status).toBe(403);
    expect((await h.call('delete', t(h.tenants.system), sys)).status).toBe(409);
    await h.db.models.User.create({ tenantId: created, username: 'x', passwordHash: 'x' });
    expect((await h.call('delete', t(created), sys)).status).toBe(409);
    await h.db.models.User.deleteMany({ tenantId: created });
    expect((await h.call('delete', t(created), sys)).status).toBe(204);
    expect(await h.db.models.SigningKey.countDocuments({ tenantId: created })).toBe(0);
    expect((await h.call('get', t(created), sys)).status).toBe(404);
  });

  it("a deleted tenant's id is never handed out again, so no new tenant can read the audit rows it left", async () => {
    const gone = (
      await h.call('post', '/auth/admin/tenants', sys, {
        name: 'short-lived',
        settings: { nhe: { enabled: true, auditRetentionDays: 30 } },
      })
    ).body.id as number;
    await h.db.models.TokenAudit.create({
      tenantId: gone,
      jti: `j-${gone}`,
      userId: 'old-user',
      nheId: 'n',
      nheIdentifier: 'agent',
      clientId: 'c',
      clientNumericId: 1,
      resourceServer: 'https://api.example',
      scopes: ['read'],
      ttl: 60,
      sourceIp: '10.1.2.3',
      issuedAt: new Date(),
    });
    expect((await h.call('delete', t(gone), sys)).status).toBe(204);
    expect(await h.db.models.DeletedTenant.findById(gone).lean()).toMatchObject({
      name: 'short-lived',
      auditRetentionDays: 30,
    });

    const again = await h.call('post', '/auth/admin/tenants', sys, { id: gone, name: 'squatter' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/never reused/);
    expect(await h.db.models.Tenant.exists({ _id: gone })).toBeNull();
    // A tenant deleted before tombstones existed: its audit rows alone keep the id spent.
    await h.db.models.TokenAudit.create({
      tenantId: 987_654,
      jti: 'j-old',
      userId: 'old-user',
      nheId: 'n',
      nheIdentifier: 'agent',
      clientId: 'c',
      clientNumericId: 1,
      resourceServer: 'https://api.example',
      scopes: ['read'],
      ttl: 60,
      sourceIp: '10.1.2.3',
      issuedAt: new Date(),
    });
    expect((await h.call('post', '/auth/admin/tenants', sys, { id: 987_654, name: 'squatter' })).status).toBe(409);

    // A generated id that lands on the deleted one moves past it.
    const counter = (await h.db.models.Counter.findById('tenants').lean())!;
    await h.db.models.Counter.updateOne({ _id: 'tenants' }, { $set: { seq: gone - 1000 - 1 } });
    const next = await h.call('post', '/auth/admin/tenants', sys, { name: 'next' });
    expect(next.status).toBe(201);
    expect(next.body.id).toBe(gone + 1);
    await h.db.models.Counter.updateOne({ _id: 'tenants' }, { $max: { seq: counter.seq } });
    expect((await h.call('delete', t(next.body.id), sys)).status).toBe(204);
  });
});

describe('clients', () => {
  const c = (tenantId: number, rest = '') => t(tenantId, `/clients${rest}`);
  const web = {
    clientId: 'web-app',
    name: 'Web',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: ['https://app.example/cb'],
  };

  it('creates a confidential client and returns its secret once, storing only the digest', async () => {
    const res = await h.call('post', c(A), adminA, {
      ...web,
      postLogoutRedirectUris: ['https://app.example/bye'],
      showLogoutPrompt: false,
      config: {
        nhe: { delegationEnabled: true, maxTokenLifetime: 120 },
        featureToggles: { requireAuthorizationScopesInRequest: true },
        legacyRoleCompatibility: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({
      clientId: 'web-app',
      hasSecret: true,
      showLogoutPrompt: false,
      responseTypes: ['code'],
      config: {
        nhe: { delegationEnabled: true, maxTokenLifetime: 120, allowedNheIdentifiers: [] },
        featureToggles: { requireAuthorizationScopesInRequest: true, requireResourceIndicatorInRequest: false },
        legacyRoleCompatibility: true,
      },
    });
    const stored = await h.db.models.Client.findOne({ tenantId: A, clientId: 'web-app' }).lean();
    expect(stored!.secretDigest).toBe(clientSecretDigest(PEPPER, res.body.clientSecret));
    const again = await h.call('get', c(A, '/web-app'), adminA);
    expect(again.body.clientSecret).toBeUndefined();
    expect(JSON.stringify(again.body)).not.toContain(stored!.secretDigest!);
    expect((await h.call('post', c(A), adminA, web)).status).toBe(409);
  });

  it('a numeric id handed out twice by the counter (FerretDB increments race) moves on to the next, not a 409', async () => {
    const first = await h.call('post', c(A), adminA, { ...web, clientId: 'numbered-a' });
    expect(first.status).toBe(201);
    const taken = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'numbered-a' }).lean())!.numericId;
    // Wind the counter back so that its next value is the id just used.
    await h.db.models.Counter.updateOne({ _id: 'clients' }, { $set: { seq: taken - 1000 - 1 } });
    const second = await h.call('post', c(A), adminA, { ...web, clientId: 'numbered-b' });
    expect(second.status).toBe(201);
    const stored = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'numbered-b' }).lean())!;
    expect(stored.numericId).toBeGreaterThan(taken);
  });

  it('a counter restored behind the clients moves past the ids in use instead of failing the create', async () => {
    const top = (await h.db.models.Client.findOne({}).sort({ numericId: -1 }).lean())!.numericId;
    const { _id, ...rest } = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'numbered-a' }).lean())!;
    void _id;
    await h.db.models.Client.insertMany(
      Array.from({ length: 25 }, (_, i) => ({ ...rest, clientId: `squatter-${i}`, numericId: top + 1 + i })),
    );
    await h.db.models.Counter.updateOne({ _id: 'clients' }, { $set: { seq: top - 1000 } });
    const res = await h.call('post', c(A), adminA, { ...web, clientId: 'numbered-c' });
    expect(res.status).toBe(201);
    expect((await h.db.models.Client.findOne({ tenantId: A, clientId: 'numbered-c' }).lean())!.numericId).toBe(
      top + 26,
    );
    await h.db.models.Client.deleteMany({ tenantId: A, clientId: /^squatter-/ });
  });

  it('logs every write with the caller tenant and client, and never a secret', async () => {
    const res = await h.call('post', c(A), adminA, { ...web, clientId: 'logged-app' });
    const rotated = await h.call('post', c(A, '/logged-app/secret-rotations'), adminA, {});
    await h.call('post', t(A, '/users'), adminA, { username: 'logged-user', password: 'logged user password' });
    const writes = h.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === 'management write');
    const create = writes.find((l) => l.action === 'createClient' && l.clientId === 'logged-app');
    expect(create).toMatchObject({
      tenantId: A,
      caller: { tenantId: A, clientId: `admin-${A}` },
      secretIssued: true,
      status: 201,
    });
    expect(writes.find((l) => l.action === 'rotateClientSecret')).toMatchObject({
      caller: { tenantId: A },
      secretRotated: true,
    });
    const all = h.logs.join('\n');
    for (const secret of [res.body.clientSecret, rotated.body.clientSecret, 'logged user password', adminA])
      expect(all).not.toContain(secret);
  });

  it.each([
    [{ ...web, clientId: 'x' }, 'body.clientId'],
    [{ ...web, redirectUris: ['http://evil.example/cb'] }, 'body.redirectUris.0'],
    [{ ...web, redirectUris: ['https://app.example/cb#frag'] }, 'body.redirectUris.0'],
    [{ ...web, redirectUris: ['javascript:alert(1)'] }, 'body.redirectUris.0'],
    [{ ...web, redirectUris: [] }, 'body.redirectUris'],
    [{ ...web, grantTypes: ['implicit'] }, 'body.grantTypes.0'],
    [{ ...web, tokenEndpointAuthMethod: 'none', grantTypes: ['client_credentials'] }, 'body.grantTypes'],
    [{ ...web, tokenEndpointAuthMethod: 'private_key_jwt' }, 'body.jwks'],
    [{ ...web, config: { nhe: { maxTokenLifetime: 901 } } }, 'body.config.nhe.maxTokenLifetime'],
    [{ ...web, config: { nhe: { allowedNheIdentifiers: ['bad id'] } } }, 'body.config.nhe.allowedNheIdentifiers.0'],
    [{ ...web, config: { customizeUserInfoClaims: 'return {' } }, 'body.config.customizeUserInfoClaims'],
    [{ ...web, config: { customizeUserInfoClaims: 'x'.repeat(70_000) } }, 'body.config.customizeUserInfoClaims'],
    [{ ...web, config: { featureToggles: { narrow: true } } }, 'body.config.featureToggles'],
    [{ ...web, clientSecret: 'mine' }, 'body'],
  ])('400 for %#', async (body, name) => {
    const res = await h.call('post', c(A), adminA, {
      ...body,
      clientId: (body as { clientId?: string }).clientId ?? 'c-bad',
    });
    if (res.status === 413) return; // the 70 kB script is refused by the body limit before validation
    expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
  });

  it('accepts a valid customizeUserInfoClaims script, a public client and a client-credentials client', async () => {
    const script = 'return { dept: input.user.claims.dept ?? null };';
    const res = await h.call('post', c(A), adminA, {
      ...web,
      clientId: 'scripted',
      config: { customizeUserInfoClaims: script },
    });
    expect(res.body.config.customizeUserInfoClaims).toBe(script);
    const pub = await h.call('post', c(A), adminA, { ...web, clientId: 'spa', tokenEndpointAuthMethod: 'none' });
    expect([pub.status, pub.body.clientSecret, pub.body.hasSecret]).toEqual([201, undefined, false]);
    const m2m = await h.call('post', c(A), adminA, { name: 'm2m', grantTypes: ['client_credentials'] });
    expect(m2m.status).toBe(201);
    expect(m2m.body.clientId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(m2m.body.responseTypes).toEqual([]);
  });

  it('lists, counts, patches, rotates the secret; turning delegation off revokes', async () => {
    expect((await h.call('get', c(A, '?limit=2'), adminA)).body.items).toHaveLength(2);
    expect((await h.call('get', c(A, '/count?grantType=client_credentials'), adminA)).body).toEqual({ count: 1 });
    const patched = await h.call('patch', c(A, '/web-app'), adminA, {
      showLogoutPrompt: true,
      config: { nhe: { delegationEnabled: false, maxTokenLifetime: null }, customizeUserInfoClaims: null },
    });
    expect(patched.body).toMatchObject({ showLogoutPrompt: true, config: { nhe: { delegationEnabled: false } } });
    expect(patched.body.config.nhe.maxTokenLifetime).toBeUndefined();
    const numericId = patched.body.numericId;
    expect(h.revocations).toContainEqual(
      expect.objectContaining({ tenantId: A, clientNumericId: numericId, reason: 'client.delegation.disabled' }),
    );
    const before = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'web-app' }).lean())!.secretDigest;
    const rotated = await h.call('post', c(A, '/web-app/secret-rotations'), adminA, {});
    expect(rotated.status).toBe(200);
    const after = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'web-app' }).lean())!.secretDigest;
    expect(after).not.toBe(before);
    expect(after).toBe(clientSecretDigest(PEPPER, rotated.body.clientSecret));
    expect((await h.call('post', c(A, '/spa/secret-rotations'), adminA, {})).status).toBe(409);
    expect((await h.call('patch', c(A, '/web-app'), adminA, { grantTypes: ['refresh_token'] })).status).toBe(400);
    // An unknown member is refused (PKCE's per-client setting is pkceRequired: client-security-settings.int.test.ts).
    const noPkce = await h.call('patch', c(A, '/web-app'), adminA, { requirePkce: false });
    expect([noPkce.status, invalidNames(noPkce)]).toEqual([400, ['body']]);
  });

  it("tenant A's token cannot read, change, count or delete tenant B's clients", async () => {
    await h.call('post', c(B), adminB, { ...web, clientId: 'b-app' });
    expect((await h.call('get', c(B, '/b-app'), adminA)).status).toBe(404);
    expect((await h.call('get', c(A, '/b-app'), adminA)).status).toBe(404);
    expect((await h.call('get', c(B, '/count'), adminA)).status).toBe(404);
    expect((await h.call('patch', c(A, '/b-app'), adminA, { name: 'x' })).status).toBe(404);
    expect((await h.call('post', c(A, '/b-app/secret-rotations'), adminA, {})).status).toBe(404);
    expect((await h.call('delete', c(A, '/b-app'), adminA)).status).toBe(404);
    expect((await h.db.models.Client.findOne({ tenantId: B, clientId: 'b-app' }).lean())!.name).toBe('Web');
  });

  it('deletes a client (revoking its NHE tokens) but never the calling client', async () => {
    expect((await h.call('delete', c(A, '/scripted'), adminA)).status).toBe(204);
    expect(h.revocations).toContainEqual(expect.objectContaining({ reason: 'client.deleted' }));
    await h.db.models.Client.create({ tenantId: A, clientId: `admin-${A}`, numericId: A * 7, name: 'me' });
    expect((await h.call('delete', c(A, `/admin-${A}`), adminA)).status).toBe(409);
  });
});

describe('resource servers', () => {
  const r = (tenantId: number, rest = '') => t(tenantId, `/resource-servers${rest}`);
  let id: string;

  it('creates with config.nhe and lifetime; refuses bad identifiers, duplicates and inconsistent config', async () => {
    const res = await h.call('post', r(A), adminA, {
      identifier: 'https://orders.example',
      name: 'Orders',
      scopes: ['orders:read', 'orders:write'],
      config: {
        accessToken: { lifetime: 600 },
        nhe: { acceptDelegationTokens: true, allowedNheTypes: ['llm-assistive'] },
      },
    });
    expect(res.status).toBe(201);
    id = res.body.id;
    expect(res.body.config).toEqual({
      accessToken: { lifetime: 600 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: false, allowedNheTypes: ['llm-assistive'] },
    });
    expect((await h.call('post', r(A), adminA, { identifier: 'https://orders.example', name: 'again' })).status).toBe(
      409,
    );
    for (const [body, name] of [
      [{ identifier: 'orders', name: 'x' }, 'body.identifier'],
      [{ identifier: MANAGEMENT_AUDIENCE, name: 'x' }, 'body.identifier'],
      [
        { identifier: 'https://x.example', name: 'x', config: { accessToken: { lifetime: 4 } } },
        'body.config.accessToken.lifetime',
      ],
      [
        { identifier: 'https://x.example', name: 'x', config: { nhe: { requireDelegationTokens: true } } },
        'body.config.nhe.requireDelegationTokens',
      ],
      [{ identifier: 'https://x.example', name: 'x', scopes: ['a b'] }, 'body.scopes.0'],
    ] as const) {
      const bad = await h.call('post', r(A), adminA, body);
      expect([bad.status, invalidNames(bad)]).toEqual([400, [name]]);
    }
  });

  it('accepts short access-token lifetimes down to 5 s (below 60 for ordinary tokens)', async () => {
    for (const lifetime of [5, 30]) {
      const res = await h.call('post', r(A), adminA, {
        identifier: `https://short-${lifetime}.example`,
        name: 'Short',
        config: { accessToken: { lifetime } },
      });
      expect([res.status, res.body.config?.accessToken]).toEqual([201, { lifetime }]);
      expect((await h.call('delete', r(A, `/${res.body.id}`), adminA)).status).toBe(204);
    }
  });

  it('lists, counts, gets, patches', async () => {
    expect((await h.call('get', r(A, '?identifier=https%3A%2F%2Forders.example'), adminA)).body.items).toHaveLength(1);
    expect((await h.call('get', r(A, '/count'), adminA)).body).toEqual({ count: 1 });
    const p = await h.call('patch', r(A, `/${id}`), adminA, { config: { nhe: { acceptDelegationTokens: false } } });
    expect(p.body.config.nhe.acceptDelegationTokens).toBe(false);
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'resource-server', id });
    expect((await h.call('patch', r(A, `/${id}`), adminA, { identifier: 'https://new.example' })).status).toBe(400);
  });

  it("tenant A's token cannot read, change, count or delete tenant B's resource servers", async () => {
    const b = await h.call('post', r(B), adminB, { identifier: 'https://b.example', name: 'B' });
    expect((await h.call('get', r(B, `/${b.body.id}`), adminA)).status).toBe(404);
    expect((await h.call('get', r(A, `/${b.body.id}`), adminA)).status).toBe(404);
    expect((await h.call('get', r(B, '/count'), adminA)).status).toBe(404);
    expect((await h.call('patch', r(A, `/${b.body.id}`), adminA, { name: 'x' })).status).toBe(404);
    expect((await h.call('delete', r(A, `/${b.body.id}`), adminA)).status).toBe(404);
    expect(await h.db.models.ResourceServer.countDocuments({ tenantId: B })).toBe(1);
  });
});

describe('users, groups, roles', () => {
  let userId: string;
  let groupId: string;
  let roleId: string;

  it('creates a user with a hashed password and never returns secrets', async () => {
    const res = await h.call('post', t(A, '/users'), adminA, {
      username: 'alice',
      password: 'correct horse battery',
      claims: { email: 'alice@example.com', dept: 'ops' },
    });
    expect(res.status).toBe(201);
    userId = res.body.id;
    expect(res.body).toMatchObject({
      username: 'alice',
      enabled: true,
      totpEnrolled: false,
      claims: { email: 'alice@example.com' },
    });
    expect(res.body.passwordHash).toBeUndefined();
    const stored = await h.db.models.User.findById(userId).lean();
    expect(await verifyPassword('correct horse battery', stored!.passwordHash)).toBe(true);
    expect((await h.call('post', t(A, '/users'), adminA, { username: 'alice' })).status).toBe(409);
    for (const [body, name] of [
      [{ username: 'a b' }, 'body.username'],
      [{ username: 'bob', password: 'short' }, 'body.password'],
      [{ username: 'bob', claims: { 'a.b': 1 } }, 'body.claims.a.b'],
      [{ username: 'bob', passwordHash: 'x' }, 'body'],
    ] as const) {
      const bad = await h.call('post', t(A, '/users'), adminA, body);
      expect([bad.status, invalidNames(bad)]).toEqual([400, [name]]);
    }
  });

  it('sets a password, resets TOTP, disables (revoking delegated tokens)', async () => {
    expect(
      (await h.call('put', t(A, `/users/${userId}/password`), adminA, { password: 'another long secret' })).status,
    ).toBe(204);
    expect(
      await verifyPassword('another long secret', (await h.db.models.User.findById(userId).lean())!.passwordHash),
    ).toBe(true);
    expect(invalidNames(await h.call('put', t(A, `/users/${userId}/password`), adminA, { password: '1' }))).toEqual([
      'body.password',
    ]);
    await h.db.models.User.updateOne({ _id: userId }, { $set: { totpSecret: 'sealed' } });
    expect((await h.call('get', t(A, `/users/${userId}`), adminA)).body.totpEnrolled).toBe(true);
    expect((await h.call('delete', t(A, `/users/${userId}/totp`), adminA)).status).toBe(204);
    expect((await h.db.models.User.findById(userId).lean())!.totpSecret).toBeUndefined();
    const off = await h.call('patch', t(A, `/users/${userId}`), adminA, { enabled: false });
    expect([off.status, off.body.enabled]).toEqual([200, false]);
    expect(h.revocations).toContainEqual(
      expect.objectContaining({ tenantId: A, subject: userId, reason: 'user.disabled' }),
    );
    expect((await h.call('get', t(A, '/users/count?enabled=false'), adminA)).body).toEqual({ count: 1 });
    await h.call('patch', t(A, `/users/${userId}`), adminA, { enabled: true });
  });

  it('groups and memberships', async () => {
    const g = await h.call('post', t(A, '/groups'), adminA, { name: 'ops' });
    groupId = g.body.id;
    expect((await h.call('post', t(A, '/groups'), adminA, { name: 'ops' })).status).toBe(409);
    expect((await h.call('put', t(A, `/groups/${groupId}/members/${userId}`), adminA)).status).toBe(204);
    expect((await h.call('put', t(A, `/groups/${groupId}/members/${userId}`), adminA)).status).toBe(204);
    expect(
      (await h.call('get', t(A, `/groups/${groupId}/members`), adminA)).body.items.map((u: { id: string }) => u.id),
    ).toEqual([userId]);
    expect((await h.call('get', t(A, `/users?groupId=${groupId}`), adminA)).body.items).toHaveLength(1);
    expect(
      (await h.call('put', t(A, `/groups/${groupId}/members/${new Types.ObjectId().toHexString()}`), adminA)).status,
    ).toBe(404);
    expect((await h.call('patch', t(A, `/groups/${groupId}`), adminA, { name: 'operations' })).body.name).toBe(
      'operations',
    );
  });

  it('roles: permissions must exist on the resource server; assignment to users, groups and clients', async () => {
    const bad = await h.call('post', t(A, '/roles'), adminA, {
      name: 'x',
      resourceServer: 'https://orders.example',
      permissions: ['orders:delete'],
    });
    expect([bad.status, invalidNames(bad)]).toEqual([400, ['body.permissions.0']]);
    expect(
      invalidNames(
        await h.call('post', t(A, '/roles'), adminA, {
          name: 'x',
          resourceServer: 'https://nope.example',
          permissions: [],
        }),
      ),
    ).toEqual(['body.resourceServer']);
    const role = await h.call('post', t(A, '/roles'), adminA, {
      name: 'clerk',
      resourceServer: 'https://orders.example',
      permissions: ['orders:read'],
    });
    expect(role.status).toBe(201);
    roleId = role.body.id;
    for (const holder of [`users/${userId}`, `groups/${groupId}`, 'clients/web-app']) {
      expect((await h.call('put', t(A, `/${holder}/roles/${roleId}`), adminA)).status).toBe(204);
    }
    expect((await h.call('get', t(A, `/users/${userId}`), adminA)).body.roleIds).toEqual([roleId]);
    expect((await h.call('get', t(A, '/clients/web-app'), adminA)).body.roleIds).toEqual([roleId]);
    expect((await h.call('delete', t(A, `/groups/${groupId}/roles/${roleId}`), adminA)).status).toBe(204);
    expect((await h.call('get', t(A, `/groups/${groupId}`), adminA)).body.roleIds).toEqual([]);
    expect(
      (await h.call('patch', t(A, `/roles/${roleId}`), adminA, { permissions: ['orders:read', 'orders:write'] })).body
        .permissions,
    ).toEqual(['orders:read', 'orders:write']);
  });

  it('a management role cannot grant scopes the caller lacks (no escalation)', async () => {
    const limited = await h.token(A, ['auth.roles.create', 'auth.roles.assign', 'auth.users.list']);
    const esc = await h.call('post', t(A, '/roles'), limited, {
      name: 'root',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ['auth.keys.rotate'],
    });
    expect(esc.status).toBe(403);
    const ok = await h.call('post', t(A, '/roles'), limited, {
      name: 'reader',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ['auth.users.list'],
    });
    expect(ok.status).toBe(201);
    const admin = await h.call('post', t(A, '/roles'), adminA, {
      name: 'keys',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ['auth.keys.rotate'],
    });
    expect((await h.call('put', t(A, `/users/${userId}/roles/${admin.body.id}`), limited)).status).toBe(403);
  });

  it("tenant A's token cannot read, change, count or delete tenant B's users, groups and roles", async () => {
    const bu = await h.call('post', t(B, '/users'), adminB, { username: 'bob' });
    const bg = await h.call('post', t(B, '/groups'), adminB, { name: 'bg' });
    const br = await h.call('post', t(B, '/roles'), adminB, {
      name: 'br',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ['auth.users.list'],
    });
    for (const [kind, id] of [
      ['users', bu.body.id],
      ['groups', bg.body.id],
      ['roles', br.body.id],
    ] as const) {
      expect((await h.call('get', t(B, `/${kind}/${id}`), adminA)).status).toBe(404);
      expect((await h.call('get', t(A, `/${kind}/${id}`), adminA)).status).toBe(404);
      expect((await h.call('get', t(B, `/${kind}/count`), adminA)).status).toBe(404);
      expect((await h.call('patch', t(A, `/${kind}/${id}`), adminA, { name: 'x' })).status).toBe(
        kind === 'users' ? 400 : 404,
      );
      expect((await h.call('delete', t(A, `/${kind}/${id}`), adminA)).status).toBe(404);
    }
    expect((await h.call('put', t(A, `/users/${userId}/roles/${br.body.id}`), adminA)).status).toBe(404);
    expect((await h.call('put', t(A, `/groups/${groupId}/members/${bu.body.id}`), adminA)).status).toBe(404);
    expect(
      (await h.call('put', t(A, `/users/${bu.body.id}/password`), adminA, { password: 'hijacked pass' })).status,
    ).toBe(404);
    expect(await h.db.models.User.countDocuments({ tenantId: B })).toBe(1);
  });

  it('deleting a role removes its assignments; deleting a group its memberships and policies; deleting a user its policies', async () => {
    expect((await h.call('delete', t(A, `/roles/${roleId}`), adminA)).status).toBe(204);
    expect((await h.db.models.User.findById(userId).lean())!.roleIds).toEqual([]);
    expect((await h.db.models.Client.findOne({ tenantId: A, clientId: 'web-app' }).lean())!.roleIds).toEqual([]);
    const nhe = await h.db.models.Nhe.create({
      tenantId: A,
      identifier: 'group-agent',
      type: 'llm-assistive',
      operator: 'ops',
      maxTokenLifetime: 300,
      allowedScopes: ['read'],
    });
    await h.db.models.DelegationPolicy.create({
      tenantId: A,
      nheId: String(nhe._id),
      target: { type: 'group', id: groupId },
      allowedScopes: [],
    });
    expect((await h.call('delete', t(A, `/groups/${groupId}`), adminA)).status).toBe(204);
    // The group's policies are gone, so are the tokens issued under them (the kill switch, as for a policy delete).
    expect(h.revocations).toContainEqual(
      expect.objectContaining({ tenantId: A, nheIdentifier: 'group-agent', reason: 'policy.deleted' }),
    );
    await h.db.models.Nhe.deleteOne({ _id: nhe._id });
    expect((await h.db.models.User.findById(userId).lean())!.groupIds).toEqual([]);
    expect(await h.db.models.DelegationPolicy.countDocuments({ tenantId: A, 'target.id': groupId })).toBe(0);
    expect((await h.call('delete', t(A, `/users/${userId}`), adminA)).status).toBe(204);
    expect(h.revocations).toContainEqual(expect.objectContaining({ subject: userId, reason: 'user.deleted' }));
  });
});

describe('signing keys', () => {
  it('lists public halves only and rotates, keeping the retired key published', async () => {
    const before = await h.call('get', t(A, '/signing-keys'), adminA);
    expect(before.body.items).toHaveLength(2);
    expect(JSON.stringify(before.body)).not.toMatch(/"d":|encryptedPrivateJwk/);
    const rotated = await h.call('post', t(A, '/signing-keys/rotations'), adminA, { alg: 'ES256' });
    expect(rotated.status).toBe(201);
    const after = await h.call('get', t(A, '/signing-keys'), adminA);
    const es = after.body.items.filter((k: { alg: string }) => k.alg === 'ES256');
    expect(es.map((k: { status: string }) => k.status).sort()).toEqual(['active', 'retired']);
    expect(es.find((k: { status: string }) => k.status === 'retired').publishUntil).toBeDefined();
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'keys' });
    expect(invalidNames(await h.call('post', t(A, '/signing-keys/rotations'), adminA, { alg: 'HS256' }))).toEqual([
      'body.alg',
    ]);
  });

  it("tenant A's token cannot list or rotate tenant B's keys", async () => {
    const count = await h.db.models.SigningKey.countDocuments({ tenantId: B });
    expect((await h.call('get', t(B, '/signing-keys'), adminA)).status).toBe(404);
    expect((await h.call('post', t(B, '/signing-keys/rotations'), adminA, {})).status).toBe(404);
    expect(await h.db.models.SigningKey.countDocuments({ tenantId: B })).toBe(count);
  });
});
