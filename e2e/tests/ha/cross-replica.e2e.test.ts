/**
 * The rules that span requests still hold when consecutive requests land on different replicas of the HA
 * topology (each request below is sent straight to one replica, with the router's forwarding headers, so which
 * replica answers is certain):
 * - a DPoP proof used at one oidc replica is refused at the other (the replay record is in the store); a server
 *   nonce handed out by one replica is accepted by the other (stateless HMAC);
 * - the kill switch (disabling an NHE in the management API) takes effect on every oidc replica within its bound:
 *   new exchanges refused and earlier tokens introspected inactive on each;
 * - the NHE quota holds under concurrent creates spread over the two management replicas;
 * - a TOTP code accepted at one oidc replica is refused at the other (one use per time step, in the store);
 * - the retention job scheduled in process by both management replicas runs once per tick (the tick claim).
 * About 110 s (20 s starting the topology, up to 75 s waiting for a scheduled minute).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { generate } from 'otplib';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { connectNats, publishInvalidation, type NatsHandle } from '@idp/events';
import { createLogger } from '@idp/logger';
import { basicAuth, clientCredentialsToken, CookieJar } from '../../src/clients/browserless-login';
import { startHaHarness, type HaHarness } from '../../src/ha/ha-harness';
import { sleep, userToken } from './helpers';
import { ifAssigned } from '../../src/if-assigned';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** The kill switch's bound on a replica: the sidecar's facts cache TTL (FACTS_CACHE_TTL_MS default); invalidation is usually immediate. */
const KILL_SWITCH_BOUND_MS = 5000;

let h: HaHarness;
let subject: string;
let admin: string;
let nats: NatsHandle;

beforeAll(async () => {
  h = await startHaHarness('ha-cross');
  subject = await userToken(h);
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;
  nats = await connectNats(h.nats.url, createLogger({ service: 'e2e', level: 'silent' }), 'e2e-ha');
}, 180_000);

afterAll(async () => {
  await ifAssigned(nats)?.close();
  await ifAssigned(h)?.stop();
});

/** The headers the router adds, so a replica reached directly sees the public URL (DPoP htu, issuer). */
const forwarded = () => ({
  'x-forwarded-proto': 'http',
  'x-forwarded-host': new URL(h.topology.baseUrl).host,
  'x-forwarded-for': '127.0.0.1',
});
const oidcPort = (i: number) => h.topology.replica('oidc', i).ports['oidc-core']!;
const managementPort = (i: number) => h.topology.replica('management', i).ports.management!;

async function exchangeAt(
  replica: number,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`http://127.0.0.1:${oidcPort(replica)}/auth/${h.tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
      ...forwarded(),
      ...headers,
    },
    body: new URLSearchParams({
      grant_type: TOKEN_EXCHANGE,
      subject_token: subject,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function introspectAt(replica: number, token: string): Promise<{ active: boolean }> {
  const res = await fetch(`http://127.0.0.1:${oidcPort(replica)}/auth/${h.tenant.tenantId}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
      ...forwarded(),
    },
    body: new URLSearchParams({ token }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean };
}

async function manageAt(
  replica: number,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(
    `http://127.0.0.1:${managementPort(replica)}/auth/admin/tenants/${h.tenant.tenantId}${path}`,
    {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...forwarded() },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    },
  );
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

test('a DPoP proof used at one oidc replica is refused at the other; a nonce from one is accepted by the other', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = await exportJWK(publicKey);
  const htu = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}/oidc/token`;
  const proof = (extra: Record<string, unknown> = {}) =>
    new SignJWT({ htm: 'POST', htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...extra })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .sign(privateKey);

  const once = await proof();
  const first = await exchangeAt(0, { dpop: once });
  expect({ status: first.status, type: first.body.token_type }).toEqual({ status: 200, type: 'DPoP' });
  const replayed = await exchangeAt(1, { dpop: once });
  expect({ status: replayed.status, error: replayed.body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
  // The refusal is the replay: a fresh proof of the same key is accepted by that replica.
  expect((await exchangeAt(1, { dpop: await proof() })).status).toBe(200);

  // requireDpop: the nonce handed out by replica 0 is good on replica 1.
  await h.db.models.Tenant.updateOne({ _id: h.tenant.tenantId }, { $set: { 'settings.nhe.requireDpop': true } });
  await publishInvalidation(nats.nc, { tenantId: h.tenant.tenantId, kind: 'tenant' });
  try {
    let challenge = await exchangeAt(0, { dpop: await proof() });
    for (let i = 0; i < 20 && challenge.body.error !== 'use_dpop_nonce'; i += 1) {
      await sleep(250);
      challenge = await exchangeAt(0, { dpop: await proof() });
    }
    expect({ status: challenge.status, error: challenge.body.error }).toEqual({ status: 400, error: 'use_dpop_nonce' });
    const nonce = challenge.headers.get('dpop-nonce');
    expect(nonce).toBeTruthy();
    const bound = await exchangeAt(1, { dpop: await proof({ nonce }) });
    expect({ status: bound.status, type: bound.body.token_type }).toEqual({ status: 200, type: 'DPoP' });
  } finally {
    await h.db.models.Tenant.updateOne({ _id: h.tenant.tenantId }, { $set: { 'settings.nhe.requireDpop': false } });
    await publishInvalidation(nats.nc, { tenantId: h.tenant.tenantId, kind: 'tenant' });
  }
});

test('kill switch: disabling the NHE through one management replica stops it on every oidc replica within the bound', async () => {
  // Tokens issued by each replica before the switch (each replica's facts cache is warm).
  const tokens: string[] = [];
  for (const i of [0, 1]) {
    let r = await exchangeAt(i);
    for (let n = 0; n < 20 && r.status !== 200; n += 1) {
      await sleep(250); // the requireDpop change of the previous test is being undone
      r = await exchangeAt(i);
    }
    expect(r.status).toBe(200);
    tokens.push(String(r.body.access_token));
  }
  const t0 = Date.now();
  expect((await manageAt(0, 'PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: false })).status).toBe(200);
  const took: number[] = [];
  for (const i of [0, 1]) {
    for (;;) {
      const r = await exchangeAt(i);
      if (r.status === 400 && r.body.error === 'invalid_grant') break;
      expect(Date.now() - t0).toBeLessThan(KILL_SWITCH_BOUND_MS);
      await sleep(20);
    }
    took.push(Date.now() - t0);
  }
  for (const i of [0, 1]) for (const token of tokens) expect(await introspectAt(i, token)).toEqual({ active: false });
  console.log(
    `kill switch: exchanges refused on oidc-0 after ${took[0]} ms, on oidc-1 after ${took[1]} ms (bound ${KILL_SWITCH_BOUND_MS} ms); earlier tokens inactive on both`,
  );

  expect((await manageAt(1, 'PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: true })).status).toBe(200);
  for (const i of [0, 1]) {
    let r = await exchangeAt(i);
    for (let n = 0; n < 50 && r.status !== 200; n += 1) {
      await sleep(100);
      r = await exchangeAt(i);
    }
    expect(r.status).toBe(200);
  }
});

test('NHE quota under concurrent creates on two management replicas: exactly the quota, never more', async () => {
  const quota = 6;
  await h.db.models.Tenant.updateOne({ _id: h.tenant.tenantId }, { $set: { 'settings.nhe.maxNhePerTenant': quota } });
  await publishInvalidation(nats.nc, { tenantId: h.tenant.tenantId, kind: 'tenant' });
  await sleep(500);
  const existing = await h.db.models.Nhe.countDocuments({ tenantId: h.tenant.tenantId });
  const attempts = 16;
  const results = await Promise.all(
    Array.from({ length: attempts }, (_, n) =>
      manageAt(n % 2, 'POST', '/non-human-entities', {
        identifier: `ha-agent-${n}`,
        type: 'llm-assistive',
        operator: 'HA test',
        allowedScopes: ['orders:read'],
      }),
    ),
  );
  const created = results.filter((r) => r.status === 201).length;
  const statuses = [...new Set(results.map((r) => r.status))].sort();
  console.log(
    `NHE quota ${quota} (${existing} existing): ${attempts} concurrent creates over two management replicas → ${created} created, statuses ${statuses.join(', ')}`,
  );
  expect(created).toBe(quota - existing);
  expect(results.filter((r) => r.status !== 201).map((r) => r.status)).toEqual(Array(attempts - created).fill(409)); // limit problem
  expect(await h.db.models.Nhe.countDocuments({ tenantId: h.tenant.tenantId })).toBe(quota);
  // Both replicas took part.
  expect(new Set(results.map((_, n) => n % 2)).size).toBe(2);
});

/**
 * An authorization request on one oidc replica up to the TOTP step (authorize, interaction page, password), every
 * request sent to that replica; returns a function that posts a code and answers with the status.
 */
async function atTotpStep(replica: number): Promise<(code: string) => Promise<number>> {
  const base = `http://127.0.0.1:${oidcPort(replica)}`;
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(new URL(url, base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...forwarded(), cookie: jar.header() },
    });
    jar.store(res);
    return res;
  };
  const verifier = randomBytes(32).toString('base64url');
  const authorize = `/auth/${h.tenant.tenantId}/authorize?${new URLSearchParams({
    client_id: h.tenant.client.clientId,
    response_type: 'code',
    redirect_uri: h.tenant.client.redirectUri,
    scope: 'openid',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
  })}`;
  const interaction = new URL((await go(authorize)).headers.get('location') ?? '', base).pathname;
  expect(interaction).toMatch(/\/interaction\/[^/]+$/);
  expect((await go(interaction)).status).toBe(200);
  const login = await go(`${interaction}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: h.tenant.user.username, password: h.tenant.user.password }),
  });
  expect(login.status).toBe(303); // the password is right: the interaction now asks for the second factor
  const page = await go(interaction);
  expect({ status: page.status, totp: (await page.text()).includes(`${interaction}/totp`) }).toEqual({
    status: 200,
    totp: true,
  });
  return async (code) =>
    (
      await go(`${interaction}/totp`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ code }),
      })
    ).status;
}

test('a TOTP code accepted at one oidc replica is refused at the other', async () => {
  const s = h.topology.secrets;
  const system = await clientCredentialsToken(
    h.topology.baseUrl,
    h.topology.systemTenantId,
    s.bootstrapAdminClientId,
    s.bootstrapAdminClientSecret,
    'urn:idp:management',
  );
  const enrol = await fetch(
    `${h.topology.baseUrl}/auth/admin/tenants/${h.tenant.tenantId}/users/${h.tenant.user.id}/totp`,
    { method: 'POST', headers: { authorization: `Bearer ${system.access_token}` } },
  );
  expect(enrol.status).toBe(201);
  const secret = ((await enrol.json()) as { secret: string }).secret;
  try {
    const [first, second] = [await atTotpStep(0), await atTotpStep(1)];
    const code = await generate({ secret });
    expect(await first(code)).toBe(303);
    // The same code on the other replica, within the same step: a replay.
    expect(await second(code)).toBe(401);
  } finally {
    await h.db.models.User.updateOne(
      { tenantId: h.tenant.tenantId, _id: h.tenant.user.id },
      { $unset: { totpSecret: 1, totpLastTimeStep: 1 } },
    );
  }
});

test('retention scheduler: both management replicas schedule the job in process, each tick runs once', async () => {
  const job = 'nhe-audit-retention';
  expect(
    await h.db.models.Job.updateOne({ _id: job }, { $set: { schedule: '* * * * *', enabled: true } }),
  ).toMatchObject({ matchedCount: 1 });
  // A rolling restart of management: each replica applies the job rows at start, so both now fire every minute.
  for (const i of [0, 1]) {
    await h.topology.stopReplica('management', i);
    await h.topology.startReplica('management', i);
  }
  const since = new Date();
  const nextMinute = Math.ceil((Date.now() + 1000) / 60_000) * 60_000;
  await sleep(nextMinute - Date.now() + 15_000);
  const runs = await h.db.models.JobRun.find({ jobName: job, trigger: 'schedule', startedAt: { $gte: since } }).lean();
  const claims = await h.db.models.Counter.find({ _id: { $regex: `^job-tick:${job}@` } }).lean();
  console.log(
    `retention: ${runs.length} scheduled run(s) since ${since.toISOString()}, tick claims ${JSON.stringify(claims.map((c) => c._id))}`,
  );
  // Runs per tick (the minute each started in): a tick just after the restarts may fall in the window too (a slow
  // machine); what must hold is one run per tick, the awaited tick included.
  const perTick = new Map<string, number>();
  for (const r of runs) {
    const minute = new Date(r.startedAt);
    minute.setUTCSeconds(0, 0);
    perTick.set(minute.toISOString(), (perTick.get(minute.toISOString()) ?? 0) + 1);
  }
  expect(perTick.get(new Date(nextMinute).toISOString())).toBe(1);
  expect([...perTick.values()].filter((n) => n !== 1)).toEqual([]);
  expect(claims.map((c) => String(c._id))).toContain(`job-tick:${job}@${new Date(nextMinute).toISOString()}`);
}, 120_000);
