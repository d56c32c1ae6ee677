/**
 * Access-token verification for protected resources: a JWT access token (RFC 9068) checked strictly (canonical
 * compact JWS, signature, issuer, audience, typ, time), then its sender constraint (RFC 9449 section 7): a token
 * bound by `cnf.jkt` passes only as `Authorization: DPoP` with a valid proof made with that key, a token bound by a
 * confirmation method this verifier does not understand never passes, and an unbound token sent as DPoP is refused.
 */
import {
  errors as joseErrors,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
  type KeyObject,
} from 'jose';
import { assertAsymmetric, DEFAULT_ACCESS_TOKEN_ALGORITHMS, DEFAULT_DPOP_ALGORITHMS } from './algorithms';
import { compactJwsProblem, isCanonicalBase64url } from './compact-jws';
import { verifyDpopProof, type DpopNonceOptions, type VerifiedDpopProof } from './dpop';
import { ResourceServerError, VerifierUnavailableError, type AuthScheme } from './errors';
import type { ReplayStore } from './replay';

/** A verification key, or a resolver picking one from the token's header (jose's createLocalJWKSet / createRemoteJWKSet). */
export type AccessTokenKey = CryptoKey | KeyObject | JWK | JWTVerifyGetKey;

export interface JwtAccessTokenOptions {
  /** The key, or a key resolver (e.g. `createRemoteJWKSet(new URL(jwks_uri))`). */
  key: AccessTokenKey;
  /** Expected `iss` (one of). */
  issuer: string | readonly string[];
  /** Expected `aud` (one of); omit only where any audience of this issuer is acceptable. */
  audience?: string | readonly string[];
  /** Accepted signature algorithms, asymmetric only (default ES256, RS256). */
  algorithms?: readonly string[];
  /** Expected `typ` header (default `at+jwt`, RFC 9068). */
  typ?: string;
  /** Tolerance on `exp`, `nbf` and on a DPoP proof's `iat`, in seconds (default 0). */
  clockSkew?: number;
  /** Time to check against (default: now). */
  currentDate?: Date;
  /** Longest token accepted, in characters (default 16384). */
  maxLength?: number;
  /** Claims that must be present (jose's requiredClaims; default none beyond exp checks). */
  requiredClaims?: readonly string[];
}

/** How the token is bound to its sender, when it is. */
export interface TokenBinding {
  /** JWK SHA-256 thumbprint of the DPoP key (`cnf.jkt`). */
  jkt: string;
}

export interface VerifiedJwtAccessToken {
  payload: JWTPayload;
  protectedHeader: JWTHeaderParameters;
  /** Present for a sender-constrained (DPoP-bound) token. */
  binding?: TokenBinding;
}

/** What a protected resource knows about the request, for the DPoP checks. */
export interface DpopRequest {
  /** The `DPoP` request header(s): more than one is refused. */
  proof: string | readonly string[] | undefined;
  /** The request's method. */
  htm: string;
  /** The request's URI as the client addressed it, from configuration (the public origin), never from `Host`. */
  htu: string;
}

export interface AccessTokenOptions extends JwtAccessTokenOptions {
  /**
   * The request's DPoP context. Without it the resource accepts Bearer tokens only: a DPoP-bound token is refused.
   */
  dpop?: DpopRequest & {
    /** Accepted proof algorithms (default: `DEFAULT_DPOP_ALGORITHMS`, those the provider accepts); also the `algs` of the challenge. */
    algorithms?: readonly string[];
    /** How far a proof's `iat` may be from now, in seconds (default 60). */
    maxAge?: number;
    /** Server nonces (RFC 9449 section 9). */
    nonce?: DpopNonceOptions;
  };
  /** Where accepted proofs are remembered (shared by every instance of the resource). */
  replay: ReplayStore;
}

export interface VerifiedAccessToken extends VerifiedJwtAccessToken {
  /** The access token (without the scheme). */
  token: string;
  scheme: AuthScheme;
  /** The verified proof, for a DPoP-bound token. */
  proof?: VerifiedDpopProof;
}

const JKT_LENGTH = 43;
/** Confirmation methods this verifier enforces (RFC 7800 `cnf` members). */
const SUPPORTED_CNF = new Set(['jkt']);

const invalidToken = (
  reason: ConstructorParameters<typeof ResourceServerError>[1],
  description: string,
  scheme: AuthScheme = 'Bearer',
  cause?: unknown,
) =>
  new ResourceServerError('invalid_token', reason, description, { scheme, ...(cause === undefined ? {} : { cause }) });

/**
 * The credentials of an `Authorization` header: `Bearer <token>` (RFC 6750) or `DPoP <token>` (RFC 9449); the scheme
 * is case-insensitive, the token is a token68. No header, or another scheme, is a refusal without an error code.
 */
export function parseAuthorization(header: string | undefined | null): { scheme: AuthScheme; token: string } {
  if (!header) throw new ResourceServerError(undefined, 'missing_token', 'an access token is required');
  const m = /^([A-Za-z]+) +(\S+)$/.exec(header);
  const scheme = m?.[1]?.toLowerCase();
  if (!m || (scheme !== 'bearer' && scheme !== 'dpop'))
    throw new ResourceServerError(
      undefined,
      'missing_token',
      'an access token is required (Authorization: Bearer or DPoP)',
    );
  const token = m[2]!;
  const normalized: AuthScheme = scheme === 'dpop' ? 'DPoP' : 'Bearer';
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
    throw new ResourceServerError(
      'invalid_request',
      'malformed_authorization',
      'the Authorization header is malformed',
      { scheme: normalized },
    );
  return { scheme: normalized, token };
}

/** The binding a token's `cnf` claim asks for; refuses a `cnf` that is malformed or names an unsupported method. */
export function tokenBinding(payload: JWTPayload): TokenBinding | undefined {
  const cnf = payload.cnf;
  if (cnf === undefined) return undefined;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf))
    throw invalidToken('cnf_malformed', 'the access token cnf claim is malformed');
  const members = Object.keys(cnf);
  const unsupported = members.filter((m) => !SUPPORTED_CNF.has(m));
  if (unsupported.length)
    throw invalidToken(
      'cnf_unsupported',
      `the access token is bound by a confirmation method this resource does not support (cnf ${unsupported.join(', ')})`,
    );
  const jkt = (cnf as { jkt?: unknown }).jkt;
  if (typeof jkt !== 'string' || jkt.length !== JKT_LENGTH || !isCanonicalBase64url(jkt))
    throw invalidToken('cnf_malformed', 'the access token cnf claim is malformed');
  return { jkt };
}

/** A jose verification error as the refusal it stands for. */
export function mapJoseError(err: unknown): ResourceServerError {
  if (err instanceof joseErrors.JWTExpired)
    return invalidToken('expired', 'the access token has expired', 'Bearer', err);
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return invalidToken('not_yet_valid', 'the access token is not yet valid', 'Bearer', err);
    return invalidToken('claim_invalid', `the access token ${err.claim} claim is not valid here`, 'Bearer', err);
  }
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return invalidToken('alg_not_allowed', 'the access token alg is not accepted', 'Bearer', err);
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return invalidToken('no_matching_key', 'the access token was signed by an unknown key', 'Bearer', err);
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return invalidToken('signature_invalid', 'the access token signature is not valid', 'Bearer', err);
  if (err instanceof ResourceServerError) return err;
  return invalidToken('malformed_token', 'the access token is not a valid JWT', 'Bearer', err);
}

/** Options of jwtVerify built once (createVerifier builds them at construction, not per request). */
export interface PreparedJwtOptions {
  key: AccessTokenKey;
  jose: JWTVerifyOptions;
  maxLength: number;
}

/** Checks `o` (asymmetric algorithms only) and builds jwtVerify's options from it. */
export function prepareJwtOptions(o: JwtAccessTokenOptions): PreparedJwtOptions {
  const algorithms = o.algorithms ?? DEFAULT_ACCESS_TOKEN_ALGORITHMS;
  assertAsymmetric(algorithms, 'verifyJwtAccessToken algorithms');
  return {
    key: o.key,
    maxLength: o.maxLength ?? 16 * 1024,
    jose: {
      issuer: o.issuer as string | string[],
      ...(o.audience !== undefined ? { audience: o.audience as string | string[] } : {}),
      typ: o.typ ?? 'at+jwt',
      algorithms: [...algorithms],
      clockTolerance: o.clockSkew ?? 0,
      ...(o.currentDate ? { currentDate: o.currentDate } : {}),
      ...(o.requiredClaims ? { requiredClaims: [...o.requiredClaims] } : {}),
    },
  };
}

/** verifyJwtAccessToken with options prepared by prepareJwtOptions (`currentDate` overrides the prepared one). */
export async function verifyPreparedJwt(
  token: string,
  p: PreparedJwtOptions,
  currentDate?: Date,
): Promise<VerifiedJwtAccessToken> {
  const problem = compactJwsProblem(token, p.maxLength);
  if (problem === 'too_long') throw invalidToken('token_too_long', 'the access token is too long');
  if (problem === 'non_canonical')
    throw invalidToken(
      'non_canonical_encoding',
      'the access token is not canonical base64url (padding or characters outside the alphabet)',
    );
  if (problem) throw invalidToken('malformed_token', 'the access token is not a JWT in compact serialization');
  let result: { payload: JWTPayload; protectedHeader: JWTHeaderParameters };
  try {
    result = await jwtVerify(token, p.key as JWTVerifyGetKey, currentDate ? { ...p.jose, currentDate } : p.jose);
  } catch (err) {
    if (err instanceof VerifierUnavailableError) throw err;
    throw mapJoseError(err);
  }
  const binding = tokenBinding(result.payload);
  return binding
    ? { payload: result.payload, protectedHeader: result.protectedHeader, binding }
    : { payload: result.payload, protectedHeader: result.protectedHeader };
}

/**
 * Verifies a JWT access token on its own, without the request: for places that receive a token as a parameter
 * (token exchange's subject_token, introspection). Refuses non-canonical encodings and unsupported `cnf` members;
 * the caller enforces the binding it reports.
 */
export async function verifyJwtAccessToken(token: string, o: JwtAccessTokenOptions): Promise<VerifiedJwtAccessToken> {
  return verifyPreparedJwt(token, prepareJwtOptions(o));
}

/** The DPoP settings of a protected resource, without the request. */
export type DpopSettings = Omit<NonNullable<AccessTokenOptions['dpop']>, keyof DpopRequest>;

/**
 * RFC 9449 section 7 for a verified token: an unbound token must come as Bearer; a bound one as DPoP, with a proof
 * made by the bound key for this request and not seen before. Without `dpop` (no request context) a bound token is
 * refused.
 */
export async function enforceSenderConstraint(
  scheme: AuthScheme,
  token: string,
  binding: TokenBinding | undefined,
  dpop: (DpopRequest & DpopSettings) | undefined,
  replay: ReplayStore,
  o: { clockSkew?: number | undefined; currentDate?: Date | undefined },
): Promise<VerifiedDpopProof | undefined> {
  if (!binding) {
    if (scheme === 'DPoP')
      throw invalidToken(
        'unbound_token_as_dpop',
        'the access token is not DPoP-bound: send it with Authorization: Bearer',
        'Bearer',
      );
    return undefined;
  }
  if (!dpop) throw invalidToken('bound_token_not_accepted', 'DPoP-bound access tokens are not accepted here', 'Bearer');
  if (scheme !== 'DPoP')
    throw invalidToken(
      'bound_token_as_bearer',
      'the access token is DPoP-bound: send it with Authorization: DPoP and a DPoP proof',
      'DPoP',
    );
  return verifyDpopProof(dpop.proof, {
    htm: dpop.htm,
    htu: dpop.htu,
    accessToken: token,
    jkt: binding.jkt,
    algorithms: dpop.algorithms ?? DEFAULT_DPOP_ALGORITHMS,
    ...(dpop.maxAge !== undefined ? { maxAge: dpop.maxAge } : {}),
    ...(o.clockSkew !== undefined ? { clockSkew: o.clockSkew } : {}),
    ...(o.currentDate ? { currentDate: o.currentDate } : {}),
    ...(dpop.nonce ? { nonce: dpop.nonce } : {}),
    replay,
  });
}

/** A refusal of the token itself, re-issued with the DPoP scheme when the client used it (it learns why its DPoP request failed). */
export function withClientScheme(err: unknown, scheme: AuthScheme): unknown {
  if (
    err instanceof ResourceServerError &&
    err.error === 'invalid_token' &&
    scheme === 'DPoP' &&
    err.scheme !== 'DPoP'
  ) {
    return new ResourceServerError('invalid_token', err.reason, err.message, { scheme: 'DPoP', cause: err.cause });
  }
  return err;
}

/**
 * Verifies the access token of a request to a protected resource: the `Authorization` header (Bearer or DPoP), the
 * token, and its sender constraint with the `DPoP` proof. Resolves with the token's claims; rejects with a
 * ResourceServerError that carries the status and the challenge to answer with.
 */
export async function verifyAccessToken(
  authorization: string | undefined | null,
  o: AccessTokenOptions,
): Promise<VerifiedAccessToken> {
  const { scheme, token } = parseAuthorization(authorization);
  let verified: VerifiedJwtAccessToken;
  try {
    verified = await verifyJwtAccessToken(token, o);
  } catch (err) {
    throw withClientScheme(err, scheme);
  }
  const proof = await enforceSenderConstraint(scheme, token, verified.binding, o.dpop, o.replay, o);
  return proof ? { ...verified, token, scheme, proof } : { ...verified, token, scheme };
}
