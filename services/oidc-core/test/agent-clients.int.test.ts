/**
 * Agent clients: a client that an NHE registration names in agentClients gets, from the
 * authorization-code and device flows, an NHE delegation token decided, minted and audited by the real
 * nhe-delegation sidecar (in process, real JetStream): exactly the spec's claims, gty naming the flow, no refresh
 * token, an audit event per issuance and no token without its ack; offline_access refused at authorization; NHE or
 * tenant delegation off: no token; a client linked to no NHE: an ordinary token; prompt=none against the remembered
 * consent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { createClient } from '@idp/testing';
import { exchangeSidecar } from './exchange-sidecar';
import { Browser, PEPPER, startPagesApp, type PagesApp } from './pages-app';
import { authCodeFlow, deviceFlow, post, type TestClient, type TokenBody } from './scopes-harness';

const ORDERS = 'https://api.orders.example';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

const sidecar = exchangeSidecar();
let app: PagesApp;
let T: number;
/** Linked to orders-agent through agentClients; third party; its record has no delegation settings. */
let agent: TestClient & { numericId: number };
/** The same client settings, linked to no NHE. */
let plain: TestClient;

function ok(res: { status: number; body: TokenBody }): TokenBody {
  expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    description: undefined,
  });
  return res.body;
}

/** Forgets every remembered consent of a client (its grants), as the user's agents page does on revocation. */
async function forgetConsents(clientId: string): Promise<number> {
  const grants = await app.db.models.OidcPayload.find({ tenantId: T, model: 'Grant' }, { payload: 1 }).lean();
  const ids = grants
    .filter((g) => (JSON.parse(g.payload) as { clientId?: string }).clientId === clientId)
    .map((g) => g._id);
  if (ids.length) await app.db.models.OidcPayload.deleteMany({ tenantId: T, model: 'Grant', _id: { $in: ids } });
  return ids.length;
}

beforeAll(async () => {
  app = await startPagesApp('agent-clients', { forwardTokenExchange: sidecar.forwarder });
  const { models } = app.db;
  T = app.tenant.tenantId;
  const make = async (clientId: string, redirectUri: string) => {
    const c = await createClient(models, PEPPER, {
      tenantId: T,
      clientId,
      name: clientId,
      grantTypes: ['authorization_code', DEVICE],
      redirectUris: [redirectUri],
      firstParty: false,
    });
    await models.Client.updateOne(
      { tenantId: T, clientId },
      { $set: { 'config.featureToggles.requireAuthorizationScopesInRequest': true } },
    );
    return { ...c, redirectUri };
  };
  agent = await make('mcp-agent', 'https://agent.example/cb');
  plain = await make('mcp-plain', 'https://plain.example/cb');
  await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { agentClients: ['mcp-agent'] } });
}, 60_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

const SPEC_CLAIMS = [
  'iss',
  'sub',
  'aud',
  'iat',
  'exp',
  'jti',
  'scope',
  'gty',
  'azp',
  'client_id',
  'org.vendor.tenant.name',
  'org.vendor.tenant.id',
  'act',
  'agent',
  'org.vendor.nhe.delegation',
].sort();

describe('an agent client gets NHE delegation tokens', () => {
  it("authorization code: exactly the spec's claims, gty authorization_code, no refresh token, one audit event", async () => {
    const before = sidecar.issued.length;
    const body = ok(await authCodeFlow(app, agent, { scope: 'openid orders:read orders:write', resource: ORDERS }));
    expect(body.refresh_token).toBeUndefined();
    expect(body.token_type).toBe('Bearer');
    const claims = decodeJwt(body.access_token!);
    expect(decodeProtectedHeader(body.access_token!)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(Object.keys(claims).sort()).toEqual(SPEC_CLAIMS);
    expect(claims).toMatchObject({
      iss: `${app.baseUrl}/auth/${T}`,
      sub: app.tenant.user.id,
      aud: ORDERS,
      scope: 'orders:read orders:write',
      gty: 'authorization_code',
      azp: agent.numericId,
      client_id: 'mcp-agent',
      'org.vendor.tenant.id': T,
      act: { sub: 'nhe:orders-agent' },
      agent: {
        id: 'orders-agent',
        type: 'llm-assistive',
        operator: 'Demo Operations',
        model: { name: 'demo-model', provider: 'example' },
      },
      'org.vendor.nhe.delegation': true,
    });
    // The NHE's maxTokenLifetime (300) is the smallest term.
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(body.expires_in).toBe(300);
    expect(body.scope!.split(' ').sort()).toEqual(['orders:read', 'orders:write']);
    expect(body.id_token).toBeDefined();
    expect(sidecar.issued.slice(before)).toEqual([
      expect.objectContaining({
        jti: claims.jti,
        tenantId: T,
        userId: app.tenant.user.id,
        nheIdentifier: 'orders-agent',
        clientId: 'mcp-agent',
        resourceServer: ORDERS,
        scopes: ['orders:read', 'orders:write'],
        ttl: 300,
      }),
    ]);
  });

  it("introspection: the agent client's token is active (the NHE's link is its client gate), and inactive once the link is gone", async () => {
    const { models } = app.db;
    const auditor = await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'orders-introspector',
      name: 'Orders introspector',
      grantTypes: ['client_credentials'],
    });
    await models.ResourceServer.updateOne(
      { tenantId: T, identifier: ORDERS },
      { $addToSet: { introspectionClientIds: 'orders-introspector' } },
    );
    const token = ok(await authCodeFlow(app, agent, { scope: 'openid orders:read', resource: ORDERS })).access_token!;
    const introspect = async () => {
      const res = await fetch(`${app.baseUrl}/auth/${T}/token/introspection`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${auditor.clientId}:${auditor.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token }),
      });
      return (await res.json()) as Record<string, unknown>;
    };
    // The client's own record has delegation off: the agent link alone lets its tokens live.
    expect(await introspect()).toMatchObject({
      active: true,
      client_id: 'mcp-agent',
      act: { sub: 'nhe:orders-agent' },
    });
    await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { agentClients: [] } });
    try {
      expect(await introspect()).toEqual({ active: false });
    } finally {
      await models.Nhe.updateOne(
        { tenantId: T, identifier: 'orders-agent' },
        { $set: { agentClients: ['mcp-agent'] } },
      );
    }
  });

  it('the decision narrows as token exchange does: a scope the user does not hold is removed (orders:refund)', async () => {
    await app.db.models.DelegationPolicy.updateOne(
      { tenantId: T, nheId: app.tenant.nhe.id },
      { $set: { allowedScopes: ['orders:read', 'orders:write', 'orders:refund'] } },
    );
    try {
      const body = ok(await authCodeFlow(app, agent, { scope: 'openid orders:read orders:refund', resource: ORDERS }));
      expect(decodeJwt(body.access_token!).scope).toBe('orders:read');
    } finally {
      await app.db.models.DelegationPolicy.updateOne(
        { tenantId: T, nheId: app.tenant.nhe.id },
        { $set: { allowedScopes: ['orders:read', 'orders:write'] } },
      );
    }
  });

  it('device flow: gty names the device code grant', async () => {
    const body = ok(await deviceFlow(app, agent, { scope: 'openid orders:read', resource: ORDERS }));
    const claims = decodeJwt(body.access_token!);
    expect(claims).toMatchObject({
      gty: DEVICE,
      act: { sub: 'nhe:orders-agent' },
      'org.vendor.nhe.delegation': true,
      scope: 'orders:read',
    });
    expect(body.refresh_token).toBeUndefined();
  });

  it('offline_access is refused at authorization (invalid_scope, said plainly), no code issued', async () => {
    const res = await authCodeFlow(app, agent, { scope: 'openid offline_access orders:read', resource: ORDERS });
    expect(res.status).toBe(302);
    expect(res.body.error).toBe('invalid_scope');
    expect(res.body.error_description).toMatch(/agent orders-agent.*without refresh.*offline_access/);
    const device = await post(
      app,
      '/device/auth',
      { client_id: agent.clientId, scope: 'openid offline_access orders:read', resource: ORDERS },
      agent,
    );
    expect(device.status).toBe(400);
    expect(device.body.error).toBe('invalid_scope');
  });

  it('no token without the JetStream ack: 503 temporarily_unavailable, nothing issued', async () => {
    const before = sidecar.issued.length;
    sidecar.failPublish = true;
    try {
      const res = await authCodeFlow(app, agent, { scope: 'openid orders:read', resource: ORDERS });
      expect(res.status).toBe(503);
      expect(res.body.error).toBe('temporarily_unavailable');
      expect(res.body.access_token).toBeUndefined();
      expect(res.body.id_token).toBeUndefined();
    } finally {
      sidecar.failPublish = false;
    }
    expect(sidecar.issued.length).toBe(before);
  });

  it('the NHE disabled: no token (invalid_grant), and nothing audited', async () => {
    const before = sidecar.issued.length;
    await app.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: false } });
    try {
      const res = await authCodeFlow(app, agent, { scope: 'openid orders:read', resource: ORDERS });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'the NHE is disabled' });
    } finally {
      await app.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: true } });
    }
    expect(sidecar.issued.length).toBe(before);
  });

  it("the tenant's NHE delegation off: no token at all (access_denied), not an ordinary one", async () => {
    await app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': false } });
    try {
      const res = await authCodeFlow(app, agent, { scope: 'openid orders:read', resource: ORDERS });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'access_denied',
        error_description: 'NHE delegation is disabled for this tenant',
      });
    } finally {
      await app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': true } });
    }
  });

  it('a client linked to no NHE gets an ordinary token (no delegation claims), and may ask for offline_access', async () => {
    const body = ok(await authCodeFlow(app, plain, { scope: 'openid orders:read', resource: ORDERS }));
    const claims = decodeJwt(body.access_token!);
    expect(claims.act).toBeUndefined();
    expect(claims.agent).toBeUndefined();
    expect(claims['org.vendor.nhe.delegation']).toBeUndefined();
    expect(claims.scope).toBe('orders:read');
    const offline = await authCodeFlow(app, plain, { scope: 'openid offline_access orders:read', resource: ORDERS });
    expect(offline.body.error).toBeUndefined();
  });

  it('prompt=none works against the remembered consent (same user, agent and scope set): a new delegation token without interaction', async () => {
    await forgetConsents(agent.clientId);
    const browser = new Browser(app.baseUrl);
    const authorize = async (extra: Record<string, string>) => {
      const verifier = randomBytes(32).toString('base64url');
      const params = new URLSearchParams({
        client_id: agent.clientId,
        response_type: 'code',
        redirect_uri: agent.redirectUri,
        scope: 'openid orders:read',
        resource: ORDERS,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        ...extra,
      });
      let res = await browser.go(`/auth/${T}/authorize?${params}`);
      for (let i = 0; i < 10 && res.location && !res.location.startsWith(agent.redirectUri); i++) {
        const url = new URL(res.location, app.baseUrl);
        if (/\/interaction\/[^/]+$/.test(url.pathname)) {
          const page = await browser.go(url.pathname);
          res = /name="password"/.test(page.text)
            ? await browser.go(`${url.pathname}/login`, {
                form: { username: app.tenant.user.username, password: app.tenant.user.password },
              })
            : await browser.go(`${url.pathname}/confirm`, { form: {} });
        } else res = await browser.go(url.toString());
      }
      const url = new URL(res.location!);
      return { url, verifier };
    };
    // Without a session and consent, prompt=none fails.
    expect((await authorize({ prompt: 'none' })).url.searchParams.get('error')).toBe('login_required');
    const first = await authorize({});
    expect(first.url.searchParams.get('code')).toBeTruthy();
    const again = await authorize({ prompt: 'none' });
    const code = again.url.searchParams.get('code');
    expect(again.url.searchParams.get('error')).toBeNull();
    const body = ok(
      await post(
        app,
        '/oidc/token',
        {
          grant_type: 'authorization_code',
          code: code!,
          redirect_uri: agent.redirectUri,
          code_verifier: again.verifier,
        },
        agent,
      ),
    );
    expect(decodeJwt(body.access_token!)).toMatchObject({
      act: { sub: 'nhe:orders-agent' },
      scope: 'orders:read',
      gty: 'authorization_code',
    });
    // A wider scope set than the remembered one needs the user again.
    const wider = await (async () => {
      const verifier = randomBytes(32).toString('base64url');
      const params = new URLSearchParams({
        client_id: agent.clientId,
        response_type: 'code',
        redirect_uri: agent.redirectUri,
        scope: 'openid orders:read orders:write',
        resource: ORDERS,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        prompt: 'none',
      });
      const res = await browser.go(`/auth/${T}/authorize?${params}`);
      return new URL((await followAll(browser, res.location))!);
    })();
    expect(wider.searchParams.get('error')).toBe('consent_required');
  });
});

describe("an agent client's consent is remembered per user beyond the browser session", () => {
  /** One authorization in `browser`: signs in when asked, answers consent when asked; what was shown and the redirect. */
  async function run(
    browser: Browser,
    client: TestClient & { redirectUri: string },
    scope: string,
    extra: Record<string, string> = {},
  ) {
    const params = new URLSearchParams({
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: client.redirectUri,
      scope,
      resource: ORDERS,
      code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    });
    let res = await browser.go(`/auth/${T}/authorize?${params}`);
    let consentShown = false;
    for (let i = 0; i < 10 && res.location && !res.location.startsWith(client.redirectUri); i++) {
      const url = new URL(res.location, app.baseUrl);
      if (/\/interaction\/[^/]+$/.test(url.pathname)) {
        const page = await browser.go(url.pathname);
        if (/name="password"/.test(page.text))
          res = await browser.go(`${url.pathname}/login`, {
            form: { username: app.tenant.user.username, password: app.tenant.user.password },
          });
        else {
          consentShown = true;
          res = await browser.go(`${url.pathname}/confirm`, { form: {} });
        }
      } else res = await browser.go(url.toString());
    }
    return { consentShown, redirect: new URL(res.location!) };
  }

  it('a new session of the same user: no consent page for the same scope set; prompt=none then renews; a wider set asks again', async () => {
    await forgetConsents(agent.clientId);
    const scope = 'openid orders:write';
    const first = await run(new Browser(app.baseUrl), agent, scope);
    expect(first.redirect.searchParams.get('code')).toBeTruthy();
    const second = new Browser(app.baseUrl);
    const again = await run(second, agent, scope);
    expect({ consentShown: again.consentShown, code: !!again.redirect.searchParams.get('code') }).toEqual({
      consentShown: false,
      code: true,
    });
    const silent = await run(second, agent, scope, { prompt: 'none' });
    expect(silent.redirect.searchParams.get('error')).toBeNull();
    expect(silent.redirect.searchParams.get('code')).toBeTruthy();
    const wider = await run(new Browser(app.baseUrl), agent, 'openid orders:write orders:read');
    expect(wider.consentShown).toBe(true);
  });

  it('an ordinary third-party client keeps per-session consent (unchanged)', async () => {
    const scope = 'openid orders:write';
    expect((await run(new Browser(app.baseUrl), plain, scope)).consentShown).toBe(true);
    expect((await run(new Browser(app.baseUrl), plain, scope)).consentShown).toBe(true);
  });

  it('forgotten (the grant deleted, as revocation on the agents page does): the consent page again', async () => {
    const scope = 'openid orders:read orders:write';
    await run(new Browser(app.baseUrl), agent, scope);
    expect((await run(new Browser(app.baseUrl), agent, scope)).consentShown).toBe(false);
    expect(await forgetConsents(agent.clientId)).toBeGreaterThanOrEqual(1);
    expect((await run(new Browser(app.baseUrl), agent, scope)).consentShown).toBe(true);
  });
});

/** Signs the user in through a fresh browser and returns the consent page (its HTML and CSP). */
async function consentPage(
  client: TestClient & { redirectUri: string },
  scope: string,
): Promise<{ status: number; html: string; csp: string }> {
  const browser = new Browser(app.baseUrl);
  const params = new URLSearchParams({
    client_id: client.clientId,
    response_type: 'code',
    redirect_uri: client.redirectUri,
    scope,
    resource: ORDERS,
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  });
  let res = await browser.go(`/auth/${T}/authorize?${params}`);
  for (let i = 0; i < 10 && res.location; i++) {
    const url = new URL(res.location, app.baseUrl);
    if (url.href.startsWith(client.redirectUri)) throw new Error(`no consent page: ${url.href}`);
    if (/\/interaction\/[^/]+$/.test(url.pathname)) {
      const page = await browser.go(url.pathname);
      if (!/name="password"/.test(page.text))
        return { status: page.status, html: page.text, csp: page.headers.get('content-security-policy') ?? '' };
      res = await browser.go(`${url.pathname}/login`, {
        form: { username: app.tenant.user.username, password: app.tenant.user.password },
      });
    } else res = await browser.go(url.toString());
  }
  throw new Error('no consent page');
}

describe("an agent client's consent page says what will happen", () => {
  // Consents of agent clients outlive the session: forget them so that each test sees the page.
  beforeEach(async () => {
    await forgetConsents(agent.clientId);
  });

  it("the agent's name, type and operator, the scopes after the decision, the lifetime in minutes, no refresh, revocation", async () => {
    // orders:refund is allowed by the NHE and its policy but the user does not hold it: left out, as the token would.
    await app.db.models.DelegationPolicy.updateOne(
      { tenantId: T, nheId: app.tenant.nhe.id },
      { $set: { allowedScopes: ['orders:read', 'orders:write', 'orders:refund'] } },
    );
    try {
      const { status, html, csp } = await consentPage(agent, 'openid orders:read orders:refund');
      expect(status).toBe(200);
      expect(html).toContain('<h1>Allow the agent mcp-agent to act for you?</h1>');
      expect(html).toContain(
        'the automated agent <strong>orders-agent</strong>, of type <strong>llm-assistive</strong>',
      );
      expect(html).toContain('operated by <strong>Demo Operations</strong>');
      const api = html.slice(html.indexOf('On your behalf'), html.indexOf('agent-no-refresh'));
      expect(api).toMatch(/\(orders:read\)|<li>orders:read<\/li>/);
      expect(api).toContain('<li>orders:refund <span class="muted">(you do not hold this permission)</span></li>');
      // The NHE's maxTokenLifetime (300 s) is the smallest term, as in the token.
      expect(html).toContain('Each access lasts at most <strong>5 minutes</strong>.');
      expect(html).toContain('<strong>No refresh:</strong> the agent must ask again after its access expires.');
      // Where the user ends it themselves: their agents page (their delegation ledger).
      expect(html).toContain(
        `<strong>You can end this at any time:</strong> on <a href="/auth/${T}/account/agents">your agents page</a>`,
      );
      expect(html).toContain('>Allow</button>');
      expect(html).not.toMatch(/<script|style=/);
      expect(csp).toContain("script-src 'sha256-");
    } finally {
      await app.db.models.DelegationPolicy.updateOne(
        { tenantId: T, nheId: app.tenant.nhe.id },
        { $set: { allowedScopes: ['orders:read', 'orders:write'] } },
      );
    }
  });

  it('a decision that would deny: the reason, and no Allow', async () => {
    await app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': false } });
    try {
      const { html } = await consentPage(agent, 'openid orders:read');
      expect(html).toContain('<h1>mcp-agent cannot act for you</h1>');
      expect(html).toContain('The agent cannot act for you on this API: NHE delegation is disabled for this tenant.');
      expect(html).not.toContain('>Allow</button>');
    } finally {
      await app.db.models.Tenant.updateOne({ _id: T }, { $set: { 'settings.nhe.enabled': true } });
    }
  });

  it("an ordinary third-party client's page has none of it", async () => {
    const { html } = await consentPage(plain, 'openid orders:read');
    expect(html).toContain('<h1>Allow mcp-plain to access your account?</h1>');
    expect(html).not.toMatch(/orders-agent|llm-assistive|Demo Operations|No refresh|revoked|lasts at most/);
  });
});

async function followAll(browser: Browser, location: string | undefined): Promise<string | undefined> {
  for (let i = 0; i < 10 && location && !location.startsWith('https://agent.example/cb'); i++)
    location = (await browser.go(new URL(location, browser.baseUrl).toString())).location;
  return location;
}

describe('an agent client under a phishing-resistant sign-in requirement', () => {
  const requirement = (minutes: number | undefined) =>
    app.db.models.DelegationPolicy.updateOne(
      { tenantId: T, nheId: app.tenant.nhe.id },
      minutes === undefined
        ? { $unset: { phishingResistantSignInMaxAgeMinutes: 1 } }
        : { $set: { phishingResistantSignInMaxAgeMinutes: minutes } },
    );
  beforeAll(async () => {
    await requirement(10);
    await forgetConsents(agent.clientId);
    // Every earlier browser's session gone: the one signed in below is the only one.
    await app.db.models.OidcPayload.deleteMany({ tenantId: T, model: 'Session' });
  });
  afterAll(() => requirement(undefined));

  it('a password session is told on the consent page; once the sign-in is a recent passkey one, the consent page and the token endpoint both pass it on', async () => {
    const browser = new Browser(app.baseUrl);
    const verifier = randomBytes(32).toString('base64url');
    const authorize = `/auth/${T}/authorize?${new URLSearchParams({
      client_id: agent.clientId,
      response_type: 'code',
      redirect_uri: agent.redirectUri,
      scope: 'openid orders:read',
      resource: ORDERS,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;
    /** Follows redirects to the next interaction page (the consent page once signed in). */
    const nextInteraction = async (location: string | undefined): Promise<string> => {
      for (let i = 0; i < 10 && location; i++) {
        const url = new URL(location, app.baseUrl);
        if (/\/interaction\/[^/]+$/.test(url.pathname)) return url.pathname;
        location = (await browser.go(url.toString())).location;
      }
      throw new Error('no interaction page');
    };
    const interactionOf = async (): Promise<string> => nextInteraction((await browser.go(authorize)).location);
    const login = await interactionOf();
    await browser.go(login);
    const interaction1 = await nextInteraction(
      (
        await browser.go(`${login}/login`, {
          form: { username: app.tenant.user.username, password: app.tenant.user.password },
        })
      ).location,
    );
    const refused = await browser.go(interaction1);
    expect(refused.text).toContain(
      'this delegation needs a phishing-resistant sign-in (passkey) within the last 10 minutes; the user signed in with acr urn:idp:acr:pwd',
    );
    expect(refused.text).not.toContain('>Allow</button>');

    // What a passkey sign-in a minute ago records on the session (passkeys.int.test.ts signs in with one for real).
    const [row] = await app.db.models.OidcPayload.find({ tenantId: T, model: 'Session' }).lean();
    const session = JSON.parse(row!.payload) as Record<string, unknown>;
    await app.db.models.OidcPayload.updateOne(
      { _id: row!._id },
      {
        $set: {
          payload: JSON.stringify({
            ...session,
            acr: 'phr',
            amr: ['hwk', 'user', 'mfa'],
            loginTs: Math.floor(Date.now() / 1000) - 60,
          }),
        },
      },
    );
    const interaction = await interactionOf();
    const page = await browser.go(interaction);
    expect(page.text).toContain('>Allow</button>');
    const allowed = await browser.go(`${interaction}/confirm`, { form: {} });
    const location = await followAll(browser, allowed.location);
    const code = new URL(location!).searchParams.get('code')!;
    const body = ok(
      await post(
        app,
        '/oidc/token',
        { grant_type: 'authorization_code', code, redirect_uri: agent.redirectUri, code_verifier: verifier },
        agent,
      ),
    );
    expect(decodeJwt(body.access_token!)).toMatchObject({ act: { sub: 'nhe:orders-agent' }, scope: 'orders:read' });
  });
});
