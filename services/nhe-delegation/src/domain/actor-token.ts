/**
 * Authenticated actors: an `actor_token` of type `urn:ietf:params:oauth:token-type:jwt` proves which NHE
 * acts. It is a JWT either
 * - signed by one of the NHE's registered keys, with `iss` = `sub` = the NHE's identifier (method `key`), or
 * - issued by a trusted workload identity issuer of the tenant (a Kubernetes service-account token issuer, a SPIFFE
 *   JWT-SVID trust domain...) whose (`iss`, `sub`) is the workloadIdentity of exactly one NHE (method `workload`).
 * Either way: a canonical compact JWS with an asymmetric algorithm, `aud` naming this tenant's issuer or its token
 * endpoint, unexpired, `exp` at most 5 minutes after `iat`, and a `jti` used once on every replica. Every refusal
 * is invalid_grant naming the reason (spec, "Errors": a bad or unknown actor).
 */
import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { MAX_ACTOR_JWT_LENGTH, MAX_ACTOR_JWT_LIFETIME, type ActorAuthentication } from '@idp/delegation';
import { OAuthError, oauthErrors } from '@idp/errors';
import { ASYMMETRIC_ALGORITHMS, isCanonicalCompactJws } from '@idp/resource-server';
import type { ActorDirectory, ActorKey, KeySource } from './actor-directory';

/** Seconds of clock difference tolerated on exp and iat. */
const CLOCK_SKEW = 30;

export interface ActorContext {
  tenantId: number;
  /** Values `aud` may carry (one is enough): the tenant's issuer and its token endpoint URLs. */
  audiences: string[];
  directory: ActorDirectory;
  /** Single-use store for jti (shared by every replica). */
  replay: { remember(key: string, expiresAt?: Date): Promise<boolean> };
  currentDate?: Date;
}

export interface AuthenticatedActor {
  nheIdentifier: string;
  auth: ActorAuthentication;
  /** Records the jti as used; rejects with invalid_grant when it was used before (run beside the facts load). */
  consume(): Promise<void>;
}

const bad = (reason: string) => oauthErrors.invalidGrant(`actor_token ${reason}`);
const quoted = (v: unknown) => JSON.stringify(String(v).slice(0, 64));

/** The key type each algorithm family needs. */
function ktyFor(alg: string): string | undefined {
  if (alg.startsWith('ES')) return 'EC';
  if (alg.startsWith('RS') || alg.startsWith('PS')) return 'RSA';
  if (alg === 'EdDSA' || alg === 'Ed25519') return 'OKP';
  return undefined;
}

/** The keys of `keys` that could have made this signature (kid, alg, kty). */
function candidates(keys: ActorKey[], alg: string, kid: string | undefined): ActorKey[] {
  const kty = ktyFor(alg);
  return keys.filter(
    (k) =>
      k.jwk.kty === kty && (kid === undefined || k.jwk.kid === kid) && (k.jwk.alg === undefined || k.jwk.alg === alg),
  );
}

/**
 * Verifies the signature and the claims with the first candidate key that verifies; refetches a remote set once
 * (cool-down permitting) when no key matched. Returns the claims and the key.
 */
async function verifyWith(
  token: string,
  source: KeySource,
  alg: string,
  kid: string | undefined,
  o: { issuer: string; audiences: string[]; currentDate?: Date },
  whose: string,
): Promise<{ payload: JWTPayload; key: ActorKey }> {
  let keys = candidates(await source.keys(), alg, kid);
  if (!keys.length) {
    const fresh = await source.refresh();
    keys = fresh ? candidates(fresh, alg, kid) : [];
  }
  if (!keys.length) throw bad(`is signed with a key that is not one of ${whose} keys`);
  let lastSignatureError = false;
  for (const key of keys) {
    try {
      const { payload } = await jwtVerify(token, await key.importFor(alg), {
        algorithms: [alg],
        issuer: o.issuer,
        audience: o.audiences,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti'],
        clockTolerance: CLOCK_SKEW,
        ...(o.currentDate ? { currentDate: o.currentDate } : {}),
      });
      return { payload, key };
    } catch (err) {
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
        lastSignatureError = true;
        continue;
      }
      if (err instanceof joseErrors.JWTExpired) throw bad('has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) {
        if (err.claim === 'aud') throw bad("aud must name this tenant's issuer or its token endpoint");
        if (err.claim === 'iat' || err.claim === 'nbf') throw bad(`${err.claim} is in the future`);
        throw bad(`claim ${err.claim} is missing or invalid`);
      }
      if (err instanceof joseErrors.JOSEError) throw bad(`is not a valid JWT (${err.code})`);
      throw err;
    }
  }
  throw bad(
    lastSignatureError
      ? `signature does not verify with ${whose} keys`
      : `is signed with a key that is not one of ${whose} keys`,
  );
}

export async function authenticateActor(token: string, ctx: ActorContext): Promise<AuthenticatedActor> {
  if (token.length > MAX_ACTOR_JWT_LENGTH) throw bad(`is longer than ${MAX_ACTOR_JWT_LENGTH} characters`);
  let alg: unknown;
  let kid: unknown;
  let claims: JWTPayload;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
    claims = decodeJwt(token);
  } catch {
    throw bad('is not a JWT');
  }
  // Before any key is looked at: HS256 (a shared secret) and none prove nothing about who signed.
  if (typeof alg !== 'string' || !ASYMMETRIC_ALGORITHMS.has(alg))
    throw bad(`must be signed with an asymmetric algorithm (alg ${quoted(alg)} is not accepted)`);
  // One spelling per token (as for every JWT here): padding, other alphabets or stray bits are refused.
  if (!isCanonicalCompactJws(token)) throw bad('is not a compact JWS (three canonical base64url segments)');
  if (kid !== undefined && typeof kid !== 'string') throw bad('kid must be a string');
  const iss = claims.iss;
  const sub = claims.sub;
  if (typeof iss !== 'string' || !iss || iss.length > 2048) throw bad('has no iss');
  if (typeof sub !== 'string' || !sub || sub.length > 1024) throw bad('has no sub');
  const options = {
    issuer: iss,
    audiences: ctx.audiences,
    ...(ctx.currentDate ? { currentDate: ctx.currentDate } : {}),
  };

  let nheIdentifier: string;
  let auth: ActorAuthentication;
  let payload: JWTPayload;
  const workload = await ctx.directory.workloadIssuer(ctx.tenantId, iss);
  if (workload) {
    // Workload identity federation: the issuer's keys, then the one NHE registered for (iss, sub).
    payload = (await verifyWith(token, workload.keys, alg, kid, options, "the workload issuer's")).payload;
    const nhes = await ctx.directory.nhesForWorkload(ctx.tenantId, iss, sub);
    if (nhes.length === 0)
      throw bad('names a workload identity (iss, sub) that no NHE of this tenant is registered for');
    if (nhes.length > 1) throw bad('names a workload identity (iss, sub) that more than one NHE is registered for');
    nheIdentifier = nhes[0]!;
    auth = { method: 'workload', issuer: iss, subject: sub };
  } else if (iss === sub) {
    // The NHE's own key: iss = sub = its identifier.
    const nhe = await ctx.directory.nhe(ctx.tenantId, iss);
    if (!nhe) throw bad('names an unknown NHE (iss = sub must be the identifier of an NHE of this tenant)');
    if (!nhe.keys) throw bad('names an NHE that has no registered keys (jwks or jwks_uri)');
    const verified = await verifyWith(token, nhe.keys, alg, kid, options, "the NHE's");
    payload = verified.payload;
    nheIdentifier = nhe.identifier;
    auth = { method: 'key', jkt: verified.key.jkt };
  } else {
    throw bad(
      'issuer is neither the NHE itself (iss = sub = its identifier) nor a trusted workload issuer of this tenant',
    );
  }

  const now = Math.floor((ctx.currentDate?.getTime() ?? Date.now()) / 1000);
  const { exp, iat, jti } = payload as { exp: number; iat: number; jti: unknown };
  if (typeof iat !== 'number' || typeof exp !== 'number') throw bad('exp and iat must be numbers');
  if (exp - iat > MAX_ACTOR_JWT_LIFETIME)
    throw bad(`lifetime (exp - iat) must be at most ${MAX_ACTOR_JWT_LIFETIME} seconds`);
  if (iat > now + CLOCK_SKEW) throw bad('iat is in the future');
  if (typeof jti !== 'string' || !jti || jti.length > 256) throw bad('jti must be a string of 1 to 256 characters');
  auth.jti = jti;
  // The store key: the issuer (hashed, bounded) and the jti; kept until the token could no longer pass anyway.
  const replayKey = `${createHash('sha256').update(iss).digest('base64url')}:${jti}`;
  const expiresAt = new Date((exp + CLOCK_SKEW + 60) * 1000);
  return {
    nheIdentifier,
    auth,
    async consume() {
      let fresh: boolean;
      try {
        fresh = await ctx.replay.remember(replayKey, expiresAt);
      } catch (err) {
        // The store (JetStream, or the database) could not say: no token, as when the audit event cannot be recorded.
        throw new OAuthError(
          'temporarily_unavailable',
          "the actor token's single use could not be checked; no token was issued, retry later",
          503,
          { cause: err },
        );
      }
      if (!fresh) throw bad('has been used before (jti)');
    },
  };
}
