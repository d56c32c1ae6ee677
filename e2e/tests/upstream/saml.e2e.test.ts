/**
 * Upstream SAML 2.0 sign-in with real IdPs (Keycloak's realm corp and SimpleSAMLphp), in real Chromium: the first
 * sign-in creates the account with the mapped attributes (UserInfo: external_groups, identity_provider,
 * linked_identity with the NameID, federated_identities, no amr that the IdP did not assert), a later sign-in after
 * the IdP's groups changed removes the group, home-realm discovery by email domain; the real Response Keycloak POSTed
 * to our ACS is refused when posted again (Profiles 4.1.4.5: a bearer assertion is used once), at another
 * provider's ACS (Bindings 3.5.5.2: Destination) and at a disabled provider; and IdP-initiated single logout
 * (Profiles 4.4) from Keycloak ends our session.
 */
import type { Browser, BrowserContext, Page, Request as PwRequest } from 'playwright-core';
import * as oidc from 'openid-client';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { launchChromium, startApplicationStub } from '../../src/clients/browser';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startAll } from '../../src/start-all';
import { KEYCLOAK_CLIENTS, keycloak, signInAtKeycloak, type Keycloak } from '../../src/upstream/keycloak';
import {
  SIMPLESAMLPHP_PASSWORD,
  SIMPLESAMLPHP_SP_ENTITY_ID,
  SIMPLESAMLPHP_USERS,
  simplesamlphp,
  type SimpleSamlPhp,
} from '../../src/upstream/simplesamlphp';

jest.setTimeout(240_000);

let h: Harness;
let kc: Keycloak;
let ssp: SimpleSamlPhp;
let browser: Browser;
let rp: oidc.Configuration;
let admin: string;
let issuer: string;
let app: Awaited<ReturnType<typeof startApplicationStub>>;
let unregisterSp: (() => void) | undefined;
let REDIRECT = '';

const SCOPES =
  'openid profile email external_groups groups identity_provider linked_identity provider_claims federated_identities amr';

const manage = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId: h.tenant.tenantId, token: admin }, method, path, body);

const acsOf = (alias: string) => `${issuer}/upstream/${alias}/saml/acs`;
const sloOf = (alias: string) => `${issuer}/upstream/${alias}/saml/slo`;

beforeAll(async () => {
  await startAll([
    startHarness('upstream-saml', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } }).then((v) => (h = v)),
    keycloak().then((v) => (kc = v)),
    simplesamlphp().then((v) => (ssp = v)),
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
  const kcSaml = await manage('POST', '/upstream-providers', {
    alias: 'kc-saml',
    type: 'saml',
    displayName: 'Corp SAML',
    saml: { metadataUrl: kc.samlDescriptorUrl('corp'), spEntityId: KEYCLOAK_CLIENTS.corp.samlClientId },
    mappers: [
      { source: 'groups', target: 'externalGroups' },
      { source: 'groups', target: 'groups', values: [{ upstream: 'engineering', local: 'engineers' }] },
      { source: 'email', target: 'claim', claim: 'email' },
      { source: 'displayName', target: 'claim', claim: 'name' },
      { source: 'email', target: 'username' },
    ],
    // What a password login at this IdP would be; Keycloak states the unspecified class instead (see below).
    acrMap: [{ upstream: 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport', acr: 'urn:idp:acr:pwd' }],
  });
  expect(kcSaml.status).toBe(201);
  const uni = await manage('POST', '/upstream-providers', {
    alias: 'uni',
    type: 'saml',
    displayName: 'University',
    saml: { metadataUrl: ssp.metadataUrl, spEntityId: SIMPLESAMLPHP_SP_ENTITY_ID },
    emailDomains: ['uni.example'],
    mappers: [
      { source: 'eduPersonAffiliation', target: 'externalGroups' },
      { source: 'email', target: 'claim', claim: 'email' },
      { source: 'displayName', target: 'claim', claim: 'name' },
    ],
  });
  expect(uni.status).toBe(201);
  // SimpleSAMLphp answers only at an ACS listed in its metadata of the SP.
  unregisterSp = ssp.registerSp({ acs: acsOf('uni'), slo: sloOf('uni') });
}, 240_000);

afterAll(async () => {
  unregisterSp?.();
  await ifAssigned(browser)?.close();
  await ifAssigned(app)?.close();
  await ifAssigned(kc)?.stop();
  await ifAssigned(ssp)?.stop();
  await ifAssigned(h)?.stop();
});

interface Started {
  page: Page;
  context: BrowserContext;
  verifier: string;
  nonce: string;
}

/** Our client's authorization request (code + PKCE), in a fresh browser unless one is given. */
async function authorize(extra: Record<string, string> = {}, context?: BrowserContext): Promise<Started> {
  const ctx = context ?? (await browser.newContext());
  const page = await ctx.newPage();
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
  return { page, context: ctx, verifier, nonce };
}

/** Signs in at Keycloak's own login page. */
const keycloakLogin = (page: Page, username: string) => signInAtKeycloak(page, kc, username);

async function simpleSamlLogin(page: Page, username: string) {
  await page.waitForURL(`${ssp.url}/**`);
  await page.locator('input[name="username"]').fill(username);
  await page.locator('input[name="password"]').fill(SIMPLESAMLPHP_PASSWORD);
  await page.locator('input[name="password"]').press('Enter');
}

const errorText = async (page: Page) => (await page.locator('main').textContent()) ?? '';

/** Back at our client's redirect URI: the tokens, the ID token's claims and UserInfo. */
async function finish(s: Started, keepContext = false) {
  await s.page.waitForURL(`${REDIRECT}?**`, { timeout: 20_000 }).catch(async () => {
    throw new Error(`not back at the client: ${s.page.url()}\n${await errorText(s.page)}`);
  });
  const tokens = await oidc.authorizationCodeGrant(rp, new URL(s.page.url()), {
    pkceCodeVerifier: s.verifier,
    expectedNonce: s.nonce,
  });
  const userinfo = await oidc.fetchUserInfo(rp, tokens.access_token, oidc.skipSubjectCheck);
  if (!keepContext) await s.context.close();
  return { tokens, idToken: tokens.claims()!, userinfo: userinfo as Record<string, unknown> };
}

interface Posted {
  SAMLResponse: string;
  RelayState: string;
  xml: string;
}

/**
 * The HTTP-POST binding's form (SAML 2.0 Bindings 3.5.4) as the IdP had the browser post it to our ACS; `hold`
 * keeps it from arriving (the browser gets a placeholder page instead).
 */
function captureAcsPost(page: Page, alias: string, hold = false): Promise<Posted> {
  return new Promise<Posted>((resolve, reject) => {
    page
      .route(acsOf(alias), async (route) => {
        const form = new URLSearchParams(route.request().postData() ?? '');
        const SAMLResponse = form.get('SAMLResponse') ?? '';
        resolve({
          SAMLResponse,
          RelayState: form.get('RelayState') ?? '',
          xml: Buffer.from(SAMLResponse, 'base64').toString('utf8'),
        });
        if (hold) await route.fulfill({ status: 200, contentType: 'text/html', body: '<main>held</main>' });
        else await route.continue();
      })
      .catch(reject);
  });
}

/** The RelayState (our interaction's uid) of the AuthnRequest the browser carries to the IdP. */
async function relayStateTo(page: Page, idpPrefix: string, click: () => Promise<void>): Promise<string> {
  const request = page.waitForRequest(
    (r: PwRequest) => r.url().startsWith(idpPrefix) && r.url().includes('SAMLRequest='),
  );
  await click();
  return new URL((await request).url()).searchParams.get('RelayState') ?? '';
}

/** Posts a SAML form to an ACS outside any browser, as an attacker holding a captured Response would. */
async function postToAcs(alias: string, fields: { SAMLResponse: string; RelayState: string }) {
  const res = await fetch(acsOf(alias), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

const nameIdOf = (xml: string) => /<(?:saml2?:)?NameID[^>]*>([^<]+)</.exec(xml)?.[1];
const classRefOf = (xml: string) => /<(?:saml2?:)?AuthnContextClassRef>([^<]+)</.exec(xml)?.[1];

/** Sets the Keycloak user attribute `displayName` that the SAML client releases as the attribute of that name. */
async function setDisplayName(username: string, displayName: string) {
  const headers = { authorization: `Bearer ${await kc.adminToken()}`, 'content-type': 'application/json' };
  const base = `${kc.url}/admin/realms/corp/users`;
  const found = (await (
    await fetch(`${base}?exact=true&username=${encodeURIComponent(username)}`, { headers })
  ).json()) as Array<Record<string, unknown> & { id: string; attributes?: Record<string, string[]> }>;
  const user = found[0]!;
  const res = await fetch(`${base}/${user.id}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ ...user, attributes: { ...user.attributes, displayName: [displayName] } }),
  });
  expect(res.status).toBe(204);
}

/** A Keycloak user signed in through kc-saml once; what Keycloak posted to our ACS, kept for the refusals below. */
let kcFirst:
  | {
      username: string;
      sub: string;
      posted: Posted;
      amr: { idToken: unknown; userinfo: unknown };
      acr: unknown;
    }
  | undefined;

it('Keycloak: the first sign-in creates the account with the mapped attributes; a group change is applied', async () => {
  const email = `sara-${Date.now()}@corp.example`;
  const username = await kc.createUser('corp', {
    username: 'sara',
    email,
    emailVerified: true,
    groups: ['engineering', 'finance'],
  });
  await setDisplayName(username, 'Sara Saml');
  // A voluntary acr request (OIDC Core 3.1.2.1), so that the ID token states the acr achieved.
  const s = await authorize({ acr_values: 'urn:idp:acr:pwd' });
  const posted = captureAcsPost(s.page, 'kc-saml');
  await s.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click();
  await keycloakLogin(s.page, username);
  const { idToken, userinfo } = await finish(s);
  const { xml, RelayState } = await posted;
  const nameId = nameIdOf(xml);
  expect(nameId).toMatch(/^G-[0-9a-f-]{36}$/);
  expect(RelayState).toMatch(/^[A-Za-z0-9_-]{10,64}$/);

  expect(userinfo.identity_provider).toBe('kc-saml');
  expect(userinfo.external_groups).toEqual(['engineering', 'finance']);
  expect(userinfo.groups).toEqual(['engineers']);
  expect(userinfo.email).toBe(email);
  expect(userinfo.name).toBe('Sara Saml');
  expect(userinfo.linked_identity).toEqual({ provider: 'kc-saml', subject: nameId });
  expect(userinfo.federated_identities).toEqual({
    identities: [{ provider: 'kc-saml', issuer: kc.issuer('corp'), subject: nameId }],
  });
  const stored = (await h.db.models.User.findOne({ tenantId: h.tenant.tenantId, username: email }).lean())!;
  expect(String(stored._id)).toBe(userinfo.sub);
  kcFirst = {
    username,
    sub: String(userinfo.sub),
    posted: await posted,
    amr: { idToken: idToken.amr, userinfo: userinfo.amr },
    acr: idToken.acr,
  };

  // The IdP's groups change: the next sign-in removes the group, here and from the local group it granted.
  await kc.setUserGroups('corp', username, ['finance']);
  const again = await authorize();
  await again.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click();
  await keycloakLogin(again.page, username);
  const second = await finish(again);
  expect(second.userinfo.sub).toBe(userinfo.sub);
  expect(second.userinfo.external_groups).toEqual(['finance']);
  expect(second.userinfo.groups).toEqual([]);
});

it('a brokered login whose IdP asserted no mapped method says no amr (never pwd) and a federated acr', () => {
  if (!kcFirst) throw new Error('needs the first sign-in');
  // Keycloak states an AuthnContextClassRef that is not in kc-saml's acrMap, and SAML carries no amr: the login
  // records no method that the IdP did not assert (RFC 8176 values are claims about how the user authenticated).
  expect(classRefOf(kcFirst.posted.xml)).toBe('urn:oasis:names:tc:SAML:2.0:ac:classes:unspecified');
  expect(kcFirst.acr).toBe('urn:idp:acr:federated');
  expect(kcFirst.amr.idToken ?? []).toEqual([]);
  expect(kcFirst.amr.userinfo ?? []).toEqual([]);
});

it("Keycloak's real Response is refused when posted again, at another provider's ACS, or at a disabled provider", async () => {
  if (!kcFirst) throw new Error('needs the first sign-in');
  const { posted, username, sub } = kcFirst;
  const logins = async () => h.db.models.User.countDocuments({ tenantId: h.tenant.tenantId });
  const before = await logins();

  // The same form again, after the sign-in it belonged to finished: no sign-in is in progress for it.
  const again = await postToAcs('kc-saml', posted);
  expect(again.status).toBe(400);
  expect(again.location).toBeNull();
  expect(again.text).toContain('does not belong to a sign-in in progress');

  // At a sign-in in progress (another browser waiting at Keycloak): the Response answers another AuthnRequest and
  // its assertion was used (Profiles 4.1.4.5). Refused, and the waiting sign-in is not completed by it.
  const victim = await authorize();
  const liveUid = await relayStateTo(victim.page, kc.url, () =>
    victim.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click(),
  );
  expect(liveUid).not.toBe(posted.RelayState);
  const replayed = await postToAcs('kc-saml', { SAMLResponse: posted.SAMLResponse, RelayState: liveUid });
  expect(replayed.status).toBe(403);
  expect(replayed.location).toBeNull();
  expect(replayed.text).toMatch(/the SAML message was refused \((unknown_request|replayed)\)/);
  await victim.context.close();

  // At uni's ACS for a sign-in waiting at uni: Keycloak's Response names kc-saml's ACS as its Destination and is
  // signed by another IdP.
  const atUni = await authorize();
  const uniUid = await relayStateTo(atUni.page, ssp.url, () =>
    atUni.page.getByRole('link', { name: 'Sign in with University' }).click(),
  );
  const mixed = await postToAcs('uni', { SAMLResponse: posted.SAMLResponse, RelayState: uniUid });
  expect(mixed.status).toBe(403);
  expect(mixed.text).toMatch(/the SAML message was refused \((wrong_recipient|wrong_issuer|invalid_signature)\)/);
  // kc-saml's own interaction posted at uni's ACS: the round trip was started with kc-saml.
  const wrongAcs = await postToAcs('uni', posted);
  expect(wrongAcs.status).toBe(400);
  expect(wrongAcs.location).toBeNull();
  await atUni.context.close();

  // A fresh, never delivered Response, held while the provider is disabled: refused; once enabled again, the same
  // Response (its round trip still pending) signs in.
  const held = await authorize();
  const fresh = captureAcsPost(held.page, 'kc-saml', true);
  await held.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click();
  await keycloakLogin(held.page, username);
  const heldForm = await fresh;
  expect((await manage('PATCH', '/upstream-providers/kc-saml', { enabled: false })).status).toBe(200);
  try {
    const off = await postToAcs('kc-saml', heldForm);
    expect(off.status).toBe(403);
    expect(off.location).toBeNull();
    expect(off.text).toContain('this sign-in provider is disabled');
  } finally {
    expect((await manage('PATCH', '/upstream-providers/kc-saml', { enabled: true })).status).toBe(200);
  }
  await held.page.unroute(acsOf('kc-saml'));
  // Delivered by the browser from the page it was held on (the IdP's origin), as Keycloak's form would have.
  await held.page.evaluate(
    ({ action, fields }) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = action;
      for (const [name, value] of Object.entries(fields)) {
        const input = document.createElement('input');
        input.type = 'hidden';
        input.name = name;
        input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    },
    { action: acsOf('kc-saml'), fields: { SAMLResponse: heldForm.SAMLResponse, RelayState: heldForm.RelayState } },
  );
  const { userinfo } = await finish(held);
  expect(userinfo.sub).toBe(sub);
  expect(await logins()).toBe(before);
});

it('SimpleSAMLphp: home-realm discovery by email domain; the mapped attributes', async () => {
  const s = await authorize();
  await s.page.getByLabel('Username').fill('sam@uni.example');
  await s.page.getByRole('button', { name: 'Sign in' }).click();
  const posted = captureAcsPost(s.page, 'uni');
  await simpleSamlLogin(s.page, 'sam');
  const { userinfo } = await finish(s);
  const nameId = nameIdOf((await posted).xml);
  expect(nameId).toBeTruthy();
  expect(userinfo.identity_provider).toBe('uni');
  expect(userinfo.external_groups).toEqual([...SIMPLESAMLPHP_USERS.sam.eduPersonAffiliation]);
  expect(userinfo.email).toBe('sam@uni.example');
  expect(userinfo.name).toBe('Sam Student');
  expect(userinfo.linked_identity).toEqual({ provider: 'uni', subject: nameId });
  expect(userinfo.federated_identities).toEqual({
    identities: [{ provider: 'uni', issuer: ssp.entityId, subject: nameId }],
  });
});

it('IdP-initiated single logout: signing out at Keycloak ends the session here', async () => {
  await kc.setSamlLogoutUrl(sloOf('kc-saml'));
  const username = await kc.createUser('corp', {
    username: 'slo',
    email: `slo-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const s = await authorize();
  await s.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click();
  await keycloakLogin(s.page, username);
  const { userinfo } = await finish(s, true);
  const context = s.context;

  // The session here is alive: prompt=none answers with a code.
  const alive = await authorize({ prompt: 'none' }, context);
  await alive.page.waitForURL(`${REDIRECT}?**`);
  expect(new URL(alive.page.url()).searchParams.get('code')).toBeTruthy();
  await alive.page.close();

  // Sign out at Keycloak (RP-less end_session with its confirmation page): Keycloak sends this browser with a signed
  // LogoutRequest (HTTP-Redirect) to our SLO endpoint, which answers with a LogoutResponse back to Keycloak.
  const page = await context.newPage();
  const slo = page.waitForRequest((r) => r.url().startsWith(`${sloOf('kc-saml')}?`), { timeout: 30_000 });
  const sloAnswer = page.waitForResponse((r) => r.url().startsWith(`${sloOf('kc-saml')}?`), { timeout: 30_000 });
  await page.goto(`${kc.issuer('corp')}/protocol/openid-connect/logout`);
  await page.locator('#kc-logout').click();
  const sloUrl = new URL((await slo).url());
  expect(sloUrl.searchParams.get('SAMLRequest')).toBeTruthy();
  expect(sloUrl.searchParams.get('Signature')).toBeTruthy();
  const answer = await sloAnswer;
  expect(answer.status()).toBe(303);
  expect(answer.headers().location).toContain(`${kc.issuer('corp')}/protocol/saml?SAMLResponse=`);
  await page.waitForURL(`${kc.url}/**`);
  expect(await kc.userSessions('corp', username)).toBe(0);

  // Our session ended: prompt=none now answers login_required.
  const after = await authorize({ prompt: 'none' }, context);
  await after.page.waitForURL(`${REDIRECT}?**`);
  expect(new URL(after.page.url()).searchParams.get('error')).toBe('login_required');
  expect(
    await h.db.models.UpstreamLink.countDocuments({ tenantId: h.tenant.tenantId, userId: String(userinfo.sub) }),
  ).toBe(1);
  await context.close();
});

it('signing out here sends a signed LogoutRequest to the SAML IdP, whose answer leads to the client with its state', async () => {
  await kc.setSamlLogoutUrl(sloOf('kc-saml'));
  const username = await kc.createUser('corp', {
    username: 'splo',
    email: `splo-${Date.now()}@corp.example`,
    emailVerified: true,
  });
  const s = await authorize();
  await s.page.getByRole('link', { name: 'Sign in with Corp SAML' }).click();
  await keycloakLogin(s.page, username);
  const { tokens } = await finish(s, true);
  expect(await kc.userSessions('corp', username)).toBe(1);
  const page = await s.context.newPage();
  const request = page.waitForRequest((r) => r.url().startsWith(`${kc.issuer('corp')}/protocol/saml?SAMLRequest=`));
  await page.goto(
    oidc.buildEndSessionUrl(rp, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${app.origin}/logged-out`,
      state: 'saml-bye',
    }).href,
  );
  await page.getByRole('button', { name: 'Sign out' }).click();
  const sent = new URL((await request).url());
  expect(sent.searchParams.get('Signature')).toBeTruthy();
  await page.waitForURL(`${app.origin}/logged-out?**`);
  expect(new URL(page.url()).searchParams.get('state')).toBe('saml-bye');
  expect(await kc.userSessions('corp', username)).toBe(0);
  const after = await authorize({ prompt: 'none' }, s.context);
  await after.page.waitForURL(`${REDIRECT}?**`);
  expect(new URL(after.page.url()).searchParams.get('error')).toBe('login_required');
  await s.context.close();
});
