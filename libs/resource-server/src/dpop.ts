/**
 * DPoP proof verification (RFC 9449 section 4.3), at a token endpoint (no access token) and at a protected resource
 * (`ath` binds the proof to the access token, section 7). The signature is checked with compactVerify, then every
 * claim by hand, so each refusal names its real cause (a string `iat` is an iat problem, not a signature problem).
 */
import { base64url, calculateJwkThumbprint, compactVerify, errors as joseErrors, importJWK, type JWK } from 'jose';
import { assertAsymmetric, DEFAULT_DPOP_ALGORITHMS } from './algorithms';
import { compactJwsProblem } from './compact-jws';
import { ResourceServerError, type RefusalReason } from './errors';
import type { ReplayStore } from './replay';

export interface DpopNonceOptions {
  /** True: every proof must carry a valid nonce. False: a proof without one passes, a proof with an invalid one does not. */
  required: boolean;
  isValid(nonce: string): boolean | Promise<boolean>;
  /** A fresh nonce for the `use_dpop_nonce` answer. */
  issue(): string | Promise<string>;
}

export interface DpopProofOptions {
  /** The request's method, compared exactly (RFC 9110 methods are case-sensitive). */
  htm: string;
  /**
   * The request's URI as the client addressed it, built from configuration (never from `Host`). Compared without
   * query and fragment, after URL normalisation (scheme and host case, default port).
   */
  htu: string;
  /** At a protected resource: the access token; the proof's `ath` must be its SHA-256 (base64url). */
  accessToken?: string;
  /** The JWK SHA-256 thumbprint the proof's key must have (the access token's `cnf.jkt`). */
  jkt?: string;
  /** Accepted proof algorithms (asymmetric only). Default: `DEFAULT_DPOP_ALGORITHMS` (those the provider accepts). */
  algorithms?: readonly string[];
  /** How far `iat` may be from now, in seconds (default 60). */
  maxAge?: number;
  /** Extra tolerance on `iat`, in seconds (default 0). */
  clockSkew?: number;
  /** The time to check against (default: now). */
  currentDate?: Date;
  /** Server-provided nonces (RFC 9449 section 8); without it a nonce in the proof is not checked. */
  nonce?: DpopNonceOptions;
  /**
   * Proof replay store: the `jkt:jti` of an accepted proof is remembered until the proof is too old to pass anyway.
   * Without it replay is the caller's concern.
   */
  replay?: ReplayStore;
  /** Longest proof accepted, in characters (default 8192). */
  maxLength?: number;
}

export interface VerifiedDpopProof {
  /** JWK SHA-256 thumbprint (RFC 7638) of the proof's key. */
  jkt: string;
  jti: string;
  iat: number;
  htm: string;
  htu: string;
  alg: string;
  jwk: JWK;
  /** The nonce the proof carries, if any. */
  nonce?: string;
  ath?: string;
}

const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];
const decoder = new TextDecoder('utf-8', { fatal: true });

const refuse = (reason: RefusalReason, description: string, cause?: unknown) =>
  new ResourceServerError('invalid_dpop_proof', reason, description, cause === undefined ? {} : { cause });

/** `ath`: base64url(SHA-256(ASCII(access token))), RFC 9449 section 4.2. */
export async function accessTokenHash(accessToken: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken));
  return base64url.encode(new Uint8Array(digest));
}

/** A URI without query and fragment, normalised by the WHATWG URL parser; undefined when it is not an absolute URL. */
export function normalizeHtu(value: string): string | undefined {
  try {
    const u = new URL(value);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

function decodeJson(segment: string): unknown {
  return JSON.parse(decoder.decode(base64url.decode(segment)));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Verifies a DPoP proof. Resolves with the proof's key thumbprint and claims; rejects with a ResourceServerError
 * (`invalid_dpop_proof`, or `use_dpop_nonce` with a fresh nonce) whose message names the failed check.
 */
export async function verifyDpopProof(
  proof: string | readonly string[] | undefined,
  o: DpopProofOptions,
): Promise<VerifiedDpopProof> {
  const algorithms = o.algorithms ?? DEFAULT_DPOP_ALGORITHMS;
  assertAsymmetric(algorithms, 'verifyDpopProof algorithms');
  const maxAge = o.maxAge ?? 60;
  const skew = o.clockSkew ?? 0;
  const now = Math.floor((o.currentDate?.getTime() ?? Date.now()) / 1000);

  if (proof === undefined || (Array.isArray(proof) && proof.length === 0))
    throw refuse('dpop_proof_missing', 'DPoP proof is missing');
  if (Array.isArray(proof) && proof.length > 1)
    throw refuse('dpop_proof_malformed', 'more than one DPoP proof was sent');
  const jws = (Array.isArray(proof) ? proof[0] : proof) as string;
  const problem = compactJwsProblem(jws, o.maxLength ?? 8192);
  if (problem === 'too_long') throw refuse('dpop_proof_malformed', 'DPoP proof is too long');
  if (problem === 'non_canonical')
    throw refuse('dpop_proof_malformed', 'DPoP proof is not a JWS: its segments are not canonical base64url');
  if (problem) throw refuse('dpop_proof_malformed', 'DPoP proof is not a JWS');
  const [headerSegment, payloadSegment] = jws.split('.') as [string, string, string];

  let header: unknown;
  try {
    header = decodeJson(headerSegment);
  } catch {
    throw refuse('dpop_proof_malformed', 'DPoP proof is not a JWS');
  }
  if (!isObject(header)) throw refuse('dpop_proof_malformed', 'DPoP proof is not a JWS');
  if (header.typ !== 'dpop+jwt') throw refuse('dpop_typ', 'DPoP proof typ must be dpop+jwt');
  const alg = header.alg;
  if (typeof alg !== 'string' || !algorithms.includes(alg)) throw refuse('dpop_alg', 'DPoP proof alg is not supported');
  const jwk = header.jwk;
  if (!isObject(jwk) || typeof jwk.kty !== 'string' || jwk.kty === 'oct' || PRIVATE_JWK_MEMBERS.some((m) => m in jwk)) {
    throw refuse('dpop_jwk', 'DPoP proof must carry a public jwk');
  }

  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK(jwk as JWK, alg);
  } catch (err) {
    throw refuse('dpop_jwk', `DPoP proof jwk is not a usable ${alg} public key`, err);
  }
  try {
    await compactVerify(jws, key, { algorithms: [alg] });
  } catch (err) {
    if (err instanceof joseErrors.JWSSignatureVerificationFailed)
      throw refuse('dpop_signature', 'DPoP proof signature is not valid', err);
    throw refuse('dpop_jwk', `DPoP proof jwk is not a usable ${alg} public key`, err);
  }

  let payload: unknown;
  try {
    payload = decodeJson(payloadSegment);
  } catch (err) {
    throw refuse('dpop_payload', 'DPoP proof payload is not a JSON object', err);
  }
  if (!isObject(payload)) throw refuse('dpop_payload', 'DPoP proof payload is not a JSON object');

  if (payload.htm !== o.htm) throw refuse('dpop_htm', 'DPoP proof htm mismatch');
  const expectedHtu = normalizeHtu(o.htu);
  if (typeof payload.htu !== 'string' || expectedHtu === undefined || normalizeHtu(payload.htu) !== expectedHtu)
    throw refuse('dpop_htu', 'DPoP proof htu mismatch');
  if (typeof payload.jti !== 'string' || payload.jti === '') throw refuse('dpop_jti', 'DPoP proof jti is missing');
  if (payload.jti.length < 8 || payload.jti.length > 256)
    throw refuse('dpop_jti', 'DPoP proof jti must be 8 to 256 characters');
  if (typeof payload.iat !== 'number' || !Number.isFinite(payload.iat))
    throw refuse('dpop_iat_type', 'DPoP proof iat is missing or not a number');
  if (Math.abs(now - payload.iat) > maxAge + skew) throw refuse('dpop_iat_window', 'DPoP proof iat is not recent');
  if (o.accessToken !== undefined) {
    if (typeof payload.ath !== 'string') throw refuse('dpop_ath', 'DPoP proof ath is missing');
    if (payload.ath !== (await accessTokenHash(o.accessToken)))
      throw refuse('dpop_ath', 'DPoP proof ath does not match the access token');
  }
  if (
    payload.nonce !== undefined &&
    (typeof payload.nonce !== 'string' || payload.nonce === '' || payload.nonce.length > 256)
  ) {
    throw refuse('dpop_nonce_malformed', 'DPoP proof nonce is malformed');
  }

  const jkt = await calculateJwkThumbprint(jwk as JWK, 'sha256');
  if (o.jkt !== undefined && jkt !== o.jkt)
    throw refuse('dpop_key_mismatch', 'DPoP proof key is not the key the access token is bound to');

  const nonce = payload.nonce as string | undefined;
  if (o.nonce && (o.nonce.required || nonce !== undefined)) {
    if (nonce === undefined || !(await o.nonce.isValid(nonce))) {
      throw new ResourceServerError(
        'use_dpop_nonce',
        'dpop_nonce_required',
        'resource server requires nonce in DPoP proof',
        { nonce: await o.nonce.issue() },
      );
    }
  }

  if (o.replay) {
    const fresh = await o.replay.remember(`${jkt}:${payload.jti}`, new Date((payload.iat + maxAge + skew + 1) * 1000));
    if (!fresh) throw refuse('dpop_replayed', 'DPoP proof has been used before');
  }

  return {
    jkt,
    jti: payload.jti,
    iat: payload.iat,
    htm: payload.htm as string,
    htu: payload.htu,
    alg,
    jwk: jwk as JWK,
    ...(nonce !== undefined ? { nonce } : {}),
    ...(typeof payload.ath === 'string' ? { ath: payload.ath } : {}),
  };
}
