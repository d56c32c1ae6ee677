/**
 * The public origin is configuration, never the request's Host header, through the dev router (which forwards the client's Host as X-Forwarded-Host, as the ingress
 * does, to an oidc-core that trusts it): `Host: evil.example` changes no URL in discovery, and a DPoP proof for the
 * evil origin is invalid_dpop_proof at node-oidc-provider's own grant and at token exchange.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { basicAuth } from '../../src/clients/browserless-login';
import { seededUserToken, startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let key: { privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey']; jwk: JWK };

beforeAll(async () => {
  h = await startHarness('public-origin');
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

/** fetch cannot set Host: a raw request to the router. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; cacheControl?: string; json: Record<string, unknown> }> {
  const router = new URL(h.topology.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: router.hostname,
        port: router.port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            cacheControl: res.headers['cache-control'],
            json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const proof = (htu: string) =>
  new SignJWT({ htm: 'POST', htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);

it('discovery through the router with Host: evil.example names only the configured origin, and is cacheable', async () => {
  for (const prefix of ['', '/_api']) {
    const res = await send('GET', `${prefix}/auth/${h.tenant.tenantId}/.well-known/openid-configuration`, {
      host: 'evil.example',
    });
    expect(res.status).toBe(200);
    expect(res.cacheControl).toBe('public, max-age=300');
    expect(res.json.issuer).toBe(`${h.topology.baseUrl}/auth/${h.tenant.tenantId}`);
    for (const [k, v] of Object.entries(res.json).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri')) {
      expect([k, v]).toEqual([
        k,
        expect.stringMatching(new RegExp(`^${h.topology.baseUrl}${prefix}/auth/${h.tenant.tenantId}/`)),
      ]);
    }
    expect(JSON.stringify(res.json)).not.toContain('evil.example');
  }
});

it('a DPoP proof for the evil origin is invalid_dpop_proof at client_credentials and token exchange; the configured origin works', async () => {
  const path = `/auth/${h.tenant.tenantId}/oidc/token`;
  const userToken = await seededUserToken(h);
  const grants = {
    clientCredentials: {
      auth: basicAuth(h.tenant.admin.clientId, h.tenant.admin.clientSecret),
      body: { grant_type: 'client_credentials', resource: 'urn:idp:management', scope: 'auth.nhe.list' },
    },
    tokenExchange: {
      auth: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
      body: {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: userToken,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        actor_token: h.tenant.nhe.identifier,
        actor_token_type: 'urn:vendor:token-type:nhe-id',
        resource: h.tenant.resource,
        scope: 'orders:read',
      },
    },
  };
  for (const [name, g] of Object.entries(grants)) {
    const post = async (htu: string) =>
      send(
        'POST',
        path,
        {
          host: 'evil.example',
          'content-type': 'application/x-www-form-urlencoded',
          authorization: g.auth,
          dpop: await proof(htu),
        },
        new URLSearchParams(g.body).toString(),
      );
    const evil = await post(`http://evil.example${path}`);
    expect([name, evil.status, evil.json.error]).toEqual([name, 400, 'invalid_dpop_proof']);
    const good = await post(`${h.topology.baseUrl}${path}`);
    expect([name, good.status, good.json.token_type]).toEqual([name, 200, 'DPoP']);
  }
});
