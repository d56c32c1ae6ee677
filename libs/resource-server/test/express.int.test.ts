/**
 * The package as a customer's API uses it, over real HTTP: an issuer served by a local HTTP server (discovery and
 * JWKS, fetched with the global fetch), an express "Orders API" protected by requireAccess, its RFC 9728 metadata,
 * and key rotation seen through the JWKS endpoint's request log.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import {
  auditLine,
  createVerifier,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type AuditLine,
  type Verifier,
} from '../src/index';
import { accessOf, protectedResourceMetadataHandler, requireAccess } from '../src/express';
import { fakeIssuer, holder, nheClaims, proof, signingKey, type FakeIssuer } from './fixtures';

let server: Server;
let issuer: string;
let idp: FakeIssuer;
const RESOURCE = 'http://127.0.0.1:4555/orders-api';
const log: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    log.push(req.url ?? '');
    void idp
      .fetch(`${issuer}${(req.url ?? '').replace(/^\/auth\/7/, '')}`, {
        method: 'GET',
        headers: new Headers(),
        redirect: 'manual',
        signal: AbortSignal.timeout(1000),
      })
      .then(async (r) => {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(await r.text());
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/auth/7`;
  idp = await fakeIssuer({ issuer, jwksUri: `${issuer}/jwks` });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function ordersApi(verifier: Verifier) {
  const app = express();
  const activity: AuditLine[] = [];
  const metadataUrl = protectedResourceMetadataUrl(RESOURCE);
  app.use(
    protectedResourceMetadataHandler(
      protectedResourceMetadata({
        resource: RESOURCE,
        authorizationServers: [issuer],
        scopesSupported: ['orders:read'],
        dpopSigningAlgValuesSupported: verifier.dpopAlgorithms,
      }),
    ),
  );
  app.get(
    '/orders-api/orders',
    requireAccess(verifier, {
      scopes: ['orders:read'],
      resourceMetadataUrl: metadataUrl,
      origin: 'http://127.0.0.1:4555',
    }),
    (req, res) => {
      const access = accessOf(req);
      activity.push(auditLine(access));
      res.json({ user: access.userId, agent: access.delegation?.nheIdentifier ?? null });
    },
  );
  app.get(
    '/orders-api/agent-only',
    requireAccess(verifier, {
      delegation: 'require',
      agentTypes: ['automated-pipeline'],
      resourceMetadataUrl: metadataUrl,
      origin: 'http://127.0.0.1:4555',
    }),
    (_req, res) => {
      res.json({ ok: true });
    },
  );
  return { app, activity, metadataUrl };
}

describe('an express Orders API on @idp/resource-server', () => {
  it('discovers over HTTP, accepts a user token and an NHE token, and logs the agent line under the user', async () => {
    log.length = 0;
    const verifier = createVerifier({ issuer, audience: 'https://api.orders.test', dpop: { algorithms: ['ES256'] } });
    const { app, activity } = ordersApi(verifier);
    const user = await request(app)
      .get('/orders-api/orders')
      .set('authorization', `Bearer ${await idp.sign()}`);
    expect(user.status).toBe(200);
    expect(user.body).toEqual({ user: 'user-1', agent: null });
    const nhe = await request(app)
      .get('/orders-api/orders')
      .set('authorization', `Bearer ${await idp.sign(nheClaims('invoice-bot'))}`);
    expect(nhe.status).toBe(200);
    expect(nhe.body).toEqual({ user: 'user-1', agent: 'invoice-bot' });
    expect(activity[1]).toMatchObject({
      userId: 'user-1',
      delegated: true,
      nheIdentifier: 'invoice-bot',
      agent: { id: 'invoice-bot', type: 'llm-autonomous', operator: 'acme-ops' },
      clientId: 'orders-app',
    });
    expect(log).toEqual(['/auth/7/.well-known/openid-configuration', '/auth/7/jwks']);
  });

  it('answers 401 with the challenge naming resource_metadata, and serves that metadata', async () => {
    const verifier = createVerifier({ issuer, audience: 'https://api.orders.test', dpop: { algorithms: ['ES256'] } });
    const { app, metadataUrl } = ordersApi(verifier);
    const res = await request(app).get('/orders-api/orders');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${metadataUrl}", DPoP algs="ES256", resource_metadata="${metadataUrl}"`,
    );
    const path = new URL(metadataUrl).pathname;
    expect(path).toBe('/.well-known/oauth-protected-resource/orders-api');
    for (const p of [path, '/.well-known/oauth-protected-resource']) {
      const meta = await request(app).get(p);
      expect(meta.status).toBe(200);
      expect(meta.body).toEqual({
        resource: RESOURCE,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['orders:read'],
        dpop_signing_alg_values_supported: ['ES256'],
      });
    }
  });

  it('DPoP through express: the proof for the configured origin passes; the bound token as Bearer is refused', async () => {
    const alice = await holder();
    const verifier = createVerifier({ issuer, audience: 'https://api.orders.test', dpop: { algorithms: ['ES256'] } });
    const { app } = ordersApi(verifier);
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const ok = await request(app)
      .get('/orders-api/orders?x=1')
      .set('authorization', `DPoP ${token}`)
      .set('dpop', await proof(alice, token, { htu: 'http://127.0.0.1:4555/orders-api/orders' }));
    expect(ok.status).toBe(200);
    const asBearer = await request(app).get('/orders-api/orders').set('authorization', `Bearer ${token}`);
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers['www-authenticate']).toMatch(/^DPoP error="invalid_token"/);
  });

  it('route rules: delegation require + agentTypes answer 403', async () => {
    const verifier = createVerifier({ issuer, audience: 'https://api.orders.test', dpop: false });
    const { app } = ordersApi(verifier);
    const user = await request(app)
      .get('/orders-api/agent-only')
      .set('authorization', `Bearer ${await idp.sign()}`);
    expect(user.status).toBe(403);
    expect(user.body.error).toBe('insufficient_scope');
    const wrongType = await request(app)
      .get('/orders-api/agent-only')
      .set('authorization', `Bearer ${await idp.sign(nheClaims())}`);
    expect(wrongType.status).toBe(403);
    const pipeline = await idp.sign(
      nheClaims('etl', { agent: { id: 'etl', type: 'automated-pipeline', operator: 'data-team' } }),
    );
    expect((await request(app).get('/orders-api/agent-only').set('authorization', `Bearer ${pipeline}`)).status).toBe(
      200,
    );
  });

  it('key rotation: a new kid is fetched for once per cooldown; requests meanwhile do not hammer the JWKS', async () => {
    log.length = 0;
    const verifier = createVerifier({
      issuer,
      audience: 'https://api.orders.test',
      dpop: false,
      jwks: { cooldownMs: 300 },
    });
    const { app } = ordersApi(verifier);
    expect(
      (
        await request(app)
          .get('/orders-api/orders')
          .set('authorization', `Bearer ${await idp.sign()}`)
      ).status,
    ).toBe(200);
    const rotated = await signingKey('rotated');
    idp.keys.push(rotated);
    const fresh = await idp.sign({}, { key: rotated });
    // Within the cooldown: refused, no refetch however many requests come.
    for (let i = 0; i < 5; i++)
      expect((await request(app).get('/orders-api/orders').set('authorization', `Bearer ${fresh}`)).status).toBe(401);
    expect(log.filter((u) => u.endsWith('/jwks'))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 350));
    expect((await request(app).get('/orders-api/orders').set('authorization', `Bearer ${fresh}`)).status).toBe(200);
    expect(log.filter((u) => u.endsWith('/jwks'))).toHaveLength(2);
  });

  it('an issuer that cannot be reached: 503 with Retry-After', async () => {
    const verifier = createVerifier({
      issuer: 'http://127.0.0.1:9/auth/7',
      audience: 'https://api.orders.test',
      dpop: false,
      jwks: { timeoutMs: 500 },
    });
    const { app } = ordersApi(verifier);
    const res = await request(app)
      .get('/orders-api/orders')
      .set('authorization', `Bearer ${await idp.sign()}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
  });
});
