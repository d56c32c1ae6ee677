/**
 * Security Event Tokens (RFC 8417) signed with the tenant's own ES256 key (libs/tokens KeyStore): the same key, kid
 * and JWKS as the tenant's access and ID tokens, so a receiver verifies SETs with the `jwks_uri` of the tenant's
 * discovery document. Header `typ: secevent+jwt` (SSF 1.0 section 4.1.1); no `sub` and no `exp` (sections 4.1.2
 * and 4.1.7).
 */
import { createHash } from 'node:crypto';
import { importJWK, SignJWT, type CryptoKey } from 'jose';
import type { KeyStore } from '@idp/tokens';

export const SET_TYP = 'secevent+jwt';

export interface TenantSigningKey {
  key: CryptoKey | Uint8Array;
  kid: string;
}

/** The tenant's active ES256 key, imported, cached for `ttlMs` (rotation reaches SETs within it). */
export function cachedSigningKeys(keyStore: KeyStore, ttlMs: number): (tenantId: number) => Promise<TenantSigningKey> {
  const cache = new Map<number, { at: number; value: Promise<TenantSigningKey> }>();
  return (tenantId) => {
    const hit = cache.get(tenantId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = keyStore.load(tenantId).then(async (keys) => {
      const jwk = keys.signing.find((k) => k.alg === 'ES256');
      if (!jwk) throw new Error(`tenant ${tenantId} has no active ES256 key`);
      return { key: await importJWK(jwk, 'ES256'), kid: jwk.kid };
    });
    value.catch(() => cache.delete(tenantId));
    cache.set(tenantId, { at: Date.now(), value });
    return value;
  };
}

/** A jti that is the same every time the same event is written for the same stream (idempotent rewrites). */
export function setJti(streamId: string, eventKey: string): string {
  return createHash('sha256').update(`${streamId}\n${eventKey}`).digest('base64url').slice(0, 32);
}

export interface SetClaims {
  iss: string;
  aud: string;
  jti: string;
  sub_id: Record<string, unknown>;
  events: Record<string, unknown>;
  txn?: string;
}

export async function signSet(claims: SetClaims, signing: TenantSigningKey, now = new Date()): Promise<string> {
  const { iss, aud, jti, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'ES256', kid: signing.kid, typ: SET_TYP })
    .setIssuer(iss)
    .setAudience(aud)
    .setJti(jti)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .sign(signing.key);
}
