/**
 * The keys of upstream sign-in, with a real Keycloak in real Chromium.
 *
 * private_key_jwt (RFC 7523 section 2.2, OpenID Connect Core 1.0 section 9): a Keycloak client that authenticates
 * with signed JWTs verified against our published key set (`<issuer>/upstream/<alias>/jwks`, fetched by Keycloak)
 * signs a user in; the same client pointed at a key set that holds another key under our kid refuses our client
 * assertion at its token endpoint, and the sign-in ends on an error page without an account; pointed back, it works.
 *
 * SAML IdP signing-key rotation (SAML 2.0 Metadata section 2.4.1.1, KeyDescriptor): in a realm of its own (created
 * and deleted here, so the shared realms keep their keys), Keycloak's signing key is replaced; a provider that reads
 * the IdP's metadata from its URL accepts the newly signed assertions once the provider is updated (which re-reads
 * the metadata), while a provider holding the metadata document from before the rotation refuses them
 * (invalid_signature): the trusted certificate comes from metadata only, never from the message itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as oidc from 'openid-client';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { launchChromium, startApplicationStub } from '../../src/clients/browser';
import { tenantAdminCall } from '../../src/clients/tenant-admin';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';
import { startAll } from '../../src/start-all';
import { KEYCLOAK_PASSWORD, keycloak, type Keycloak } from '../../src/upstream/keycloak';

jest.setTimeout(240_000);

let h: Harness;
let kc: Keycloak;
let browser: Browser;
let rp: oidc.Configuration;
let admin: string;
let issuer: string;
let app: Awaited<ReturnType<typeof startApplicationStub>>;
let REDIRECT = '';
/** Keycloak state made here, removed after the run. */
const cleanup: Array<() => Promise<void>> = [];

const manage = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  tenantAdminCall<T>({ baseUrl: h.topology.baseUrl, tenantId: h.tenant.tenantId, token: admin }, method, path, body);

beforeAll(async () => {
  await startAll([
    startHarness('upstream-keys', { oidcEnv: { UPSTREAM_ALLOW_LOOPBACK: 'true' } }).then((v) => (h = v)),
    keycloak().then((v) => (kc = v)),
    launchChromium().then((v) => (browser = v)),
    startApplicationStub().then((v) => (app = v)),
  ]);
  REDIRECT = `${app.origin}/callback`;
  await h.db.models.Client.updateOne(
    { tenantId: h.tenant.tenantId, clientId: h.tenant.client.clientId },
    { $set: { redirectUris: [REDIRECT] } },
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
}, 240_000);

afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
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

/** Our client's authorization request (code + PKCE) in a fresh browser, then the provider's link on the login page. */
async function signInWith(displayName: string): Promise<Started> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT,
    scope: 'openid profile email identity_provider',
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  await page.goto(url.href);
  await page.getByRole('link', { name: `Sign in with ${displayName}` }).click();
  return { page, context, verifier, nonce };
}

async function keycloakLogin(page: Page, username: string) {
  await page.waitForURL(`${kc.url}/**`, { timeout: 20_000 }).catch(async () => {
    throw new Error(`not at Keycloak's login page: ${page.url()}\n${await errorText(page)}`);
  });
  await page.locator('#username').fill(username);
  await page.locator('#password').fill(KEYCLOAK_PASSWORD);
  await page.locator('#kc-login').click();
}

const errorText = async (page: Page) => (await page.locator('main').textContent()) ?? '';

/** Back at our client's redirect URI: UserInfo of the signed-in account. */
async function finish(s: Started) {
  await s.page.waitForURL(`${REDIRECT}?**`, { timeout: 20_000 }).catch(async () => {
    throw new Error(`not back at the client: ${s.page.url()}\n${await errorText(s.page)}`);
  });
  const tokens = await oidc.authorizationCodeGrant(rp, new URL(s.page.url()), {
    pkceCodeVerifier: s.verifier,
    expectedNonce: s.nonce,
  });
  const userinfo = await oidc.fetchUserInfo(rp, tokens.access_token, oidc.skipSubjectCheck);
  await s.context.close();
  return userinfo as Record<string, unknown>;
}

/** The error page the sign-in ended on (at our origin, never back at the client). */
async function refused(s: Started, at: string) {
  await s.page.waitForURL(`${at}**`, { timeout: 20_000 }).catch(async () => {
    throw new Error(`not on our error page: ${s.page.url()}\n${await errorText(s.page)}`);
  });
  const text = await errorText(s.page);
  await s.context.close();
  return text;
}

const accountsNamed = (username: string) => h.db.models.User.countDocuments({ tenantId: h.tenant.tenantId, username });

interface KeySetServer {
  url: string;
  /** Requests it answered. */
  hits: () => number;
  close: () => Promise<void>;
}

/** A JSON Web Key Set (RFC 7517 section 5) served on loopback. */
async function serveKeySet(keys: object[]): Promise<KeySetServer> {
  let count = 0;
  const server: Server = createServer((_req, res) => {
    count += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks`,
    hits: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('private_key_jwt at Keycloak', () => {
  const ALIAS = 'kc-jwt';
  const clientId = `keys-pkjwt-${randomBytes(4).toString('hex')}`;
  let rogue: KeySetServer | undefined;

  afterAll(async () => {
    await rogue?.close();
  });

  it('Keycloak verifies our client assertions with the key set we publish, and with no other key', async () => {
    const created = await manage<{ endpoints: { jwksUri?: string; redirectUri?: string } }>(
      'POST',
      '/upstream-providers',
      {
        alias: ALIAS,
        type: 'oidc',
        displayName: 'Corp JWT',
        oidc: { issuer: kc.issuer('corp'), clientId, clientAuthMethod: 'private_key_jwt' },
        mappers: [
          { source: 'email', target: 'claim', claim: 'email' },
          { source: 'preferred_username', target: 'username' },
        ],
      },
    );
    expect(created.status).toBe(201);
    const jwksUri = created.body.endpoints.jwksUri;
    expect(jwksUri).toBe(`${issuer}/upstream/${ALIAS}/jwks`);
    // Our public key only (no private member), under the kid our client assertions carry.
    const published = (await (await fetch(jwksUri!)).json()) as { keys: Array<Record<string, unknown>> };
    const kid = `upstream-${h.tenant.tenantId}-${ALIAS}`;
    expect(published.keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', kid, alg: 'ES256' })]);
    expect(published.keys[0]).not.toHaveProperty('d');

    // Confidential client authenticating with signed JWTs (RFC 7523), its keys read from our JWKS URL.
    await kc.createClient('corp', {
      clientId,
      name: 'Upstream sign-in broker, private_key_jwt (keys.e2e)',
      enabled: true,
      protocol: 'openid-connect',
      publicClient: false,
      clientAuthenticatorType: 'client-jwt',
      standardFlowEnabled: true,
      implicitFlowEnabled: false,
      directAccessGrantsEnabled: false,
      serviceAccountsEnabled: false,
      redirectUris: ['http://127.0.0.1:*'],
      webOrigins: [],
      frontchannelLogout: false,
      attributes: {
        'use.jwks.url': 'true',
        'jwks.url': jwksUri!,
        'token.endpoint.auth.signing.alg': 'ES256',
        'post.logout.redirect.uris': 'http://127.0.0.1:*',
      },
    });
    cleanup.push(() => kc.deleteClient('corp', clientId));

    const first = await kc.createUser('corp', {
      username: 'jwt',
      email: `jwt-${Date.now()}@corp.example`,
      emailVerified: true,
    });
    const s = await signInWith('Corp JWT');
    await keycloakLogin(s.page, first);
    const userinfo = await finish(s);
    expect(userinfo.identity_provider).toBe(ALIAS);
    expect(await accountsNamed(first)).toBe(1);

    // The same client, its key set now another ES256 key under our kid: our assertion's signature does not verify.
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    rogue = await serveKeySet([{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }]);
    await kc.setClientAttributes('corp', clientId, { 'jwks.url': rogue.url });
    await kc.clearKeysCache('corp');
    const second = await kc.createUser('corp', {
      username: 'jwt-rogue',
      email: `jwt-rogue-${Date.now()}@corp.example`,
      emailVerified: true,
    });
    const bad = await signInWith('Corp JWT');
    await keycloakLogin(bad.page, second);
    // Keycloak answered the token request with invalid_client: the code exchange fails, at our callback.
    expect(await refused(bad, `${issuer}/interaction/`)).toContain('the upstream sign-in could not be verified');
    expect(rogue.hits()).toBeGreaterThan(0);
    expect(await accountsNamed(second)).toBe(0);
    expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: h.tenant.tenantId, provider: ALIAS })).toBe(1);

    // Pointed back at our key set, the same client and user sign in: nothing but the key differed.
    await kc.setClientAttributes('corp', clientId, { 'jwks.url': jwksUri! });
    await kc.clearKeysCache('corp');
    const again = await signInWith('Corp JWT');
    await keycloakLogin(again.page, second);
    expect((await finish(again)).identity_provider).toBe(ALIAS);
    expect(await accountsNamed(second)).toBe(1);
  });
});

describe('SAML IdP signing-key rotation', () => {
  const REALM = `rotation-${randomBytes(4).toString('hex')}`;
  const SP = 'urn:idp-test:sp:rotation';
  let oldDescriptor = '';

  const certificatesOf = (xml: string) =>
    [...xml.matchAll(/<(?:\w+:)?X509Certificate>([^<]+)<\//g)].map((m) => m[1]!.replace(/\s+/g, ''));
  const descriptor = async () => {
    const res = await fetch(kc.samlDescriptorUrl(REALM));
    expect(res.status).toBe(200);
    return res.text();
  };
  /** A new user of the realm: its username, and its email (our username through the mapper). */
  const user = async (name: string) => {
    const email = `${name}-${randomBytes(4).toString('hex')}@rotation.example`;
    return { username: await kc.createUser(REALM, { username: name, email, emailVerified: true }), email };
  };
  const provider = (alias: string, displayName: string, saml: Record<string, unknown>) =>
    manage('POST', '/upstream-providers', {
      alias,
      type: 'saml',
      displayName,
      saml: { ...saml, spEntityId: SP },
      mappers: [
        { source: 'email', target: 'claim', claim: 'email' },
        { source: 'email', target: 'username' },
      ],
    });
  /** Signs in through Keycloak; the Response it POSTed to our ACS (Bindings 3.5.4), decoded. */
  const samlSignIn = async (alias: string, displayName: string, username: string) => {
    const s = await signInWith(displayName);
    const posted = s.page.waitForRequest((r) => r.url() === `${issuer}/upstream/${alias}/saml/acs`);
    await keycloakLogin(s.page, username);
    const form = new URLSearchParams((await posted).postData() ?? '');
    return { s, xml: Buffer.from(form.get('SAMLResponse') ?? '', 'base64').toString('utf8') };
  };
  const keyNamesOf = (xml: string) => [...xml.matchAll(/<(?:\w+:)?KeyName>([^<]+)</g)].map((m) => m[1]);
  beforeAll(async () => {
    await kc.createRealm({
      realm: REALM,
      displayName: 'Signing-key rotation (keys.e2e)',
      enabled: true,
      sslRequired: 'none',
      clients: [
        {
          clientId: SP,
          name: 'Upstream sign-in broker (SAML SP, key rotation)',
          enabled: true,
          protocol: 'saml',
          publicClient: false,
          frontchannelLogout: false,
          redirectUris: ['http://127.0.0.1:*'],
          attributes: {
            'saml.assertion.signature': 'true',
            'saml.server.signature': 'true',
            'saml.server.signature.keyinfo.ext': 'false',
            'saml.signature.algorithm': 'RSA_SHA256',
            saml_signature_canonicalization_method: 'http://www.w3.org/2001/10/xml-exc-c14n#',
            'saml.server.signature.keyinfo.xmlSigKeyInfoKeyNameTransformer': 'KEY_ID',
            'saml.client.signature': 'false',
            'saml.encrypt': 'false',
            'saml.authnstatement': 'true',
            saml_force_name_id_format: 'true',
            saml_name_id_format: 'persistent',
            'saml.force.post.binding': 'true',
          },
          protocolMappers: [
            {
              name: 'email',
              protocol: 'saml',
              protocolMapper: 'saml-user-property-mapper',
              consentRequired: false,
              config: {
                'user.attribute': 'email',
                'attribute.name': 'email',
                'attribute.nameformat': 'Basic',
                'friendly.name': 'email',
              },
            },
          ],
        },
      ],
    });
    cleanup.push(() => kc.deleteRealm(REALM));
    oldDescriptor = await descriptor();
  });

  it('the metadata URL gives the new certificate once re-read; the old metadata document refuses the new key', async () => {
    const oldCertificates = certificatesOf(oldDescriptor);
    expect(oldCertificates.length).toBeGreaterThan(0);
    expect((await provider('rot-url', 'Rotation URL', { metadataUrl: kc.samlDescriptorUrl(REALM) })).status).toBe(201);
    expect((await provider('rot-xml', 'Rotation XML', { metadataXml: oldDescriptor })).status).toBe(201);

    // Before the rotation both providers trust the key that signs.
    const before = await user('before');
    const a = await samlSignIn('rot-url', 'Rotation URL', before.username);
    expect((await finish(a.s)).identity_provider).toBe('rot-url');
    const pinned = await user('pinned');
    const b = await samlSignIn('rot-xml', 'Rotation XML', pinned.username);
    expect((await finish(b.s)).identity_provider).toBe('rot-xml');
    const oldKid = keyNamesOf(a.xml);
    expect(oldKid.length).toBeGreaterThan(0);

    // Keycloak signs with a new key only; its descriptor publishes the new certificate and none of the old.
    const rotated = await kc.rotateRealmKey(REALM);
    const now = certificatesOf(await descriptor());
    expect(now).toContain(rotated.certificate);
    for (const old of oldCertificates) expect(now).not.toContain(old);

    // An update of the provider re-reads its metadata: the new certificate verifies what the new key signed.
    expect((await manage('PATCH', '/upstream-providers/rot-url', { displayName: 'Rotation URL 2' })).status).toBe(200);
    const after = await user('after');
    const c = await samlSignIn('rot-url', 'Rotation URL 2', after.username);
    expect((await finish(c.s)).identity_provider).toBe('rot-url');
    expect(keyNamesOf(c.xml)).toContain(rotated.kid);
    expect(keyNamesOf(c.xml)).not.toEqual(expect.arrayContaining(oldKid));
    expect(await accountsNamed(after.email)).toBe(1);

    // The old document names only the old certificate: a message signed by the new key is refused, even though it
    // carries the signer's certificate or key name in its KeyInfo, and no account is made.
    const late = await user('late');
    const d = await samlSignIn('rot-xml', 'Rotation XML', late.username);
    expect(keyNamesOf(d.xml)).toContain(rotated.kid);
    expect(await refused(d.s, `${issuer}/upstream/rot-xml/saml/acs`)).toContain(
      'the SAML message was refused (invalid_signature)',
    );
    expect(await accountsNamed(late.email)).toBe(0);
    expect(await h.db.models.UpstreamLink.countDocuments({ tenantId: h.tenant.tenantId, provider: 'rot-xml' })).toBe(1);
  });
});
