/**
 * Delegation chains end to end through oidc-core's token endpoint and the sidecar, real FerretDB
 * and NATS JetStream, like the exchange-contract table: a delegation token handed on to another NHE by token
 * exchange (the new token keeps `sub`, nests `act`, scopes within the parent's, expiry never beyond it), each refusal
 * as the exact RFC 6749 body, the audit event's parent jti and actor chain, discovery's maximum depth, and the kill
 * switch: revoking or disabling any actor of a chain makes every token below it inactive at introspection and
 * refuses handing it on again.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { AUDIT_STREAM, auditSubject, publishRevocation, REVOCATION_COLLECTION, revocationStore } from '@idp/events';
import { basicAuth, type SeededTenant } from '@idp/testing';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { startStack, type Stack } from './stack';

const TE = GRANT_TYPE_TOKEN_EXCHANGE;
const AT = 'urn:ietf:params:oauth:token-type:access_token';
const NHE_ID = 'urn:vendor:token-type:nhe-id';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const RS = 'https://api.orders.example';
const T = randomInt(100_000, 900_000);
const OTHER = T + 1;
/** orders-agent (seeded, the user's policy) hands on to b, b to c, c to d, d to e, e to f. */
const HOPS = ['orders-agent', 'agent-b', 'agent-c', 'agent-d', 'agent-e', 'agent-f'];

let s: Stack;
let t: SeededTenant;
let other: SeededTenant;
let issuer: string;
const nheIds: Record<string, string> = {};
const policyIds: Record<string, string> = {};
let agentKey: { privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; jwk: JWK };

const m = () => s.db.models;
const err = (error: string, error_description: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  error,
  error_description,
});

beforeAll(async () => {
  s = await startStack('nhechains');
  t = await s.seed(T);
  other = await s.seed(OTHER);
  issuer = `${s.baseUrl}/auth/${T}`;
  await m().Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.maxChainDepth': 5 } });
  // The user's policy for orders-agent lets a chain through it reach depth 5; orders-agent proves itself with a key.
  await m().DelegationPolicy.updateOne({ _id: t.policyId }, { $set: { maxChainDepth: 5 } });
  const pair = await generateKeyPair('ES256', { extractable: true });
  agentKey = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'a1' } };
  await m().Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { jwks: { keys: [agentKey.jwk] } } });
  nheIds['orders-agent'] = t.nhe.id;
  for (let i = 1; i < HOPS.length; i += 1) {
    const nhe = await m().Nhe.create({
      tenantId: T,
      identifier: HOPS[i],
      type: 'llm-assistive',
      allowedScopes: ['orders:read', 'orders:write'],
      maxTokenLifetime: 300,
      operator: 'Ops',
    });
    nheIds[HOPS[i]!] = String(nhe._id);
    const policy = await m().DelegationPolicy.create({
      tenantId: T,
      nheId: String(nhe._id),
      target: { type: 'nhe', id: nheIds[HOPS[i - 1]!] },
      allowedScopes: ['orders:read', 'orders:write'],
      maxChainDepth: 5,
    });
    policyIds[HOPS[i]!] = String(policy._id);
  }
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (s as typeof s | undefined)?.close();
});

interface Exchanged {
  status: number;
  body: Record<string, unknown>;
  token: string;
}

async function exchange(
  tenant: number,
  subject: string,
  actor: string,
  o: { scope?: string; resource?: string; actorType?: string } = {},
): Promise<Exchanged> {
  const seeded = tenant === T ? t : other;
  const form = new URLSearchParams({
    grant_type: TE,
    subject_token: subject,
    subject_token_type: AT,
    actor_token: actor,
    actor_token_type: o.actorType ?? NHE_ID,
    resource: o.resource ?? RS,
    scope: o.scope ?? 'orders:read orders:write',
  });
  const res = await fetch(`${s.baseUrl}/auth/${tenant}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('demo-app', seeded.client.clientSecret),
    },
    body: form,
  });
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, body, token: String(body.access_token) };
}

const userToken = (tenant = T) =>
  s.userToken(tenant, { sub: (tenant === T ? t : other).user.id, client_id: 'demo-app' });

/** orders-agent's actor JWT (proof by key). */
async function agentProof(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'a1' })
    .setIssuer('orders-agent')
    .setSubject('orders-agent')
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(randomUUID())
    .sign(agentKey.privateKey);
}

/** user -> orders-agent (proven by key) -> ... -> HOPS[depth - 1]: every token of the chain, root first. */
async function chain(depth: number, scope = 'orders:read orders:write'): Promise<string[]> {
  const root = await exchange(T, await userToken(), await agentProof(), { actorType: JWT, scope });
  expect(root.status).toBe(200);
  const tokens = [root.token];
  for (let i = 1; i < depth; i += 1) {
    const next = await exchange(T, tokens[i - 1]!, HOPS[i]!, { scope });
    if (next.status !== 200) throw new Error(`hop ${i + 1}: ${JSON.stringify(next.body)}`);
    tokens.push(next.token);
  }
  return tokens;
}

async function introspect(token: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.baseUrl}/auth/${T}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('demo-app', t.client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  return (await res.json()) as Record<string, unknown>;
}

const lastEvent = async () =>
  (await s.jsm.streams.getMessage(AUDIT_STREAM, { last_by_subj: auditSubject(T) }))!.json<Record<string, unknown>>();

/** The act claim for a chain of HOPS[0..depth-1], orders-agent proven by key. */
function expectedAct(depth: number): Record<string, unknown> {
  let act: Record<string, unknown> = { sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'key' };
  for (let i = 1; i < depth; i += 1) act = { sub: `nhe:${HOPS[i]}`, act };
  return act;
}

describe('chains that are allowed', () => {
  it('depth 2: the new token keeps sub, nests act (RFC 8693 4.1), is for the same resource and expires no later than its parent; the audit event names the parent and the chain', async () => {
    const [a, b] = await chain(2);
    const pa = decodeJwt(a!);
    const pb = decodeJwt(b!);
    expect(pb).toMatchObject({
      sub: t.user.id,
      aud: RS,
      scope: 'orders:read orders:write',
      client_id: 'demo-app',
      azp: t.client.numericId,
      act: { sub: 'nhe:agent-b', act: { sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'key' } },
      agent: { id: 'agent-b', type: 'llm-assistive', operator: 'Ops' },
      'org.vendor.nhe.delegation': true,
    });
    expect(pb.exp!).toBeLessThanOrEqual(pa.exp!);
    expect(await lastEvent()).toMatchObject({
      jti: pb.jti,
      userId: t.user.id,
      nheIdentifier: 'agent-b',
      parentJti: pa.jti,
      actorChain: [
        { nheIdentifier: 'agent-b', method: 'named' },
        { nheIdentifier: 'orders-agent', method: 'key' },
      ],
    });
    expect(await introspect(b!)).toMatchObject({ active: true, sub: t.user.id, act: pb.act });
  });

  it('depth 5: four hand-ons, act nested five deep', async () => {
    const tokens = await chain(5);
    expect(decodeJwt(tokens[4]!).act).toEqual(expectedAct(5));
    expect((await lastEvent()).actorChain).toEqual(
      ['agent-e', 'agent-d', 'agent-c', 'agent-b', 'orders-agent'].map((id) => ({
        nheIdentifier: id,
        method: id === 'orders-agent' ? 'key' : 'named',
      })),
    );
    expect((await introspect(tokens[4]!)).active).toBe(true);
  });

  it("discovery advertises the tenant's maximum chain depth", async () => {
    const doc = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(doc['org.vendor.max_chain_depth']).toBe(5);
    expect(doc['org.vendor.actor_token_types_supported']).toEqual([NHE_ID, JWT]);
  });
});

describe('chains that are refused (exact RFC 6749 bodies)', () => {
  it('depth + 1: beyond the hard maximum of 5', async () => {
    const tokens = await chain(5);
    expect(await exchange(T, tokens[4]!, 'agent-f')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'the delegation chain would be 6 actors deep; this tenant allows at most 5'),
    });
  });

  it("depth + 1: beyond the tenant's ceiling", async () => {
    const tokens = await chain(2);
    await m().Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.maxChainDepth': 2 } });
    try {
      expect(await exchange(T, tokens[1]!, 'agent-c')).toMatchObject({
        status: 400,
        body: err('invalid_grant', 'the delegation chain would be 3 actors deep; this tenant allows at most 2'),
      });
    } finally {
      await m().Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.maxChainDepth': 5 } });
    }
  });

  it("depth + 1: beyond a hop's policy (checked against every policy on the way)", async () => {
    const tokens = await chain(3);
    await m().DelegationPolicy.updateOne({ _id: policyIds['agent-b'] }, { $set: { maxChainDepth: 3 } });
    try {
      expect(await exchange(T, tokens[2]!, 'agent-d')).toMatchObject({
        status: 400,
        body: err(
          'invalid_grant',
          'the delegation chain would be 4 actors deep; the policy of hop 2 (nhe:orders-agent -> nhe:agent-b) allows at most 3',
        ),
      });
    } finally {
      await m().DelegationPolicy.updateOne({ _id: policyIds['agent-b'] }, { $set: { maxChainDepth: 5 } });
    }
  });

  it("the user's policy does not let the first agent hand on (maxChainDepth absent = 1)", async () => {
    const [a] = await chain(1);
    await m().DelegationPolicy.updateOne({ _id: t.policyId }, { $unset: { maxChainDepth: 1 } });
    try {
      expect(await exchange(T, a!, 'agent-b')).toMatchObject({
        status: 400,
        body: err(
          'invalid_grant',
          'the delegation chain would be 2 actors deep; the policy of hop 1 (user:' +
            t.user.id +
            ' -> nhe:orders-agent) allows at most 1',
        ),
      });
    } finally {
      await m().DelegationPolicy.updateOne({ _id: t.policyId }, { $set: { maxChainDepth: 5 } });
    }
  });

  it('no policy lets the agent hand on to that NHE', async () => {
    const [a] = await chain(1);
    expect(await exchange(T, a!, 'agent-c')).toMatchObject({
      status: 400,
      body: err('access_denied', 'no delegation policy lets orders-agent hand on to agent-c'),
    });
  });

  it('scope widening: a scope the parent does not carry is invalid_scope', async () => {
    const [a] = await chain(1, 'orders:read');
    expect(await exchange(T, a!, 'agent-b', { scope: 'orders:read orders:write' })).toMatchObject({
      status: 400,
      body: err('invalid_scope', "requested scope exceeds the subject_token's scopes", { scope: 'orders:write' }),
    });
    // Narrower is fine.
    const narrower = await chain(2, 'orders:read');
    expect(decodeJwt(narrower[1]!).scope).toBe('orders:read');
  });

  it("expiry is never extended: a parent with less than the 60-second floor left bounds its child's exp", async () => {
    await m().Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { maxTokenLifetime: 60 } });
    try {
      const [a] = await chain(1);
      await new Promise((r) => setTimeout(r, 2100));
      const b = await exchange(T, a!, 'agent-b');
      expect(b.status).toBe(200);
      const pa = decodeJwt(a!);
      const pb = decodeJwt(b.token);
      expect(pb.exp).toBe(pa.exp);
      expect(b.body.expires_in).toBe(pb.exp! - pb.iat!);
      expect(b.body.expires_in).toBeLessThan(60);
      expect((await lastEvent()).ttl).toBe(b.body.expires_in);
    } finally {
      await m().Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { maxTokenLifetime: 300 } });
    }
  });

  it("another resource than the parent's is invalid_target", async () => {
    const [a] = await chain(1);
    await m().ResourceServer.create({
      tenantId: T,
      identifier: 'https://api.other.example',
      name: 'other',
      scopes: ['orders:read'],
      config: { accessToken: { lifetime: 3600 }, nhe: { acceptDelegationTokens: true, allowedNheTypes: [] } },
    });
    expect(
      await exchange(T, a!, 'agent-b', { resource: 'https://api.other.example', scope: 'orders:read' }),
    ).toMatchObject({
      status: 400,
      body: err(
        'invalid_target',
        "a handed-on token is for its parent's resource only: resource must be the subject_token's audience",
      ),
    });
  });

  it('a chain across tenants is refused: a token of another tenant is not a subject token here, and that tenant (default depth 1) hands nothing on', async () => {
    const foreign = await exchange(OTHER, await userToken(OTHER), 'orders-agent');
    expect(foreign.status).toBe(200);
    expect(await exchange(T, foreign.token, 'agent-b')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'subject_token is not a valid access token of this tenant'),
    });
    // The spec's behaviour where the tenant has not allowed chains: a delegated token cannot be exchanged again.
    expect(await exchange(OTHER, foreign.token, 'orders-agent')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'subject_token is a delegated token and cannot be exchanged again'),
    });
    const [a] = await chain(1);
    expect(await exchange(OTHER, a!, 'orders-agent')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'subject_token is not a valid access token of this tenant'),
    });
  });

  it('a chain through a disabled NHE is refused, and its tokens below it introspect inactive', async () => {
    const tokens = await chain(3);
    expect((await introspect(tokens[2]!)).active).toBe(true);
    await m().Nhe.updateOne({ tenantId: T, identifier: 'agent-b' }, { $set: { enabled: false } });
    try {
      expect(await exchange(T, tokens[2]!, 'agent-d')).toMatchObject({
        status: 400,
        body: err(
          'invalid_grant',
          'the delegation chain passes through an NHE that is disabled or no longer registered (agent-b)',
        ),
      });
      expect(await introspect(tokens[2]!)).toEqual({ active: false });
      expect(await introspect(tokens[1]!)).toEqual({ active: false });
      expect((await introspect(tokens[0]!)).active).toBe(true);
    } finally {
      await m().Nhe.updateOne({ tenantId: T, identifier: 'agent-b' }, { $set: { enabled: true } });
    }
  });
});

describe('the kill switch over a chain', () => {
  it('revoking the middle actor revokes every token below it (introspection and hand-on), not the ones above', async () => {
    const tokens = await chain(4);
    await new Promise((r) => setTimeout(r, 1100)); // iat has second precision
    const store = revocationStore(s.db.connection.collection(REVOCATION_COLLECTION));
    await publishRevocation(
      s.nc,
      { tenantId: T, nheIdentifier: 'agent-b', reason: 'nhe.disabled', revokedAt: new Date(Date.now() - 500) },
      { store },
    );
    expect((await introspect(tokens[0]!)).active).toBe(true);
    for (const below of tokens.slice(1)) expect(await introspect(below)).toEqual({ active: false });
    expect(await exchange(T, tokens[3]!, 'agent-e')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'subject_token has been revoked'),
    });
    // A chain started after the revocation (in a later second: iat has second precision) is not affected.
    await new Promise((r) => setTimeout(r, 1100));
    const fresh = await chain(3);
    expect((await introspect(fresh[2]!)).active).toBe(true);
  });

  it('a token revoked by its jti cannot be handed on', async () => {
    const [a] = await chain(1);
    const store = revocationStore(s.db.connection.collection(REVOCATION_COLLECTION));
    await publishRevocation(s.nc, { tenantId: T, jti: String(decodeJwt(a!).jti), reason: 'token.revoked' }, { store });
    expect(await exchange(T, a!, 'agent-b')).toMatchObject({
      status: 400,
      body: err('invalid_grant', 'subject_token has been revoked'),
    });
  });
});
