import type { Request, RequestHandler, Response } from 'express';
import {
  AUDIENCE,
  fakeIssuer,
  holder,
  ISSUER,
  nheClaims,
  proof,
  URL_ORDERS,
  type FakeIssuer,
  type Holder,
} from '../test/fixtures';
import { auditLine } from './audit';
import {
  accessOf,
  protectedResourceMetadataHandler,
  requireAccess,
  type HttpRequest,
  type RequireAccessOptions,
} from './express';
import {
  protectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from './protected-resource-metadata';
import { createVerifier, type VerifierOptions } from './verifier';

const METADATA_URL = 'https://api.orders.test/.well-known/oauth-protected-resource';

let idp: FakeIssuer;
let alice: Holder;
beforeAll(async () => {
  alice = await holder();
});
beforeEach(async () => {
  idp = await fakeIssuer();
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  next: boolean;
  nextError?: unknown;
  req: HttpRequest;
}

/** Drives a middleware with a fake request/response (no HTTP: a unit test). */
async function run(
  mw: (req: HttpRequest, res: never, next: (err?: unknown) => void) => void,
  headers: Record<string, string | undefined>,
  o: { method?: string; url?: string; distinct?: Record<string, string[]> } = {},
): Promise<Answer> {
  const req: HttpRequest = {
    method: o.method ?? 'GET',
    originalUrl: o.url ?? '/orders?page=2',
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
    ...(o.distinct ? { headersDistinct: o.distinct } : {}),
  };
  return new Promise((resolve) => {
    const answer: Answer = { status: 0, headers: {}, body: undefined, next: false, req };
    const res = {
      status(code: number) {
        answer.status = code;
        return res;
      },
      setHeader(name: string, value: string) {
        answer.headers[name] = value;
        return res;
      },
      json(body: unknown) {
        answer.body = body;
        resolve(answer);
        return res;
      },
      end() {
        resolve(answer);
        return res;
      },
    };
    mw(req, res as never, (err?: unknown) => {
      answer.next = true;
      answer.nextError = err;
      resolve(answer);
    });
  });
}

const verifierOf = (extra: Partial<VerifierOptions> = {}) =>
  createVerifier({
    issuer: ISSUER,
    audience: AUDIENCE,
    fetch: idp.fetch,
    dpop: { algorithms: ['ES256', 'EdDSA'] },
    ...extra,
  });
const mw = (o: RequireAccessOptions = {}, v = verifierOf()) =>
  requireAccess(v, { resourceMetadataUrl: METADATA_URL, ...o });

describe('requireAccess: WWW-Authenticate forms', () => {
  it('no credentials: 401, both schemes offered, each with resource_metadata and DPoP with algs; no error code', async () => {
    const a = await run(mw({ realm: 'orders' }), {});
    expect(a.status).toBe(401);
    expect(a.headers['WWW-Authenticate']).toBe(
      `Bearer realm="orders", resource_metadata="${METADATA_URL}", DPoP realm="orders", algs="ES256 EdDSA", resource_metadata="${METADATA_URL}"`,
    );
    expect(a.body).toEqual({});
    expect(a.next).toBe(false);
  });

  it('invalid_token with Bearer: 401 Bearer error="invalid_token" with resource_metadata', async () => {
    const a = await run(mw(), { authorization: `Bearer ${await idp.sign({ aud: 'https://api.other.test' })}` });
    expect(a.status).toBe(401);
    expect(a.headers['WWW-Authenticate']).toBe(
      `Bearer error="invalid_token", error_description="the access token aud claim is not valid here", resource_metadata="${METADATA_URL}"`,
    );
    expect(a.body).toEqual({
      error: 'invalid_token',
      error_description: 'the access token aud claim is not valid here',
    });
    expect(a.headers['Cache-Control']).toBe('no-store');
  });

  it('a DPoP-bound token sent as Bearer: 401 DPoP error="invalid_token" with algs', async () => {
    const a = await run(mw(), { authorization: `Bearer ${await idp.sign({ cnf: { jkt: alice.jkt } })}` });
    expect(a.status).toBe(401);
    expect(a.headers['WWW-Authenticate']).toMatch(
      /^DPoP error="invalid_token", error_description="the access token is DPoP-bound[^"]*", algs="ES256 EdDSA", resource_metadata="/,
    );
  });

  it('invalid_dpop_proof: 401 DPoP error="invalid_dpop_proof" with algs', async () => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const a = await run(mw(), { authorization: `DPoP ${token}`, dpop: await proof(alice, token, { htm: 'POST' }) });
    expect(a.status).toBe(401);
    expect(a.headers['WWW-Authenticate']).toBe(
      `DPoP error="invalid_dpop_proof", error_description="DPoP proof htm mismatch", algs="ES256 EdDSA", resource_metadata="${METADATA_URL}"`,
    );
  });

  it('insufficient_scope: 403 with scope="<missing>"; the DPoP scheme for a DPoP request', async () => {
    const a = await run(mw({ scopes: ['orders:read', 'orders:write'] }), {
      authorization: `Bearer ${await idp.sign()}`,
    });
    expect(a.status).toBe(403);
    expect(a.headers['WWW-Authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="the access token lacks the scope(s) orders:write", scope="orders:write", resource_metadata="${METADATA_URL}"`,
    );
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const d = await run(mw({ scopes: ['orders:write'] }), {
      authorization: `DPoP ${token}`,
      dpop: await proof(alice, token, { htu: 'https://api.orders.test/orders' }),
    });
    expect(d.status).toBe(403);
    expect(d.headers['WWW-Authenticate']).toMatch(
      /^DPoP error="insufficient_scope", .*scope="orders:write", algs="ES256 EdDSA", resource_metadata=/,
    );
  });

  it('invalid_request: 400 for a malformed Authorization header and for two Authorization headers', async () => {
    const a = await run(mw(), { authorization: 'Bearer a,b' });
    expect(a.status).toBe(400);
    expect(a.headers['WWW-Authenticate']).toMatch(/^Bearer error="invalid_request", /);
    const b = await run(
      mw(),
      { authorization: `Bearer ${await idp.sign()}` },
      { distinct: { authorization: ['Bearer x.y.z', 'Bearer a.b.c'] } },
    );
    expect(b.status).toBe(400);
    expect(b.body).toEqual({
      error: 'invalid_request',
      error_description: 'more than one Authorization header was sent',
    });
  });

  it('two DPoP headers are refused as invalid_dpop_proof', async () => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const p = await proof(alice, token);
    const a = await run(mw(), { authorization: `DPoP ${token}`, dpop: `${p}, ${p}` }, { distinct: { dpop: [p, p] } });
    expect(a.status).toBe(401);
    expect(a.headers['WWW-Authenticate']).toMatch(
      /error="invalid_dpop_proof", error_description="more than one DPoP proof was sent"/,
    );
  });

  it('use_dpop_nonce: 401 with DPoP-Nonce', async () => {
    const v = verifierOf({
      dpop: { algorithms: ['ES256'], nonce: { required: true, isValid: (n) => n === 'n-1', issue: () => 'n-1' } },
    });
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const a = await run(mw({}, v), { authorization: `DPoP ${token}`, dpop: await proof(alice, token) });
    expect(a.status).toBe(401);
    expect(a.headers['DPoP-Nonce']).toBe('n-1');
    expect(a.headers['WWW-Authenticate']).toMatch(/^DPoP error="use_dpop_nonce"/);
    const b = await run(mw({}, v), {
      authorization: `DPoP ${token}`,
      dpop: await proof(alice, token, { nonce: 'n-1' }),
    });
    expect(b.next).toBe(true);
  });

  it('without resourceMetadataUrl the challenges carry no resource_metadata', async () => {
    const a = await run(requireAccess(verifierOf({ dpop: false })), {});
    expect(a.headers['WWW-Authenticate']).toBe('Bearer');
  });

  it('an unreachable issuer: 503 with Retry-After, not a 401', async () => {
    const v = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      fetch: () => Promise.resolve(new Response('', { status: 502 })),
    });
    const a = await run(requireAccess(v), { authorization: `Bearer ${await idp.sign()}` });
    expect(a.status).toBe(503);
    expect(a.headers['Retry-After']).toBe('5');
    expect(a.body).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('other errors (a failing revocation source) go to next(err)', async () => {
    const boom = new Error('deny list unavailable');
    const v = verifierOf({
      revocations: {
        isRevoked: () => {
          throw boom;
        },
      },
    });
    const a = await run(requireAccess(v), { authorization: `Bearer ${await idp.sign()}` });
    expect(a.next).toBe(true);
    expect(a.nextError).toBe(boom);
  });
});

describe('requireAccess: accepted requests', () => {
  it('attaches the access (accessOf(req) and req.auth); DPoP htu is the configured origin + originalUrl', async () => {
    const token = await idp.sign({ ...nheClaims('invoice-bot'), cnf: { jkt: alice.jkt } });
    const a = await run(mw({ scopes: ['orders:read'], delegation: 'require', agentTypes: ['llm-autonomous'] }), {
      authorization: `DPoP ${token}`,
      dpop: await proof(alice, token, { htu: `${URL_ORDERS}?page=2` }),
    });
    expect(a.next).toBe(true);
    expect(a.nextError).toBeUndefined();
    const access = accessOf(a.req);
    expect((a.req as { auth?: unknown }).auth).toBe(access);
    expect(access.delegation?.nheIdentifier).toBe('invoice-bot');
    expect(auditLine(access)).toEqual({
      userId: 'user-1',
      delegated: true,
      nheIdentifier: 'invoice-bot',
      agent: {
        id: 'invoice-bot',
        type: 'llm-autonomous',
        operator: 'acme-ops',
        model: { name: 'gpt', version: '5', provider: 'openai' },
      },
      clientId: 'orders-app',
      scopes: ['orders:read'],
      jti: access.claims.jti,
      iat: access.claims.iat,
      exp: access.claims.exp,
      scheme: 'DPoP',
    });
  });

  it('the htu comes from the origin option, never from Host', async () => {
    const token = await idp.sign({ aud: 'urn:orders', cnf: { jkt: alice.jkt } });
    const v = createVerifier({ issuer: ISSUER, audience: 'urn:orders', fetch: idp.fetch });
    expect(() => requireAccess(v)).toThrow(/origin/);
    const m = requireAccess(v, { origin: 'https://public.orders.test' });
    const wrong = await run(
      m,
      { authorization: `DPoP ${token}`, dpop: await proof(alice, token), host: 'api.orders.test' },
      { url: '/orders' },
    );
    expect(wrong.headers['WWW-Authenticate']).toMatch(/DPoP proof htu mismatch/);
    const right = await run(
      m,
      { authorization: `DPoP ${token}`, dpop: await proof(alice, token, { htu: 'https://public.orders.test/orders' }) },
      { url: '/orders' },
    );
    expect(right.next).toBe(true);
  });

  it('a user token: auditLine says not delegated', async () => {
    const a = await run(mw({ delegation: 'deny' }), { authorization: `Bearer ${await idp.sign()}` });
    expect(a.next).toBe(true);
    expect(auditLine(accessOf(a.req))).toMatchObject({
      userId: 'user-1',
      delegated: false,
      agent: undefined,
      nheIdentifier: undefined,
      clientId: 'orders-app',
      scheme: 'Bearer',
    });
  });

  it('accessOf throws for a request that did not pass requireAccess', () => {
    expect(() => accessOf({})).toThrow(/did not pass requireAccess/);
  });

  it('fits express: requireAccess and the metadata handler are express RequestHandlers (type check)', () => {
    const handler: RequestHandler = mw();
    const meta: RequestHandler = protectedResourceMetadataHandler(
      protectedResourceMetadata({ resource: AUDIENCE, authorizationServers: [ISSUER] }),
    );
    const read = (req: Request) => accessOf(req).userId;
    expect([typeof handler, typeof meta, typeof read]).toEqual(['function', 'function', 'function']);
    void (undefined as unknown as Response);
  });
});

describe('RFC 9728 protected resource metadata', () => {
  it('builds the document with bearer_methods_supported ["header"] by default', () => {
    expect(
      protectedResourceMetadata({
        resource: 'https://api.example/orders',
        authorizationServers: [ISSUER],
        scopesSupported: ['orders:read'],
        dpopSigningAlgValuesSupported: ['ES256'],
        resourceName: 'Orders API',
        resourceDocumentation: 'https://docs.example/orders',
      }),
    ).toEqual({
      resource: 'https://api.example/orders',
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      scopes_supported: ['orders:read'],
      dpop_signing_alg_values_supported: ['ES256'],
      resource_name: 'Orders API',
      resource_documentation: 'https://docs.example/orders',
    });
  });

  it('well-known URL: inserted between host and path (RFC 9728 section 3.1)', () => {
    expect(protectedResourceMetadataUrl('https://api.example')).toBe(
      'https://api.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://api.example/')).toBe(
      'https://api.example/.well-known/oauth-protected-resource',
    );
    expect(protectedResourceMetadataUrl('https://api.example/orders/v1')).toBe(
      'https://api.example/.well-known/oauth-protected-resource/orders/v1',
    );
    expect(protectedResourceMetadataPath('https://api.example/orders')).toBe(
      '/.well-known/oauth-protected-resource/orders',
    );
  });

  it('refuses an http resource (except loopback), a fragment, credentials and an empty authorization server list', () => {
    expect(() => protectedResourceMetadata({ resource: 'http://api.example', authorizationServers: [ISSUER] })).toThrow(
      TypeError,
    );
    expect(() =>
      protectedResourceMetadata({ resource: 'https://api.example#x', authorizationServers: [ISSUER] }),
    ).toThrow(/fragment/);
    expect(() =>
      protectedResourceMetadata({ resource: 'https://u:p@api.example', authorizationServers: [ISSUER] }),
    ).toThrow(/credentials/);
    expect(() => protectedResourceMetadata({ resource: 'https://api.example', authorizationServers: [] })).toThrow(
      TypeError,
    );
    expect(
      protectedResourceMetadata({
        resource: 'http://127.0.0.1:8080/orders',
        authorizationServers: ['http://localhost:3000/auth/1'],
      }).resource,
    ).toBe('http://127.0.0.1:8080/orders');
  });

  it('the handler serves the root and the path-suffixed form (GET, HEAD), public and cacheable; other requests pass', async () => {
    const doc = protectedResourceMetadata({
      resource: 'https://api.example/orders',
      authorizationServers: [ISSUER],
      scopesSupported: ['orders:read'],
    });
    const h = protectedResourceMetadataHandler(doc);
    for (const url of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/orders',
      '/.well-known/oauth-protected-resource/orders?x=1',
    ]) {
      const a = await run(h, {}, { url });
      expect(a.status).toBe(200);
      expect(a.body).toEqual(doc);
      expect(a.headers['Access-Control-Allow-Origin']).toBe('*');
    }
    expect((await run(h, {}, { url: '/.well-known/oauth-protected-resource', method: 'HEAD' })).body).toBeUndefined();
    expect((await run(h, {}, { url: '/.well-known/oauth-protected-resource/invoices' })).next).toBe(true);
    expect((await run(h, {}, { url: '/.well-known/oauth-protected-resource', method: 'POST' })).next).toBe(true);
    expect((await run(h, {}, { url: '/orders' })).next).toBe(true);
  });
});
