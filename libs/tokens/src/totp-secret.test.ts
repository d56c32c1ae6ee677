import { KeyEncryptionKey } from './kek';
import { base32Encode, generateTotpSecret, openTotpSecret, sealTotpSecret, totpUri } from './totp-secret';

const kek = new KeyEncryptionKey('k'.repeat(40));
const USER = '6b0239e335230b1326f158aa';

it('encodes base32 as RFC 4648 section 10 (unpadded)', () => {
  const vectors: Array<[string, string]> = [
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ];
  for (const [plain, encoded] of vectors) expect([plain, base32Encode(Buffer.from(plain))]).toEqual([plain, encoded]);
});

it('generates distinct 160-bit secrets', () => {
  const a = generateTotpSecret();
  expect(a).toMatch(/^[A-Z2-7]{32}$/);
  expect(generateTotpSecret()).not.toBe(a);
});

it('seals so that only the same key, tenant and user open it', () => {
  const secret = generateTotpSecret();
  const sealed = sealTotpSecret(kek, 7, USER, secret);
  expect(sealed).not.toContain(secret);
  expect(sealTotpSecret(kek, 7, USER, secret)).not.toBe(sealed); // random IV
  expect(openTotpSecret(kek, 7, USER, sealed)).toBe(secret);
  expect(() => openTotpSecret(kek, 8, USER, sealed)).toThrow();
  expect(() => openTotpSecret(kek, 7, USER.replace('a', 'b'), sealed)).toThrow();
  expect(() => openTotpSecret(new KeyEncryptionKey('x'.repeat(40)), 7, USER, sealed)).toThrow();
  // A legacy plain value is not a sealed one.
  expect(() => openTotpSecret(kek, 7, USER, secret)).toThrow();
});

it('seals base32 secrets only', () => {
  expect(() => sealTotpSecret(kek, 7, USER, 'not base32!')).toThrow(/base32/);
  expect(() => sealTotpSecret(kek, 7, USER, 'ABC')).toThrow(/base32/);
});

it('builds the otpauth Key URI with issuer label and parameters', () => {
  const uri = totpUri({ issuer: 'Acme Corp', account: 'bob@acme.example', secret: 'JBSWY3DPEHPK3PXP' });
  expect(uri).toBe(
    'otpauth://totp/Acme%20Corp:bob%40acme.example?secret=JBSWY3DPEHPK3PXP&issuer=Acme%20Corp&algorithm=SHA1&digits=6&period=30',
  );
});
