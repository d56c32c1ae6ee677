/**
 * Authenticated actors end to end through oidc-core's token endpoint and the sidecar (two
 * replicas sharing the database), real FerretDB and NATS JetStream: an actor_token of type
 * urn:ietf:params:oauth:token-type:jwt signed by the NHE's key (inline jwks or its jwks_uri) or by a trusted workload
 * issuer (its jwks_uri), each refusal as the exact RFC 6749 body; requireActorProof (tenant and per NHE); DPoP pinned
 * to the agent's keys; and how the actor was authenticated in the token's act, the decision log and the audit event.
 * The JWK Sets are served over loopback HTTP and fetched by the sidecar's own SSRF-safe fetcher (loopback allowed).
 */
import { createServer, type Server } from 'node:http';
import { randomInt, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from 'jose';
import { AUDIT_STREAM, auditSubject, ensureSingleUseStream, SINGLE_USE_STREAM } from '@idp/events';
import { basicAuth, type SeededTenant } from '@idp/testing';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { safeJwksFetcher } from '../src/domain/jwks-fetch';
import { SIDECAR_SECRET, startStack, type Stack } from './stack';

const TE = GRANT_TYPE_TOKEN_EXCHANGE;
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const NHE_ID = 'urn:vendor:token-type:nhe-id';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const RS = 'https://api.orders.example';
const T = randomInt(100_000, 900_000);
const WL_ISSUER = 'https://kubernetes.cluster.example';
const SA = 'system:serviceaccount:orders:agent';
const SHARED_SA = 'system:serviceaccount:shared:agent';

type Pair = Awaited<ReturnType<typeof generateKeyPair>>;
interface Key {
  pair: Pair;
  jwk: JWK;
  jkt: string;
}
async function newKey(alg = 'ES256', kid?: string): Promise<Key> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(pair.publicKey)), ...(kid ? { kid } : {}) };
  return { pair, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

let s: Stack;
let t: SeededTenant;
let tokenUrl: string;
let issuer: string;
let jwksServer: Server;
let jwksBase = '';
let agentKey: Key; // orders-agent's inline key
let uriKey: Key; // uri-agent's key, published at its jwks_uri
let workloadKey: Key; // the workload issuer's key
const served: Partial<Record<string, JWK[]>> = {};

beforeAll(async () => {
  jwksServer = createServer((req, res) => {
    const keys = served[req.url ?? ''];
    res.statusCode = keys ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(keys ? { keys } : { error: 'not found' }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  jwksBase = `http://127.0.0.1:${(jwksServer.address() as { port: number }).port}`;

  s = await startStack('actorproof', { fetchJwks: safeJwksFetcher({ policy: { allowLoopback: true } }) });
  t = await s.seed(T);
  tokenUrl = `${s.baseUrl}/auth/${T}/oidc/token`;
  issuer = `${s.baseUrl}/auth/${T}`;
  agentKey = await newKey('ES256', 'agent-1');
  uriKey = await newKey('EdDSA', 'uri-1');
  workloadKey = await newKey('RS256', 'k8s-1');
  served['/uri-agent/jwks'] = [uriKey.jwk];
  served['/k8s/jwks'] = [workloadKey.jwk];

  const m = s.db.models;
  await m.Nhe.updateOne(
    { tenantId: T, identifier: 'orders-agent' },
    { $set: { jwks: { keys: [agentKey.jwk] }, workloadIdentity: { issuer: WL_ISSUER, subject: SA } } },
  );
  await m.WorkloadIssuer.create({ tenantId: T, issuer: WL_ISSUER, jwksUri: `${jwksBase}/k8s/jwks` });
  // Two more NHEs with a policy for alice: one with its keys at a jwks_uri, one sharing a workload identity with it.
  for (const [identifier, extra] of [
    [
      'uri-agent',
      { jwksUri: `${jwksBase}/uri-agent/jwks`, workloadIdentity: { issuer: WL_ISSUER, subject: SHARED_SA } },
    ],
    ['twin-agent', { workloadIdentity: { issuer: WL_ISSUER, subject: SHARED_SA } }],
  ] as const) {
    const nhe = await m.Nhe.create({
      tenantId: T,
      identifier,
      type: 'llm-assistive',
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 300,
      operator: 'Ops',
      ...extra,
    });
    await m.DelegationPolicy.create({
      tenantId: T,
      nheId: String(nhe._id),
      target: { type: 'user', id: t.user.id },
      allowedScopes: ['orders:read'],
    });
  }
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (s as typeof s | undefined)?.close();
  await new Promise((r) => (jwksServer as typeof jwksServer | undefined)?.close(r));
});

interface ActorClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  iat?: number;
  exp?: number;
  jti?: string;
}

/** An actor JWT: iss = sub = orders-agent, aud = the issuer, 60 s, signed with orders-agent's key unless told. */
async function actorJwt(c: ActorClaims = {}, key: Key = agentKey, alg = 'ES256'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: 'orders-agent',
    sub: 'orders-agent',
    aud: issuer,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    ...c,
  };
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg, kid: key.jwk.kid!, typ: 'JWT' })
    .sign(key.pair.privateKey);
}
const workloadJwt = (c: ActorClaims = {}) => actorJwt({ iss: WL_ISSUER, sub: SA, ...c }, workloadKey, 'RS256');

async function exchange(o: { actor?: string; type?: string; dpop?: string; url?: string } = {}) {
  const form = new URLSearchParams({
    grant_type: TE,
    subject_token: await s.userToken(T, { sub: t.user.id, client_id: 'demo-app' }),
    subject_token_type: AT,
    actor_token: o.actor ?? 'orders-agent',
    actor_token_type: o.type ?? (o.actor ? JWT : NHE_ID),
    resource: RS,
    scope: 'orders:read',
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: basicAuth('demo-app', t.client.clientSecret),
  };
  if (o.dpop) headers.dpop = o.dpop;
  const res = await fetch(o.url ?? tokenUrl, { method: 'POST', headers, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const err = (error: string, error_description: string) => ({ error, error_description });
const lastEvent = async () =>
  (await s.jsm.streams.getMessage(AUDIT_STREAM, { last_by_subj: auditSubject(T) }))!.json<Record<string, unknown>>();

describe('actor_token_type jwt: refusals (invalid_grant naming the reason)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const rows: Array<[string, () => Promise<string>, string]> = [
    [
      "signed by a key that is not the NHE's (same kid)",
      async () => actorJwt({}, { ...(await newKey('ES256', 'agent-1')) }),
      "actor_token signature does not verify with the NHE's keys",
    ],
    [
      'signed by a key the NHE does not have (unknown kid)',
      async () => actorJwt({}, await newKey('ES256', 'someone-else')),
      "actor_token is signed with a key that is not one of the NHE's keys",
    ],
    ['expired', () => actorJwt({ iat: now() - 200, exp: now() - 100 }), 'actor_token has expired'],
    [
      'exp more than 5 minutes after iat',
      () => actorJwt({ iat: now(), exp: now() + 301 }),
      'actor_token lifetime (exp - iat) must be at most 300 seconds',
    ],
    [
      'aud of another tenant',
      () => actorJwt({ aud: `${s.baseUrl}/auth/${T + 1}` }),
      "actor_token aud must name this tenant's issuer or its token endpoint",
    ],
    [
      'aud of the resource server',
      () => actorJwt({ aud: RS }),
      "actor_token aud must name this tenant's issuer or its token endpoint",
    ],
    [
      'HS256 (a shared secret)',
      async () => {
        const n = now();
        return new SignJWT({
          iss: 'orders-agent',
          sub: 'orders-agent',
          aud: issuer,
          iat: n,
          exp: n + 60,
          jti: randomUUID(),
        })
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new Uint8Array(32).fill(7));
      },
      'actor_token must be signed with an asymmetric algorithm (alg "HS256" is not accepted)',
    ],
    [
      'alg none (unsecured)',
      () =>
        Promise.resolve(
          new UnsecuredJWT({ jti: randomUUID() })
            .setIssuer('orders-agent')
            .setSubject('orders-agent')
            .setAudience(issuer)
            .setIssuedAt()
            .setExpirationTime('60s')
            .encode(),
        ),
      'actor_token must be signed with an asymmetric algorithm (alg "none" is not accepted)',
    ],
    [
      'iss = sub naming no NHE of the tenant',
      () => actorJwt({ iss: 'ghost-agent', sub: 'ghost-agent' }),
      'actor_token names an unknown NHE (iss = sub must be the identifier of an NHE of this tenant)',
    ],
    [
      'workload issuer unknown to the tenant',
      async () => actorJwt({ iss: 'https://other-cluster.example', sub: SA }, await newKey('ES256', 'x')),
      'actor_token issuer is neither the NHE itself (iss = sub = its identifier) nor a trusted workload issuer of this tenant',
    ],
    [
      'workload identity mapped to two NHEs',
      () => workloadJwt({ sub: SHARED_SA }),
      'actor_token names a workload identity (iss, sub) that more than one NHE is registered for',
    ],
    [
      'workload identity mapped to no NHE',
      () => workloadJwt({ sub: 'system:serviceaccount:orders:nobody' }),
      'actor_token names a workload identity (iss, sub) that no NHE of this tenant is registered for',
    ],
    [
      'workload JWT signed by another key',
      async () => actorJwt({ iss: WL_ISSUER, sub: SA }, await newKey('RS256', 'k8s-1'), 'RS256'),
      "actor_token signature does not verify with the workload issuer's keys",
    ],
    ['not a JWT', () => Promise.resolve('not-a-jwt'), 'actor_token is not a JWT'],
  ];
  it.each(rows)('%s', async (_name, make, description) => {
    const res = await exchange({ actor: await make() });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err('invalid_grant', description) });
  });

  it('an unsupported actor_token_type is invalid_request naming both supported types', async () => {
    const res = await exchange({ actor: await actorJwt(), type: 'urn:ietf:params:oauth:token-type:id_token' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err('invalid_request', `unsupported actor_token_type; use ${NHE_ID} or ${JWT}`),
    });
  });
});

describe('actor_token_type jwt: proven actors', () => {
  it("signed by the NHE's key: act says key, the audit event records the key and the jti; the actor JWT is never logged", async () => {
    const logged = s.logs.length;
    const actor = await actorJwt();
    const res = await exchange({ actor });
    expect(res.status).toBe(200);
    const claims = decodeJwt(String(res.body.access_token));
    expect(claims.act).toEqual({ sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'key' });
    expect(claims.sub).toBe(t.user.id);
    expect(await lastEvent()).toMatchObject({
      jti: claims.jti,
      nheIdentifier: 'orders-agent',
      actorAuth: { method: 'key', jkt: agentKey.jkt, jti: decodeJwt(actor).jti },
    });
    const lines = s.logs.slice(logged);
    expect(lines.some((l) => l.includes(actor.split('.')[1]!))).toBe(false);
    const granted = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'delegation granted')!;
    expect(granted).toMatchObject({
      nhe: 'orders-agent',
      actorAuth: { method: 'key' },
      decision: { actorAuth: 'key' },
    });
  });

  it('aud may be the token endpoint (either mount)', async () => {
    for (const aud of [tokenUrl, `${s.baseUrl}/_api/auth/${T}/oidc/token`])
      expect((await exchange({ actor: await actorJwt({ aud }) })).status).toBe(200);
  });

  it("keys at the NHE's jwks_uri (EdDSA), fetched SSRF-safely and cached", async () => {
    const ok = await exchange({ actor: await actorJwt({ iss: 'uri-agent', sub: 'uri-agent' }, uriKey, 'EdDSA') });
    expect(ok.status).toBe(200);
    expect(decodeJwt(String(ok.body.access_token)).act).toEqual({
      sub: 'nhe:uri-agent',
      'org.vendor.actor.proof': 'key',
    });
  });

  it('a workload JWT (RS256) of a trusted issuer whose (iss, sub) maps to one NHE: act says workload', async () => {
    const actor = await workloadJwt();
    const res = await exchange({ actor });
    expect(res.status).toBe(200);
    const claims = decodeJwt(String(res.body.access_token));
    expect(claims.act).toEqual({ sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'workload' });
    expect(claims.agent).toMatchObject({ id: 'orders-agent' });
    expect(await lastEvent()).toMatchObject({
      jti: claims.jti,
      actorAuth: { method: 'workload', issuer: WL_ISSUER, subject: SA, jti: decodeJwt(actor).jti },
    });
  });

  it('a disabled workload issuer authenticates nobody', async () => {
    await s.db.models.WorkloadIssuer.updateOne({ tenantId: T, issuer: WL_ISSUER }, { $set: { enabled: false } });
    try {
      await new Promise((r) => setTimeout(r, 5100)); // the sidecars' registration cache (5 s; NATS invalidation in a pod)
      const res = await exchange({ actor: await workloadJwt() });
      expect(res.body.error_description).toBe(
        'actor_token issuer is neither the NHE itself (iss = sub = its identifier) nor a trusted workload issuer of this tenant',
      );
    } finally {
      await s.db.models.WorkloadIssuer.updateOne({ tenantId: T, issuer: WL_ISSUER }, { $set: { enabled: true } });
      await new Promise((r) => setTimeout(r, 5100));
    }
  }, 20_000);

  it('a jti is used once, across replicas: the same actor JWT again through oidc-core and straight at the second sidecar', async () => {
    // The replicas share the JetStream single-use stream (the service's default store), each over its own connection.
    const records = async () => (await s.jsm.streams.info(SINGLE_USE_STREAM)).state.messages;
    const before = await records();
    const actor = await actorJwt();
    expect((await exchange({ actor })).status).toBe(200);
    expect(await records()).toBe(before + 1);
    const again = await exchange({ actor });
    expect({ status: again.status, body: again.body }).toEqual({
      status: 400,
      body: err('invalid_grant', 'actor_token has been used before (jti)'),
    });
    // A fresh actor JWT at replica 1 first, then the same at replica 2 (its own caches, the shared store).
    const fresh = await actorJwt();
    const direct = async (url: string) => {
      const res = await fetch(`${url}/internal/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sidecar-secret': SIDECAR_SECRET },
        body: JSON.stringify({
          tenantId: T,
          clientId: 'demo-app',
          clientNumericId: t.client.numericId,
          params: {
            subject_token: await s.userToken(T, { sub: t.user.id, client_id: 'demo-app' }),
            subject_token_type: AT,
            actor_token: fresh,
            actor_token_type: JWT,
            resource: RS,
            scope: 'orders:read',
          },
          sourceIp: '127.0.0.1',
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    expect((await direct(s.sidecarUrl)).status).toBe(200);
    expect(await direct(s.sidecar2Url)).toEqual({
      status: 400,
      body: err('invalid_grant', 'actor_token has been used before (jti)'),
    });
    // Sent to both replicas at once: one token, one replay refusal.
    const racing = await actorJwt();
    const both = await Promise.all(
      [s.sidecarUrl, s.sidecar2Url].map(
        async (url) =>
          (
            await fetch(`${url}/internal/token-exchange`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-sidecar-secret': SIDECAR_SECRET },
              body: JSON.stringify({
                tenantId: T,
                clientId: 'demo-app',
                clientNumericId: t.client.numericId,
                params: {
                  subject_token: await s.userToken(T, { sub: t.user.id, client_id: 'demo-app' }),
                  subject_token_type: AT,
                  actor_token: racing,
                  actor_token_type: JWT,
                  resource: RS,
                  scope: 'orders:read',
                },
                sourceIp: '127.0.0.1',
              }),
            })
          ).status,
      ),
    );
    expect(both.sort()).toEqual([200, 400]);
  });

  it('the jti store unavailable (the stream gone): 503 temporarily_unavailable, no token; the named actor unaffected', async () => {
    await s.jsm.streams.delete(SINGLE_USE_STREAM);
    try {
      const res = await exchange({ actor: await actorJwt() });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 503,
        body: err(
          'temporarily_unavailable',
          "the actor token's single use could not be checked; no token was issued, retry later",
        ),
      });
      expect((await exchange()).status).toBe(200);
    } finally {
      await ensureSingleUseStream(s.nc, { replicas: 1, maxAgeSeconds: 600 });
    }
    expect((await exchange({ actor: await actorJwt() })).status).toBe(200);
  });
});

describe('requireActorProof (tenant setting, per-NHE override)', () => {
  const setTenant = (v: boolean) =>
    s.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.requireActorProof': v } });
  const setNhe = (v: boolean | null) =>
    s.db.models.Nhe.updateOne(
      { tenantId: T, identifier: 'orders-agent' },
      v === null ? { $unset: { requireActorProof: 1 } } : { $set: { requireActorProof: v } },
    );
  const REFUSED = err(
    'invalid_grant',
    'this NHE must prove who it is: send a signed actor_token of type urn:ietf:params:oauth:token-type:jwt',
  );
  afterEach(async () => {
    await setTenant(false);
    await setNhe(null);
  });

  const rows: Array<[string, boolean, boolean | null, 'named' | 'key' | 'workload', number]> = [
    ["tenant off, NHE inherits: nhe-id accepted (the spec's contract)", false, null, 'named', 200],
    ['tenant on, NHE inherits: nhe-id refused', true, null, 'named', 400],
    ['tenant on, NHE inherits: key proof accepted', true, null, 'key', 200],
    ['tenant on, NHE inherits: workload proof accepted', true, null, 'workload', 200],
    ['tenant on, NHE false: nhe-id accepted', true, false, 'named', 200],
    ['tenant off, NHE true: nhe-id refused', false, true, 'named', 400],
    ['tenant off, NHE true: key proof accepted', false, true, 'key', 200],
  ];
  it.each(rows)('%s', async (_name, tenant, nhe, method, status) => {
    await setTenant(tenant);
    await setNhe(nhe);
    // The test sidecars read the facts straight from MongoDB (no facts cache), so a change applies at once.
    const actor = method === 'named' ? undefined : method === 'key' ? await actorJwt() : await workloadJwt();
    const res = await exchange(actor ? { actor } : {});
    if (status === 400) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: REFUSED });
      return;
    }
    expect(res.status).toBe(200);
    const claims = decodeJwt(String(res.body.access_token));
    // Named: the spec's act exactly ({sub}); proven: plus how.
    expect(claims.act).toEqual(
      method === 'named' ? { sub: 'nhe:orders-agent' } : { sub: 'nhe:orders-agent', 'org.vendor.actor.proof': method },
    );
    expect(((await lastEvent()).actorAuth as { method: string }).method).toBe(method);
  });
});

describe('DPoP pinned to the agent (requireKeyBoundDpop)', () => {
  const proof = (key: Key) =>
    new SignJWT({ htm: 'POST', htu: tokenUrl, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({
        alg: key.jwk.kty === 'OKP' ? 'EdDSA' : 'ES256',
        typ: 'dpop+jwt',
        jwk: { kty: key.jwk.kty!, crv: key.jwk.crv!, x: key.jwk.x!, ...(key.jwk.y ? { y: key.jwk.y } : {}) },
      })
      .sign(key.pair.privateKey);
  beforeAll(async () => {
    await s.db.models.Nhe.updateMany(
      { tenantId: T, identifier: { $in: ['orders-agent', 'uri-agent'] } },
      { $set: { requireKeyBoundDpop: true } },
    );
  });
  afterAll(async () => {
    await s.db.models.Nhe.updateMany({ tenantId: T }, { $unset: { requireKeyBoundDpop: 1 } });
  });

  it('no proof: invalid_dpop_proof', async () => {
    const res = await exchange({ actor: await actorJwt() });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err(
        'invalid_dpop_proof',
        'this NHE requires its tokens to be DPoP-bound to one of its registered keys: send a DPoP proof made with one of them',
      ),
    });
  });

  it('a proof with another key: invalid_dpop_proof', async () => {
    const res = await exchange({ actor: await actorJwt(), dpop: await proof(await newKey()) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err('invalid_dpop_proof', "DPoP proof key is not one of the NHE's registered keys"),
    });
  });

  it("a proof with the NHE's own key: the token is bound to it (named or proven actor alike)", async () => {
    for (const actor of [await actorJwt(), undefined]) {
      const res = await exchange({ ...(actor ? { actor } : {}), dpop: await proof(agentKey) });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('DPoP');
      expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: agentKey.jkt });
    }
  });

  it('an NHE whose keys are at its jwks_uri: a proof with one of them binds the token', async () => {
    const res = await exchange({
      actor: await actorJwt({ iss: 'uri-agent', sub: 'uri-agent' }, uriKey, 'EdDSA'),
      dpop: await proof(uriKey),
    });
    expect(res.status).toBe(200);
    expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: uriKey.jkt });
  });
});
