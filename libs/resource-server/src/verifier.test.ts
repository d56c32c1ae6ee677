import { generateSecret, SignJWT } from 'jose';
import {
  AUDIENCE,
  fakeIssuer,
  holder,
  ISSUER,
  nheClaims,
  proof,
  signingKey,
  URL_ORDERS,
  type FakeIssuer,
  type Holder,
} from '../test/fixtures';
import { ResourceServerError, VerifierUnavailableError } from './errors';
import { memoryReplayStore } from './replay';
import { createVerifier, type Access, type AccessRules, type VerifierOptions } from './verifier';

let idp: FakeIssuer;
let alice: Holder;

beforeAll(async () => {
  alice = await holder();
});
beforeEach(async () => {
  idp = await fakeIssuer();
});

const verifierOf = (extra: Partial<VerifierOptions> = {}) =>
  createVerifier({ issuer: ISSUER, audience: AUDIENCE, fetch: idp.fetch, ...extra });
const bearer = (token: string) => ({ authorization: `Bearer ${token}`, method: 'GET', url: URL_ORDERS });

async function refusal(p: Promise<unknown>): Promise<ResourceServerError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ResourceServerError)) throw new Error(`expected a ResourceServerError, got ${String(err)}`);
  return err;
}

describe('createVerifier: configuration', () => {
  it('refuses symmetric algorithms, a missing audience and a non-URL issuer as TypeErrors', () => {
    expect(() => verifierOf({ algorithms: ['HS256'] })).toThrow(TypeError);
    expect(() => verifierOf({ dpop: { algorithms: ['HS256'] } })).toThrow(TypeError);
    expect(() => verifierOf({ audience: [] })).toThrow(TypeError);
    expect(() => createVerifier({ issuer: 'idp.test', audience: AUDIENCE })).toThrow(TypeError);
  });
});

describe('createVerifier: discovery', () => {
  it('discovers once for many requests and returns userId, scopes, clientId, claims and token', async () => {
    const v = verifierOf();
    const token = await idp.sign({ scope: 'orders:read orders:write' });
    for (let i = 0; i < 5; i++) {
      const access = await v.verify(bearer(token));
      expect(access).toMatchObject({
        userId: 'user-1',
        scopes: ['orders:read', 'orders:write'],
        clientId: 'orders-app',
        token,
        scheme: 'Bearer',
      });
      expect(access.delegation).toBeUndefined();
      expect(access.claims.iss).toBe(ISSUER);
    }
    expect(idp.calls).toEqual([`${ISSUER}/.well-known/openid-configuration`, 'https://idp.test/auth/7/jwks']);
  });

  it('refuses metadata naming another issuer (exact match) and falls back to RFC 8414', async () => {
    idp.documents.set(`${ISSUER}/.well-known/openid-configuration`, {
      status: 200,
      body: { issuer: `${ISSUER}/`, jwks_uri: 'https://idp.test/auth/7/jwks' },
    });
    const token = await idp.sign();
    const err = await verifierOf()
      .verify(bearer(token))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VerifierUnavailableError);
    expect((err as Error).message).toMatch(
      /names issuer "https:\/\/idp.test\/auth\/7\/", not "https:\/\/idp.test\/auth\/7"/,
    );
    expect(idp.calls).toEqual([
      `${ISSUER}/.well-known/openid-configuration`,
      'https://idp.test/.well-known/oauth-authorization-server/auth/7',
    ]);

    idp.documents.set('https://idp.test/.well-known/oauth-authorization-server/auth/7', {
      status: 200,
      body: { issuer: ISSUER, jwks_uri: 'https://idp.test/auth/7/jwks' },
    });
    await expect(verifierOf().verify(bearer(token))).resolves.toMatchObject({ userId: 'user-1' });
  });

  it('refuses a jwks_uri that is not https for an https issuer', async () => {
    idp.documents.set(`${ISSUER}/.well-known/openid-configuration`, {
      status: 200,
      body: { issuer: ISSUER, jwks_uri: 'http://idp.test/auth/7/jwks' },
    });
    await expect(verifierOf().metadata()).rejects.toThrow(/jwks_uri that is not https/);
  });

  it('an unreachable issuer is VerifierUnavailableError (503), retried only after a pause', async () => {
    let calls = 0;
    const v = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      fetch: () => {
        calls++;
        return Promise.reject(new Error('ECONNREFUSED'));
      },
    });
    const token = await idp.sign();
    await expect(v.verify(bearer(token))).rejects.toBeInstanceOf(VerifierUnavailableError);
    await expect(v.verify(bearer(token))).rejects.toBeInstanceOf(VerifierUnavailableError);
    expect(calls).toBe(2); // the two discovery URLs of the first attempt; the second request did not refetch
  });

  it('a JWKS that cannot be fetched is VerifierUnavailableError, not a refusal of the token', async () => {
    const v = createVerifier({
      issuer: ISSUER,
      audience: AUDIENCE,
      fetch: (url, init) =>
        url.endsWith('/jwks') ? Promise.resolve(new Response('oops', { status: 500 })) : idp.fetch(url, init),
    });
    await expect(v.verify(bearer(await idp.sign()))).rejects.toBeInstanceOf(VerifierUnavailableError);
  });

  it('no credentials is refused before any discovery', async () => {
    const v = verifierOf();
    const err = await refusal(v.verify({ authorization: undefined, method: 'GET', url: URL_ORDERS }));
    expect(err).toMatchObject({ error: undefined, status: 401, reason: 'missing_token' });
    expect(idp.calls).toEqual([]);
  });
});

describe('createVerifier: key rotation', () => {
  it('an unknown kid refetches the JWKS once; another unknown kid within the cooldown does not refetch', async () => {
    const v = verifierOf({ jwks: { cooldownMs: 60_000 } });
    await v.verify(bearer(await idp.sign()));
    expect(idp.calls.filter((c) => c.endsWith('/jwks'))).toHaveLength(1);

    const rotated = await signingKey('k2');
    idp.keys.unshift(rotated);
    // Within the cooldown after the first fetch: a new kid is not fetched for (rate limit), the token is refused.
    const early = await refusal(v.verify(bearer(await idp.sign({}, { key: rotated }))));
    expect(early.reason).toBe('no_matching_key');
    expect(idp.calls.filter((c) => c.endsWith('/jwks'))).toHaveLength(1);
  });

  it('after the cooldown, an unknown kid triggers one refetch and the rotated key verifies', async () => {
    const v = verifierOf({ jwks: { cooldownMs: 0 } });
    await v.verify(bearer(await idp.sign()));
    const rotated = await signingKey('k2');
    idp.keys.unshift(rotated);
    await expect(v.verify(bearer(await idp.sign({}, { key: rotated })))).resolves.toMatchObject({ userId: 'user-1' });
    expect(idp.calls.filter((c) => c.endsWith('/jwks'))).toHaveLength(2);
    // The old key still verifies from the same (refreshed) set without another fetch.
    await v.verify(bearer(await idp.sign()));
    expect(idp.calls.filter((c) => c.endsWith('/jwks'))).toHaveLength(2);
  });

  it('a key that is not in the set at all is no_matching_key (401), not an outage', async () => {
    const stranger = await signingKey('k9');
    const err = await refusal(
      verifierOf({ jwks: { cooldownMs: 0 } }).verify(bearer(await idp.sign({}, { key: stranger }))),
    );
    expect(err).toMatchObject({ error: 'invalid_token', status: 401, reason: 'no_matching_key' });
  });
});

describe('createVerifier: claim rules (RFC 9068)', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: Array<[string, () => Promise<string>, string]> = [
    ['another issuer', () => idp.sign({ iss: 'https://idp.test/auth/8' }), 'claim_invalid'],
    ['another audience', () => idp.sign({ aud: 'https://api.other.test' }), 'claim_invalid'],
    ['expired beyond the skew', () => idp.sign({ exp: now() - 30 }), 'expired'],
    ['not yet valid beyond the skew', () => idp.sign({ nbf: now() + 30 }), 'not_yet_valid'],
    ['typ JWT instead of at+jwt', () => idp.sign({}, { typ: 'JWT' }), 'claim_invalid'],
    ['no exp', () => idp.sign({}, { omit: ['exp'] }), 'claim_invalid'],
    ['no iat', () => idp.sign({}, { omit: ['iat'] }), 'claim_invalid'],
    ['no sub', () => idp.sign({}, { omit: ['sub'] }), 'claim_invalid'],
    ['no client_id', () => idp.sign({}, { omit: ['client_id'] }), 'claim_invalid'],
    ['no jti', () => idp.sign({}, { omit: ['jti'] }), 'claim_invalid'],
    ['a numeric sub', () => idp.sign({ sub: 42 }), 'claim_invalid'],
    ['a numeric client_id', () => idp.sign({ client_id: 12 }), 'claim_invalid'],
    ['a scope that is not a string', () => idp.sign({ scope: ['orders:read'] }), 'claim_invalid'],
    ['a cnf with x5t#S256', () => idp.sign({ cnf: { 'x5t#S256': 'abc' } }), 'cnf_unsupported'],
  ];
  it.each(cases)('refuses %s (401 invalid_token)', async (_name, make, reason) => {
    const err = await refusal(verifierOf().verify(bearer(await make())));
    expect(err).toMatchObject({ error: 'invalid_token', status: 401, reason });
  });

  it('accepts exp and nbf within the clock skew (default 5 s, configurable)', async () => {
    await expect(verifierOf().verify(bearer(await idp.sign({ exp: now() - 2 })))).resolves.toBeDefined();
    await expect(verifierOf().verify(bearer(await idp.sign({ nbf: now() + 2 })))).resolves.toBeDefined();
    const strict = await refusal(
      verifierOf({ clockSkewSeconds: 0 }).verify(bearer(await idp.sign({ exp: now() - 2 }))),
    );
    expect(strict.reason).toBe('expired');
  });

  it('refuses an algorithm outside the allowed list, and HS256 signed with anything', async () => {
    const rsa = await signingKey('rsa', 'RS256');
    idp.keys.push(rsa);
    const rs = await idp.sign({}, { key: rsa, alg: 'RS256' });
    await expect(verifierOf().verify(bearer(rs))).resolves.toBeDefined();
    expect((await refusal(verifierOf({ algorithms: ['ES256'] }).verify(bearer(rs)))).reason).toBe('alg_not_allowed');
    const hs = await new SignJWT({ sub: 'user-1', client_id: 'x', jti: 'j' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1', typ: 'at+jwt' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await generateSecret('HS256'));
    expect((await refusal(verifierOf().verify(bearer(hs)))).reason).toBe('alg_not_allowed');
  });

  it('refuses a token signed by another key with the same kid, and a non-canonical spelling', async () => {
    const impostor = await signingKey('k1');
    expect((await refusal(verifierOf().verify(bearer(await idp.sign({}, { key: impostor }))))).reason).toBe(
      'signature_invalid',
    );
    const token = await idp.sign();
    expect((await refusal(verifierOf().verify(bearer(`${token}=`)))).reason).toBe('non_canonical_encoding');
  });

  it('accepts one of several audiences', async () => {
    const v = verifierOf({ audience: ['https://api.other.test', AUDIENCE] });
    await expect(v.verify(bearer(await idp.sign()))).resolves.toBeDefined();
  });
});

describe('createVerifier: DPoP (RFC 9449 section 7)', () => {
  const dpopRequest = async (token: string, p?: string) => ({
    authorization: `DPoP ${token}`,
    dpop: p ?? (await proof(alice, token)),
    method: 'GET',
    url: URL_ORDERS,
  });

  it('a bound token with a valid proof passes; the proof is returned', async () => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const access = await verifierOf().verify(await dpopRequest(token));
    expect(access.scheme).toBe('DPoP');
    expect(access.proof?.jkt).toBe(alice.jkt);
  });

  it('a bound token presented as Bearer is refused with a DPoP challenge', async () => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const err = await refusal(verifierOf().verify(bearer(token)));
    expect(err).toMatchObject({ error: 'invalid_token', status: 401, reason: 'bound_token_as_bearer', scheme: 'DPoP' });
  });

  it('an unbound token presented as DPoP is refused', async () => {
    const token = await idp.sign();
    expect((await refusal(verifierOf().verify(await dpopRequest(token)))).reason).toBe('unbound_token_as_dpop');
  });

  const proofCases: Array<[string, (token: string) => Promise<string | undefined>, string]> = [
    ['no proof', () => Promise.resolve(undefined), 'dpop_proof_missing'],
    ['another method', (t) => proof(alice, t, { htm: 'POST' }), 'dpop_htm'],
    ['another URL', (t) => proof(alice, t, { htu: 'https://api.orders.test/invoices' }), 'dpop_htu'],
    ['no ath', (t) => proof(alice, t, { ath: null }), 'dpop_ath'],
    ['the ath of another token', (t) => proof(alice, t, { ath: 'x'.repeat(43) }), 'dpop_ath'],
    ['an old iat', (t) => proof(alice, t, { iat: Math.floor(Date.now() / 1000) - 600 }), 'dpop_iat_window'],
    ['a short jti', (t) => proof(alice, t, { jti: 'abc' }), 'dpop_jti'],
  ];
  it.each(proofCases)('refuses %s (401 invalid_dpop_proof)', async (_name, make, reason) => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const p = await make(token);
    const err = await refusal(
      verifierOf().verify({ authorization: `DPoP ${token}`, dpop: p, method: 'GET', url: URL_ORDERS }),
    );
    expect(err).toMatchObject({ error: 'invalid_dpop_proof', status: 401, reason, scheme: 'DPoP' });
  });

  it('refuses a proof made with another key than cnf.jkt', async () => {
    const mallory = await holder();
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const err = await refusal(verifierOf().verify(await dpopRequest(token, await proof(mallory, token))));
    expect(err.reason).toBe('dpop_key_mismatch');
  });

  it('refuses a replayed proof (default in-memory replay cache)', async () => {
    const v = verifierOf();
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const req = await dpopRequest(token);
    await v.verify(req);
    expect((await refusal(v.verify(req))).reason).toBe('dpop_replayed');
  });

  it('the replay cache is bounded: when full of live proofs it fails closed (the request fails, no proof passes twice)', async () => {
    const v = verifierOf({ replay: memoryReplayStore({ maxEntries: 2 }) });
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    await v.verify(await dpopRequest(token));
    await v.verify(await dpopRequest(token));
    await expect(v.verify(await dpopRequest(token))).rejects.toThrow(/replay store is full/);
  });

  it('dpop: false refuses bound tokens; dpop.required refuses unbound ones', async () => {
    const bound = await idp.sign({ cnf: { jkt: alice.jkt } });
    expect((await refusal(verifierOf({ dpop: false }).verify(await dpopRequest(bound)))).reason).toBe(
      'bound_token_not_accepted',
    );
    const err = await refusal(verifierOf({ dpop: { required: true } }).verify(bearer(await idp.sign())));
    expect(err).toMatchObject({ error: 'invalid_token', reason: 'dpop_required', scheme: 'DPoP' });
    await expect(verifierOf({ dpop: { required: true } }).verify(await dpopRequest(bound))).resolves.toBeDefined();
  });

  it('accepts only the configured proof algorithms', async () => {
    const token = await idp.sign({ cnf: { jkt: alice.jkt } });
    const err = await refusal(verifierOf({ dpop: { algorithms: ['EdDSA'] } }).verify(await dpopRequest(token)));
    expect(err.reason).toBe('dpop_alg');
  });
});

describe('createVerifier: delegation', () => {
  it('reads an NHE token: nheIdentifier, agent, actorChain; clientId is client_id (not the numeric azp)', async () => {
    const token = await idp.sign(nheClaims('invoice-bot'));
    const access = await verifierOf().verify(bearer(token));
    expect(access.clientId).toBe('orders-app');
    expect(access.userId).toBe('user-1');
    expect(access.delegation).toEqual({
      nheIdentifier: 'invoice-bot',
      agent: {
        id: 'invoice-bot',
        type: 'llm-autonomous',
        operator: 'acme-ops',
        model: { name: 'gpt', version: '5', provider: 'openai' },
      },
      actorChain: [{ sub: 'nhe:invoice-bot' }],
    });
  });

  it('lists a nested act chain outermost first', async () => {
    const token = await idp.sign(
      nheClaims('invoice-bot', {
        act: { sub: 'nhe:invoice-bot', iss: ISSUER, act: { sub: 'nhe:planner', act: { sub: 'service-x' } } },
      }),
    );
    const access = await verifierOf().verify(bearer(token));
    expect(access.delegation?.actorChain).toEqual([
      { sub: 'nhe:invoice-bot', iss: ISSUER },
      { sub: 'nhe:planner' },
      { sub: 'service-x' },
    ]);
  });

  const malformed: Array<[string, Record<string, unknown>]> = [
    ['a marker without act', nheClaims('b', { act: undefined })],
    ['act without the marker', { act: { sub: 'nhe:b' } }],
    ['a marker that is the string "true"', nheClaims('b', { 'org.vendor.nhe.delegation': 'true' })],
    ['act.sub without nhe:', nheClaims('b', { act: { sub: 'b' } })],
    ['act.sub "nhe:" alone', nheClaims('b', { act: { sub: 'nhe:' } })],
    ['agent.id of another NHE', nheClaims('b', { agent: { id: 'c', type: 'llm-autonomous', operator: 'o' } })],
    ['no agent', nheClaims('b', { agent: undefined })],
    ['an agent without type', nheClaims('b', { agent: { id: 'b', operator: 'o' } })],
    ['an agent without operator', nheClaims('b', { agent: { id: 'b', type: 'llm-autonomous' } })],
    ['a nested actor without sub', nheClaims('b', { act: { sub: 'nhe:b', act: { iss: 'x' } } })],
  ];
  it.each(malformed)('refuses %s (401 invalid_token, delegation_malformed)', async (_name, claims) => {
    const err = await refusal(verifierOf().verify(bearer(await idp.sign(claims))));
    expect(err).toMatchObject({ error: 'invalid_token', status: 401, reason: 'delegation_malformed' });
  });

  it('a marker false without act is a user token', async () => {
    const access = await verifierOf().verify(bearer(await idp.sign({ 'org.vendor.nhe.delegation': false })));
    expect(access.delegation).toBeUndefined();
  });

  const table: Array<[AccessRules['delegation'], 'user' | 'nhe', 'pass' | string]> = [
    ['allow', 'user', 'pass'],
    ['allow', 'nhe', 'pass'],
    ['require', 'user', 'delegation_required'],
    ['require', 'nhe', 'pass'],
    ['deny', 'user', 'pass'],
    ['deny', 'nhe', 'delegation_refused'],
  ];
  it.each(table)('delegation %s with a %s token: %s', async (rule, kind, outcome) => {
    const token = await idp.sign(kind === 'nhe' ? nheClaims() : {});
    const p = verifierOf().verify(bearer(token), { delegation: rule });
    if (outcome === 'pass') await expect(p).resolves.toBeDefined();
    else expect(await refusal(p)).toMatchObject({ error: 'insufficient_scope', status: 403, reason: outcome });
  });

  it('agentTypes: accepts the listed agent types only; user tokens are not affected', async () => {
    const v = verifierOf();
    const nhe = await idp.sign(nheClaims());
    await expect(v.verify(bearer(nhe), { agentTypes: ['llm-autonomous', 'llm-assistive'] })).resolves.toBeDefined();
    expect(await refusal(v.verify(bearer(nhe), { agentTypes: ['automated-pipeline'] }))).toMatchObject({
      status: 403,
      reason: 'agent_type_refused',
    });
    await expect(v.verify(bearer(await idp.sign()), { agentTypes: ['automated-pipeline'] })).resolves.toBeDefined();
  });
});

describe('createVerifier: scopes and revocations', () => {
  it('insufficient_scope (403) names exactly the missing scopes', async () => {
    const err = await refusal(
      verifierOf().verify(bearer(await idp.sign({ scope: 'orders:read' })), {
        scopes: ['orders:read', 'orders:write', 'orders:delete'],
      }),
    );
    expect(err).toMatchObject({
      error: 'insufficient_scope',
      status: 403,
      reason: 'insufficient_scope',
      scope: ['orders:write', 'orders:delete'],
    });
    const noScope = await refusal(
      verifierOf().verify(bearer(await idp.sign({}, { omit: ['scope'] })), { scopes: ['orders:read'] }),
    );
    expect(noScope.scope).toEqual(['orders:read']);
  });

  it('a revocation source refuses the tokens it names (sync and async), and sees the verified access', async () => {
    const seen: Access[] = [];
    const revocations = {
      isRevoked(access: Access) {
        seen.push(access);
        return access.delegation?.nheIdentifier === 'revoked-bot';
      },
    };
    const v = verifierOf({ revocations });
    await expect(v.verify(bearer(await idp.sign(nheClaims('ok-bot'))))).resolves.toBeDefined();
    const err = await refusal(v.verify(bearer(await idp.sign(nheClaims('revoked-bot')))));
    expect(err).toMatchObject({ error: 'invalid_token', status: 401, reason: 'revoked' });
    expect(seen.map((a) => a.delegation?.nheIdentifier)).toEqual(['ok-bot', 'revoked-bot']);

    const asyncV = verifierOf({ revocations: { isRevoked: (a) => Promise.resolve(a.userId === 'user-1') } });
    expect((await refusal(asyncV.verify(bearer(await idp.sign())))).reason).toBe('revoked');
  });

  it('revocation is checked before the route rules: a revoked token is 401, not 403', async () => {
    const v = verifierOf({ revocations: { isRevoked: () => true } });
    const err = await refusal(v.verify(bearer(await idp.sign()), { scopes: ['admin'] }));
    expect(err.status).toBe(401);
  });
});
