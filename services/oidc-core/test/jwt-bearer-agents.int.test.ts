/**
 * Another organisation's agent at the JWT bearer grant (RFC 7523): an assertion of a trusted issuer (an ID-JAG, or a
 * plain RFC 7523 JWT) whose `act` names one of the issuer's agents becomes this tenant's own NHE delegation token when
 * the issuer's record allows act and maps that act.sub to one of this tenant's NHEs. Real token endpoint, the real
 * nhe-delegation sidecar in process (real JetStream ack), the audit writer's own row mapping and hash chain; the
 * issuer's keys served over HTTP by the test. Refusals: an unmapped actor, an issuer without allowAct, an act without
 * sub, a disabled NHE, an NHE that must prove who it is, tenant delegation off, no policy, scope beyond the assertion,
 * a client the NHE does not name, a replayed assertion.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  createRemoteJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import { basicAuth, createClient } from '@idp/testing';
import { appendToChain, toAuditRow } from '../../audit-writer/src/writer';
import { exchangeSidecar } from './exchange-sidecar';
import { startPagesApp, PEPPER, type PagesApp } from './pages-app';

const ORG_A = 'https://idp.org-a.example';
const ORG_C = 'https://idp.org-c.example';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ORDERS = 'https://api.orders.example';
/** org A's name for its agent (its act.sub), and the NHE this tenant registered for it. */
const A_AGENT = 'nhe:orders-agent';
const B_AGENT = 'partner-orders-agent';

const sidecar = exchangeSidecar();
let app: PagesApp;
let T: number;
let jwks: Server;
let key: CryptoKey;
let issuerUrl = '';
/** The client org A's agent authenticates with here (named by the NHE's agentClients). */
let agentClient: { clientId: string; clientSecret: string; numericId: number };
/** A client of this tenant the NHE does not name. */
let otherClient: { clientId: string; clientSecret: string };
/** Another of the NHE's agent clients, registered with dpop_bound_access_tokens. */
let dpopClient: { clientId: string; clientSecret: string; numericId: number };
let nheId = '';

beforeAll(async () => {
  app = await startPagesApp('jwtbearer-agents', {
    forwardTokenExchange: sidecar.forwarder,
    upstreamPolicy: { allowLoopback: true },
  });
  const { models } = app.db;
  T = app.tenant.tenantId;
  issuerUrl = `${app.baseUrl}/auth/${T}`;
  const ec = await generateKeyPair('ES256');
  key = ec.privateKey as CryptoKey;
  const keys: JWK[] = [{ ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256' }];
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
  const jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  await models.TrustedIssuer.create({
    tenantId: T,
    issuer: ORG_A,
    jwksUri,
    algorithms: ['ES256'],
    subjectMapping: 'user_id',
    allowAct: true,
    actors: [{ subject: A_AGENT, nheIdentifier: B_AGENT }],
  });
  // Same keys, same mapping, but not allowed to assert a delegation.
  await models.TrustedIssuer.create({
    tenantId: T,
    issuer: ORG_C,
    jwksUri,
    algorithms: ['ES256'],
    subjectMapping: 'user_id',
    actors: [{ subject: A_AGENT, nheIdentifier: B_AGENT }],
  });
  const make = (clientId: string) =>
    createClient(models, PEPPER, { tenantId: T, clientId, name: clientId, grantTypes: [GRANT], redirectUris: [] });
  agentClient = await make('org-a-orders-agent');
  otherClient = await make('org-b-web-app');
  dpopClient = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'org-a-orders-agent-dpop',
    name: 'org-a-orders-agent-dpop',
    grantTypes: [GRANT],
    redirectUris: [],
    requireDpop: true,
  });
  const nhe = await models.Nhe.create({
    tenantId: T,
    identifier: B_AGENT,
    type: 'llm-assistive',
    allowedScopes: ['orders:read', 'orders:write'],
    maxTokenLifetime: 300,
    operator: 'Org A',
    agentClients: [agentClient.clientId, dpopClient.clientId],
  });
  nheId = String(nhe._id);
  await models.DelegationPolicy.create({
    tenantId: T,
    nheId,
    target: { type: 'user', id: app.tenant.user.id },
    allowedScopes: ['orders:read', 'orders:write'],
  });
}, 60_000);

afterAll(async () => {
  jwks.close();
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

/** An ID-JAG of org A for this tenant: the person, its agent in act, for the orders API. */
async function idJag(claims: JWTPayload = {}, typ: string | undefined = 'oauth-id-jag+jwt'): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ORG_A,
    sub: app.tenant.user.id,
    aud: issuerUrl,
    client_id: agentClient.clientId,
    jti: randomUUID(),
    iat: now,
    exp: now + 120,
    resource: ORDERS,
    scope: 'orders:read',
    act: { sub: A_AGENT },
    agent: { id: 'orders-agent', type: 'llm-assistive', operator: 'Org A' },
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', kid: 'ec', ...(typ ? { typ } : {}) })
    .sign(key);
}

async function redeem(
  jwt: string,
  body: Record<string, string> = {},
  client: { clientId: string; clientSecret: string } = agentClient,
  dpop?: string,
) {
  const res = await fetch(`${issuerUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
      ...(dpop ? { dpop } : {}),
    },
    body: new URLSearchParams({ grant_type: GRANT, assertion: jwt, ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function verified(token: string): Promise<JWTPayload> {
  const meta = (await (await fetch(`${issuerUrl}/.well-known/openid-configuration`)).json()) as { jwks_uri: string };
  return (await jwtVerify(token, createRemoteJWKSet(new URL(meta.jwks_uri)), { issuer: issuerUrl, audience: ORDERS }))
    .payload;
}

it("an ID-JAG with a mapped actor becomes this tenant's delegation token for its NHE, audited as redeemed", async () => {
  const before = sidecar.issued.length;
  const jwt = await idJag({ act: { sub: A_AGENT, act: { sub: 'nhe:upstream-helper' } } });
  const res = await redeem(jwt, { scope: 'orders:read orders:write' });
  expect(res.status).toBe(200);
  expect(res.body.refresh_token).toBeUndefined();
  expect(res.body.token_type).toBe('Bearer');
  // Asked for orders:write as well: the assertion (the person's consent at org A) allows orders:read only.
  expect(res.body.scope).toBe('orders:read');
  const at = await verified(String(res.body.access_token));
  expect(at).toMatchObject({
    sub: app.tenant.user.id,
    aud: ORDERS,
    client_id: agentClient.clientId,
    azp: agentClient.numericId,
    scope: 'orders:read',
    gty: GRANT,
    agent: { id: B_AGENT, type: 'llm-assistive', operator: 'Org A' },
    'org.vendor.nhe.delegation': true,
  });
  // This tenant's NHE only: org A's chain stays in org A's namespace (and in the audit record).
  expect(at.act).toEqual({ sub: `nhe:${B_AGENT}` });
  // B's lifetime rules (the NHE's 300 s), not the resource's hour.
  expect(at.exp! - at.iat!).toBe(300);
  expect(res.body.expires_in).toBe(300);

  expect(sidecar.issued.length).toBe(before + 1);
  const event = sidecar.issued.at(-1)!;
  expect(event).toMatchObject({
    jti: at.jti,
    nheIdentifier: B_AGENT,
    nheId,
    clientId: agentClient.clientId,
    resourceServer: ORDERS,
    scopes: ['orders:read'],
    crossDomain: {
      direction: 'redeemed',
      peer: ORG_A,
      assertionJti: decodeJwt(jwt).jti,
      subject: app.tenant.user.id,
      actor: A_AGENT,
      // The whole chain, outermost first: org A may revoke its inner agent too.
      actors: [A_AGENT, 'nhe:upstream-helper'],
    },
  });
  // The audit writer's row for it (its own mapping and hash chain), as the person's ledger and the management API read it.
  await appendToChain(app.db.models, T, [toAuditRow(event)]);
  const row = await app.db.models.TokenAudit.findOne({ tenantId: T, jti: at.jti }).lean();
  expect(row?.crossDomain).toEqual(event.crossDomain);
  expect(row).toMatchObject({ userId: app.tenant.user.id, nheIdentifier: B_AGENT, ttl: 300 });

  // Single use: the same assertion again is refused, and nothing more is minted.
  const again = await redeem(jwt);
  expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(again.body.error_description)).toMatch(/already used/);
  expect(sidecar.issued.length).toBe(before + 1);
});

it('a plain RFC 7523 assertion with a mapped actor: the request names the resource, the scope claim caps it', async () => {
  const res = await redeem(await idJag({ client_id: undefined, resource: undefined, scope: 'orders:write' }, 'JWT'), {
    resource: ORDERS,
  });
  expect(res.status).toBe(200);
  const at = await verified(String(res.body.access_token));
  expect(at).toMatchObject({ scope: 'orders:write', act: { sub: `nhe:${B_AGENT}` }, gty: GRANT });
});

describe('refusals', () => {
  it.each<[string, () => Promise<{ status: number; body: Record<string, unknown> }>, string, RegExp]>([
    [
      'an actor the issuer record does not map',
      async () => redeem(await idJag({ act: { sub: 'nhe:payments-agent' } })),
      'invalid_grant',
      /nhe:payments-agent is not an agent this tenant accepts/,
    ],
    [
      'an act without sub',
      async () => redeem(await idJag({ act: { client_id: 'x' } })),
      'invalid_grant',
      /names no actor/,
    ],
    [
      'an act from an issuer without allowAct (even with the same mapping)',
      async () => redeem(await idJag({ iss: ORG_C })),
      'invalid_grant',
      /may not assert a delegation/,
    ],
    [
      'a scope beyond the assertion',
      async () => redeem(await idJag({ scope: 'orders:read' }), { scope: 'orders:write' }),
      'invalid_scope',
      /allows none of the requested scopes/,
    ],
    [
      'an assertion whose act asks for a scope B policy does not allow',
      async () => redeem(await idJag({ scope: 'orders:read orders:refund' })),
      'invalid_scope',
      /exceeds the delegation policy/,
    ],
    [
      'a client the NHE does not name among its agent clients',
      async () => redeem(await idJag({ client_id: otherClient.clientId }), {}, otherClient),
      'access_denied',
      /may not act for the NHE partner-orders-agent/,
    ],
  ])('%s', async (_name, call, error, description) => {
    const before = sidecar.issued.length;
    const res = await call();
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error });
    expect(String(res.body.error_description)).toMatch(description);
    expect(sidecar.issued.length).toBe(before);
  });

  /** Runs `call` with a record changed, and puts it back. */
  async function withChange(
    change: () => Promise<unknown>,
    undo: () => Promise<unknown>,
    error: string,
    description: RegExp,
  ) {
    await change();
    try {
      const res = await redeem(await idJag());
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error });
      expect(String(res.body.error_description)).toMatch(description);
    } finally {
      await undo();
    }
    expect((await redeem(await idJag())).status).toBe(200);
  }

  it('a disabled NHE', () =>
    withChange(
      () => app.db.models.Nhe.updateOne({ tenantId: T, _id: nheId }, { $set: { enabled: false } }),
      () => app.db.models.Nhe.updateOne({ tenantId: T, _id: nheId }, { $set: { enabled: true } }),
      'invalid_grant',
      /the NHE is disabled/,
    ));

  it('an NHE that must prove who it is (the assertion names it without proof)', () =>
    withChange(
      () => app.db.models.Nhe.updateOne({ tenantId: T, _id: nheId }, { $set: { requireActorProof: true } }),
      () => app.db.models.Nhe.updateOne({ tenantId: T, _id: nheId }, { $unset: { requireActorProof: 1 } }),
      'invalid_grant',
      /another organisation's assertion names it without that proof/,
    ));

  it("this tenant's delegation switched off", () =>
    withChange(
      () => app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': false } }),
      () => app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': true } }),
      'access_denied',
      /disabled for this tenant/,
    ));

  it('no delegation policy for the person', () =>
    withChange(
      () => app.db.models.DelegationPolicy.updateMany({ tenantId: T, nheId }, { $set: { 'target.id': 'someone' } }),
      () =>
        app.db.models.DelegationPolicy.updateMany(
          { tenantId: T, nheId },
          { $set: { 'target.id': app.tenant.user.id } },
        ),
      'access_denied',
      /no delegation policy/,
    ));
});

describe('DPoP (RFC 9449)', () => {
  /** A proof for this token endpoint, made with a fresh key; its thumbprint. */
  async function proof(o: { htu?: string } = {}) {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const jws = await new SignJWT({ htm: 'POST', htu: o.htu ?? `${issuerUrl}/oidc/token` })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(privateKey);
    return { jws, jkt: await calculateJwkThumbprint(jwk) };
  }

  it('a proof binds the delegation token to its key (cnf.jkt, token_type DPoP), audited with the key', async () => {
    const before = sidecar.issued.length;
    const p = await proof();
    const res = await redeem(await idJag(), {}, agentClient, p.jws);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    const at = await verified(String(res.body.access_token));
    expect(at.cnf).toEqual({ jkt: p.jkt });
    expect(sidecar.issued.length).toBe(before + 1);
    expect(sidecar.issued.at(-1)).toMatchObject({ jti: at.jti, dpopJkt: p.jkt });
  });

  it('a client with dpop_bound_access_tokens gets no unbound delegation token; with a proof, a bound one', async () => {
    const before = sidecar.issued.length;
    const jwt = await idJag({ client_id: dpopClient.clientId });
    const refused = await redeem(jwt, {}, dpopClient);
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
    expect(sidecar.issued.length).toBe(before);
    // The refusal did not use the assertion up.
    const p = await proof();
    const res = await redeem(jwt, {}, dpopClient, p.jws);
    expect(res.status).toBe(200);
    expect((await verified(String(res.body.access_token))).cnf).toEqual({ jkt: p.jkt });
  });

  it('a proof for another URL, or the same proof twice, is refused', async () => {
    const other = await proof({ htu: 'https://elsewhere.example/token' });
    const wrong = await redeem(await idJag(), {}, agentClient, other.jws);
    expect({ status: wrong.status, error: wrong.body.error }).toEqual({ status: 400, error: 'invalid_dpop_proof' });
    const p = await proof();
    expect((await redeem(await idJag(), {}, agentClient, p.jws)).status).toBe(200);
    const replayed = await redeem(await idJag(), {}, agentClient, p.jws);
    expect({ status: replayed.status, error: replayed.body.error }).toEqual({
      status: 400,
      error: 'invalid_dpop_proof',
    });
  });
});

it('an assertion with act must carry iat (a revocation at its issuer is bounded by it)', async () => {
  const before = sidecar.issued.length;
  const res = await redeem(await idJag({ iat: undefined }, 'JWT'), { resource: ORDERS });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
  expect(String(res.body.error_description)).toMatch(/act must carry iat/);
  expect(sidecar.issued.length).toBe(before);
});
