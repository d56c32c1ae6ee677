import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { rfc9068Problems } from './rfc9068';

const ISS = 'https://idp.example/auth/7';
let key: CryptoKey;
let jwks: { keys: JWK[] };

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] };
});

async function sign(
  claims: Record<string, unknown>,
  header: Record<string, unknown> = { typ: 'at+jwt' },
  exp = 300,
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT({ client_id: 'app', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1', ...header })
    .setIssuedAt(now)
    .setExpirationTime(now + exp);
  if (!('iss' in claims)) jwt = jwt.setIssuer(ISS);
  if (!('aud' in claims)) jwt = jwt.setAudience('https://api.example');
  if (!('sub' in claims)) jwt = jwt.setSubject('user-1');
  if (!('jti' in claims)) jwt = jwt.setJti('j1');
  return jwt.sign(key);
}

describe('rfc9068Problems', () => {
  it('accepts a conforming token', async () => {
    expect(
      (
        await rfc9068Problems(await sign({ scope: 'orders:read', amr: ['pwd'] }), {
          issuer: ISS,
          jwks,
          audience: 'https://api.example',
          clientId: 'app',
        })
      ).problems,
    ).toEqual([]);
  });

  it('refuses a delegation token without client_id (what Authlib refused: missing_claim client_id)', async () => {
    const token = await sign({ client_id: undefined, azp: 12 });
    expect((await rfc9068Problems(token, { issuer: ISS, jwks })).problems).toEqual([
      'client_id is missing or not a string (section 2.2)',
    ]);
  });

  it.each([
    ['typ JWT', {}, { typ: 'JWT' }, 'header typ is "JWT", not "at+jwt" (section 2.1)'],
    ['no typ', {}, { typ: undefined }, 'header typ is undefined, not "at+jwt" (section 2.1)'],
    ['jti missing', { jti: undefined }, undefined, 'jti is missing or not a string (section 2.2)'],
    ['sub missing', { sub: undefined }, undefined, 'sub is missing or not a string (section 2.2)'],
    [
      'aud empty array',
      { aud: [] },
      undefined,
      'aud is missing, empty or not a string / array of strings (section 2.2)',
    ],
    ['numeric client_id', { client_id: 12 }, undefined, 'client_id is missing or not a string (section 2.2)'],
    ['amr a string', { amr: 'pwd' }, undefined, 'amr is not an array of strings (section 2.2.1)'],
    [
      'scope an array',
      { scope: ['a'] },
      undefined,
      'scope is not a space-delimited string of scope tokens (section 2.2.3)',
    ],
  ] as const)('%s is a problem', async (_name, claims, header, problem) => {
    const token = await sign(claims as Record<string, unknown>, header ? { ...header } : undefined);
    expect((await rfc9068Problems(token, { issuer: ISS, jwks })).problems).toContain(problem);
  });

  it('checks issuer, audience, client, expiry and signature', async () => {
    const expired = await sign({}, undefined, -10);
    expect((await rfc9068Problems(expired, { issuer: ISS, jwks })).problems).toContain(
      'exp is in the past (section 4)',
    );
    const token = await sign({});
    const problems = (
      await rfc9068Problems(token, {
        issuer: 'https://other.example',
        jwks,
        audience: 'https://other-api.example',
        clientId: 'other',
      })
    ).problems;
    expect(problems).toHaveLength(3);
    const other = await generateKeyPair('ES256', { extractable: true });
    const foreignJwks = { keys: [{ ...(await exportJWK(other.publicKey)), kid: 'k1', alg: 'ES256' }] };
    expect((await rfc9068Problems(token, { issuer: ISS, jwks: foreignJwks })).problems[0]).toMatch(
      /^the signature does not verify/,
    );
  });
});
