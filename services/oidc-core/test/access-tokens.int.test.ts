/**
 * Access tokens and their introspection, end to end through oidc-core (real app, login and consent by form posts) and
 * the nhe-delegation sidecar (in process, real NATS JetStream):
 * - every kind of access token (authorization code, refresh, device code, client credentials, token exchange) is
 *   an RFC 9068 JWT access token by a strict, independent check (libs/testing rfc9068.ts): `typ: at+jwt`, and
 *   iss, exp, aud, sub, client_id, iat, jti; the delegation token carries client_id beside the spec's numeric azp;
 * - introspection (RFC 7662) answers every kind: active with the token's claims, and inactive when it expired, was
 *   signed by another tenant, its user or NHE was disabled, its client deleted, or its grant revoked;
 * - only to the token's own client and to the clients its API registers as introspecting for it (RFC 7662 section
 *   4); any other client, a management token's included, gets { active: false }.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, SignJWT, type JSONWebKeySet } from 'jose';
import { basicAuth, createClient, expectRfc9068AccessToken, seedDelegationTenant } from '@idp/testing';
import { MANAGEMENT_AUDIENCE } from '@idp/tokens';
import { CLAIM_GRANT_ID } from '../src/provider/introspection';
import { exchangeSidecar } from './exchange-sidecar';
import { PEPPER, startPagesApp, type PagesApp } from './pages-app';
import {
  authCodeFlow,
  clientCredentials,
  deviceFlow,
  post,
  refresh,
  type TestClient,
  type TokenBody,
} from './scopes-harness';

const ORDERS = 'https://api.orders.example';
/** A resource server whose access tokens live one second (expiry without a forged token). */
const SHORT = 'https://api.short.example';
const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const REDIRECT = 'http://127.0.0.1:8405/callback';

const sidecar = exchangeSidecar();
let app: PagesApp;
let T: number;
let issuer: string;
let jwks: JSONWebKeySet;
/** First-party confidential client registered for every grant (and client roles for client credentials). */
let tokensApp: TestClient;
let tokensAppNumericId: number;
/** Another confidential client, registered as introspecting for ORDERS and SHORT: introspects tokensApp's tokens. */
let auditor: TestClient;
/** A public client: may introspect only its own tokens. */
let spa: { clientId: string };
/** Tenant B, on the same host and database. */
let otherTenant: { tenantId: number; client: { clientId: string; clientSecret: string } };

/** One token of each kind, obtained once. */
const tokens: Record<'code' | 'refresh' | 'device' | 'client_credentials' | 'exchange', string> = {} as never;
let refreshToken: string;

function ok(res: { status: number; body: TokenBody }): TokenBody {
  expect({ status: res.status, error: res.body.error, description: res.body.error_description }).toEqual({
    status: 200,
    error: undefined,
    description: undefined,
  });
  return res.body;
}

async function introspect(
  token: string,
  as: { clientId: string; clientSecret?: string } = auditor,
  path = `/auth/${T}/token/introspection`,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form: Record<string, string> = { token };
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (as.clientSecret) headers.authorization = basicAuth(as.clientId, as.clientSecret);
  else form.client_id = as.clientId;
  const res = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers, body: new URLSearchParams(form) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function exchange(subjectToken: string, scope = 'orders:read') {
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
      scope,
    },
    tokensApp,
  );
}

beforeAll(async () => {
  app = await startPagesApp('accesstokens', { forwardTokenExchange: sidecar.forwarder });
  const { models } = app.db;
  T = app.tenant.tenantId;
  issuer = `${app.baseUrl}/auth/${T}`;
  const clerk = await models.Role.findOne({ tenantId: T, name: 'orders-clerk' }).lean();
  await models.ResourceServer.create({
    tenantId: T,
    identifier: SHORT,
    name: 'Short',
    scopes: ['short:read'],
    introspectionClientIds: ['auditor'],
    config: {
      accessToken: { lifetime: 1 },
      nhe: { acceptDelegationTokens: false, requireDelegationTokens: false, allowedNheTypes: [] },
    },
  });
  await models.ResourceServer.updateOne(
    { tenantId: T, identifier: ORDERS },
    { $set: { introspectionClientIds: ['auditor'] } },
  );
  const shortRole = await models.Role.create({
    tenantId: T,
    name: 'short-reader',
    resourceServer: SHORT,
    permissions: ['short:read'],
  });
  const roleIds = [String(clerk!._id), String(shortRole._id)];
  const c = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'tokens-app',
    name: 'Tokens',
    grantTypes: ['authorization_code', 'refresh_token', DEVICE, 'client_credentials', TE],
    redirectUris: [REDIRECT],
    firstParty: true,
    delegationEnabled: true,
    roleIds,
  });
  tokensApp = { ...c, redirectUri: REDIRECT };
  tokensAppNumericId = c.numericId;
  auditor = {
    ...(await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'auditor',
      name: 'Auditor',
      grantTypes: ['client_credentials'],
    })),
    redirectUri: REDIRECT,
  };
  spa = await createClient(models, PEPPER, {
    tenantId: T,
    clientId: 'spa',
    name: 'SPA',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code'],
    redirectUris: [REDIRECT],
  });
  const b = await seedDelegationTenant(models, app.keyStore, {
    tenantId: T + randomInt(1, 1000),
    clientSecretPepper: PEPPER,
  });
  const bRole = await models.Role.findOne({ tenantId: b.tenantId, name: 'orders-clerk' }).lean();
  otherTenant = {
    tenantId: b.tenantId,
    client: await createClient(models, PEPPER, {
      tenantId: b.tenantId,
      clientId: 'tokens-app',
      name: 'B',
      grantTypes: ['client_credentials'],
      roleIds: [String(bRole!._id)],
    }),
  };
  jwks = (await (await fetch(`${issuer}/jwks`)).json()) as JSONWebKeySet;

  const code = ok(
    await authCodeFlow(app, tokensApp, { scope: 'openid offline_access', resource: ORDERS, prompt: 'consent' }),
  );
  tokens.code = code.access_token!;
  const refreshed = ok(await refresh(app, tokensApp, code.refresh_token!));
  tokens.refresh = refreshed.access_token!;
  refreshToken = refreshed.refresh_token!;
  tokens.device = ok(await deviceFlow(app, tokensApp, { scope: 'openid', resource: ORDERS })).access_token!;
  tokens.client_credentials = ok(await clientCredentials(app, tokensApp, { resource: ORDERS })).access_token!;
  tokens.exchange = ok(await exchange(tokens.device)).access_token!;
}, 120_000);

afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (app as PagesApp | undefined)?.stop();
  await sidecar.stop();
});

const KINDS = ['code', 'refresh', 'device', 'client_credentials', 'exchange'] as const;

describe('every kind of access token is an RFC 9068 JWT access token (strict check)', () => {
  it.each(KINDS)('%s', async (kind) => {
    const { header, payload } = await expectRfc9068AccessToken(tokens[kind], {
      issuer,
      jwks,
      audience: ORDERS,
      clientId: 'tokens-app',
    });
    expect(header.typ).toBe('at+jwt');
    if (kind === 'client_credentials') expect(payload.sub).toBe('tokens-app');
    else expect(payload.sub).toBe(app.tenant.user.id);
    if (kind === 'exchange') {
      // The spec's numeric azp stays; client_id is RFC 9068's string beside it.
      expect(payload.azp).toBe(tokensAppNumericId);
      expect(payload['org.vendor.nhe.delegation']).toBe(true);
    }
  });
});

describe("who may introspect (RFC 7662 section 4): the token's client and its API's registered introspectors", () => {
  let stranger: TestClient;
  beforeAll(async () => {
    stranger = {
      ...(await createClient(app.db.models, PEPPER, {
        tenantId: T,
        clientId: 'stranger',
        name: 'Stranger',
        grantTypes: ['client_credentials'],
      })),
      redirectUri: REDIRECT,
    };
  });

  it.each(KINDS)(
    "%s: the token's own client and the API's registered introspector see it active; another confidential client does not",
    async (kind) => {
      const own = await introspect(tokens[kind], { clientId: 'tokens-app', clientSecret: tokensApp.clientSecret });
      expect(own.body).toEqual({ ...decodeJwt(tokens[kind]), active: true, token_type: 'Bearer' });
      expect((await introspect(tokens[kind], auditor)).body.active).toBe(true);
      expect(await introspect(tokens[kind], stranger)).toEqual({ status: 200, body: { active: false } });
    },
  );

  it("an API's introspector sees only that API's tokens", async () => {
    const { models } = app.db;
    await models.ResourceServer.create({
      tenantId: T,
      identifier: 'https://api.other.example',
      name: 'Other',
      scopes: ['other:read'],
      introspectionClientIds: ['stranger'],
    });
    const role = await models.Role.create({
      tenantId: T,
      name: 'other-reader',
      resourceServer: 'https://api.other.example',
      permissions: ['other:read'],
    });
    await models.Client.updateOne({ tenantId: T, clientId: 'tokens-app' }, { $push: { roleIds: String(role._id) } });
    app.pool.evict(T);
    const other = ok(await clientCredentials(app, tokensApp, { resource: 'https://api.other.example' })).access_token!;
    expect((await introspect(other, stranger)).body.active).toBe(true);
    expect((await introspect(other, auditor)).body).toEqual({ active: false });
    expect((await introspect(tokens.client_credentials, stranger)).body).toEqual({ active: false });
  });

  it('a management API token: only the client it was issued to (another client of the tenant learns nothing)', async () => {
    const admin = app.tenant.admin;
    const management = ok(await clientCredentials(app, admin, { resource: MANAGEMENT_AUDIENCE })).access_token!;
    expect((await introspect(management, admin)).body).toMatchObject({
      active: true,
      client_id: admin.clientId,
      aud: MANAGEMENT_AUDIENCE,
    });
    for (const caller of [auditor, tokensApp, stranger])
      expect({ caller: caller.clientId, body: (await introspect(management, caller)).body }).toEqual({
        caller: caller.clientId,
        body: { active: false },
      });
  });

  it("an opaque token (no API: UserInfo only) and a refresh token: only the token's own client", async () => {
    const res = ok(await authCodeFlow(app, tokensApp, { scope: 'openid offline_access', prompt: 'consent' }));
    for (const token of [res.access_token!, res.refresh_token!]) {
      expect(
        (await introspect(token, { clientId: 'tokens-app', clientSecret: tokensApp.clientSecret })).body.active,
      ).toBe(true);
      expect((await introspect(token, auditor)).body).toEqual({ active: false });
    }
  });
});

describe('introspection of each kind (RFC 7662): one path for every access token', () => {
  it.each(KINDS)('%s is active, with its claims', async (kind) => {
    const res = await introspect(tokens[kind]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...decodeJwt(tokens[kind]), active: true, token_type: 'Bearer' });
  });

  it('through the /_api alias too', async () => {
    expect((await introspect(tokens.code, auditor, `/_api/auth/${T}/token/introspection`)).body.active).toBe(true);
  });

  it("a user's JWT access token names its grant; a client-credentials token has none", () => {
    expect(typeof decodeJwt(tokens.code)[CLAIM_GRANT_ID]).toBe('string');
    expect(decodeJwt(tokens.refresh)[CLAIM_GRANT_ID]).toBe(decodeJwt(tokens.code)[CLAIM_GRANT_ID]);
    expect(decodeJwt(tokens.client_credentials)).not.toHaveProperty(CLAIM_GRANT_ID);
  });

  it('a tampered token, or one with padding appended, is inactive', async () => {
    const [h, p] = tokens.code.split('.');
    expect((await introspect(`${h}.${p}.${Buffer.alloc(64, 1).toString('base64url')}`)).body).toEqual({
      active: false,
    });
    expect((await introspect(`${tokens.code}==`)).body).toEqual({ active: false });
  });

  it('an expired token is inactive', async () => {
    const short = ok(await clientCredentials(app, tokensApp, { resource: SHORT })).access_token!;
    expect((await introspect(short)).body.active).toBe(true);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await introspect(short)).body).toEqual({ active: false });
  });

  it("another tenant's token is inactive (its own tenant says active)", async () => {
    const res = await post(
      { ...app, tenant: { ...app.tenant, tenantId: otherTenant.tenantId } },
      '/oidc/token',
      { grant_type: 'client_credentials', resource: ORDERS },
      otherTenant.client,
    );
    const foreign = ok(res).access_token!;
    expect(
      (await introspect(foreign, otherTenant.client, `/auth/${otherTenant.tenantId}/token/introspection`)).body.active,
    ).toBe(true);
    expect((await introspect(foreign)).body).toEqual({ active: false });
  });

  it('a public client may introspect only its own tokens, even when an API lists it (it proves no identity)', async () => {
    const { models } = app.db;
    await models.ResourceServer.updateOne(
      { tenantId: T, identifier: ORDERS },
      { $set: { introspectionClientIds: ['auditor', 'spa'] } },
    );
    app.pool.evict(T);
    try {
      for (const kind of KINDS)
        expect({ kind, body: (await introspect(tokens[kind], spa)).body }).toEqual({ kind, body: { active: false } });
    } finally {
      await models.ResourceServer.updateOne(
        { tenantId: T, identifier: ORDERS },
        { $set: { introspectionClientIds: ['auditor'] } },
      );
      app.pool.evict(T);
    }
  });

  it('a disabled user makes the user tokens and the delegation token inactive; enabled again, they are active', async () => {
    const { models } = app.db;
    await models.User.updateOne({ tenantId: T, _id: app.tenant.user.id }, { $set: { enabled: false } });
    try {
      for (const kind of ['code', 'refresh', 'device', 'exchange'] as const)
        expect({ kind, body: (await introspect(tokens[kind])).body }).toEqual({ kind, body: { active: false } });
      expect((await introspect(tokens.client_credentials)).body.active).toBe(true);
    } finally {
      await models.User.updateOne({ tenantId: T, _id: app.tenant.user.id }, { $set: { enabled: true } });
    }
    expect((await introspect(tokens.code)).body.active).toBe(true);
  });

  it('a disabled NHE makes its delegation token inactive', async () => {
    const { models } = app.db;
    await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: false } });
    try {
      expect((await introspect(tokens.exchange)).body).toEqual({ active: false });
      expect((await introspect(tokens.device)).body.active).toBe(true);
    } finally {
      await models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: true } });
    }
    expect((await introspect(tokens.exchange)).body.active).toBe(true);
  });

  it("a deleted client's tokens are inactive, a disabled client's too", async () => {
    const { models } = app.db;
    const role = await models.Role.findOne({ tenantId: T, name: 'orders-clerk' }).lean();
    const gone = await createClient(models, PEPPER, {
      tenantId: T,
      clientId: 'gone-app',
      name: 'Gone',
      grantTypes: ['client_credentials'],
      roleIds: [String(role!._id)],
    });
    const token = ok(await clientCredentials(app, gone, { resource: ORDERS })).access_token!;
    expect((await introspect(token)).body.active).toBe(true);
    await models.Client.updateOne({ tenantId: T, clientId: 'gone-app' }, { $set: { enabled: false } });
    expect((await introspect(token)).body).toEqual({ active: false });
    await models.Client.deleteOne({ tenantId: T, clientId: 'gone-app' });
    expect((await introspect(token)).body).toEqual({ active: false });
  });

  it('revoking the refresh token revokes the grant: the JWT access tokens issued under it are inactive', async () => {
    // A JWT access token itself cannot be revoked (RFC 7009 section 2.2.1: unsupported_token_type); its grant can.
    const jwtRevocation = await post(app, '/token/revocation', { token: tokens.refresh }, tokensApp);
    expect([jwtRevocation.status, jwtRevocation.body.error]).toEqual([400, 'unsupported_token_type']);
    expect((await introspect(tokens.refresh)).body.active).toBe(true);

    const revoked = await fetch(`${issuer}/token/revocation`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(tokensApp.clientId, tokensApp.clientSecret),
      },
      body: new URLSearchParams({ token: refreshToken, token_type_hint: 'refresh_token' }),
    });
    expect(revoked.status).toBe(200);
    expect((await introspect(tokens.code)).body).toEqual({ active: false });
    expect((await introspect(tokens.refresh)).body).toEqual({ active: false });
    // Another grant (the device flow's) is untouched.
    expect((await introspect(tokens.device)).body.active).toBe(true);
  });

  it('a token whose grant has ended delegates nothing: token exchange refuses it, a live grant still exchanges', async () => {
    // Runs after the refresh token (and with it the code's grant) was revoked above.
    const ended = await exchange(tokens.code);
    expect([ended.status, ended.body.error, ended.body.error_description]).toEqual([
      400,
      'invalid_grant',
      'subject_token was issued under a grant that has ended (revoked or signed out)',
    ]);
    expect((await exchange(tokens.refresh)).body.error).toBe('invalid_grant');
    expect((await exchange(tokens.device)).status).toBe(200);
  });

  it('a DPoP-bound token introspects with its cnf and token_type DPoP', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({ htm: 'POST', htu: `${issuer}/oidc/token` })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(privateKey);
    const res = await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(tokensApp.clientId, tokensApp.clientSecret),
        dpop: proof,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: ORDERS }),
    });
    const body = (await res.json()) as TokenBody;
    expect([res.status, body.token_type]).toEqual([200, 'DPoP']);
    const claims = decodeJwt(body.access_token!);
    expect(claims.cnf).toEqual({ jkt: await calculateJwkThumbprint(await exportJWK(publicKey)) });
    expect((await introspect(body.access_token!)).body).toEqual({ ...claims, active: true, token_type: 'DPoP' });
  });

  it('without client authentication the provider answers invalid_client, as before', async () => {
    const res = await introspect(tokens.code, { clientId: 'auditor', clientSecret: 'not-the-secret' });
    expect([res.status, res.body.error]).toEqual([401, 'invalid_client']);
  });
});
