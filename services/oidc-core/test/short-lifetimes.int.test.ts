/**
 * A resource server's config.accessToken.lifetime below 60 s: ordinary access tokens get exactly
 * that lifetime, while an NHE delegation token for the same API keeps the spec's clamp to at least 60 s ("Limits":
 * "... the resource server's config.accessToken.lifetime; then clamped to at least 60 seconds"), named `minimum`.
 */
import { decodeJwt } from 'jose';
import { createClient } from '@idp/testing';
import { exchangeSidecar } from './exchange-sidecar';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, clientCredentials, post, type TestClient } from './scopes-harness';

const SHORT = 'https://api.short.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const REDIRECT = 'http://127.0.0.1:8406/callback';

const sidecar = exchangeSidecar();
let app: PagesApp;
let client: TestClient;

beforeAll(async () => {
  app = await startPagesApp('shortlife', { forwardTokenExchange: sidecar.forwarder });
  const { models } = app.db;
  const T = app.tenant.tenantId;
  await models.ResourceServer.create({
    tenantId: T,
    identifier: SHORT,
    name: 'Short',
    scopes: ['short:read'],
    config: {
      accessToken: { lifetime: 30 },
      nhe: { acceptDelegationTokens: true, requireDelegationTokens: false, allowedNheTypes: [] },
    },
  });
  const role = await models.Role.create({
    tenantId: T,
    name: 'short-reader',
    resourceServer: SHORT,
    permissions: ['short:read'],
  });
  await models.User.updateOne({ tenantId: T, _id: app.tenant.user.id }, { $push: { roleIds: String(role._id) } });
  await models.Nhe.updateOne(
    { tenantId: T, identifier: 'orders-agent' },
    { $set: { allowedScopes: ['orders:read', 'short:read'] } },
  );
  await models.DelegationPolicy.updateOne(
    { tenantId: T, _id: app.tenant.policyId },
    { $set: { allowedScopes: ['orders:read', 'short:read'] } },
  );
  client = {
    ...(await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'short-app',
      name: 'Short',
      grantTypes: ['authorization_code', 'client_credentials', TE],
      redirectUris: [REDIRECT],
      firstParty: true,
      delegationEnabled: true,
      roleIds: [String(role._id)],
    })),
    redirectUri: REDIRECT,
  };
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

const lifetime = (token: string) => {
  const { exp, iat } = decodeJwt(token);
  return exp! - iat!;
};

it('resource server lifetime 30: an ordinary token lives 30 s, an NHE token for the same API 60 s', async () => {
  const cc = await clientCredentials(app, client, { resource: SHORT });
  expect([cc.status, cc.body.expires_in, lifetime(cc.body.access_token!)]).toEqual([200, 30, 30]);

  const user = await authCodeFlow(app, client, { scope: 'openid short:read', resource: SHORT });
  expect([user.status, lifetime(user.body.access_token!)]).toEqual([200, 30]);

  const nhe = await post(
    app,
    '/oidc/token',
    {
      grant_type: TE,
      subject_token: user.body.access_token!,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-agent',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: SHORT,
      scope: 'short:read',
    },
    client,
  );
  expect({ status: nhe.status, error: nhe.body.error, description: nhe.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    description: undefined,
  });
  expect([nhe.body.expires_in, lifetime(nhe.body.access_token!)]).toEqual([60, 60]);
  expect(sidecar.issued.at(-1)).toMatchObject({ resourceServer: SHORT, ttl: 60 });
});
