/**
 * A small, fast subset of the OpenID Foundation certification checks, run against the running system (every service
 * a process, through the dev router), for the profiles and tenant configurations of docs/reference/certification.md.
 * The full conformance suite is a hosted Java service run from outside against that documented configuration; these
 * checks are the points it found and that must not come back:
 * - Dynamic OP (settings.openidDynamicProfile on, settings.registration open): discovery; a client registers with
 *   its keys (private_key_jwt) and openid-client runs the code flow with a signed request object, without PKCE, and
 *   verifies the signed UserInfo; a client registered for `id_token` gets one in the fragment;
 * - Form Post OP (the profile off): a request object asking for form_post gets request_not_supported as a form post;
 * - Config OP: after a key rotation, the retired key is published as it was.
 */
import { randomInt } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import * as oidc from 'openid-client';
import { seedDelegationTenant, type SeededTenant } from '@idp/testing';
import { KeyEncryptionKey, KeyStore } from '@idp/tokens';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { FormAgent } from '../../src/clients/form-agent';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const RP = 'https://rp.example.test/cb';

let h: Harness;
/** The Form Post and Config OP tenant: as shipped. */
let plain: SeededTenant;
/** The Dynamic OP tenant. */
let dynamic: SeededTenant;
let rpKey: CryptoKey;
let rpJwk: JWK;

const issuerOf = (t: SeededTenant) => `${h.topology.baseUrl}/auth/${t.tenantId}`;
const person = (t: SeededTenant) => ({ username: t.user.username, password: t.user.password });

beforeAll(async () => {
  h = await startHarness('certification');
  plain = h.tenant;
  const keyStore = new KeyStore(h.db.models, new KeyEncryptionKey(h.topology.secrets.keyEncryptionKey));
  dynamic = await seedDelegationTenant(h.db.models, keyStore, {
    tenantId: plain.tenantId + randomInt(1, 1000),
    tenantName: 'dynamic OP',
    clientSecretPepper: h.topology.secrets.clientSecretPepper,
  });
  // The documented configuration (before the tenant's first request, so oidc-core builds it with these settings).
  await h.db.models.Tenant.updateOne(
    { _id: dynamic.tenantId },
    {
      $set: {
        'settings.registration': { mode: 'open', rateLimit: { maxPerWindow: 100, windowSeconds: 3600 } },
        'settings.openidDynamicProfile': { enabled: true },
      },
    },
  );
  const pair = await generateKeyPair('ES256', { extractable: true });
  rpKey = pair.privateKey;
  rpJwk = { ...(await exportJWK(pair.publicKey)), kid: 'rp-1', alg: 'ES256', use: 'sig' };
}, 180_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

async function register(body: Record<string, unknown>) {
  const res = await fetch(`${issuerOf(dynamic)}/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as Record<string, unknown>;
}

describe('Dynamic OP', () => {
  test('discovery advertises request objects, request_uri, signed UserInfo and the id_token response types', async () => {
    const d = (await (await fetch(`${issuerOf(dynamic)}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect([d.request_parameter_supported, d.request_uri_parameter_supported]).toEqual([true, true]);
    expect(d.response_types_supported).toEqual(['code', 'id_token', 'id_token token']);
    expect(d.userinfo_signing_alg_values_supported).toEqual(['RS256', 'ES256']);
    expect(d.registration_endpoint).toBe(`${issuerOf(dynamic)}/reg`);
  });

  test('a registered confidential client: signed request object, no PKCE, signed UserInfo (openid-client)', async () => {
    const created = await register({
      redirect_uris: [RP],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [rpJwk] },
      userinfo_signed_response_alg: 'RS256',
    });
    const config = await oidc.discovery(
      new URL(issuerOf(dynamic)),
      String(created.client_id),
      { userinfo_signed_response_alg: 'RS256', id_token_signed_response_alg: 'ES256' },
      oidc.PrivateKeyJwt({ key: rpKey, kid: 'rp-1' }),
      { execute: [oidc.allowInsecureRequests] },
    );
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = await oidc.buildAuthorizationUrlWithJAR(
      config,
      { redirect_uri: RP, scope: 'openid', state, nonce },
      { key: rpKey, kid: 'rp-1' },
    );
    const end = await new FormAgent().drive(url.toString(), person(dynamic), RP);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(end.url), {
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    const sub = tokens.claims()!.sub;
    expect((await oidc.fetchUserInfo(config, tokens.access_token, sub)).sub).toBe(sub);
  }, 60_000);

  test('a client registered for id_token gets one in the fragment', async () => {
    const created = await register({
      redirect_uris: [RP],
      token_endpoint_auth_method: 'none',
      response_types: ['id_token'],
      grant_types: ['implicit'],
    });
    const q = new URLSearchParams({
      client_id: String(created.client_id),
      response_type: 'id_token',
      scope: 'openid',
      redirect_uri: RP,
      nonce: 'n-e2e',
    });
    const end = await new FormAgent().drive(`${issuerOf(dynamic)}/authorize?${q}`, person(dynamic), RP);
    const idToken = new URLSearchParams(new URL(end.url).hash.slice(1)).get('id_token')!;
    expect(decodeJwt(idToken)).toMatchObject({ aud: created.client_id, nonce: 'n-e2e', iss: issuerOf(dynamic) });
  }, 60_000);
});

describe('Form Post OP (the Dynamic profile off)', () => {
  test('a request object asking for form_post gets request_not_supported as a form post', async () => {
    const object = [
      Buffer.from('{"alg":"none"}').toString('base64url'),
      Buffer.from(JSON.stringify({ response_mode: 'form_post', state: 'fp' })).toString('base64url'),
      '',
    ].join('.');
    const q = new URLSearchParams({
      client_id: plain.client.clientId,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: plain.client.redirectUri,
      request: object,
    });
    const res = await fetch(`${issuerOf(plain)}/authorize?${q}`, { redirect: 'manual' });
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain(`<form method="post" action="${plain.client.redirectUri}">`);
    expect(html).toMatch(/name="error" value="request_not_supported"/);
    expect(html).toMatch(/name="state" value="fp"/);
  });
});

describe('Config OP', () => {
  test('after a rotation the retired key is published exactly as it was', async () => {
    type Jwks = { keys: Array<Record<string, unknown>> };
    const jwksUrl = `${issuerOf(plain)}/jwks`;
    const before = ((await (await fetch(jwksUrl)).json()) as Jwks).keys;
    const admin = await clientCredentialsToken(
      h.topology.baseUrl,
      plain.tenantId,
      plain.admin.clientId,
      plain.admin.clientSecret,
      'urn:idp:management',
    );
    const rotated = await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${plain.tenantId}/signing-keys/rotations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ alg: 'ES256' }),
    });
    expect(rotated.status).toBe(201);
    let after: Jwks['keys'] = before;
    for (let i = 0; i < 50 && after.length === before.length; i++) {
      after = ((await (await fetch(jwksUrl)).json()) as Jwks).keys;
      if (after.length === before.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(after.length).toBe(before.length + 1);
    for (const key of before) expect(after.find((k) => k.kid === key.kid)).toEqual(key);
  }, 60_000);
});
