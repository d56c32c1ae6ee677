/**
 * OAuth 2.0 error (RFC 6749 section 5.2, RFC 6750 section 3.1, RFC 9449 section 7.1).
 * `expose` is true below 500: only then do `error_description` and extra members reach the client.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
  | 'temporarily_unavailable'
  | 'server_error'
  | 'not_found';

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description?: string;
  [member: string]: unknown;
}

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly expose: boolean;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    error: OAuthErrorCode,
    description: string,
    status = 400,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(description, { cause: options.cause });
    this.name = 'OAuthError';
    this.error = error;
    this.status = status;
    this.expose = status < 500 || status === 503;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toJSON(): OAuthErrorBody {
    if (!this.expose) return { error: 'server_error', error_description: 'an unexpected error occurred' };
    return { ...this.extra, error: this.error, error_description: this.message };
  }

  static isOAuthErrorBody(value: unknown): value is OAuthErrorBody {
    return typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string';
  }
}

/** One factory per RFC code, so call sites read like the spec. */
export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError('invalid_request', description, 400),
  invalidClient: (description = 'client authentication failed') => new OAuthError('invalid_client', description, 401),
  invalidGrant: (description: string) => new OAuthError('invalid_grant', description, 400),
  unauthorizedClient: (description: string) => new OAuthError('unauthorized_client', description, 400),
  unsupportedGrantType: (description: string) => new OAuthError('unsupported_grant_type', description, 400),
  invalidScope: (description: string, scope?: string) =>
    new OAuthError('invalid_scope', description, 400, scope === undefined ? {} : { extra: { scope } }),
  invalidTarget: (description: string) => new OAuthError('invalid_target', description, 400),
  accessDenied: (description: string) => new OAuthError('access_denied', description, 400),
  invalidToken: (description: string) => new OAuthError('invalid_token', description, 401),
  insufficientScope: (description: string) => new OAuthError('insufficient_scope', description, 403),
  invalidDpopProof: (description: string) => new OAuthError('invalid_dpop_proof', description, 400),
  useDpopNonce: (nonce: string) =>
    new OAuthError('use_dpop_nonce', 'authorization server requires nonce in DPoP proof', 400, {
      headers: { 'DPoP-Nonce': nonce },
    }),
  temporarilyUnavailable: (description: string) => new OAuthError('temporarily_unavailable', description, 503),
  notFound: (description: string) => new OAuthError('not_found', description, 404),
  serverError: (cause: unknown) => new OAuthError('server_error', 'an unexpected error occurred', 500, { cause }),
};
