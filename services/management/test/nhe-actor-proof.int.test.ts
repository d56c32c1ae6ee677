/**
 * Authenticated actors in the management API: trusted workload issuers per tenant, an NHE's
 * keys / workload identity / requireActorProof / requireKeyBoundDpop, the tenant's settings.nhe.requireActorProof
 * and the token audit's actorAuthentication; every response validated against the OpenAPI document.
 */
import { exportJWK, generateKeyPair } from 'jose';
import { chainTail, linkRows, verifyAuditChain, type TokenAuditDoc } from '@idp/db';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let A: number;
let B: number;
let adminA: string;
let adminB: string;
let jwk: Record<string, unknown>;
beforeAll(async () => {
  h = await startHarness('mgmtactor');
  ({ a: A, b: B } = h.tenants);
  adminA = await h.token(A, [...MANAGEMENT_SCOPES]);
  adminB = await h.token(B, [...MANAGEMENT_SCOPES]);
  jwk = {
    ...(await exportJWK((await generateKeyPair('ES256', { extractable: true })).publicKey)),
    kid: 'k1',
    alg: 'ES256',
    use: 'sig',
  };
});
afterAll(async () => h.close());

const wiPath = (t: number, rest = '') => `/auth/admin/tenants/${t}/workload-issuers${rest}`;
const nhePath = (t: number, rest = '') => `/auth/admin/tenants/${t}/non-human-entities${rest}`;
const nhe = (identifier: string, extra: Record<string, unknown> = {}) => ({
  identifier,
  type: 'llm-assistive',
  allowedScopes: ['orders:read'],
  operator: 'ops',
  ...extra,
});
const K8S = 'https://kubernetes.default.svc.cluster.local';

describe('workload issuers', () => {
  let id: string;
  it("creates, lists, gets, updates; 409 for the same issuer twice; tenant B sees none of A's", async () => {
    const res = await h.call('post', wiPath(A), adminA, {
      issuer: K8S,
      jwksUri: 'https://k8s.example/openid/v1/jwks',
      description: 'cluster',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ issuer: K8S, jwksUri: 'https://k8s.example/openid/v1/jwks', enabled: true });
    id = res.body.id;
    expect(h.invalidations).toContainEqual({ tenantId: A, kind: 'nhe', id });
    expect(
      (await h.call('post', wiPath(A), adminA, { issuer: K8S, jwksUri: 'https://other.example/jwks' })).status,
    ).toBe(409);
    expect((await h.call('get', wiPath(A), adminA)).body.items).toHaveLength(1);
    expect((await h.call('get', wiPath(B), adminB)).body.items).toHaveLength(0);
    expect((await h.call('get', wiPath(B, `/${id}`), adminB)).status).toBe(404);
    expect((await h.call('get', wiPath(A, `/${id}`), adminB)).status).toBe(404);
    const patched = await h.call('patch', wiPath(A, `/${id}`), adminA, { enabled: false, description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.enabled).toBe(false);
    expect(patched.body).not.toHaveProperty('description');
  });

  it.each([
    ['an http jwksUri', { issuer: 'https://x.example', jwksUri: 'http://x.example/jwks' }, 'body.jwksUri'],
    [
      'a jwksUri with user info',
      { issuer: 'https://x.example', jwksUri: 'https://u:p@x.example/jwks' },
      'body.jwksUri',
    ],
    ['an issuer with a space', { issuer: 'a b', jwksUri: 'https://x.example/jwks' }, 'body.issuer'],
  ])('400 for %s', async (_n, body, name) => {
    const res = await h.call('post', wiPath(A), adminA, body);
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain(name);
  });

  it('needs auth.tenants.update to change and auth.tenants.list to read', async () => {
    const nheOnly = await h.token(A, ['auth.nhe.create', 'auth.nhe.list']);
    expect(
      (await h.call('post', wiPath(A), nheOnly, { issuer: 'https://ci.example', jwksUri: 'https://ci.example/jwks' }))
        .status,
    ).toBe(403);
    expect((await h.call('get', wiPath(A), nheOnly)).status).toBe(403);
  });

  it('an issuer an NHE names cannot be deleted (409); once unnamed it can', async () => {
    const created = await h.call(
      'post',
      nhePath(A),
      adminA,
      nhe('wl-agent', { workloadIdentity: { issuer: K8S, subject: 'system:serviceaccount:a:b' } }),
    );
    expect(created.status).toBe(201);
    expect((await h.call('delete', wiPath(A, `/${id}`), adminA)).status).toBe(409);
    expect((await h.call('patch', nhePath(A, `/${created.body.id}`), adminA, { workloadIdentity: null })).status).toBe(
      200,
    );
    expect((await h.call('delete', wiPath(A, `/${id}`), adminA)).status).toBe(204);
    // Re-trusted for the NHE tests below.
    expect(
      (await h.call('post', wiPath(A), adminA, { issuer: K8S, jwksUri: 'https://k8s.example/openid/v1/jwks' })).status,
    ).toBe(201);
  });
});

describe('NHE actor authentication settings', () => {
  it('defaults: no keys, no workload identity, requireActorProof null (inherit), requireKeyBoundDpop false', async () => {
    const res = await h.call('post', nhePath(A), adminA, nhe('plain-agent'));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ requireActorProof: null, requireKeyBoundDpop: false });
    expect(res.body).not.toHaveProperty('jwks');
  });

  it('keys, workload identity, requireActorProof and pinning round-trip; null removes them', async () => {
    const res = await h.call(
      'post',
      nhePath(A),
      adminA,
      nhe('proven-agent', {
        jwks: { keys: [jwk] },
        workloadIdentity: { issuer: K8S, subject: 'system:serviceaccount:orders:agent' },
        requireActorProof: true,
        requireKeyBoundDpop: true,
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      jwks: { keys: [jwk] },
      workloadIdentity: { issuer: K8S, subject: 'system:serviceaccount:orders:agent' },
      requireActorProof: true,
      requireKeyBoundDpop: true,
    });
    const id = res.body.id;
    const swapped = await h.call('patch', nhePath(A, `/${id}`), adminA, {
      jwks: null,
      jwksUri: 'https://agent.example/jwks.json',
      requireActorProof: null,
    });
    expect(swapped.status).toBe(200);
    expect(swapped.body).toMatchObject({
      jwksUri: 'https://agent.example/jwks.json',
      requireActorProof: null,
      requireKeyBoundDpop: true,
    });
    expect(swapped.body).not.toHaveProperty('jwks');
  });

  it.each([
    ['a key without kty', { jwks: { keys: [{}] } }, 'body.jwks.keys.0.kty'],
    [
      'a private key in jwks',
      { jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'a'.repeat(43), y: 'b'.repeat(43), d: 'c'.repeat(43) }] } },
      'body.jwks.keys.0',
    ],
    ['an http jwksUri', { jwksUri: 'http://a.example/jwks' }, 'body.jwksUri'],
    ['requireKeyBoundDpop without keys', { requireKeyBoundDpop: true }, 'body.requireKeyBoundDpop'],
    [
      'a workload issuer the tenant does not trust',
      { workloadIdentity: { issuer: 'https://unknown.example', subject: 's' } },
      'body.workloadIdentity.issuer',
    ],
    ['requireActorProof not boolean', { requireActorProof: 'yes' }, 'body.requireActorProof'],
  ])('400 for %s', async (_n, change, name) => {
    const res = await h.call('post', nhePath(A), adminA, nhe('bad-agent', change));
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain(name);
  });

  it('400 for jwks and jwksUri together (valid each)', async () => {
    const res = await h.call(
      'post',
      nhePath(A),
      adminA,
      nhe('both-agent', { jwks: { keys: [jwk] }, jwksUri: 'https://a.example/jwks' }),
    );
    expect(res.status).toBe(400);
    expect(invalidNames(res)).toContain('body.jwksUri');
  });

  it('409 when another NHE already has the workload identity (a workload is exactly one NHE)', async () => {
    const res = await h.call(
      'post',
      nhePath(A),
      adminA,
      nhe('twin-agent', { workloadIdentity: { issuer: K8S, subject: 'system:serviceaccount:orders:agent' } }),
    );
    expect(res.status).toBe(409);
  });
});

describe('tenant settings.nhe.requireActorProof', () => {
  it('defaults to false and can be turned on', async () => {
    expect((await h.call('get', `/auth/admin/tenants/${A}`, adminA)).body.settings.nhe.requireActorProof).toBe(false);
    const res = await h.call('patch', `/auth/admin/tenants/${A}`, adminA, {
      settings: { nhe: { requireActorProof: true } },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.nhe.requireActorProof).toBe(true);
  });
});

describe('token audit: how the actor was authenticated', () => {
  it('named, key and workload rows (and a row from before actor proofs: named); the chain covers actorAuth', async () => {
    const base = {
      tenantId: A,
      userId: 'u1',
      nheId: 'n1',
      nheIdentifier: 'proven-agent',
      clientId: 'c',
      clientNumericId: 1,
      resourceServer: 'https://api.example',
      scopes: ['r'],
      ttl: 300,
      sourceIp: '127.0.0.1',
      issuedAt: new Date(),
    };
    const rows: TokenAuditDoc[] = [
      { ...base, jti: 'j-old' },
      { ...base, jti: 'j-named', actorAuth: { method: 'named' } },
      {
        ...base,
        jti: 'j-key',
        actorAuth: { method: 'key', jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', jti: 'a1' },
      },
      {
        ...base,
        jti: 'j-wl',
        actorAuth: { method: 'workload', issuer: K8S, subject: 'system:serviceaccount:orders:agent', jti: 'a2' },
      },
    ];
    await h.db.models.TokenAudit.insertMany(linkRows(rows, await chainTail(h.db.models, A)));
    const res = await h.call('get', `${nhePath(A)}/token-audit?limit=10`, adminA);
    expect(res.status).toBe(200);
    const by = Object.fromEntries(
      (res.body.items as Array<{ jti: string; actorAuthentication: unknown }>).map((r) => [
        r.jti,
        r.actorAuthentication,
      ]),
    );
    expect(by).toEqual({
      'j-old': { method: 'named' },
      'j-named': { method: 'named' },
      'j-key': { method: 'key', jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs', jti: 'a1' },
      'j-wl': { method: 'workload', issuer: K8S, subject: 'system:serviceaccount:orders:agent', jti: 'a2' },
    });
    expect((await verifyAuditChain(h.db.models, A)).valid).toBe(true);
    // Changing how an actor was authenticated breaks the chain.
    await h.db.models.TokenAudit.collection.updateOne(
      { tenantId: A, jti: 'j-wl' },
      { $set: { 'actorAuth.method': 'named' } },
    );
    expect((await verifyAuditChain(h.db.models, A)).problems).toEqual([
      expect.objectContaining({ kind: 'altered', jti: 'j-wl' }),
    ]);
  });
});
