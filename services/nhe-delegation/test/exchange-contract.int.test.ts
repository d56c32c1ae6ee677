/**
 * The NHE token-exchange contract end to end through oidc-core's token endpoint and the sidecar (in process, over
 * loopback HTTP), real FerretDB and real NATS JetStream. One row per parameter rule, client-auth rule, gate, error
 * code, TTL term, scope layer and DPoP case, each asserting the exact RFC 6749 JSON body and status.
 */
import { randomInt, randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type JWK,
} from 'jose';
import { AUDIT_STREAM, auditSubject, publishRevocation, REVOCATION_COLLECTION, revocationStore } from '@idp/events';
import { createLogger } from '@idp/logger';
import { basicAuth, createClient, freePort, type SeededTenant } from '@idp/testing';
import { sidecarForwarder } from '../../oidc-core/src/provider/grants/sidecar-forwarder';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { PEPPER, SIDECAR_SECRET, startStack, type Stack } from './stack';

const TE = GRANT_TYPE_TOKEN_EXCHANGE;
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const NHE_ID = 'urn:vendor:token-type:nhe-id';
const RS = 'https://api.orders.example';
const T = randomInt(100_000, 900_000);
const OTHER = T + 1;

let s: Stack;
let t: SeededTenant;
let tokenUrl: string;
const clients: Record<string, { clientId: string; clientSecret: string; numericId: number }> = {};
let jwtClientKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

beforeAll(async () => {
  s = await startStack('nhecontract');
  t = await s.seed(T);
  await s.seed(OTHER);
  tokenUrl = `${s.baseUrl}/auth/${T}/oidc/token`;
  const m = s.db.models;
  clients.post = await createClient(m, PEPPER, {
    tenantId: T,
    clientId: 'post-app',
    name: 'post',
    grantTypes: [TE],
    tokenEndpointAuthMethod: 'client_secret_post',
    delegationEnabled: true,
  });
  clients.nogrant = await createClient(m, PEPPER, {
    tenantId: T,
    clientId: 'nogrant-app',
    name: 'no grant',
    grantTypes: ['client_credentials'],
    delegationEnabled: true,
  });
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  jwtClientKey = privateKey;
  clients.jwt = await createClient(m, PEPPER, {
    tenantId: T,
    clientId: 'jwt-app',
    name: 'jwt',
    grantTypes: [TE],
    tokenEndpointAuthMethod: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(publicKey)), alg: 'ES256', use: 'sig', kid: 'k1' }] },
    delegationEnabled: true,
  });
  // A group policy for a second user (policy matching through groups).
  const group = await m.Group.create({ tenantId: T, name: 'ops' });
  const role = await m.Role.findOne({ tenantId: T, name: 'orders-clerk' });
  const bob = await m.User.create({
    tenantId: T,
    username: 'bob',
    passwordHash: 'x',
    roleIds: [String(role!._id)],
    groupIds: [String(group._id)],
  });
  bobId = String(bob._id);
  await m.DelegationPolicy.create({
    tenantId: T,
    nheId: t.nhe.id,
    target: { type: 'group', id: String(group._id) },
    allowedScopes: ['orders:read'],
    maxTokenLifetime: 240,
  });
  await m.DelegationPolicy.create({
    tenantId: T,
    nheId: t.nhe.id,
    target: { type: 'group', id: 'other-group' },
    allowedScopes: ['orders:write'],
  });
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (s as typeof s | undefined)?.close();
});

let bobId = '';
/** Every subject token sent and access token received: none may appear in a log line. */
const secrets = new Set<string>();

const basic = basicAuth;

interface Call {
  params?: Record<string, string | undefined>;
  /** Raw body instead of params (duplicates). */
  raw?: string;
  client?: 'demo' | 'post' | 'jwt' | 'nogrant' | 'wrong-secret';
  dpop?: string;
  url?: string;
}

async function subjectFor(clientId = 'demo-app', sub = t.user.id): Promise<string> {
  return s.userToken(T, { sub, client_id: clientId });
}

async function exchange(call: Call = {}) {
  const client = call.client ?? 'demo';
  const clientId = {
    demo: 'demo-app',
    post: 'post-app',
    jwt: 'jwt-app',
    nogrant: 'nogrant-app',
    'wrong-secret': 'demo-app',
  }[client];
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form: Record<string, string> = {};
  if (client === 'demo') headers.authorization = basic('demo-app', t.client.clientSecret);
  if (client === 'wrong-secret') headers.authorization = basic('demo-app', 'not-the-secret');
  if (client === 'nogrant') headers.authorization = basic('nogrant-app', clients.nogrant!.clientSecret);
  if (client === 'post') Object.assign(form, { client_id: 'post-app', client_secret: clients.post!.clientSecret });
  if (client === 'jwt') {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer('jwt-app')
      .setSubject('jwt-app')
      .setAudience(`${s.baseUrl}/auth/${T}`)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(jwtClientKey);
    Object.assign(form, {
      client_id: 'jwt-app',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
  }
  if (call.dpop) headers.dpop = call.dpop;
  const params: Record<string, string | undefined> = {
    grant_type: TE,
    subject_token: await subjectFor(clientId),
    subject_token_type: AT,
    actor_token: 'orders-agent',
    actor_token_type: NHE_ID,
    resource: RS,
    scope: 'orders:read',
    ...call.params,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) form[k] = v;
  const res = await fetch(call.url ?? tokenUrl, {
    method: 'POST',
    headers,
    body: call.raw ?? new URLSearchParams(form),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (form.subject_token) secrets.add(form.subject_token);
  if (typeof body.access_token === 'string') secrets.add(body.access_token);
  return { status: res.status, headers: res.headers, body };
}

/** Applies a change to the seeded data; returns the undo. */
type Change = () => Promise<() => Promise<unknown>>;
const m = () => s.db.models;
const setTenant =
  (nhe: Record<string, unknown>): Change =>
  async () => {
    const set = Object.fromEntries(Object.entries(nhe).map(([k, v]) => [`settings.nhe.${k}`, v]));
    const before = (await m().Tenant.findById(T).lean())!.settings!.nhe as unknown as Record<string, unknown>;
    await m().Tenant.updateOne({ _id: T }, { $set: set });
    return () =>
      m().Tenant.updateOne(
        { _id: T },
        { $set: Object.fromEntries(Object.keys(nhe).map((k) => [`settings.nhe.${k}`, before[k]])) },
      );
  };
const setDoc =
  (
    model: 'Client' | 'ResourceServer' | 'Nhe' | 'User' | 'DelegationPolicy' | 'Role',
    filter: () => Record<string, unknown>,
    set: Record<string, unknown>,
    undo: Record<string, unknown> | (() => Record<string, unknown>),
  ): Change =>
  async () => {
    const M = m()[model] as unknown as { updateOne: (f: object, u: object) => Promise<unknown> };
    await M.updateOne(filter(), { $set: set });
    return () => M.updateOne(filter(), typeof undo === 'function' ? undo() : undo);
  };
const demoClient = () => ({ tenantId: T, clientId: 'demo-app' });
const rs = () => ({ tenantId: T, identifier: RS });
const nhe = () => ({ tenantId: T, identifier: 'orders-agent' });
const userPolicy = () => ({ _id: t.policyId });

const err = (error: string, error_description: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  error,
  error_description,
});

describe('parameters and client authentication', () => {
  const rows: Array<[string, Call, number, Record<string, unknown>]> = [
    ...(['subject_token', 'subject_token_type', 'actor_token', 'actor_token_type', 'resource', 'scope'] as const).map(
      (name): [string, Call, number, Record<string, unknown>] => [
        `missing ${name}`,
        { params: { [name]: undefined } },
        400,
        err('invalid_request', `missing required parameter '${name}'`),
      ],
    ),
    [
      'unsupported subject_token_type',
      { params: { subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' } },
      400,
      err('invalid_request', `unsupported subject_token_type; use ${AT}`),
    ],
    [
      'unsupported actor_token_type',
      { params: { actor_token_type: 'urn:ietf:params:oauth:token-type:id_token' } },
      400,
      err('invalid_request', `unsupported actor_token_type; use ${NHE_ID} or urn:ietf:params:oauth:token-type:jwt`),
    ],
    [
      'unsupported requested_token_type',
      { params: { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' } },
      400,
      err('invalid_request', `unsupported requested_token_type; use ${AT}`),
    ],
    [
      'audience instead of resource',
      { params: { audience: 'orders' } },
      400,
      err('invalid_request', 'audience is not supported; name the resource server with resource'),
    ],
    [
      'resource not an absolute URI',
      { params: { resource: 'orders-api' } },
      400,
      err('invalid_target', "parameter 'resource' must be an absolute URI without a fragment"),
    ],
    [
      'scope with invalid characters',
      { params: { scope: 'orders:read "x"' } },
      400,
      err('invalid_scope', 'scope contains invalid characters'),
    ],
    ['wrong client secret', { client: 'wrong-secret' }, 401, err('invalid_client', 'client authentication failed')],
    [
      'grant not allowed for the client',
      { client: 'nogrant' },
      400,
      err('unauthorized_client', 'requested grant type is not allowed for this client'),
    ],
  ];
  it.each(rows)('%s', async (_name, call, status, body) => {
    const res = await exchange(call);
    expect({ status: res.status, body: res.body }).toEqual({ status, body });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('a repeated parameter is invalid_request naming it', async () => {
    const subject = await subjectFor();
    const raw = new URLSearchParams({
      grant_type: TE,
      subject_token: subject,
      subject_token_type: AT,
      actor_token: 'orders-agent',
      actor_token_type: NHE_ID,
      resource: RS,
      scope: 'orders:read',
    });
    raw.append('actor_token', 'other');
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic('demo-app', t.client.clientSecret),
      },
      body: raw,
    });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: err('invalid_request', "'actor_token' parameter must not be provided twice"),
    });
  });

  it.each([
    ['client_secret_basic', 'demo'],
    ['client_secret_post', 'post'],
    ['private_key_jwt', 'jwt'],
  ] as const)('%s authenticates the exchange', async (_method, client) => {
    const res = await exchange({ client });
    expect(res.status).toBe(200);
    const claims = decodeJwt(String(res.body.access_token));
    expect(claims.azp).toBe(client === 'demo' ? t.client.numericId : clients[client]!.numericId);
    expect(claims.client_id).toBe({ demo: 'demo-app', post: 'post-app', jwt: 'jwt-app' }[client]);
  });
});

describe('gates and error codes', () => {
  const rows: Array<[string, Change | null, Call, number, Record<string, unknown>]> = [
    [
      'tenant: NHE feature off',
      setTenant({ enabled: false }),
      {},
      400,
      err('access_denied', 'NHE delegation is disabled for this tenant'),
    ],
    [
      'tenant: NHE type not allowed',
      setTenant({ allowedNheTypes: ['automated-pipeline'] }),
      {},
      400,
      err('access_denied', 'NHE type llm-assistive is not allowed in this tenant'),
    ],
    [
      'client: delegation off',
      setDoc(
        'Client',
        demoClient,
        { 'config.nhe.delegationEnabled': false },
        { $set: { 'config.nhe.delegationEnabled': true } },
      ),
      {},
      400,
      err('access_denied', 'NHE delegation is disabled for this client'),
    ],
    [
      'client: NHE not in allowedNheIdentifiers',
      setDoc(
        'Client',
        demoClient,
        { 'config.nhe.allowedNheIdentifiers': ['another-agent'] },
        { $set: { 'config.nhe.allowedNheIdentifiers': [] } },
      ),
      {},
      400,
      err('access_denied', 'this client may not delegate to this NHE'),
    ],
    [
      'client: NHE listed in allowedNheIdentifiers',
      setDoc(
        'Client',
        demoClient,
        { 'config.nhe.allowedNheIdentifiers': ['orders-agent'] },
        { $set: { 'config.nhe.allowedNheIdentifiers': [] } },
      ),
      {},
      200,
      {},
    ],
    [
      'resource server unknown',
      null,
      { params: { resource: 'https://unknown.example' } },
      400,
      err('invalid_target', 'unknown resource server'),
    ],
    [
      'resource server rejects NHE tokens',
      setDoc(
        'ResourceServer',
        rs,
        { 'config.nhe.acceptDelegationTokens': false },
        { $set: { 'config.nhe.acceptDelegationTokens': true } },
      ),
      {},
      400,
      err('invalid_target', 'the resource server does not accept delegated tokens'),
    ],
    [
      'resource server rejects the NHE type',
      setDoc(
        'ResourceServer',
        rs,
        { 'config.nhe.allowedNheTypes': ['llm-autonomous'] },
        { $set: { 'config.nhe.allowedNheTypes': [] } },
      ),
      {},
      400,
      err('invalid_target', 'the resource server does not accept NHE type llm-assistive'),
    ],
    ['NHE unknown', null, { params: { actor_token: 'ghost-agent' } }, 400, err('invalid_grant', 'unknown NHE')],
    [
      'NHE disabled',
      setDoc('Nhe', nhe, { enabled: false }, { $set: { enabled: true } }),
      {},
      400,
      err('invalid_grant', 'the NHE is disabled'),
    ],
    [
      'user disabled',
      setDoc('User', () => ({ tenantId: T, username: 'alice' }), { enabled: false }, { $set: { enabled: true } }),
      {},
      400,
      err('invalid_grant', 'the user of subject_token does not exist or is disabled'),
    ],
    [
      'no delegation policy for the user',
      setDoc('DelegationPolicy', userPolicy, { 'target.id': 'someone-else' }, () => ({
        $set: { 'target.id': t.user.id },
      })),
      {},
      400,
      err('access_denied', 'no delegation policy allows this user to delegate to this NHE'),
    ],
  ];
  it.each(rows)('%s', async (_name, change, call, status, body) => {
    const undo = change ? await change() : null;
    try {
      const res = await exchange(call);
      if (status === 200) expect(res.status).toBe(200);
      else expect({ status: res.status, body: res.body }).toEqual({ status, body });
    } finally {
      if (undo) await undo();
    }
  });
});

describe('subject token (invalid_grant)', () => {
  const rows: Array<[string, () => Promise<string>, string]> = [
    ['not a JWT', () => Promise.resolve('not-a-jwt'), 'subject_token is not a valid access token of this tenant'],
    [
      'an opaque access token (a login without resource)',
      () => Promise.resolve('fO7C1x0xYwQ2R_sE9k-3pZbM4uVnA8tLq6HdJiKgW5e'),
      'subject_token is an opaque access token: sign the user in with a resource parameter to get a JWT access token to exchange',
    ],
    [
      'bad signature',
      async () => {
        const [h, p] = (await subjectFor()).split('.');
        return `${h}.${p}.${Buffer.alloc(64, 1).toString('base64url')}`;
      },
      'subject_token is not a valid access token of this tenant',
    ],
    [
      'signed by another tenant',
      () => s.userToken(T, { sub: t.user.id }, { signTenant: OTHER }),
      'subject_token is not a valid access token of this tenant',
    ],
    [
      'issued by another tenant',
      () => s.userToken(T, { sub: t.user.id }, { iss: `${s.baseUrl}/auth/${OTHER}` }),
      'subject_token was not issued by this tenant',
    ],
    ['expired', () => s.userToken(T, { sub: t.user.id }, { expOffset: -5 }), 'subject_token has expired'],
    [
      'itself an NHE token',
      () => s.userToken(T, { sub: t.user.id, act: { sub: 'nhe:orders-agent' }, 'org.vendor.nhe.delegation': true }),
      'subject_token is a delegated token and cannot be exchanged again',
    ],
    [
      'a client-credentials token (no user)',
      () => s.userToken(T, { sub: 'demo-app' }),
      'subject_token does not represent a user',
    ],
    [
      'issued to another client',
      () => s.userToken(T, { sub: t.user.id, client_id: 'post-app' }),
      'subject_token was issued to another client',
    ],
  ];
  it.each(rows)('%s', async (_name, make, description) => {
    const res = await exchange({ params: { subject_token: await make() } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: err('invalid_grant', description) });
  });
});

describe('scope layers', () => {
  const rows: Array<
    [string, Change | null, string, { status: number; body?: Record<string, unknown>; scope?: string | null }]
  > = [
    ['requested == granted: no scope member', null, 'orders:read orders:write', { status: 200, scope: null }],
    [
      'beyond the policy: invalid_scope',
      null,
      'orders:read orders:refund',
      {
        status: 400,
        body: err('invalid_scope', 'requested scope exceeds the delegation policy', { scope: 'orders:refund' }),
      },
    ],
    [
      'user permissions layer removes a scope',
      setDoc(
        'Role',
        () => ({ tenantId: T, name: 'orders-clerk' }),
        { permissions: ['orders:read'] },
        { $set: { permissions: ['orders:read', 'orders:write'] } },
      ),
      'orders:read orders:write',
      { status: 200, scope: 'orders:read' },
    ],
    [
      'NHE allowed scopes layer removes a scope',
      setDoc(
        'Nhe',
        nhe,
        { allowedScopes: ['orders:write'] },
        { $set: { allowedScopes: ['orders:read', 'orders:write'] } },
      ),
      'orders:read orders:write',
      { status: 200, scope: 'orders:write' },
    ],
    ['offline_access never appears', null, 'orders:read offline_access', { status: 200, scope: 'orders:read' }],
    [
      'empty intersection: invalid_scope',
      setDoc(
        'Nhe',
        nhe,
        { allowedScopes: ['orders:write'] },
        { $set: { allowedScopes: ['orders:read', 'orders:write'] } },
      ),
      'orders:read',
      {
        status: 400,
        body: err('invalid_scope', 'none of the requested scopes can be delegated', { scope: 'orders:read' }),
      },
    ],
  ];
  it.each(rows)('%s', async (_name, change, scope, expected) => {
    const undo = change ? await change() : null;
    try {
      const res = await exchange({ params: { scope } });
      if (expected.body) {
        expect({ status: res.status, body: res.body }).toEqual({ status: expected.status, body: expected.body });
        return;
      }
      expect(res.status).toBe(200);
      if (expected.scope === null) expect(res.body).not.toHaveProperty('scope');
      else expect(res.body.scope).toBe(expected.scope);
      expect(decodeJwt(String(res.body.access_token)).scope).toBe(expected.scope ?? scope);
    } finally {
      if (undo) await undo();
    }
  });

  it('group policies: the policy scopes bound the request and their lifetime is a TTL term', async () => {
    const subject = await s.userToken(T, { sub: bobId });
    const ok = await exchange({ params: { subject_token: subject, scope: 'orders:read' } });
    expect(ok.status).toBe(200);
    expect(ok.body.expires_in).toBe(240);
    const beyond = await exchange({ params: { subject_token: subject, scope: 'orders:write' } });
    expect({ status: beyond.status, body: beyond.body }).toEqual({
      status: 400,
      body: err('invalid_scope', 'requested scope exceeds the delegation policy', { scope: 'orders:write' }),
    });
  });
});

describe('TTL: min(tenant hard max, NHE, policy, client, resource server), clamped up to 60 s', () => {
  const rows: Array<[string, Change | null, number]> = [
    ['NHE maxTokenLifetime is the minimum', null, 300],
    ['tenant hardMaxTokenLifetime is the minimum', setTenant({ hardMaxTokenLifetime: 120 }), 120],
    [
      'policy maxTokenLifetime is the minimum',
      setDoc('DelegationPolicy', userPolicy, { maxTokenLifetime: 200 }, { $unset: { maxTokenLifetime: 1 } }),
      200,
    ],
    [
      'client config.nhe.maxTokenLifetime is the minimum',
      setDoc(
        'Client',
        demoClient,
        { 'config.nhe.maxTokenLifetime': 150 },
        { $unset: { 'config.nhe.maxTokenLifetime': 1 } },
      ),
      150,
    ],
    [
      'resource server accessToken.lifetime is the minimum',
      setDoc(
        'ResourceServer',
        rs,
        { 'config.accessToken.lifetime': 100 },
        { $set: { 'config.accessToken.lifetime': 3600 } },
      ),
      100,
    ],
    [
      'below 60 s is clamped up to 60',
      setDoc('Nhe', nhe, { maxTokenLifetime: 30 }, { $set: { maxTokenLifetime: 300 } }),
      60,
    ],
    [
      'an NHE record without a lifetime gets the tenant defaultMaxTokenLifetime',
      async () => {
        const undoTenant = await setTenant({ defaultMaxTokenLifetime: 200 })();
        await m().Nhe.updateOne(nhe(), { $unset: { maxTokenLifetime: 1 } });
        return async () => {
          await m().Nhe.updateOne(nhe(), { $set: { maxTokenLifetime: 300 } });
          await undoTenant();
        };
      },
      200,
    ],
  ];
  it.each(rows)('%s', async (_name, change, ttl) => {
    const undo = change ? await change() : null;
    try {
      const res = await exchange();
      expect(res.status).toBe(200);
      expect(res.body.expires_in).toBe(ttl);
      const claims = decodeJwt(String(res.body.access_token));
      expect(claims.exp! - claims.iat!).toBe(ttl);
    } finally {
      if (undo) await undo();
    }
  });
});

describe('DPoP', () => {
  let key: { privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; jwk: JWK; jkt: string };
  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    key = { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
  });
  const proof = async (o: { nonce?: string; htu?: string; htm?: string; iat?: number; jti?: string } = {}) =>
    new SignJWT({
      htm: o.htm ?? 'POST',
      htu: o.htu ?? tokenUrl,
      jti: o.jti ?? randomUUID(),
      iat: o.iat ?? Math.floor(Date.now() / 1000),
      ...(o.nonce ? { nonce: o.nonce } : {}),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
      .sign(key.privateKey);

  it('a DPoP-bound subject token needs a proof made with its key; the NHE token is bound to the same key', async () => {
    const bound = await s.userToken(T, { sub: t.user.id, client_id: 'demo-app', cnf: { jkt: key.jkt } });
    const bare = await exchange({ params: { subject_token: bound } });
    expect({ status: bare.status, body: bare.body }).toEqual({
      status: 400,
      body: err('invalid_grant', 'subject_token is DPoP-bound: send a DPoP proof made with its key'),
    });
    const other = await generateKeyPair('ES256', { extractable: true });
    const foreign = await new SignJWT({
      htm: 'POST',
      htu: tokenUrl,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(other.publicKey) })
      .sign(other.privateKey);
    const logged = s.logs.length;
    const wrongKey = await exchange({ params: { subject_token: bound }, dpop: foreign });
    expect({ status: wrongKey.status, body: wrongKey.body }).toEqual({
      status: 400,
      body: err('invalid_grant', 'subject_token is DPoP-bound: send a DPoP proof made with its key'),
    });
    // Reported once, as the rejection it is: no "delegation granted" line for a request that minted nothing.
    const lines = s.logs
      .slice(logged)
      .map((l) => (JSON.parse(l) as { msg: string }).msg)
      .filter((m) => /delegation|token exchange/.test(m));
    expect(lines).toEqual(['token exchange rejected']);
    const ok = await exchange({ params: { subject_token: bound }, dpop: await proof() });
    expect([ok.status, ok.body.token_type, decodeJwt(String(ok.body.access_token)).cnf]).toEqual([
      200,
      'DPoP',
      { jkt: key.jkt },
    ]);
  });

  it('without requireDpop and without a proof: Bearer, no cnf', async () => {
    const res = await exchange();
    expect(res.body.token_type).toBe('Bearer');
    expect(decodeJwt(String(res.body.access_token))).not.toHaveProperty('cnf');
  });

  it('without requireDpop a proof binds the token (token_type DPoP, cnf.jkt) and a nonce is handed out', async () => {
    const res = await exchange({ dpop: await proof() });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    expect(res.headers.get('dpop-nonce')).toMatch(/^\d+\.[\w-]{43}$/);
    const event = (await s.jsm.streams.getMessage(AUDIT_STREAM, { last_by_subj: auditSubject(T) }))!.json<
      Record<string, unknown>
    >();
    expect(event).toMatchObject({ jti: decodeJwt(String(res.body.access_token)).jti, dpopJkt: key.jkt });
  });

  it.each<[string, { htu?: string; htm?: string; iat?: number }, string]>([
    ['htu of another endpoint', { htu: 'other' }, 'DPoP proof htu mismatch'],
    ['htm GET', { htm: 'GET' }, 'DPoP proof htm mismatch'],
    ['iat ten minutes old', { iat: Math.floor(Date.now() / 1000) - 600 }, 'DPoP proof iat is not recent'],
  ])('an invalid proof (%s) is invalid_dpop_proof', async (_n, o, description) => {
    const res = await exchange({ dpop: await proof(o.htu ? { htu: `${s.baseUrl}/auth/1/oidc/token` } : o) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err('invalid_dpop_proof', description),
    });
  });

  it('a proof that is not a JWS is invalid_dpop_proof', async () => {
    const res = await exchange({ dpop: 'garbage' });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err('invalid_dpop_proof', 'DPoP proof is not a JWS'),
    });
  });

  it('a proof with a nonce the server did not issue gets use_dpop_nonce with a fresh nonce', async () => {
    const res = await exchange({ dpop: await proof({ nonce: 'made-up' }) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: err('use_dpop_nonce', 'authorization server requires nonce in DPoP proof'),
    });
    expect(res.headers.get('dpop-nonce')).toMatch(/^\d+\.[\w-]{43}$/);
  });

  describe('requireDpop', () => {
    let undo: () => Promise<unknown>;
    beforeAll(async () => {
      undo = await setTenant({ requireDpop: true })();
    });
    afterAll(async () => {
      await undo();
    });

    it('no proof: invalid_dpop_proof', async () => {
      const res = await exchange();
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: err('invalid_dpop_proof', 'this tenant requires a DPoP proof for delegated tokens'),
      });
    });

    it('proof without nonce: use_dpop_nonce + DPoP-Nonce; retried with it: DPoP-bound token; replay refused by another replica', async () => {
      const first = await exchange({ dpop: await proof() });
      expect({ status: first.status, body: first.body }).toEqual({
        status: 400,
        body: err('use_dpop_nonce', 'authorization server requires nonce in DPoP proof'),
      });
      const nonce = first.headers.get('dpop-nonce')!;
      expect(nonce).toMatch(/^\d+\.[\w-]{43}$/);

      const bound = await proof({ nonce });
      const ok = await exchange({ dpop: bound });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ token_type: 'DPoP', issued_token_type: AT });
      expect(decodeJwt(String(ok.body.access_token)).cnf).toEqual({ jkt: key.jkt });

      // The same proof again, through oidc-core (sidecar 1) and straight at a second sidecar replica.
      const again = await exchange({ dpop: bound });
      expect({ status: again.status, body: again.body }).toEqual({
        status: 400,
        body: err('invalid_dpop_proof', 'DPoP proof has been used before'),
      });
      const replica = await fetch(`${s.sidecar2Url}/internal/token-exchange`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sidecar-secret': SIDECAR_SECRET },
        body: JSON.stringify({
          tenantId: T,
          clientId: 'demo-app',
          clientNumericId: t.client.numericId,
          params: {
            subject_token: await subjectFor(),
            subject_token_type: AT,
            actor_token: 'orders-agent',
            actor_token_type: NHE_ID,
            resource: RS,
            scope: 'orders:read',
          },
          dpop: { proof: bound, htm: 'POST', htu: tokenUrl },
          sourceIp: '127.0.0.1',
        }),
      });
      expect({ status: replica.status, body: await replica.json() }).toEqual({
        status: 400,
        body: err('invalid_dpop_proof', 'DPoP proof has been used before'),
      });
    });

    it('the /_api form of the endpoint binds htu to that URL', async () => {
      const apiUrl = `${s.baseUrl}/_api/auth/${T}/oidc/token`;
      const nonce = (await exchange({ url: apiUrl, dpop: await proof({ htu: apiUrl }) })).headers.get('dpop-nonce')!;
      const res = await exchange({ url: apiUrl, dpop: await proof({ htu: apiUrl, nonce }) });
      expect(res.status).toBe(200);
      expect(res.body.token_type).toBe('DPoP');
    });
  });
});

describe('the issued token and its audit event', () => {
  it('has exactly the claims of the spec table, the JWKS key id and typ at+jwt; response fields exact', async () => {
    const res = await exchange({ params: { scope: 'orders:read orders:write' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'expires_in', 'issued_token_type', 'token_type']);
    expect(res.body).toMatchObject({ issued_token_type: AT, token_type: 'Bearer', expires_in: 300 });

    const token = String(res.body.access_token);
    const header = decodeProtectedHeader(token);
    const jwks = (await (await fetch(`${s.baseUrl}/auth/${T}/jwks`)).json()) as { keys: JWK[] };
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
    const c = decodeJwt(token);
    expect(Object.keys(c).sort()).toEqual(
      [
        'act',
        'agent',
        'aud',
        'azp',
        'client_id',
        'exp',
        'gty',
        'iat',
        'iss',
        'jti',
        'org.vendor.nhe.delegation',
        'org.vendor.tenant.id',
        'org.vendor.tenant.name',
        'scope',
        'sub',
      ].sort(),
    );
    expect(c.iss).toBe(`${s.baseUrl}/auth/${T}`);
    expect(c.sub).toBe(t.user.id);
    expect(c.aud).toBe(RS);
    expect(c.exp! - c.iat!).toBe(300);
    expect(Math.abs(c.iat! - Date.now() / 1000)).toBeLessThan(5);
    expect(c.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(c.scope).toBe('orders:read orders:write');
    expect(c.gty).toBe(TE);
    expect(c.azp).toBe(t.client.numericId);
    // RFC 9068 section 2.2: the OAuth client_id string beside the spec's numeric azp.
    expect(c.client_id).toBe('demo-app');
    expect(c['org.vendor.tenant.name']).toBe(t.tenantName);
    expect(c['org.vendor.tenant.id']).toBe(T);
    expect(c.act).toEqual({ sub: 'nhe:orders-agent' });
    expect(c.agent).toEqual({
      id: 'orders-agent',
      type: 'llm-assistive',
      operator: 'Demo Operations',
      model: { name: 'demo-model', provider: 'example' },
    });
    expect(c['org.vendor.nhe.delegation']).toBe(true);

    const stored = await s.jsm.streams.getMessage(AUDIT_STREAM, { last_by_subj: auditSubject(T) });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(c.jti);
    expect(stored!.json()).toEqual({
      type: 'nhe.token.issued',
      jti: c.jti,
      tenantId: T,
      userId: t.user.id,
      nheId: t.nhe.id,
      nheIdentifier: 'orders-agent',
      clientId: 'demo-app',
      clientNumericId: t.client.numericId,
      resourceServer: RS,
      scopes: ['orders:read', 'orders:write'],
      ttl: 300,
      sourceIp: '127.0.0.1',
      issuedAt: new Date(c.iat! * 1000).toISOString(),
      // The spec's nhe-id actor token names the NHE and proves nothing.
      actorAuth: { method: 'named' },
    });
  });

  it('no JetStream ack (stream gone): 503 temporarily_unavailable, no token, nothing stored; back: issued', async () => {
    const info = await s.jsm.streams.info(AUDIT_STREAM);
    await s.jsm.streams.delete(AUDIT_STREAM);
    try {
      const logged = s.logs.length;
      const res = await exchange();
      expect({ status: res.status, body: res.body }).toEqual({
        status: 503,
        body: err('temporarily_unavailable', 'the issuance could not be recorded; no token was issued, retry later'),
      });
      // One record for the request: a failure, not also a grant.
      const lines = s.logs
        .slice(logged)
        .map((l) => (JSON.parse(l) as { msg: string }).msg)
        .filter((m) => /delegation|token exchange/.test(m));
      expect(lines).toEqual(['token exchange failed']);
    } finally {
      await s.jsm.streams.add({ ...info.config });
    }
    const ok = await exchange();
    expect(ok.status).toBe(200);
    expect((await s.jsm.streams.info(AUDIT_STREAM)).state.messages).toBe(1);
  });

  it('counts failures by error and stage in the sidecar metrics', async () => {
    const metrics = await (await fetch(`${s.sidecarUrl}/metrics`)).text();
    expect(metrics).toMatch(
      /nhe_token_exchange_decisions_total\{outcome="denied",error="access_denied",gate="tenant-disabled",service="nhe-delegation"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /nhe_token_exchange_decisions_total\{outcome="rejected",error="invalid_grant",gate="subject-token",service="nhe-delegation"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /nhe_token_exchange_decisions_total\{outcome="rejected",error="temporarily_unavailable",gate="audit",service="nhe-delegation"\} 1/,
    );
    expect(metrics).toMatch(
      /nhe_token_exchange_scopes_removed_total\{layer="no-refresh",service="nhe-delegation"\} [1-9]/,
    );
  });
});

describe('introspection of NHE tokens and the kill switch', () => {
  const introspect = async (token: string) => {
    const res = await fetch(`${s.baseUrl}/auth/${T}/token/introspection`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basic('demo-app', t.client.clientSecret),
      },
      body: new URLSearchParams({ token }),
    });
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(JSON.stringify(body));
    return body;
  };
  const issue = async () => String((await exchange()).body.access_token);

  it('an NHE token introspects as active with its claims', async () => {
    const token = await issue();
    const c = decodeJwt(token);
    expect(await introspect(token)).toEqual({ ...c, active: true, client_id: 'demo-app', token_type: 'Bearer' });
  });

  it('a tampered or foreign-tenant NHE token is inactive', async () => {
    const token = await issue();
    const [h, p] = token.split('.');
    expect(await introspect(`${h}.${p}.${Buffer.alloc(64, 2).toString('base64url')}`)).toEqual({ active: false });
    const foreign = await s.userToken(OTHER, {
      sub: t.user.id,
      act: { sub: 'nhe:orders-agent' },
      'org.vendor.nhe.delegation': true,
      'org.vendor.tenant.id': T,
      azp: t.client.numericId,
    });
    expect(await introspect(foreign)).toEqual({ active: false });
  });

  it('a deny-list entry (NHE, client or jti) makes issued tokens inactive at once; tokens issued after it are not affected', async () => {
    const store = revocationStore(s.db.connection.collection(REVOCATION_COLLECTION));
    const byNhe = await issue();
    const byJti = await issue();
    await new Promise((r) => setTimeout(r, 1100)); // iat has second precision
    await publishRevocation(
      s.nc,
      { tenantId: T, nheIdentifier: 'orders-agent', reason: 'policy.deleted', revokedAt: new Date(Date.now() - 1000) },
      { store },
    );
    await publishRevocation(
      s.nc,
      { tenantId: T, jti: String(decodeJwt(byJti).jti), reason: 'token.revoked' },
      { store },
    );
    expect(await introspect(byNhe)).toEqual({ active: false });
    expect(await introspect(byJti)).toEqual({ active: false });
    expect((await introspect(await issue())).active).toBe(true);
  });

  it.each([
    ['NHE disabled', setDoc('Nhe', nhe, { enabled: false }, { $set: { enabled: true } })],
    [
      'client delegation turned off',
      setDoc(
        'Client',
        demoClient,
        { 'config.nhe.delegationEnabled': false },
        { $set: { 'config.nhe.delegationEnabled': true } },
      ),
    ],
    ['tenant NHE feature turned off', setTenant({ enabled: false })],
  ])('%s: already issued tokens introspect as inactive', async (_n, change) => {
    const token = await issue();
    expect((await introspect(token)).active).toBe(true);
    const undo = await change();
    try {
      expect(await introspect(token)).toEqual({ active: false });
    } finally {
      await undo();
    }
  });
});

describe('oidc-core -> sidecar forwarding', () => {
  const silent = createLogger({ service: 'test', level: 'silent' });
  const request = { tenantId: T, clientId: 'demo-app', clientNumericId: 1, params: {}, sourceIp: '127.0.0.1' };
  it('a sidecar that is down is 503 temporarily_unavailable', async () => {
    const forward = sidecarForwarder(`http://127.0.0.1:${await freePort()}`, SIDECAR_SECRET, silent, 2000);
    expect(await forward(request)).toEqual({
      status: 503,
      body: { error: 'temporarily_unavailable', error_description: 'token exchange is unavailable, retry later' },
    });
  });
  it("the sidecar's refusal of a wrong secret is passed through", async () => {
    const forward = sidecarForwarder(s.sidecarUrl, 'w'.repeat(48), silent);
    expect(await forward(request)).toEqual({
      status: 403,
      body: { error: 'access_denied', error_description: 'the token-exchange sidecar only answers oidc-core' },
      headers: {},
    });
  });
});

describe('decision log', () => {
  it("a caller's oversized values are cut in the log line (128 characters), the refusal still names the parameter", async () => {
    const huge = 'a'.repeat(30_000);
    const res = await exchange({ params: { actor_token: huge } });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
    const line = s.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .reverse()
      .find((e) => typeof e.nhe === 'string' && (e.nhe as string).startsWith('aaaa'));
    expect(line?.nhe).toBe(`${'a'.repeat(128)}…(30000 chars)`);
  });

  it('every denial and narrowing is logged as a structured record; no log line holds a token or a secret', () => {
    const entries = s.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const denied = entries.filter((e) => e.msg === 'delegation denied');
    expect(denied.map((e) => (e.decision as { gate: string }).gate)).toEqual(
      expect.arrayContaining([
        'tenant-disabled',
        'client-disabled',
        'no-policy',
        'scope-exceeds-policy',
        'scope-empty',
      ]),
    );
    expect(denied[0]).toMatchObject({
      tenantId: T,
      client_id: 'demo-app',
      nhe: 'orders-agent',
      resource: RS,
      decision: { outcome: 'denied', error: expect.any(String), description: expect.any(String) },
    });
    const narrowed = entries.find(
      (e) => e.msg === 'delegation granted' && (e.decision as { removed: unknown[] }).removed.length > 0,
    );
    expect(narrowed?.decision).toMatchObject({
      removed: [expect.objectContaining({ layer: expect.any(String) })],
      ttlSetBy: expect.any(String),
      ttlTerms: expect.any(Object),
    });
    const rejected = entries.filter((e) => e.msg === 'token exchange rejected' || e.msg === 'token exchange failed');
    expect(rejected.map((e) => (e.decision as { stage: string }).stage)).toEqual(
      expect.arrayContaining(['parameters', 'subject-token', 'dpop', 'audit']),
    );
    const audit = entries.find((e) => (e.decision as { stage?: string } | undefined)?.stage === 'audit');
    expect(audit).toMatchObject({
      level: 'warn',
      decision: { error: 'temporarily_unavailable', reason: expect.stringContaining('no token was issued') },
    });
    expect(secrets.size).toBeGreaterThan(50);
    const all = s.logs.join('\n');
    for (const secret of [...secrets, SIDECAR_SECRET, t.client.clientSecret]) expect(all.includes(secret)).toBe(false);
  });
});
