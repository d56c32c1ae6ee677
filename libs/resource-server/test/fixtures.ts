/**
 * An in-memory issuer for the SDK's tests: signing keys, a JWKS and discovery documents served by a fetch stub (no
 * network: unit tests stay pure), token and DPoP proof builders in the shape of this identity provider's tokens.
 */
import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { accessTokenHash } from '../src/dpop';
import type { FetchLike } from '../src/discovery';

export const ISSUER = 'https://idp.test/auth/7';
export const AUDIENCE = 'https://api.orders.test';
export const JWKS_URI = 'https://idp.test/auth/7/jwks';
export const URL_ORDERS = 'https://api.orders.test/orders';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export interface Holder {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

export async function signingKey(kid: string = randomUUID(), alg: 'ES256' | 'RS256' = 'ES256'): Promise<SigningKey> {
  const k = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey: k.privateKey, jwk: { ...(await exportJWK(k.publicKey)), kid, alg, use: 'sig' } };
}

export async function holder(): Promise<Holder> {
  const k = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(k.publicKey);
  return { privateKey: k.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

export interface FakeIssuer {
  keys: SigningKey[];
  /** Every URL fetched, in order. */
  calls: string[];
  fetch: FetchLike;
  /** Overrides of the discovery documents, by URL (status and body). */
  documents: Map<string, { status: number; body: unknown }>;
  sign(
    claims?: Record<string, unknown>,
    o?: { key?: SigningKey; typ?: string; alg?: string; omit?: string[] },
  ): Promise<string>;
}

export async function fakeIssuer(o: { issuer?: string; jwksUri?: string } = {}): Promise<FakeIssuer> {
  const issuer = o.issuer ?? ISSUER;
  const jwksUri = o.jwksUri ?? JWKS_URI;
  const first = await signingKey('k1');
  const keys: SigningKey[] = [first];
  const calls: string[] = [];
  const documents = new Map<string, { status: number; body: unknown }>();
  documents.set(`${issuer}/.well-known/openid-configuration`, {
    status: 200,
    body: { issuer, jwks_uri: jwksUri, dpop_signing_alg_values_supported: ['ES256'] },
  });
  const fetch: FetchLike = (url) => Promise.resolve(serve(url));
  const serve = (url: string): Response => {
    calls.push(url);
    if (url === jwksUri) return Response.json({ keys: keys.map((k) => k.jwk) });
    const doc = documents.get(url);
    if (!doc) return new Response('not found', { status: 404 });
    return new Response(typeof doc.body === 'string' ? doc.body : JSON.stringify(doc.body), {
      status: doc.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return {
    keys,
    calls,
    fetch,
    documents,
    async sign(claims = {}, s = {}) {
      const key = s.key ?? keys[0]!;
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = {
        iss: issuer,
        aud: AUDIENCE,
        sub: 'user-1',
        client_id: 'orders-app',
        jti: randomUUID(),
        iat: now,
        exp: now + 300,
        scope: 'orders:read',
        ...claims,
      };
      for (const c of s.omit ?? []) delete payload[c];
      return new SignJWT(payload)
        .setProtectedHeader({ alg: s.alg ?? 'ES256', kid: key.kid, typ: s.typ ?? 'at+jwt' })
        .sign(key.privateKey);
    },
  };
}

/** The claims the token exchange adds to an NHE delegation token (services/nhe-delegation exchange.ts). */
export function nheClaims(identifier = 'invoice-bot', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    gty: 'urn:ietf:params:oauth:grant-type:token-exchange',
    azp: 12,
    client_id: 'orders-app',
    'org.vendor.tenant.name': 'acme',
    'org.vendor.tenant.id': 7,
    act: { sub: `nhe:${identifier}` },
    agent: {
      id: identifier,
      type: 'llm-autonomous',
      operator: 'acme-ops',
      model: { name: 'gpt', version: '5', provider: 'openai' },
    },
    'org.vendor.nhe.delegation': true,
    ...extra,
  };
}

export async function proof(
  h: Holder,
  token: string | undefined,
  o: { htm?: string; htu?: string; iat?: number; jti?: string; ath?: string | null; nonce?: string } = {},
): Promise<string> {
  return new SignJWT({
    htm: o.htm ?? 'GET',
    htu: o.htu ?? URL_ORDERS,
    jti: o.jti ?? randomUUID(),
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...(o.ath === null || token === undefined ? {} : { ath: o.ath ?? (await accessTokenHash(token)) }),
    ...(o.nonce ? { nonce: o.nonce } : {}),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: h.jwk })
    .sign(h.privateKey);
}
