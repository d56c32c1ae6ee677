/**
 * Why a protected resource refuses a request, as RFC 6750 section 3.1 and RFC 9449 section 7.1 name it. The `error`
 * code and the scheme decide the challenge (`WWW-Authenticate`) the resource answers with; `reason` is a stable,
 * machine-readable cause for logs, metrics and callers that word their own messages.
 */
export type ResourceServerErrorCode =
  'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'invalid_dpop_proof' | 'use_dpop_nonce';

export type AuthScheme = 'Bearer' | 'DPoP';

/** Every cause a verifier reports (closed set: a new cause is a new member). */
export type RefusalReason =
  // No credentials, or credentials in a form no scheme allows.
  | 'missing_token'
  | 'malformed_authorization'
  // The access token itself.
  | 'malformed_token'
  | 'non_canonical_encoding'
  | 'token_too_long'
  | 'alg_not_allowed'
  | 'no_matching_key'
  | 'signature_invalid'
  | 'expired'
  | 'not_yet_valid'
  | 'claim_invalid'
  | 'cnf_malformed'
  | 'cnf_unsupported'
  | 'bound_token_as_bearer'
  | 'unbound_token_as_dpop'
  | 'bound_token_not_accepted'
  // The DPoP proof.
  | 'dpop_proof_missing'
  | 'dpop_proof_malformed'
  | 'dpop_typ'
  | 'dpop_alg'
  | 'dpop_jwk'
  | 'dpop_signature'
  | 'dpop_payload'
  | 'dpop_htm'
  | 'dpop_htu'
  | 'dpop_jti'
  | 'dpop_iat_type'
  | 'dpop_iat_window'
  | 'dpop_ath'
  | 'dpop_nonce_malformed'
  | 'dpop_nonce_required'
  | 'dpop_key_mismatch'
  | 'dpop_replayed'
  // createVerifier: the token is valid, the rules of the resource or route refuse it.
  | 'dpop_required'
  | 'revoked'
  | 'delegation_malformed'
  | 'delegation_required'
  | 'delegation_refused'
  | 'agent_type_refused'
  | 'actor_not_proven'
  | 'insufficient_scope';

const STATUS: Record<ResourceServerErrorCode, 400 | 401 | 403> = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_dpop_proof: 401,
  use_dpop_nonce: 401,
};

export interface ChallengeOptions {
  /** `realm` auth-param of every challenge. */
  realm?: string;
  /** DPoP proof algorithms the resource accepts (`algs`, RFC 9449 section 7.1); DPoP challenges carry it. */
  dpopAlgorithms?: readonly string[];
  /** Offer the DPoP scheme beside Bearer when the request carried no credentials. Default: true when dpopAlgorithms is given. */
  offerDpop?: boolean;
  /**
   * URL of the resource's Protected Resource Metadata (RFC 9728 section 5.1): every challenge carries it as
   * `resource_metadata`, so a client finds the authorization server from a 401 alone.
   */
  resourceMetadata?: string;
}

/** A quoted-string value: RFC 6750 allows %x20-21 / %x23-5B / %x5D-7E in error_description. */
const quote = (value: string) => `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;

export class ResourceServerError extends Error {
  /** RFC error code; undefined when the request carried no credentials (RFC 6750 section 3.1: no error code). */
  readonly error: ResourceServerErrorCode | undefined;
  /** HTTP status to answer with. */
  readonly status: 400 | 401 | 403;
  /** Scheme of the challenge: the scheme the token needs (DPoP for a bound token, for any proof problem). */
  readonly scheme: AuthScheme;
  readonly reason: RefusalReason;
  /** For use_dpop_nonce: the nonce to send in `DPoP-Nonce`. */
  readonly nonce: string | undefined;
  /** For insufficient_scope: the scopes the request needs and the token lacks (the challenge's `scope`). */
  readonly scope: readonly string[] | undefined;

  constructor(
    error: ResourceServerErrorCode | undefined,
    reason: RefusalReason,
    description: string,
    options: { scheme?: AuthScheme; nonce?: string; scope?: readonly string[]; cause?: unknown } = {},
  ) {
    super(description, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ResourceServerError';
    this.error = error;
    this.reason = reason;
    this.status = error ? STATUS[error] : 401;
    this.scheme = options.scheme ?? (error === 'invalid_dpop_proof' || error === 'use_dpop_nonce' ? 'DPoP' : 'Bearer');
    this.nonce = options.nonce;
    this.scope = options.scope?.length ? options.scope : undefined;
  }

  /** The `WWW-Authenticate` value for this refusal (RFC 6750 section 3, RFC 9449 section 7.1). */
  wwwAuthenticate(o: ChallengeOptions = {}): string {
    const realm = o.realm === undefined ? [] : [`realm=${quote(o.realm)}`];
    const algs = o.dpopAlgorithms?.length ? [`algs=${quote(o.dpopAlgorithms.join(' '))}`] : [];
    const metadata = o.resourceMetadata ? [`resource_metadata=${quote(o.resourceMetadata)}`] : [];
    if (!this.error) {
      const bearerParams = [...realm, ...metadata];
      const bearer = bearerParams.length ? `Bearer ${bearerParams.join(', ')}` : 'Bearer';
      const offerDpop = o.offerDpop ?? algs.length > 0;
      if (!offerDpop) return bearer;
      const dpopParams = [...realm, ...algs, ...metadata];
      return `${bearer}, ${dpopParams.length ? `DPoP ${dpopParams.join(', ')}` : 'DPoP'}`;
    }
    const scope = this.scope ? [`scope=${quote(this.scope.join(' '))}`] : [];
    const params = [
      ...realm,
      `error=${quote(this.error)}`,
      `error_description=${quote(this.message)}`,
      ...scope,
      ...(this.scheme === 'DPoP' ? algs : []),
      ...metadata,
    ];
    return `${this.scheme} ${params.join(', ')}`;
  }

  /** Response headers for this refusal: `WWW-Authenticate`, and `DPoP-Nonce` for use_dpop_nonce. */
  headers(o: ChallengeOptions = {}): Record<string, string> {
    return { 'WWW-Authenticate': this.wwwAuthenticate(o), ...(this.nonce ? { 'DPoP-Nonce': this.nonce } : {}) };
  }

  /** The OAuth error body (RFC 6750 section 3.1), without a code when there was no token. */
  toJSON(): { error?: ResourceServerErrorCode; error_description?: string } {
    return this.error ? { error: this.error, error_description: this.message } : {};
  }
}

export const isResourceServerError = (value: unknown): value is ResourceServerError =>
  value instanceof ResourceServerError;

/**
 * The verifier cannot decide (the authorization server's metadata or keys could not be fetched): not the client's
 * fault, so not a ResourceServerError. Answer 503 with `Retry-After` (the express middleware does).
 */
export class VerifierUnavailableError extends Error {
  readonly status = 503 as const;
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VerifierUnavailableError';
  }
}
