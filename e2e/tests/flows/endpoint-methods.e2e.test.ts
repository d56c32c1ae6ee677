/**
 * The HTTP methods the standards allow at each endpoint, through the dev router (the ingress's route table) with every service a process: an authorization
 * request sent as a form POST (OpenID Connect Core 3.1.2.1) completes the code flow with PKCE for openid-client,
 * under /auth and under the /_api alias; UserInfo takes the access token in a POST's form body (RFC 6750 section
 * 2.2) as well as in the header.
 */
import * as oidc from 'openid-client';
import { FormAgent } from '../../src/clients/form-agent';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let config: oidc.Configuration;
let issuer: string;

beforeAll(async () => {
  h = await startHarness('endpoint-methods');
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  config = await oidc.discovery(
    new URL(issuer),
    h.tenant.client.clientId,
    h.tenant.client.clientSecret,
    oidc.ClientSecretBasic(h.tenant.client.clientSecret),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

const person = () => ({ username: h.tenant.user.username, password: h.tenant.user.password });

/** openid-client's authorization request, sent by the browser as a form POST to `endpoint`. */
async function postedCodeFlow(endpoint: string, agent = new FormAgent()) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const built = oidc.buildAuthorizationUrl(config, {
    redirect_uri: h.tenant.client.redirectUri,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const posted = await agent.request(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: built.searchParams.toString(),
  });
  expect(posted.status).toBe(303);
  const end = await agent.drive(
    new URL(posted.headers.get('location')!, endpoint).toString(),
    person(),
    h.tenant.client.redirectUri,
  );
  const tokens = await oidc.authorizationCodeGrant(config, new URL(end.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
  });
  return { tokens, agent };
}

describe('authorization endpoint: form POST through the dev router', () => {
  it.each([
    ['the advertised endpoint', () => config.serverMetadata().authorization_endpoint!],
    ['the /_api alias', () => `${h.topology.baseUrl}/_api/auth/${h.tenant.tenantId}/authorize`],
  ])(
    '%s completes the code flow with PKCE (openid-client validates the ID token and state)',
    async (_name, endpoint) => {
      const { tokens } = await postedCodeFlow(endpoint());
      expect(tokens.claims()?.sub).toBeTruthy();
      expect(tokens.access_token).toBeTruthy();
    },
  );

  it('a second POST in the same browser signs in from the session (no login page)', async () => {
    const { agent } = await postedCodeFlow(config.serverMetadata().authorization_endpoint!);
    const visitedBefore = agent.visited.length;
    const { tokens } = await postedCodeFlow(config.serverMetadata().authorization_endpoint!, agent);
    expect(tokens.claims()?.sub).toBeTruthy();
    expect(agent.visited.slice(visitedBefore).some((u) => u.includes('/interaction/'))).toBe(false);
  });
});

describe('UserInfo through the dev router', () => {
  it('GET with the header (openid-client), POST with the header, POST with the token in the form body', async () => {
    const { tokens } = await postedCodeFlow(config.serverMetadata().authorization_endpoint!);
    const sub = tokens.claims()!.sub;
    expect((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);
    const userinfo = config.serverMetadata().userinfo_endpoint!;
    for (const alias of [userinfo, userinfo.replace('/auth/', '/_api/auth/')]) {
      const header = await fetch(alias, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      expect([header.status, ((await header.json()) as { sub: string }).sub]).toEqual([200, sub]);
      const body = await fetch(alias, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ access_token: tokens.access_token }),
      });
      expect([body.status, ((await body.json()) as { sub: string }).sub]).toEqual([200, sub]);
    }
  });
});
