/**
 * SSF 1.0 section 8.1.1 `inactivity_timeout`: a poll stream whose receiver makes no request about it (a poll, a read,
 * an update) for the configured timeout is deleted with its events, so a receiver that crashed without deleting its
 * stream frees its slot (SSF_MAX_STREAMS_PER_CLIENT). The real transmitter (FerretDB, nats-server) with a short timeout.
 */
import request from 'supertest';
import { DELIVERY_POLL, NHE_REVOCATION_EVENT } from '../src/domain/event-types';
import { eventually, startHarness, type Harness } from './harness';

const T = 9801;
const TIMEOUT_SECONDS = 2;
let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({
    SSF_STREAM_INACTIVITY_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
    SSF_MAX_STREAMS_PER_CLIENT: '2',
  });
  await h.seedTenant(T);
  token = await h.token(T, 'crashy-receiver');
}, 60_000);

afterAll(async () => {
  await (h as Harness | undefined)?.close();
});

const create = () =>
  request(h.base())
    .post(`/auth/${T}/ssf/streams`)
    .auth(token, { type: 'bearer' })
    .send({ delivery: { method: DELIVERY_POLL }, events_requested: [NHE_REVOCATION_EVENT] });
const poll = (id: string) =>
  request(h.base()).post(`/auth/${T}/ssf/poll/${id}`).auth(token, { type: 'bearer' }).send({ returnImmediately: true });
const exists = async (id: string) =>
  (await h.db.connection.collection('ssf_streams').countDocuments({ _id: id as never })) === 1;

it('reports inactivity_timeout, keeps a polled stream, deletes an abandoned one and frees its slot', async () => {
  const kept = await create();
  expect(kept.status).toBe(201);
  expect(kept.body.inactivity_timeout).toBe(TIMEOUT_SECONDS);
  const abandoned = await create();
  expect(abandoned.status).toBe(201);
  const keptId = kept.body.stream_id as string;
  const abandonedId = abandoned.body.stream_id as string;
  // The receiver's slots are full.
  expect((await create()).status).toBe(409);
  await h.revoke({ tenantId: T, nheIdentifier: 'some-agent', reason: 'nhe.disabled' });
  await eventually(
    async () => (await h.db.connection.collection('ssf_events').countDocuments({ streamId: abandonedId })) > 0,
  );

  // One stream keeps polling; the other is never asked about again.
  const t0 = Date.now();
  const gone = await eventually(
    async () => {
      expect((await poll(keptId)).status).toBe(200);
      return !(await exists(abandonedId));
    },
    (TIMEOUT_SECONDS + 5) * 1000,
    250,
  );
  expect(gone).toBe(true);
  expect(Date.now() - t0).toBeGreaterThanOrEqual((TIMEOUT_SECONDS - 1) * 1000);
  expect(await exists(keptId)).toBe(true);
  // The sweeper deletes the stream, then its events (collections.ts deleteInactiveStreams): the events go a moment
  // after the stream.
  expect(
    await eventually(
      async () => (await h.db.connection.collection('ssf_events').countDocuments({ streamId: abandonedId })) === 0,
    ),
  ).toBe(true);
  const read = await request(h.base())
    .get(`/auth/${T}/ssf/streams`)
    .query({ stream_id: abandonedId })
    .auth(token, { type: 'bearer' });
  expect(read.status).toBe(404);
  // The slot is free again.
  expect((await create()).status).toBe(201);
});
