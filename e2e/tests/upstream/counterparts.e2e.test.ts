/**
 * The upstream identity providers of the upstream sign-in tests are up and configured as the tests expect:
 * Keycloak's realms (discovery, users and groups through the admin API, the claims of an ID token after a real
 * authorization code flow, the SAML IdP descriptor's signing certificate, a signed SAML assertion for our SP) and
 * SimpleSAMLphp (metadata with a signing certificate, a signed assertion for our SP at a registered ACS).
 */
import { deflateRawSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { FormAgent, parseForms } from '../../src/clients/form-agent';
import { KEYCLOAK_CLIENTS, KEYCLOAK_PASSWORD, keycloak, type Keycloak } from '../../src/upstream/keycloak';
import {
  SIMPLESAMLPHP_PASSWORD,
  SIMPLESAMLPHP_SP_ENTITY_ID,
  simplesamlphp,
  type SimpleSamlPhp,
} from '../../src/upstream/simplesamlphp';

jest.setTimeout(240_000);

/** Where a broker would listen; nothing does: the flows stop at the redirect (OIDC) or the auto-POST form (SAML). */
const BROKER = 'http://127.0.0.1:5999/auth/tenant-smoke/upstream';

/** The X.509 certificates of the KeyDescriptors that may sign (use="signing" or no use: SAML 2.0 Metadata 2.4.1.1). */
function signingCertificates(metadata: string): string[] {
  const out: string[] = [];
  for (const m of metadata.matchAll(
    /<(?:md:)?KeyDescriptor(?:\s+use="([^"]*)")?\s*>([\s\S]*?)<\/(?:md:)?KeyDescriptor>/g,
  )) {
    // A `use` the KeyDescriptor leaves out is undefined (the match array's type does not say so).
    const [, use, body] = m as Array<string | undefined>;
    if (use !== undefined && use !== 'signing') continue;
    const cert = /<(?:ds:|dsig:)?X509Certificate>([^<]+)</.exec(body ?? '')?.[1];
    if (cert !== undefined) out.push(cert.replace(/\s+/g, ''));
  }
  return out;
}

/** An unsigned AuthnRequest (HTTP-Redirect binding, SAML 2.0 Bindings 3.4.4.1) from our SP. */
function authnRequestUrl(sso: string, issuer: string, acs: string): string {
  const request =
    `<samlp:AuthnRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"` +
    ` ID="_${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${new Date().toISOString()}"` +
    ` Destination="${sso}" AssertionConsumerServiceURL="${acs}"` +
    ` ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST"><saml:Issuer>${issuer}</saml:Issuer></samlp:AuthnRequest>`;
  const url = new URL(sso);
  url.searchParams.set('SAMLRequest', deflateRawSync(request).toString('base64'));
  url.searchParams.set('RelayState', 'smoke');
  return url.toString();
}

/**
 * Signs in at a SAML IdP as a person would (follows redirects, fills the password form) and returns the auto-POST
 * form that carries the Response to the ACS (SAML 2.0 Bindings 3.5), without posting it.
 */
async function samlSignIn(start: string, username: string, password: string): Promise<{ action: string; xml: string }> {
  const agent = new FormAgent();
  let res = await agent.request(start);
  let url = start;
  for (let hops = 0; hops < 10; hops++) {
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) {
      url = new URL(location, url).toString();
      res = await agent.request(url);
      continue;
    }
    const html = await res.text();
    const forms = parseForms(html, url);
    const response = forms.find((f) => 'SAMLResponse' in f.fields);
    if (response) {
      return {
        action: response.action,
        xml: Buffer.from(response.fields.SAMLResponse, 'base64').toString('utf8'),
      };
    }
    const login = forms.find((f) => f.visible.includes('password'));
    if (!login) throw new Error(`no login form at ${url} (${res.status}): ${html.slice(0, 500)}`);
    res = await agent.submit(login, { username, password });
    url = login.action;
  }
  throw new Error(`SAML sign-in did not settle (last ${url})`);
}

describe('Keycloak (upstream OIDC OP and SAML IdP)', () => {
  let kc: Keycloak;
  beforeAll(async () => {
    kc = await keycloak();
  });

  it('serves the corp and other realms as two issuers', async () => {
    for (const realm of ['corp', 'other']) {
      const res = await fetch(`${kc.issuer(realm)}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      const discovery = (await res.json()) as { issuer: string; authorization_endpoint: string };
      expect(discovery.issuer).toBe(kc.issuer(realm));
    }
    expect(kc.issuer('corp')).not.toBe(kc.issuer('other'));
  });

  it('has the fixture users with their groups and email state (admin API)', async () => {
    const token = await kc.adminToken();
    const get = async <T>(path: string): Promise<T> => {
      const res = await fetch(`${kc.url}/admin/realms/corp${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return (await res.json()) as T;
    };
    type User = { id: string; username: string; email: string; emailVerified: boolean; requiredActions: string[] };
    const users = await get<User[]>('/users?briefRepresentation=false&max=100');
    const byName = new Map(users.map((u) => [u.username, u]));
    const expected: Record<string, { email: string; verified: boolean; groups: string[] }> = {
      alice: { email: 'alice@corp.example', verified: true, groups: ['engineering', 'finance'] },
      bob: { email: 'bob@corp.example', verified: true, groups: ['engineering'] },
      mallory: { email: 'victim@corp.example', verified: false, groups: [] },
      carol: { email: 'carol@corp.example', verified: true, groups: [] },
    };
    for (const [name, want] of Object.entries(expected)) {
      const user = byName.get(name);
      expect(user).toMatchObject({ email: want.email, emailVerified: want.verified, requiredActions: [] });
      const groups = await get<Array<{ name: string }>>(`/users/${user?.id ?? ''}/groups`);
      expect(groups.map((g) => g.name).sort()).toEqual(want.groups);
    }
    const all = await get<Array<{ name: string }>>('/groups');
    expect(all.map((g) => g.name).sort()).toEqual(['admins', 'engineering', 'finance']);
  });

  it('issues an ID token with the claims the broker maps (authorization code flow, client broker)', async () => {
    const redirectUri = `${BROKER}/corp/callback`;
    const auth = new URL(`${kc.issuer('corp')}/protocol/openid-connect/auth`);
    auth.search = new URLSearchParams({
      client_id: KEYCLOAK_CLIENTS.corp.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: redirectUri,
      state: 'smoke-state',
      nonce: 'smoke-nonce',
    }).toString();
    const agent = new FormAgent();
    const end = await agent.drive(auth.toString(), { username: 'alice', password: KEYCLOAK_PASSWORD }, redirectUri);
    const back = new URL(end.url);
    // RFC 9207: Keycloak names itself in the authorization response.
    expect(back.searchParams.get('iss')).toBe(kc.issuer('corp'));
    const code = back.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    const res = await fetch(`${kc.issuer('corp')}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${KEYCLOAK_CLIENTS.corp.clientId}:${KEYCLOAK_CLIENTS.corp.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code ?? '', redirect_uri: redirectUri }),
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { id_token: string; access_token: string };
    const id = decodeJwt(tokens.id_token);
    expect(id).toMatchObject({
      iss: kc.issuer('corp'),
      aud: 'broker',
      nonce: 'smoke-nonce',
      email: 'alice@corp.example',
      email_verified: true,
      name: 'Alice Liddell',
      preferred_username: 'alice',
      groups: ['engineering', 'finance'],
      amr: ['pwd'],
      acr: '1',
    });
    const userinfo = await fetch(`${kc.issuer('corp')}/protocol/openid-connect/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await userinfo.json()).toMatchObject({
      sub: id.sub,
      email: 'alice@corp.example',
      email_verified: true,
      groups: ['engineering', 'finance'],
    });
    expect(await kc.userSessions('corp', 'alice')).toBeGreaterThanOrEqual(1);
  });

  it('publishes a SAML IdP descriptor with a signing certificate and signs assertions for our SP', async () => {
    const descriptor = await (await fetch(kc.samlDescriptorUrl('corp'))).text();
    const certs = signingCertificates(descriptor);
    expect(certs.length).toBeGreaterThan(0);
    const acs = `${BROKER}/kc-saml/saml/acs`;
    const { action, xml } = await samlSignIn(
      authnRequestUrl(`${kc.issuer('corp')}/protocol/saml`, KEYCLOAK_CLIENTS.corp.samlClientId, acs),
      'bob',
      KEYCLOAK_PASSWORD,
    );
    expect(action).toBe(acs);
    const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
    expect(assertion).toContain('<dsig:Signature');
    expect(assertion.replace(/\s+/g, '')).toContain(certs[0]);
    expect(assertion).toContain(`<saml:Audience>${KEYCLOAK_CLIENTS.corp.samlClientId}</saml:Audience>`);
    expect(assertion).toContain('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
    expect(assertion).toMatch(/Name="email"[^>]*>\s*<saml:AttributeValue[^>]*>bob@corp\.example</);
    expect(assertion).toMatch(/Name="groups"[^>]*>\s*<saml:AttributeValue[^>]*>engineering</);
    expect(assertion).toMatch(/Name="displayName"[^>]*>\s*<saml:AttributeValue[^>]*>Bob Builder</);
  });
});

describe('SimpleSAMLphp (upstream SAML IdP)', () => {
  let ssp: SimpleSamlPhp;
  beforeAll(async () => {
    ssp = await simplesamlphp();
  });

  it('publishes IdP metadata with a signing certificate', async () => {
    const res = await fetch(ssp.metadataUrl);
    expect(res.status).toBe(200);
    const metadata = await res.text();
    expect(metadata).toContain(`entityID="${ssp.entityId}"`);
    expect(signingCertificates(metadata).length).toBeGreaterThan(0);
    expect(metadata).toContain(`Location="${ssp.ssoUrl}"`);
  });

  it('signs an assertion for our SP at the ACS the test registered', async () => {
    const acs = `${BROKER}/ssp-${randomBytes(3).toString('hex')}/saml/acs`;
    const unregister = ssp.registerSp({ acs, slo: acs.replace(/acs$/, 'slo') });
    try {
      const metadata = await (await fetch(ssp.metadataUrl)).text();
      const { action, xml } = await samlSignIn(
        authnRequestUrl(ssp.ssoUrl, SIMPLESAMLPHP_SP_ENTITY_ID, acs),
        'sam',
        SIMPLESAMLPHP_PASSWORD,
      );
      expect(action).toBe(acs);
      const assertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(xml)?.[0] ?? '';
      expect(assertion).toContain('<ds:Signature');
      expect(assertion.replace(/\s+/g, '')).toContain(signingCertificates(metadata)[0]);
      expect(assertion).toContain(`<saml:Audience>${SIMPLESAMLPHP_SP_ENTITY_ID}</saml:Audience>`);
      expect(assertion).toMatch(/Name="email"[^>]*>\s*<saml:AttributeValue[^>]*>sam@uni\.example</);
      expect(assertion).toMatch(
        /Name="eduPersonAffiliation"[^>]*><saml:AttributeValue[^>]*>member<\/saml:AttributeValue><saml:AttributeValue[^>]*>staff</,
      );
    } finally {
      unregister();
    }
  });
});
