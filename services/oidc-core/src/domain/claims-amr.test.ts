import { releasedAmr } from './claims-amr';

describe('releasedAmr', () => {
  it.each([
    [['pwd'], 'rfc8176', ['pwd']],
    [['pwd', 'otp', 'mfa'], 'rfc8176', ['pwd', 'otp', 'mfa']],
    [['sc'], 'rfc8176', ['sc']],
    [['swk', 'pwd'], 'rfc8176', ['swk', 'pwd']],
    [['sc'], 'projected', ['hwk', 'mfa']],
    [['swk'], 'projected', ['mfa']],
    [['pwd', 'swk'], 'projected', ['pwd', 'mfa']],
    [['hwk', 'sc', 'mfa'], 'projected', ['hwk', 'mfa']],
    [['pwd', 'otp'], 'projected', ['pwd', 'otp']],
  ] as const)('%j under %s -> %j', (recorded, profile, expected) => {
    expect(releasedAmr([...recorded], profile)).toEqual(expected);
  });

  it('defaults to pwd when nothing was recorded, and drops unknown values', () => {
    expect(releasedAmr(undefined)).toEqual(['pwd']);
    expect(releasedAmr(['face', 'otp', 7])).toEqual(['otp']);
  });

  it('releases only the mapped methods of an upstream sign-in, never a password it did not see', () => {
    expect(releasedAmr(['fed'])).toEqual([]);
    // Released once (the access token), read again (UserInfo): still nothing.
    expect(releasedAmr(releasedAmr(['fed']))).toEqual([]);
    expect(releasedAmr(['mfa', 'hwk', 'fed'])).toEqual(['mfa', 'hwk']);
  });

  it('is idempotent, so projecting twice changes nothing', () => {
    const once = releasedAmr(['sc', 'swk', 'pwd'], 'projected');
    expect(releasedAmr(once, 'projected')).toEqual(once);
  });
});
