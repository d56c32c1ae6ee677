/**
 * A client's protocol security settings (including FAPI 2.0's per-client requirements): `pkceRequired` (only a
 * confidential client may turn PKCE off), `dpopBoundAccessTokens` (the record's requireDpop, node-oidc-provider's
 * dpop_bound_access_tokens) and `requirePushedAuthorizationRequests`. Every response is validated against the
 * OpenAPI document (harness). Lowering them is guarded like other security changes of a client (auth/escalation.ts).
 */
import { MANAGEMENT_AUDIENCE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let T: number;
let admin: string;
beforeAll(async () => {
  h = await startHarness('mgmtclientsec');
  T = h.tenants.a;
  admin = await h.token(T, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const c = (rest = '') => `/auth/admin/tenants/${T}/clients${rest}`;
const web = (clientId: string, extra: Record<string, unknown> = {}) => ({
  clientId,
  name: clientId,
  grantTypes: ['authorization_code', 'refresh_token'],
  redirectUris: ['https://app.example/cb'],
  ...extra,
});
const stored = async (clientId: string) => (await h.db.models.Client.findOne({ tenantId: T, clientId }).lean())!;

describe('defaults and the OpenAPI document', () => {
  it('a new client requires PKCE, does not require DPoP or PAR, and says so', async () => {
    const res = await h.call('post', c(), admin, web('sec-default'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      pkceRequired: true,
      dpopBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
    // A record written before these settings existed reads the same.
    await h.db.models.Client.updateOne(
      { tenantId: T, clientId: 'sec-default' },
      { $unset: { pkceRequired: 1, requireDpop: 1, requirePushedAuthorizationRequests: 1 } },
    );
    expect((await h.call('get', c('/sec-default'), admin)).body).toMatchObject({
      pkceRequired: true,
      dpopBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
  });

  it('the document describes the three settings on the create and update bodies and on the Client', () => {
    type Props = { properties: Record<string, { type?: string }>; required?: string[] };
    const doc = h.doc as unknown as {
      components: { schemas: Record<string, Props> };
      paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: Props }> } }>>;
    };
    const body = (path: string, method: string) =>
      doc.paths[path]![method]!.requestBody.content['application/json']!.schema;
    const create = body('/auth/admin/tenants/{tenantId}/clients', 'post');
    const update = body('/auth/admin/tenants/{tenantId}/clients/{clientId}', 'patch');
    for (const name of ['pkceRequired', 'dpopBoundAccessTokens', 'requirePushedAuthorizationRequests']) {
      expect(doc.components.schemas.Client!.properties[name]).toMatchObject({ type: 'boolean' });
      expect(doc.components.schemas.Client!.required).toContain(name);
      for (const schema of [create, update]) {
        expect(schema.properties[name]).toMatchObject({ type: 'boolean' });
        expect(schema.required ?? []).not.toContain(name);
      }
    }
  });
});

describe('pkceRequired', () => {
  it('a confidential client may turn PKCE off, at creation and later, and back on', async () => {
    const created = await h.call('post', c(), admin, web('sec-nopkce', { pkceRequired: false }));
    expect([created.status, created.body.pkceRequired]).toEqual([201, false]);
    expect((await stored('sec-nopkce')).pkceRequired).toBe(false);
    const on = await h.call('patch', c('/sec-nopkce'), admin, { pkceRequired: true });
    expect([on.status, on.body.pkceRequired, (await stored('sec-nopkce')).pkceRequired]).toEqual([200, true, true]);
    const off = await h.call('patch', c('/sec-nopkce'), admin, { pkceRequired: false });
    expect([off.status, off.body.pkceRequired, (await stored('sec-nopkce')).pkceRequired]).toEqual([200, false, false]);
    expect(h.invalidations).toContainEqual({ tenantId: T, kind: 'client', id: 'sec-nopkce' });
  });

  it('a public client cannot turn PKCE off: 400 at creation, at an update, and when it becomes public in the same request', async () => {
    const create = await h.call(
      'post',
      c(),
      admin,
      web('sec-public', { tokenEndpointAuthMethod: 'none', pkceRequired: false }),
    );
    expect([create.status, invalidNames(create)]).toEqual([400, ['body.pkceRequired']]);
    expect(await h.db.models.Client.exists({ tenantId: T, clientId: 'sec-public' })).toBeNull();
    expect((await h.call('post', c(), admin, web('sec-public', { tokenEndpointAuthMethod: 'none' }))).status).toBe(201);
    const patch = await h.call('patch', c('/sec-public'), admin, { pkceRequired: false });
    expect([patch.status, invalidNames(patch)]).toEqual([400, ['body.pkceRequired']]);
    expect((await stored('sec-public')).pkceRequired).not.toBe(false);
    await h.call('post', c(), admin, web('sec-going-public', { pkceRequired: false }));
    const both = await h.call('patch', c('/sec-going-public'), admin, {
      tokenEndpointAuthMethod: 'none',
      pkceRequired: false,
    });
    expect([both.status, invalidNames(both)]).toEqual([400, ['body.pkceRequired']]);
    expect((await stored('sec-going-public')).tokenEndpointAuthMethod).toBe('client_secret_basic');
    // Setting it true on a public client is no change and is fine.
    expect((await h.call('patch', c('/sec-public'), admin, { pkceRequired: true })).status).toBe(200);
  });

  it('a client without PKCE that becomes public needs PKCE again, and keeps it if it turns confidential again', async () => {
    await h.call('post', c(), admin, web('sec-turns-public', { pkceRequired: false }));
    const pub = await h.call('patch', c('/sec-turns-public'), admin, { tokenEndpointAuthMethod: 'none' });
    expect([pub.status, pub.body.pkceRequired, (await stored('sec-turns-public')).pkceRequired]).toEqual([
      200,
      true,
      true,
    ]);
    const back = await h.call('patch', c('/sec-turns-public'), admin, {
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect([back.status, back.body.pkceRequired]).toEqual([200, true]);
  });

  it('a public client whose record still says false (written outside the API) is shown as requiring PKCE', async () => {
    await h.db.models.Client.updateOne({ tenantId: T, clientId: 'sec-public' }, { $set: { pkceRequired: false } });
    expect((await h.call('get', c('/sec-public'), admin)).body.pkceRequired).toBe(true);
  });
});

describe('dpopBoundAccessTokens and requirePushedAuthorizationRequests', () => {
  it('are stored on the client record (requireDpop for DPoP) and shown', async () => {
    const res = await h.call(
      'post',
      c(),
      admin,
      web('sec-fapi', { dpopBoundAccessTokens: true, requirePushedAuthorizationRequests: true }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ dpopBoundAccessTokens: true, requirePushedAuthorizationRequests: true });
    expect(await stored('sec-fapi')).toMatchObject({ requireDpop: true, requirePushedAuthorizationRequests: true });
    expect('dpopBoundAccessTokens' in (await stored('sec-fapi'))).toBe(false);
    const off = await h.call('patch', c('/sec-fapi'), admin, {
      dpopBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
    expect(off.body).toMatchObject({ dpopBoundAccessTokens: false, requirePushedAuthorizationRequests: false });
    expect(await stored('sec-fapi')).toMatchObject({ requireDpop: false, requirePushedAuthorizationRequests: false });
    // A public client may be DPoP-bound and PAR-only too.
    const spa = await h.call(
      'post',
      c(),
      admin,
      web('sec-fapi-spa', {
        tokenEndpointAuthMethod: 'none',
        dpopBoundAccessTokens: true,
        requirePushedAuthorizationRequests: true,
      }),
    );
    expect([
      spa.status,
      spa.body.dpopBoundAccessTokens,
      spa.body.requirePushedAuthorizationRequests,
      spa.body.pkceRequired,
    ]).toEqual([201, true, true, true]);
  });

  it.each([
    [{ pkceRequired: 'false' }, 'body.pkceRequired'],
    [{ dpopBoundAccessTokens: 1 }, 'body.dpopBoundAccessTokens'],
    [{ requirePushedAuthorizationRequests: null }, 'body.requirePushedAuthorizationRequests'],
    [{ requireDpop: true }, 'body'],
  ])('400 for %j, at creation and at an update', async (extra, name) => {
    const create = await h.call('post', c(), admin, web('sec-bad', extra));
    expect([create.status, invalidNames(create)]).toEqual([400, [name]]);
    const patch = await h.call('patch', c('/sec-default'), admin, extra);
    expect([patch.status, invalidNames(patch)]).toEqual([400, [name]]);
  });
});

describe("lowering a client's protection is guarded like its other security changes", () => {
  const narrow = () => h.token(T, ['auth.clients.update']);
  const expectForbidden = (res: { status: number; body: { type?: string; detail?: string } }, what: RegExp) => {
    expect([res.status, res.body.type]).toEqual([403, 'https://idp.dev/problems/forbidden']);
    expect(res.body.detail).toMatch(what);
  };

  it('on a first-party client, turning PKCE, DPoP binding or PAR off needs every management scope; turning them on does not', async () => {
    expect(
      (
        await h.call(
          'post',
          c(),
          admin,
          web('sec-first', { firstParty: true, dpopBoundAccessTokens: true, requirePushedAuthorizationRequests: true }),
        )
      ).status,
    ).toBe(201);
    for (const body of [
      { pkceRequired: false },
      { dpopBoundAccessTokens: false },
      { requirePushedAuthorizationRequests: false },
    ]) {
      expectForbidden(await h.call('patch', c('/sec-first'), await narrow(), body), /^a first-party client/);
    }
    expect(await stored('sec-first')).toMatchObject({
      pkceRequired: true,
      requireDpop: true,
      requirePushedAuthorizationRequests: true,
    });
    // Values it already has, or raising them, are not lowering.
    expect(
      (
        await h.call('patch', c('/sec-first'), await narrow(), {
          pkceRequired: true,
          dpopBoundAccessTokens: true,
          requirePushedAuthorizationRequests: true,
        })
      ).status,
    ).toBe(200);
    // The full administrator may.
    const full = await h.call('patch', c('/sec-first'), admin, {
      pkceRequired: false,
      dpopBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
    expect([
      full.status,
      full.body.pkceRequired,
      full.body.dpopBoundAccessTokens,
      full.body.requirePushedAuthorizationRequests,
    ]).toEqual([200, false, false, false]);
    expect(
      (
        await h.call('patch', c('/sec-first'), await narrow(), {
          pkceRequired: true,
          dpopBoundAccessTokens: true,
          requirePushedAuthorizationRequests: true,
        })
      ).status,
    ).toBe(200);
  });

  it('unbinding the tokens of a client that holds management scopes needs those scopes', async () => {
    const role = await h.db.models.Role.create({
      tenantId: T,
      name: 'sec-ops',
      resourceServer: MANAGEMENT_AUDIENCE,
      permissions: ['auth.users.list', 'auth.users.update'],
    });
    expect(
      (
        await h.call('post', c(), admin, {
          clientId: 'sec-ops-bot',
          name: 'ops bot',
          grantTypes: ['client_credentials'],
          dpopBoundAccessTokens: true,
        })
      ).status,
    ).toBe(201);
    await h.db.models.Client.updateOne(
      { tenantId: T, clientId: 'sec-ops-bot' },
      { $set: { roleIds: [String(role._id)] } },
    );
    expectForbidden(
      await h.call('patch', c('/sec-ops-bot'), await narrow(), { dpopBoundAccessTokens: false }),
      /^the client holds management scopes the caller does not; missing: auth\.users\.list auth\.users\.update$/,
    );
    expect((await stored('sec-ops-bot')).requireDpop).toBe(true);
    const holder = await h.token(T, ['auth.clients.update', 'auth.users.list', 'auth.users.update']);
    expect((await h.call('patch', c('/sec-ops-bot'), holder, { dpopBoundAccessTokens: false })).status).toBe(200);
  });

  it("an ordinary client is the narrow caller's to manage", async () => {
    await h.call(
      'post',
      c(),
      admin,
      web('sec-plain', { dpopBoundAccessTokens: true, requirePushedAuthorizationRequests: true }),
    );
    const res = await h.call('patch', c('/sec-plain'), await narrow(), {
      pkceRequired: false,
      dpopBoundAccessTokens: false,
      requirePushedAuthorizationRequests: false,
    });
    expect([
      res.status,
      res.body.pkceRequired,
      res.body.dpopBoundAccessTokens,
      res.body.requirePushedAuthorizationRequests,
    ]).toEqual([200, false, false, false]);
  });
});
