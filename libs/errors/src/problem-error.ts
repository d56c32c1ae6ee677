/**
 * RFC 9457 problem details. `type` is a stable URI per error kind so clients can switch on it.
 */
export const PROBLEM_TYPE_BASE = 'https://idp.dev/problems/';

export type ProblemKind =
  | 'validation-error'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'method-not-allowed'
  | 'conflict'
  | 'limit-exceeded'
  | 'payload-too-large'
  | 'unsupported-media-type'
  | 'service-unavailable'
  | 'internal-error';

export interface InvalidParam {
  /** JSON path of the failing field, e.g. `body.allowedScopes[2]`. */
  name: string;
  reason: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [member: string]: unknown;
}

const TITLES: Record<ProblemKind, string> = {
  'validation-error': 'Request validation failed',
  unauthorized: 'Authentication required',
  forbidden: 'Insufficient scope',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  conflict: 'Conflict',
  'limit-exceeded': 'Limit exceeded',
  'payload-too-large': 'Payload too large',
  'unsupported-media-type': 'Unsupported media type',
  'service-unavailable': 'Service unavailable',
  'internal-error': 'Internal server error',
};

export class ProblemError extends Error {
  readonly kind: ProblemKind;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    kind: ProblemKind,
    status: number,
    detail: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, { cause: options.cause });
    this.name = 'ProblemError';
    this.kind = kind;
    this.status = status;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toJSON(instance?: string): ProblemBody {
    if (this.status >= 500 && this.status !== 503) {
      return { type: PROBLEM_TYPE_BASE + 'internal-error', title: TITLES['internal-error'], status: 500, instance };
    }
    return {
      ...this.extra,
      type: PROBLEM_TYPE_BASE + this.kind,
      title: TITLES[this.kind],
      status: this.status,
      detail: this.message,
      ...(instance === undefined ? {} : { instance }),
    };
  }
}

export const problems = {
  validation: (detail: string, invalidParams: InvalidParam[]) =>
    new ProblemError('validation-error', 400, detail, { extra: { invalid_params: invalidParams } }),
  unauthorized: (detail: string, wwwAuthenticate: string) =>
    new ProblemError('unauthorized', 401, detail, { headers: { 'WWW-Authenticate': wwwAuthenticate } }),
  forbidden: (detail: string, requiredScope: string) =>
    new ProblemError('forbidden', 403, detail, {
      extra: { required_scope: requiredScope },
      headers: {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${requiredScope}"`,
      },
    }),
  notFound: (detail: string) => new ProblemError('not-found', 404, detail),
  methodNotAllowed: (allow: string[]) =>
    new ProblemError('method-not-allowed', 405, `allowed methods: ${allow.join(', ')}`, {
      headers: { Allow: allow.join(', ') },
    }),
  conflict: (detail: string) => new ProblemError('conflict', 409, detail),
  limitExceeded: (detail: string, limit: { name: string; value: number }) =>
    new ProblemError('limit-exceeded', 409, detail, { extra: { limit } }),
  serviceUnavailable: (detail: string) => new ProblemError('service-unavailable', 503, detail),
  internal: (cause: unknown) => new ProblemError('internal-error', 500, 'internal error', { cause }),
};
