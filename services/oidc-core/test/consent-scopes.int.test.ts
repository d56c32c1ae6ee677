/**
 * The consent page must never show less than the client receives: a third-party client asks for
 * `scope=openid` and `resource=<API>`. The consent page must list every scope the access token will carry (the RBAC
 * auto-grant of requireAuthorizationScopesInRequest=false included), with the resource server's descriptions; the
 * token carries exactly what the page showed; a role gained later asks for consent again (never widens, not even at
 * refresh); narrowing clients are not asked in a loop for requested scopes the user lacks; first-party clients still
 * skip consent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createClient } from '@idp/testing';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { jwtPayload, post, refresh, type TestClient, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
let app: PagesApp;
let t: number;
let refundRoleId: string;
const DESCRIPTIONS = {
  'orders:read': 'See your orders',
  'orders:write': 'Place and change orders for you',
  'orders:refund': 'Refund your orders',
};

const GRANTS = ['authorization_code', 'refresh_token'];
let partner: TestClient;
let narrowPartner: TestClient;
let firstParty: TestClient;

beforeAll(async () => {
  app = await startPagesApp('consent-scopes');
  t = app.tenant.tenantId;
  const { models } = app.db;
  await models.ResourceServer.updateOne(
    { tenantId: t, identifier: ORDERS },
    {
      $set: { scopeDescriptions: Object.entries(DESCRIPTIONS).map(([scope, description]) => ({ scope, description })) },
    },
  );
  refundRoleId = String(
    (
      await models.Role.create({
        tenantId: t,
        name: 'orders-refunder',
        resourceServer: ORDERS,
        permissions: ['orders:refund'],
      })
    )._id,
  );
  const make = async (clientId: string, redirectUri: string, fields: { firstParty?: boolean }) => ({
    ...(await createClient(models, PEPPER, {
      tenantId: t,
      clientId,
      name: clientId,
      grantTypes: GRANTS,
      responseTypes: ['code'],
      redirectUris: [redirectUri],
      ...fields,
    })),
    redirectUri,
  });
  partner = await make('partner', 'https://partner.example/cb', { firstParty: false });
  narrowPartner = await make('narrow-partner', 'https://narrow.example/cb', { firstParty: false });
  await models.Client.updateOne(
    { tenantId: t, clientId: 'narrow-partner' },
    { $set: { 'config.featureToggles.requireAuthorizationScopesInRequest': true } },
  );
  firstParty = await make('house-app', 'https://house.example/cb', { firstParty: true });
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
});

/** alice's roles: orders-clerk (orders:read orders:write) from the seed, plus `extra`. */
async function setExtraRoles(extra: string[]): Promise<void> {
  const clerk = await app.db.models.Role.findOne({ tenantId: t, name: 'orders-clerk' }).lean();
  await app.db.models.User.updateOne(
    { tenantId: t, _id: app.tenant.user.id },
    { $set: { roleIds: [String(clerk!._id), ...extra] } },
  );
}

interface Step {
  /** The consent page (path and HTML), when one was shown. */
  consent?: { path: string; html: string };
  /** The redirect URI reached, when it was. */
  callback?: URL;
  verifier: string;
}

/**
 * Runs an authorization request in `browser` (signing alice in when asked) until the consent page or the
 * redirect URI, whichever comes first.
 */
async function authorize(
  browser: Browser,
  client: TestClient,
  o: { scope: string; resource?: string; prompt?: string },
): Promise<Step> {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope: o.scope,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: 'st',
    nonce: 'n',
    ...(o.resource ? { resource: o.resource } : {}),
    ...(o.prompt ? { prompt: o.prompt } : {}),
  });
  let location: string | undefined = `/auth/${t}/authorize?${params}`;
  for (let i = 0; i < 12 && location; i++) {
    const url: URL = new URL(location, app.baseUrl);
    if (url.toString().startsWith(client.redirectUri)) return { callback: url, verifier };
    if (/\/interaction\/[^/]+$/.test(url.pathname)) {
      const page = await browser.go(url.pathname);
      expect(page.status).toBe(200);
      if (!/name="password"/.test(page.text)) return { consent: { path: url.pathname, html: page.text }, verifier };
      location = (
        await browser.go(`${url.pathname}/login`, {
          form: { username: app.tenant.user.username, password: app.tenant.user.password },
        })
      ).location;
      continue;
    }
    location = (await browser.go(url.toString())).location;
  }
  throw new Error('the authorization request reached neither a consent page nor the redirect URI');
}

/** Allows the consent page and follows on to the redirect URI. */
async function allow(browser: Browser, client: TestClient, step: Step): Promise<Step> {
  let location = (await browser.go(`${step.consent!.path}/confirm`, { form: {} })).location;
  for (let i = 0; i < 10 && location; i++) {
    const url = new URL(location, app.baseUrl);
    if (url.toString().startsWith(client.redirectUri)) return { callback: url, verifier: step.verifier };
    if (/\/interaction\/[^/]+$/.test(url.pathname))
      return { consent: { path: url.pathname, html: (await browser.go(url.pathname)).text }, verifier: step.verifier };
    location = (await browser.go(url.toString())).location;
  }
  throw new Error('consent did not reach the redirect URI');
}

async function redeem(client: TestClient, step: Step): Promise<TokenBody> {
  const code = step.callback?.searchParams.get('code');
  expect(step.callback?.searchParams.get('error')).toBeNull();
  expect(code).toBeTruthy();
  const res = await post(
    app,
    '/oidc/token',
    { grant_type: 'authorization_code', code: code!, redirect_uri: client.redirectUri, code_verifier: step.verifier },
    client,
  );
  expect(res.body.error).toBeUndefined();
  return res.body;
}

/** The API scopes a consent page lists under the orders API, in page order ("(orders:read)" items). */
function apiScopesShown(html: string): string[] {
  const section = html.split(ORDERS)[1] ?? '';
  return [...section.matchAll(/\((orders:[a-z]+)\)/g)].map((m) => m[1]!);
}

/** The signed scope of a JWT access token, sorted. */
function signedScope(body: TokenBody): string[] {
  return String(jwtPayload(body.access_token)?.scope ?? '')
    .split(' ')
    .filter(Boolean)
    .sort();
}

async function grantOf(
  clientId: string,
): Promise<{ resources?: Record<string, string>; rejected?: { resources?: Record<string, string> } }> {
  const rows = await app.db.models.OidcPayload.find({ tenantId: t, model: 'Grant' }).lean();
  const grants = rows
    .map(
      (r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { clientId: string; iat: number },
    )
    .filter((g) => g.clientId === clientId);
  return grants.sort((a, b) => b.iat - a.iat)[0] as never;
}

describe('third-party client: scope=openid with resource (the attack)', () => {
  let browser: Browser;
  let refreshToken: string;
  let firstAccess: TokenBody;

  beforeAll(async () => {
    await setExtraRoles([]);
    browser = new Browser(app.baseUrl);
  });

  it('the consent page lists every API scope the token will carry, with the resource server descriptions', async () => {
    const step = await authorize(browser, partner, {
      scope: 'openid offline_access',
      resource: ORDERS,
      prompt: 'consent',
    });
    expect(step.consent).toBeDefined();
    const html = step.consent!.html;
    expect(html).toContain('Know who you are');
    expect(apiScopesShown(html)).toEqual(['orders:read', 'orders:write']);
    expect(html).toContain(`Orders API <span class="muted">(${ORDERS})</span>`);
    expect(html).toContain(`${DESCRIPTIONS['orders:read']} <span class="muted">(orders:read)</span>`);
    expect(html).toContain(`${DESCRIPTIONS['orders:write']} <span class="muted">(orders:write)</span>`);
    // alice does not hold orders:refund: the token will not carry it, so the page does not offer it.
    expect(html).not.toContain('orders:refund');

    const done = await allow(browser, partner, step);
    firstAccess = await redeem(partner, done);
    // Exactly what the page showed, in the token and in the grant.
    expect(signedScope(firstAccess)).toEqual(apiScopesShown(html).sort());
    expect(jwtPayload(firstAccess.access_token)?.aud).toBe(ORDERS);
    expect((await grantOf('partner')).resources?.[ORDERS]?.split(' ').sort()).toEqual(['orders:read', 'orders:write']);
    expect(firstAccess.refresh_token).toBeTruthy();
    refreshToken = firstAccess.refresh_token!;
  });

  it('a consented grant is reused silently while the token would carry nothing more', async () => {
    const again = await authorize(browser, partner, { scope: 'openid', resource: ORDERS, prompt: 'none' });
    expect(again.callback?.searchParams.get('error')).toBeNull();
    expect(signedScope(await redeem(partner, again))).toEqual(['orders:read', 'orders:write']);
  });

  it('after the user gains a role, a refresh never widens and the next authorization asks for consent again', async () => {
    await setExtraRoles([refundRoleId]);

    // Refresh: the token stays inside the grant.
    const refreshed = await refresh(app, partner, refreshToken, { resource: ORDERS });
    expect(refreshed.body.error).toBeUndefined();
    expect(signedScope(refreshed.body)).toEqual(['orders:read', 'orders:write']);

    // prompt=none cannot widen either: consent is required.
    const silent = await authorize(browser, partner, { scope: 'openid', resource: ORDERS, prompt: 'none' });
    expect(silent.callback?.searchParams.get('error')).toBe('consent_required');

    // An ordinary request shows the consent page again, now with the new scope.
    const step = await authorize(browser, partner, { scope: 'openid', resource: ORDERS });
    expect(step.consent).toBeDefined();
    expect(apiScopesShown(step.consent!.html)).toEqual(['orders:read', 'orders:refund', 'orders:write']);
    expect(step.consent!.html).toContain(DESCRIPTIONS['orders:refund']);
    const done = await allow(browser, partner, step);
    expect(signedScope(await redeem(partner, done))).toEqual(['orders:read', 'orders:refund', 'orders:write']);
  });

  it('denying the renewed consent gives the client nothing new', async () => {
    const other = await createClient(app.db.models, PEPPER, {
      tenantId: t,
      clientId: 'partner-2',
      name: 'partner-2',
      grantTypes: GRANTS,
      responseTypes: ['code'],
      redirectUris: ['https://p2.example/cb'],
      firstParty: false,
    });
    const client = { ...other, redirectUri: 'https://p2.example/cb' };
    await setExtraRoles([]);
    const step = await authorize(browser, client, { scope: 'openid', resource: ORDERS });
    expect(signedScope(await redeem(client, await allow(browser, client, step)))).toEqual([
      'orders:read',
      'orders:write',
    ]);
    await setExtraRoles([refundRoleId]);
    const renewed = await authorize(browser, client, { scope: 'openid', resource: ORDERS });
    expect(renewed.consent).toBeDefined();
    const denied = await browser.go(`${renewed.consent!.path}/abort`, { form: {} });
    let location = denied.location;
    while (location && !location.startsWith(client.redirectUri)) location = (await browser.go(location)).location;
    expect(new URL(location!).searchParams.get('error')).toBe('access_denied');
    expect((await grantOf('partner-2')).resources?.[ORDERS]?.split(' ').sort()).toEqual([
      'orders:read',
      'orders:write',
    ]);
  });
});

describe('third-party client with requireAuthorizationScopesInRequest', () => {
  it('shows only the requested scopes the user holds, does not ask again for the others, and asks once the user gains one', async () => {
    await setExtraRoles([]);
    const browser = new Browser(app.baseUrl);
    const step = await authorize(browser, narrowPartner, {
      scope: 'openid orders:read orders:refund',
      resource: ORDERS,
    });
    expect(apiScopesShown(step.consent!.html)).toEqual(['orders:read']);
    expect(signedScope(await redeem(narrowPartner, await allow(browser, narrowPartner, step)))).toEqual([
      'orders:read',
    ]);
    const grant = await grantOf('narrow-partner');
    expect(grant.resources?.[ORDERS]).toBe('orders:read');
    expect(grant.rejected?.resources?.[ORDERS]).toBe('orders:refund');

    // The withheld scope is not asked for again (no consent loop)...
    const silent = await authorize(browser, narrowPartner, {
      scope: 'openid orders:read orders:refund',
      resource: ORDERS,
      prompt: 'none',
    });
    expect(signedScope(await redeem(narrowPartner, silent))).toEqual(['orders:read']);

    // ...until alice holds it: then consent is asked, and once given the token carries it.
    await setExtraRoles([refundRoleId]);
    const none = await authorize(browser, narrowPartner, {
      scope: 'openid orders:read orders:refund',
      resource: ORDERS,
      prompt: 'none',
    });
    expect(none.callback?.searchParams.get('error')).toBe('consent_required');
    const renewed = await authorize(browser, narrowPartner, {
      scope: 'openid orders:read orders:refund',
      resource: ORDERS,
    });
    expect(apiScopesShown(renewed.consent!.html)).toEqual(['orders:read', 'orders:refund']);
    expect(signedScope(await redeem(narrowPartner, await allow(browser, narrowPartner, renewed)))).toEqual([
      'orders:read',
      'orders:refund',
    ]);
    expect((await grantOf('narrow-partner')).rejected?.resources?.[ORDERS]).toBeUndefined();
  });
});

describe('first-party client', () => {
  it('still skips consent and gets the full RBAC set, before and after a role change', async () => {
    await setExtraRoles([]);
    const browser = new Browser(app.baseUrl);
    const step = await authorize(browser, firstParty, { scope: 'openid', resource: ORDERS });
    expect(step.consent).toBeUndefined();
    expect(signedScope(await redeem(firstParty, step))).toEqual(['orders:read', 'orders:write']);
    await setExtraRoles([refundRoleId]);
    const after = await authorize(browser, firstParty, { scope: 'openid', resource: ORDERS, prompt: 'none' });
    expect(after.consent).toBeUndefined();
    expect(signedScope(await redeem(firstParty, after))).toEqual(['orders:read', 'orders:refund', 'orders:write']);
  });
});
