import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import {
  AUDIENCE,
  fakeIssuer,
  ISSUER,
  JWKS_URI,
  nheClaims,
  signingKey,
  URL_ORDERS,
  type FakeIssuer,
  type SigningKey,
} from '../test/fixtures';
import { ResourceServerError } from './errors';
import { CAEP_SESSION_REVOKED, NHE_REVOCATION_EVENT, selectorFromSet, SSF_VERIFICATION_EVENT } from './ssf-events';
import {
  createSsfPollReceiver,
  ssfConfigurationUrls,
  type SsfFetch,
  type SsfPollReceiverOptions,
} from './ssf-receiver';
import { createVerifier } from './verifier';

const SSF_CONFIG = 'https://idp.test/.well-known/ssf-configuration/auth/7';
const TOKEN_ENDPOINT = `${ISSUER}/oidc/token`;
const STREAMS = `${ISSUER}/ssf/streams`;
const STATUS = `${ISSUER}/ssf/status`;
const RECEIVER = 'orders-api-receiver';
const now = () => Math.floor(Date.now() / 1000);

type SignOptions = {
  aud?: string;
  iss?: string;
  typ?: string;
  key?: SigningKey;
  txn?: string;
  subId?: unknown;
  jti?: string;
};

/** What the receiver sends the fake transmitter: the fields the stub reads. */
interface RequestBody {
  description?: string;
  stream_id?: string;
  status?: string;
  ack?: string[];
  setErrs?: Record<string, { err: string }>;
  maxEvents?: number;
}

interface FakeStream {
  id: string;
  status: string;
  pending: Map<string, string>;
  acked: string[];
  setErrs: Record<string, { err: string }>;
  description?: string;
}

/** The provider's transmitter as the receiver sees it: metadata, token endpoint, streams, status, poll; served by a fetch stub. */
function fakeTransmitter(idp: FakeIssuer) {
  const key: SigningKey = idp.keys[0]!;
  const streams = new Map<string, FakeStream>();
  const calls: string[] = [];
  const t = {
    streams,
    calls,
    down: false,
    tokensIssued: 0,
    /** Entries "in force": delivered to a new or re-enabled stream (the transmitter's backfill). */
    inForce: [] as Array<{ jti: string; set: string }>,
    pollStatus: 200,
    async sign(events: Record<string, unknown>, o: SignOptions = {}): Promise<{ jti: string; set: string }> {
      const jti = o.jti ?? randomUUID();
      const set = await new SignJWT({
        events,
        txn: o.txn ?? 'entry-1',
        sub_id: o.subId ?? { format: 'complex', tenant: { format: 'opaque', id: '7' } },
      })
        .setProtectedHeader({ alg: 'ES256', kid: (o.key ?? key).kid, typ: o.typ ?? 'secevent+jwt' })
        .setIssuer(o.iss ?? ISSUER)
        .setAudience(o.aud ?? RECEIVER)
        .setJti(jti)
        .setIssuedAt()
        .sign((o.key ?? key).privateKey);
      return { jti, set };
    },
    /** A revocation as the transmitter fans it out: to every enabled stream, kept for late streams. */
    async revoke(selector: Record<string, unknown>, o: SignOptions = {}): Promise<{ jti: string; set: string }> {
      const s = await t.sign({ [NHE_REVOCATION_EVENT]: selector }, { txn: String(selector.id), ...o });
      t.inForce.push(s);
      for (const st of streams.values()) if (st.status === 'enabled') st.pending.set(s.jti, s.set);
      return s;
    },
    deliver(s: { jti: string; set: string }) {
      for (const st of streams.values()) st.pending.set(s.jti, s.set);
    },
    fetch: (async (url, init) => {
      calls.push(`${init.method} ${url}`);
      if (t.down) throw new TypeError('fetch failed: ECONNREFUSED');
      if (url === JWKS_URI || url === `${ISSUER}/.well-known/openid-configuration`)
        return idp.fetch(url, init as never);
      if (url === SSF_CONFIG) {
        return Response.json({
          spec_version: '1_0',
          issuer: ISSUER,
          jwks_uri: JWKS_URI,
          delivery_methods_supported: ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936'],
          configuration_endpoint: STREAMS,
          status_endpoint: STATUS,
        });
      }
      if (url === TOKEN_ENDPOINT) {
        const expected = `Basic ${Buffer.from(`${RECEIVER}:s3cret%2F`).toString('base64')}`;
        const form = new URLSearchParams(init.body);
        if (
          init.headers.get('authorization') !== expected ||
          form.get('grant_type') !== 'client_credentials' ||
          form.get('resource') !== 'urn:idp:ssf' ||
          form.get('scope') !== 'ssf.manage'
        ) {
          return Response.json({ error: 'invalid_client' }, { status: 401 });
        }
        t.tokensIssued++;
        return Response.json({ access_token: `tok-${t.tokensIssued}`, token_type: 'Bearer', expires_in: 300 });
      }
      if (!/^Bearer tok-\d+$/.test(init.headers.get('authorization') ?? ''))
        return Response.json({ error: 'invalid_token' }, { status: 401 });
      const u = new URL(url);
      const body: RequestBody = init.body ? (JSON.parse(init.body) as RequestBody) : {};
      const streamJson = (s: FakeStream) => ({
        stream_id: s.id,
        iss: ISSUER,
        aud: RECEIVER,
        delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: `${ISSUER}/ssf/poll/${s.id}` },
        description: s.description,
      });
      if (u.pathname === '/auth/7/ssf/streams') {
        if (init.method === 'POST') {
          const s: FakeStream = {
            id: randomUUID(),
            status: 'enabled',
            pending: new Map(t.inForce.map((e) => [e.jti, e.set])),
            acked: [],
            setErrs: {},
            description: body.description,
          };
          streams.set(s.id, s);
          return Response.json(streamJson(s), { status: 201 });
        }
        if (init.method === 'GET' && !u.searchParams.has('stream_id'))
          return Response.json([...streams.values()].map(streamJson));
        const s = streams.get(u.searchParams.get('stream_id') ?? '');
        if (!s) return Response.json({ error: 'not_found' }, { status: 404 });
        if (init.method === 'DELETE') {
          streams.delete(s.id);
          return new Response(null, { status: 204 });
        }
        return Response.json(streamJson(s));
      }
      if (u.pathname === '/auth/7/ssf/status') {
        const s = streams.get(body.stream_id ?? '');
        if (!s) return Response.json({ error: 'not_found' }, { status: 404 });
        if (body.status === 'disabled') s.pending.clear();
        if (body.status === 'enabled' && s.status === 'disabled')
          for (const e of t.inForce) s.pending.set(e.jti, e.set);
        s.status = body.status as string;
        return Response.json({ stream_id: s.id, status: s.status });
      }
      const poll = /^\/auth\/7\/ssf\/poll\/(.+)$/.exec(u.pathname);
      if (poll) {
        if (t.pollStatus !== 200) return Response.json({ error: 'temporarily_unavailable' }, { status: t.pollStatus });
        const s = streams.get(poll[1]!);
        if (!s) return Response.json({ error: 'not_found' }, { status: 404 });
        for (const jti of body.ack ?? []) if (s.pending.delete(jti)) s.acked.push(jti);
        for (const [jti, e] of Object.entries(body.setErrs ?? {})) if (s.pending.delete(jti)) s.setErrs[jti] = e;
        const max = body.maxEvents ?? 100;
        const all = [...s.pending.entries()];
        return Response.json({ sets: Object.fromEntries(all.slice(0, max)), moreAvailable: all.length > max });
      }
      return new Response('not found', { status: 404 });
    }) as SsfFetch,
  };
  return t;
}

let idp: FakeIssuer;
let tx: ReturnType<typeof fakeTransmitter>;
const stopList: Array<() => Promise<void>> = [];

beforeEach(async () => {
  idp = await fakeIssuer();
  tx = fakeTransmitter(idp);
});
afterEach(async () => {
  for (const stop of stopList.splice(0)) await stop();
});

const receiverOf = (extra: Partial<SsfPollReceiverOptions> = {}) => {
  const r = createSsfPollReceiver({
    issuer: ISSUER,
    clientCredentials: { clientId: RECEIVER, clientSecret: 's3cret/', tokenEndpoint: TOKEN_ENDPOINT },
    fetch: tx.fetch,
    intervalMs: 60_000,
    ...extra,
  });
  stopList.push(() => r.stop());
  return r;
};
const selector = (o: Record<string, unknown> = {}) => ({
  id: 'entry-1',
  reason: 'nhe.disabled',
  nhe: 'invoice-bot',
  issuedBefore: now(),
  until: now() + 960,
  ...o,
});

describe('ssfConfigurationUrls', () => {
  it('puts the well-known segment between the host and the issuer path, then the suffixed form', () => {
    expect(ssfConfigurationUrls('https://idp.test/auth/7')).toEqual([
      'https://idp.test/.well-known/ssf-configuration/auth/7',
      'https://idp.test/auth/7/.well-known/ssf-configuration',
    ]);
    expect(ssfConfigurationUrls('https://idp.test')).toEqual([
      'https://idp.test/.well-known/ssf-configuration',
      'https://idp.test/.well-known/ssf-configuration',
    ]);
  });
});

describe('createSsfPollReceiver', () => {
  it('refuses an ambiguous configuration', () => {
    expect(() => createSsfPollReceiver({ issuer: ISSUER })).toThrow(TypeError);
    expect(() =>
      createSsfPollReceiver({
        issuer: ISSUER,
        getAccessToken: () => 'x',
        clientCredentials: { clientId: 'a', clientSecret: 'b' },
      }),
    ).toThrow(TypeError);
    expect(() => createSsfPollReceiver({ issuer: ISSUER, getAccessToken: () => 'x', algorithms: ['HS256'] })).toThrow(
      TypeError,
    );
  });

  it('discovers, gets a client-credentials token, creates its poll stream, receives the revocations in force, acknowledges them, and deletes the stream at stop', async () => {
    await tx.revoke(selector());
    const r = receiverOf();
    await r.start();
    expect(tx.tokensIssued).toBe(1);
    const [stream] = [...tx.streams.values()];
    expect(stream!.acked).toHaveLength(1);
    expect(stream!.pending.size).toBe(0);
    expect(r.denyList.entries()).toEqual([expect.objectContaining({ id: 'entry-1', nhe: 'invoice-bot' })]);
    expect(r.status()).toMatchObject({
      streamId: stream!.id,
      consecutiveFailures: 0,
      entries: 1,
      failingClosed: false,
    });
    const create = tx.calls.indexOf(`POST ${STREAMS}`);
    expect(tx.calls.slice(0, create + 1)).toEqual([`GET ${SSF_CONFIG}`, `POST ${TOKEN_ENDPOINT}`, `POST ${STREAMS}`]);
    await r.stop();
    expect(tx.streams.size).toBe(0);
    expect(tx.calls.at(-1)).toBe(`DELETE ${STREAMS}?stream_id=${stream!.id}`);
  });

  it('plugs into createVerifier: the agent token passes, then is refused (invalid_token, revoked) after the next poll; later tokens and the user token pass', async () => {
    const r = receiverOf();
    await r.start();
    const verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, fetch: idp.fetch, revocations: r });
    const request = (token: string) => ({ authorization: `Bearer ${token}`, method: 'GET', url: URL_ORDERS });
    const agentToken = await idp.sign({ ...nheClaims('invoice-bot'), iat: now() - 5 });
    const userToken = await idp.sign({ iat: now() - 5 });
    await expect(verifier.verify(request(agentToken))).resolves.toMatchObject({
      delegation: { nheIdentifier: 'invoice-bot' },
    });

    await tx.revoke(selector({ issuedBefore: now() - 1 }));
    expect(await r.pollOnce()).toEqual({ received: 1, moreAvailable: false });
    const err = await verifier.verify(request(agentToken)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResourceServerError);
    expect(err).toMatchObject({ error: 'invalid_token', reason: 'revoked', status: 401 });
    await expect(verifier.verify(request(userToken))).resolves.toMatchObject({ userId: 'user-1' });
    const later = await idp.sign({ ...nheClaims('invoice-bot'), iat: now() + 1 });
    await expect(verifier.verify(request(later))).resolves.toMatchObject({
      delegation: { nheIdentifier: 'invoice-bot' },
    });
    // The ack goes with the next poll.
    await r.pollOnce();
    expect([...tx.streams.values()][0]!.acked).toHaveLength(1);
  });

  it('drains while moreAvailable, maxEvents at a time', async () => {
    for (let i = 0; i < 5; i++) await tx.revoke(selector({ id: `e${i}`, nhe: `bot-${i}` }));
    const r = receiverOf({ maxEvents: 2 });
    await r.start();
    expect(r.denyList.size).toBe(5);
    expect(tx.calls.filter((c) => c.startsWith('POST https://idp.test/auth/7/ssf/poll/'))).toHaveLength(4); // 2, 2, 1, then the last ack
    expect([...tx.streams.values()][0]!.pending.size).toBe(0);
  });

  it('verifies every SET: wrong typ, issuer, audience or signature are reported in setErrs and not applied; an unknown kid is left for redelivery', async () => {
    const errors: string[] = [];
    const r = receiverOf({ onError: (e) => errors.push(e.message) });
    await r.start();
    const stranger = await signingKey('k1');
    const bad = [
      await tx.sign({ [NHE_REVOCATION_EVENT]: selector({ id: 'typ' }) }, { typ: 'JWT' }),
      await tx.sign({ [NHE_REVOCATION_EVENT]: selector({ id: 'iss' }) }, { iss: 'https://evil.test/auth/7' }),
      await tx.sign({ [NHE_REVOCATION_EVENT]: selector({ id: 'aud' }) }, { aud: 'someone-else' }),
      await tx.sign({ [NHE_REVOCATION_EVENT]: selector({ id: 'sig' }) }, { key: stranger }),
      await tx.sign({ [NHE_REVOCATION_EVENT]: { id: 'no-until', nhe: 'x', issuedBefore: now() } }),
    ];
    const unknownKid = await tx.sign(
      { [NHE_REVOCATION_EVENT]: selector({ id: 'kid' }) },
      { key: await signingKey('rotated-later') },
    );
    for (const s of [...bad, unknownKid]) tx.deliver(s);
    await r.pollOnce();
    await r.pollOnce(); // carries the setErrs
    const stream = [...tx.streams.values()][0]!;
    expect(
      Object.fromEntries(
        Object.entries(stream.setErrs).map(([jti, e]) => [bad.findIndex((b) => b.jti === jti), e.err]),
      ),
    ).toEqual({
      0: 'invalid_request',
      1: 'invalid_issuer',
      2: 'invalid_audience',
      3: 'invalid_key',
      4: 'invalid_request',
    });
    expect(stream.pending.has(unknownKid.jti)).toBe(true);
    expect(r.denyList.size).toBe(0);
    expect(errors.some((m) => m.includes('left for redelivery'))).toBe(true);
  });

  it('onRevocation gets every verified selector before the SET is acknowledged; a failing hook leaves the SET for redelivery; a SET that fails verification never reaches it', async () => {
    const seen: string[] = [];
    let fail = true;
    const r = receiverOf({
      onRevocation: async (sel, set) => {
        await Promise.resolve();
        if (fail) throw new Error('store down');
        seen.push(`${sel.id}:${sel.nhe ?? ''}:${set.jti === set.payload.jti}`);
      },
    });
    await r.start();
    const good = await tx.revoke(selector({ id: 'good' }));
    tx.deliver(await tx.sign({ [NHE_REVOCATION_EVENT]: selector({ id: 'forged' }) }, { key: await signingKey('k1') }));
    await r.pollOnce();
    await r.pollOnce();
    const stream = [...tx.streams.values()][0]!;
    expect(seen).toEqual([]);
    expect(r.denyList.size).toBe(0);
    expect(stream.pending.has(good.jti)).toBe(true);
    fail = false;
    await r.pollOnce();
    await r.pollOnce(); // carries the ack
    expect(seen).toEqual(['good:invoice-bot:true']);
    expect(r.denyList.size).toBe(1);
    expect(stream.pending.size).toBe(0);
    expect(stream.acked).toEqual([good.jti]);
  });

  it('reads CAEP session-revoked alone (complex subject, event_timestamp) and keeps one entry per txn with the vendor event', async () => {
    const at = now() - 2;
    const subId = {
      format: 'complex',
      tenant: { format: 'opaque', id: '7' },
      user: { format: 'iss_sub', iss: ISSUER, sub: 'alice' },
      application: { format: 'opaque', id: '12' },
      nhe: { format: 'iss_sub', iss: ISSUER, sub: 'nhe:invoice-bot' },
    };
    const caep = await tx.sign(
      { [CAEP_SESSION_REVOKED]: { event_timestamp: at, initiating_entity: 'admin' } },
      { txn: 'entry-9', subId },
    );
    const vendor = await tx.sign(
      { [NHE_REVOCATION_EVENT]: selector({ id: 'entry-9', sub: 'alice', azp: 12, issuedBefore: at }) },
      { txn: 'entry-9', subId },
    );
    const verification = await tx.sign({ [SSF_VERIFICATION_EVENT]: { state: 'x' } });
    tx.inForce.push(caep, vendor, verification);
    const r = receiverOf();
    await r.start();
    expect(r.denyList.entries()).toEqual([
      {
        id: 'entry-9',
        reason: 'caep.session-revoked',
        nhe: 'invoice-bot',
        sub: 'alice',
        azp: 12,
        issuedBefore: at,
        until: expect.any(Number),
      },
    ]);
    expect([...tx.streams.values()][0]!.acked).toHaveLength(3);
  });

  it('outage: the list is kept and enforced, polls back off, and resume when the transmitter is back', async () => {
    await tx.revoke(selector());
    const errors: string[] = [];
    const r = receiverOf({
      intervalMs: 20,
      backoff: { initialMs: 10, maxMs: 40 },
      onError: (e) => errors.push(e.message),
    });
    await r.start();
    tx.down = true;
    await new Promise((res) => setTimeout(res, 150));
    expect(r.status().consecutiveFailures).toBeGreaterThanOrEqual(2);
    expect(r.status().lastError).toMatch(/ECONNREFUSED/);
    expect(r.denyList.size).toBe(1);
    const polls = () => tx.calls.filter((c) => c.includes('/ssf/poll/')).length;
    const before = polls();
    await new Promise((res) => setTimeout(res, 100));
    expect(polls() - before).toBeLessThan(10); // backed off, not a tight loop

    // A revocation made during the outage arrives once the transmitter is back.
    await tx.revoke(selector({ id: 'entry-2', nhe: 'other-bot' }));
    tx.down = false;
    const deadline = Date.now() + 2000;
    while (r.denyList.size < 2 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 10));
    expect(r.denyList.size).toBe(2);
    expect(r.status().consecutiveFailures).toBe(0);
  });

  it('a 401 from the transmitter drops the cached token: the next poll gets a new one', async () => {
    const r = receiverOf();
    await r.start();
    expect(tx.tokensIssued).toBe(1);
    tx.pollStatus = 401;
    await expect(r.pollOnce()).rejects.toMatchObject({ status: 401 });
    tx.pollStatus = 200;
    await r.pollOnce();
    expect(tx.tokensIssued).toBe(2);
  });

  it('a restarted process gets a new stream with every revocation in force; exclusive deletes the streams a crashed process left behind', async () => {
    await tx.revoke(selector());
    const crashed = receiverOf();
    await crashed.start();
    const leftover = crashed.status().streamId!;
    // The crash: no stop(), its stream stays. The next process starts with an empty list.
    const next = receiverOf({ exclusive: true });
    await next.start();
    expect(next.denyList.size).toBe(1);
    expect(tx.streams.has(leftover)).toBe(false);
    expect([...tx.streams.keys()]).toEqual([next.status().streamId]);
    expect(tx.calls).toContain(`DELETE ${STREAMS}?stream_id=${leftover}`);
  });

  it('a stream deleted behind its back is created again on the next poll', async () => {
    await tx.revoke(selector());
    const r = receiverOf();
    await r.start();
    tx.streams.clear();
    await expect(r.pollOnce()).rejects.toMatchObject({ status: 404 });
    await r.pollOnce();
    expect(tx.streams.size).toBe(1);
    expect(r.denyList.size).toBe(1);
  });

  it('failClosedAfterMs: delegation tokens are refused once the last successful poll is too old; user tokens are not', async () => {
    let clock = Date.now();
    const r = receiverOf({ failClosedAfterMs: 30_000, now: () => clock });
    await r.start();
    const verifier = createVerifier({ issuer: ISSUER, audience: AUDIENCE, fetch: idp.fetch, revocations: r });
    const agentToken = await idp.sign(nheClaims('invoice-bot'));
    const userToken = await idp.sign();
    const request = (token: string) => ({ authorization: `Bearer ${token}`, method: 'GET', url: URL_ORDERS });
    await expect(verifier.verify(request(agentToken))).resolves.toBeDefined();
    clock += 31_000;
    expect(r.status().failingClosed).toBe(true);
    await expect(verifier.verify(request(agentToken))).rejects.toMatchObject({ reason: 'revoked' });
    await expect(verifier.verify(request(userToken))).resolves.toBeDefined();
  });

  it('refuses a transmitter whose metadata names another issuer, or a poll URL on another origin', async () => {
    const evil: SsfFetch = async (url, init) =>
      url === SSF_CONFIG
        ? Response.json({ issuer: 'https://evil.test', jwks_uri: JWKS_URI, configuration_endpoint: STREAMS })
        : tx.fetch(url, init);
    await expect(receiverOf({ fetch: evil }).start()).rejects.toThrow(
      /could not be discovered.*names issuer "https:\/\/evil.test"/,
    );
    const elsewhere: SsfFetch = async (url, init) => {
      const res = await tx.fetch(url, init);
      if (init.method !== 'POST' || url !== STREAMS) return res;
      const body = (await res.json()) as Record<string, unknown>;
      return Response.json(
        { ...body, delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: 'https://collector.evil.test/poll' } },
        { status: 201 },
      );
    };
    await expect(receiverOf({ fetch: elsewhere }).start()).rejects.toThrow(/another origin/);
  });
});

describe('selectorFromSet', () => {
  it('maps a simple jwt_id subject to a one-token entry and refuses a SET without events', () => {
    expect(
      selectorFromSet(
        {
          jti: 's',
          txn: 't',
          sub_id: { format: 'jwt_id', iss: ISSUER, jti: 'tok-1' },
          events: { [CAEP_SESSION_REVOKED]: { event_timestamp: 100 } },
        },
        60,
      ),
    ).toEqual({
      id: 't',
      reason: 'caep.session-revoked',
      jti: 'tok-1',
      until: 160,
    });
    expect(() => selectorFromSet({ jti: 's' }, 60)).toThrow(/no events/);
    expect(selectorFromSet({ events: { 'urn:example:other': {} } }, 60)).toBeUndefined();
  });
});
