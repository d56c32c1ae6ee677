/**
 * A client's public keys (`jwks`, for private_key_jwt), checked against the JWK shape (RFC 7517, RFC 7518 section 6,
 * RFC 8037): the members each `kty` defines, strings only where the RFCs say strings, nothing else, every size
 * bounded. Public keys only: a private member (`d`, `p`, ...) or a symmetric key (`oct`) is refused as an unknown
 * member, because the client's secret half has no business in the identity provider's database.
 */
import { z } from 'zod';

/** base64url without padding, exactly `n` characters or between `min` and `max`. */
const b64url = (min: number, max = min) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url without padding');

/** Standard base64 (x5c carries DER certificates in base64, not base64url). */
const b64 = z
  .string()
  .min(4)
  .max(8192)
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64 (a DER certificate)');

const KEY_OPS = ['sign', 'verify', 'encrypt', 'decrypt', 'wrapKey', 'unwrapKey', 'deriveKey', 'deriveBits'] as const;

/** Members every key type may carry (RFC 7517 section 4). */
const common = {
  kid: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\x20-\x7e]+$/, 'printable ASCII')
    .optional(),
  use: z.enum(['sig', 'enc']).optional(),
  key_ops: z
    .array(z.enum(KEY_OPS))
    .min(1)
    .max(KEY_OPS.length)
    .refine((ops) => new Set(ops).size === ops.length, 'no operation twice')
    .optional(),
  alg: z
    .string()
    .min(1)
    .max(32)
    .regex(/^[A-Za-z0-9+_-]+$/, 'a JWA algorithm name')
    .optional(),
  x5c: z.array(b64).min(1).max(5).optional(),
  x5t: b64url(27).optional().describe('SHA-1 thumbprint (20 bytes)'),
  'x5t#S256': b64url(43).optional().describe('SHA-256 thumbprint (32 bytes)'),
  x5u: z
    .string()
    .max(2048)
    .regex(/^https:\/\/[^\s]+$/, 'an https URL')
    .optional(),
};

/** base64url length of a big-endian integer or a coordinate of `bytes` bytes. */
const chars = (bytes: number) => Math.ceil((bytes * 8) / 6);

const rsa = z
  .object({
    kty: z.literal('RSA'),
    // 2048 to 16384 bits: jose refuses RSA keys under 2048 bits for signatures.
    n: b64url(chars(256), chars(2048)).describe('Modulus, 2048 to 16384 bits'),
    e: b64url(1, 8).describe('Public exponent'),
    ...common,
  })
  .strict();

const EC_SIZES = { 'P-256': chars(32), 'P-384': chars(48), 'P-521': chars(66) } as const;
const ec = z
  .object({
    kty: z.literal('EC'),
    crv: z.enum(['P-256', 'P-384', 'P-521']),
    x: b64url(43, 88),
    y: b64url(43, 88),
    ...common,
  })
  .strict()
  .superRefine((k, ctx) => {
    const size = EC_SIZES[k.crv];
    for (const c of ['x', 'y'] as const)
      if (k[c].length !== size)
        ctx.addIssue({ code: 'custom', path: [c], message: `must be ${size} characters for ${k.crv}` });
  });

const OKP_SIZES = { Ed25519: chars(32), Ed448: chars(57), X25519: chars(32), X448: chars(56) } as const;
const okp = z
  .object({ kty: z.literal('OKP'), crv: z.enum(['Ed25519', 'Ed448', 'X25519', 'X448']), x: b64url(43, 76), ...common })
  .strict()
  .superRefine((k, ctx) => {
    const size = OKP_SIZES[k.crv];
    if (k.x.length !== size)
      ctx.addIssue({ code: 'custom', path: ['x'], message: `must be ${size} characters for ${k.crv}` });
  });

/** One public JWK. */
export const publicJwk = z
  .discriminatedUnion('kty', [rsa, ec, okp])
  .describe('A public JWK: RSA (n, e), EC (crv, x, y) or OKP (crv, x), with the RFC 7517 common members');

/** The client's JWK Set: 1 to 10 public keys. */
export const clientJwks = z.object({ keys: z.array(publicJwk).min(1).max(10) }).strict();
