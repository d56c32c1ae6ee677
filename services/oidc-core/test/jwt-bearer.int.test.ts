/**
 * The JWT bearer grant (RFC 7523) at the real token endpoint: an assertion from a trusted issuer (keys served over
 * HTTP by the test, as the other organisation's JWKS) becomes a resource-bound access token for the user it names,
 * plain or as an ID-JAG; and the refusals of RFC 7523 section 3 and the ID-JAG draft: replayed jti, wrong typ for the
 * ID-JAG rules, another audience, another client's ID-JAG, a resource nobody registered, an algorithm off the
 * issuer's list, an unknown or disabled issuer, an expired or too long-lived assertion, an act the issuer may not
 * assert, scope widening, a disabled user, a public client, a client without the grant.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import { basicAuth, createClient } from '@idp/testing';
import { startPagesApp, PEPPER, type PagesApp } from './pages-app';

const ISSUER = 'https://idp.other-org.example';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let app: PagesApp;
let jwks: Server;
let jwksUri = '';
let es256: CryptoKey;
let rs256: CryptoKey;
let rp: { clientId: string; clientSecret: string };
let other: { clientId: string; clientSecret: string };
let issuerUrl = '';

beforeAll(async () => {
  app = await startPagesApp('jwtbearer', { upstreamPolicy: { allowLoopback: true } });
  const ec = await generateKeyPair('ES256');
  const rsa = await generateKeyPair('RS256');
  es256 = ec.privateKey as CryptoKey;
  rs256 = rsa.privateKey as CryptoKey;
  const keys: JWK[] = [
    { ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256' },
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256' },
  ];
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
  jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  const t = app.tenant.tenantId;
  issuerUrl = `${app.baseUrl}/auth/${t}`;
  await app.db.models.TrustedIssuer.create({
    tenantId: t,
    issuer: ISSUER,
    jwksUri,
    algorithms: ['ES256'],
    subjectMapping: 'user_id',
  });
  const make = (clientId: string) =>
    createClient(app.db.models, PEPPER, {
      tenantId: t,
      clientId,
      name: clientId,
      grantTypes: [GRANT],
      redirectUris: [],
    });
  rp = await make('mcp-client');
  other = await make('other-client');
}, 60_000);

afterAll(async () => {
  jwks.close();
  await app.stop();
});

interface Options {
  typ?: string;
  alg?: 'ES256' | 'RS256';
  claims?: JWTPayload;
  lifetime?: number;
}

async function assertion(o: Options = {}): Promise<string> {
  const alg = o.alg ?? 'ES256';
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    sub: app.tenant.user.id,
    aud: issuerUrl,
    jti: randomUUID(),
    iat: now,
    exp: now + (o.lifetime ?? 120),
    ...o.claims,
  })
    .setProtectedHeader({ alg, kid: alg === 'ES256' ? 'ec' : 'rsa', ...(o.typ ? { typ: o.typ } : {}) })
    .setIssuer((o.claims?.iss as string | undefined) ?? ISSUER)
    .sign(alg === 'ES256' ? es256 : rs256);
}

const idJag = (claims: JWTPayload = {}) =>
  assertion({
    typ: 'oauth-id-jag+jwt',
    claims: { client_id: rp.clientId, resource: app.tenant.resource, scope: 'orders:read', ...claims },
  });

async function redeem(jwt: string, body: Record<string, string> = {}, client = rp, dpop?: string) {
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

it('discovery lists the grant and the ID-JAG profile', async () => {
  const meta = (await (await fetch(`${issuerUrl}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  expect(meta.grant_types_supported).toContain(GRANT);
  expect(meta.authorization_grant_profiles_supported).toEqual(['urn:ietf:params:oauth:grant-profile:id-jag']);
});

it('a plain RFC 7523 assertion becomes an access token for the requested resource, scopes by RBAC here', async () => {
  // Its scope claim is in its issuer's words (another server's scopes): not read.
  const res = await redeem(await assertion({ claims: { scope: 'profile domain-a:read' } }), {
    resource: app.tenant.resource,
    scope: 'orders:read orders:refund',
  });
  expect(res.status).toBe(200);
  expect(res.body.refresh_token).toBeUndefined();
  expect(res.body.token_type).toBe('Bearer');
  const at = decodeJwt(String(res.body.access_token));
  expect(at).toMatchObject({ sub: app.tenant.user.id, aud: app.tenant.resource, client_id: rp.clientId });
  // The user holds orders:read and orders:write by RBAC, not orders:refund.
  expect(at.scope).toBe('orders:read');
});

it('an ID-JAG that names no scope allows none (never every scope of the resource)', async () => {
  const res = await redeem(await idJag({ scope: undefined }));
  expect(res.status).toBe(200);
  expect(decodeJwt(String(res.body.access_token)).scope).toBeUndefined();
});

it('an ID-JAG is limited to its own resource and redeemed once', async () => {
  const jwt = await idJag({ scope: 'orders:read orders:write' });
  const first = await redeem(jwt);
  expect(first.status).toBe(200);
  const at = decodeJwt(String(first.body.access_token));
  expect(at.aud).toBe(app.tenant.resource);
  expect(String(at.scope).split(' ').sort()).toEqual(['orders:read', 'orders:write']);
  const again = await redeem(jwt);
  expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  expect(String(again.body.error_description)).toMatch(/already used/);
});

describe('refusals', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each<[string, () => Promise<{ status: number; body: Record<string, unknown> }>, string, RegExp]>([
    [
      'another audience',
      async () => redeem(await idJag({ aud: 'https://as.elsewhere.example' })),
      'invalid_grant',
      /aud/,
    ],
    [
      'an audience array with another server beside this one',
      async () => redeem(await idJag({ aud: [issuerUrl, 'https://as.elsewhere.example'] })),
      'invalid_grant',
      /only audience/,
    ],
    ['an ID-JAG issued to another client', async () => redeem(await idJag(), {}, other), 'invalid_grant', /client_id/],
    [
      'an ID-JAG without its typ is held to the plain rules: no resource, no token',
      async () => redeem(await assertion({ claims: { client_id: rp.clientId } })),
      'invalid_target',
      /resource is required/,
    ],
    [
      'a resource nobody registered',
      async () => redeem(await idJag({ resource: 'https://api.unknown.example' })),
      'invalid_target',
      /resource server not found/,
    ],
    [
      'a request resource other than the assertion’s',
      async () => redeem(await idJag(), { resource: 'https://api.unknown.example' }),
      'invalid_target',
      /assertion's/,
    ],
    [
      'an algorithm off the issuer’s list (RS256)',
      async () => redeem(await assertion({ alg: 'RS256', claims: {} }), { resource: app.tenant.resource }),
      'invalid_grant',
      /algorithm/,
    ],
    [
      'an unknown issuer',
      async () => redeem(await assertion({ claims: { iss: 'https://idp.unknown.example' } })),
      'invalid_grant',
      /trusted issuer/,
    ],
    [
      'an expired assertion',
      async () => redeem(await idJag({ iat: now() - 600, exp: now() - 120 })),
      'invalid_grant',
      /exp/,
    ],
    [
      'an assertion living longer than allowed',
      async () => redeem(await assertion({ lifetime: 3600 })),
      'invalid_grant',
      /longer/,
    ],
    [
      'an act from an issuer not allowed to assert it',
      async () => redeem(await idJag({ act: { sub: 'agent-1' } })),
      'invalid_grant',
      /act/,
    ],
    [
      'an access token presented as an assertion (typ at+jwt)',
      async () => redeem(await assertion({ typ: 'at+jwt' }), { resource: app.tenant.resource }),
      'invalid_grant',
      /at\+jwt is not an authorization grant/,
    ],
    [
      'an ID-JAG typed with the media type prefix keeps the ID-JAG rules (another client)',
      async () =>
        redeem(
          await assertion({
            typ: 'application/OAUTH-ID-JAG+JWT',
            claims: { client_id: rp.clientId, resource: app.tenant.resource },
          }),
          {},
          other,
        ),
      'invalid_grant',
      /client_id/,
    ],
    [
      'an ID-JAG without a resource',
      async () => redeem(await idJag({ resource: undefined }), { resource: app.tenant.resource }),
      'invalid_grant',
      /names no resource/,
    ],
    [
      'a scope claim that is not a string',
      async () => redeem(await idJag({ scope: ['orders:read'] })),
      'invalid_grant',
      /scope/,
    ],
    [
      "the tenant's UserInfo audience",
      async () => redeem(await assertion(), { resource: `${issuerUrl}/me` }),
      'invalid_target',
      /cannot obtain tokens/,
    ],
    [
      'a subject that is no user here',
      async () => redeem(await idJag({ sub: '000000000000000000000000' })),
      'invalid_grant',
      /no user/,
    ],
  ])('%s', async (_name, call, error, description) => {
    const res = await call();
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
    expect(String(res.body.error_description)).toMatch(description);
  });

  it('an HMAC-signed assertion is refused even when the record lists HS256', async () => {
    await app.db.models.TrustedIssuer.updateOne(
      { tenantId: app.tenant.tenantId, issuer: ISSUER },
      { $set: { algorithms: ['ES256', 'HS256'] } },
    );
    try {
      const jwt = await new SignJWT({ sub: app.tenant.user.id, aud: issuerUrl, exp: now() + 60, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer(ISSUER)
        .sign(new TextEncoder().encode('a shared secret nobody should trust here'));
      const res = await redeem(jwt, { resource: app.tenant.resource });
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      await app.db.models.TrustedIssuer.updateOne(
        { tenantId: app.tenant.tenantId, issuer: ISSUER },
        { $set: { algorithms: ['ES256'] } },
      );
    }
  });

  it('a disabled issuer, then a disabled user, are refused at once', async () => {
    const t = app.tenant.tenantId;
    await app.db.models.TrustedIssuer.updateOne({ tenantId: t, issuer: ISSUER }, { $set: { enabled: false } });
    expect(await redeem(await idJag())).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await app.db.models.TrustedIssuer.updateOne({ tenantId: t, issuer: ISSUER }, { $set: { enabled: true } });
    await app.db.models.User.updateOne({ tenantId: t, _id: app.tenant.user.id }, { $set: { enabled: false } });
    try {
      const res = await redeem(await idJag());
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(String(res.body.error_description)).toMatch(/disabled/);
    } finally {
      await app.db.models.User.updateOne({ tenantId: t, _id: app.tenant.user.id }, { $set: { enabled: true } });
    }
    expect((await redeem(await idJag())).status).toBe(200);
  });

  it('a client that may not use the grant gets unauthorized_client', async () => {
    const res = await redeem(await idJag({ client_id: app.tenant.client.clientId }), {}, app.tenant.client);
    expect(res).toMatchObject({ status: 400, body: { error: 'unauthorized_client' } });
  });
});

describe('DPoP (RFC 9449)', () => {
  async function proof() {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const jws = await new SignJWT({ htm: 'POST', htu: `${issuerUrl}/oidc/token` })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(privateKey);
    return { jws, jkt: await calculateJwkThumbprint(jwk) };
  }

  it('a proof binds the access token to its key (cnf.jkt, token_type DPoP)', async () => {
    const p = await proof();
    const res = await redeem(await idJag(), {}, rp, p.jws);
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('DPoP');
    expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: p.jkt });
  });

  it('a client with dpop_bound_access_tokens gets no unbound token (invalid_dpop_proof); a bad proof is refused', async () => {
    const bound = await createClient(app.db.models, PEPPER, {
      tenantId: app.tenant.tenantId,
      clientId: 'mcp-client-dpop',
      name: 'mcp-client-dpop',
      grantTypes: [GRANT],
      redirectUris: [],
      requireDpop: true,
    });
    const jwt = await idJag({ client_id: bound.clientId });
    const refused = await redeem(jwt, {}, bound);
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_dpop_proof']);
    const garbage = await redeem(jwt, {}, bound, 'not-a-proof');
    expect([garbage.status, garbage.body.error]).toEqual([400, 'invalid_dpop_proof']);
    const p = await proof();
    const res = await redeem(jwt, {}, bound, p.jws);
    expect(res.status).toBe(200);
    expect(decodeJwt(String(res.body.access_token)).cnf).toEqual({ jkt: p.jkt });
  });
});
