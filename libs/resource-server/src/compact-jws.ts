/**
 * Strict JWS Compact Serialization (RFC 7515 section 7.1 with section 2's base64url: no padding, no characters
 * outside the URL-safe alphabet, no line breaks). Decoders are lenient (`==` appended, `+` for `-`, stray bits in
 * the last character), so one signed token would have many spellings that all verify; a verifier that accepts
 * them lets a cache, a deny list or a log keyed by the token text be bypassed. Checked before any decoding.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * True when `segment` is the one canonical unpadded base64url spelling of its bytes: only the URL-safe alphabet,
 * no `=`, a length that some byte string encodes to, and zero bits where the last character carries no data.
 */
export function isCanonicalBase64url(segment: string): boolean {
  if (!SEGMENT.test(segment)) return false;
  const rest = segment.length % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  const last = ALPHABET.indexOf(segment[segment.length - 1]!);
  // 2 characters carry 1 byte (4 spare bits), 3 characters carry 2 bytes (2 spare bits).
  return (last & (rest === 2 ? 0x0f : 0x03)) === 0;
}

/** Three non-empty segments of the URL-safe alphabet, separated by dots. */
const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const SPARE_BITS = [0, 0, 0x0f, 0x03];

/** isCanonicalBase64url for value.slice(start, end), which is known to hold only the alphabet: no copy. */
function canonicalRange(value: string, start: number, end: number): boolean {
  const rest = (end - start) % 4;
  if (rest === 1) return false;
  if (rest === 0) return true;
  return (ALPHABET.indexOf(value[end - 1]!) & SPARE_BITS[rest]!) === 0;
}

/** Why a value is not a canonical compact JWS, or undefined when it is one. One pass of a regular expression, no copies (it runs on every request). */
export function compactJwsProblem(
  value: unknown,
  maxLength: number,
): 'too_long' | 'malformed' | 'non_canonical' | undefined {
  if (typeof value !== 'string' || value.length === 0) return 'malformed';
  if (value.length > maxLength) return 'too_long';
  if (!COMPACT.test(value)) {
    // Tell a malformed value (not three non-empty segments) from a non-canonical one (padding, `+`, `/`, ...).
    const parts = value.split('.');
    if (parts.length !== 3 || parts.some((p) => p === '')) return 'malformed';
    return 'non_canonical';
  }
  const first = value.indexOf('.');
  const second = value.indexOf('.', first + 1);
  if (
    !canonicalRange(value, 0, first) ||
    !canonicalRange(value, first + 1, second) ||
    !canonicalRange(value, second + 1, value.length)
  )
    return 'non_canonical';
  return undefined;
}

/** True for a JWS in compact serialization whose three segments are non-empty canonical base64url. */
export const isCanonicalCompactJws = (value: unknown, maxLength = 16 * 1024): value is string =>
  compactJwsProblem(value, maxLength) === undefined;
