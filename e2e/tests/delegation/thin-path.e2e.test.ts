/**
 * The walking skeleton's thin path, every service a separate process behind the dev router:
 * user login (authorization code + PKCE) -> token exchange -> NHE JWT verified against the tenant's JWKS from
 * discovery -> audit row read back through the management API. And: NATS down means 503 and no token.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { seededUserToken, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('thinpath');
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

const basic = basicAuth;

async function exchange(
  userToken: string,
  overrides: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(h.tenant.client.clientId, h.tenant.client.clientSecret),
      ...headers,
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: userToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
      ...overrides,
    }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const userToken = () => seededUserToken(h);

async function auditRows(): Promise<Array<Record<string, unknown>>> {
  const admin = await clientCredentialsToken(
    h.topology.baseUrl,
    h.tenant.tenantId,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
  );
  const res = await fetch(
    `${h.topology.baseUrl}/_api/auth/admin/tenants/${h.tenant.tenantId}/non-human-entities/token-audit`,
    {
      headers: { authorization: `Bearer ${admin.access_token}` },
    },
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<Record<string, unknown>> }).items;
}

async function waitForAuditRow(jti: string, timeoutMs = 15_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = (await auditRows()).find((r) => r.jti === jti);
    if (row) return row;
    if (Date.now() > deadline) throw new Error(`no audit row for ${jti}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('user token -> NHE token verified through discovery + JWKS -> audit row through management', async () => {
  const subjectToken = await userToken();
  const result = await exchange(subjectToken);
  expect(result.status).toBe(200);
  expect(result.headers.get('cache-control')).toBe('no-store');
  expect(result.body).toMatchObject({
    issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    token_type: 'Bearer',
    expires_in: 300,
  });
  expect(result.body).not.toHaveProperty('refresh_token');

  // A resource server validates it as it would any access token: discovery -> jwks_uri -> verify.
  const issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    issuer: string;
    jwks_uri: string;
    grant_types_supported: string[];
  };
  expect(discovery.issuer).toBe(issuer);
  expect(discovery.grant_types_supported).toContain(TOKEN_EXCHANGE);
  const { payload, protectedHeader } = await jwtVerify(
    String(result.body.access_token),
    createRemoteJWKSet(new URL(discovery.jwks_uri)),
    {
      issuer,
      audience: h.tenant.resource,
      typ: 'at+jwt',
    },
  );
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload).toMatchObject({
    sub: h.tenant.user.id,
    scope: 'orders:read',
    gty: TOKEN_EXCHANGE,
    azp: h.tenant.client.numericId,
    client_id: h.tenant.client.clientId,
    'org.vendor.tenant.id': h.tenant.tenantId,
    'org.vendor.tenant.name': h.tenant.tenantName,
    act: { sub: `nhe:${h.tenant.nhe.identifier}` },
    agent: { id: h.tenant.nhe.identifier, type: 'llm-assistive', operator: 'Demo Operations' },
    'org.vendor.nhe.delegation': true,
  });
  expect(typeof payload.azp).toBe('number');
  expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300);

  const row = await waitForAuditRow(String(payload.jti));
  expect(row).toMatchObject({
    userId: h.tenant.user.id,
    nheIdentifier: h.tenant.nhe.identifier,
    clientId: h.tenant.client.clientId,
    resourceServer: h.tenant.resource,
    scopes: ['orders:read'],
    ttl: 300,
  });
  expect(typeof row.sourceIp).toBe('string');
  expect(String(row.sourceIp).length).toBeGreaterThan(0);
});

test('a client cannot choose its audit source IP with X-Forwarded-For', async () => {
  const result = await exchange(await userToken(), {}, { 'x-forwarded-for': '203.0.113.66, 10.1.2.3' });
  expect(result.status).toBe(200);
  const { jti } = JSON.parse(Buffer.from(String(result.body.access_token).split('.')[1]!, 'base64url').toString()) as {
    jti: string;
  };
  const row = await waitForAuditRow(jti);
  // The dev router (the one trusted hop, like the ingress) appended the address it saw: loopback.
  expect(row.sourceIp).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
});

test('bad input gets a specific OAuth error, never a 500', async () => {
  const subjectToken = await userToken();
  const cases: Array<[Record<string, string>, number, string]> = [
    [{ subject_token: 'not-a-jwt' }, 400, 'invalid_grant'],
    [{ actor_token: 'no-such-agent' }, 400, 'invalid_grant'],
    [{ resource: 'https://unknown.example' }, 400, 'invalid_target'],
    [{ scope: 'orders:refund' }, 400, 'invalid_scope'],
    [{ actor_token_type: 'urn:other' }, 400, 'invalid_request'],
  ];
  for (const [overrides, status, error] of cases) {
    const result = await exchange(subjectToken, overrides);
    expect({ overrides, status: result.status, error: result.body.error }).toEqual({ overrides, status, error });
    expect(typeof result.body.error_description).toBe('string');
  }
  const wrongSecret = await fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basic(h.tenant.client.clientId, 'wrong'),
    },
    body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE }),
  });
  expect(wrongSecret.status).toBe(401);
  expect(((await wrongSecret.json()) as { error: string }).error).toBe('invalid_client');
  const pages: Array<[string, RequestInit]> = [
    [`/auth/${h.tenant.tenantId}/interaction/unknown-uid`, {}],
    [
      `/auth/${h.tenant.tenantId}/interaction/unknown-uid/login`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'username=a&password=b',
      },
    ],
    [`/auth/${h.tenant.tenantId}/authorize`, {}],
    [
      `/auth/${h.tenant.tenantId}/authorize?client_id=demo-app&response_type=code&redirect_uri=https://evil.example/cb&scope=openid`,
      { redirect: 'manual' },
    ],
  ];
  for (const [path, init] of pages) {
    const res = await fetch(`${h.topology.baseUrl}${path}`, init);
    expect({ path, status: res.status >= 400 && res.status < 500 }).toEqual({ path, status: true });
    expect(res.headers.get('location')).toBeNull();
  }
  const unknownTenant = await fetch(`${h.topology.baseUrl}/auth/999999999/.well-known/openid-configuration`);
  expect(unknownTenant.status).toBe(404);
  expect(((await unknownTenant.json()) as { error: string }).error).toBe('not_found');
});

test('with NATS stopped the exchange answers 503 and no token; after NATS returns it succeeds again', async () => {
  const subjectToken = await userToken();
  const before = (await auditRows()).length;
  await h.nats.stop();
  try {
    const result = await exchange(subjectToken);
    expect(result.status).toBe(503);
    expect(result.body.error).toBe('temporarily_unavailable');
    expect(result.body).not.toHaveProperty('access_token');
  } finally {
    await h.nats.restart();
  }
  let ok: Awaited<ReturnType<typeof exchange>> | undefined;
  for (let i = 0; i < 40; i++) {
    ok = await exchange(subjectToken);
    if (ok.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(ok?.status).toBe(200);
  const { payload } = {
    payload: JSON.parse(Buffer.from(String(ok?.body.access_token).split('.')[1] ?? '', 'base64url').toString()) as {
      jti: string;
    },
  };
  await waitForAuditRow(payload.jti);
  expect((await auditRows()).length).toBe(before + 1);
});
