/**
 * The spec's scope table, row by row, through real logins (authorization code + PKCE) against oidc-core: what each
 * login scope releases in the ID token and in UserInfo (opaque access token, and JWT access token for the tenant's
 * UserInfo audience), what stays UserInfo-only, and that nothing is released without the scope. Plus discovery.
 */
import { createLocalJWKSet, jwtVerify } from 'jose';
import { createClient, seedDelegationTenant } from '@idp/testing';
import { SCOPE_CLAIMS, STANDARD_SCOPE_CLAIMS, SUPPORTED_SCOPES, USERINFO_ONLY_CLAIMS } from '../src/provider/claims';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, clientCredentials, jwtPayload, userinfo, type TestClient } from './scopes-harness';

const REPORTS = 'https://api.reports.example';
const REDIRECT = 'http://127.0.0.1:8402/callback';

let app: PagesApp;
let client: TestClient;
let legacy: TestClient;
let issuer: string;

const profileClaims = {
  name: 'Alice Example',
  given_name: 'Alice',
  family_name: 'Example',
  picture: 'https://img.example/alice.png',
  locale: 'en-GB',
  preferred_username: 'alice',
};
const address = {
  formatted: '1 Main St, Springfield',
  street_address: '1 Main St',
  locality: 'Springfield',
  postal_code: '12345',
  country: 'US',
};
const federated = [{ provider: 'era-commons', subject: 'ALICE01' }];
const visas = [
  {
    type: 'ControlledAccessGrants',
    value: 'https://dac.example/datasets/phs000001',
    source: 'https://dac.example',
    by: 'dac',
    asserted: 1700000000,
  },
];

beforeAll(async () => {
  app = await startPagesApp('scopeclaims');
  const { models } = app.db;
  const t = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${t}`;
  await models.ResourceServer.create({ tenantId: t, identifier: REPORTS, name: 'Reports', scopes: ['reports:read'] });
  const viewer = await models.Role.create({
    tenantId: t,
    name: 'reports-viewer',
    resourceServer: REPORTS,
    permissions: ['reports:read'],
  });
  const group = await models.Group.create({ tenantId: t, name: 'analysts', roleIds: [String(viewer._id)] });
  await models.User.updateOne(
    { tenantId: t, _id: app.tenant.user.id },
    {
      $set: {
        claims: {
          ...profileClaims,
          email: 'alice@example.com',
          email_verified: true,
          phone_number: '+1 555 0100',
          phone_number_verified: false,
          address,
        },
        groupIds: [String(group._id)],
        externalGroups: ['corp-engineering'],
        identityProvider: 'corp-saml',
        linkedIdentity: { provider: 'github', subject: '12345' },
        providerClaims: { upn: 'alice@corp.example', department: 'R&D' },
        federatedIdentities: federated,
        customClaims: { employee_id: 'E-1' },
        ga4ghVisas: visas,
      },
    },
  );
  await models.Tenant.updateOne(
    { _id: t },
    {
      $set: {
        'settings.claims': { amrProfile: 'rfc8176', ga4ghPassport: { enabled: true, visaLifetimeSeconds: 600 } },
      },
    },
  );
  app.pool.evict(t);
  const make = async (clientId: string) => ({
    ...(await createClient(models, PEPPER, {
      tenantId: t,
      clientId,
      name: clientId,
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      responseTypes: ['code'],
      redirectUris: [REDIRECT],
      firstParty: true,
    })),
    redirectUri: REDIRECT,
  });
  client = await make('claims-app');
  legacy = await make('legacy-app');
  await models.Client.updateOne(
    { tenantId: t, clientId: 'legacy-app' },
    { $set: { 'config.legacyRoleCompatibility': true } },
  );
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

async function login(scope: string, o: { client?: TestClient; resource?: string; prompt?: string } = {}) {
  const res = await authCodeFlow(app, o.client ?? client, { scope, resource: o.resource, prompt: o.prompt });
  expect(res.body.error).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * Every row of the spec's scope table: expected claim values in UserInfo, and in the ID token unless UserInfo-only
 * or (OpenID Connect Core 5.4, the access token here being opaque, so it can call UserInfo) a claim of the profile,
 * email, address or phone scope.
 */
const rows: Array<[scope: string, expected: () => Record<string, unknown>]> = [
  ['openid', () => ({ sub: app.tenant.user.id })],
  ['iss', () => ({ iss: issuer })],
  ['address', () => ({ address })],
  ['email', () => ({ email: 'alice@example.com', email_verified: true })],
  ['phone', () => ({ phone_number: '+1 555 0100', phone_number_verified: false })],
  [
    'profile',
    () => ({
      ...profileClaims,
      // Keyed by resource-server identifier; the reports role comes through the analysts group.
      resource_roles: { 'https://api.orders.example': ['orders-clerk'], [REPORTS]: ['reports-viewer'] },
    }),
  ],
  ['external_groups', () => ({ external_groups: ['corp-engineering'] })],
  ['tenant', () => ({ tenant: { id: app.tenant.tenantId, name: app.tenant.tenantName } })],
  ['groups', () => ({ groups: ['analysts'] })],
  ['identity_provider', () => ({ identity_provider: 'corp-saml' })],
  ['linked_identity', () => ({ linked_identity: { provider: 'github', subject: '12345' } })],
  ['amr', () => ({ amr: ['pwd'] })],
  ['custom_claims', () => ({ custom_claims: { employee_id: 'E-1' } })],
  ['provider_claims', () => ({ provider_claims: { upn: 'alice@corp.example', department: 'R&D' } })],
  ['ga4gh_passport_v1', () => ({ ga4gh_passport_v1: [expect.stringMatching(/^ey[\w-]+\.[\w-]+\.[\w-]+$/)] })],
  ['federated_identities', () => ({ federated_identities: { identities: federated } })],
];

describe('scope table: one row per scope', () => {
  let baselineId: Record<string, unknown>;
  let baselineInfo: Record<string, unknown>;

  beforeAll(async () => {
    const tokens = await login('openid');
    baselineId = jwtPayload(tokens.id_token)!;
    baselineInfo = (await userinfo(app, tokens.access_token!)).body;
  });

  it('openid alone releases the subject only', () => {
    expect(baselineInfo).toEqual({ sub: app.tenant.user.id });
    for (const claims of Object.entries(SCOPE_CLAIMS)
      .filter(([s]) => s !== 'openid')
      .map(([, c]) => c)) {
      for (const c of claims) {
        expect(baselineInfo).not.toHaveProperty(c);
        if (c !== 'iss') expect(baselineId).not.toHaveProperty(c);
      }
    }
  });

  it.each(rows)('%s', async (scope, expected) => {
    const tokens = await login(scope === 'openid' ? 'openid' : `openid ${scope}`);
    const want = expected();
    const info = await userinfo(app, tokens.access_token!);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject(want);
    expect(info.body.sub).toBe(app.tenant.user.id);
    // Nothing beyond the row's claims (and sub).
    expect(Object.keys(info.body).sort()).toEqual([...new Set(['sub', ...Object.keys(want)])].sort());
    const idToken = jwtPayload(tokens.id_token)!;
    for (const [claim, value] of Object.entries(want)) {
      if (USERINFO_ONLY_CLAIMS.has(claim) || STANDARD_SCOPE_CLAIMS.has(claim))
        expect(idToken).not.toHaveProperty(claim);
      else if (claim === 'iss') expect(idToken.iss).toBe(issuer);
      else expect(idToken[claim]).toEqual(value);
    }
  });

  it('an access token for an API cannot call UserInfo: the profile, email, address and phone claims stay in the ID token', async () => {
    const tokens = await login('openid profile email address phone', { resource: REPORTS });
    const idToken = jwtPayload(tokens.id_token)!;
    for (const [scope, expected] of rows.filter(([s]) => ['profile', 'email', 'address', 'phone'].includes(s))) {
      for (const [claim, value] of Object.entries(expected()))
        if (!USERINFO_ONLY_CLAIMS.has(claim)) expect([scope, idToken[claim]]).toEqual([scope, value]);
    }
  });

  it('offline_access: a refresh token only with the scope (and consent), never in a JWT access token scope', async () => {
    expect((await login('openid')).refresh_token).toBeUndefined();
    const tokens = await login('openid offline_access', { prompt: 'consent', resource: 'https://api.orders.example' });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const at = jwtPayload(tokens.access_token)!;
    expect(String(at.scope ?? '')).not.toMatch(/offline_access|openid/);
  });

  it('profile: flattened access_roles / roles only for a client with legacy role compatibility', async () => {
    const plain = await userinfo(app, (await login('openid profile')).access_token!);
    expect(plain.body).not.toHaveProperty('access_roles');
    expect(plain.body).not.toHaveProperty('roles');
    const old = await userinfo(app, (await login('openid profile', { client: legacy })).access_token!);
    expect(old.body.access_roles).toEqual(['orders-clerk', 'reports-viewer']);
    expect(old.body.roles).toEqual(['orders-clerk', 'reports-viewer']);
    expect(old.body.resource_roles).toEqual({
      'https://api.orders.example': ['orders-clerk'],
      [REPORTS]: ['reports-viewer'],
    });
  });

  it('ga4gh_passport_v1: visas are JWTs signed with the tenant key, verifiable through its JWKS', async () => {
    const info = await userinfo(app, (await login('openid ga4gh_passport_v1')).access_token!);
    const [visa] = info.body.ga4gh_passport_v1 as string[];
    const jwks = (await (await fetch(`${issuer}/jwks`)).json()) as { keys: object[] };
    const { payload } = await jwtVerify(visa!, createLocalJWKSet(jwks as never), {
      issuer,
      subject: app.tenant.user.id,
    });
    expect(payload.ga4gh_visa_v1).toEqual(visas[0]);
    expect(payload.exp! - payload.iat!).toBe(600);
  });
});

describe('UserInfo with a JWT access token for the tenant UserInfo audience', () => {
  const every = SUPPORTED_SCOPES.filter((s) => s !== 'offline_access').join(' ');

  it('releases the same claims as the opaque access token, and no login scope in `scope`', async () => {
    const opaque = await login(every);
    expect(jwtPayload(opaque.access_token)).toBeUndefined();
    const viaOpaque = (await userinfo(app, opaque.access_token!)).body;

    const jwt = await login(every, { resource: `${issuer}/me` });
    const at = jwtPayload(jwt.access_token)!;
    expect(at.aud).toBe(`${issuer}/me`);
    expect(at).not.toHaveProperty('scope');
    expect(String(at['org.vendor.userinfo.scope']).split(' ').sort()).toEqual(every.split(' ').sort());
    expect(at.amr).toEqual(['pwd']);
    const viaJwt = await userinfo(app, jwt.access_token!);
    expect(viaJwt.status).toBe(200);
    const strip = (o: Record<string, unknown>) => ({
      ...o,
      ga4gh_passport_v1: (o.ga4gh_passport_v1 as unknown[]).length,
    });
    expect(strip(viaJwt.body)).toEqual(strip(viaOpaque));
    for (const [, expected] of rows) expect(viaJwt.body).toMatchObject(expected());
  });

  it('refuses JWT access tokens of other audiences, tampered tokens and foreign issuers with 401 invalid_token', async () => {
    const api = await login('openid profile', { resource: 'https://api.orders.example' });
    const other = await userinfo(app, api.access_token!);
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    const good = (await login('openid', { resource: `${issuer}/me` })).access_token!;
    const [h, p, s] = good.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...jwtPayload(good), sub: 'someone-else' })).toString('base64url')}.${s}`;
    expect((await userinfo(app, tampered)).status).toBe(401);
    expect((await userinfo(app, `${h}.${p}.${s}`)).status).toBe(200);
  });

  it('client credentials can neither target the UserInfo audience nor call UserInfo', async () => {
    const cc = await clientCredentials(app, client, { resource: `${issuer}/me` });
    expect(cc.status).toBe(400);
    expect(cc.body.error).toBe('invalid_target');
    const api = await clientCredentials(app, client, { resource: 'https://api.orders.example' });
    expect(api.status).toBe(200);
    expect((await userinfo(app, api.body.access_token!)).status).toBe(401);
  });
});

describe('tenant isolation and tenant settings', () => {
  it('a UserInfo JWT of one tenant is refused by another tenant (401 invalid_token)', async () => {
    const other = await seedDelegationTenant(app.db.models, app.keyStore, {
      tenantId: app.tenant.tenantId + 1,
      tenantName: 'other',
      clientSecretPepper: PEPPER,
    });
    const jwt = (await login('openid email', { resource: `${issuer}/me` })).access_token!;
    const res = await fetch(`${app.baseUrl}/auth/${other.tenantId}/me`, {
      headers: { authorization: `Bearer ${jwt}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });

  it('ga4gh_passport_v1 is released only while the tenant enables passport issuance', async () => {
    const t = app.tenant.tenantId;
    await app.db.models.Tenant.updateOne({ _id: t }, { $set: { 'settings.claims.ga4ghPassport.enabled': false } });
    app.pool.evict(t);
    try {
      const info = await userinfo(app, (await login('openid ga4gh_passport_v1 email')).access_token!);
      expect(info.status).toBe(200);
      expect(info.body).not.toHaveProperty('ga4gh_passport_v1');
      expect(info.body.email).toBe('alice@example.com');
    } finally {
      await app.db.models.Tenant.updateOne({ _id: t }, { $set: { 'settings.claims.ga4ghPassport.enabled': true } });
      app.pool.evict(t);
    }
  });
});

describe('discovery', () => {
  it('lists every scope and claim of the table', async () => {
    const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      scopes_supported: string[];
      claims_supported: string[];
      userinfo_endpoint: string;
    };
    expect([...doc.scopes_supported].sort()).toEqual([...SUPPORTED_SCOPES].sort());
    for (const claims of Object.values(SCOPE_CLAIMS)) for (const c of claims) expect(doc.claims_supported).toContain(c);
    expect(doc.userinfo_endpoint).toBe(`${issuer}/me`);
  });
});
