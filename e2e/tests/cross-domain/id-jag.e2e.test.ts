/**
 * Two organisations, two tenants of this product: tenant A is the enterprise identity provider, tenant B the
 * authorization server of an API (for example an MCP server). A person signs in at A; A's client exchanges the
 * person's ID token for an Identity Assertion Authorization Grant (ID-JAG) for B's API; B redeems it with the JWT
 * bearer grant as the user A's person is linked to. A issues only what its (audience, resource) table allows; B
 * redeems each ID-JAG once.
 */
import { randomInt } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { createClient, seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { basicAuth, browserlessLogin } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(120_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';

let h: Harness;
let b: SeededTenant;
let issuerA = '';
let issuerB = '';
let agentAtB: { clientId: string; clientSecret: string };

beforeAll(async () => {
  h = await startHarness('id-jag', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } });
  const { models } = h.db;
  const keyStore = new KeyStore(models, new KeyEncryptionKey(h.topology.secrets.keyEncryptionKey));
  b = await seedDelegationTenant(models, keyStore, {
    tenantId: randomInt(10_000, 1_000_000),
    tenantName: 'e2e-id-jag-b',
    clientSecretPepper: h.topology.secrets.clientSecretPepper,
  });
  issuerA = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  issuerB = `${h.topology.baseUrl}/auth/${b.tenantId}`;
  // A: which audience, resource and scopes its ID-JAGs may name, and its client's id at B.
  await models.IdJagAudience.create({
    tenantId: h.tenant.tenantId,
    audience: issuerB,
    resources: [b.resource],
    clients: [{ clientId: h.tenant.client.clientId, clientIdAtAudience: 'org-a-agent' }],
    scopes: ['orders:read'],
  });
  // B: A's people are linked to B's users through an upstream provider for A, and A is a trusted issuer.
  await models.UpstreamProvider.create({
    tenantId: b.tenantId,
    alias: 'org-a',
    displayName: 'Org A',
    type: 'oidc',
    oidc: {
      issuer: issuerA,
      clientId: 'b-at-a',
      clientAuthMethod: 'client_secret_basic',
      scopes: ['openid'],
      pkce: true,
      subjectClaim: 'sub',
      fetchUserinfo: false,
    },
  });
  await models.UpstreamLink.create({
    tenantId: b.tenantId,
    provider: 'org-a',
    subject: h.tenant.user.id,
    issuer: issuerA,
    userId: b.user.id,
    linkedBy: 'admin',
  });
  await models.TrustedIssuer.create({
    tenantId: b.tenantId,
    issuer: issuerA,
    jwksUri: `${issuerA}/jwks`,
    algorithms: ['RS256', 'ES256'],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'org-a',
  });
  agentAtB = await createClient(models, h.topology.secrets.clientSecretPepper, {
    tenantId: b.tenantId,
    clientId: 'org-a-agent',
    name: 'Org A agent',
    grantTypes: [JWT_BEARER],
    redirectUris: [],
  });
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

async function post(url: string, client: { clientId: string; clientSecret: string }, body: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const idToken = async () =>
  (
    await browserlessLogin({
      baseUrl: h.topology.baseUrl,
      tenantId: h.tenant.tenantId,
      clientId: h.tenant.client.clientId,
      clientSecret: h.tenant.client.clientSecret,
      redirectUri: h.tenant.client.redirectUri,
      username: h.tenant.user.username,
      password: h.tenant.user.password,
      scope: 'openid',
    })
  ).id_token!;

const exchangeAtA = async (
  overrides: Record<string, string> = {},
  client: { clientId: string; clientSecret: string } = h.tenant.client,
) =>
  post(`${issuerA}/oidc/token`, client, {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    subject_token: await idToken(),
    subject_token_type: ID_TOKEN,
    audience: issuerB,
    resource: b.resource,
    scope: 'orders:read orders:write',
    ...overrides,
  });

it("A issues an ID-JAG for B's API; B redeems it once, as the user A's person is linked to", async () => {
  const issued = await exchangeAtA();
  expect(issued.status).toBe(200);
  expect(issued.body).toMatchObject({ issued_token_type: ID_JAG, token_type: 'N_A', scope: 'orders:read' });
  const jag = String(issued.body.access_token);
  expect(decodeProtectedHeader(jag).typ).toBe('oauth-id-jag+jwt');
  expect(decodeJwt(jag)).toMatchObject({
    iss: issuerA,
    sub: h.tenant.user.id,
    aud: issuerB,
    client_id: 'org-a-agent',
    resource: b.resource,
    scope: 'orders:read',
  });

  const redeemed = await post(`${issuerB}/oidc/token`, agentAtB, { grant_type: JWT_BEARER, assertion: jag });
  expect(redeemed.status).toBe(200);
  const at = decodeJwt(String(redeemed.body.access_token));
  expect(at).toMatchObject({ iss: issuerB, sub: b.user.id, aud: b.resource, scope: 'orders:read' });
  const again = await post(`${issuerB}/oidc/token`, agentAtB, { grant_type: JWT_BEARER, assertion: jag });
  expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  // A's own client cannot redeem it at B (client_id is B's name for A's agent).
  const fresh = String((await exchangeAtA()).body.access_token);
  const wrongClient = await post(`${issuerB}/oidc/token`, b.client, { grant_type: JWT_BEARER, assertion: fresh });
  expect(wrongClient.status).toBe(400);
});

it.each<[string, Record<string, string>, string]>([
  ['an audience A has no entry for', { audience: 'https://as.elsewhere.example' }, 'invalid_target'],
  ['a resource outside the pair table', { resource: 'https://api.elsewhere.example' }, 'invalid_target'],
  ['scopes the table does not allow', { scope: 'orders:refund' }, 'invalid_scope'],
  // An access token subject is an agent's delegation token (agent ID-JAGs): the person's ID token is none.
  [
    'an ID token presented as an access token (not an agent’s delegation token)',
    { subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
    'invalid_grant',
  ],
  [
    'a subject token of another type',
    { subject_token_type: 'urn:ietf:params:oauth:token-type:jwt' },
    'invalid_request',
  ],
])('A refuses %s', async (_name, overrides, error) => {
  const res = await exchangeAtA(overrides);
  expect(res.status).toBe(400);
  expect(res.body.error).toBe(error);
});

it("A refuses another client's ID token, and a client not listed for the audience", async () => {
  const other = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
    tenantId: h.tenant.tenantId,
    clientId: 'unlisted',
    name: 'Unlisted',
    grantTypes: [TOKEN_EXCHANGE],
    redirectUris: [],
  });
  const res = await exchangeAtA({}, other);
  // The ID token was issued to the demo client, not to this one.
  expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  await h.db.models.IdJagAudience.updateOne(
    { tenantId: h.tenant.tenantId, audience: issuerB },
    { $set: { clients: [] } },
  );
  try {
    expect((await exchangeAtA()).body.error).toBe('invalid_target');
  } finally {
    await h.db.models.IdJagAudience.updateOne(
      { tenantId: h.tenant.tenantId, audience: issuerB },
      { $set: { clients: [{ clientId: h.tenant.client.clientId, clientIdAtAudience: 'org-a-agent' }] } },
    );
  }
});
