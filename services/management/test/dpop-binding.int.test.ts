/**
 * DPoP-bound management tokens (RFC 9449), as an attacker would try them: a management access token bound to a
 * DPoP key (`cnf.jkt`, `token_type: DPoP`, obtained from oidc-core by client credentials with a DPoP proof) was
 * accepted on every route as `Authorization: Bearer`, with no proof. Now it needs `Authorization: DPoP` and a proof
 * for this request made with its key, used once across replicas. Strict parsing too: a token with `==` appended and
 * a proof with a string `iat` are refused, naming why. oidc-core runs for real (loopback HTTP, the seeded tenant's admin client); two
 * management apps over the same database play two replicas. Every response is checked against the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import {
  calculateJwkThumbprint,
  CompactSign,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import request, { type Response } from 'supertest';
import { createLogger } from '@idp/logger';
import { accessTokenHash } from '@idp/resource-server';
import { basicAuth } from '@idp/testing';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { startPagesApp, type PagesApp } from '../../oidc-core/test/pages-app';
import { createApp } from '../src/app';
import { tenantKeyLookup } from '../src/auth/tenant-keys';
import { OpenApiResponseValidator } from './harness';

let oidc: PagesApp;
let replicas: [ReturnType<typeof createApp>['app'], ReturnType<typeof createApp>['app']];
let validator: OpenApiResponseValidator;
let T: number;
type Key = { privateKey: CryptoKey; jwk: JWK; jkt: string };
let holder: Key;
let stranger: Key;
/** A real DPoP-bound management token from oidc-core's token endpoint. */
let bound: string;

const newKey = async (): Promise<Key> => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
};

/** A DPoP proof; `claims` override the defaults as raw JSON (so an iat can be a string). */
async function proof(o: {
  htm: string;
  htu: string;
  token?: string;
  key?: Key;
  claims?: Record<string, unknown>;
}): Promise<string> {
  const key = o.key ?? holder;
  const payload = {
    htm: o.htm,
    htu: o.htu,
    jti: randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    ...(o.token ? { ath: await accessTokenHash(o.token) } : {}),
    ...o.claims,
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}

const path = () => `/auth/admin/tenants/${T}/clients`;
const htu = (p = path()) => `${oidc.baseUrl}${p}`;

async function call(
  headers: Record<string, string>,
  o: { replica?: 0 | 1; method?: 'get' | 'post'; path?: string } = {},
): Promise<Response> {
  let req = request(replicas[o.replica ?? 0])[o.method ?? 'get'](o.path ?? path());
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  const res = await req;
  validator.check(res);
  return res;
}

/** Signs a management token with the tenant's real key (for claims oidc-core never issues, e.g. another cnf). */
async function tenantSigned(claims: Record<string, unknown>): Promise<string> {
  const jwk = (await oidc.keyStore.load(T)).signing.find((k) => k.alg === 'ES256')!;
  return new SignJWT({ scope: 'auth.clients.list', client_id: 'tenant-admin', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(`${oidc.baseUrl}/auth/${T}`)
    .setAudience(MANAGEMENT_AUDIENCE)
    .setSubject('tenant-admin')
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(await importJWK(jwk, 'ES256'));
}

const challenge = (res: Response) => String(res.headers['www-authenticate'] ?? '');

beforeAll(async () => {
  oidc = await startPagesApp('mgmtdpop');
  T = oidc.tenant.tenantId;
  const management = () =>
    createApp({
      logger: createLogger({ service: 'test', level: 'silent' }),
      models: oidc.db.models,
      readiness: [],
      trustProxy: false,
      keyStore: oidc.keyStore,
      clientSecretPepper: 'p'.repeat(40),
      bearer: { publicBaseUrl: oidc.baseUrl, tenantKeys: tenantKeyLookup(oidc.db.models, oidc.keyStore, 0) },
    });
  const first = management();
  replicas = [first.app, management().app];
  validator = new OpenApiResponseValidator(
    first.openapi() as unknown as ConstructorParameters<typeof OpenApiResponseValidator>[0],
  );
  holder = await newKey();
  stranger = await newKey();

  // Client credentials with a DPoP proof at oidc-core's token endpoint, as an admin client would.
  const tokenUrl = `${oidc.baseUrl}/auth/${T}/oidc/token`;
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(oidc.tenant.admin.clientId, oidc.tenant.admin.clientSecret),
      dpop: await proof({ htm: 'POST', htu: tokenUrl }),
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: MANAGEMENT_AUDIENCE,
      scope: 'auth.clients.list',
    }),
  });
  const body = (await res.json()) as { access_token?: string; token_type?: string };
  if (!res.ok || !body.access_token) throw new Error(`token endpoint: ${res.status} ${JSON.stringify(body)}`);
  expect(body.token_type).toBe('DPoP');
  bound = body.access_token;
  expect(decodeJwt(bound).cnf).toEqual({ jkt: holder.jkt });
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (oidc as typeof oidc | undefined)?.stop();
});

describe('a DPoP-bound management token', () => {
  it('sent as Bearer without a proof: 401 problem with WWW-Authenticate: DPoP error="invalid_token"', async () => {
    const res = await call({ authorization: `Bearer ${bound}` });
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(challenge(res)).toMatch(
      /^DPoP realm="management", error="invalid_token", error_description="[^"]+", algs="ES256 [^"]*"$/,
    );
    expect(res.body).toMatchObject({
      status: 401,
      detail: 'the access token is DPoP-bound: send it with Authorization: DPoP and a DPoP proof',
    });
  });

  it('sent as Bearer with a valid proof: still 401 (the scheme says how the token is used)', async () => {
    const res = await call({
      authorization: `Bearer ${bound}`,
      dpop: await proof({ htm: 'GET', htu: htu(), token: bound }),
    });
    expect([res.status, challenge(res).startsWith('DPoP ')]).toEqual([401, true]);
  });

  it('sent as DPoP with a valid proof: 200, at both prefixes (the /_api alias is part of htu)', async () => {
    const ok = await call({
      authorization: `DPoP ${bound}`,
      dpop: await proof({ htm: 'GET', htu: htu(), token: bound }),
    });
    expect(ok.status).toBe(200);
    const alias = `/_api${path()}`;
    const viaAlias = await call(
      { authorization: `DPoP ${bound}`, dpop: await proof({ htm: 'GET', htu: htu(alias), token: bound }) },
      { path: alias },
    );
    expect(viaAlias.status).toBe(200);
    // A proof for the path without the alias does not fit a request that came through it.
    const wrong = await call(
      { authorization: `DPoP ${bound}`, dpop: await proof({ htm: 'GET', htu: htu(), token: bound }) },
      { path: alias },
    );
    expect([wrong.status, wrong.body.detail]).toEqual([401, 'DPoP proof htu mismatch']);
  });

  it('a replayed proof is refused, on the same replica and on another one', async () => {
    const p = await proof({ htm: 'GET', htu: htu(), token: bound });
    expect((await call({ authorization: `DPoP ${bound}`, dpop: p })).status).toBe(200);
    for (const replica of [0, 1] as const) {
      const again = await call({ authorization: `DPoP ${bound}`, dpop: p }, { replica });
      expect([again.status, again.body.detail]).toEqual([401, 'DPoP proof has been used before']);
      expect(challenge(again)).toMatch(
        /^DPoP realm="management", error="invalid_dpop_proof", error_description="DPoP proof has been used before", algs="/,
      );
    }
    // The record is the one the sidecar's token endpoint writes (oidc_payloads, model DPoPProof).
    const jti = decodeJwt(p).jti;
    expect(
      await oidc.db.models.OidcPayload.countDocuments({
        _id: `${T}:DPoPProof:${holder.jkt}:${jti}`,
        model: 'DPoPProof',
      }),
    ).toBe(1);
  });

  it.each([
    ['no proof', () => Promise.resolve(undefined), 'DPoP proof is missing'],
    [
      'a proof for another token (ath)',
      async () => proof({ htm: 'GET', htu: htu(), token: `${bound.slice(0, -2)}AA` }),
      'DPoP proof ath does not match the access token',
    ],
    ['a proof without ath', async () => proof({ htm: 'GET', htu: htu() }), 'DPoP proof ath is missing'],
    [
      'a proof for another route (htu)',
      async () => proof({ htm: 'GET', htu: `${oidc.baseUrl}/auth/admin/tenants/${T}/users`, token: bound }),
      'DPoP proof htu mismatch',
    ],
    [
      'a proof for another method (htm)',
      async () => proof({ htm: 'POST', htu: htu(), token: bound }),
      'DPoP proof htm mismatch',
    ],
    [
      'a proof made with another key',
      async () => proof({ htm: 'GET', htu: htu(), token: bound, key: stranger }),
      'DPoP proof key is not the key the access token is bound to',
    ],
    [
      'a proof ten minutes old',
      async () => proof({ htm: 'GET', htu: htu(), token: bound, claims: { iat: Math.floor(Date.now() / 1000) - 600 } }),
      'DPoP proof iat is not recent',
    ],
  ])('with %s: 401 invalid_dpop_proof naming the check', async (_what, make, detail) => {
    const p = await make();
    const res = await call({ authorization: `DPoP ${bound}`, ...(p ? { dpop: p } : {}) });
    expect([res.status, res.body.detail]).toEqual([401, detail]);
    expect(challenge(res)).toMatch(/^DPoP realm="management", error="invalid_dpop_proof"/);
  });

  it('htu comes from the configured public origin, never from Host: a proof for the Host the request claims is refused', async () => {
    const evil = 'http://evil.example';
    const res = await call({
      host: 'evil.example',
      authorization: `DPoP ${bound}`,
      dpop: await proof({ htm: 'GET', htu: `${evil}${path()}`, token: bound }),
    });
    expect([res.status, res.body.detail]).toEqual([401, 'DPoP proof htu mismatch']);
  });

  it('a proof whose iat is a string is refused for its iat', async () => {
    const res = await call({
      authorization: `DPoP ${bound}`,
      dpop: await proof({
        htm: 'GET',
        htu: htu(),
        token: bound,
        claims: { iat: String(Math.floor(Date.now() / 1000)) },
      }),
    });
    expect([res.status, res.body.detail]).toEqual([401, 'DPoP proof iat is missing or not a number']);
  });
});

describe('confirmation methods and schemes', () => {
  it('a token bound by cnf x5t#S256 (no mTLS here) is refused, as Bearer and as DPoP', async () => {
    const token = await tenantSigned({ cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } });
    const bearer = await call({ authorization: `Bearer ${token}` });
    expect([bearer.status, bearer.body.detail]).toEqual([
      401,
      'the access token is bound by a confirmation method this resource does not support (cnf x5t#S256)',
    ]);
    expect(challenge(bearer)).toMatch(/^Bearer realm="management", error="invalid_token"/);
    const dpop = await call({ authorization: `DPoP ${token}`, dpop: await proof({ htm: 'GET', htu: htu(), token }) });
    expect(dpop.status).toBe(401);
  });

  it('an unbound token sent as DPoP is refused; as Bearer it passes', async () => {
    const token = await tenantSigned({});
    const res = await call({ authorization: `DPoP ${token}`, dpop: await proof({ htm: 'GET', htu: htu(), token }) });
    expect([res.status, res.body.detail]).toEqual([
      401,
      'the access token is not DPoP-bound: send it with Authorization: Bearer',
    ]);
    expect((await call({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it('without credentials the challenge offers both schemes', async () => {
    const res = await call({});
    expect(res.status).toBe(401);
    expect(challenge(res)).toMatch(/^Bearer realm="management", DPoP realm="management", algs="ES256 /);
  });
});

describe('non-canonical base64url', () => {
  it('a token with == appended is refused, bound or not, although its signature is the same', async () => {
    const unbound = await tenantSigned({});
    const res = await call({ authorization: `Bearer ${unbound}==` });
    expect([res.status, res.body.detail]).toEqual([
      401,
      'the access token is not canonical base64url (padding or characters outside the alphabet)',
    ]);
    const padded = `${bound}==`;
    const boundRes = await call({
      authorization: `DPoP ${padded}`,
      dpop: await proof({ htm: 'GET', htu: htu(), token: padded }),
    });
    expect([boundRes.status, boundRes.body.detail]).toEqual([
      401,
      'the access token is not canonical base64url (padding or characters outside the alphabet)',
    ]);
  });
});
