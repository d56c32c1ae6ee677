/**
 * The JSON body parser every service uses: express.json with a bounded nesting depth, checked on the raw text before
 * JSON.parse runs. JSON.parse itself copes with any depth, but nearly everything done with the parsed value afterwards
 * recurses (JSON.stringify, zod, BSON serialisation, structuredClone), so 5,000 nested brackets in 10 KB end as a
 * RangeError (stack overflow) and a 500 somewhere deep in a route. Refusing the body here keeps every later step
 * bounded, whatever route or field the nesting hides in.
 */
import { TextDecoder } from 'node:util';
import type { RequestHandler } from 'express';
import express from 'express';

/**
 * Levels of arrays and objects a request body may nest (the body itself is level 1). The deepest body any route
 * accepts today is a user with free-form claims (the claim map, then at most 8 levels inside a claim): 32 leaves room.
 */
export const MAX_JSON_BODY_DEPTH = 32;

/** A body nested deeper than the limit: 400 (`type` tells the error handlers what to say). */
export class JsonTooDeepError extends Error {
  readonly status = 400;
  readonly statusCode = 400;
  readonly expose = true;
  readonly type = 'entity.too.deep';
  constructor(readonly maxDepth: number) {
    super(`request body nested too deeply (at most ${maxDepth} levels of arrays and objects)`);
    this.name = 'JsonTooDeepError';
  }
}

export const isJsonTooDeep = (err: unknown): err is JsonTooDeepError =>
  (err as { type?: unknown } | null)?.type === 'entity.too.deep';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * True when JSON text nests arrays and objects deeper than `max`. One pass, no recursion, no allocation: brackets
 * inside strings do not count (escapes honoured). Works on UTF-8 bytes as well as on a string, because every byte
 * of a multi-byte UTF-8 sequence is above 0x7f. Text that is not JSON may be miscounted; JSON.parse refuses it anyway.
 */
export function exceedsJsonDepth(text: string | Uint8Array, max: number): boolean {
  const bytes = typeof text !== 'string';
  const n = text.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < n; i++) {
    const c = bytes ? (text as Uint8Array)[i]! : (text as string).charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** Raw body as scanned text: UTF-8 bytes as they are; another charset (UTF-16) decoded first. */
function scanText(buf: Buffer, encoding: string | null | undefined): string | Uint8Array {
  const enc = (encoding ?? 'utf-8').toLowerCase();
  if (enc === 'utf-8' || enc === 'utf8') return buf;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(enc);
  } catch {
    // A charset body-parser knows but the scanner cannot read (UTF-32): refused as an unsupported charset.
    throw Object.assign(new Error(`unsupported charset "${enc.toUpperCase()}"`), {
      status: 415,
      statusCode: 415,
      expose: true,
      type: 'charset.unsupported',
    });
  }
  return decoder.decode(buf);
}

export interface JsonBodyOptions {
  /** Size limit (body-parser syntax). */
  limit?: string;
  /** Levels of nesting allowed (default MAX_JSON_BODY_DEPTH). */
  maxDepth?: number;
  /** Only objects and arrays at the top (default true). */
  strict?: boolean;
  /** Content types parsed (default application/json). */
  type?: string | string[];
}

/** express.json plus the depth bound; a refused body reaches the error handler as a 400 JsonTooDeepError. */
export function jsonBody(options: JsonBodyOptions = {}): RequestHandler {
  const max = options.maxDepth ?? MAX_JSON_BODY_DEPTH;
  return express.json({
    limit: options.limit ?? '64kb',
    strict: options.strict ?? true,
    type: options.type ?? 'application/json',
    verify: (_req, _res, buf, encoding) => {
      if (exceedsJsonDepth(scanText(buf, encoding), max)) throw new JsonTooDeepError(max);
    },
  });
}
