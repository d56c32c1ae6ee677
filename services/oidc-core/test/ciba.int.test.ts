/**
 * Human approval (OpenID CIBA Core 1.0 with RFC 9396 authorization details), end to end in process: oidc-core's real
 * app on a loopback port, the real nhe-delegation sidecar (real JetStream, exchange-sidecar.ts), openid-client 6 as
 * the agent's backend (poll mode), raw HTTP where openid-client hides the answer (slow_down, replay), the person's
 * ledger page and its approval forms by the page's own routes, and a ping client's notification endpoint on a local
 * https server. Cost: one app, one sidecar, one NATS and one https server for the file (~10-20 s).
 */
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { hashPassword } from '@idp/tokens';
import * as oidc from 'openid-client';
import { createClient } from '@idp/testing';
import { startDocServer, testResolver, type DocServer } from './doc-server';
import { toAuditRow } from '../../audit-writer/src/writer';
import { exchangeSidecar } from './exchange-sidecar';
import {
  Browser,
  followToRedirectUri,
  PEPPER,
  redeem,
  startAuthorize,
  startPagesApp,
  type PagesApp,
} from './pages-app';
import { post } from './scopes-harness';
import { cibaSettingsOf } from '../src/provider/ciba/settings';

const ORDERS = 'https://api.orders.example';
const CIBA = 'urn:openid:params:grant-type:ciba';
const NHE_ID = 'urn:vendor:token-type:nhe-id';
const ACTION = 'urn:idp:agent-action';

const sidecar = exchangeSidecar();
let app: PagesApp;
let docs: DocServer;
let T: number;
let issuer: string;
/** A delegating application acting for its NHE (names it with actor_token). */
let agentApp: { clientId: string; clientSecret: string; numericId: number };
let pingApp: { clientId: string; clientSecret: string; numericId: number };
let rp: oidc.Configuration;
const pings: Array<{ authorization?: string; body: string }> = [];

const refund = [
  {
    type: ACTION,
    actions: ['orders.refund'],
    identifier: 'order-8841',
    amount: { value: '50.00', currency: 'EUR' },
    description: 'Refund order 8841 to the card it was paid with',
    locations: [ORDERS],
  },
];

/** The person signed in on their own device (the tenant's normal sign-in), then on their ledger page. */
async function personOnLedger(): Promise<Browser> {
  const browser = new Browser(app.baseUrl);
  const client = app.tenant.client;
  const { interaction } = await startAuthorize(app, browser, client);
  const res = await browser.go(`${interaction}/login`, {
    form: { username: app.tenant.user.username, password: app.tenant.user.password },
  });
  await followToRedirectUri(browser, res.location, client.redirectUri);
  const page = await browser.go(`/auth/${T}/account/agents`);
  if (page.status !== 200) throw new Error(`ledger answered ${page.status}: ${page.text.slice(0, 200)}`);
  return browser;
}

async function ledger(browser: Browser) {
  const res = await browser.go(`/auth/${T}/account/agents`);
  return { ...res, csrf: /name="csrf" value="([^"]+)"/.exec(res.text)?.[1] ?? '' };
}

async function pendingJson(browser: Browser) {
  const res = await fetch(`${app.baseUrl}/auth/${T}/account/agents/requests`, {
    headers: { cookie: cookieHeader(browser), accept: 'application/json' },
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      requests: Array<{
        handle: string;
        bindingMessage: string;
        details: string[];
        agent: { identifier: string } | null;
      }>;
    },
  };
}

const cookieHeader = (b: Browser) =>
  [...(b as unknown as { cookies: Map<string, string> }).cookies].map(([k, v]) => `${k}=${v}`).join('; ');

async function decideOnPage(browser: Browser, handle: string, decision: 'approve' | 'deny') {
  const { csrf } = await ledger(browser);
  return browser.go(`/auth/${T}/account/agents/requests/${handle}/${decision}`, { form: { csrf } });
}

/** A backchannel authentication request by raw HTTP (the agent application, client_secret_basic). */
function backchannel(form: Record<string, string>, client = agentApp) {
  return post(
    app,
    '/backchannel',
    {
      scope: 'openid orders:read',
      login_hint: 'alice',
      resource: ORDERS,
      actor_token: 'orders-agent',
      actor_token_type: NHE_ID,
      ...form,
    },
    client,
  ) as Promise<{ status: number; body: Record<string, unknown> & { error?: string; error_description?: string } }>;
}

const tokenPoll = (authReqId: string, client = agentApp) =>
  post(app, '/oidc/token', { grant_type: CIBA, auth_req_id: authReqId }, client);

const handleOf = (id: string) => createHash('sha256').update(`idp-ciba:${id}`).digest('base64url').slice(0, 32);

const pendingCount = () =>
  app.db.models.OidcPayload.countDocuments({
    tenantId: T,
    model: 'BackchannelAuthenticationRequest',
    accountId: app.tenant.user.id,
    expiresAt: { $gt: new Date() },
  });

beforeAll(async () => {
  docs = await startDocServer();
  docs.route('/ciba/notify', (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      pings.push({ authorization: req.headers.authorization, body });
      res.writeHead(204).end();
    });
  });
  app = await startPagesApp('ciba', {
    forwardTokenExchange: sidecar.forwarder,
    outbound: { ca: docs.ca, resolve: testResolver, timeoutMs: 2000, allowLoopback: true },
  });
  T = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${T}`;
  const m = app.db.models;
  await m.Tenant.updateOne(
    { _id: T },
    {
      $set: {
        'settings.backchannelAuthentication': {
          enabled: true,
          requestLifetimeSeconds: 120,
          maxPendingPerUser: 3,
          pollIntervalSeconds: 1,
        },
      },
    },
  );
  app.pool.evict(T);
  agentApp = await createClient(m, PEPPER, {
    tenantId: T,
    clientId: 'orders-assistant',
    name: 'Orders Assistant',
    grantTypes: [CIBA],
    delegationEnabled: true,
  });
  await m.Client.updateOne(
    { tenantId: T, clientId: 'orders-assistant' },
    { $set: { backchannelTokenDeliveryMode: 'poll', 'config.nhe.allowedNheIdentifiers': ['orders-agent'] } },
  );
  pingApp = await createClient(m, PEPPER, {
    tenantId: T,
    clientId: 'orders-pinged',
    name: 'Orders Pinged',
    grantTypes: [CIBA],
    delegationEnabled: true,
  });
  await m.Client.updateOne(
    { tenantId: T, clientId: 'orders-pinged' },
    {
      $set: {
        backchannelTokenDeliveryMode: 'ping',
        backchannelClientNotificationEndpoint: docs.url('/ciba/notify', 'localhost'),
      },
    },
  );
  rp = await oidc.discovery(
    new URL(issuer),
    agentApp.clientId,
    agentApp.clientSecret,
    oidc.ClientSecretBasic(agentApp.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
}, 60_000);

afterAll(async () => {
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
  await (docs as DocServer | undefined)?.stop();
});

afterEach(async () => {
  // Each test starts without pending requests (the per-person limit is its own test).
  await app.db.models.OidcPayload.deleteMany({ tenantId: T, model: 'BackchannelAuthenticationRequest' });
});

describe('discovery', () => {
  it('advertises the backchannel endpoint, poll and ping, no user_code, and the authorization-detail type', () => {
    const meta = rp.serverMetadata();
    expect(meta.backchannel_authentication_endpoint).toBe(`${issuer}/backchannel`);
    expect(meta.backchannel_token_delivery_modes_supported).toEqual(['poll', 'ping']);
    expect(meta.backchannel_user_code_parameter_supported).toBe(false);
    expect(meta.authorization_details_types_supported).toEqual([ACTION]);
    expect(meta.grant_types_supported).toContain(CIBA);
  });
});

describe('poll mode: the agent asks, the person approves on the ledger page, then the token is minted', () => {
  it('openid-client initiates; pending, slow_down, approval on the page; a delegation token with act, agent and authorization_details; the audit event carries the approval; the id cannot be replayed', async () => {
    const person = await personOnLedger();
    const before = sidecar.issued.length;
    const started = await oidc
      .initiateBackchannelAuthentication(rp, {
        scope: 'openid orders:read',
        login_hint: 'alice',
        binding_message: 'Refund 50 EUR? Code K7Q2',
        resource: ORDERS,
        actor_token: 'orders-agent',
        actor_token_type: NHE_ID,
        authorization_details: JSON.stringify(refund),
      })
      .catch((err: { cause?: unknown }) => {
        throw new Error(JSON.stringify(err.cause));
      });
    expect(started.expires_in).toBe(120);
    expect(started.interval).toBe(1);
    // Nothing minted yet: pending, then slow_down for a poll inside the interval (raw HTTP: openid-client waits).
    const first = await tokenPoll(started.auth_req_id);
    expect([first.status, first.body.error]).toEqual([400, 'authorization_pending']);
    const second = await tokenPoll(started.auth_req_id);
    expect([second.status, second.body.error]).toEqual([400, 'slow_down']);
    expect(sidecar.issued.length).toBe(before);

    // The person's page lists it (JSON the page's script polls, and the page itself) in plain words.
    const live = await pendingJson(person);
    expect(live.status).toBe(200);
    expect(live.body.requests).toHaveLength(1);
    const [request] = live.body.requests;
    expect(request).toMatchObject({
      handle: handleOf(started.auth_req_id),
      bindingMessage: 'Refund 50 EUR? Code K7Q2',
      agent: { identifier: 'orders-agent' },
    });
    expect(request!.details[0]).toContain('Refund order 8841 to the card it was paid with');
    expect(request!.details[0]).toContain('50.00 EUR');
    const page = await ledger(person);
    expect(page.text).toContain('Requests waiting for you');
    expect(page.text).toContain('Refund 50 EUR? Code K7Q2');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+'.*connect-src 'self'/);
    // The auth_req_id itself (the client's credential) is never on the page.
    expect(page.text).not.toContain(started.auth_req_id);

    const approved = await decideOnPage(person, request!.handle, 'approve');
    expect([approved.status, approved.location]).toEqual([303, `/auth/${T}/account/agents?request=approved`]);
    expect((await pendingJson(person)).body.requests).toHaveLength(0);

    await new Promise((r) => setTimeout(r, 1000));
    const tokens = await oidc.pollBackchannelAuthenticationGrant(rp, { ...started, interval: 0.2 });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({
      sub: app.tenant.user.id,
      aud: ORDERS,
      scope: 'orders:read',
      gty: CIBA,
      azp: agentApp.numericId,
      client_id: 'orders-assistant',
      act: { sub: 'nhe:orders-agent' },
      agent: { id: 'orders-agent', type: 'llm-assistive', operator: 'Demo Operations' },
      'org.vendor.nhe.delegation': true,
      authorization_details: refund,
    });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.authorization_details).toEqual(refund);
    expect(tokens.scope).toBe('orders:read');
    expect(tokens.id_token).toBeDefined();
    const events = sidecar.issued.slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      jti: claims.jti,
      nheIdentifier: 'orders-agent',
      clientId: 'orders-assistant',
      scopes: ['orders:read'],
      approval: {
        requestId: handleOf(started.auth_req_id),
        authorizationDetails: refund,
        bindingMessage: 'Refund 50 EUR? Code K7Q2',
        amr: ['pwd'],
      },
    });
    expect(Date.parse(events[0]!.approval!.approvedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(events[0]!.approval!.authTime).toBeDefined();

    // The audit row as the audit-writer writes it (its own mapping, the real collection): the approval is kept.
    await app.db.models.TokenAudit.create(toAuditRow(events[0]!));
    const row = await app.db.models.TokenAudit.findOne({ tenantId: T, jti: claims.jti }).lean();
    expect(row?.approval).toMatchObject({
      requestId: handleOf(started.auth_req_id),
      authorizationDetails: refund,
      bindingMessage: 'Refund 50 EUR? Code K7Q2',
      amr: ['pwd'],
    });
    expect(row?.approval?.approvedAt).toBeInstanceOf(Date);
    expect(row?.approval?.authTime).toBeInstanceOf(Date);

    // A replayed auth_req_id: the request was consumed with the first token.
    const replay = await tokenPoll(started.auth_req_id);
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_grant']);
    expect(sidecar.issued.length).toBe(before + 1);
  });
});

describe('the person denies, or does not answer', () => {
  it('denied on the page: access_denied for the agent, the denial in the decision log, no token', async () => {
    const person = await personOnLedger();
    const before = sidecar.issued.length;
    const refusedBefore = sidecar.refused.length;
    const started = await backchannel({ binding_message: 'Cancel order 12?' });
    expect(started.status).toBe(200);
    const denied = await decideOnPage(person, handleOf(String(started.body.auth_req_id)), 'deny');
    expect([denied.status, denied.location]).toEqual([303, `/auth/${T}/account/agents?request=denied`]);
    const res = await tokenPoll(String(started.body.auth_req_id));
    expect([res.status, res.body.error]).toEqual([400, 'access_denied']);
    expect(sidecar.issued.length).toBe(before);
    await new Promise((r) => setTimeout(r, 300)); // refusals are published fire-and-forget
    expect(sidecar.refused.slice(refusedBefore)).toEqual([
      expect.objectContaining({
        flow: 'ciba',
        gate: 'person-denied',
        error: 'access_denied',
        nheIdentifier: 'orders-agent',
      }),
    ]);
  });

  it('expired: expired_token once the request lifetime (requested_expiry) has passed', async () => {
    const started = await backchannel({ requested_expiry: '1' });
    expect([started.status, started.body.expires_in]).toEqual([200, 1]);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await tokenPoll(String(started.body.auth_req_id));
    expect([res.status, res.body.error]).toEqual([400, 'expired_token']);
  });
});

describe('refused before the person is asked', () => {
  it('a disabled NHE: access_denied, and nothing is pending', async () => {
    await app.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: false } });
    try {
      const res = await backchannel({});
      expect([res.status, res.body.error]).toEqual([400, 'access_denied']);
      expect(res.body.error_description).toMatch(/disabled/);
      expect(await pendingCount()).toBe(0);
    } finally {
      await app.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: true } });
    }
  });

  it('scopes beyond the delegation policy: invalid_scope, and nothing is pending', async () => {
    const res = await backchannel({ scope: 'openid orders:read orders:refund' });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_scope']);
    expect(await pendingCount()).toBe(0);
  });

  it('an NHE the client may not delegate to: access_denied', async () => {
    await app.db.models.Nhe.create({
      tenantId: T,
      identifier: 'other-agent',
      type: 'llm-assistive',
      allowedScopes: ['orders:read'],
      operator: 'Elsewhere',
      maxTokenLifetime: 300,
    });
    const res = await backchannel({ actor_token: 'other-agent' });
    expect([res.status, res.body.error]).toEqual([400, 'access_denied']);
  });

  it('the per-person limit of pending requests (no notification flooding)', async () => {
    for (let i = 0; i < 3; i++) expect((await backchannel({})).status).toBe(200);
    const fourth = await backchannel({});
    expect([fourth.status, fourth.body.error]).toEqual([400, 'access_denied']);
    expect(fourth.body.error_description).toMatch(/3 requests waiting/);
  });

  it('the per-client limit: one client cannot keep more requests waiting than the tenant allows; another client can', async () => {
    const m = app.db.models;
    await m.Tenant.updateOne({ _id: T }, { $set: { 'settings.backchannelAuthentication.maxPendingPerClient': 2 } });
    app.pool.evict(T);
    try {
      for (let i = 0; i < 2; i++) expect((await backchannel({})).status).toBe(200);
      // Alice has 2 of her 3: the client's limit is what refuses, before anything is stored or anyone is asked.
      const third = await backchannel({});
      expect([third.status, third.body.error]).toEqual([400, 'access_denied']);
      expect(third.body.error_description).toBe(
        "this client already has 2 requests waiting for people's decisions; retry after they answer or the requests expire",
      );
      expect(await pendingCount()).toBe(2);
      // Another client (a ping client, which names its notification token) still asks her.
      const other = await backchannel({ client_notification_token: 'notify-me-limit' }, pingApp);
      expect([other.status, other.body.error]).toEqual([200, undefined]);
      expect(await pendingCount()).toBe(3);
    } finally {
      await m.Tenant.updateOne({ _id: T }, { $unset: { 'settings.backchannelAuthentication.maxPendingPerClient': 1 } });
      app.pool.evict(T);
    }
  });

  it('malformed authorization details and unreadable binding messages are refused in the CIBA error format', async () => {
    const bad = await backchannel({
      authorization_details: JSON.stringify([{ type: ACTION, secret: 'x', actions: ['a'] }]),
    });
    expect([bad.status, bad.body.error]).toEqual([400, 'invalid_authorization_details']);
    expect(bad.body.error_description).toMatch(/unknown member secret/);
    const control = await backchannel({ binding_message: 'line\u0000two' });
    expect([control.status, control.body.error]).toEqual([400, 'invalid_binding_message']);
    const unknownUser = await backchannel({ login_hint: 'nobody' });
    expect([unknownUser.status, unknownUser.body.error]).toEqual([400, 'unknown_user_id']);
  });
});

describe("a delegation policy keeps a scope for the person's approval", () => {
  it('token exchange leaves orders:write out (needs-approval); a backchannel request asks the person and gets it', async () => {
    const m = app.db.models;
    await m.DelegationPolicy.updateOne({ tenantId: T }, { $set: { approvalRequiredScopes: ['orders:write'] } });
    try {
      const browser = new Browser(app.baseUrl);
      const client = app.tenant.client;
      const { interaction, verifier } = await startAuthorize(app, browser, client, {
        scope: 'openid orders:read orders:write',
        resource: ORDERS,
      });
      const login = await browser.go(`${interaction}/login`, {
        form: { username: app.tenant.user.username, password: app.tenant.user.password },
      });
      const url = await followToRedirectUri(browser, login.location, client.redirectUri);
      const subject = (await redeem(app, client, url.searchParams.get('code')!, verifier)).access_token;
      const exchange = (scope: string) =>
        post(
          app,
          '/oidc/token',
          {
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            subject_token: subject,
            subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            actor_token: 'orders-agent',
            actor_token_type: NHE_ID,
            resource: ORDERS,
            scope,
          },
          client,
        );
      const refused = await exchange('orders:write');
      expect([refused.status, refused.body.error]).toEqual([400, 'invalid_scope']);
      const narrowed = await exchange('orders:read orders:write');
      expect([narrowed.status, narrowed.body.scope]).toEqual([200, 'orders:read']);

      const person = await personOnLedger();
      const started = await backchannel({ scope: 'openid orders:write', binding_message: 'Change order 3?' });
      expect(started.status).toBe(200);
      await decideOnPage(person, handleOf(String(started.body.auth_req_id)), 'approve');
      const res = await tokenPoll(String(started.body.auth_req_id));
      expect([res.status, res.body.scope]).toEqual([200, 'orders:write']);
    } finally {
      await m.DelegationPolicy.updateOne({ tenantId: T }, { $unset: { approvalRequiredScopes: 1 } });
    }
  });
});

describe('a fresh sign-in to approve (approvalMaxAuthAgeSeconds)', () => {
  it('a sign-in older than the setting cannot approve: the page asks to sign in again and the request stays pending', async () => {
    const m = app.db.models;
    await m.Tenant.updateOne(
      { _id: T },
      { $set: { 'settings.backchannelAuthentication.approvalMaxAuthAgeSeconds': 60 } },
    );
    app.pool.evict(T);
    try {
      const person = await personOnLedger();
      // The person signed in two hours ago (the session's login time, as the provider stores it).
      for (const doc of await m.OidcPayload.find({ tenantId: T, model: 'Session' }).lean()) {
        const payload = JSON.parse(doc.payload) as { loginTs?: number };
        payload.loginTs = Math.floor(Date.now() / 1000) - 7200;
        await m.OidcPayload.updateOne({ _id: doc._id }, { $set: { payload: JSON.stringify(payload) } });
      }
      const started = await backchannel({ binding_message: 'Old sign-in?' });
      expect(started.status).toBe(200);
      const res = await decideOnPage(person, handleOf(String(started.body.auth_req_id)), 'approve');
      expect([res.status, res.location]).toEqual([303, `/auth/${T}/account/agents?request=reauthenticate`]);
      expect((await person.go(res.location!)).text).toContain('Approving needs a recent sign-in');
      expect(await pendingCount()).toBe(1);
      const poll = await tokenPoll(String(started.body.auth_req_id));
      expect(poll.body.error).toBe('authorization_pending');
      // Denying needs no fresh sign-in.
      const denied = await decideOnPage(person, handleOf(String(started.body.auth_req_id)), 'deny');
      expect(denied.location).toBe(`/auth/${T}/account/agents?request=denied`);
    } finally {
      await m.Tenant.updateOne(
        { _id: T },
        { $unset: { 'settings.backchannelAuthentication.approvalMaxAuthAgeSeconds': 1 } },
      );
      app.pool.evict(T);
    }
  });
});

describe('ping mode', () => {
  it("the client's notification endpoint gets the auth_req_id with its bearer token once the person approved", async () => {
    const person = await personOnLedger();
    const started = await backchannel({ client_notification_token: 'notify-me-7b1c' }, pingApp);
    expect(started.status).toBe(200);
    expect(pings).toHaveLength(0);
    await decideOnPage(person, handleOf(String(started.body.auth_req_id)), 'approve');
    expect(pings).toEqual([
      { authorization: 'Bearer notify-me-7b1c', body: JSON.stringify({ auth_req_id: started.body.auth_req_id }) },
    ]);
    const res = await tokenPoll(String(started.body.auth_req_id), pingApp);
    expect(res.status).toBe(200);
    expect(decodeJwt(res.body.access_token!)).toMatchObject({ gty: CIBA, act: { sub: 'nhe:orders-agent' } });
  });
});

describe('one decision and one token per request (security review)', () => {
  it('the same auth_req_id redeemed by concurrent token requests (replicas alike) yields exactly one token', async () => {
    const person = await personOnLedger();
    const before = sidecar.issued.length;
    const started = await backchannel({ binding_message: 'Race me' });
    expect(started.status).toBe(200);
    const id = String(started.body.auth_req_id);
    expect((await decideOnPage(person, handleOf(id), 'approve')).location).toMatch(/request=approved$/);
    const answers = await Promise.all(Array.from({ length: 6 }, () => tokenPoll(id)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200))
      expect([a.status, a.body.error]).toEqual([400, 'invalid_grant']);
    expect(sidecar.issued.length).toBe(before + 1);

    // Two replicas, deterministically: both read the approved request before either consumed it (the library checks
    // `consumed` on what it read, then consumes). Only the first consume may pass.
    const again = await backchannel({ binding_message: 'Race me again' });
    const id2 = String(again.body.auth_req_id);
    await decideOnPage(person, handleOf(id2), 'approve');
    const { provider } = await app.pool.get(String(T));
    const [a, b] = await Promise.all([
      provider.BackchannelAuthenticationRequest.find(id2),
      provider.BackchannelAuthenticationRequest.find(id2),
    ]);
    expect([a?.consumed, b?.consumed]).toEqual([undefined, undefined]);
    // consume() is the library's (lib/models/backchannel_authentication_request.js), absent from its type definitions.
    const consume = (r: typeof a) => (r as unknown as { consume(): Promise<void> }).consume();
    await consume(a);
    await expect(consume(b)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await tokenPoll(id2)).body.error).toBe('invalid_grant');
  });

  it('two approvals sent at once (two tabs): one decides, the other finds it gone; the id still redeems once', async () => {
    const person = await personOnLedger();
    const started = await backchannel({ binding_message: 'Twice?' });
    const id = String(started.body.auth_req_id);
    const { csrf } = await ledger(person);
    const url = `/auth/${T}/account/agents/requests/${handleOf(id)}/approve`;
    const outcomes = (await Promise.all([1, 2, 3].map(() => person.go(url, { form: { csrf } })))).map((r) =>
      String(r.location).replace(/.*request=/, ''),
    );
    expect(outcomes.sort()).toEqual(['approved', 'gone', 'gone']);
    expect((await tokenPoll(id)).status).toBe(200);
    expect((await tokenPoll(id)).body.error).toBe('invalid_grant');
  });

  it("another person of the tenant neither sees nor decides someone else's request", async () => {
    const m = app.db.models;
    const password = 'bob has another staple';
    if (!(await m.User.exists({ tenantId: T, username: 'bob' })))
      await m.User.create({ tenantId: T, username: 'bob', passwordHash: await hashPassword(password), roleIds: [] });
    const bob = new Browser(app.baseUrl);
    const { interaction } = await startAuthorize(app, bob, app.tenant.client);
    const login = await bob.go(`${interaction}/login`, { form: { username: 'bob', password } });
    await followToRedirectUri(bob, login.location, app.tenant.client.redirectUri);
    const started = await backchannel({ binding_message: 'For Alice only' });
    expect(started.status).toBe(200);
    const id = String(started.body.auth_req_id);
    expect((await pendingJson(bob)).body.requests).toEqual([]);
    expect((await ledger(bob)).text).not.toContain('For Alice only');
    // Bob's own, valid CSRF token (his page's pending section carries it even with nothing listed).
    const csrf = /data-csrf="([^"]+)"/.exec((await ledger(bob)).text)?.[1];
    expect(csrf).toBeDefined();
    for (const decision of ['approve', 'deny'] as const) {
      const res = await bob.go(`/auth/${T}/account/agents/requests/${handleOf(id)}/${decision}`, {
        form: { csrf: csrf! },
      });
      expect(res.location).toBe(`/auth/${T}/account/agents?request=gone`);
    }
    expect(await pendingCount()).toBe(1);
    expect((await tokenPoll(id)).body.error).toBe('authorization_pending');
  });

  it("a client cannot redeem another client's auth_req_id", async () => {
    const person = await personOnLedger();
    const started = await backchannel({});
    const id = String(started.body.auth_req_id);
    await decideOnPage(person, handleOf(id), 'approve');
    const stolen = await tokenPoll(id, pingApp);
    expect([stolen.status, stolen.body.error]).toEqual([400, 'invalid_grant']);
    expect((await tokenPoll(id)).status).toBe(200);
  });

  it('an approval without the CSRF token is refused and the request stays pending; the binding message is escaped', async () => {
    const person = await personOnLedger();
    const message = '<img src=x onerror=alert(1)> "quoted"';
    const started = await backchannel({ binding_message: message });
    expect(started.status).toBe(200);
    const handle = handleOf(String(started.body.auth_req_id));
    const forged = await person.go(`/auth/${T}/account/agents/requests/${handle}/approve`, { form: { csrf: 'x' } });
    expect(forged.location).toBe(`/auth/${T}/account/agents?request=refused`);
    expect(await pendingCount()).toBe(1);
    const page = await ledger(person);
    expect(page.text).not.toContain('<img src=x');
    expect(page.text).toContain('&#60;img src&#61;x onerror&#61;alert(1)&#62; &#34;quoted&#34;');
    expect((await pendingJson(person)).body.requests[0]?.bindingMessage).toBe(message);
  });

  it('a public client (no client authentication) cannot ask a person', async () => {
    const m = app.db.models;
    await createClient(m, PEPPER, {
      tenantId: T,
      clientId: 'orders-public',
      name: 'Orders Assistant',
      grantTypes: [CIBA],
      delegationEnabled: true,
      tokenEndpointAuthMethod: 'none',
    });
    await m.Client.updateOne(
      { tenantId: T, clientId: 'orders-public' },
      { $set: { backchannelTokenDeliveryMode: 'poll', 'config.nhe.allowedNheIdentifiers': ['orders-agent'] } },
    );
    const ask = async (loginHint: string) => {
      const res = await fetch(`${issuer}/backchannel`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          client_id: 'orders-public',
          scope: 'openid orders:read',
          login_hint: loginHint,
          resource: ORDERS,
          actor_token: 'orders-agent',
          actor_token_type: NHE_ID,
        }),
      });
      return [res.status, ((await res.json()) as { error?: string }).error];
    };
    expect(await ask('alice')).toEqual([400, 'unauthorized_client']);
    // Nor can it probe usernames: the same answer for a name that does not exist.
    expect(await ask('nobody-here')).toEqual([400, 'unauthorized_client']);
    expect(await pendingCount()).toBe(0);
  });
});

describe('where CIBA is off (security review)', () => {
  const setTenant = async (set: Record<string, unknown>) => {
    await app.db.models.Tenant.updateOne({ _id: T }, { $set: set });
    app.pool.evict(T);
  };

  it('setting off: discovery has no backchannel metadata and the endpoint does not exist; the system tenant never has it', async () => {
    await setTenant({ 'settings.backchannelAuthentication.enabled': false });
    try {
      const meta = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<
        string,
        unknown
      >;
      expect(Object.keys(meta).filter((k) => k.startsWith('backchannel_'))).toEqual([]);
      expect(meta.grant_types_supported).not.toContain(CIBA);
      expect(meta.authorization_details_types_supported).toBeUndefined();
      const res = await backchannel({});
      expect(res.status).toBe(404);
      expect(await pendingCount()).toBe(0);
    } finally {
      await setTenant({ 'settings.backchannelAuthentication.enabled': true });
    }
    expect(
      cibaSettingsOf({ system: true, settings: { backchannelAuthentication: { enabled: true } } } as never).enabled,
    ).toBe(false);
  });

  it('a disabled tenant refuses the request, the approval and the token', async () => {
    const person = await personOnLedger();
    const started = await backchannel({});
    expect(started.status).toBe(200);
    const id = String(started.body.auth_req_id);
    const { csrf } = await ledger(person);
    await setTenant({ enabled: false });
    try {
      const asked = await backchannel({});
      expect([asked.status, asked.body.error]).toEqual([403, 'access_denied']);
      const approve = await person.go(`/auth/${T}/account/agents/requests/${handleOf(id)}/approve`, {
        form: { csrf },
      });
      expect(approve.status).toBe(403);
      const poll = await tokenPoll(id);
      expect([poll.status, poll.body.error]).toEqual([403, 'access_denied']);
    } finally {
      await setTenant({ enabled: true });
    }
    expect((await tokenPoll(id)).body.error).toBe('authorization_pending');
  });
});

describe('a policy that needs a phishing-resistant sign-in', () => {
  it('the person is asked whatever their sign-in; the token needs them to have approved after a recent passkey sign-in', async () => {
    const m = app.db.models;
    await m.DelegationPolicy.updateOne({ tenantId: T }, { $set: { phishingResistantSignInMaxAgeMinutes: 10 } });
    try {
      // The only session of the tenant: the person's, below.
      await m.OidcPayload.deleteMany({ tenantId: T, model: 'Session' });
      const person = await personOnLedger();
      const byPassword = await backchannel({ scope: 'openid orders:read', binding_message: 'Read order 7?' });
      expect(byPassword.status).toBe(200);
      await decideOnPage(person, handleOf(String(byPassword.body.auth_req_id)), 'approve');
      const refused = await tokenPoll(String(byPassword.body.auth_req_id));
      expect([refused.status, refused.body.error]).toEqual([400, 'access_denied']);
      expect(refused.body.error_description).toContain(
        'this delegation needs a phishing-resistant sign-in (passkey) within the last 10 minutes',
      );

      // What a passkey sign-in a minute ago records on the session (passkeys.int.test.ts signs in with one for real).
      const [row] = await m.OidcPayload.find({ tenantId: T, model: 'Session' }).lean();
      const session = JSON.parse(row!.payload) as Record<string, unknown>;
      const passkey = { acr: 'phr', amr: ['hwk', 'user', 'mfa'], loginTs: Math.floor(Date.now() / 1000) - 60 };
      await m.OidcPayload.updateOne(
        { _id: row!._id },
        { $set: { payload: JSON.stringify({ ...session, ...passkey }) } },
      );
      const byPasskey = await backchannel({ scope: 'openid orders:read', binding_message: 'Read order 8?' });
      await decideOnPage(person, handleOf(String(byPasskey.body.auth_req_id)), 'approve');
      const granted = await tokenPoll(String(byPasskey.body.auth_req_id));
      expect([granted.status, granted.body.error_description]).toEqual([200, undefined]);
    } finally {
      await m.DelegationPolicy.updateOne({ tenantId: T }, { $unset: { phishingResistantSignInMaxAgeMinutes: 1 } });
    }
  });
});
