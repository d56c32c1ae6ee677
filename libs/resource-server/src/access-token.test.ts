import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { accessTokenHash } from './dpop';
import { parseAuthorization, verifyAccessToken, verifyJwtAccessToken, type AccessTokenOptions } from './access-token';
import { ResourceServerError } from './errors';
import { memoryReplayStore } from './replay';

const ISSUER = 'https://idp.test/auth/7';
const AUDIENCE = 'urn:idp:management';
const HTU = 'https://idp.test/auth/admin/tenants/7/clients';

let signing: { privateKey: CryptoKey; publicKey: CryptoKey };
let holder: { privateKey: CryptoKey; publicKey: CryptoKey; jwk: JWK; jkt: string };
let stranger: { privateKey: CryptoKey; jwk: JWK };

beforeAll(async () => {
  signing = await generateKeyPair('ES256');
  const h = await generateKeyPair('ES256');
  const jwk = await exportJWK(h.publicKey);
  holder = { ...h, jwk, jkt: await calculateJwkThumbprint(jwk) };
  const s = await generateKeyPair('ES256');
  stranger = { privateKey: s.privateKey, jwk: await exportJWK(s.publicKey) };
});

async function accessToken(claims: Record<string, unknown> = {}, o: { exp?: number; aud?: string; typ?: string } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'auth.clients.read', client_id: 'admin', ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: o.typ ?? 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(o.aud ?? AUDIENCE)
    .setSubject('admin')
    .setIssuedAt(now)
    .setExpirationTime(o.exp ?? now + 300)
    .sign(signing.privateKey);
}

async function proof(
  token: string | undefined,
  o: {
    htm?: string;
    htu?: string;
    iat?: unknown;
    jti?: string;
    ath?: string | null;
    key?: { privateKey: CryptoKey; jwk: JWK };
  } = {},
) {
  const key = o.key ?? holder;
  return new SignJWT({
    htm: o.htm ?? 'GET',
    htu: o.htu ?? HTU,
    jti: o.jti ?? randomUUID(),
    iat: o.iat ?? Math.floor(Date.now() / 1000),
    ...(o.ath === null || token === undefined ? {} : { ath: o.ath ?? (await accessTokenHash(token)) }),
  } as Record<string, unknown>)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}

const options = (
  extra: Partial<AccessTokenOptions> = {},
  dpop?: { proof?: string; htm?: string; htu?: string },
): AccessTokenOptions => ({
  key: signing.publicKey,
  issuer: ISSUER,
  audience: AUDIENCE,
  replay: memoryReplayStore(),
  ...(dpop ? { dpop: { proof: dpop.proof, htm: dpop.htm ?? 'GET', htu: dpop.htu ?? HTU, algorithms: ['ES256'] } } : {}),
  ...extra,
});

async function refusal(p: Promise<unknown>): Promise<ResourceServerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ResourceServerError)) throw new Error(`expected a ResourceServerError, got ${String(err)}`);
  return err;
}

describe('parseAuthorization', () => {
  it('reads Bearer and DPoP, case-insensitively', () => {
    expect(parseAuthorization('Bearer abc.def.ghi')).toEqual({ scheme: 'Bearer', token: 'abc.def.ghi' });
    expect(parseAuthorization('dpop abc.def.ghi')).toEqual({ scheme: 'DPoP', token: 'abc.def.ghi' });
  });

  it('no header or another scheme: a refusal without an error code, challenging both schemes when DPoP is offered', () => {
    for (const h of [undefined, '', 'Basic dXNlcjpwYXNz', 'Bearer']) {
      const err = (() => {
        try {
          parseAuthorization(h);
        } catch (e) {
          return e as ResourceServerError;
        }
        throw new Error('accepted');
      })();
      expect([err.status, err.error, err.reason]).toEqual([401, undefined, 'missing_token']);
      expect(err.wwwAuthenticate({ realm: 'api', dpopAlgorithms: ['ES256'] })).toBe(
        'Bearer realm="api", DPoP realm="api", algs="ES256"',
      );
      expect(err.wwwAuthenticate({ realm: 'api' })).toBe('Bearer realm="api"');
    }
  });
});

describe('verifyJwtAccessToken', () => {
  it('accepts a valid token and reports no binding', async () => {
    const token = await accessToken();
    const v = await verifyJwtAccessToken(token, { key: signing.publicKey, issuer: ISSUER, audience: AUDIENCE });
    expect(v.payload.sub).toBe('admin');
    expect(v.binding).toBeUndefined();
  });

  it.each([
    ['== appended', (t: string) => `${t}==`],
    ['= appended to the payload', (t: string) => t.replace(/^([^.]+)\.([^.]+)\./, '$1.$2=.')],
    ['standard-alphabet characters', (t: string) => t.replace(/-/g, '+').replace(/_/g, '/')],
    ['a space inside', (t: string) => t.replace('.', '. ')],
    ['non-canonical trailing bits', (t: string) => flipSpareBits(t)],
  ])('refuses a token with %s, although the signature is the same', async (_what, mangle) => {
    let token = await accessToken();
    // Make sure the mangling applies (a token without - or _ is not changed by the alphabet swap).
    for (let i = 0; i < 20 && mangle(token) === token; i++) token = await accessToken({ n: i });
    const mangled = mangle(token);
    expect(mangled).not.toBe(token);
    const err = await refusal(verifyJwtAccessToken(mangled, { key: signing.publicKey, issuer: ISSUER }));
    expect([err.status, err.error]).toEqual([401, 'invalid_token']);
    expect(['non_canonical_encoding', 'malformed_token']).toContain(err.reason);
  });

  it.each([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 10 }, 'expired', 'the access token has expired'],
    [
      'for another audience',
      { aud: 'https://api.example' },
      'claim_invalid',
      'the access token aud claim is not valid here',
    ],
    ['of another typ', { typ: 'JWT' }, 'claim_invalid', 'the access token typ claim is not valid here'],
  ])('refuses a token %s, naming why', async (_what, o, reason, message) => {
    const err = await refusal(
      verifyJwtAccessToken(await accessToken({}, o), { key: signing.publicKey, issuer: ISSUER, audience: AUDIENCE }),
    );
    expect([err.error, err.reason, err.message]).toEqual(['invalid_token', reason, message]);
  });

  it('refuses a token signed by another key', async () => {
    const other = await generateKeyPair('ES256');
    const err = await refusal(verifyJwtAccessToken(await accessToken(), { key: other.publicKey, issuer: ISSUER }));
    expect(err.reason).toBe('signature_invalid');
  });

  it('reports cnf.jkt as the binding; refuses a cnf it does not understand or a malformed one', async () => {
    const bound = await verifyJwtAccessToken(await accessToken({ cnf: { jkt: holder.jkt } }), {
      key: signing.publicKey,
      issuer: ISSUER,
    });
    expect(bound.binding).toEqual({ jkt: holder.jkt });
    for (const cnf of [
      { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' },
      { jkt: holder.jkt, 'x5t#S256': 'x' },
    ]) {
      const err = await refusal(
        verifyJwtAccessToken(await accessToken({ cnf }), { key: signing.publicKey, issuer: ISSUER }),
      );
      expect([err.status, err.error, err.reason]).toEqual([401, 'invalid_token', 'cnf_unsupported']);
      expect(err.message).toContain('x5t#S256');
    }
    for (const cnf of [{}, 'jkt', [], { jkt: 42 }, { jkt: `${holder.jkt}=` }]) {
      const err = await refusal(
        verifyJwtAccessToken(await accessToken({ cnf }), { key: signing.publicKey, issuer: ISSUER }),
      );
      expect(err.reason).toBe('cnf_malformed');
    }
  });

  it('refuses symmetric algorithms as configuration (TypeError)', async () => {
    await expect(
      verifyJwtAccessToken(await accessToken(), { key: signing.publicKey, issuer: ISSUER, algorithms: ['HS256'] }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});

describe('verifyAccessToken: sender constraint (RFC 9449 section 7)', () => {
  it('an unbound token passes as Bearer', async () => {
    const token = await accessToken();
    const v = await verifyAccessToken(`Bearer ${token}`, options({}, {}));
    expect([v.scheme, v.binding, v.proof]).toEqual(['Bearer', undefined, undefined]);
  });

  it('an unbound token sent as DPoP is refused', async () => {
    const token = await accessToken();
    const err = await refusal(verifyAccessToken(`DPoP ${token}`, options({}, { proof: await proof(token) })));
    expect([err.status, err.error, err.reason]).toEqual([401, 'invalid_token', 'unbound_token_as_dpop']);
  });

  it('a bound token sent as Bearer gets 401 with WWW-Authenticate: DPoP error="invalid_token"', async () => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const err = await refusal(verifyAccessToken(`Bearer ${token}`, options({}, { proof: await proof(token) })));
    expect([err.status, err.error, err.reason, err.scheme]).toEqual([
      401,
      'invalid_token',
      'bound_token_as_bearer',
      'DPoP',
    ]);
    expect(err.wwwAuthenticate({ realm: 'management', dpopAlgorithms: ['ES256', 'PS256'] })).toBe(
      'DPoP realm="management", error="invalid_token", error_description="the access token is DPoP-bound: send it with Authorization: DPoP and a DPoP proof", algs="ES256 PS256"',
    );
  });

  it('a bound token where the resource takes no DPoP is refused', async () => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const err = await refusal(verifyAccessToken(`DPoP ${token}`, options()));
    expect(err.reason).toBe('bound_token_not_accepted');
  });

  it('a bound token with a valid proof passes once; the same proof again is a replay', async () => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const o = options();
    const p = await proof(token);
    const v = await verifyAccessToken(`DPoP ${token}`, { ...o, dpop: { proof: p, htm: 'GET', htu: HTU } });
    expect([v.scheme, v.binding, v.proof?.jkt]).toEqual(['DPoP', { jkt: holder.jkt }, holder.jkt]);
    const again = await refusal(verifyAccessToken(`DPoP ${token}`, { ...o, dpop: { proof: p, htm: 'GET', htu: HTU } }));
    expect([again.status, again.error, again.reason, again.message]).toEqual([
      401,
      'invalid_dpop_proof',
      'dpop_replayed',
      'DPoP proof has been used before',
    ]);
    expect(again.wwwAuthenticate({ dpopAlgorithms: ['ES256'] })).toBe(
      'DPoP error="invalid_dpop_proof", error_description="DPoP proof has been used before", algs="ES256"',
    );
  });

  it.each([
    ['no proof', () => Promise.resolve(undefined), 'dpop_proof_missing'],
    ['a proof for another token (ath)', async () => proof(await accessToken({ cnf: { jkt: 'x' } })), 'dpop_ath'],
    ['a proof without ath', async (t: string) => proof(t, { ath: null }), 'dpop_ath'],
    [
      'a proof for another URL (htu)',
      async (t: string) => proof(t, { htu: 'https://idp.test/auth/admin/tenants/7/users' }),
      'dpop_htu',
    ],
    [
      'a proof for another origin (htu)',
      async (t: string) => proof(t, { htu: 'https://evil.example/auth/admin/tenants/7/clients' }),
      'dpop_htu',
    ],
    ['a proof for another method (htm)', async (t: string) => proof(t, { htm: 'POST' }), 'dpop_htm'],
    ['a proof made with another key', async (t: string) => proof(t, { key: stranger }), 'dpop_key_mismatch'],
    ['a proof too old', async (t: string) => proof(t, { iat: Math.floor(Date.now() / 1000) - 300 }), 'dpop_iat_window'],
  ])('a bound token with %s is refused', async (_what, make, reason) => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const err = await refusal(verifyAccessToken(`DPoP ${token}`, options({}, { proof: await make(token) })));
    expect([err.status, err.error, err.reason]).toEqual([401, 'invalid_dpop_proof', reason]);
  });

  it('htu is compared without query and fragment and after URL normalisation', async () => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const p = await proof(token, { htu: 'HTTPS://IDP.test:443/auth/admin/tenants/7/clients' });
    await expect(
      verifyAccessToken(`DPoP ${token}`, options({}, { proof: p, htu: `${HTU}?limit=5` })),
    ).resolves.toMatchObject({ scheme: 'DPoP' });
  });

  it('a non-canonical token is refused before any other check, with the scheme the client used', async () => {
    const token = await accessToken({ cnf: { jkt: holder.jkt } });
    const err = await refusal(verifyAccessToken(`DPoP ${token}==`, options({}, { proof: await proof(`${token}==`) })));
    expect([err.error, err.reason, err.scheme]).toEqual(['invalid_token', 'non_canonical_encoding', 'DPoP']);
  });
});

/** Sets a spare bit of the last character of the first segment whose length leaves spare bits. */
function flipSpareBits(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const parts = token.split('.');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.length % 4 === 0) continue;
    const idx = alphabet.indexOf(p[p.length - 1]!);
    parts[i] = p.slice(0, -1) + alphabet[idx | 1];
    return parts.join('.');
  }
  return token;
}
