/**
 * The user's delegation ledger, end to end: oidc-core (real app, the user's normal sign-in by form posts),
 * the nhe-delegation sidecar in process (token exchange), and the Shared Signals transmitter (services/signals, as
 * its main.ts starts it) with the resource-server SDK's SSF poll receiver in front of a createVerifier.
 *
 * - the page signs the user in through the tenant's login page, then shows exactly the user's agents (by a policy
 *   naming the user, a policy naming their group, a remembered consent to an agent client) and the live tokens and
 *   audit rows of that user, none of another user's;
 * - revoking one agent: its tokens for this user are refused at introspection at once and by the SDK within the
 *   poll bound (measured), the remembered consent is forgotten; another user's and another agent's tokens stay;
 * - blocking: token exchange refused with access_denied naming the layer (user-opt-out), the dry run's facts say the
 *   same; lifting the block restores it; another user is not affected;
 * - every form refuses a missing or foreign CSRF token and another Origin.
 */
import { decodeJwt } from 'jose';
import { createSsfPollReceiver, createVerifier, type SsfPollReceiver, type Verifier } from '@idp/resource-server';
import { decideDelegation, loadDelegationFacts } from '@idp/delegation';
import { REVOCATION_COLLECTION, revocationStore, type RevocationStore } from '@idp/events';
import { createClient, seedDelegationTenant } from '@idp/testing';
import { hashPassword } from '@idp/tokens';
import {
  eventually,
  PUBLIC_BASE_URL,
  startHarness as startSignals,
  type Harness as Signals,
} from '../../signals/test/harness';
import { ledgerRevoker } from '../src/account/revoke';
import { exchangeSidecar } from './exchange-sidecar';
import {
  Browser,
  PEPPER,
  followToRedirectUri,
  redeem,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';
import { post, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const BOB_PASSWORD = 'bob has his own agents';

const sidecar = exchangeSidecar();
let signals: Signals;
let app: PagesApp;
let T: number;
let store: RevocationStore;
let auditor: { clientId: string; clientSecret: string };
const ids: Record<'ordersAgent' | 'reportBot' | 'consentBot' | 'bobHelper' | 'alice' | 'bob', string> = {} as never;
/** Subject tokens (user access tokens for the orders API) and the signed-in browsers. */
const users: Record<'alice' | 'bob', { browser: Browser; access: string }> = {} as never;
/** NHE tokens: alice's of orders-agent and report-bot, bob's of orders-agent and bob-helper. */
const nhe: Record<'aliceOrders' | 'aliceReport' | 'bobOrders' | 'bobHelper', string> = {} as never;
let receiver: SsfPollReceiver;
let verifier: Verifier;

async function signInAs(username: string, password: string): Promise<{ browser: Browser; access: string }> {
  const browser = new Browser(app.baseUrl);
  const client = app.tenant.client;
  const { interaction, verifier: v } = await startAuthorize(app, browser, client, {
    scope: 'openid orders:read orders:write',
    resource: ORDERS,
  });
  const res = await browser.go(`${interaction}/login`, { form: { username, password } });
  const url = await followToRedirectUri(browser, res.location, client.redirectUri);
  return { browser, access: (await redeem(app, client, url.searchParams.get('code')!, v)).access_token };
}

const exchange = (
  subject: string,
  actor: string,
  scope = 'orders:read',
): Promise<{ status: number; body: TokenBody }> =>
  post(
    app,
    '/oidc/token',
    {
      grant_type: TE,
      subject_token: subject,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: actor,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: ORDERS,
      scope,
    },
    app.tenant.client,
  );

async function nheToken(subject: string, actor: string): Promise<string> {
  const res = await exchange(subject, actor);
  if (res.status !== 200)
    throw new Error(`exchange for ${actor}: ${res.status} ${res.body.error} ${res.body.error_description}`);
  return res.body.access_token!;
}

async function introspect(token: string): Promise<boolean> {
  const res = await fetch(`${app.baseUrl}/auth/${T}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${auditor.clientId}:${auditor.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }),
  });
  return ((await res.json()) as { active: boolean }).active;
}

const verify = (token: string) =>
  verifier.verify({ authorization: `Bearer ${token}`, method: 'GET', url: `${ORDERS}/orders` }).then(
    () => 'accepted',
    (err: { reason?: string }) => err.reason ?? String(err),
  );

/** The audit writer's rows, from the issuance events JetStream acknowledged (services/audit-writer writes the same). */
async function writeAuditRows(): Promise<void> {
  for (const e of sidecar.issued.splice(0)) {
    const { type: _type, issuedAt, actorAuth: _a, ...rest } = e as typeof e & { actorAuth?: unknown };
    await app.db.models.TokenAudit.create({ ...rest, issuedAt: new Date(issuedAt) });
  }
}

/** The ledger page of a browser, and the CSRF token of its forms. */
async function ledgerOf(browser: Browser): Promise<{ status: number; text: string; csrf: string; headers: Headers }> {
  const res = await browser.go(`/auth/${T}/account/agents`);
  return { ...res, csrf: /name="csrf" value="([^"]+)"/.exec(res.text)?.[1] ?? '' };
}

/** Follows the ledger's own redirects (sign-in with the page's client) until a page answers. */
async function openLedger(browser: Browser): Promise<{ status: number; text: string; location?: string }> {
  let res = await browser.go(`/auth/${T}/account/agents`);
  for (let i = 0; i < 8 && res.location; i++) res = await browser.go(res.location);
  return res;
}

const jtiOf = (token: string) => String(decodeJwt(token).jti);
/** The browser's cookies as a Cookie header (to send a request the jar's go() cannot: another Origin). */
const cookieHeader = (b: Browser) =>
  [...(b as unknown as { cookies: Map<string, string> }).cookies].map(([k, v]) => `${k}=${v}`).join('; ');

beforeAll(async () => {
  signals = await startSignals();
  app = await startPagesApp('ledger', {
    forwardTokenExchange: sidecar.forwarder,
    // The ledger's kill switch as main.ts wires it: persisted in the app's store, published on the NATS the
    // transmitter listens to.
    account: (db) => {
      store = revocationStore(db.connection.collection(REVOCATION_COLLECTION));
      return { revocations: store, revoke: ledgerRevoker({ nc: () => signals.publisher.nc, store }) };
    },
  });
  T = app.tenant.tenantId;
  await signals.seedTenant(T);
  const { models } = app.db;
  ids.alice = app.tenant.user.id;
  ids.ordersAgent = app.tenant.nhe.id;
  const clerk = await models.Role.findOne({ tenantId: T, name: 'orders-clerk' }).lean();
  const finance = await models.Group.create({ tenantId: T, name: 'finance' });
  await models.User.updateOne({ tenantId: T, _id: ids.alice }, { $set: { groupIds: [String(finance._id)] } });
  const bob = await models.User.create({
    tenantId: T,
    username: 'bob',
    passwordHash: await hashPassword(BOB_PASSWORD),
    roleIds: [String(clerk!._id)],
  });
  ids.bob = String(bob._id);
  const agent = (identifier: string, extra: Record<string, unknown> = {}) =>
    models.Nhe.create({
      tenantId: T,
      identifier,
      type: 'llm-assistive',
      allowedScopes: ['orders:read'],
      maxTokenLifetime: 300,
      operator: 'Ops',
      ...extra,
    });
  const reportBot = await agent('report-bot');
  const consentBot = await agent('consent-bot', { agentClients: ['agent-app'] });
  const bobHelper = await agent('bob-helper');
  ids.reportBot = String(reportBot._id);
  ids.consentBot = String(consentBot._id);
  ids.bobHelper = String(bobHelper._id);
  await models.DelegationPolicy.create([
    {
      tenantId: T,
      nheId: ids.reportBot,
      target: { type: 'group', id: String(finance._id) },
      allowedScopes: ['orders:read'],
    },
    { tenantId: T, nheId: ids.ordersAgent, target: { type: 'user', id: ids.bob }, allowedScopes: ['orders:read'] },
    { tenantId: T, nheId: ids.bobHelper, target: { type: 'user', id: ids.bob }, allowedScopes: ['orders:read'] },
  ]);
  auditor = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'auditor',
    name: 'Auditor',
    grantTypes: ['client_credentials'],
  });
  // The Orders API's introspecting client (RFC 7662 section 4): the NHE tokens were issued to demo-app.
  await models.ResourceServer.updateOne(
    { tenantId: T, identifier: ORDERS },
    { $set: { introspectionClientIds: ['auditor'] } },
  );
  await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'agent-app',
    name: 'Agent App',
    grantTypes: ['authorization_code'],
    redirectUris: ['http://127.0.0.1:8409/cb'],
  });

  users.alice = await signInAs('alice', app.tenant.user.password);
  users.bob = await signInAs('bob', BOB_PASSWORD);
  // Alice's remembered consent to the agent client of consent-bot (as the consent page records it).
  const { provider } = await app.pool.get(String(T));
  const grant = new provider.Grant({ accountId: ids.alice, clientId: 'agent-app' });
  grant.addOIDCScope('openid');
  grant.addResourceScope(ORDERS, 'orders:read');
  await grant.save();

  nhe.aliceOrders = await nheToken(users.alice.access, 'orders-agent');
  nhe.aliceReport = await nheToken(users.alice.access, 'report-bot');
  nhe.bobOrders = await nheToken(users.bob.access, 'orders-agent');
  nhe.bobHelper = await nheToken(users.bob.access, 'bob-helper');
  await writeAuditRows();

  // The transmitter's issuer for the tenant; its JWKS (oidc-core's endpoint in a deployment) from its key store.
  const ssfIssuer = `${PUBLIC_BASE_URL}/auth/${T}`;
  const ssfJwks = await signals.jwks(T);
  receiver = createSsfPollReceiver({
    issuer: ssfIssuer,
    getAccessToken: () => signals.token(T, 'orders-api'),
    fetch: async (url, init) => {
      if (url === `${ssfIssuer}/jwks`) return Response.json(ssfJwks);
      if (url === `${ssfIssuer}/.well-known/openid-configuration`)
        return Response.json({ issuer: ssfIssuer, jwks_uri: `${ssfIssuer}/jwks` });
      return fetch(url.replace(PUBLIC_BASE_URL, signals.base()), init);
    },
    intervalMs: 250,
  });
  await receiver.start();
  verifier = createVerifier({ issuer: `${app.baseUrl}/auth/${T}`, audience: ORDERS, revocations: receiver });
}, 120_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (receiver as SsfPollReceiver | undefined)?.stop();
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
  await (signals as Signals | undefined)?.close();
});

describe('the page', () => {
  it("sends a browser without a session through the tenant's sign-in, then shows exactly the user's agents, tokens and rows", async () => {
    const browser = new Browser(app.baseUrl);
    const first = await browser.go(`/auth/${T}/account/agents`);
    expect(first.status).toBe(303);
    const authorize = new URL(first.location!, app.baseUrl);
    expect([
      authorize.pathname,
      authorize.searchParams.get('client_id'),
      authorize.searchParams.get('code_challenge_method'),
    ]).toEqual([`/auth/${T}/authorize`, 'idp:account', 'S256']);
    const login = await browser.go(authorize.toString());
    const interaction = new URL(login.location!, app.baseUrl).pathname;
    expect((await browser.go(interaction)).text).toContain('Sign in');
    let res = await browser.go(`${interaction}/login`, {
      form: { username: 'alice', password: app.tenant.user.password },
    });
    for (let i = 0; i < 8 && res.location; i++) res = await browser.go(res.location);
    expect(res.status).toBe(200);
    const page = res.text;
    // Agents: by a policy naming alice, by her group's policy, by her consent to its agent client.
    for (const identifier of ['orders-agent', 'report-bot', 'consent-bot'])
      expect(page).toContain(`data-nhe="${identifier}"`);
    expect(page).toMatch(/names your group <strong>finance<\/strong>/);
    // Applications and APIs by their registered names, the identifier beside them.
    expect(page).toMatch(/You allowed its application <strong>Agent App<\/strong> \(agent-app\)/);
    // A way back to the applications she uses (the origin of the registered redirect URI), and a way out.
    expect(page).toContain('<a href="http://127.0.0.1:8409" rel="noreferrer">Agent App</a>');
    expect(page).toMatch(new RegExp(`<a href="/auth/${T}/session/end" id="sign-out">Sign out</a>`));
    // Her live tokens, none of bob's; bob's agent is not hers.
    for (const t of [nhe.aliceOrders, nhe.aliceReport]) expect(page).toContain(`data-jti="${jtiOf(t)}"`);
    for (const t of [nhe.bobOrders, nhe.bobHelper]) expect(page).not.toContain(jtiOf(t));
    expect(page).not.toContain('bob-helper');
    // Her audit rows only: two issuances.
    expect((/<ol id="audit"[^>]*>(.*?)<\/ol>/s.exec(page)?.[1] ?? '').match(/<li>/g)).toHaveLength(2);
    // The provider's page rules: CSP without inline script, no framing, no caching.
    const csp =
      res.headers.get('content-security-policy') ??
      (await browser.go(`/auth/${T}/account/agents`)).headers.get('content-security-policy');
    expect(csp).toMatch(/script-src 'sha256-/);
    expect(csp).not.toMatch(/unsafe-inline|nonce-/);
    expect(csp).toMatch(/form-action 'self'/);
    expect(page).not.toMatch(/<script/);
  });

  it('a FAPI 2.0 tenant has no built-in public client: without a session the page asks for a sign-in through an application', async () => {
    const fapi = await seedDelegationTenant(app.db.models, app.keyStore, {
      tenantId: T + 1,
      clientSecretPepper: PEPPER,
    });
    await app.db.models.Tenant.updateOne({ _id: fapi.tenantId }, { $set: { 'settings.security.profile': 'fapi2' } });
    const res = await new Browser(app.baseUrl).go(`/auth/${fapi.tenantId}/account/agents`);
    expect([res.status, res.location]).toEqual([401, undefined]);
    expect(res.text).toContain('login_required');
  });

  it("bob's page shows his agents and tokens, none of alice's", async () => {
    const page = (await openLedger(users.bob.browser)).text;
    for (const identifier of ['orders-agent', 'bob-helper']) expect(page).toContain(`data-nhe="${identifier}"`);
    for (const identifier of ['report-bot', 'consent-bot']) expect(page).not.toContain(identifier);
    expect(page).toContain(jtiOf(nhe.bobOrders));
    for (const t of [nhe.aliceOrders, nhe.aliceReport]) expect(page).not.toContain(jtiOf(t));
  });
});

describe('forms refuse requests that are not the user’s own', () => {
  it('a missing, wrong or other session’s CSRF token, and another Origin, are refused and revoke nothing', async () => {
    const alice = users.alice.browser;
    await openLedger(alice);
    const bobCsrf = (await ledgerOf(users.bob.browser)).csrf;
    const { csrf } = await ledgerOf(alice);
    expect(csrf).not.toBe('');
    expect(bobCsrf).not.toBe(csrf);
    const before = (await store.active(new Date(), T)).length;
    const action = `/auth/${T}/account/agents/${ids.ordersAgent}/revoke`;
    for (const form of [{}, { csrf: 'x'.repeat(43) }, { csrf: bobCsrf }] as Array<Record<string, string>>) {
      const res = await alice.go(action, { form });
      expect([res.status, res.text]).toEqual([403, expect.stringContaining('access_denied')]);
    }
    const foreign = await fetch(`${app.baseUrl}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        cookie: cookieHeader(alice),
      },
      body: new URLSearchParams({ csrf }),
    });
    expect(foreign.status).toBe(403);
    // Under the pages' no-referrer policy a browser sends Origin: null; Fetch Metadata still names a cross-site form.
    const crossSite = await fetch(`${app.baseUrl}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'null',
        'sec-fetch-site': 'cross-site',
        cookie: cookieHeader(alice),
      },
      body: new URLSearchParams({ csrf }),
    });
    expect(crossSite.status).toBe(403);
    // Without a session at all.
    expect((await new Browser(app.baseUrl).go(action, { form: { csrf } })).status).toBe(403);
    expect((await store.active(new Date(), T)).length).toBe(before);
    expect(await introspect(nhe.aliceOrders)).toBe(true);
  });
});

describe('revoke, block, unblock', () => {
  it("revoking an agent: its tokens for the user are refused at introspection and by the SDK within the bound; others' stay", async () => {
    for (const t of Object.values(nhe)) expect(await verify(t)).toBe('accepted');
    const { csrf } = await ledgerOf(users.alice.browser);
    const t0 = Date.now();
    const res = await users.alice.browser.go(`/auth/${T}/account/agents/${ids.ordersAgent}/revoke`, { form: { csrf } });
    expect([res.status, res.location]).toEqual([303, `/auth/${T}/account/agents?done=revoked&nhe=${ids.ordersAgent}`]);
    expect(await introspect(nhe.aliceOrders)).toBe(false);
    await eventually(async () => (await verify(nhe.aliceOrders)) === 'revoked', 10_000, 10);
    const ms = Date.now() - t0;
    console.log(`ledger revoke → SDK refusal (poll interval 250 ms): ${ms} ms`);
    expect(ms).toBeLessThan(3000);
    // Bob's token of the same agent and alice's token of another agent are untouched.
    for (const t of [nhe.bobOrders, nhe.aliceReport, nhe.bobHelper]) {
      expect(await introspect(t)).toBe(true);
      expect(await verify(t)).toBe('accepted');
    }
    const entry = (await store.active(new Date(), T)).at(-1)!;
    expect(entry).toMatchObject({ nheIdentifier: 'orders-agent', subject: ids.alice, reason: 'user.agent.revoked' });
    const page = (await users.alice.browser.go(res.location!)).text;
    expect(page).toMatch(/<p role="status" id="done">orders-agent: Its access was revoked/);
    // Listed apart from the live tokens, without a countdown.
    expect(page).toMatch(new RegExp(`data-jti="${jtiOf(nhe.aliceOrders)}" data-revoked="true">Revoked: `));
    const orders = /<section[^>]*data-nhe="orders-agent">([\s\S]*?)<\/section>/.exec(page)?.[1] ?? '';
    const live = /<ul aria-label="Tokens of orders-agent">([\s\S]*?)<\/ul>/.exec(orders)?.[1] ?? '';
    expect(live).not.toContain(jtiOf(nhe.aliceOrders));
    // Nothing left to revoke: the button is gone, the page says so.
    expect(orders).not.toContain('Revoke its access now');
    expect(orders).toContain('Nothing to revoke');
  });

  it("revoking an agent client's agent forgets the remembered consent", async () => {
    const grants = async () =>
      (await app.db.models.OidcPayload.find({ tenantId: T, model: 'Grant' }).lean()).map(
        (d) => JSON.parse(d.payload) as { clientId: string; accountId: string },
      );
    expect((await grants()).filter((g) => g.clientId === 'agent-app' && g.accountId === ids.alice)).toHaveLength(1);
    const { csrf } = await ledgerOf(users.alice.browser);
    expect(
      (await users.alice.browser.go(`/auth/${T}/account/agents/${ids.consentBot}/revoke`, { form: { csrf } })).status,
    ).toBe(303);
    expect((await grants()).filter((g) => g.clientId === 'agent-app' && g.accountId === ids.alice)).toEqual([]);
    // The ledger's own sign-in grant and bob's are kept.
    expect((await grants()).some((g) => g.clientId === 'demo-app' && g.accountId === ids.bob)).toBe(true);
    expect((await openLedger(users.alice.browser)).text).not.toContain('data-nhe="consent-bot"');
  });

  it('a form about an agent of another user revokes only the signed-in user’s tokens', async () => {
    const { csrf } = await ledgerOf(users.alice.browser);
    expect(
      (await users.alice.browser.go(`/auth/${T}/account/agents/${ids.bobHelper}/revoke`, { form: { csrf } })).status,
    ).toBe(303);
    expect(await introspect(nhe.bobHelper)).toBe(true);
    expect(
      (await users.alice.browser.go(`/auth/${T}/account/agents/${'0'.repeat(24)}/revoke`, { form: { csrf } })).status,
    ).toBe(404);
  });

  it('blocking: the exchange is refused with access_denied naming the layer, the dry run says the same; unblocking restores it', async () => {
    const { csrf } = await ledgerOf(users.alice.browser);
    expect((await exchange(users.alice.access, 'report-bot')).status).toBe(200);
    const blocked = await users.alice.browser.go(`/auth/${T}/account/agents/${ids.reportBot}/block`, {
      form: { csrf },
    });
    expect([blocked.status, blocked.location]).toEqual([
      303,
      `/auth/${T}/account/agents?done=blocked&nhe=${ids.reportBot}`,
    ]);
    // Its live tokens for alice are revoked too.
    expect(await introspect(nhe.aliceReport)).toBe(false);
    const refused = await exchange(users.alice.access, 'report-bot');
    expect([refused.status, refused.body.error]).toEqual([400, 'access_denied']);
    expect(refused.body.error_description).toContain('user-opt-out');
    // The management API's dry run decides over the same facts.
    const facts = await loadDelegationFacts(app.db.models, {
      tenantId: T,
      clientId: 'demo-app',
      userId: ids.alice,
      nheIdentifier: 'report-bot',
      resource: ORDERS,
      requestedScopes: ['orders:read'],
    });
    expect(decideDelegation(facts!)).toMatchObject({ outcome: 'denied', error: 'access_denied', gate: 'user-opt-out' });
    // Bob is not affected by alice's block of orders-agent either.
    const again = (await ledgerOf(users.alice.browser)).csrf;
    expect(
      (await users.alice.browser.go(`/auth/${T}/account/agents/${ids.ordersAgent}/block`, { form: { csrf: again } }))
        .status,
    ).toBe(303);
    expect((await exchange(users.bob.access, 'orders-agent')).status).toBe(200);
    expect((await exchange(users.alice.access, 'orders-agent')).body.error).toBe('access_denied');
    const page = (await openLedger(users.alice.browser)).text;
    expect(page).toContain('Blocked by you');
    expect(page).toContain(`/account/agents/${ids.reportBot}/unblock`);

    const unblock = await users.alice.browser.go(`/auth/${T}/account/agents/${ids.reportBot}/unblock`, {
      form: { csrf: again },
    });
    expect(unblock.status).toBe(303);
    // The kill switch counts a token issued in the same second as the revocation as revoked: the next second.
    await new Promise((r) => setTimeout(r, 1100));
    const back = await exchange(users.alice.access, 'report-bot');
    expect(back.status).toBe(200);
    // A token issued after the block was lifted is live everywhere.
    expect(await introspect(back.body.access_token!)).toBe(true);
    expect(await app.db.models.AgentOptOut.countDocuments({ tenantId: T, userId: ids.alice })).toBe(1);
  });

  it('unknown opt-out rows of others are never listed or lifted', async () => {
    await app.db.models.AgentOptOut.create({
      tenantId: T,
      userId: ids.bob,
      nheId: ids.bobHelper,
      nheIdentifier: 'bob-helper',
    });
    const { csrf } = await ledgerOf(users.alice.browser);
    expect(
      (await users.alice.browser.go(`/auth/${T}/account/agents/${ids.bobHelper}/unblock`, { form: { csrf } })).status,
    ).toBe(303);
    expect(await app.db.models.AgentOptOut.countDocuments({ tenantId: T, userId: ids.bob, nheId: ids.bobHelper })).toBe(
      1,
    );
    expect((await exchange(users.bob.access, 'bob-helper')).body.error).toBe('access_denied');
  });
});
