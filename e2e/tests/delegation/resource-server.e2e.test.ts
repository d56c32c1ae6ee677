/**
 * Every service as a process behind the dev router, plus a resource server written as a customer would
 * (e2e/src/resource-server.ts: jose createRemoteJWKSet, delegation detected through org.vendor.nhe.delegation and
 * act.sub, DPoP binding, kill-switch deny list over NATS):
 * - an exchanged token is accepted and recognised as delegated; the user's own token is not;
 * - DPoP with requireDpop: use_dpop_nonce, then a bound token the API accepts only with a matching proof;
 * - disabling the NHE through the management API makes already issued tokens fail at the API and at introspection
 *   within seconds;
 * - NATS stopped: 503 and no token; NATS back: exchanges succeed; every issued token has exactly one audit row.
 */
import { createHash, randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { publishInvalidation, REVOCATION_COLLECTION, revocationStore } from '@idp/events';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { seededUserToken, startHarness, type Harness } from '../../src/harness';
import { createResourceServerKit, startResourceServer } from '../../src/resource-server';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

let h: Harness;
let api: Awaited<ReturnType<typeof startResourceServer>>;
let nc: NatsConnection;
let tokenUrl: string;
let userAccessToken: string;
/** jti of every token the exchange returned in this file: each must end with exactly one audit row. */
const issued: string[] = [];

beforeAll(async () => {
  h = await startHarness('rskit');
  tokenUrl = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`;
  nc = await connect({ servers: h.nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  const kit = await createResourceServerKit({
    issuer: `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`,
    audience: h.tenant.resource,
    nc,
    revocations: revocationStore(h.db.connection.collection(REVOCATION_COLLECTION)),
  });
  api = await startResourceServer(kit);
  userAccessToken = await seededUserToken(h);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await nc?.close();
  await h?.stop();
});

const basic = basicAuth;

async function exchange(extraHeaders: Record<string, string> = {}) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(h.tenant.client.clientId, h.tenant.client.clientSecret), ...extraHeaders },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: userAccessToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
    }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (typeof body.access_token === 'string') issued.push(String(decodeJwt(body.access_token).jti));
  return { status: res.status, headers: res.headers, body };
}

async function callApi(authorization: string, dpop?: string) {
  const res = await fetch(`${api.url}/orders`, { headers: { authorization, ...(dpop ? { dpop } : {}) } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function introspect(token: string) {
  const res = await fetch(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(h.tenant.client.clientId, h.tenant.client.clientSecret) },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean } & Record<string, unknown>;
}

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('the API verifies the exchanged token through JWKS and detects the delegation; the user token is not delegated', async () => {
  const res = await exchange();
  expect(res.status).toBe(200);
  const delegated = await callApi(`Bearer ${String(res.body.access_token)}`);
  expect(delegated).toEqual({
    status: 200,
    body: {
      user: h.tenant.user.id,
      delegated: true,
      nhe: h.tenant.nhe.identifier,
      agent: { id: h.tenant.nhe.identifier, type: 'llm-assistive', operator: 'Demo Operations', model: { name: 'demo-model', provider: 'example' } },
      scopes: ['orders:read'],
    },
  });
  const direct = await callApi(`Bearer ${userAccessToken}`);
  expect(direct.status).toBe(200);
  expect(direct.body).toMatchObject({ user: h.tenant.user.id, delegated: false, nhe: null });
  const forged = `${String(res.body.access_token).slice(0, -4)}AAAA`;
  expect((await callApi(`Bearer ${forged}`)).status).toBe(401);
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
      new SignJWT({ htm, htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...extra }).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk }).sign(privateKey);

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
    expect((await callApi(`DPoP ${token}`, good)).body.error_description).toBe('DPoP proof has been used before');
    expect((await callApi(`Bearer ${token}`)).body.error_description).toBe('the access token is DPoP-bound: send it with Authorization: DPoP and a DPoP proof');
    const other = await generateKeyPair('ES256');
    const otherJwk = await exportJWK(other.publicKey);
    const stolen = await new SignJWT({ htm: 'GET', htu: `${api.url}/orders`, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ath })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: otherJwk })
      .sign(other.privateKey);
    expect((await callApi(`DPoP ${token}`, stolen)).body.error_description).toBe('DPoP proof key is not the key the access token is bound to');
    expect(await introspect(token)).toMatchObject({ active: true, token_type: 'DPoP' });
  } finally {
    await setRequireDpop(false);
  }
});

test('kill switch: disabling the NHE through the management API revokes issued tokens at the API and at introspection within seconds', async () => {
  const before = await exchange();
  const token = String(before.body.access_token);
  expect((await callApi(`Bearer ${token}`)).status).toBe(200);
  expect((await introspect(token)).active).toBe(true);

  const admin = await clientCredentialsToken(h.topology.baseUrl, h.tenant.tenantId, h.tenant.admin.clientId, h.tenant.admin.clientSecret, 'urn:idp:management');
  const patch = (enabled: boolean) =>
    fetch(`${h.topology.baseUrl}/_api/auth/admin/tenants/${h.tenant.tenantId}/non-human-entities/${h.tenant.nhe.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled }),
    });
  const disabledAt = Date.now();
  expect((await patch(false)).status).toBe(200);
  const atApi = await eventually(() => callApi(`Bearer ${token}`), (r) => r.status === 401, 5000);
  expect(atApi).toEqual({ status: 401, body: { error: 'invalid_token', error_description: 'access token has been revoked' } });
  expect(Date.now() - disabledAt).toBeLessThan(5000);
  expect(await introspect(token)).toEqual({ active: false });
  expect((await exchange()).body.error).toBe('invalid_grant');

  // Re-enabled: tokens issued from now on work; the old one stays revoked.
  expect((await patch(true)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1100)); // the deny list compares iat (seconds) with the revocation time
  const after = await exchange();
  expect(after.status).toBe(200);
  expect((await callApi(`Bearer ${String(after.body.access_token)}`)).status).toBe(200);
  expect((await callApi(`Bearer ${token}`)).status).toBe(401);
});

test('NATS stopped: 503 and no token; NATS back: exchanges succeed; every issued token has exactly one audit row', async () => {
  await h.nats.stop();
  try {
    for (let i = 0; i < 3; i++) {
      const res = await exchange();
      expect({ status: res.status, error: res.body.error, token: res.body.access_token }).toEqual({ status: 503, error: 'temporarily_unavailable', token: undefined });
    }
  } finally {
    await h.nats.restart();
  }
  const first = await eventually(() => exchange(), (r) => r.status === 200, 15_000);
  expect(first.status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await exchange()).status).toBe(200);

  const admin = await clientCredentialsToken(h.topology.baseUrl, h.tenant.tenantId, h.tenant.admin.clientId, h.tenant.admin.clientSecret, 'urn:idp:management');
  const rows = async () => {
    const res = await fetch(`${h.topology.baseUrl}/_api/auth/admin/tenants/${h.tenant.tenantId}/non-human-entities/token-audit?limit=100`, {
      headers: { authorization: `Bearer ${admin.access_token}` },
    });
    return ((await res.json()) as { items: Array<{ jti: string }> }).items ?? [];
  };
  const all = await eventually(rows, (r) => r.length >= issued.length, 20_000);
  const count = new Map<string, number>();
  for (const r of all) count.set(r.jti, (count.get(r.jti) ?? 0) + 1);
  expect(issued.length).toBeGreaterThanOrEqual(7);
  expect(issued.map((jti) => [jti, count.get(jti) ?? 0])).toEqual(issued.map((jti) => [jti, 1]));
  expect(all).toHaveLength(issued.length);
});
