/**
 * The admin walkthrough (docs/operators/admin-walkthrough.md), every service a separate process behind the dev
 * router: the system tenant's bootstrap admin gets a management token with client credentials, creates a tenant
 * with NHE enabled, a client, a resource server, a user with a role, an NHE and a policy; the user signs in and the
 * app exchanges the token.
 * Then configuration changes reach oidc-core and the sidecar without a restart (NATS invalidation).
 */
import { basicAuth, browserlessLogin, clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('walkthrough');
}, 120_000);
afterAll(async () => {
  await ifAssigned(h)?.stop();
});

const basic = basicAuth;

test('admin walkthrough: tenant, client, resource server, user with role, NHE, policy, then a token exchange', async () => {
  const base = h.topology.baseUrl;
  const admin = await clientCredentialsToken(
    base,
    h.topology.systemTenantId,
    h.topology.secrets.bootstrapAdminClientId,
    h.topology.secrets.bootstrapAdminClientSecret,
    'urn:idp:management',
  );
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/auth/admin${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.access_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const tenant = await api('POST', '/tenants', { name: 'acme', settings: { nhe: { enabled: true } } });
  expect(tenant.status).toBe(201);
  const T = tenant.body.id as number;
  const client = await api('POST', `/tenants/${T}/clients`, {
    clientId: 'acme-app',
    name: 'Acme App',
    firstParty: true,
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'],
    redirectUris: ['http://127.0.0.1:8400/callback'],
    config: { nhe: { delegationEnabled: true } },
  });
  expect(client.status).toBe(201);
  const secret = client.body.clientSecret as string;
  const rs = await api('POST', `/tenants/${T}/resource-servers`, {
    identifier: 'https://api.acme.example',
    name: 'Acme API',
    scopes: ['orders:read', 'orders:write'],
    config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true } },
  });
  expect(rs.status).toBe(201);
  const role = await api('POST', `/tenants/${T}/roles`, {
    name: 'clerk',
    resourceServer: 'https://api.acme.example',
    permissions: ['orders:read'],
  });
  const user = await api('POST', `/tenants/${T}/users`, { username: 'bob', password: 'a long passphrase' });
  expect((await api('PUT', `/tenants/${T}/users/${user.body.id}/roles/${role.body.id}`)).status).toBe(204);
  const nhe = await api('POST', `/tenants/${T}/non-human-entities`, {
    identifier: 'acme-agent',
    type: 'llm-assistive',
    allowedScopes: ['orders:read'],
    operator: 'Acme Ops',
  });
  expect(nhe.status).toBe(201);
  const policy = await api('POST', `/tenants/${T}/non-human-entities/${nhe.body.id}/delegation-policies`, {
    target: { type: 'user', id: user.body.id },
    allowedScopes: ['orders:read'],
  });
  expect(policy.status).toBe(201);
  const dryRun = await api('POST', `/tenants/${T}/non-human-entities/${nhe.body.id}/delegation-simulations`, {
    userId: user.body.id,
    clientId: 'acme-app',
    resource: 'https://api.acme.example',
    scope: 'orders:read',
  });
  expect(dryRun.body.decision).toMatchObject({ outcome: 'granted', scopes: ['orders:read'], ttl: 300 });

  const userToken = await browserlessLogin({
    baseUrl: base,
    tenantId: T,
    clientId: 'acme-app',
    clientSecret: secret,
    redirectUri: 'http://127.0.0.1:8400/callback',
    username: 'bob',
    password: 'a long passphrase',
    resource: 'https://api.acme.example',
    scope: 'openid orders:read',
  });
  const exchange = () =>
    fetch(`${base}/auth/${T}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic('acme-app', secret) },
      body: new URLSearchParams({
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: userToken.access_token,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: 'acme-agent',
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: 'https://api.acme.example',
        scope: 'orders:read',
      }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
  const issued = await exchange();
  expect(issued).toMatchObject({
    status: 200,
    body: {
      token_type: 'Bearer',
      expires_in: dryRun.body.decision.ttl,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    },
  });

  // A configuration change applies without a restart: the client's delegation switched off is refused at once.
  expect(
    (await api('PATCH', `/tenants/${T}/clients/acme-app`, { config: { nhe: { delegationEnabled: false } } })).status,
  ).toBe(200);
  let refused: { status: number; body: Record<string, unknown> } | undefined;
  for (let i = 0; i < 40; i++) {
    refused = await exchange();
    if (refused.status !== 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(refused?.body.error).toBe('access_denied');
  // The audit row is written by the audit writer from the stream: read it back once it is there.
  let audit: { body: { count: number } } | undefined;
  for (let i = 0; i < 50; i++) {
    audit = await api('GET', `/tenants/${T}/non-human-entities/token-audit/count`);
    if (audit.body.count > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(audit?.body).toEqual({ count: 1 });
}, 60_000);
