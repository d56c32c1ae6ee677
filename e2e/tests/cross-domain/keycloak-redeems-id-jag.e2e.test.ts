/**
 * Our tenant as the enterprise identity provider, a real Keycloak as the resource authorization server: Keycloak's
 * experimental receiver of Identity Assertion Authorization Grants (draft-ietf-oauth-identity-assertion-authz-grant,
 * Keycloak's guide "Identity Assertion JWT Authorization Grant") redeems the ID-JAG our token exchange issues. A person
 * signs in at our tenant; our client exchanges the person's ID token for an ID-JAG whose audience is the Keycloak
 * realm; the client presents it there with the JWT bearer grant (RFC 7523 section 2.1) and gets an access token for
 * the Keycloak user linked to our user. Keycloak takes each ID-JAG once, only from the client the ID-JAG's `client_id`
 * names, and only for a user already linked to our tenant (no provisioning on this path).
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { basicAuth, browserlessLogin } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startAll } from '../../src/start-all';
import { KEYCLOAK_PASSWORD, keycloak, type Keycloak } from '../../src/upstream/keycloak';

jest.setTimeout(180_000);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
/** Keycloak's alias of the identity provider that stands for our tenant. */
const IDP_ALIAS = 'enterprise-idp';
/** The Keycloak client that our client is at Keycloak (the ID-JAG's `client_id`), and one it is not. */
const AGENT = { clientId: 'mcp-agent', clientSecret: `agent-${randomBytes(8).toString('hex')}` };
const OTHER = { clientId: 'other-agent', clientSecret: `other-${randomBytes(8).toString('hex')}` };
/** A resource at the Keycloak side that the ID-JAG names (RFC 8707), and the scope it carries. */
const RESOURCE = 'https://mcp.resource.example/';
const SCOPE = 'tools:read';

let h: Harness;
let kc: Keycloak;
let realm = '';
let realmIssuer = '';
let ourIssuer = '';
let kcUserId = '';

async function kcAdmin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${kc.url}/admin/realms/${realm}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await kc.adminToken()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Keycloak ${method} ${path}: ${res.status} ${text}`);
  return text === '' ? undefined : JSON.parse(text);
}

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

/** What our client does: sign the person in (ID token), then exchange it for an ID-JAG for the Keycloak realm. */
async function idJag(): Promise<string> {
  const { id_token: idToken } = await browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    scope: 'openid',
  });
  expect(idToken).toBeDefined();
  const issued = await post(`${ourIssuer}/oidc/token`, h.tenant.client, {
    grant_type: TOKEN_EXCHANGE,
    requested_token_type: ID_JAG,
    subject_token: String(idToken),
    subject_token_type: ID_TOKEN,
    audience: realmIssuer,
    resource: RESOURCE,
    scope: SCOPE,
  });
  expect(issued).toMatchObject({ status: 200, body: { issued_token_type: ID_JAG } });
  return String(issued.body.access_token);
}

/** The JWT bearer grant at Keycloak's token endpoint, the client authenticating with its secret. */
const redeem = (assertion: string, client = AGENT) =>
  post(`${realmIssuer}/protocol/openid-connect/token`, client, { grant_type: JWT_BEARER, assertion });

beforeAll(async () => {
  await startAll([
    startHarness('kc-redeems-id-jag', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } }).then((v) => (h = v)),
    keycloak().then((v) => (kc = v)),
  ]);
  ourIssuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  realm = `id-jag-${randomBytes(4).toString('hex')}`;
  realmIssuer = kc.issuer(realm);
  const discovery = (await (await fetch(`${ourIssuer}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;
  expect(discovery.issuer).toBe(ourIssuer);

  // The resource authorization server, as Keycloak's guide configures the receiver: our tenant as an OpenID
  // Connect identity provider with the JWT authorization grant on (one-time assertions, at most 5 minutes), its
  // keys from our JWKS; a confidential client allowed the grant through that provider; a user of its own.
  const grantClient = (c: { clientId: string; clientSecret: string }) => ({
    clientId: c.clientId,
    enabled: true,
    publicClient: false,
    secret: c.clientSecret,
    standardFlowEnabled: false,
    serviceAccountsEnabled: true,
    consentRequired: false,
    attributes: {
      'oauth2.jwt.authorization.grant.enabled': 'true',
      'oauth2.jwt.authorization.grant.idp': IDP_ALIAS,
    },
  });
  await kc.createRealm({
    realm,
    enabled: true,
    sslRequired: 'none',
    identityProviders: [
      {
        alias: IDP_ALIAS,
        providerId: 'oidc',
        enabled: true,
        displayName: 'Enterprise IdP',
        config: {
          issuer: ourIssuer,
          authorizationUrl: discovery.authorization_endpoint,
          tokenUrl: discovery.token_endpoint,
          jwksUrl: discovery.jwks_uri,
          useJwksUrl: 'true',
          validateSignature: 'true',
          clientId: 'keycloak-at-enterprise',
          clientSecret: 'unused',
          clientAuthMethod: 'client_secret_basic',
          jwtAuthorizationGrantEnabled: 'true',
          jwtAuthorizationGrantAssertionReuseAllowed: 'false',
          jwtAuthorizationGrantMaxAllowedAssertionExpiration: '300',
        },
      },
    ],
    clients: [grantClient(AGENT), grantClient(OTHER)],
    users: [
      {
        username: 'pat',
        enabled: true,
        email: 'pat@resource.example',
        emailVerified: true,
        firstName: 'Pat',
        lastName: 'Resource',
        credentials: [{ type: 'password', value: KEYCLOAK_PASSWORD, temporary: false }],
      },
    ],
  });
  const [user] = (await kcAdmin('GET', '/users?exact=true&username=pat')) as Array<{ id: string }>;
  kcUserId = user!.id;

  // Our tenant: the ID-JAGs it may issue for that realm, and the name our client has there.
  await h.db.models.IdJagAudience.create({
    tenantId: h.tenant.tenantId,
    audience: realmIssuer,
    resources: [RESOURCE],
    clients: [{ clientId: h.tenant.client.clientId, clientIdAtAudience: AGENT.clientId }],
    scopes: [SCOPE],
  });
}, 180_000);

afterAll(async () => {
  if (realm)
    await ifAssigned(kc)
      ?.deleteRealm(realm)
      .catch(() => undefined);
  await ifAssigned(kc)?.stop();
  await ifAssigned(h)?.stop();
});

it('Keycloak redeems our ID-JAG once, for the linked user, from the client it names', async () => {
  const jag = await idJag();
  expect(decodeProtectedHeader(jag)).toMatchObject({ alg: 'RS256', typ: 'oauth-id-jag+jwt' });
  expect(decodeJwt(jag)).toMatchObject({
    iss: ourIssuer,
    sub: h.tenant.user.id,
    aud: realmIssuer,
    client_id: AGENT.clientId,
    resource: RESOURCE,
    scope: SCOPE,
  });

  // Nobody at Keycloak is linked to our user yet: Keycloak provisions no one on this path.
  const unlinked = await redeem(jag);
  expect(unlinked).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'User not found' },
  });

  // The guide's account mapping: the Keycloak user's federated identity at our tenant is our user (the ID-JAG's sub).
  await kcAdmin('POST', `/users/${kcUserId}/federated-identity/${IDP_ALIAS}`, {
    identityProvider: IDP_ALIAS,
    userId: h.tenant.user.id,
    userName: h.tenant.user.username,
  });

  const fresh = await idJag();
  const redeemed = await redeem(fresh);
  expect(redeemed.status).toBe(200);
  expect(redeemed.body.refresh_token).toBeUndefined();
  const at = decodeJwt(String(redeemed.body.access_token));
  expect(at).toMatchObject({ iss: realmIssuer, sub: kcUserId, azp: AGENT.clientId });

  // One-time use: RFC 7523 section 3 lets the server refuse a `jti` it has seen; Keycloak's ID-JAG receiver always
  // does, whatever the provider's reuse setting.
  const replayed = await redeem(fresh);
  expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(replayed.body.error_description)).toMatch(/reuse/i);

  // Another client of the realm, though allowed the grant through the same provider, is not the ID-JAG's client_id.
  const wrongClient = await redeem(await idJag(), OTHER);
  expect(wrongClient).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(wrongClient.body.error_description)).toMatch(/client id in assertion/);
});
