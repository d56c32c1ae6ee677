/**
 * Hostile JSON input: a body nested 5,000 levels deep (10 KB) in a user's `claims` or in a member of a client's
 * `jwks.keys[]` was a 500 (RangeError: Maximum call stack size exceeded). Every JSON body is now bounded in depth
 * before it is parsed (libs/http json-body.ts), and a client's keys are checked against the JWK shape.
 */
import { exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { MAX_JSON_BODY_DEPTH } from '@idp/http';
import { invalidNames, startHarness, type Harness } from './harness';

let h: Harness;
let T: number;
let admin: string;
const path = (rest: string) => `/auth/admin/tenants/${T}${rest}`;
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

beforeAll(async () => {
  h = await startHarness('mgmtlimits');
  T = h.tenants.a;
  admin = await h.token(T, [...MANAGEMENT_SCOPES]);
});
afterAll(async () => h.close());

/** Sends raw JSON text (supertest would re-serialise an object) and validates the answer against the document. */
async function raw(method: 'post' | 'patch', url: string, text: string | Buffer, contentType = 'application/json') {
  // serialize: supertest would turn a Buffer into {"type":"Buffer",...} for a JSON content type.
  const req = request(h.app)[method](url);
  const res = await req
    .set('authorization', `Bearer ${admin}`)
    .set('content-type', contentType)
    .serialize((x: unknown) => x as string)
    .send(text);
  h.validator.check(res);
  return res;
}

const expectTooDeep = (res: request.Response) => {
  expect([res.status, res.headers['content-type'], res.body.type, invalidNames(res)]).toEqual([
    400,
    expect.stringMatching(/^application\/problem\+json/),
    'https://idp.dev/problems/validation-error',
    ['body'],
  ]);
  expect(res.body.invalid_params[0].reason).toBe(`at most ${MAX_JSON_BODY_DEPTH} levels of arrays and objects`);
};

describe('deep JSON nesting (the attack as reported)', () => {
  it('a user whose claims nest 5,000 levels (10 KB) is 400, on create and on update', async () => {
    const body = `{"username":"deep-claims","claims":{"x":${deepArray(5000)}}}`;
    expect(body.length).toBeGreaterThan(10_000);
    expectTooDeep(await raw('post', path('/users'), body));
    expectTooDeep(await raw('post', path('/users'), `{"username":"deep-claims","claims":{"x":${deepObject(5000)}}}`));
    expect(await h.db.models.User.exists({ tenantId: T, username: 'deep-claims' })).toBeNull();
    const user = await h.call('post', path('/users'), admin, { username: 'shallow-claims' });
    expectTooDeep(await raw('patch', path(`/users/${user.body.id}`), `{"claims":{"x":${deepArray(5000)}}}`));
  });

  it('a client whose jwks.keys[] member nests 5,000 levels is 400', async () => {
    const key = { ...(await exportJWK((await generateKeyPair('ES256')).publicKey)), alg: 'ES256' };
    const member = JSON.stringify(key).replace(/}$/, `,"x5c":${deepArray(5000)}}`);
    const client = `{"name":"deep","clientId":"deep-jwks","grantTypes":["client_credentials"],"tokenEndpointAuthMethod":"private_key_jwt","jwks":{"keys":[${member}]}}`;
    expectTooDeep(await raw('post', path('/clients'), client));
    expectTooDeep(await raw('post', path('/clients'), client.replace(deepArray(5000), deepObject(5000))));
    expect(await h.db.models.Client.exists({ tenantId: T, clientId: 'deep-jwks' })).toBeNull();
  });

  it('the bound holds in another charset, and a body just inside it reaches the route (which refuses it by its own rules)', async () => {
    const utf16 = Buffer.from(`{"username":"deep16","claims":{"x":${deepArray(5000)}}}`, 'utf16le');
    expectTooDeep(await raw('post', path('/users'), utf16, 'application/json; charset=utf-16le'));
    // Depth MAX_JSON_BODY_DEPTH in all: the body, claims, then the rest in one claim. The route's own limit speaks.
    const inside = await raw(
      'post',
      path('/users'),
      `{"username":"deep-inside","claims":{"x":${deepObject(MAX_JSON_BODY_DEPTH - 2)}}}`,
    );
    expect([inside.status, inside.body.invalid_params?.[0]?.reason]).toEqual([
      400,
      expect.stringMatching(/^nested too deeply/),
    ]);
    expectTooDeep(
      await raw(
        'post',
        path('/users'),
        `{"username":"deep-inside","claims":{"x":${deepObject(MAX_JSON_BODY_DEPTH - 1)}}}`,
      ),
    );
  });

  it('brackets inside strings do not count', async () => {
    const res = await h.call('post', path('/users'), admin, {
      username: 'brackets',
      claims: { note: deepArray(2000) },
    });
    expect([res.status, res.body.claims.note]).toEqual([201, deepArray(2000)]);
  });
});

describe('client keys have the JWK shape', () => {
  const create = (clientId: string, keys: unknown[]) =>
    h.call('post', path('/clients'), admin, {
      clientId,
      name: clientId,
      grantTypes: ['client_credentials'],
      tokenEndpointAuthMethod: 'private_key_jwt',
      jwks: { keys },
    });

  it('accepts public EC, RSA and OKP keys with the common members', async () => {
    const ec = await exportJWK((await generateKeyPair('ES384')).publicKey);
    const rsa = await exportJWK((await generateKeyPair('RS256', { modulusLength: 2048 })).publicKey);
    const okp = await exportJWK((await generateKeyPair('EdDSA', { crv: 'Ed25519' })).publicKey);
    const res = await create('jwk-ok', [
      { ...ec, kid: 'ec-1', use: 'sig', alg: 'ES384' },
      { ...rsa, kid: 'rsa-1', key_ops: ['verify'], alg: 'RS256' },
      { ...okp, kid: 'okp-1', alg: 'EdDSA' },
    ]);
    expect([res.status, res.body.jwks.keys.map((k: { kty: string }) => k.kty)]).toEqual([201, ['EC', 'RSA', 'OKP']]);
  });

  it('refuses private and symmetric keys, unknown members, members of another kty, non-strings and wrong sizes, naming each', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const pub = await exportJWK(pair.publicKey);
    const priv = await exportJWK(pair.privateKey);
    const rsa = await exportJWK((await generateKeyPair('RS256', { modulusLength: 2048 })).publicKey);
    const cases: Array<[unknown, string]> = [
      [priv, 'body.jwks.keys.0'], // `d`: the private half
      [{ kty: 'oct', k: 'c2VjcmV0' }, 'body.jwks.keys.0.kty'],
      [{ ...pub, extra: 'x' }, 'body.jwks.keys.0'],
      [{ ...pub, n: rsa.n }, 'body.jwks.keys.0'],
      [{ ...pub, x: { nested: true } }, 'body.jwks.keys.0.x'],
      [{ ...pub, kid: 7 }, 'body.jwks.keys.0.kid'],
      [{ ...pub, x: 'x', y: 'y' }, 'body.jwks.keys.0.x'],
      [{ ...pub, crv: 'P-384' }, 'body.jwks.keys.0.x'],
      [{ ...pub, x: `${pub.x!.slice(0, -1)}=` }, 'body.jwks.keys.0.x'],
      [{ ...rsa, n: rsa.n!.slice(0, 200) }, 'body.jwks.keys.0.n'],
      [{ ...pub, key_ops: ['verify', 'verify'] }, 'body.jwks.keys.0.key_ops'],
      [{ ...pub, x5c: ['not base64!'] }, 'body.jwks.keys.0.x5c.0'],
      [{ ...pub, x5u: 'http://certs.example/x' }, 'body.jwks.keys.0.x5u'],
    ];
    for (const [key, name] of cases) {
      const res = await create('jwk-bad', [key]);
      expect([JSON.stringify(key).slice(0, 60), res.status, invalidNames(res)]).toEqual([
        JSON.stringify(key).slice(0, 60),
        400,
        expect.arrayContaining([name]),
      ]);
    }
    expect(await h.db.models.Client.exists({ tenantId: T, clientId: 'jwk-bad' })).toBeNull();
  });
});
