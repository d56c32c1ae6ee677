/**
 * createVerifier: the one object a protected resource keeps. It discovers the issuer's metadata once (and again
 * after `discoveryTtl`), verifies access tokens against the issuer's JWKS (fetched once, refetched for an unknown
 * `kid` at most once per cooldown), enforces the DPoP sender constraint with a bounded replay cache, reads NHE
 * delegation, consults an optional revocation source and applies each route's rules (scopes, delegation, agent
 * types). Everything that can be computed once is computed at construction: the hot path is jose's jwtVerify plus
 * a few property reads.
 */
import {
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
  jwtVerify,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import {
  enforceSenderConstraint,
  mapJoseError,
  parseAuthorization,
  prepareJwtOptions,
  tokenBinding,
  verifyPreparedJwt,
  withClientScheme,
  type DpopSettings,
  type PreparedJwtOptions,
  type TokenBinding,
} from './access-token';
import { assertAsymmetric, DEFAULT_ACCESS_TOKEN_ALGORITHMS, DEFAULT_DPOP_ALGORITHMS } from './algorithms';
import { actorProof, delegationOf, type Delegation } from './delegation';
import { compactJwsProblem } from './compact-jws';
import { discoverMetadata, type AuthorizationServerMetadata, type FetchLike } from './discovery';
import type { VerifiedDpopProof } from './dpop';
import {
  ResourceServerError,
  VerifierUnavailableError,
  type AuthScheme,
  type ChallengeOptions,
  type RefusalReason,
} from './errors';
import { memoryReplayStore, type ReplayStore } from './replay';

/** What the verifier returns for an accepted request. */
export interface Access {
  /** `sub`: the human the token acts for (for a client-credentials token, the client itself). */
  userId: string;
  /** `scope`, split. */
  scopes: string[];
  /** `client_id` (RFC 9068): the OAuth client the token was issued to. */
  clientId: string;
  /** Present exactly when `org.vendor.nhe.delegation` is true. */
  delegation?: Delegation;
  /** Every claim of the token. */
  claims: JWTPayload;
  /** The access token (without the scheme). */
  token: string;
  /** How it was presented. */
  scheme: AuthScheme;
  /** The verified DPoP proof, for a DPoP-bound token. */
  proof?: VerifiedDpopProof;
}

/**
 * Where revocations come from (a deny list kept by the SSF poll receiver, or your own): asked for every token that
 * passed every other check. Return true to refuse it (401 invalid_token, reason `revoked`). Keep it synchronous
 * and in memory when you can: it is on the hot path.
 */
export interface RevocationSource {
  isRevoked(access: Access): boolean | Promise<boolean>;
}

export type DelegationRule = 'allow' | 'require' | 'deny';

/** A route's rules, checked after the token is verified. */
export interface AccessRules {
  /** Scopes the token must all carry (403 insufficient_scope naming the missing ones). */
  scopes?: readonly string[];
  /** `allow` (default): user and delegation tokens; `require`: delegation tokens only; `deny`: no delegation tokens. */
  delegation?: DelegationRule;
  /** For delegation tokens: the agent types accepted (default: any). */
  agentTypes?: readonly string[];
  /**
   * For delegation tokens: every actor of the `act` chain must have proven who it is to the provider (its
   * `org.vendor.actor.proof` is `key` or `workload`), not only been named. Default false. User tokens are not affected.
   */
  requireProvenActors?: boolean;
}

export interface VerifierDpopOptions extends DpopSettings {
  /** Refuse tokens that are not DPoP-bound (every token must be sender-constrained). Default false. */
  required?: boolean;
}

export interface VerifierOptions {
  /** The tenant's issuer, exactly as its metadata names it (e.g. `https://idp.example.com/auth/42`). */
  issuer: string;
  /** This API's resource identifier(s): the `aud` a token must carry. */
  audience: string | readonly string[];
  /** Accepted access-token algorithms, asymmetric only (default ES256, RS256). */
  algorithms?: readonly string[];
  /** Tolerance on `exp`, `nbf` and a DPoP proof's `iat`, in seconds (default 5). */
  clockSkewSeconds?: number;
  /** DPoP settings (algorithms, proof age, nonces, required); `false` refuses DPoP-bound tokens. */
  dpop?: VerifierDpopOptions | false;
  /** Where accepted DPoP proofs are remembered. Default: an in-memory store of at most 100,000 proofs (one process). */
  replay?: ReplayStore;
  /** fetch for discovery and the JWKS (default: the global fetch). */
  fetch?: FetchLike;
  /** Seconds the discovered metadata is used before it is fetched again (default 3600). */
  discoveryTtl?: number;
  /** The JWKS cache: jose's createRemoteJWKSet options, in milliseconds. */
  jwks?: { timeoutMs?: number; cooldownMs?: number; cacheMaxAgeMs?: number };
  /** A source of revocations (the SSF poll receiver's deny list). */
  revocations?: RevocationSource;
  /** Longest token accepted, in characters (default 16384). */
  maxTokenLength?: number;
}

/** The request, as the verifier needs it. */
export interface VerifyRequest {
  /** The `Authorization` header. */
  authorization: string | null | undefined;
  /** The `DPoP` header(s). */
  dpop?: string | readonly string[] | undefined;
  /** The request method. */
  method: string;
  /** The request URI as the client addressed it: your configured public origin + path, never built from `Host`. */
  url: string;
}

export interface Verifier {
  readonly issuer: string;
  readonly audience: string | readonly string[];
  /** DPoP proof algorithms accepted (the challenge's `algs`); empty when DPoP is off. */
  readonly dpopAlgorithms: readonly string[];
  /** Verifies a request's credentials, then applies `rules`. Rejects with ResourceServerError or VerifierUnavailableError. */
  verify(request: VerifyRequest, rules?: AccessRules): Promise<Access>;
  /** The discovered metadata (discovering it when needed). */
  metadata(): Promise<AuthorizationServerMetadata>;
  /** Challenge options for ResourceServerError#headers: the DPoP `algs` when DPoP is on. */
  challengeOptions(extra?: ChallengeOptions): ChallengeOptions;
}

/** RFC 9068 section 2.2: claims every JWT access token carries. */
const REQUIRED_CLAIMS = ['exp', 'iat', 'sub', 'client_id', 'jti'];
/** After a failed discovery, how long verify() answers "unavailable" before trying again (milliseconds). */
const DISCOVERY_RETRY_MS = 5000;

const refuse = (
  scheme: AuthScheme,
  reason: RefusalReason,
  description: string,
  error: 'invalid_token' | 'insufficient_scope' = 'invalid_token',
  scope?: readonly string[],
) => new ResourceServerError(error, reason, description, { scheme, ...(scope ? { scope } : {}) });

const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** Creates a verifier for one issuer and audience. Discovery happens on first use (or `await verifier.metadata()` at start). */
export function createVerifier(o: VerifierOptions): Verifier {
  if (typeof o.issuer !== 'string' || !/^https?:\/\//.test(o.issuer))
    throw new TypeError('createVerifier: issuer must be an http(s) URL');
  // JavaScript callers may leave audience out: refused below, not a TypeError on undefined.
  const audiences = (typeof o.audience === 'string' ? [o.audience] : o.audience) as readonly string[] | undefined;
  if (!audiences?.length || audiences.some((a) => typeof a !== 'string' || a === ''))
    throw new TypeError('createVerifier: audience is required');
  const algorithms = o.algorithms ?? DEFAULT_ACCESS_TOKEN_ALGORITHMS;
  assertAsymmetric(algorithms, 'createVerifier algorithms');
  const clockSkew = o.clockSkewSeconds ?? 5;
  if (!Number.isFinite(clockSkew) || clockSkew < 0)
    throw new TypeError('createVerifier: clockSkewSeconds must be a non-negative number');
  const dpopSettings: VerifierDpopOptions | undefined =
    o.dpop === false ? undefined : { algorithms: DEFAULT_DPOP_ALGORITHMS, ...(o.dpop ?? {}) };
  if (dpopSettings?.algorithms) assertAsymmetric(dpopSettings.algorithms, 'createVerifier dpop.algorithms');
  const dpopRequired = dpopSettings?.required === true;
  const replay = o.replay ?? memoryReplayStore({ maxEntries: 100_000 });
  const discoveryTtlMs = (o.discoveryTtl ?? 3600) * 1000;
  const revocations = o.revocations;

  // The key resolver jwtVerify calls: jose's remote JWKS of the discovered jwks_uri (swapped when the metadata
  // names another one); a fetch failure is "unavailable" (503), not a bad token.
  let remote: ReturnType<typeof createRemoteJWKSet> | undefined;
  let remoteUri: string | undefined;
  const unavailable = (err: unknown) => {
    if (
      err instanceof joseErrors.JWKSNoMatchingKey ||
      err instanceof joseErrors.JWKSMultipleMatchingKeys ||
      err instanceof joseErrors.JOSENotSupported
    )
      throw err;
    throw new VerifierUnavailableError(`the keys of ${o.issuer} could not be fetched`, { cause: err });
  };
  const key: JWTVerifyGetKey = (header: JWSHeaderParameters, token: FlattenedJWSInput) =>
    remote!(header, token).catch(unavailable);
  const prepared: PreparedJwtOptions = prepareJwtOptions({
    key,
    issuer: o.issuer,
    audience: audiences,
    algorithms,
    clockSkew,
    requiredClaims: REQUIRED_CLAIMS,
    ...(o.maxTokenLength ? { maxLength: o.maxTokenLength } : {}),
  });

  let meta: AuthorizationServerMetadata | undefined;
  let metaExpiresAt = 0;
  let pending: Promise<AuthorizationServerMetadata> | undefined;
  let failedUntil = 0;
  let lastFailure: VerifierUnavailableError | undefined;

  const discover = (): Promise<AuthorizationServerMetadata> => {
    if (pending) return pending;
    if (Date.now() < failedUntil && !meta) return Promise.reject(lastFailure);
    pending = discoverMetadata(o.issuer, {
      ...(o.fetch ? { fetch: o.fetch } : {}),
      ...(o.jwks?.timeoutMs ? { timeoutMs: o.jwks.timeoutMs } : {}),
    })
      .then((m) => {
        if (m.jwks_uri !== remoteUri) {
          remote = createRemoteJWKSet(new URL(m.jwks_uri), {
            ...(o.jwks?.timeoutMs !== undefined ? { timeoutDuration: o.jwks.timeoutMs } : {}),
            ...(o.jwks?.cooldownMs !== undefined ? { cooldownDuration: o.jwks.cooldownMs } : {}),
            ...(o.jwks?.cacheMaxAgeMs !== undefined ? { cacheMaxAge: o.jwks.cacheMaxAgeMs } : {}),
            ...(o.fetch ? { [customFetch]: o.fetch } : {}),
          });
          remoteUri = m.jwks_uri;
        }
        meta = m;
        metaExpiresAt = Date.now() + discoveryTtlMs;
        return m;
      })
      .catch((err: unknown) => {
        lastFailure =
          err instanceof VerifierUnavailableError
            ? err
            : new VerifierUnavailableError(`the metadata of ${o.issuer} could not be discovered`, { cause: err });
        failedUntil = Date.now() + DISCOVERY_RETRY_MS;
        // Stale metadata beats none: keep using it until a refresh succeeds.
        if (meta) {
          metaExpiresAt = failedUntil;
          return meta;
        }
        throw lastFailure;
      })
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  const dpopAlgorithms = dpopSettings?.algorithms ?? [];

  async function verify(request: VerifyRequest, rules?: AccessRules): Promise<Access> {
    // Fast path for the common shape (`Bearer <canonical JWS>`): the checks parseAuthorization and
    // verifyPreparedJwt would make, in one pass; anything else takes the general path and its precise refusals.
    const header = request.authorization;
    let scheme: AuthScheme | undefined;
    let token = '';
    if (typeof header === 'string' && header.length <= prepared.maxLength + 5) {
      if (header.startsWith('Bearer ')) {
        scheme = 'Bearer';
        token = header.slice(7);
      } else if (header.startsWith('DPoP ')) {
        scheme = 'DPoP';
        token = header.slice(5);
      }
      if (scheme && compactJwsProblem(token, prepared.maxLength) !== undefined) scheme = undefined;
    }
    if (!meta || Date.now() >= metaExpiresAt) {
      if (!scheme) parseAuthorization(header); // no credentials: refused before any discovery
      await discover();
    }
    let claims: JWTPayload;
    let binding: TokenBinding | undefined;
    if (scheme) {
      try {
        claims = (await jwtVerify(token, key, prepared.jose)).payload;
        binding = tokenBinding(claims);
      } catch (err) {
        if (err instanceof VerifierUnavailableError) throw err;
        throw withClientScheme(mapJoseError(err), scheme);
      }
    } else {
      ({ scheme, token } = parseAuthorization(header));
      try {
        ({ payload: claims, binding } = await verifyPreparedJwt(token, prepared));
      } catch (err) {
        throw withClientScheme(err, scheme);
      }
    }
    const { sub, client_id: clientId, jti } = claims;
    if (
      typeof sub !== 'string' ||
      sub === '' ||
      typeof clientId !== 'string' ||
      clientId === '' ||
      typeof jti !== 'string' ||
      jti === ''
    ) {
      throw refuse(scheme, 'claim_invalid', 'the access token sub, client_id or jti claim is not a non-empty string');
    }
    const scope = claims.scope;
    if (scope !== undefined && typeof scope !== 'string')
      throw refuse(scheme, 'claim_invalid', 'the access token scope claim is not a string');
    let delegation: Delegation | undefined;
    try {
      delegation = delegationOf(claims);
    } catch (err) {
      throw withClientScheme(err, scheme);
    }
    if (!binding && dpopRequired)
      throw refuse('DPoP', 'dpop_required', 'this resource accepts DPoP-bound access tokens only');
    const proof =
      binding || scheme === 'DPoP'
        ? await enforceSenderConstraint(
            scheme,
            token,
            binding,
            binding && dpopSettings
              ? { ...dpopSettings, proof: request.dpop, htm: request.method, htu: request.url }
              : undefined,
            replay,
            { clockSkew },
          )
        : undefined;
    const access: Access = {
      userId: sub,
      scopes: scope ? scope.split(' ').filter(Boolean) : [],
      clientId,
      claims,
      token,
      scheme,
    };
    if (delegation) access.delegation = delegation;
    if (proof) access.proof = proof;

    if (revocations) {
      const revoked = revocations.isRevoked(access);
      if (revoked === true || (isThenable(revoked) && (await revoked) === true))
        throw refuse(scheme, 'revoked', 'the access token has been revoked');
    }
    if (rules) applyRules(access, rules);
    return access;
  }

  return {
    issuer: o.issuer,
    audience: o.audience,
    dpopAlgorithms,
    verify,
    metadata: () => (meta && Date.now() < metaExpiresAt ? Promise.resolve(meta) : discover()),
    challengeOptions: (extra = {}) => ({ ...(dpopAlgorithms.length ? { dpopAlgorithms } : {}), ...extra }),
  };
}

/** A route's rules over a verified token: delegation and agent type first (who may call), then scopes (what). */
export function applyRules(access: Access, rules: AccessRules): void {
  const d = access.delegation;
  const rule = rules.delegation ?? 'allow';
  if (rule === 'require' && !d)
    throw refuse(
      access.scheme,
      'delegation_required',
      'this resource accepts delegated (agent) access tokens only',
      'insufficient_scope',
    );
  if (rule === 'deny' && d)
    throw refuse(
      access.scheme,
      'delegation_refused',
      'this resource does not accept delegated (agent) access tokens',
      'insufficient_scope',
    );
  if (d && rules.agentTypes && !rules.agentTypes.includes(d.agent.type)) {
    throw refuse(
      access.scheme,
      'agent_type_refused',
      `agents of type ${d.agent.type} may not use this resource`,
      'insufficient_scope',
    );
  }
  if (d && rules.requireProvenActors) {
    const unproven = d.actorChain.find((a) => actorProof(a) === undefined);
    if (unproven)
      throw refuse(
        access.scheme,
        'actor_not_proven',
        `this resource accepts proven agents only; ${unproven.sub} did not prove who it is`,
        'insufficient_scope',
      );
  }
  if (rules.scopes?.length) {
    const missing = rules.scopes.filter((s) => !access.scopes.includes(s));
    if (missing.length)
      throw refuse(
        access.scheme,
        'insufficient_scope',
        `the access token lacks the scope(s) ${missing.join(' ')}`,
        'insufficient_scope',
        missing,
      );
  }
}
