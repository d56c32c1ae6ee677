/**
 * Scopes and claims end to end, every service a process behind the dev router: openid-client (from discovery alone) signs a
 * user in with every login scope the tenant advertises and reads UserInfo, which holds the claims of every scope;
 * and the discovery lists (scopes_supported, claims_supported) match what the tenant actually serves.
 */
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { createClient } from '@idp/testing';
import { FormAgent } from '../../src/clients/form-agent';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const REDIRECT = 'http://127.0.0.1:8400/callback';
/** The spec's scope table (identity-provider.md, "Scopes"). */
const SPEC_SCOPES = [
  'openid',
  'offline_access',
  'iss',
  'address',
  'email',
  'phone',
  'profile',
  'external_groups',
  'tenant',
  'groups',
  'identity_provider',
  'linked_identity',
  'amr',
  'custom_claims',
  'provider_claims',
  'ga4gh_passport_v1',
  'federated_identities',
];
/** Claims each scope must bring to UserInfo for a user who has data for all of them. */
const EXPECTED_CLAIMS: Record<string, string[]> = {
  openid: ['sub'],
  iss: ['iss'],
  address: ['address'],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  profile: ['name', 'given_name', 'family_name', 'resource_roles'],
  external_groups: ['external_groups'],
  tenant: ['tenant'],
  groups: ['groups'],
  identity_provider: ['identity_provider'],
  linked_identity: ['linked_identity'],
  amr: ['amr'],
  custom_claims: ['custom_claims'],
  provider_claims: ['provider_claims'],
  ga4gh_passport_v1: ['ga4gh_passport_v1'],
  federated_identities: ['federated_identities'],
};

let h: Harness;
let client: { clientId: string; clientSecret: string };
let issuer: string;

beforeAll(async () => {
  h = await startHarness('claims');
  const t = h.tenant.tenantId;
  const m = h.db.models;
  issuer = `${h.topology.baseUrl}/auth/${t}`;
  // Tenant settings first: the tenant's provider is built on its first request.
  await m.Tenant.updateOne(
    { _id: t },
    {
      $set: {
        'settings.claims': { amrProfile: 'rfc8176', ga4ghPassport: { enabled: true, visaLifetimeSeconds: 900 } },
      },
    },
  );
  const group = await m.Group.create({ tenantId: t, name: 'support', roleIds: [] });
  await m.User.updateOne(
    { tenantId: t, _id: h.tenant.user.id },
    {
      $set: {
        'claims.phone_number': '+1 555 0101',
        'claims.phone_number_verified': true,
        'claims.address': { formatted: '2 Side St', country: 'US' },
        groupIds: [String(group._id)],
        externalGroups: ['okta-admins'],
        identityProvider: 'okta',
        linkedIdentity: { provider: 'github', subject: '777' },
        providerClaims: { okta_id: '00u1' },
        federatedIdentities: [{ provider: 'era-commons', subject: 'ALICE' }],
        customClaims: { cost_center: 'CC-9' },
        ga4ghVisas: [
          {
            type: 'AffiliationAndRole',
            value: 'faculty@example.edu',
            source: 'https://example.edu',
            by: 'so',
            asserted: 1700000000,
          },
        ],
      },
    },
  );
  client = await createClient(m, h.topology.secrets.clientSecretPepper, {
    tenantId: t,
    clientId: 'claims-rp',
    name: 'Claims RP',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
    firstParty: true,
  });
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

async function discover() {
  return oidc.discovery(
    new URL(issuer),
    client.clientId,
    client.clientSecret,
    oidc.ClientSecretBasic(client.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
}

test('discovery lists exactly the scope table and every claim it releases', async () => {
  const meta = (await discover()).serverMetadata();
  expect([...(meta.scopes_supported ?? [])].sort()).toEqual([...SPEC_SCOPES].sort());
  for (const claims of Object.values(EXPECTED_CLAIMS))
    for (const c of claims) expect(meta.claims_supported).toContain(c);
  expect(meta.claims_supported).toEqual(expect.arrayContaining(['access_roles', 'roles']));
});

test('openid-client reads UserInfo for a user granted every scope, and discovery matches what is served', async () => {
  const config = await discover();
  const meta = config.serverMetadata();
  const scope = meta.scopes_supported!.join(' ');
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    prompt: 'consent',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const end = await new FormAgent().drive(
    url.toString(),
    { username: h.tenant.user.username, password: h.tenant.user.password },
    REDIRECT,
  );
  const tokens = await oidc.authorizationCodeGrant(config, new URL(end.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
  // Every advertised scope was accepted and granted.
  expect(tokens.scope!.split(' ').sort()).toEqual([...meta.scopes_supported!].sort());
  expect(tokens.refresh_token).toBeTruthy();

  const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
  for (const [s, claims] of Object.entries(EXPECTED_CLAIMS))
    for (const c of claims)
      expect({ scope: s, claim: c, present: c in info }).toEqual({ scope: s, claim: c, present: true });
  expect(info).toMatchObject({
    iss: issuer,
    tenant: { id: h.tenant.tenantId, name: h.tenant.tenantName },
    groups: ['support'],
    external_groups: ['okta-admins'],
    identity_provider: 'okta',
    amr: ['pwd'],
    custom_claims: { cost_center: 'CC-9' },
    resource_roles: { [h.tenant.resource]: ['orders-clerk'] },
  });
  const [visa] = info.ga4gh_passport_v1 as string[];
  expect(decodeJwt(visa!)).toMatchObject({
    iss: issuer,
    sub: h.tenant.user.id,
    ga4gh_visa_v1: { type: 'AffiliationAndRole' },
  });
  // Everything served is advertised.
  for (const claim of Object.keys(info)) expect(meta.claims_supported).toContain(claim);
  // UserInfo-only claims stay out of the ID token, and so (OpenID Connect Core 5.4: the access token can call
  // UserInfo) do the profile, email, address and phone claims; the rest of the table is in it.
  const idToken = tokens.claims()!;
  for (const c of [
    'custom_claims',
    'ga4gh_passport_v1',
    'groups',
    'resource_roles',
    'federated_identities',
    'provider_claims',
    'external_groups',
  ])
    expect(idToken).not.toHaveProperty(c);
  for (const c of ['email', 'email_verified', 'name', 'phone_number', 'address']) expect(idToken).not.toHaveProperty(c);
  expect(idToken).toMatchObject({ tenant: { id: h.tenant.tenantId }, amr: ['pwd'], identity_provider: 'okta' });
});
