/**
 * Strict token handling, replayed through oidc-core's token endpoint and the sidecar (real FerretDB and NATS):
 * a JWT with `==` appended was accepted as a subject token and at introspection; a DPoP proof with a string `iat`
 * was reported as a bad signature; a subject token bound by a confirmation method other than `jkt` was exchanged
 * as if unbound. Each is now refused by the shared verifier (@idp/resource-server), naming its cause.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { basicAuth, type SeededTenant } from '@idp/testing';
import { GRANT_TYPE_TOKEN_EXCHANGE } from '@idp/tokens';
import { startStack, type Stack } from './stack';

const T = randomInt(100_000, 900_000);
let s: Stack;
let t: SeededTenant;
let tokenUrl: string;
let key: { privateKey: CryptoKey; jwk: JWK; jkt: string };

beforeAll(async () => {
  s = await startStack('stricttokens');
  t = await s.seed(T);
  tokenUrl = `${s.baseUrl}/auth/${T}/oidc/token`;
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  key = { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}, 60_000);
// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (s as typeof s | undefined)?.close();
});

const subjectToken = (claims: Record<string, unknown> = {}) =>
  s.userToken(T, { sub: t.user.id, client_id: 'demo-app', ...claims });

/** A proof whose claims are exactly `claims` over the defaults (JSON, so an iat can be a string). */
const proof = (claims: Record<string, unknown> = {}) =>
  new CompactSign(
    new TextEncoder().encode(
      JSON.stringify({ htm: 'POST', htu: tokenUrl, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims }),
    ),
  )
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);

async function exchange(subject: string, dpop?: string) {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('demo-app', t.client.clientSecret),
      ...(dpop ? { dpop } : {}),
    },
    body: new URLSearchParams({
      grant_type: GRANT_TYPE_TOKEN_EXCHANGE,
      subject_token: subject,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-agent',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: 'https://api.orders.example',
      scope: 'orders:read',
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function introspect(token: string) {
  const res = await fetch(`${s.baseUrl}/auth/${T}/token/introspection`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth('demo-app', t.client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('non-canonical base64url', () => {
  it('a subject token with == appended is refused; the same token as issued is exchanged', async () => {
    const token = await subjectToken();
    expect(await exchange(`${token}==`)).toEqual({
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'subject_token is not canonical base64url (padding or characters outside the alphabet)',
      },
    });
    expect((await exchange(token)).status).toBe(200);
  });

  it('a subject token with padding inside a segment is refused', async () => {
    const [h, p, sig] = (await subjectToken()).split('.');
    expect((await exchange(`${h}.${p}=.${sig}`)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'subject_token is not canonical base64url (padding or characters outside the alphabet)',
    });
  });

  it('an NHE token with == appended introspects as inactive; as issued it is active', async () => {
    const issued = await exchange(await subjectToken());
    const nheToken = String(issued.body.access_token);
    expect((await introspect(nheToken)).body.active).toBe(true);
    expect(await introspect(`${nheToken}==`)).toEqual({ status: 200, body: { active: false } });
  });
});

describe('DPoP proof refusals name their cause', () => {
  it('a proof whose iat is a string is refused for its iat, not its signature', async () => {
    const res = await exchange(await subjectToken(), await proof({ iat: String(Math.floor(Date.now() / 1000)) }));
    expect(res).toEqual({
      status: 400,
      body: { error: 'invalid_dpop_proof', error_description: 'DPoP proof iat is missing or not a number' },
    });
  });

  it('a proof with == appended is not a JWS', async () => {
    const res = await exchange(await subjectToken(), `${await proof()}==`);
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'invalid_dpop_proof',
        error_description: 'DPoP proof is not a JWS: its segments are not canonical base64url',
      },
    });
  });
});

describe('sender-constrained subject tokens', () => {
  it('a subject token bound by cnf x5t#S256 (no mTLS here) is refused, not exchanged as unbound', async () => {
    const res = await exchange(
      await subjectToken({ cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }),
    );
    expect(res).toEqual({
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description:
          'subject_token is bound by a confirmation method this resource does not support (cnf x5t#S256)',
      },
    });
  });

  it('a DPoP-bound subject token is still exchanged only with a proof made with its key', async () => {
    const bound = await subjectToken({ cnf: { jkt: key.jkt } });
    expect((await exchange(bound)).body).toEqual({
      error: 'invalid_grant',
      error_description: 'subject_token is DPoP-bound: send a DPoP proof made with its key',
    });
    const ok = await exchange(bound, await proof());
    expect([ok.status, ok.body.token_type]).toEqual([200, 'DPoP']);
  });
});
