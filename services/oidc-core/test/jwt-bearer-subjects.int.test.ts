/**
 * How a trusted issuer's assertion names a local user at the real token endpoint (JWT bearer grant, RFC 7523): a
 * username claim the issuer is authoritative for, and just-in-time provisioning, which makes the user the mapping
 * did not find (linked_identity: an account linked to the upstream provider, as its first sign-in would; username_claim:
 * a user with that name) and otherwise leaves an unknown subject refused. The issuer's keys are served over HTTP by
 * the test, as the other organisation's JWKS.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { basicAuth, createClient } from '@idp/testing';
import { startPagesApp, PEPPER, type PagesApp } from './pages-app';

const NAMES = 'https://names.other-org.example';
const LINKS = 'https://links.other-org.example';
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

let app: PagesApp;
let jwks: Server;
let key: CryptoKey;
let rp: { clientId: string; clientSecret: string };
let issuerUrl = '';
let t = 0;

beforeAll(async () => {
  app = await startPagesApp('jwtbearersubjects', { upstreamPolicy: { allowLoopback: true } });
  const ec = await generateKeyPair('ES256');
  key = ec.privateKey as CryptoKey;
  const keys = [{ ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256' }];
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
  const jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  t = app.tenant.tenantId;
  issuerUrl = `${app.baseUrl}/auth/${t}`;
  const { models } = app.db;
  await models.TrustedIssuer.create({
    tenantId: t,
    issuer: NAMES,
    jwksUri,
    algorithms: ['ES256'],
    subjectMapping: 'username_claim',
    subjectClaim: 'preferred_username',
  });
  await models.UpstreamProvider.create({
    tenantId: t,
    alias: 'other-org',
    displayName: 'Other Org',
    type: 'oidc',
    oidc: {
      issuer: LINKS,
      clientId: 'us-at-other-org',
      clientAuthMethod: 'client_secret_basic',
      scopes: ['openid'],
      pkce: true,
      subjectClaim: 'sub',
      fetchUserinfo: false,
    },
  });
  await models.TrustedIssuer.create({
    tenantId: t,
    issuer: LINKS,
    jwksUri,
    algorithms: ['ES256'],
    subjectMapping: 'linked_identity',
    upstreamProvider: 'other-org',
  });
  rp = await createClient(models, PEPPER, {
    tenantId: t,
    clientId: 'subjects-client',
    name: 'subjects-client',
    grantTypes: [GRANT],
    redirectUris: [],
  });
}, 60_000);

afterAll(async () => {
  jwks.close();
  await app.stop();
});

async function redeem(iss: string, claims: JWTPayload) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ aud: issuerUrl, jti: randomUUID(), iat: now, exp: now + 120, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'ec' })
    .setIssuer(iss)
    .sign(key);
  const res = await fetch(`${issuerUrl}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(rp.clientId, rp.clientSecret),
    },
    body: new URLSearchParams({ grant_type: GRANT, assertion: jwt, resource: app.tenant.resource }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const setIssuer = (issuer: string, set: Record<string, unknown>) =>
  app.db.models.TrustedIssuer.updateOne({ tenantId: t, issuer }, { $set: set });

it("username_claim: the user whose username is the claim's value", async () => {
  const res = await redeem(NAMES, { sub: 'opaque-1', preferred_username: app.tenant.user.username });
  expect(res.status).toBe(200);
  expect(decodeJwt(String(res.body.access_token)).sub).toBe(app.tenant.user.id);
  // A claim that is not a username, or missing, names nobody.
  for (const bad of [{ preferred_username: 'has space' }, {}, { preferred_username: 42 }]) {
    const refused = await redeem(NAMES, { sub: 'opaque-1', ...bad });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  }
});

it('username_claim: an unknown name is refused, and with just-in-time provisioning becomes one new user', async () => {
  const name = `new-${randomUUID().slice(0, 8)}`;
  expect(await redeem(NAMES, { sub: 'x', preferred_username: name })).toMatchObject({
    status: 400,
    body: { error: 'invalid_grant', error_description: 'the assertion names no user of this tenant' },
  });
  expect(await app.db.models.User.exists({ tenantId: t, username: name })).toBeNull();
  await setIssuer(NAMES, { jitProvisioning: true });
  try {
    // Two redemptions at once make one user between them.
    const [a, b] = await Promise.all([
      redeem(NAMES, { sub: 'x', preferred_username: name }),
      redeem(NAMES, { sub: 'x', preferred_username: name }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const users = await app.db.models.User.find({ tenantId: t, username: name }).lean();
    expect(users).toHaveLength(1);
    expect(decodeJwt(String(a.body.access_token)).sub).toBe(String(users[0]!._id));
    expect(decodeJwt(String(b.body.access_token)).sub).toBe(String(users[0]!._id));
    // A user made this way has no usable password, and an administrator's disabling still wins.
    await app.db.models.User.updateOne({ _id: users[0]!._id }, { $set: { enabled: false } });
    expect(await redeem(NAMES, { sub: 'x', preferred_username: name })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'the user is disabled' },
    });
  } finally {
    await setIssuer(NAMES, { jitProvisioning: false });
  }
});

it('linked_identity: an unlinked subject is refused, and with just-in-time provisioning gets a linked account', async () => {
  const sub = `person-${randomUUID().slice(0, 8)}`;
  expect(await redeem(LINKS, { sub })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  await setIssuer(LINKS, { jitProvisioning: true });
  try {
    const first = await redeem(LINKS, { sub });
    expect(first.status).toBe(200);
    const link = await app.db.models.UpstreamLink.findOne({ tenantId: t, provider: 'other-org', subject: sub }).lean();
    expect(link).toMatchObject({ issuer: LINKS, linkedBy: 'jit' });
    expect(decodeJwt(String(first.body.access_token)).sub).toBe(link!.userId);
    // The next assertion for the same subject is the same account.
    const again = await redeem(LINKS, { sub });
    expect(decodeJwt(String(again.body.access_token)).sub).toBe(link!.userId);
    // A disabled upstream provider links nobody and makes nobody.
    await app.db.models.UpstreamProvider.updateOne({ tenantId: t, alias: 'other-org' }, { $set: { enabled: false } });
    const other = `person-${randomUUID().slice(0, 8)}`;
    expect(await redeem(LINKS, { sub: other })).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await app.db.models.UpstreamLink.exists({ tenantId: t, subject: other })).toBeNull();
  } finally {
    await setIssuer(LINKS, { jitProvisioning: false });
    await app.db.models.UpstreamProvider.updateOne({ tenantId: t, alias: 'other-org' }, { $set: { enabled: true } });
  }
});
