/**
 * Consent bounds delegation, the token exchange's share: a third-party client's user token is cut to what the user
 * consented to, and so is the delegation it can obtain with it. A delegation-enabled third-party client whose user
 * consented to orders:read only must not get orders:write in an NHE token, even though the delegation policy, the
 * user's roles and the NHE all allow it; a first-party client (no consent asked, spec) still can. Through oidc-core's
 * real pages (login and consent by form posts) and the nhe-delegation sidecar in process.
 */
import { decodeJwt } from 'jose';
import { createClient } from '@idp/testing';
import { exchangeSidecar } from './exchange-sidecar';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, post, type TestClient, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';

const sidecar = exchangeSidecar();
let app: PagesApp;
/** Third-party (firstParty false), delegation enabled, asks for exactly the resource scopes it lists. */
let partner: TestClient;
/** The same settings, first-party. */
let own: TestClient;

function ok(res: { status: number; body: TokenBody }): TokenBody {
  expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    description: undefined,
  });
  return res.body;
}

function exchange(client: TestClient, subjectToken: string, scope: string) {
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
    client,
  );
}

beforeAll(async () => {
  app = await startPagesApp('exchange-consent', { forwardTokenExchange: sidecar.forwarder });
  const { models } = app.db;
  const T = app.tenant.tenantId;
  const make = async (clientId: string, redirectUri: string, firstParty: boolean) => {
    const c = await createClient(models, PEPPER, {
      tenantId: T,
      clientId,
      name: clientId,
      grantTypes: ['authorization_code', TE],
      redirectUris: [redirectUri],
      firstParty,
      delegationEnabled: true,
    });
    await models.Client.updateOne(
      { tenantId: T, clientId },
      { $set: { 'config.featureToggles.requireAuthorizationScopesInRequest': true } },
    );
    return { ...c, redirectUri };
  };
  partner = await make('partner', 'https://partner.example/cb', false);
  own = await make('own-app', 'https://own.example/cb', true);
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

describe('third-party client: the NHE token never carries more than the user consented to', () => {
  it('consented to orders:read only: orders:write is refused (invalid_scope) though policy, roles and NHE allow it', async () => {
    // alice sees the consent page for orders:read and allows it; her token carries exactly that.
    const user = ok(
      await authCodeFlow(app, partner, { scope: 'openid orders:read', resource: ORDERS, prompt: 'consent' }),
    );
    expect(decodeJwt(user.access_token!).scope).toBe('orders:read');

    const write = await exchange(partner, user.access_token!, 'orders:write');
    expect(write).toEqual({
      status: 400,
      body: {
        error: 'invalid_scope',
        error_description: 'none of the requested scopes can be delegated',
        scope: 'orders:write',
      },
    });

    // Asking for both narrows to the consented one (the existing narrowing rule), and says so in `scope`.
    const both = ok(await exchange(partner, user.access_token!, 'orders:read orders:write'));
    expect(both.scope).toBe('orders:read');
    expect(decodeJwt(both.access_token!).scope).toBe('orders:read');
  });

  it("a token for another audience consents to nothing for this API (the tenant's UserInfo audience)", async () => {
    const user = ok(
      await authCodeFlow(app, partner, {
        scope: 'openid profile',
        resource: `${app.baseUrl}/auth/${app.tenant.tenantId}/me`,
      }),
    );
    const res = await exchange(partner, user.access_token!, 'orders:read');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_scope']);
  });
});

describe('first-party client: unchanged (spec: no consent asked)', () => {
  it('with a token for orders:read, the NHE token may carry orders:write: RBAC, the NHE and the policy decide', async () => {
    const user = ok(await authCodeFlow(app, own, { scope: 'openid orders:read', resource: ORDERS }));
    expect(decodeJwt(user.access_token!).scope).toBe('orders:read');
    const write = ok(await exchange(own, user.access_token!, 'orders:write'));
    expect(decodeJwt(write.access_token!).scope).toBe('orders:write');
  });
});
