import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { oauthErrors } from '@idp/errors';

const ALGS = ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'];
/** A proof's iat may be this far from now (seconds). */
const IAT_WINDOW = 60;

export interface DpopProof {
  jkt: string;
  jti: string;
  iat: number;
  /** The server nonce the proof carries, if any (checked by the caller). */
  nonce?: string;
}

/** Validates a DPoP proof for the token request (RFC 9449 section 4.3); replay is checked by the caller. */
export async function verifyDpopProof(proof: string, htm: string, htu: string, now = Math.floor(Date.now() / 1000)): Promise<DpopProof> {
  let header;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw oauthErrors.invalidDpopProof('DPoP proof is not a JWS');
  }
  if (header.typ !== 'dpop+jwt') throw oauthErrors.invalidDpopProof('DPoP proof typ must be dpop+jwt');
  if (!header.alg || !ALGS.includes(header.alg)) throw oauthErrors.invalidDpopProof('DPoP proof alg is not supported');
  const jwk = header.jwk as JWK | undefined;
  if (!jwk || typeof jwk !== 'object' || 'd' in jwk) throw oauthErrors.invalidDpopProof('DPoP proof must carry a public jwk');
  let payload;
  try {
    const key = await importJWK(jwk, header.alg);
    ({ payload } = await jwtVerify(proof, key, { typ: 'dpop+jwt', algorithms: ALGS, clockTolerance: 0, currentDate: new Date(now * 1000) }));
  } catch {
    throw oauthErrors.invalidDpopProof('DPoP proof signature is not valid');
  }
  if (payload.htm !== htm) throw oauthErrors.invalidDpopProof('DPoP proof htm mismatch');
  if (typeof payload.htu !== 'string' || stripUrl(payload.htu) !== stripUrl(htu)) throw oauthErrors.invalidDpopProof('DPoP proof htu mismatch');
  if (typeof payload.jti !== 'string' || payload.jti.length < 8 || payload.jti.length > 256) throw oauthErrors.invalidDpopProof('DPoP proof jti is missing');
  if (typeof payload.iat !== 'number' || Math.abs(now - payload.iat) > IAT_WINDOW) throw oauthErrors.invalidDpopProof('DPoP proof iat is not recent');
  if (payload.nonce !== undefined && (typeof payload.nonce !== 'string' || payload.nonce.length > 256)) throw oauthErrors.invalidDpopProof('DPoP proof nonce is malformed');
  return {
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    jti: payload.jti,
    iat: payload.iat,
    ...(typeof payload.nonce === 'string' ? { nonce: payload.nonce } : {}),
  };
}

/** htu is compared without query and fragment (RFC 9449 section 4.3, check 9). */
function stripUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '';
  }
}
