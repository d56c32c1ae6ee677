import { randomUUID } from 'node:crypto';
import {
  base64url,
  calculateJwkThumbprint,
  CompactSign,
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
} from 'jose';
import { isCanonicalBase64url, isCanonicalCompactJws } from './compact-jws';
import { DEFAULT_DPOP_ALGORITHMS } from './algorithms';
import { accessTokenHash, verifyDpopProof, type DpopProofOptions } from './dpop';
import { ResourceServerError } from './errors';
import { memoryReplayStore } from './replay';

const HTU = 'https://idp.test/auth/1/oidc/token';
let key: { privateKey: CryptoKey; publicKey: CryptoKey; jwk: JWK; jkt: string };

beforeAll(async () => {
  const k = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(k.publicKey);
  key = { ...k, jwk, jkt: await calculateJwkThumbprint(jwk) };
});

/** A proof with these claims (raw: anything JSON can carry) and header. */
async function proof(claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) {
  const payload = { htm: 'POST', htu: HTU, jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk, ...header })
    .sign(key.privateKey);
}

const opts = (o: Partial<DpopProofOptions> = {}): DpopProofOptions => ({ htm: 'POST', htu: HTU, ...o });

async function refusal(p: Promise<unknown>): Promise<ResourceServerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ResourceServerError)) throw new Error(`expected a ResourceServerError, got ${String(err)}`);
  return err;
}

describe('canonical base64url', () => {
  it.each([
    ['', false],
    ['AA', true],
    ['AB', false], // spare bits set
    ['AAA', true],
    ['AAB', false],
    ['AAAA', true],
    ['A', false], // no byte string encodes to one character
    ['AA==', false],
    ['A+/A', false],
    ['A A', false],
  ])('%j is canonical: %s', (s, ok) => expect(isCanonicalBase64url(s)).toBe(ok));

  it('a compact JWS has three non-empty canonical segments', () => {
    expect(isCanonicalCompactJws('AA.AA.AA')).toBe(true);
    expect(isCanonicalCompactJws('AA.AA.')).toBe(false);
    expect(isCanonicalCompactJws('AA.AA.AA.AA')).toBe(false);
    expect(isCanonicalCompactJws('AA.AA.AA==')).toBe(false);
    expect(isCanonicalCompactJws(`AA.AA.${'A'.repeat(20)}`, 10)).toBe(false);
  });
});

describe('verifyDpopProof', () => {
  it('accepts a valid proof and returns its key thumbprint and claims', async () => {
    const v = await verifyDpopProof(await proof(), opts());
    expect(v).toMatchObject({ jkt: key.jkt, htm: 'POST', htu: HTU, alg: 'ES256' });
  });

  it('by default accepts the algorithms the provider accepts in DPoP proofs, and refuses the others', async () => {
    // The provider's dpop_signing_alg_values_supported: ES256, Ed25519, EdDSA (standard), PS256, ES256, EdDSA (FAPI 2.0).
    expect(DEFAULT_DPOP_ALGORITHMS).toEqual(['ES256', 'EdDSA', 'Ed25519', 'PS256']);
    const signedWith = async (alg: string) => {
      const k = await generateKeyPair(alg, { extractable: true });
      const payload = { htm: 'POST', htu: HTU, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) };
      return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk: await exportJWK(k.publicKey) })
        .sign(k.privateKey);
    };
    for (const alg of ['ES256', 'EdDSA', 'Ed25519', 'PS256'])
      await expect(verifyDpopProof(await signedWith(alg), opts())).resolves.toMatchObject({ alg });
    for (const alg of ['ES384', 'RS256', 'PS512']) {
      expect([alg, (await refusal(verifyDpopProof(await signedWith(alg), opts()))).message]).toEqual([
        alg,
        'DPoP proof alg is not supported',
      ]);
    }
  });

  it('a string iat is reported as an iat problem, not as a bad signature', async () => {
    const err = await refusal(verifyDpopProof(await proof({ iat: String(Math.floor(Date.now() / 1000)) }), opts()));
    expect([err.error, err.reason, err.message]).toEqual([
      'invalid_dpop_proof',
      'dpop_iat_type',
      'DPoP proof iat is missing or not a number',
    ]);
  });

  it.each([
    ['no iat', { iat: undefined }, 'DPoP proof iat is missing or not a number'],
    ['an old iat', { iat: Math.floor(Date.now() / 1000) - 600 }, 'DPoP proof iat is not recent'],
    ['an iat in the future', { iat: Math.floor(Date.now() / 1000) + 600 }, 'DPoP proof iat is not recent'],
    ['no jti', { jti: undefined }, 'DPoP proof jti is missing'],
    ['a numeric jti', { jti: 12345678 }, 'DPoP proof jti is missing'],
    ['a short jti', { jti: 'abc' }, 'DPoP proof jti must be 8 to 256 characters'],
    ['htm GET', { htm: 'GET' }, 'DPoP proof htm mismatch'],
    ['htm post (methods are case-sensitive)', { htm: 'post' }, 'DPoP proof htm mismatch'],
    ['another htu', { htu: 'https://idp.test/auth/2/oidc/token' }, 'DPoP proof htu mismatch'],
    ['a relative htu', { htu: '/auth/1/oidc/token' }, 'DPoP proof htu mismatch'],
    ['a numeric nonce', { nonce: 7 }, 'DPoP proof nonce is malformed'],
  ])('a proof with %s is refused, naming the claim', async (_what, claims, message) => {
    const err = await refusal(verifyDpopProof(await proof(claims), opts()));
    expect([err.status, err.error, err.message]).toEqual([401, 'invalid_dpop_proof', message]);
  });

  it.each([
    ['typ JWT', { typ: 'JWT' }, 'DPoP proof typ must be dpop+jwt'],
    ['no jwk', { jwk: undefined }, 'DPoP proof must carry a public jwk'],
  ])('a proof with %s in its header is refused', async (_what, header, message) => {
    const err = await refusal(verifyDpopProof(await proof({}, header), opts()));
    expect(err.message).toBe(message);
  });

  it('a proof carrying its private key is refused', async () => {
    const priv = await exportJWK(key.privateKey);
    const err = await refusal(verifyDpopProof(await proof({}, { jwk: priv }), opts()));
    expect(err.message).toBe('DPoP proof must carry a public jwk');
  });

  it('a symmetric (HS256) proof is refused for its alg', async () => {
    const secret = new Uint8Array(32).fill(7);
    const hs = await new SignJWT({ htm: 'POST', htu: HTU, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
      .setProtectedHeader({
        alg: 'HS256',
        typ: 'dpop+jwt',
        jwk: { kty: 'oct', k: base64url.encode(secret) } as unknown as JWK,
      })
      .sign(secret);
    expect((await refusal(verifyDpopProof(hs, opts()))).message).toBe('DPoP proof alg is not supported');
    const none = [
      { alg: 'none', typ: 'dpop+jwt', jwk: key.jwk },
      { htm: 'POST', htu: HTU, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) },
      { x: 1 },
    ];
    const unsigned = none.map((part) => base64url.encode(JSON.stringify(part))).join('.');
    expect((await refusal(verifyDpopProof(unsigned, opts()))).message).toBe('DPoP proof alg is not supported');
  });

  it('a proof signed by another key than its jwk has a bad signature', async () => {
    const other = await generateKeyPair('ES256');
    const forged = await new CompactSign(
      new TextEncoder().encode(
        JSON.stringify({ htm: 'POST', htu: HTU, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) }),
      ),
    )
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
      .sign(other.privateKey);
    expect((await refusal(verifyDpopProof(forged, opts()))).message).toBe('DPoP proof signature is not valid');
  });

  it('a proof that is not a canonical JWS is refused as such', async () => {
    expect((await refusal(verifyDpopProof('garbage', opts()))).message).toBe('DPoP proof is not a JWS');
    expect((await refusal(verifyDpopProof(`${await proof()}==`, opts()))).reason).toBe('dpop_proof_malformed');
    expect((await refusal(verifyDpopProof([await proof(), await proof()], opts()))).message).toBe(
      'more than one DPoP proof was sent',
    );
    expect((await refusal(verifyDpopProof(undefined, opts()))).message).toBe('DPoP proof is missing');
  });

  it('with an access token, ath must be its SHA-256', async () => {
    const token = 'a.b.c';
    await expect(
      verifyDpopProof(await proof({ ath: await accessTokenHash(token) }), opts({ accessToken: token })),
    ).resolves.toMatchObject({ jkt: key.jkt });
    expect((await refusal(verifyDpopProof(await proof(), opts({ accessToken: token })))).message).toBe(
      'DPoP proof ath is missing',
    );
    expect(
      (
        await refusal(
          verifyDpopProof(await proof({ ath: await accessTokenHash('x.y.z') }), opts({ accessToken: token })),
        )
      ).message,
    ).toBe('DPoP proof ath does not match the access token');
  });

  it('a replay store refuses the second use of a proof (and only then)', async () => {
    const replay = memoryReplayStore();
    const p = await proof();
    await verifyDpopProof(p, opts({ replay }));
    await verifyDpopProof(await proof(), opts({ replay }));
    const err = await refusal(verifyDpopProof(p, opts({ replay })));
    expect(err.reason).toBe('dpop_replayed');
    expect(replay.size()).toBe(2);
  });

  it('nonces: required without one, or an invalid one, is use_dpop_nonce with a fresh nonce', async () => {
    const nonce = { required: true, isValid: (n: string) => n === 'good', issue: () => 'fresh' };
    const missing = await refusal(verifyDpopProof(await proof(), opts({ nonce })));
    expect([missing.error, missing.nonce, missing.headers()['DPoP-Nonce']]).toEqual([
      'use_dpop_nonce',
      'fresh',
      'fresh',
    ]);
    const bad = await refusal(
      verifyDpopProof(await proof({ nonce: 'bad' }), opts({ nonce: { ...nonce, required: false } })),
    );
    expect(bad.error).toBe('use_dpop_nonce');
    await expect(verifyDpopProof(await proof(), opts({ nonce: { ...nonce, required: false } }))).resolves.toBeDefined();
    await expect(verifyDpopProof(await proof({ nonce: 'good' }), opts({ nonce }))).resolves.toMatchObject({
      nonce: 'good',
    });
  });

  it('refuses symmetric algorithms as configuration (TypeError)', async () => {
    await expect(verifyDpopProof(await proof(), opts({ algorithms: ['ES256', 'HS256'] }))).rejects.toBeInstanceOf(
      TypeError,
    );
  });
});

describe('memoryReplayStore', () => {
  it('forgets keys once they expire and fails closed when full', async () => {
    let t = 1_000_000;
    const store = memoryReplayStore({ maxEntries: 2, now: () => t });
    expect(await store.remember('a', new Date(t + 1000))).toBe(true);
    expect(await store.remember('a', new Date(t + 1000))).toBe(false);
    expect(await store.remember('b', new Date(t + 5000))).toBe(true);
    await expect(store.remember('c', new Date(t + 1000))).rejects.toThrow('full');
    t += 2000;
    expect(await store.remember('a', new Date(t + 1000))).toBe(true);
  });
});
