/**
 * ES256 compact JWS signing through node:crypto (RFC 7515 section 7.1, RFC 7518 section 3.4): synchronous, on the
 * calling thread, with the key as a KeyObject. jose signs through WebCrypto, whose ECDSA is a job on libuv's pool
 * plus a promise round trip; on the exchange path that costs the sidecar about 0.02-0.04 CPU-ms more per token
 * (bench/README.md). jose still verifies every token this produces (tests) and everything else.
 */
import { createPrivateKey, sign, type JsonWebKey, type KeyObject } from 'node:crypto';

export type Es256SigningKey = KeyObject & { readonly es256: true };

/** Imports a private P-256 JWK for signEs256Jwt; refuses any other key. */
export function importEs256PrivateJwk(jwk: JsonWebKey): Es256SigningKey {
  const key = createPrivateKey({ key: jwk, format: 'jwk' });
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error('ES256 needs a private P-256 key');
  return key as Es256SigningKey;
}

const b64u = (s: string) => Buffer.from(s, 'utf8').toString('base64url');

/** `header.payload.signature` with `alg: ES256` first in the protected header; the signature is R || S (64 bytes). */
export function signEs256Jwt(
  header: { kid: string; typ: string },
  payload: Record<string, unknown>,
  key: Es256SigningKey,
): string {
  const input = `${b64u(JSON.stringify({ alg: 'ES256', kid: header.kid, typ: header.typ }))}.${b64u(JSON.stringify(payload))}`;
  const signature = sign('sha256', Buffer.from(input, 'ascii'), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}
