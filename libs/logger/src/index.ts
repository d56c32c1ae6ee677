import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line: tokens, secrets, credentials, authorization headers. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers.dpop',
  'req.headers["x-sidecar-secret"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.clientSecret',
  '*.secret',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.subject_token',
  '*.actor_token',
  '*.code',
  '*.code_verifier',
  '*.token',
  '*.authorization',
  'password',
  'client_secret',
  'access_token',
  'subject_token',
  'token',
];

export interface LoggerConfig {
  service: string;
  level?: string;
  /** Where to write; defaults to stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/**
 * How an error appears in a log line: its type, message and stack, never its other properties. pino's
 * default would print every property, and driver errors carry request data there (MongoDB's `keyValue`,
 * `errorResponse`), nested deeper than the redaction paths reach. Anything that is not an Error is logged as is.
 */
export function errorFields(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  return { type: err.name, message: err.message, ...(err.stack ? { stack: err.stack } : {}) };
}

/** The root logger of a process. Libraries receive a child of it; they never build their own. */
export function createLogger(config: LoggerConfig): Logger {
  const options: LoggerOptions = {
    level: config.level ?? 'info',
    base: { service: config.service },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: { err: errorFields },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  return config.destination ? pino(options, config.destination) : pino(options);
}
