/**
 * Phishing-resistant delegation end to end: a delegation policy that requires a phishing-resistant sign-in (acr phr or
 * phrh, OpenID EAP ACR values) within the last 10 minutes. The user's access token (RFC 9068: acr, amr, auth_time)
 * comes from oidc-core's real authorization code flow (login by form post, code + PKCE); the exchange (RFC 8693) goes
 * through oidc-core's token endpoint to the nhe-delegation sidecar in process, which refuses with access_denied and
 * records the refusal (the decision log's refusal event, acknowledged by a real JetStream).
 *
 * A password sign-in is real. Passkey sign-ins are not in this tree yet, so the phishing-resistant session is a
 * test-only one: after a real password login, the stored session (node-oidc-provider's Session in the tenant's
 * oidc_payloads) is given what a passkey login records (acr phr, amr hwk user mfa, loginTs), and the next
 * authorization request of the same browser is answered from it by oidc-core as usual.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { exchangeSidecar } from './exchange-sidecar';
import { Browser, followToRedirectUri, type PagesApp, startPagesApp } from './pages-app';
import { post, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const NEEDS = 'this delegation needs a phishing-resistant sign-in (passkey) within the last 10 minutes';

const sidecar = exchangeSidecar();
let app: PagesApp;

beforeAll(async () => {
  app = await startPagesApp('exchange-phr', { forwardTokenExchange: sidecar.forwarder });
  await app.db.models.DelegationPolicy.updateOne(
    { tenantId: app.tenant.tenantId, _id: app.tenant.policyId },
    { $set: { phishingResistantSignInMaxAgeMinutes: 10 } },
  );
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

const client = () => app.tenant.client;

/** The code of an authorization request for the orders API, answered by the browser's session or a password login. */
async function userToken(browser: Browser): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: client().clientId,
    response_type: 'code',
    redirect_uri: client().redirectUri,
    scope: 'openid orders:read',
    resource: ORDERS,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
  });
  let location = (await browser.go(`/auth/${app.tenant.tenantId}/authorize?${params}`)).location;
  const interaction = location ? new URL(location, app.baseUrl).pathname : '';
  if (/\/interaction\/[^/]+$/.test(interaction)) {
    const page = await browser.go(interaction);
    const res = /name="password"/.test(page.text)
      ? await browser.go(`${interaction}/login`, {
          form: { username: app.tenant.user.username, password: app.tenant.user.password },
        })
      : await browser.go(`${interaction}/confirm`, { form: {} });
    location = res.location;
  }
  const url = await followToRedirectUri(browser, location, client().redirectUri);
  const res = await post(
    app,
    '/oidc/token',
    {
      grant_type: 'authorization_code',
      code: url.searchParams.get('code')!,
      redirect_uri: client().redirectUri,
      code_verifier: verifier,
    },
    client(),
  );
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  return res.body.access_token!;
}

/** What a passkey login records on the session (test-only: passkey sign-in is not built yet), signed in `ago` s. */
async function passkeySession(ago: number): Promise<void> {
  const { OidcPayload } = app.db.models;
  const rows = await OidcPayload.find({ tenantId: app.tenant.tenantId, model: 'Session' }).lean();
  expect(rows).toHaveLength(1);
  const session = JSON.parse(rows[0]!.payload) as Record<string, unknown>;
  await OidcPayload.updateOne(
    { _id: rows[0]!._id },
    {
      $set: {
        payload: JSON.stringify({
          ...session,
          acr: 'phr',
          amr: ['hwk', 'user', 'mfa'],
          loginTs: Math.floor(Date.now() / 1000) - ago,
        }),
      },
    },
  );
}

function exchange(subjectToken: string): Promise<{ status: number; body: TokenBody }> {
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
      scope: 'orders:read',
    },
    client(),
  );
}

/** The refusal event of the decision log (fire-and-forget: waits for JetStream's ack of it). */
async function refusalEvent(gate: string) {
  for (let i = 0; i < 50; i++) {
    const found = sidecar.refused.find((e) => e.gate === gate);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no refusal event for gate ${gate}`);
}

describe('a policy that requires a phishing-resistant sign-in within 10 minutes', () => {
  const browser = () => new Browser(app.baseUrl);
  let passkeyBrowser: Browser;

  it('a password sign-in: the access token states acr pwd and auth_time, and the exchange is refused (access_denied)', async () => {
    passkeyBrowser = browser();
    const before = Math.floor(Date.now() / 1000);
    const token = await userToken(passkeyBrowser);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ acr: 'urn:idp:acr:pwd', amr: ['pwd'] });
    expect(claims.auth_time).toBeGreaterThanOrEqual(before - 1);
    expect(claims.auth_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));

    const res = await exchange(token);
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'access_denied',
        error_description: `${NEEDS}; the user signed in with acr urn:idp:acr:pwd: sign the user in again with a passkey`,
      },
    });
    expect(sidecar.issued).toHaveLength(0);
    expect(await refusalEvent('sign-in-not-phishing-resistant')).toMatchObject({
      type: 'nhe.token.refused',
      tenantId: app.tenant.tenantId,
      outcome: 'denied',
      error: 'access_denied',
      clientId: client().clientId,
      nheIdentifier: 'orders-agent',
    });
  });

  it('a passkey sign-in (acr phr) 2 minutes ago: the NHE token is granted', async () => {
    await passkeySession(120);
    const token = await userToken(passkeyBrowser);
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ acr: 'phr' });
    expect(Math.floor(Date.now() / 1000) - (claims.auth_time as number)).toBeGreaterThanOrEqual(119);

    const res = await exchange(token);
    expect([res.status, res.body.error, res.body.error_description]).toEqual([200, undefined, undefined]);
    expect(decodeJwt(res.body.access_token!)).toMatchObject({
      sub: app.tenant.user.id,
      scope: 'orders:read',
      act: { sub: 'nhe:orders-agent' },
    });
    expect(sidecar.issued).toHaveLength(1);
  });

  it('a passkey sign-in 11 minutes ago: too old, refused (access_denied) and recorded', async () => {
    await passkeySession(11 * 60);
    const token = await userToken(passkeyBrowser);
    expect(decodeJwt(token)).toMatchObject({ acr: 'phr' });

    const res = await exchange(token);
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'access_denied',
        error_description: `${NEEDS}; the user signed in 11 minutes ago: sign the user in again with a passkey`,
      },
    });
    expect(sidecar.issued).toHaveLength(1);
    expect(await refusalEvent('sign-in-too-old')).toMatchObject({ error: 'access_denied', outcome: 'denied' });
  });

  it('without the requirement (the default), the same password sign-in is granted as before', async () => {
    await app.db.models.DelegationPolicy.updateOne(
      { tenantId: app.tenant.tenantId, _id: app.tenant.policyId },
      { $unset: { phishingResistantSignInMaxAgeMinutes: 1 } },
    );
    const res = await exchange(await userToken(browser()));
    expect([res.status, res.body.error]).toEqual([200, undefined]);
  });
});
