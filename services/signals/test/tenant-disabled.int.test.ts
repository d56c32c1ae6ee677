/**
 * A disabled tenant (Tenant.enabled false) at the transmitter, as oidc-core answers every endpoint of it: its SSF
 * metadata, stream management and polling answer 403 access_denied "tenant disabled", even with a receiver's access
 * token issued before the switch and still unexpired; another tenant's receivers are untouched, and enabling the
 * tenant again restores the same streams.
 */
import request from 'supertest';
import { DELIVERY_POLL } from '../src/domain/event-types';
import { startHarness, type Harness } from './harness';

const A = 9401;
const B = 9402;

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant(A);
  await h.seedTenant(B);
}, 60_000);

afterAll(async () => {
  await (h as typeof h | undefined)?.close();
});

const api = () => request(h.base());
const DISABLED = { error: 'access_denied', error_description: 'tenant disabled' };

test("a disabled tenant's transmitter answers 403 to metadata, streams and polls; enabled again, the stream is back", async () => {
  const rx = await h.token(A, 'receiver-a');
  const rxB = await h.token(B, 'receiver-b');
  const created = await api()
    .post(`/auth/${A}/ssf/streams`)
    .auth(rx, { type: 'bearer' })
    .send({ delivery: { method: DELIVERY_POLL } });
  expect(created.status).toBe(201);
  const streamId = (created.body as { stream_id: string }).stream_id;

  await h.db.models.Tenant.updateOne({ _id: A }, { $set: { enabled: false } });

  const metadata = await api().get(`/.well-known/ssf-configuration/auth/${A}`);
  expect([metadata.status, metadata.body]).toEqual([403, DISABLED]);
  const read = await api().get(`/auth/${A}/ssf/streams`).query({ stream_id: streamId }).auth(rx, { type: 'bearer' });
  expect([read.status, read.body]).toEqual([403, DISABLED]);
  const polled = await api()
    .post(`/auth/${A}/ssf/poll/${streamId}`)
    .auth(rx, { type: 'bearer' })
    .send({ returnImmediately: true });
  expect([polled.status, polled.body]).toEqual([403, DISABLED]);
  const another = await api()
    .post(`/auth/${A}/ssf/streams`)
    .auth(rx, { type: 'bearer' })
    .send({ delivery: { method: DELIVERY_POLL } });
  expect(another.status).toBe(403);

  // Another tenant is untouched.
  expect((await api().get(`/.well-known/ssf-configuration/auth/${B}`)).status).toBe(200);
  expect((await api().get(`/auth/${B}/ssf/streams`).auth(rxB, { type: 'bearer' })).status).toBe(200);

  await h.db.models.Tenant.updateOne({ _id: A }, { $set: { enabled: true } });
  const back = await api().get(`/auth/${A}/ssf/streams`).query({ stream_id: streamId }).auth(rx, { type: 'bearer' });
  expect(back.status).toBe(200);
  expect((back.body as { stream_id: string }).stream_id).toBe(streamId);
});
