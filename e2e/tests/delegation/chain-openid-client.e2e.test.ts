/**
 * A delegation chain end to end, every service a separate process behind the dev router, driven by a
 * stock OAuth client: openid-client's genericGrantRequest with its DPoP handle.
 *
 *   the user's access token (authorization code + PKCE)
 *     -> agent A (orders-agent), proven by its own key (actor_token_type jwt, iss = sub = its identifier)
 *     -> agent B (tool-agent), proven by a workload JWT of a trusted issuer (a Kubernetes-style service account)
 *     -> a resource server built on @idp/resource-server (express, requireProvenActors), which sees the human in
 *        `sub` and both agents in the act chain, each with how it proved itself.
 *
 * Every token is DPoP-bound to the client's key (the handle), so the hand-on itself needs a proof with that key.
 * And: a chain whose second agent was only named is refused by the same route (403 actor_not_proven); the
 * management API lists the whole chain from its last token.
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oidc from 'openid-client';
import { actorProof, chainAgents, createVerifier } from '@idp/resource-server';
// The SDK's express entry point (`@idp/resource-server/express` for its users), from source like the rest of it.
import { accessOf, requireAccess } from '../../../libs/resource-server/src/express';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { seededUserToken, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const WORKLOAD_ISSUER = 'https://kubernetes.e2e.example';
const WORKLOAD_SUBJECT = 'system:serviceaccount:agents:tool-agent';

let h: Harness;
let issuer: string;
let config: oidc.Configuration;
let jwksServer: Server;
let api: Server;
let apiUrl: string;
let agentKey: Awaited<ReturnType<typeof generateKeyPair>>;
let workloadKey: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  // The workload issuer's JWKS, on loopback (the sidecar is told it may fetch from loopback over http).
  workloadKey = await generateKeyPair('RS256', { extractable: true });
  const workloadJwk = { ...(await exportJWK(workloadKey.publicKey)), kid: 'sa-1', alg: 'RS256', use: 'sig' };
  jwksServer = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [workloadJwk] }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  const jwksUri = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/openid/v1/jwks`;

  h = await startHarness('chains', { sidecarEnv: { ACTOR_JWKS_ALLOW_LOOPBACK: 'true' } });
  const m = h.db.models;
  const T = h.tenant.tenantId;
  issuer = `${h.topology.baseUrl}/auth/${T}`;
  // The tenant allows chains of two; the user's policy lets orders-agent hand on; orders-agent may hand on to
  // tool-agent (an NHE -> NHE policy). orders-agent has a key; tool-agent is a workload of a trusted issuer.
  agentKey = await generateKeyPair('ES256', { extractable: true });
  await m.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.maxChainDepth': 2 } });
  await m.DelegationPolicy.updateOne({ _id: h.tenant.policyId }, { $set: { maxChainDepth: 2 } });
  await m.Nhe.updateOne(
    { tenantId: T, identifier: h.tenant.nhe.identifier },
    {
      $set: {
        jwks: { keys: [{ ...(await exportJWK(agentKey.publicKey)), kid: 'agent-1', alg: 'ES256', use: 'sig' }] },
      },
    },
  );
  await m.WorkloadIssuer.create({ tenantId: T, issuer: WORKLOAD_ISSUER, jwksUri });
  const tool = await m.Nhe.create({
    tenantId: T,
    identifier: 'tool-agent',
    type: 'automated-pipeline',
    allowedScopes: ['orders:read'],
    maxTokenLifetime: 300,
    operator: 'Tools Inc.',
    workloadIdentity: { issuer: WORKLOAD_ISSUER, subject: WORKLOAD_SUBJECT },
  });
  await m.DelegationPolicy.create({
    tenantId: T,
    nheId: String(tool._id),
    target: { type: 'nhe', id: h.tenant.nhe.id },
    allowedScopes: ['orders:read'],
  });

  config = await oidc.discovery(
    new URL(issuer),
    h.tenant.client.clientId,
    undefined,
    oidc.ClientSecretBasic(h.tenant.client.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );

  // The resource server: @idp/resource-server's verifier and express middleware, proven agents only.
  const app = express();
  const verifier = createVerifier({ issuer, audience: h.tenant.resource });
  const port = await new Promise<number>((resolve) => {
    api = app.listen(0, '127.0.0.1', () => resolve((api.address() as AddressInfo).port));
  });
  apiUrl = `http://127.0.0.1:${port}`;
  app.get(
    '/orders',
    requireAccess(verifier, {
      scopes: ['orders:read'],
      delegation: 'require',
      requireProvenActors: true,
      origin: apiUrl,
    }),
    (req, res) => {
      const access = accessOf(req);
      const d = access.delegation!;
      res.json({
        user: access.userId,
        agent: d.nheIdentifier,
        agents: chainAgents(d),
        proofs: d.actorChain.map(actorProof),
        scheme: access.scheme,
      });
    },
  );
}, 180_000);

afterAll(async () => {
  await new Promise((r) => ifAssigned(api)?.close(r));
  await new Promise((r) => ifAssigned(jwksServer)?.close(r));
  await ifAssigned(h)?.stop();
});

/** orders-agent's proof: a JWT signed with its own key, for this tenant, used once. */
async function agentProof(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'agent-1' })
    .setIssuer(h.tenant.nhe.identifier)
    .setSubject(h.tenant.nhe.identifier)
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .setJti(randomUUID())
    .sign(agentKey.privateKey);
}

/** tool-agent's proof: a projected service-account token of the trusted workload issuer, audience the tenant. */
async function workloadProof(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ kubernetes: { namespace: 'agents', serviceaccount: { name: 'tool-agent' } } })
    .setProtectedHeader({ alg: 'RS256', kid: 'sa-1' })
    .setIssuer(WORKLOAD_ISSUER)
    .setSubject(WORKLOAD_SUBJECT)
    .setAudience(issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 120)
    .setJti(randomUUID())
    .sign(workloadKey.privateKey);
}

const exchange = (subject: string, actor: string, actorType: string, DPoP?: oidc.DPoPHandle) =>
  oidc.genericGrantRequest(
    config,
    TOKEN_EXCHANGE,
    {
      subject_token: subject,
      subject_token_type: ACCESS_TOKEN,
      actor_token: actor,
      actor_token_type: actorType,
      resource: h.tenant.resource,
      scope: 'orders:read',
    },
    DPoP ? { DPoP } : {},
  );

test('user -> agent A (key) -> agent B (workload JWT) -> the resource server sees the human in sub and both agents in act', async () => {
  const DPoP = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
  const userToken = await seededUserToken(h);

  const a = await exchange(userToken, await agentProof(), JWT, DPoP);
  expect(a.token_type).toBe('dpop');
  const b = await exchange(a.access_token, await workloadProof(), JWT, DPoP);
  expect(b.token_type).toBe('dpop');
  const pa = decodeJwt(a.access_token);
  const pb = decodeJwt(b.access_token);
  const userId = h.tenant.user.id;
  expect(pb).toMatchObject({
    sub: userId,
    act: {
      sub: 'nhe:tool-agent',
      'org.vendor.actor.proof': 'workload',
      act: { sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'key' },
    },
    agent: { id: 'tool-agent', type: 'automated-pipeline', operator: 'Tools Inc.' },
    cnf: pa.cnf,
  });
  expect(pb.exp!).toBeLessThanOrEqual(pa.exp!);

  const res = await oidc.fetchProtectedResource(
    config,
    b.access_token,
    new URL(`${apiUrl}/orders`),
    'GET',
    undefined,
    undefined,
    { DPoP },
  );
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    user: userId,
    agent: 'tool-agent',
    agents: ['tool-agent', 'orders-agent'],
    proofs: ['workload', 'key'],
    scheme: 'DPoP',
  });

  // The management API lists the whole chain from its last token (the audit rows arrive through JetStream).
  const admin = await clientCredentialsToken(
    h.topology.baseUrl,
    h.tenant.tenantId,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
  );
  const audit = `${h.topology.baseUrl}/_api/auth/admin/tenants/${h.tenant.tenantId}/non-human-entities/token-audit`;
  // The audit API's JSON, as this test reads it (any member may be absent).
  const get = async (url: string) =>
    (await (await fetch(url, { headers: { authorization: `Bearer ${admin.access_token}` } })).json()) as {
      items?: Array<{ id: string } & Record<string, unknown>>;
      tokens?: Array<{ jti: string }>;
    };
  let leaf: ({ id: string } & Record<string, unknown>) | undefined;
  for (
    const deadline = Date.now() + 15_000;
    !leaf && Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 250))
  ) {
    leaf = (await get(`${audit}?jti=${pb.jti}`)).items?.[0];
  }
  expect(leaf).toMatchObject({
    parentJti: pa.jti,
    actorChain: [
      { nheIdentifier: 'tool-agent', method: 'workload' },
      { nheIdentifier: 'orders-agent', method: 'key' },
    ],
    actorAuthentication: { method: 'workload', issuer: WORKLOAD_ISSUER, subject: WORKLOAD_SUBJECT },
  });
  const chain = await get(`${audit}/${leaf!.id}/delegation-chain`);
  expect(chain).toMatchObject({ rootJti: pa.jti, truncated: false });
  expect(chain.tokens?.map((t) => t.jti)).toEqual([pa.jti, pb.jti]);
});

test('a chain whose second agent was only named is refused by the proven-agents route; one hop more than the tenant allows is refused', async () => {
  const a = await exchange(await seededUserToken(h), await agentProof(), JWT);
  const named = await exchange(a.access_token, 'tool-agent', 'urn:vendor:token-type:nhe-id');
  expect(decodeJwt(named.access_token).act).toEqual({
    sub: 'nhe:tool-agent',
    act: { sub: 'nhe:orders-agent', 'org.vendor.actor.proof': 'key' },
  });
  const res = await fetch(`${apiUrl}/orders`, { headers: { authorization: `Bearer ${named.access_token}` } });
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({
    error: 'insufficient_scope',
    error_description: 'this resource accepts proven agents only; nhe:tool-agent did not prove who it is',
  });

  // Depth 3 in a tenant that allows 2.
  const refused = await exchange(named.access_token, 'tool-agent', 'urn:vendor:token-type:nhe-id').catch(
    (err: unknown) => err,
  );
  expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
  expect({
    error: (refused as oidc.ResponseBodyError).error,
    description: (refused as oidc.ResponseBodyError).error_description,
  }).toEqual({
    error: 'invalid_grant',
    description: 'the delegation chain would be 3 actors deep; this tenant allows at most 2',
  });
});
