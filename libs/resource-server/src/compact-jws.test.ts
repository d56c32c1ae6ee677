import { compactJwsProblem, isCanonicalBase64url, isCanonicalCompactJws } from './compact-jws';

// eyJhbGciOiJFUzI1NiJ9 = {"alg":"ES256"}; "AQ" = 0x01 (1 byte, 4 spare bits); "AQI" = 0x01 0x02 (2 spare bits).
const H = 'eyJhbGciOiJFUzI1NiJ9';

describe('compactJwsProblem', () => {
  it.each([
    [`${H}.AQ.AQI`, undefined],
    [`${H}.AQID.AQIDBA`, undefined],
    [`${H}.AR.AQI`, 'non_canonical'], // stray bits in the payload's last character
    [`${H}.AQ.AQJ`, 'non_canonical'], // stray bits in the signature's last character
    ['e30.AQ.AQI', undefined], // header {} in 3 characters
    ['e31.AQ.AQI', 'non_canonical'], // stray bits in the header's last character
    [`${H}.AQ==.AQI`, 'non_canonical'], // padding
    [`${H}.A+Q.AQI`, 'non_canonical'], // the standard alphabet
    [`${H}.A/Q.AQI`, 'non_canonical'],
    [`${H}.AQIDB.AQI`, 'non_canonical'], // a length no byte string encodes to
    [`${H}..AQI`, 'malformed'],
    [`${H}.AQ`, 'malformed'],
    [`${H}.AQ.AQI.AQ`, 'malformed'],
    ['', 'malformed'],
  ])('%s: %s', (value, problem) => {
    expect(compactJwsProblem(value, 1000)).toBe(problem);
    expect(isCanonicalCompactJws(value)).toBe(problem === undefined);
  });

  it('refuses values longer than the limit and non-strings', () => {
    expect(compactJwsProblem(`${H}.AQ.AQI`, 10)).toBe('too_long');
    expect(compactJwsProblem(42, 10)).toBe('malformed');
  });

  it('agrees with isCanonicalBase64url on every segment', () => {
    for (const seg of ['AQ', 'AR', 'AQI', 'AQJ', 'AQID', 'AQIDB', 'A-_w', 'A-_x']) {
      expect(compactJwsProblem(`${H}.${seg}.AQI`, 1000) === undefined).toBe(isCanonicalBase64url(seg));
    }
  });
});
