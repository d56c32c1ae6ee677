/**
 * Upstream identity providers through the management API: the client secret is stored only sealed for this tenant
 * and provider and never returned; private_key_jwt gets a key made here; bad settings are problem+json naming the
 * field; another tenant neither sees nor changes them; a user's links are listed, made by an admin and removed.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { BASE_URL, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  h = await startHarness('mgmtupstream');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

const providers = (t: number) => `/auth/admin/tenants/${t}/upstream-providers`;

const corp = {
  alias: 'corp',
  type: 'oidc',
  displayName: 'Corp SSO',
  oidc: { issuer: 'https://login.corp.example/realms/corp', clientId: 'broker', clientSecret: 'the-upstream-secret' },
  emailDomains: ['corp.example'],
  mappers: [
    { source: 'groups', target: 'externalGroups' },
    { source: 'groups', target: 'groups', values: [{ upstream: 'engineering', local: 'engineers' }] },
  ],
  amrMap: [{ upstream: 'otp', amr: ['otp', 'mfa'] }],
};

it('creates an OIDC provider: the secret is sealed for this tenant and provider, never returned', async () => {
  const res = await h.call('post', providers(A), adminA, corp);
  expect(res.status).toBe(201);
  expect(res.headers.location).toMatch(/\/upstream-providers\/corp$/);
  expect(JSON.stringify(res.body)).not.toContain('the-upstream-secret');
  expect(res.body.oidc).toMatchObject({
    clientSecretSet: true,
    clientAuthMethod: 'client_secret_basic',
    scopes: ['openid', 'profile', 'email'],
    pkce: true,
    subjectClaim: 'sub',
  });
  expect(res.body.endpoints).toEqual({
    redirectUri: `${BASE_URL}/auth/${A}/upstream/corp/callback`,
    postLogoutRedirectUri: `${BASE_URL}/auth/${A}/upstream/corp/logged-out`,
  });
  const stored = (await h.db.models.UpstreamProvider.findOne({ tenantId: A, alias: 'corp' }).lean())!;
  const sealed = stored.oidc!.clientSecretSealed!;
  expect(sealed).not.toContain('the-upstream-secret');
  const kek = h.keyStore.kek;
  expect(kek.decrypt(sealed, `upstream:${A}:corp:client_secret`)).toBe('the-upstream-secret');
  // Bound to its tenant and provider: the same sealed value does not open as another's.
  expect(() => kek.decrypt(sealed, `upstream:${B}:corp:client_secret`)).toThrow();
  const got = await h.call('get', `${providers(A)}/corp`, adminA);
  expect(got.status).toBe(200);
  expect(JSON.stringify(got.body)).not.toContain('the-upstream-secret');
});

it('refuses a duplicate alias, a reserved alias, http to a non-loopback host, and a secret method without a secret', async () => {
  expect((await h.call('post', providers(A), adminA, corp)).status).toBe(409);
  const bad = async (body: object, field: string) => {
    const res = await h.call('post', providers(A), adminA, body);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(JSON.stringify(res.body.invalid_params)).toContain(field);
  };
  await bad({ ...corp, alias: 'callback' }, 'alias');
  await bad({ ...corp, alias: 'x2', oidc: { ...corp.oidc, issuer: 'http://login.corp.example' } }, 'issuer');
  await bad({ ...corp, alias: 'x3', oidc: { issuer: corp.oidc.issuer, clientId: 'b' } }, 'clientSecret');
  await bad({ ...corp, alias: 'x4', mappers: [{ source: 'groups', target: 'groups' }] }, 'values');
  await bad({ ...corp, alias: 'x5', type: 'saml' }, 'saml');
  await bad(
    { alias: 'x6', type: 'saml', displayName: 'X', saml: { metadataXml: '<!DOCTYPE x [<!ENTITY e "e">]><x/>' } },
    'metadataXml',
  );
  expect(await h.db.models.UpstreamProvider.countDocuments({ tenantId: A })).toBe(1);
});

it('private_key_jwt: a key is made here once and its public half published for the OP', async () => {
  const res = await h.call('post', providers(A), adminA, {
    ...corp,
    alias: 'pkj',
    oidc: { issuer: 'http://127.0.0.1:9/realms/x', clientId: 'broker', clientAuthMethod: 'private_key_jwt' },
  });
  expect(res.status).toBe(201);
  expect(res.body.endpoints.jwksUri).toBe(`${BASE_URL}/auth/${A}/upstream/pkj/jwks`);
  const first = (await h.db.models.UpstreamProvider.findOne({ tenantId: A, alias: 'pkj' }).lean())!.oidc!
    .privateJwkSealed;
  expect(first).toBeDefined();
  const patched = await h.call('patch', `${providers(A)}/pkj`, adminA, {
    oidc: { issuer: 'http://127.0.0.1:9/realms/x', clientId: 'broker2', clientAuthMethod: 'private_key_jwt' },
  });
  expect(patched.status).toBe(200);
  const after = (await h.db.models.UpstreamProvider.findOne({ tenantId: A, alias: 'pkj' }).lean())!.oidc!;
  expect([after.clientId, after.privateJwkSealed]).toEqual(['broker2', first]);
});

it('PATCH keeps a secret left out, disables, and is the tenant’s own: another tenant gets 404', async () => {
  const res = await h.call('patch', `${providers(A)}/corp`, adminA, {
    enabled: false,
    oidc: { issuer: corp.oidc.issuer, clientId: 'broker' },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ enabled: false, oidc: { clientSecretSet: true } });
  expect((await h.call('get', `${providers(B)}/corp`, adminB)).status).toBe(404);
  expect((await h.call('patch', `${providers(B)}/corp`, adminB, { enabled: true })).status).toBe(404);
  expect((await h.call('delete', `${providers(B)}/corp`, adminB)).status).toBe(404);
  expect((await h.call('get', providers(B), adminB)).body.items).toEqual([]);
});

it("a user's links: an admin links, lists and removes them; an identity links to one user only", async () => {
  const user = async (username: string) =>
    (await h.call('post', `/auth/admin/tenants/${A}/users`, adminA, { username, password: 'correct horse battery' }))
      .body.id as string;
  const [u1, u2] = [await user('dana'), await user('fox')];
  const links = (u: string) => `/auth/admin/tenants/${A}/users/${u}/upstream-links`;
  const made = await h.call('post', links(u1), adminA, { provider: 'corp', subject: 'kc-123' });
  expect(made.status).toBe(201);
  expect(made.body).toMatchObject({ provider: 'corp', subject: 'kc-123', linkedBy: 'admin', issuer: corp.oidc.issuer });
  expect((await h.call('post', links(u2), adminA, { provider: 'corp', subject: 'kc-123' })).status).toBe(409);
  expect((await h.call('post', links(u2), adminA, { provider: 'nope', subject: 'x' })).status).toBe(400);
  expect((await h.call('get', links(u1), adminA)).body.items).toHaveLength(1);
  expect((await h.call('get', `/auth/admin/tenants/${B}/users/${u1}/upstream-links`, adminB)).status).toBe(404);
  expect((await h.call('delete', `${links(u1)}/corp`, adminA)).status).toBe(204);
  expect((await h.call('get', links(u1), adminA)).body.items).toEqual([]);
  expect((await h.call('delete', `${links(u1)}/corp`, adminA)).status).toBe(404);
});

it('deleting a provider deletes its links', async () => {
  const u = (await h.db.models.User.findOne({ tenantId: A, username: 'fox' }).lean())!;
  await h.call('post', `/auth/admin/tenants/${A}/users/${String(u._id)}/upstream-links`, adminA, {
    provider: 'corp',
    subject: 'kc-9',
  });
  expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: A, provider: 'corp' })).toBe(1);
  expect((await h.call('delete', `${providers(A)}/corp`, adminA)).status).toBe(204);
  expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: A, provider: 'corp' })).toBe(0);
  expect((await h.call('get', `${providers(A)}/corp`, adminA)).status).toBe(404);
});
