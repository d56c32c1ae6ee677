import { generate, generateSecret } from 'otplib';
import { checkTotp, normaliseTotpCode } from './totp';

describe('normaliseTotpCode', () => {
  it.each([
    ['123456', '123456'],
    ['123 456', '123456'],
    ['123-456', '123456'],
    ['12345', undefined],
    ['1234567', undefined],
    ['12a456', undefined],
    ['', undefined],
  ])('%j -> %j', (input, expected) => expect(normaliseTotpCode(input)).toBe(expected));
});

describe('checkTotp', () => {
  const secret = generateSecret();
  const now = 1_800_000_015;

  it('accepts the current and the previous step, not older or future ones', async () => {
    const at = (epoch: number) => generate({ secret, epoch });
    const step = Math.floor(now / 30);
    await expect(checkTotp(secret, await at(now), undefined, now)).resolves.toBe(step);
    await expect(checkTotp(secret, await at(now - 30), undefined, now)).resolves.toBe(step - 1);
    await expect(checkTotp(secret, await at(now - 90), undefined, now)).resolves.toBeUndefined();
    await expect(checkTotp(secret, await at(now + 60), undefined, now)).resolves.toBeUndefined();
  });

  it('refuses a step at or before the last accepted one (replay)', async () => {
    const code = await generate({ secret, epoch: now });
    const step = Math.floor(now / 30);
    await expect(checkTotp(secret, code, step, now)).resolves.toBeUndefined();
    await expect(checkTotp(secret, code, step - 1, now)).resolves.toBe(step);
  });

  it('treats a malformed secret as a wrong code', async () => {
    await expect(checkTotp('not base32 !!', '123456', undefined, now)).resolves.toBeUndefined();
  });
});
