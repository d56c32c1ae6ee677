/**
 * Trusted external issuers (RFC 7523 JWT bearer grant, ID-JAG) through the management API: created with safe
 * defaults; bad settings are problem+json naming the field; linked_identity needs a real upstream provider of the
 * same tenant; another tenant neither sees nor changes them; PATCH, delete and tenant deletion. Also the client rule
 * that only a client which authenticates may hold the jwt-bearer grant.
 */
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { BASE_URL, invalidNames, startHarness, type Harness } from './harness';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
beforeAll(async () => {
  h = await startHarness('mgmttrusted');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
  // A's upstream provider, whose account links linked_identity resolves subjects through.
  const up = await h.call('post', `/auth/admin/tenants/${A}/upstream-providers`, adminA, {
    alias: 'partner',
    type: 'oidc',
    displayName: 'Partner',
    oidc: { issuer: 'https://idp.partner.example', clientId: 'broker', clientSecret: 'upstream-secret' },
  });
  if (up.status !== 201) throw new Error(`fixture upstream provider: ${up.status} ${up.text}`);
});
afterAll(async () => h.close());

const issuers = (t: number) => `/auth/admin/tenants/${t}/trusted-issuers`;
const partner = {
  issuer: 'https://idp.partner.example',
  jwksUri: 'https://idp.partner.example/jwks',
  upstreamProvider: 'partner',
};

let partnerId: string;

it('creates an issuer with safe defaults: one-time, no act, 300 s, RS256 and ES256', async () => {
  const res = await h.call('post', issuers(A), adminA, partner);
  expect(res.status).toBe(201);
  partnerId = res.body.id as string;
  expect(res.headers.location).toMatch(new RegExp(`/trusted-issuers/${partnerId}$`));
  expect(res.body).toMatchObject({
    issuer: partner.issuer,
    jwksUri: partner.jwksUri,
    algorithms: ['RS256', 'ES256'],
    audiences: [],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'partner',
    maxLifetimeSeconds: 300,
    allowReuse: false,
    allowAct: false,
    enabled: true,
  });
  const stored = (await h.db.models.TrustedIssuer.findOne({ tenantId: A, issuer: partner.issuer }).lean())!;
  expect(stored.upstreamProvider).toBe('partner');
  expect((await h.call('get', `${issuers(A)}/${partnerId}`, adminA)).body.issuer).toBe(partner.issuer);
  expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'tenant', id: String(A) });
});

it('refuses bad settings with a problem naming the field, and a duplicate issuer with 409', async () => {
  expect((await h.call('post', issuers(A), adminA, partner)).status).toBe(409);
  const bad = async (body: object, field: string) => {
    const res = await h.call('post', issuers(A), adminA, { ...partner, issuer: 'https://other.example', ...body });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(invalidNames(res).join(' ')).toContain(field);
  };
  await bad({ issuer: 'https://has space.example' }, 'body.issuer');
  await bad({ issuer: 'https://caf\u00e9.example' }, 'body.issuer');
  await bad({ issuer: `${BASE_URL}/auth/${A}` }, 'body.issuer');
  await bad({ jwksUri: 'http://keys.partner.example/jwks' }, 'body.jwksUri');
  await bad({ jwksUri: 'https://user:pw@keys.partner.example/jwks' }, 'body.jwksUri');
  await bad({ algorithms: ['HS256'] }, 'body.algorithms');
  await bad({ algorithms: ['none'] }, 'body.algorithms');
  await bad({ algorithms: [] }, 'body.algorithms');
  await bad({ audiences: ['not a url'] }, 'body.audiences');
  await bad({ audiences: Array.from({ length: 11 }, (_, i) => `urn:example:aud:${i}`) }, 'body.audiences');
  await bad({ maxLifetimeSeconds: 29 }, 'body.maxLifetimeSeconds');
  await bad({ maxLifetimeSeconds: 3601 }, 'body.maxLifetimeSeconds');
  await bad({ subjectMapping: 'email' }, 'body.subjectMapping');
  await bad({ allowReuse: 'yes' }, 'body.allowReuse');
  await bad({ unknownField: 1 }, 'body');
  expect(await h.db.models.TrustedIssuer.countDocuments({ tenantId: A })).toBe(1);
});

it('accepts http to a loopback host, URL and URN audiences, and every allowed algorithm', async () => {
  const res = await h.call('post', issuers(A), adminA, {
    issuer: 'http://127.0.0.1:8080/realms/dev',
    jwksUri: 'http://127.0.0.1:8080/realms/dev/certs',
    algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
    audiences: ['https://api.example/token', 'urn:example:as'],
    subjectMapping: 'user_id',
    maxLifetimeSeconds: 3600,
    allowReuse: true,
    allowAct: true,
    description: 'local development',
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ subjectMapping: 'user_id', allowReuse: true, allowAct: true });
  expect(res.body.upstreamProvider).toBeUndefined();
  expect((await h.call('delete', `${issuers(A)}/${res.body.id}`, adminA)).status).toBe(204);
});

it('linked_identity needs an upstream provider of this tenant; user_id names none', async () => {
  const refused = async (body: object, t = A, token = adminA) => {
    const res = await h.call('post', issuers(t), token, {
      issuer: 'https://mapped.example',
      jwksUri: partner.jwksUri,
      ...body,
    });
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain('body.upstreamProvider');
  };
  await refused({});
  await refused({ subjectMapping: 'linked_identity', upstreamProvider: 'nope' });
  // Tenant B has no provider called partner: A's does not count.
  await refused({ upstreamProvider: 'partner' }, B, adminB);
  await refused({ subjectMapping: 'user_id', upstreamProvider: 'partner' });
  expect(await h.db.models.TrustedIssuer.countDocuments({ issuer: 'https://mapped.example' })).toBe(0);
  const ok = await h.call('post', issuers(A), adminA, {
    issuer: 'https://mapped.example',
    jwksUri: partner.jwksUri,
    subjectMapping: 'user_id',
  });
  expect(ok.status).toBe(201);
  expect((await h.call('delete', `${issuers(A)}/${ok.body.id}`, adminA)).status).toBe(204);
});

it('username_claim needs its claim; just-in-time provisioning is off by default and refused for user_id', async () => {
  const post = (body: object) =>
    h.call('post', issuers(A), adminA, { issuer: 'https://names.example', jwksUri: partner.jwksUri, ...body });
  const noClaim = await post({ subjectMapping: 'username_claim' });
  expect(noClaim.status).toBe(400);
  expect(invalidNames(noClaim)).toContain('body.subjectClaim');
  const claimElsewhere = await post({ subjectMapping: 'user_id', subjectClaim: 'preferred_username' });
  expect(invalidNames(claimElsewhere)).toContain('body.subjectClaim');
  const jitForIds = await post({ subjectMapping: 'user_id', jitProvisioning: true });
  expect(invalidNames(jitForIds)).toContain('body.jitProvisioning');
  const badClaim = await post({ subjectMapping: 'username_claim', subjectClaim: 'has space' });
  expect(invalidNames(badClaim)).toContain('body.subjectClaim');

  const ok = await post({ subjectMapping: 'username_claim', subjectClaim: 'preferred_username' });
  expect(ok.status).toBe(201);
  expect(ok.body).toMatchObject({ subjectClaim: 'preferred_username', jitProvisioning: false });
  const on = await h.call('patch', `${issuers(A)}/${ok.body.id}`, adminA, { jitProvisioning: true });
  expect(on.body).toMatchObject({ subjectMapping: 'username_claim', jitProvisioning: true });
  // Switching to user_id forgets the claim, and refuses while provisioning is on.
  const refused = await h.call('patch', `${issuers(A)}/${ok.body.id}`, adminA, { subjectMapping: 'user_id' });
  expect(invalidNames(refused)).toContain('body.jitProvisioning');
  const switched = await h.call('patch', `${issuers(A)}/${ok.body.id}`, adminA, {
    subjectMapping: 'user_id',
    jitProvisioning: false,
  });
  expect(switched.status).toBe(200);
  expect(switched.body.subjectClaim).toBeUndefined();
  expect((await h.call('delete', `${issuers(A)}/${ok.body.id}`, adminA)).status).toBe(204);
});

it('is the tenant’s own: another tenant gets 404 and an empty list, and changes nothing', async () => {
  expect((await h.call('get', `${issuers(B)}/${partnerId}`, adminB)).status).toBe(404);
  expect((await h.call('patch', `${issuers(B)}/${partnerId}`, adminB, { enabled: false })).status).toBe(404);
  expect((await h.call('delete', `${issuers(B)}/${partnerId}`, adminB)).status).toBe(404);
  expect((await h.call('get', issuers(B), adminB)).body.items).toEqual([]);
  // A's token does not reach B's path either (nor says whether B exists).
  expect((await h.call('get', issuers(B), adminA)).status).toBe(404);
  const stored = (await h.db.models.TrustedIssuer.findById(partnerId).lean())!;
  expect([stored.tenantId, stored.enabled]).toEqual([A, true]);
  expect((await h.call('get', `${issuers(A)}/not-an-id`, adminA)).status).toBe(404);
});

it('PATCH changes settings, keeps the issuer immutable, and checks the merged mapping', async () => {
  const path = `${issuers(A)}/${partnerId}`;
  const res = await h.call('patch', path, adminA, {
    enabled: false,
    algorithms: ['ES384'],
    audiences: ['urn:partner:as'],
    maxLifetimeSeconds: 120,
    description: 'Partner corp',
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    enabled: false,
    algorithms: ['ES384'],
    audiences: ['urn:partner:as'],
    maxLifetimeSeconds: 120,
    description: 'Partner corp',
    upstreamProvider: 'partner',
  });
  const immutable = await h.call('patch', path, adminA, { issuer: 'https://elsewhere.example' });
  expect(immutable.status).toBe(400);
  expect(invalidNames(immutable).join(' ')).toContain('body');
  const noProvider = await h.call('patch', path, adminA, { upstreamProvider: null });
  expect(noProvider.status).toBe(400);
  expect(invalidNames(noProvider)).toContain('body.upstreamProvider');
  const unknown = await h.call('patch', path, adminA, { upstreamProvider: 'nope' });
  expect(invalidNames(unknown)).toContain('body.upstreamProvider');
  const bad = await h.call('patch', path, adminA, { maxLifetimeSeconds: 5000 });
  expect(invalidNames(bad)).toContain('body.maxLifetimeSeconds');
  // Switching to user_id forgets the provider; the description goes with null.
  const toUserId = await h.call('patch', path, adminA, { subjectMapping: 'user_id', description: null });
  expect(toUserId.status).toBe(200);
  expect(toUserId.body.upstreamProvider).toBeUndefined();
  expect(toUserId.body.description).toBeUndefined();
  const stored = (await h.db.models.TrustedIssuer.findById(partnerId).lean())!;
  expect([stored.issuer, stored.subjectMapping, stored.upstreamProvider]).toEqual([
    partner.issuer,
    'user_id',
    undefined,
  ]);
  const back = await h.call('patch', path, adminA, { subjectMapping: 'linked_identity', upstreamProvider: 'partner' });
  expect(back.body).toMatchObject({ subjectMapping: 'linked_identity', upstreamProvider: 'partner' });
});

it('deletes; tenant deletion takes its trusted issuers with it', async () => {
  expect((await h.call('delete', `${issuers(A)}/${partnerId}`, adminA)).status).toBe(204);
  expect((await h.call('get', `${issuers(A)}/${partnerId}`, adminA)).status).toBe(404);
  expect((await h.call('delete', `${issuers(A)}/${partnerId}`, adminA)).status).toBe(404);

  const sys = await h.token(h.tenants.system, [...MANAGEMENT_SCOPES]);
  const T = (await h.call('post', '/auth/admin/tenants', sys, { name: 'doomed' })).body.id as number;
  const admin = await h.token(T, [...MANAGEMENT_SCOPES]);
  const made = await h.call('post', issuers(T), admin, {
    ...partner,
    subjectMapping: 'user_id',
    upstreamProvider: undefined,
  });
  expect(made.status).toBe(201);
  expect(await h.db.models.TrustedIssuer.countDocuments({ tenantId: T })).toBe(1);
  expect((await h.call('delete', `/auth/admin/tenants/${T}`, sys)).status).toBe(204);
  expect(await h.db.models.TrustedIssuer.countDocuments({ tenantId: T })).toBe(0);
});

describe('clients: the jwt-bearer grant (RFC 7523 section 2.1)', () => {
  const path = () => `/auth/admin/tenants/${A}/clients`;

  it('is refused to a public client (tokenEndpointAuthMethod none)', async () => {
    const res = await h.call('post', path(), adminA, {
      clientId: 'assertion-public',
      name: 'public',
      grantTypes: [JWT_BEARER],
      tokenEndpointAuthMethod: 'none',
    });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/problem\+json/);
    expect(invalidNames(res)).toContain('body.grantTypes');
    expect(await h.db.models.Client.countDocuments({ tenantId: A, clientId: 'assertion-public' })).toBe(0);
  });

  it('is allowed to a client that authenticates (client_secret_basic); it may not turn public afterwards', async () => {
    const res = await h.call('post', path(), adminA, {
      clientId: 'assertion-redeemer',
      name: 'redeemer',
      grantTypes: [JWT_BEARER],
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(res.status).toBe(201);
    expect(res.body.grantTypes).toEqual([JWT_BEARER]);
    expect(typeof res.body.clientSecret).toBe('string');
    const stored = (await h.db.models.Client.findOne({ tenantId: A, clientId: 'assertion-redeemer' }).lean())!;
    expect(stored.grantTypes).toEqual([JWT_BEARER]);
    const listed = await h.call('get', `${path()}?grantType=${encodeURIComponent(JWT_BEARER)}`, adminA);
    expect(listed.body.items.map((c: { clientId: string }) => c.clientId)).toEqual(['assertion-redeemer']);
    const pub = await h.call('patch', `${path()}/assertion-redeemer`, adminA, { tokenEndpointAuthMethod: 'none' });
    expect(pub.status).toBe(400);
    expect(invalidNames(pub)).toContain('body.grantTypes');
  });
});
