/**
 * Upstream OpenID Connect sign-in with a real Keycloak, in real Chromium: the first sign-in creates the account with
 * the mapped claims (UserInfo: external_groups, provider_claims, identity_provider, linked_identity,
 * federated_identities, amr), a later sign-in after the upstream group changed removes the group, home-realm
 * discovery by email domain, linking to an existing account by its password, no takeover through an unverified
 * email, an answer delivered at another provider's redirect URI (mix-up) or with another request's nonce is refused,
 * a disabled provider or user stops sign-in, and a brokered user's delegation (token exchange) works as a local one's.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { basicAuth, clientCredentialsToken } from '../../src/clients/browserless-login';
import { launchChromium, startApplicationStub } from '../../src/clients/browser';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startAll } from '../../src/start-all';
import { KEYCLOAK_CLIENTS, keycloak, signInAtKeycloak, type Keycloak } from '../../src/upstream/keycloak';

jest.setTimeout(240_000);

let h: Harness;
let kc: Keycloak;
let browser: Browser;
let rp: oidc.Configuration;
let admin: string;
let issuer: string;
let app: Awaited<ReturnType<typeof startApplicationStub>>;
let REDIRECT = '';

const SCOPES =
  'openid profile email external_groups groups identity_provider linked_identity provider_claims federated_identities amr';

const manage = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId: h.tenant.tenantId, token: admin }, method, path, body);

const corpProvider = (overrides: Record<string, unknown> = {}) => ({
  alias: 'corp',
  type: 'oidc',
  displayName: 'Corp SSO',
  oidc: {
    issuer: kc.issuer('corp'),
    clientId: KEYCLOAK_CLIENTS.corp.clientId,
    clientSecret: KEYCLOAK_CLIENTS.corp.clientSecret,
  },
  emailDomains: ['corp.example'],
  mappers: [
    { source: 'groups', target: 'externalGroups' },
    { source: 'groups', target: 'groups', values: [{ upstream: 'engineering', local: 'engineers' }] },
    { source: 'email', target: 'claim', claim: 'email' },
    { source: 'name', target: 'claim', claim: 'name' },
    { source: 'preferred_username', target: 'username' },
    { source: 'email_verified', target: 'providerClaims' },
  ],
  amrMap: [{ upstream: 'pwd', amr: ['pwd'] }],
  acrMap: [{ upstream: '1', acr: 'urn:idp:acr:pwd' }],
  ...overrides,
});

beforeAll(async () => {
  await startAll([
    startHarness('upstream-oidc', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } }).then((v) => (h = v)),
    keycloak().then((v) => (kc = v)),
    launchChromium().then((v) => (browser = v)),
    startApplicationStub().then((v) => (app = v)),
  ]);
  REDIRECT = `${app.origin}/callback`;
  await h.db.models.Client.updateOne(
    { tenantId: h.tenant.tenantId, clientId: h.tenant.client.clientId },
    { $set: { redirectUris: [REDIRECT], postLogoutRedirectUris: [`${app.origin}/logged-out`] } },
  );
  issuer = `${h.topology.baseUrl}/auth/${h.tenant.tenantId}`;
  admin = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.tenant.tenantId,
      h.tenant.admin.clientId,
      h.tenant.admin.clientSecret,
      'urn:idp:management',
    )
  ).access_token;
  rp = await oidc.discovery(
    new URL(issuer),
    h.tenant.client.clientId,
    h.tenant.client.clientSecret,
    oidc.ClientSecretBasic(h.tenant.client.clientSecret),
    { execute: [oidc.allowInsecureRequests] },
  );
  expect((await manage('POST', '/groups', { name: 'engineers' })).status).toBe(201);
  const created = await manage('POST', '/upstream-providers', corpProvider());
  expect(created.status).toBe(201);
  const other = await manage('POST', '/upstream-providers', {
    alias: 'other',
    type: 'oidc',
    displayName: 'Other Org',
    oidc: {
      issuer: kc.issuer('other'),
      clientId: KEYCLOAK_CLIENTS.other.clientId,
      clientSecret: KEYCLOAK_CLIENTS.other.clientSecret,
    },
  });
  expect(other.status).toBe(201);
}, 240_000);

afterAll(async () => {
  await ifAssigned(browser)?.close();
  await ifAssigned(app)?.close();
  await ifAssigned(kc)?.stop();
  await ifAssigned(h)?.stop();
});

interface Started {
  page: Page;
  context: BrowserContext;
  verifier: string;
  nonce: string;
}

/** Our client's authorization request (code + PKCE), in a fresh browser: the login page, or wherever it leads. */
async function authorize(extra: Record<string, string> = {}): Promise<Started> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT,
    scope: SCOPES,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  await page.goto(url.href);
  return { page, context, verifier, nonce };
}

/** Signs in at Keycloak's own login page. */
/** Signs in at Keycloak's own login page. */
const keycloakLogin = (page: Page, username: string) => signInAtKeycloak(page, kc, username);

/** Back at our client's redirect URI: the tokens, the ID token's claims and UserInfo. */
async function finish(s: Started, withUserinfo = true) {
  await s.page.waitForURL(`${REDIRECT}?**`, { timeout: 20_000 }).catch(async () => {
    throw new Error(`not back at the client: ${s.page.url()}\n${await errorText(s.page)}`);
  });
  const tokens = await oidc.authorizationCodeGrant(rp, new URL(s.page.url()), {
    pkceCodeVerifier: s.verifier,
    expectedNonce: s.nonce,
  });
  // An access token for an API (resource) is not one for UserInfo.
  const userinfo = withUserinfo ? await oidc.fetchUserInfo(rp, tokens.access_token, oidc.skipSubjectCheck) : {};
  await s.context.close();
  return { tokens, idToken: tokens.claims()!, userinfo: userinfo as Record<string, unknown> };
}

/**
 * Keycloak's answer to its login form, taken before the browser follows it (a redirect is not interceptable): the
 * location (our redirect URI with the code) goes through `rewrite`; null keeps the browser where it is.
 */
async function onKeycloakAnswer(page: Page, rewrite: (location: string) => string | null) {
  await page.route(`${kc.url}/realms/*/login-actions/authenticate**`, async (route) => {
    const response = await route.fetch({ maxRedirects: 0 });
    const location = response.headers().location;
    if (!location) return route.fulfill({ response });
    const to = rewrite(location);
    if (to === null) return route.fulfill({ status: 200, contentType: 'text/html', body: '<main>held</main>' });
    return route.fulfill({ status: 302, headers: { location: to } });
  });
}

const errorText = async (page: Page) => (await page.locator('main').textContent()) ?? '';

it('first sign-in creates the account with the mapped claims; amr is what upstream asserted', async () => {
  const user = await kc.createUser('corp', {
    username: 'erin',
    email: `erin-${Date.now()}@corp.example`,
    emailVerified: true,
    firstName: 'Erin',
    lastName: 'Upstream',
    groups: ['engineering', 'finance'],
  });
  const s = await authorize({ acr_values: 'urn:idp:acr:mfa urn:idp:acr:pwd' });
  await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(s.page, user);
  const { idToken, userinfo } = await finish(s);
  expect(idToken.amr).toEqual(['pwd']);
  expect(idToken.acr).toBe('urn:idp:acr:pwd');
  expect(userinfo.identity_provider).toBe('corp');
  expect(userinfo.external_groups).toEqual(['engineering', 'finance']);
  expect(userinfo.groups).toEqual(['engineers']);
  expect(userinfo.name).toBe('Erin Upstream');
  const subject = (userinfo.linked_identity as { subject: string }).subject;
  expect(userinfo.linked_identity).toEqual({ provider: 'corp', subject });
  expect(userinfo.federated_identities).toEqual({
    identities: [{ provider: 'corp', issuer: kc.issuer('corp'), subject }],
  });
  expect(userinfo.provider_claims).toMatchObject({ iss: kc.issuer('corp'), sub: subject, amr: ['pwd'], acr: '1' });
  const stored = (await h.db.models.User.findOne({ tenantId: h.tenant.tenantId, username: user }).lean())!;
  expect(String(stored._id)).toBe(userinfo.sub);

  // The upstream group changes: the next sign-in removes it, here and from the local group it granted.
  await kc.setUserGroups('corp', user, ['finance']);
  const again = await authorize();
  await again.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(again.page, user);
  const second = await finish(again);
  expect(second.userinfo.sub).toBe(userinfo.sub);
  expect(second.userinfo.external_groups).toEqual(['finance']);
  expect(second.userinfo.groups).toEqual([]);
});

it('home-realm discovery: a work email goes to its provider with login_hint', async () => {
  const user = await kc.createUser('corp', {
    username: 'hrd',
    email: `hrd-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const s = await authorize();
  await s.page.getByLabel('Username').fill(`${user}@corp.example`);
  await s.page.getByRole('button', { name: 'Sign in' }).click();
  await s.page.waitForURL(`${kc.url}/**`);
  expect(new URL(s.page.url()).searchParams.get('login_hint')).toBe(`${user}@corp.example`);
  await keycloakLogin(s.page, user);
  const { userinfo } = await finish(s);
  expect(userinfo.identity_provider).toBe('corp');

  // idp_hint goes straight there too, without the login page.
  const hinted = await authorize({ idp_hint: 'corp' });
  await hinted.page.waitForURL(`${kc.url}/**`);
  await hinted.context.close();
});

it('an existing account links only by proving its password; then the upstream identity signs in as it', async () => {
  const email = `carol-${Date.now()}@corp.example`;
  const local = await manage<{ id: string }>('POST', '/users', {
    username: `carol-local-${Date.now()}`,
    password: 'carol has a long password',
    claims: { email },
  });
  expect(local.status).toBe(201);
  const user = await kc.createUser('corp', { username: 'carol', email, emailVerified: true });
  const s = await authorize();
  await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(s.page, user);
  // Same (verified) address, but corp is not authoritative for it: no link without proof.
  await s.page.getByRole('heading', { name: 'Link your account' }).waitFor();
  expect(await s.page.getByRole('button', { name: 'Create a new account instead' }).count()).toBe(0);
  const username = (await h.db.models.User.findById(local.body.id).lean())!.username;
  await s.page.getByLabel('Username').fill(username);
  await s.page.getByLabel('Password').fill('not the password');
  await s.page.getByRole('button', { name: 'Link and continue' }).click();
  await s.page.getByText('The username, password or code is not correct.').waitFor();
  expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: h.tenant.tenantId, userId: local.body.id })).toBe(0);
  await s.page.getByLabel('Password').fill('carol has a long password');
  await s.page.getByRole('button', { name: 'Link and continue' }).click();
  const { userinfo } = await finish(s);
  expect(userinfo.sub).toBe(local.body.id);
  const links = await manage<{ items: Array<{ linkedBy: string }> }>('GET', `/users/${local.body.id}/upstream-links`);
  expect(links.body.items.map((l) => l.linkedBy)).toEqual(['password']);
});

it('an unverified upstream email matching an account links nothing, even where corp is authoritative', async () => {
  expect(
    (await manage('PATCH', '/upstream-providers/corp', { authoritativeEmailDomains: ['corp.example'] })).status,
  ).toBe(200);
  try {
    const victimEmail = `victim-${Date.now()}@corp.example`;
    const victim = await manage<{ id: string }>('POST', '/users', {
      username: `victim-${Date.now()}`,
      password: 'the victim has a password',
      claims: { email: victimEmail, email_verified: true },
    });
    const attacker = await kc.createUser('corp', { username: 'mallory', email: victimEmail, emailVerified: false });
    const s = await authorize();
    await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await keycloakLogin(s.page, attacker);
    await s.page.getByRole('heading', { name: 'Link your account' }).waitFor();
    expect(await s.page.getByRole('button', { name: 'Create a new account instead' }).count()).toBe(0);
    await s.context.close();
    expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: h.tenant.tenantId, userId: victim.body.id })).toBe(
      0,
    );

    // Once the provider authoritative for the domain vouches for the address, the same identity links at once.
    await kc.setUserEmail('corp', attacker, victimEmail, true);
    const o = await authorize();
    await o.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await keycloakLogin(o.page, attacker);
    const { userinfo } = await finish(o);
    expect(userinfo.sub).toBe(victim.body.id);
  } finally {
    await manage('PATCH', '/upstream-providers/corp', { authoritativeEmailDomains: [] });
  }
});

it("mix-up: corp's answer delivered at other's redirect URI is refused", async () => {
  const user = await kc.createUser('corp', {
    username: 'mixup',
    email: `mixup-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const s = await authorize();
  await onKeycloakAnswer(s.page, (location) => location.replace('/upstream/corp/callback', '/upstream/other/callback'));
  await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(s.page, user);
  await s.page.waitForURL(`${issuer}/interaction/**`);
  expect(await errorText(s.page)).toContain('this answer does not belong to the sign-in in progress');
  await s.context.close();
  expect(await h.db.models.User.countDocuments({ tenantId: h.tenant.tenantId, username: user })).toBe(0);
});

it("another request's code and nonce are refused (PKCE off, so the ID token's nonce decides)", async () => {
  expect(
    (
      await manage('PATCH', '/upstream-providers/corp', {
        oidc: { issuer: kc.issuer('corp'), clientId: KEYCLOAK_CLIENTS.corp.clientId, pkce: false },
      })
    ).status,
  ).toBe(200);
  try {
    const user = await kc.createUser('corp', {
      username: 'nonce',
      email: `nonce-${Date.now()}@corp.example`,
      emailVerified: true,
    });
    // Round trip A: its answer is captured, not delivered.
    const a = await authorize();
    let captured = '';
    await onKeycloakAnswer(a.page, (location) => {
      captured = location;
      return null;
    });
    await a.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await keycloakLogin(a.page, user);
    await a.page.getByText('held').waitFor();
    expect(captured).toContain('/upstream/corp/callback?');
    // Round trip B in another browser (the victim's): it waits at Keycloak's login page, and gets A's code with its
    // own state.
    const victim = await authorize({ idp_hint: 'corp' });
    const b = victim.page;
    await b.waitForURL(`${kc.url}/**`);
    const forged = new URL(captured);
    forged.searchParams.set('state', new URL(b.url()).searchParams.get('state')!);
    await b.goto(forged.href);
    expect(await errorText(b)).toMatch(/nonce/i);
    await a.context.close();
    await victim.context.close();
    expect(await h.db.models.User.countDocuments({ tenantId: h.tenant.tenantId, username: user })).toBe(0);
  } finally {
    await manage('PATCH', '/upstream-providers/corp', {
      oidc: { issuer: kc.issuer('corp'), clientId: KEYCLOAK_CLIENTS.corp.clientId, pkce: true },
    });
  }
});

it("a brokered user's delegation (token exchange) works as a local one's", async () => {
  // The seeded user, whom the seeded delegation policy names, signs in through corp once an admin linked them.
  const user = await kc.createUser('corp', {
    username: 'delegator',
    email: `del-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const kcUserId = await (async () => {
    const s = await authorize();
    await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await keycloakLogin(s.page, user);
    const { userinfo } = await finish(s);
    // Its own (just-in-time) account goes; the identity is linked to the seeded user instead.
    const subject = (userinfo.linked_identity as { subject: string }).subject;
    expect((await manage('DELETE', `/users/${String(userinfo.sub)}`)).status).toBe(204);
    return subject;
  })();
  expect(
    (await manage('POST', `/users/${h.tenant.user.id}/upstream-links`, { provider: 'corp', subject: kcUserId })).status,
  ).toBe(201);
  const s = await authorize({ scope: 'openid orders:read', resource: h.tenant.resource });
  await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(s.page, user);
  const { tokens, idToken } = await finish(s, false);
  expect(idToken.sub).toBe(h.tenant.user.id);
  const res = await fetch(`${issuer}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(h.tenant.client.clientId, h.tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      subject_token: tokens.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: h.tenant.nhe.identifier,
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: h.tenant.resource,
      scope: 'orders:read',
    }),
  });
  const body = (await res.json()) as { access_token: string };
  expect(res.status).toBe(200);
  const delegated = decodeJwt(body.access_token);
  expect(delegated.sub).toBe(h.tenant.user.id);
  expect(delegated.act).toMatchObject({ sub: `nhe:${h.tenant.nhe.identifier}` });
});

it("signing out here signs out at the upstream OP too, and the client's post_logout_redirect_uri gets its state", async () => {
  const user = await kc.createUser('corp', {
    username: 'leaver',
    email: `leaver-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const context = await browser.newContext();
  const s = await authorize();
  await s.context.close();
  const page = await context.newPage();
  const verifier = oidc.randomPKCECodeVerifier();
  await page.goto(
    oidc.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      idp_hint: 'corp',
    }).href,
  );
  await keycloakLogin(page, user);
  await page.waitForURL(`${REDIRECT}?**`);
  const tokens = await oidc.authorizationCodeGrant(rp, new URL(page.url()), { pkceCodeVerifier: verifier });
  expect(await kc.userSessions('corp', user)).toBe(1);

  await page.goto(
    oidc.buildEndSessionUrl(rp, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${app.origin}/logged-out`,
      state: 'bye',
    }).href,
  );
  const consoleLines: string[] = [];
  page.on('console', (m) => consoleLines.push(m.text()));
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${app.origin}/logged-out?**`, { timeout: 10_000 }).catch(async () => {
    throw new Error(`${page.url()}\n${await page.locator('body').innerText()}\n${consoleLines.join('\n')}`);
  });
  expect(new URL(page.url()).searchParams.get('state')).toBe('bye');
  expect(await kc.userSessions('corp', user)).toBe(0);
  // Signed out here too: a silent authorization request needs a sign-in.
  await page.goto(
    oidc.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT,
      scope: 'openid',
      prompt: 'none',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).href,
  );
  await page.waitForURL(`${REDIRECT}?**`);
  expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
  await context.close();
});

it('a disabled user, then a disabled provider, stop sign-in at once', async () => {
  const user = await kc.createUser('corp', {
    username: 'disabled',
    email: `dis-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const first = await authorize();
  await first.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(first.page, user);
  const { userinfo } = await finish(first);
  expect((await manage('PATCH', `/users/${String(userinfo.sub)}`, { enabled: false })).status).toBe(200);
  const s = await authorize();
  await s.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
  await keycloakLogin(s.page, user);
  await s.page.waitForURL(`${issuer}/interaction/**`);
  expect(await errorText(s.page)).toContain('this account is disabled');
  await s.context.close();

  expect((await manage('PATCH', '/upstream-providers/corp', { enabled: false })).status).toBe(200);
  const off = await authorize();
  expect(await off.page.getByRole('link', { name: 'Sign in with Corp SSO' }).count()).toBe(0);
  await off.page.goto(`${off.page.url().split('?')[0]}/upstream/corp`);
  expect(await errorText(off.page)).toContain('this sign-in provider is not available');
  await off.context.close();
});
