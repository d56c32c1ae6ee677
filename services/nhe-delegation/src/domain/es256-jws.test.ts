import { generateKeyPairSync } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, jwtVerify } from 'jose';
import { importEs256PrivateJwk, signEs256Jwt } from './es256-jws';

async function p256() {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { publicKey, jwk: await exportJWK(privateKey) };
}

test('jose verifies the token: header, claims and a 64-byte R || S signature', async () => {
  const { publicKey, jwk } = await p256();
  const token = signEs256Jwt(
    { kid: 'k1', typ: 'at+jwt' },
    { sub: 'u1', aud: 'https://api', exp: 4_000_000_000, act: { sub: 'nhe:a' } },
    importEs256PrivateJwk(jwk),
  );
  expect(decodeProtectedHeader(token)).toEqual({ alg: 'ES256', kid: 'k1', typ: 'at+jwt' });
  const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
    typ: 'at+jwt',
    audience: 'https://api',
    algorithms: ['ES256'],
  });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload).toEqual({ sub: 'u1', aud: 'https://api', exp: 4_000_000_000, act: { sub: 'nhe:a' } });
  expect(Buffer.from(token.split('.')[2]!, 'base64url')).toHaveLength(64);
});

test('the signature covers header and payload: a changed payload or another key does not verify', async () => {
  const { publicKey, jwk } = await p256();
  const token = signEs256Jwt({ kid: 'k1', typ: 'at+jwt' }, { scope: 'orders:read' }, importEs256PrivateJwk(jwk));
  const [h, , s] = token.split('.');
  const forged = `${h}.${Buffer.from(JSON.stringify({ scope: 'orders:write' })).toString('base64url')}.${s}`;
  await expect(compactVerify(forged, publicKey)).rejects.toThrow('signature verification failed');
  const other = await p256();
  await expect(compactVerify(token, other.publicKey)).rejects.toThrow('signature verification failed');
  await expect(compactVerify(token, await importJWK({ ...jwk, d: undefined }, 'ES256'))).resolves.toBeDefined();
});

test('only a private P-256 key is accepted', () => {
  const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ format: 'jwk' });
  expect(() => importEs256PrivateJwk(p384)).toThrow('ES256 needs a private P-256 key');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  expect(() => importEs256PrivateJwk(rsa)).toThrow('ES256 needs a private P-256 key');
  const pub = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
  expect(() => importEs256PrivateJwk(pub)).toThrow();
});
