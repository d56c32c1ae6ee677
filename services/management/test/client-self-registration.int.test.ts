/**
 * Client self-registration through the management API: the tenant settings settings.clientIdMetadataDocuments and
 * settings.registration (defaults, merge, strict validation, never on the system tenant, each change invalidating the
 * tenant), initial access tokens (issued once, stored as a digest, listed with their uses, revoked), and dynamically
 * registered clients (listed and filtered as `dynamic`, never made first-party or delegating here, disabled and
 * deleted). Every response is validated against the OpenAPI document.
 */
import { createHash } from 'node:crypto';
import { insertClient } from '@idp/db';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let adminA: string;
let sys: string;
beforeAll(async () => {
  h = await startHarness('mgmtselfreg');
  adminA = await h.token(h.tenants.a, [...MANAGEMENT_SCOPES]);
  sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const t = (tenantId: number) => `/auth/admin/tenants/${tenantId}`;

describe('tenant settings', () => {
  it('are off by default', async () => {
    const res = await h.call('get', t(h.tenants.b), sys);
    expect(res.status).toBe(200);
    expect(res.body.settings.clientIdMetadataDocuments).toEqual({
      enabled: false,
      allowedHosts: [],
      cacheMaxSeconds: 3600,
      maxDocumentBytes: 5120,
    });
    expect(res.body.settings.registration).toEqual({
      mode: 'off',
      grantTypes: ['authorization_code', 'refresh_token'],
      tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
      rateLimit: { maxPerWindow: 10, windowSeconds: 3600 },
    });
  });

  it('a tenant admin turns them on, partly; the rest keeps its defaults and the tenant is invalidated', async () => {
    h.invalidations.length = 0;
    const res = await h.call('patch', t(h.tenants.a), adminA, {
      settings: {
        clientIdMetadataDocuments: { enabled: true, allowedHosts: ['mcp.example.com', '*.agents.example'] },
        registration: { mode: 'initial-access-token', rateLimit: { maxPerWindow: 5 } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.clientIdMetadataDocuments).toEqual({
      enabled: true,
      allowedHosts: ['mcp.example.com', '*.agents.example'],
      cacheMaxSeconds: 3600,
      maxDocumentBytes: 5120,
    });
    expect(res.body.settings.registration).toMatchObject({
      mode: 'initial-access-token',
      rateLimit: { maxPerWindow: 5, windowSeconds: 3600 },
    });
    expect(h.invalidations).toEqual([{ tenantId: h.tenants.a, kind: 'tenant', id: String(h.tenants.a) }]);
    const stored = (await h.db.models.Tenant.findById(h.tenants.a).lean())!.settings;
    expect(stored.clientIdMetadataDocuments).toMatchObject({
      enabled: true,
      allowedHosts: ['mcp.example.com', '*.agents.example'],
    });
    expect(stored.registration).toMatchObject({ mode: 'initial-access-token', rateLimit: { maxPerWindow: 5 } });
  });

  it("refuses allowLoopback: true from a tenant admin and from a system admin alike (the operator's setting); false changes nothing", async () => {
    for (const [tenantId, token] of [
      [h.tenants.a, adminA],
      [h.tenants.a, sys],
      [h.tenants.system, sys],
    ] as const) {
      const before = (await h.call('get', t(tenantId), sys)).body.settings;
      const res = await h.call('patch', t(tenantId), token, {
        settings: { clientIdMetadataDocuments: { allowLoopback: true } },
      });
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(invalidNames(res)).toEqual(['body.settings.clientIdMetadataDocuments.allowLoopback']);
      expect(JSON.stringify(res.body)).toMatch(/CIMD_ALLOW_LOOPBACK/);
      expect((await h.call('get', t(tenantId), sys)).body.settings).toEqual(before);
    }
    const stored = (await h.db.models.Tenant.findById(h.tenants.a).lean())!.settings
      .clientIdMetadataDocuments as unknown as Record<string, unknown>;
    expect(stored.allowLoopback).toBeUndefined();
    // What a client read and writes back is accepted, and stores nothing.
    const same = await h.call('patch', t(h.tenants.a), adminA, {
      settings: { clientIdMetadataDocuments: { allowLoopback: false, enabled: true } },
    });
    expect(same.status).toBe(200);
    expect(same.body.settings.clientIdMetadataDocuments).not.toHaveProperty('allowLoopback');
    expect(
      (
        (await h.db.models.Tenant.findById(h.tenants.a).lean())!.settings
          .clientIdMetadataDocuments as unknown as Record<string, unknown>
      ).allowLoopback,
    ).toBeUndefined();
  });

  it('shows no allowLoopback that an earlier version stored, and reads the tenant as usual', async () => {
    await h.db.models.Tenant.updateOne(
      { _id: h.tenants.b },
      { $set: { 'settings.clientIdMetadataDocuments.allowLoopback': true } },
    );
    try {
      const res = await h.call('get', t(h.tenants.b), sys);
      expect(res.status).toBe(200);
      expect(res.body.settings.clientIdMetadataDocuments).toEqual({
        enabled: false,
        allowedHosts: [],
        cacheMaxSeconds: 3600,
        maxDocumentBytes: 5120,
      });
    } finally {
      await h.db.models.Tenant.updateOne({ _id: h.tenants.b }, { $unset: { 'settings.clientIdMetadataDocuments': 1 } });
    }
  });

  it.each([
    [
      { clientIdMetadataDocuments: { allowedHosts: ['https://mcp.example.com'] } },
      'body.settings.clientIdMetadataDocuments.allowedHosts.0',
    ],
    [{ clientIdMetadataDocuments: { allowedHosts: ['*'] } }, 'body.settings.clientIdMetadataDocuments.allowedHosts.0'],
    [
      { clientIdMetadataDocuments: { allowedHosts: ['a.*.example'] } },
      'body.settings.clientIdMetadataDocuments.allowedHosts.0',
    ],
    [{ clientIdMetadataDocuments: { cacheMaxSeconds: 10 } }, 'body.settings.clientIdMetadataDocuments.cacheMaxSeconds'],
    [
      { clientIdMetadataDocuments: { maxDocumentBytes: 10_000_000 } },
      'body.settings.clientIdMetadataDocuments.maxDocumentBytes',
    ],
    [{ clientIdMetadataDocuments: { allowLoopback: 'yes' } }, 'body.settings.clientIdMetadataDocuments.allowLoopback'],
    [{ clientIdMetadataDocuments: { fetchPrivate: true } }, 'body.settings.clientIdMetadataDocuments'],
    [{ registration: { mode: 'closed' } }, 'body.settings.registration.mode'],
    [
      { registration: { grantTypes: ['urn:ietf:params:oauth:grant-type:token-exchange'] } },
      'body.settings.registration.grantTypes.0',
    ],
    [{ registration: { grantTypes: [] } }, 'body.settings.registration.grantTypes'],
    [
      { registration: { tokenEndpointAuthMethods: ['client_secret_basic'] } },
      'body.settings.registration.tokenEndpointAuthMethods.0',
    ],
    [{ registration: { rateLimit: { maxPerWindow: 0 } } }, 'body.settings.registration.rateLimit.maxPerWindow'],
    [
      {
        registration: { grantTypes: ['authorization_code', 'client_credentials'], tokenEndpointAuthMethods: ['none'] },
      },
      'body.settings.registration.grantTypes',
    ],
  ])('400 for %j, naming the field; nothing changes', async (settings, name) => {
    const before = (await h.call('get', t(h.tenants.b), sys)).body.settings;
    const res = await h.call('patch', t(h.tenants.b), sys, { settings });
    expect([res.status, invalidNames(res)]).toEqual([400, [name]]);
    expect((await h.call('get', t(h.tenants.b), sys)).body.settings).toEqual(before);
  });

  it('a policy may allow client_credentials beside public clients, never without a confidential method (RFC 6749 section 4.4)', async () => {
    const both = await h.call('patch', t(h.tenants.b), sys, {
      settings: {
        registration: {
          grantTypes: ['authorization_code', 'client_credentials'],
          tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
        },
      },
    });
    expect(both.status).toBe(200);
    expect(both.body.settings.registration).toMatchObject({
      grantTypes: ['authorization_code', 'client_credentials'],
      tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
    });
    try {
      // Checked against the merged settings: dropping the last confidential method alone is refused too.
      const onlyNone = await h.call('patch', t(h.tenants.b), sys, {
        settings: { registration: { tokenEndpointAuthMethods: ['none'] } },
      });
      expect([onlyNone.status, invalidNames(onlyNone)]).toEqual([
        400,
        ['body.settings.registration.tokenEndpointAuthMethods'],
      ]);
      expect(JSON.stringify(onlyNone.body.invalid_params)).toMatch(/confidential/);
    } finally {
      const reset = await h.call('patch', t(h.tenants.b), sys, {
        settings: {
          registration: {
            grantTypes: ['authorization_code', 'refresh_token'],
            tokenEndpointAuthMethods: ['none', 'private_key_jwt'],
          },
        },
      });
      expect(reset.status).toBe(200);
    }
  });

  it('the system tenant accepts no self-introduced clients', async () => {
    const cimd = await h.call('patch', t(h.tenants.system), sys, {
      settings: { clientIdMetadataDocuments: { enabled: true } },
    });
    expect([cimd.status, invalidNames(cimd)]).toEqual([400, ['body.settings.clientIdMetadataDocuments.enabled']]);
    const reg = await h.call('patch', t(h.tenants.system), sys, { settings: { registration: { mode: 'open' } } });
    expect([reg.status, invalidNames(reg)]).toEqual([400, ['body.settings.registration.mode']]);
    expect((await h.call('post', `${t(h.tenants.system)}/initial-access-tokens`, sys, {})).status).toBe(409);
  });
});

describe('initial access tokens', () => {
  it('are issued once (a digest is kept), listed with their uses, and revoked', async () => {
    const base = `${t(h.tenants.a)}/initial-access-tokens`;
    const issued = await h.call('post', base, adminA, {
      description: 'MCP onboarding',
      maxUses: 3,
      expiresInSeconds: 3600,
    });
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({ description: 'MCP onboarding', maxUses: 3, uses: 0 });
    expect(issued.body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await h.db.models.InitialAccessToken.findOne({
      tenantId: h.tenants.a,
      tokenId: issued.body.id,
    }).lean();
    expect(stored!.digest).toBe(createHash('sha256').update(issued.body.token).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(issued.body.token);
    expect(new Date(stored!.expiresAt).getTime() - Date.now()).toBeGreaterThan(3500_000);
    // A use, as oidc-core records one.
    await h.db.models.InitialAccessTokenUse.create({
      _id: `${h.tenants.a}:${issued.body.id}:0`,
      tenantId: h.tenants.a,
      tokenId: issued.body.id,
      at: new Date(),
      expiresAt: stored!.expiresAt,
    });
    const list = await h.call('get', base, adminA);
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([expect.objectContaining({ id: issued.body.id, uses: 1, maxUses: 3 })]);
    expect(JSON.stringify(list.body)).not.toContain(issued.body.token);
    // Another tenant's administrator sees none of them.
    const adminB = await h.token(h.tenants.b, [...MANAGEMENT_SCOPES]);
    expect((await h.call('get', `${t(h.tenants.a)}/initial-access-tokens`, adminB)).status).toBe(404);
    expect((await h.call('delete', `${base}/${issued.body.id}`, adminA)).status).toBe(204);
    expect((await h.call('get', base, adminA)).body.items).toEqual([]);
    expect((await h.call('delete', `${base}/${issued.body.id}`, adminA)).status).toBe(404);
  });

  it.each([[{ maxUses: 0 }], [{ expiresInSeconds: 31 * 86_400 }], [{ token: 'mine' }]])('400 for %j', async (body) => {
    expect((await h.call('post', `${t(h.tenants.a)}/initial-access-tokens`, adminA, body)).status).toBe(400);
  });
});

describe('dynamically registered clients', () => {
  it('are visible, marked, never made first-party or delegating here, and removable', async () => {
    const tenantId = h.tenants.a;
    // A record as oidc-core's registration endpoint writes it (provider/registration.ts).
    await insertClient(h.db.models, {
      tenantId,
      clientId: 'dyn_abcdefghijklmnopqrstuvwx',
      name: 'CLI agent',
      tokenEndpointAuthMethod: 'none',
      redirectUris: ['http://127.0.0.1/callback'],
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      firstParty: false,
      registration: 'dynamic',
      registeredMetadata: JSON.stringify({ application_type: 'native' }),
      config: { nhe: { delegationEnabled: false, allowedNheIdentifiers: [] } },
    });
    const base = `${t(tenantId)}/clients`;
    const dynamic = await h.call('get', `${base}?registration=dynamic`, adminA);
    expect(dynamic.status).toBe(200);
    expect(
      dynamic.body.items.map((c: { clientId: string; registration: string }) => [c.clientId, c.registration]),
    ).toEqual([['dyn_abcdefghijklmnopqrstuvwx', 'dynamic']]);
    const managed = await h.call('get', `${base}?registration=managed`, adminA);
    expect(managed.body.items.every((c: { registration: string }) => c.registration === 'managed')).toBe(true);
    expect(managed.body.items.some((c: { clientId: string }) => c.clientId === 'dyn_abcdefghijklmnopqrstuvwx')).toBe(
      false,
    );
    const one = `${base}/dyn_abcdefghijklmnopqrstuvwx`;
    for (const body of [
      { firstParty: true },
      { config: { nhe: { delegationEnabled: true } } },
      { grantTypes: ['authorization_code', 'client_credentials'] },
      { redirectUris: ['https://evil.example/cb'] },
    ]) {
      const res = await h.call('patch', one, adminA, body);
      expect(res.status).toBe(409);
    }
    expect(
      await h.db.models.Client.findOne(
        { tenantId, clientId: 'dyn_abcdefghijklmnopqrstuvwx' },
        { firstParty: 1, 'config.nhe.delegationEnabled': 1, _id: 0 },
      ).lean(),
    ).toEqual({
      firstParty: false,
      config: { nhe: { delegationEnabled: false } },
    });
    const disabled = await h.call('patch', one, adminA, { enabled: false, name: 'CLI agent (paused)' });
    expect([disabled.status, disabled.body.enabled, disabled.body.registration]).toEqual([200, false, 'dynamic']);
    expect((await h.call('delete', one, adminA)).status).toBe(204);
    expect(await h.db.models.Client.exists({ tenantId, clientId: 'dyn_abcdefghijklmnopqrstuvwx' })).toBeNull();
  });
});
