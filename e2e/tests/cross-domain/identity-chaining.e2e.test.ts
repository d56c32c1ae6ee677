/**
 * Identity and authorization chaining across domains (draft-ietf-oauth-identity-chaining) with a real Keycloak as
 * trust domain A: Keycloak's standard token exchange, asked for our tenant's issuer as audience, issues a JWT that
 * our JWT bearer grant (RFC 7523) redeems for an access token to one of our APIs, as the local user the Keycloak user
 * is linked to (Keycloak's own recipe for this flow, with us as domain B). The same assertion is refused a second
 * time, and once the tenant stops trusting the issuer.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { createClient } from '@idp/testing';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startAll } from '../../src/start-all';
import { KEYCLOAK_PASSWORD, keycloak, type Keycloak } from '../../src/upstream/keycloak';

jest.setTimeout(180_000);

const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
let h: Harness;
let kc: Keycloak;
let admin: string;
let issuer: string;
let realm: string;
let domainA: string;
let rp: { clientId: string; clientSecret: string };

const manage = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId: h.tenant.tenantId, token: admin }, method, path, body);

/** Keycloak's token endpoint of the domain-A realm. */
async function keycloakToken(params: Record<string, string>) {
  const res = await fetch(`${domainA}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('clienta', 'a-secret') },
    body: new URLSearchParams(params),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`Keycloak token endpoint: ${res.status} ${JSON.stringify(body)}`);
  return String(body.access_token);
}

/** What domain A's client does: the person's token, exchanged for an assertion whose audience is our issuer. */
async function assertionFromDomainA(): Promise<string> {
  const token1 = await keycloakToken({ grant_type: 'password', username: 'dana', password: KEYCLOAK_PASSWORD });
  return keycloakToken({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: token1,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    scope: 'access-domain-b',
    audience: issuer,
  });
}

async function redeem(assertion: string) {
  const res = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(rp.clientId, rp.clientSecret),
    },
    body: new URLSearchParams({ grant_type: GRANT, assertion, resource: h.tenant.resource, scope: 'orders:read' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  await startAll([
    startHarness('identity-chaining', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } }).then((v) => (h = v)),
    keycloak().then((v) => (kc = v)),
  ]);
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  realm = `chain-${randomBytes(4).toString('hex')}`;
  domainA = kc.issuer(realm);
  // Domain A, as Keycloak's guide sets it up: a client standing for domain B (our issuer), a client scope that puts
  // it in the audience, and a client allowed standard token exchange.
  await kc.createRealm({
    realm,
    enabled: true,
    clientScopes: [
      {
        name: 'access-domain-b',
        protocol: 'openid-connect',
        attributes: { 'include.in.token.scope': 'true', 'display.on.consent.screen': 'false' },
        protocolMappers: [
          {
            name: 'domain-b-audience',
            protocol: 'openid-connect',
            protocolMapper: 'oidc-audience-mapper',
            config: { 'included.client.audience': issuer, 'access.token.claim': 'true', 'id.token.claim': 'false' },
          },
        ],
      },
    ],
    clients: [
      { clientId: issuer, enabled: true, publicClient: false, secret: 'b-secret', standardFlowEnabled: false },
      {
        clientId: 'clienta',
        enabled: true,
        publicClient: false,
        secret: 'a-secret',
        standardFlowEnabled: false,
        directAccessGrantsEnabled: true,
        attributes: { 'standard.token.exchange.enabled': 'true' },
        optionalClientScopes: ['access-domain-b'],
        // A realm imported with its own client scopes lacks Keycloak's `basic` scope, which puts `sub` in tokens.
        protocolMappers: [
          {
            name: 'sub',
            protocol: 'openid-connect',
            protocolMapper: 'oidc-sub-mapper',
            config: { 'access.token.claim': 'true', 'introspection.token.claim': 'true' },
          },
        ],
      },
    ],
    users: [
      {
        username: 'dana',
        enabled: true,
        email: 'dana@domain-a.example',
        emailVerified: true,
        firstName: 'Dana',
        lastName: 'Scully',
        credentials: [{ type: 'password', value: KEYCLOAK_PASSWORD, temporary: false }],
      },
    ],
  });
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;
  // Domain B (this tenant): domain A is an upstream provider whose people are linked to local users, and a trusted
  // issuer whose assertions name them.
  expect(
    (
      await manage('POST', '/upstream-providers', {
        alias: 'domain-a',
        type: 'oidc',
        displayName: 'Domain A',
        oidc: { issuer: domainA, clientId: issuer, clientSecret: 'b-secret' },
      })
    ).status,
  ).toBe(201);
  const trusted = await manage('POST', '/trusted-issuers', {
    issuer: domainA,
    jwksUri: `${domainA}/protocol/openid-connect/certs`,
    algorithms: ['RS256'],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'domain-a',
  });
  expect(trusted.status).toBe(201);
  rp = await createClient(h.db.models, h.topology.secrets.clientSecretPepper, {
    tenantId: h.tenant.tenantId,
    clientId: 'domain-a-agent',
    name: 'Domain A agent',
    grantTypes: [GRANT],
    redirectUris: [],
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

it("Keycloak's token exchange assertion is redeemed as the linked user; once only; not after trust ends", async () => {
  const assertion = await assertionFromDomainA();
  const claims = decodeJwt(assertion);
  expect(claims.iss).toBe(domainA);
  expect([claims.aud].flat()).toContain(issuer);

  // Not linked yet: the subject is nobody here.
  const unlinked = await redeem(assertion);
  expect(unlinked).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(unlinked.body.error_description)).toMatch(/no user/);

  expect(
    (await manage('POST', `/users/${h.tenant.user.id}/upstream-links`, { provider: 'domain-a', subject: claims.sub }))
      .status,
  ).toBe(201);
  const fresh = await assertionFromDomainA();
  const res = await redeem(fresh);
  expect([res.status, res.body.error_description]).toEqual([200, undefined]);
  expect(res.body.refresh_token).toBeUndefined();
  const at = decodeJwt(String(res.body.access_token));
  expect(at).toMatchObject({ iss: issuer, sub: h.tenant.user.id, aud: h.tenant.resource, scope: 'orders:read' });

  const replayed = await redeem(fresh);
  expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(replayed.body.error_description)).toMatch(/already used/);

  const { body } = await manage<{ items: Array<{ id: string; issuer: string }> }>('GET', '/trusted-issuers');
  const id = body.items.find((i) => i.issuer === domainA)!.id;
  expect((await manage('PATCH', `/trusted-issuers/${id}`, { enabled: false })).status).toBe(200);
  const refused = await redeem(await assertionFromDomainA());
  expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(refused.body.error_description)).toMatch(/trusted issuer/);
});
