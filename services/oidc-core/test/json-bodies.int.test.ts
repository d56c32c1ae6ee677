/**
 * No request body may exhaust the stack, on the OAuth side: oidc-core takes form bodies only, so a JSON body of any
 * depth, and deep JSON hidden in a form parameter (`claims`, `authorization_details`, a request object, a DPoP proof or
 * a client assertion whose payload or header nests 5,000 levels), is an OAuth JSON error below 500 at every endpoint,
 * never a stack overflow. (Token exchange forwards its parameters, strings, to the sidecar, whose JSON body is bounded:
 * services/nhe-delegation/test/sidecar-access.int.test.ts.)
 */
import { base64url } from 'jose';
import { basicAuth } from '@idp/testing';
import { startPagesApp, type PagesApp } from './pages-app';

let app: PagesApp;
let endpoints: Record<string, string>;

beforeAll(async () => {
  app = await startPagesApp('json-bodies');
  const discovery = (await (
    await fetch(`${app.baseUrl}/auth/${app.tenant.tenantId}/.well-known/openid-configuration`)
  ).json()) as Record<string, unknown>;
  // Paths only: the test server's origin may differ from the configured public one.
  endpoints = Object.fromEntries(
    Object.entries(discovery)
      .filter(([k, v]) => k.endsWith('_endpoint') && typeof v === 'string')
      .map(([k, v]) => [k, new URL(v as string).pathname]),
  );
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
/** A JWT (with a made-up signature) whose header and payload nest `n` levels. */
const deepJwt = (typ: string, n = 5000) =>
  `${base64url.encode(`{"alg":"ES256","typ":"${typ}","jwk":{"kty":"EC","crv":"P-256","x":${deepArray(n)},"y":"y"}}`)}.${base64url.encode(`{"iat":1,"jti":"x","htm":"POST","deep":${deepArray(n)}}`)}.${base64url.encode('sig')}`;

async function post(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${app.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: basicAuth(app.tenant.client.clientId, app.tenant.client.clientSecret), ...headers },
    body,
    redirect: 'manual',
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text };
}

it('every POST endpoint answers a deep JSON body below 500', async () => {
  const names = Object.keys(endpoints);
  expect(names).toEqual(
    expect.arrayContaining(['token_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'userinfo_endpoint']),
  );
  for (const name of names) {
    for (const body of [deepArray(5000), deepObject(5000)]) {
      const res = await post(endpoints[name]!, body, { 'content-type': 'application/json' });
      expect([name, res.status < 500, res.text.slice(0, 200)]).toEqual([name, true, expect.any(String)]);
    }
  }
});

it('deep JSON inside form parameters and JWTs is refused below 500 with an OAuth error', async () => {
  const form = (p: Record<string, string>) => new URLSearchParams(p).toString();
  const formType = { 'content-type': 'application/x-www-form-urlencoded' };
  const cases: Array<[string, string, Record<string, string>]> = [
    [
      endpoints.token_endpoint!,
      form({ grant_type: 'client_credentials', authorization_details: deepArray(5000) }),
      formType,
    ],
    [endpoints.token_endpoint!, form({ grant_type: 'client_credentials', claims: deepObject(5000) }), formType],
    // A header has to fit node's 16 KB header limit (beyond it node answers 431 itself): 2,500 levels in each part.
    [
      endpoints.token_endpoint!,
      form({ grant_type: 'client_credentials' }),
      { ...formType, dpop: deepJwt('dpop+jwt', 2500) },
    ],
    [endpoints.revocation_endpoint!, form({ token: deepJwt('at+jwt') }), formType],
  ];
  if (endpoints.pushed_authorization_request_endpoint) {
    cases.push([
      endpoints.pushed_authorization_request_endpoint,
      form({
        client_id: app.tenant.client.clientId,
        response_type: 'code',
        redirect_uri: app.tenant.client.redirectUri,
        scope: 'openid',
        request: deepJwt('oauth-authz-req+jwt'),
        claims: deepObject(5000),
      }),
      formType,
    ]);
  }
  for (const [path, body, headers] of cases) {
    const res = await post(path, body, headers);
    expect([path, body.slice(0, 60), res.status < 500, res.type]).toEqual([
      path,
      body.slice(0, 60),
      true,
      expect.stringMatching(/json/),
    ]);
    expect(JSON.parse(res.text)).toEqual(expect.objectContaining({ error: expect.any(String) }));
  }
  // Introspection answers any JWT it cannot verify as RFC 7662 says: 200 { active: false }.
  const introspected = await post(endpoints.introspection_endpoint!, form({ token: deepJwt('at+jwt') }), formType);
  expect([introspected.status, introspected.type, JSON.parse(introspected.text)]).toEqual([
    200,
    expect.stringMatching(/json/),
    { active: false },
  ]);
  // A client assertion (private_key_jwt) that nests 5,000 levels.
  const res = await fetch(`${app.baseUrl}${endpoints.token_endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({
      grant_type: 'client_credentials',
      client_id: app.tenant.client.clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: deepJwt('JWT'),
    }),
  });
  expect(res.status).toBeLessThan(500);
});
