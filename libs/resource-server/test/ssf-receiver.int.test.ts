/**
 * The SDK's SSF poll receiver against the real transmitter (services/signals, started as its main.ts starts it, on
 * FerretDB and nats-server): kill-switch entries published as management publishes them reach the receiver's deny
 * list and make createVerifier refuse the agent's tokens within the poll bound (measured); a transmitter outage keeps
 * the list and loses nothing; a restarted receiver on its named stream rebuilds the list; long polling.
 *
 * The transmitter's public base URL is https://id.example.test: the receiver's fetch sends those URLs to the local
 * port, and serves the tenant's JWKS (oidc-core's endpoint, not part of this process set) from the key store.
 */
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT, type JSONWebKeySet } from 'jose';
import { eventually, PUBLIC_BASE_URL, startHarness, type Harness } from '../../../services/signals/test/harness';
import {
  createSsfPollReceiver,
  createVerifier,
  type SsfFetch,
  type SsfPollReceiver,
  type SsfPollReceiverOptions,
  type Verifier,
} from '../src';

const A = 9611;
const ISSUER = `${PUBLIC_BASE_URL}/auth/${A}`;
const API = 'https://orders.example.test';
const RECEIVER = 'orders-api';

let h: Harness;
let jwks: JSONWebKeySet;
let fetchViaHarness: SsfFetch;
let verifier: Verifier;
const receivers: SsfPollReceiver[] = [];

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant(A);
  jwks = await h.jwks(A);
  fetchViaHarness = async (url, init) => {
    if (url === `${ISSUER}/jwks`) return Response.json(jwks);
    if (url === `${ISSUER}/.well-known/openid-configuration`)
      return Response.json({ issuer: ISSUER, jwks_uri: `${ISSUER}/jwks` });
    return fetch(url.replace(PUBLIC_BASE_URL, h.base()), init);
  };
}, 60_000);

afterAll(async () => {
  for (const r of receivers) await r.stop();
  await (h as Harness | undefined)?.close(); // unset when beforeAll failed
});

function receiver(extra: Partial<SsfPollReceiverOptions> = {}): SsfPollReceiver {
  const r = createSsfPollReceiver({
    issuer: ISSUER,
    getAccessToken: () => h.token(A, RECEIVER),
    fetch: fetchViaHarness,
    intervalMs: 250,
    backoff: { initialMs: 100, maxMs: 400 },
    ...extra,
  });
  receivers.push(r);
  return r;
}

/** An NHE delegation token of the tenant for the API, as the token exchange mints it. */
async function nheToken(
  nhe: string,
  iat = Math.floor(Date.now() / 1000) - 2,
  parentAct?: Record<string, unknown>,
): Promise<string> {
  const keys = await h.keyStore.load(A);
  const jwk = keys.signing.find((k) => k.alg === 'ES256')!;
  return new SignJWT({
    client_id: 'agent-app',
    azp: 12,
    scope: 'orders:read',
    act: { sub: `nhe:${nhe}`, ...(parentAct ? { act: parentAct } : {}) },
    agent: { id: nhe, type: 'llm-assistive', operator: 'ops' },
    'org.vendor.nhe.delegation': true,
  })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
    .setIssuer(ISSUER)
    .setAudience(API)
    .setSubject('alice')
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + 600)
    .sign(await importJWK(jwk, 'ES256'));
}

const verify = (token: string) =>
  verifier.verify({ authorization: `Bearer ${token}`, method: 'GET', url: `${API}/orders` }).then(
    () => 'accepted',
    (err: { reason?: string }) => err.reason ?? String(err),
  );

/** Milliseconds from the publication of a kill-switch entry until the verifier refuses the token. */
async function timeToRefusal(nhe: string): Promise<number> {
  const token = await nheToken(nhe);
  expect(await verify(token)).toBe('accepted');
  const t0 = Date.now();
  await h.revoke({ tenantId: A, nheIdentifier: nhe, reason: 'nhe.disabled' });
  await eventually(async () => (await verify(token)) === 'revoked', 10_000, 10);
  return Date.now() - t0;
}

it('revocations reach createVerifier within the poll interval; the transmitter sees the acknowledgements', async () => {
  const r = receiver();
  await r.start();
  verifier = createVerifier({ issuer: ISSUER, audience: API, fetch: fetchViaHarness, revocations: r });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await timeToRefusal(`bot-${i}`));
  // The bound: intervalMs (250) + the transmitter's fan-out + one poll round trip.
  expect(Math.max(...times)).toBeLessThan(1500);
  console.log(`SSF poll receiver (intervalMs 250): publication to refusal ${times.join(', ')} ms`);
  // A later token of the same agent (after a re-enable) passes; the user and other agents were never affected.
  expect(await verify(await nheToken('bot-0', Math.floor(Date.now() / 1000) + 1))).toBe('accepted');
  expect(await verify(await nheToken('unrelated'))).toBe('accepted');
  await eventually(
    async () =>
      (await h.db.connection
        .collection('ssf_events')
        .countDocuments({ streamId: r.status().streamId, state: 'pending' })) === 0,
  );
});

it('transmitter down: the list is kept and enforced, polls back off; a change published meanwhile arrives after the restart', async () => {
  const errors: string[] = [];
  const r = receiver({ onError: (e) => errors.push(e.message) });
  await r.start();
  verifier = createVerifier({ issuer: ISSUER, audience: API, fetch: fetchViaHarness, revocations: r });
  const before = await nheToken('outage-before');
  await h.revoke({ tenantId: A, nheIdentifier: 'outage-before', reason: 'nhe.disabled' });
  await eventually(async () => (await verify(before)) === 'revoked');

  await h.stopTransmitter();
  try {
    const during = await nheToken('outage-during');
    await h.revoke({ tenantId: A, nheIdentifier: 'outage-during', reason: 'nhe.disabled' });
    await eventually(() => r.status().consecutiveFailures >= 2, 5000);
    expect(await verify(before)).toBe('revoked'); // kept
    expect(await verify(during)).toBe('accepted'); // fails open for what it has not learnt: README
    expect(errors.join('\n')).toMatch(/failed/);
  } finally {
    await h.startTransmitter();
  }
  const during = await nheToken('outage-during', Math.floor(Date.now() / 1000) - 30);
  await eventually(async () => (await verify(during)) === 'revoked', 10_000);
  expect(r.status().consecutiveFailures).toBe(0);
}, 30_000);

it('a restarted process gets a new stream with every revocation in force; exclusive deletes the stream a crashed process left behind', async () => {
  // The process that will crash polls by hand (pollOnce, no loop): a crashed process polls no more. A live loop
  // here would find its stream deleted by the next process and, exclusive too, delete that one's new stream.
  const first = receiver({ exclusive: true });
  await first.pollOnce();
  const leftover = first.status().streamId!;
  await h.revoke({ tenantId: A, nheIdentifier: 'restart-bot', reason: 'nhe.disabled' });
  await eventually(async () => (await first.pollOnce(), first.denyList.entries().some((e) => e.nhe === 'restart-bot')));
  const pending = () =>
    h.db.connection.collection('ssf_events').countDocuments({ streamId: leftover, state: 'pending' });
  await eventually(async () => (await first.pollOnce(), (await pending()) === 0));

  // The "crash": no stop(); the list is gone, the stream stays with its events acknowledged. The next process:
  const restarted = receiver({ exclusive: true });
  await restarted.start();
  const nhes = restarted.denyList.entries().map((e) => e.nhe);
  expect(nhes).toEqual(expect.arrayContaining(['restart-bot', 'bot-0', 'outage-before', 'outage-during']));
  const streams = h.db.connection.collection('ssf_streams');
  expect(await streams.countDocuments({ _id: leftover as never })).toBe(0);
  const current = restarted.status().streamId!;
  await restarted.stop();
  expect(await streams.countDocuments({ _id: current as never })).toBe(0);
});

it('exclusive sweeps once, at start: a running receiver whose stream was deleted makes a new one and deletes no other', async () => {
  // Two processes started with exclusive by mistake: the second's start deletes the first's stream; the first, on
  // its next poll, makes a new stream and must not delete the second's (they would take turns forever).
  const older = receiver({ exclusive: true });
  await older.start();
  const olderStream = older.status().streamId!;
  const newer = receiver({ exclusive: true });
  await newer.start();
  const newerStream = newer.status().streamId!;
  const streams = h.db.connection.collection('ssf_streams');
  expect(await streams.countDocuments({ _id: olderStream as never })).toBe(0);
  await eventually(
    () =>
      older.status().streamId !== undefined &&
      older.status().streamId !== olderStream &&
      older.status().consecutiveFailures === 0,
  );
  for (let i = 0; i < 4; i++) {
    await newer.pollOnce();
    await older.pollOnce();
  }
  expect(newer.status().streamId).toBe(newerStream);
  expect(await streams.countDocuments({ _id: { $in: [newerStream, older.status().streamId!] } as never })).toBe(2);
  await newer.stop();
  await older.stop();
});

it('long polling: the transmitter answers as soon as the event is written', async () => {
  const r = receiver({ longPoll: true });
  await r.start();
  verifier = createVerifier({ issuer: ISSUER, audience: API, fetch: fetchViaHarness, revocations: r });
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push(await timeToRefusal(`long-${i}`));
  console.log(`SSF poll receiver (long poll): publication to refusal ${times.join(', ')} ms`);
  expect(Math.max(...times)).toBeLessThan(1500);
  await r.stop();
}, 30_000);

it('delegation chains: revoking an agent through SSF refuses the tokens handed on below it, not the agents above', async () => {
  const r = receiver();
  await r.start();
  verifier = createVerifier({ issuer: ISSUER, audience: API, fetch: fetchViaHarness, revocations: r });
  const planner = await nheToken('chain-planner');
  const tool = await nheToken('chain-tool', undefined, { sub: 'nhe:chain-planner' });
  const leaf = await nheToken('chain-leaf', undefined, { sub: 'nhe:chain-tool', act: { sub: 'nhe:chain-planner' } });
  for (const token of [planner, tool, leaf]) expect(await verify(token)).toBe('accepted');
  await h.revoke({ tenantId: A, nheIdentifier: 'chain-tool', reason: 'nhe.disabled' });
  await eventually(async () => (await verify(tool)) === 'revoked', 10_000, 10);
  expect(await verify(leaf)).toBe('revoked');
  expect(await verify(planner)).toBe('accepted');
});
