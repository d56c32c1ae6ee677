/**
 * Issue 24 item 5, end to end through oidc-core (real app, login and consent by form posts) and the
 * nhe-delegation sidecar (in process, real NATS JetStream):
 * - every kind of access token (authorization code, refresh, device code, client credentials, token exchange) is
 *   an RFC 9068 JWT access token by a strict, independent check (libs/testing rfc9068.ts): `typ: at+jwt`, and
 *   iss, exp, aud, sub, client_id, iat, jti; the delegation token carries client_id beside the spec's numeric azp.
 */
import { type JSONWebKeySet } from 'jose';
import { createClient, expectRfc9068AccessToken } from '@idp/testing';
import { exchangeSidecar } from './exchange-sidecar';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, clientCredentials, deviceFlow, post, refresh, type TestClient, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const REDIRECT = 'http://127.0.0.1:8405/callback';

const sidecar = exchangeSidecar();
let app: PagesApp;
let T: number;
let issuer: string;
let jwks: JSONWebKeySet;
/** First-party confidential client registered for every grant (and client roles for client credentials). */
let tokensApp: TestClient;
let tokensAppNumericId: number;

/** One token of each kind, obtained once. */
const tokens: Record<'code' | 'refresh' | 'device' | 'client_credentials' | 'exchange', string> = {} as never;

function ok(res: { status: number; body: TokenBody }): TokenBody {
  expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({ status: 200, error: undefined, description: undefined });
  return res.body;
}

async function exchange(subjectToken: string, scope = 'orders:read') {
  return post(
    app,
    '/oidc/token',
    {
      grant_type: TE,
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-agent',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: ORDERS,
      scope,
    },
    tokensApp,
  );
}

beforeAll(async () => {
  app = await startPagesApp('accesstokens', { forwardTokenExchange: sidecar.forwarder });
  const { models } = app.db;
  T = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${T}`;
  const clerk = await models.Role.findOne({ tenantId: T, name: 'orders-clerk' }).lean();
  const roleIds = [String(clerk!._id)];
  const c = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'tokens-app',
    name: 'Tokens',
    grantTypes: ['authorization_code', 'refresh_token', DEVICE, 'client_credentials', TE],
    redirectUris: [REDIRECT],
    firstParty: true,
    delegationEnabled: true,
    roleIds,
  });
  tokensApp = { ...c, redirectUri: REDIRECT };
  tokensAppNumericId = c.numericId;
  jwks = (await (await fetch(`${issuer}/jwks`)).json()) as JSONWebKeySet;

  const code = ok(await authCodeFlow(app, tokensApp, { scope: 'openid offline_access', resource: ORDERS, prompt: 'consent' }));
  tokens.code = code.access_token!;
  const refreshed = ok(await refresh(app, tokensApp, code.refresh_token!));
  tokens.refresh = refreshed.access_token!;
  tokens.device = ok(await deviceFlow(app, tokensApp, { scope: 'openid', resource: ORDERS })).access_token!;
  tokens.client_credentials = ok(await clientCredentials(app, tokensApp, { resource: ORDERS })).access_token!;
  tokens.exchange = ok(await exchange(tokens.device)).access_token!;
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await sidecar.stop();
});

const KINDS = ['code', 'refresh', 'device', 'client_credentials', 'exchange'] as const;

describe('every kind of access token is an RFC 9068 JWT access token (strict check)', () => {
  it.each(KINDS)('%s', async (kind) => {
    const { header, payload } = await expectRfc9068AccessToken(tokens[kind], { issuer, jwks, audience: ORDERS, clientId: 'tokens-app' });
    expect(header.typ).toBe('at+jwt');
    if (kind === 'client_credentials') expect(payload.sub).toBe('tokens-app');
    else expect(payload.sub).toBe(app.tenant.user.id);
    if (kind === 'exchange') {
      // The spec's numeric azp stays; client_id is RFC 9068's string beside it.
      expect(payload.azp).toBe(tokensAppNumericId);
      expect(payload['org.vendor.nhe.delegation']).toBe(true);
    }
  });
});
