/**
 * The sample Orders API (e2e/orders-api: @idp/resource-server and express only, run as its own process like a
 * customer's API outside the cluster) against every service behind the dev router:
 * - RFC 9728 metadata at the API's well-known URL, and a 401 whose challenge names it (resource_metadata);
 * - a user's token accepted; an agent's (NHE) delegated token accepted with the agent line logged under the user;
 *   agents refused on a people-only route; a forged token refused;
 * - DPoP with requireDpop: use_dpop_nonce at the token endpoint, then a bound token the API accepts only with a
 *   matching proof;
 * - disabling the NHE through the management API: the API refuses the agent's token within the SSF poll bound
 *   (the SDK's poll receiver; time from the management call to the refusal measured), introspection agrees;
 * - NATS stopped: 503 and no token; NATS back: exchanges succeed; every issued token has exactly one audit row.
 */
import { createHash, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { publishInvalidation } from '@idp/events';
import { freePort } from '@idp/testing';
import { basicAuth, browserlessLogin, clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { startOrdersApi, type OrdersApiProcess } from '../../src/orders-api';
import { ifAssigned } from '../../src/if-assigned';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The receiver's poll interval in this test (the README's default is 5000). */
const POLL_INTERVAL_MS = 1000;

let h: Harness;
let api: OrdersApiProcess;
let nc: NatsConnection;
let issuer: string;
let tokenUrl: string;
let resource: string;
let userAccessToken: string;
let admin: string;
/** jti of every token the exchange returned in this file: each must end with exactly one audit row. */
const issued: string[] = [];

/** A management API call; T is what the caller reads of the JSON answer (undefined when the answer is empty). */
async function manage<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T | undefined }> {
  const res = await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${h.tenant.tenantId}${path}`, {
    method,
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as T) : undefined };
}

beforeAll(async () => {
  h = await startHarness('orders-api');
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  tokenUrl = `${issuer}/oidc/token`;
  nc = await connect({ servers: h.nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;

  // The tenant admin registers the API at its own URL (its resource identifier, RFC 9728), with its metadata URL.
  const port = await freePort();
  resource = `http://127.0.0.1:${port}`;
  const rs = await manage('POST', '/resource-servers', {
    identifier: resource,
    name: 'Orders API',
    scopes: ['orders:read', 'orders:write'],
    metadataUrl: `${resource}/.well-known/oauth-protected-resource`,
    config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true } },
  });
  expect(rs.status).toBe(201);
  const clerk = await manage<{ id: string }>('POST', '/roles', {
    name: 'orders-api-clerk',
    resourceServer: resource,
    permissions: ['orders:read', 'orders:write'],
  });
  expect(clerk.status).toBe(201);
  expect((await manage('PUT', `/users/${h.tenant.user.id}/roles/${clerk.body!.id}`)).status).toBe(204);

  // The API's SSF receiver: a client allowed ssf.manage on urn:idp:ssf.
  const ssfRole = await manage<{ id: string }>('POST', '/roles', {
    name: 'ssf-receiver',
    resourceServer: 'urn:idp:ssf',
    permissions: ['ssf.manage'],
  });
  expect(ssfRole.status).toBe(201);
  const receiver = await manage<{ clientId: string; clientSecret: string }>('POST', '/clients', {
    name: 'Orders API (SSF receiver)',
    grantTypes: ['client_credentials'],
  });
  expect(receiver.status).toBe(201);
  expect((await manage('PUT', `/clients/${receiver.body!.clientId}/roles/${ssfRole.body!.id}`)).status).toBe(204);

  api = await startOrdersApi({
    port,
    issuer,
    ssf: { clientId: receiver.body!.clientId, clientSecret: receiver.body!.clientSecret, intervalMs: POLL_INTERVAL_MS },
  });
  const tokens = await browserlessLogin({
    baseUrl: h.topology.baseUrl,
    tenantId: h.tenant.tenantId,
    clientId: h.tenant.client.clientId,
    clientSecret: h.tenant.client.clientSecret,
    redirectUri: h.tenant.client.redirectUri,
    username: h.tenant.user.username,
    password: h.tenant.user.password,
    resource,
    scope: 'openid orders:read orders:write',
  });
  userAccessToken = tokens.access_token;
}, 120_000);

afterAll(async () => {
  await ifAssigned(api)?.stop();
  await ifAssigned(nc)?.close();
  await ifAssigned(h)?.stop();
});

async function exchange(extraHeaders: Record<string, string> = {}) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
      ...extraHeaders,
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: userAccessToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource,
      scope: 'orders:read',
    }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (typeof body.access_token === 'string') issued.push(String(decodeJwt(body.access_token).jti));
  return { status: res.status, headers: res.headers, body };
}

async function callApi(authorization: string | undefined, dpop?: string, method = 'GET', path = '/orders') {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { ...(authorization ? { authorization } : {}), ...(dpop ? { dpop } : {}) },
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as { error?: string; error_description?: string } & Record<string, unknown>,
  };
}

async function introspect(token: string) {
  const res = await fetch(`${issuer}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean } & Record<string, unknown>;
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000, stepMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

test('RFC 9728: the API serves its protected resource metadata, and a request without a token gets a challenge naming it', async () => {
  const res = await fetch(`${api.url}/.well-known/oauth-protected-resource`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({
    resource,
    authorization_servers: [issuer],
    scopes_supported: ['orders:read', 'orders:write'],
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: expect.arrayContaining(['ES256']),
    resource_name: 'Orders API',
  });
  const anonymous = await callApi(undefined);
  expect(anonymous.status).toBe(401);
  expect(anonymous.challenge).toContain(`Bearer resource_metadata="${resource}/.well-known/oauth-protected-resource"`);
  // The provider names the API's metadata (the resource server's metadataUrl, recorded by the admin).
  const listed = await manage('GET', `/resource-servers?${new URLSearchParams({ identifier: resource })}`);
  expect(JSON.stringify(listed.body)).toContain(`${resource}/.well-known/oauth-protected-resource`);
});

test("the user's token is accepted; the agent's delegated token is accepted and the agent line is logged under the user", async () => {
  const direct = await callApi(`Bearer ${userAccessToken}`);
  expect(direct).toMatchObject({ status: 200, body: { user: h.tenant.user.id, delegated: false, agent: null } });
  const userLine = await api.waitForLine((l) => l.event === 'orders.list' && l.jti === decodeJwt(userAccessToken).jti);
  expect(userLine).toMatchObject({ userId: h.tenant.user.id, delegated: false, clientId: h.tenant.client.clientId });

  const res = await exchange();
  expect(res.status).toBe(200);
  const token = String(res.body.access_token);
  const delegated = await callApi(`Bearer ${token}`);
  expect(delegated).toMatchObject({
    status: 200,
    body: {
      user: h.tenant.user.id,
      delegated: true,
      agent: {
        id: h.tenant.nhe.identifier,
        type: 'llm-assistive',
        operator: 'Demo Operations',
        model: { name: 'demo-model', provider: 'example' },
      },
    },
  });
  const agentLine = await api.waitForLine((l) => l.event === 'orders.list' && l.jti === decodeJwt(token).jti);
  expect(agentLine).toMatchObject({
    service: 'orders-api',
    userId: h.tenant.user.id,
    delegated: true,
    nheIdentifier: h.tenant.nhe.identifier,
    agent: { id: h.tenant.nhe.identifier, type: 'llm-assistive', operator: 'Demo Operations' },
    clientId: h.tenant.client.clientId,
    scopes: ['orders:read'],
    scheme: 'Bearer',
  });

  // People-only route: the agent is refused whatever its scopes; the user (with orders:write) is not.
  const refund = await callApi(`Bearer ${token}`, undefined, 'POST', '/orders/o-1001/refund');
  expect(refund).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
  expect((await callApi(`Bearer ${userAccessToken}`, undefined, 'POST', '/orders/o-1001/refund')).status).toBe(202);
  const forged = await callApi(`Bearer ${token.slice(0, -4)}AAAA`);
  expect(forged.status).toBe(401);
  expect(forged.challenge).toMatch(/^Bearer error="invalid_token"/);
  expect(forged.challenge).toContain('resource_metadata=');
});

test('DPoP with requireDpop: nonce challenge, bound token, proof-of-possession at the API', async () => {
  // Changed in the database directly, so the test publishes the invalidation the management API would publish.
  const setRequireDpop = async (value: boolean) => {
    await h.db.models.Tenant.updateOne({ _id: h.tenant.tenantId }, { $set: { 'settings.nhe.requireDpop': value } });
    await publishInvalidation(nc, { tenantId: h.tenant.tenantId, kind: 'tenant' });
  };
  await setRequireDpop(true);
  try {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = await exportJWK(publicKey);
    const proof = (htm: string, htu: string, extra: Record<string, unknown> = {}) =>
      new SignJWT({ htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...extra })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey);

    const bearer = await exchange();
    expect(bearer.status).toBe(400);
    expect(bearer.body.error).toBe('invalid_dpop_proof');
    const challenge = await exchange({ dpop: await proof('POST', tokenUrl) });
    expect({ status: challenge.status, error: challenge.body.error }).toEqual({ status: 400, error: 'use_dpop_nonce' });
    const nonce = challenge.headers.get('dpop-nonce');
    expect(nonce).toBeTruthy();
    const bound = await exchange({ dpop: await proof('POST', tokenUrl, { nonce }) });
    expect(bound.status).toBe(200);
    expect(bound.body.token_type).toBe('DPoP');
    const token = String(bound.body.access_token);
    expect(decodeJwt(token).cnf).toHaveProperty('jkt');

    const ath = createHash('sha256').update(token).digest('base64url');
    const good = await proof('GET', `${api.url}/orders`, { ath });
    expect((await callApi(`DPoP ${token}`, good)).status).toBe(200);
    expect(await api.waitForLine((l) => l.jti === decodeJwt(token).jti)).toMatchObject({
      scheme: 'DPoP',
      delegated: true,
    });
    expect((await callApi(`DPoP ${token}`, good)).body.error_description).toBe('DPoP proof has been used before');
    const asBearer = await callApi(`Bearer ${token}`);
    expect(asBearer.status).toBe(401);
    expect(asBearer.challenge).toMatch(/^DPoP error="invalid_token"/);
    const other = await generateKeyPair('ES256');
    const otherJwk = await exportJWK(other.publicKey);
    const stolen = await new SignJWT({
      htm: 'GET',
      htu: `${api.url}/orders`,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      ath,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: otherJwk })
      .sign(other.privateKey);
    expect((await callApi(`DPoP ${token}`, stolen)).body).toMatchObject({ error: 'invalid_dpop_proof' });
    expect(await introspect(token)).toMatchObject({ active: true, token_type: 'DPoP' });
  } finally {
    await setRequireDpop(false);
  }
});

test('kill switch through Shared Signals: disabling the NHE in the management API makes the API refuse its token within the poll bound', async () => {
  const patch = (enabled: boolean) => manage('PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled });
  const figures: number[] = [];
  let lastRevoked = '';
  for (let round = 0; round < 3; round++) {
    const before = await exchange();
    expect(before.status).toBe(200);
    const token = String(before.body.access_token);
    expect((await callApi(`Bearer ${token}`)).status).toBe(200);

    const t0 = Date.now();
    expect((await patch(false)).status).toBe(200);
    const refused = await eventually(
      () => callApi(`Bearer ${token}`),
      (r) => r.status === 401,
      10_000,
      20,
    );
    figures.push(Date.now() - t0);
    expect(refused).toMatchObject({
      status: 401,
      body: { error: 'invalid_token', error_description: 'the access token has been revoked' },
    });
    expect(refused.challenge).toMatch(/^Bearer error="invalid_token"/);
    expect(await introspect(token)).toEqual({ active: false });
    expect((await exchange()).body.error).toBe('invalid_grant');
    lastRevoked = token;

    // Re-enabled: tokens issued from now on work; the old one stays revoked.
    expect((await patch(true)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100)); // the deny list compares iat (seconds) with the revocation time
    const after = await eventually(
      () => exchange(),
      (r) => r.status === 200,
      5000,
    );
    expect((await callApi(`Bearer ${String(after.body.access_token)}`)).status).toBe(200);
    expect((await callApi(`Bearer ${token}`)).status).toBe(401);
  }
  expect(lastRevoked).not.toBe('');
  console.log(
    `Orders API (SSF poll every ${POLL_INTERVAL_MS} ms): management call to refusal ${figures.join(', ')} ms`,
  );
  // The bound: the poll interval + the transmitter's fan-out (JetStream fetch, up to 1 s) + a round trip.
  expect(Math.max(...figures)).toBeLessThan(POLL_INTERVAL_MS + 2500);
  const health = (await (await fetch(`${api.url}/healthz`)).json()) as {
    revocations: { consecutiveFailures: number; entries: number };
  };
  expect(health.revocations).toMatchObject({ consecutiveFailures: 0 });
  expect(health.revocations.entries).toBeGreaterThanOrEqual(3);
}, 90_000);

test('NATS stopped: 503 and no token; NATS back: exchanges succeed; every issued token has exactly one audit row', async () => {
  await h.nats.stop();
  try {
    for (let i = 0; i < 3; i++) {
      const res = await exchange();
      expect({ status: res.status, error: res.body.error, token: res.body.access_token }).toEqual({
        status: 503,
        error: 'temporarily_unavailable',
        token: undefined,
      });
    }
  } finally {
    await h.nats.restart();
  }
  const first = await eventually(
    () => exchange(),
    (r) => r.status === 200,
    15_000,
  );
  expect(first.status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await exchange()).status).toBe(200);

  const rows = async () => {
    const res = await fetch(
      `${h.topology.baseUrl}/_api/auth/admin/tenants/${h.tenant.tenantId}/non-human-entities/token-audit?limit=100`,
      {
        headers: { authorization: `Bearer ${admin}` },
      },
    );
    return ((await res.json()) as { items?: Array<{ jti: string }> }).items ?? [];
  };
  const all = await eventually(rows, (r) => r.length >= issued.length, 20_000);
  const count = new Map<string, number>();
  for (const r of all) count.set(r.jti, (count.get(r.jti) ?? 0) + 1);
  expect(issued.length).toBeGreaterThanOrEqual(7);
  expect(issued.map((jti) => [jti, count.get(jti) ?? 0])).toEqual(issued.map((jti) => [jti, 1]));
  expect(all).toHaveLength(issued.length);
});
