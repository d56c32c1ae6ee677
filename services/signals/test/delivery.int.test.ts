/**
 * Delivery guarantees: push (RFC 8935) with the receiver's authorization header; a receiver outage (endpoint down,
 * then up) loses nothing and, once acknowledged (2xx), sends nothing twice; events survive a restart of the
 * transmitter, including kill-switch changes published while it was down; the reconciliation writes entries that
 * never came through NATS.
 */
import request from 'supertest';
import { buildRevocationEntry } from '@idp/events';
import { DELIVERY_POLL, DELIVERY_PUSH, NHE_REVOCATION_EVENT } from '../src/domain/event-types';
import {
  eventually,
  PUBLIC_BASE_URL,
  startHarness,
  startPushReceiver,
  verifySet,
  type Harness,
  type PushReceiver,
} from './harness';

const A = 9401;
const issuer = `${PUBLIC_BASE_URL}/auth/${A}`;

let h: Harness;
let rx: PushReceiver;

beforeAll(async () => {
  h = await startHarness();
  await h.seedTenant(A);
  rx = await startPushReceiver();
}, 60_000);

// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (rx as typeof rx | undefined)?.close();
  await (h as typeof h | undefined)?.close();
});

const api = () => request(h.base());
/** A Security Event Token's claims (RFC 8417); these tests read its `txn`. */
const claimsOf = (set: string) =>
  JSON.parse(Buffer.from(set.split('.')[1]!, 'base64url').toString()) as { txn?: unknown; [claim: string]: unknown };
const txnsOf = (sets: Array<{ set: string }>) => sets.map((r) => claimsOf(r.set).txn as string);

describe('push delivery', () => {
  let token: string;
  let streamId: string;

  beforeAll(async () => {
    token = await h.token(A, 'push-receiver');
    const res = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({
        delivery: { method: DELIVERY_PUSH, endpoint_url: rx.url, authorization_header: 'Bearer rx-secret' },
        events_requested: [NHE_REVOCATION_EVENT],
      });
    expect(res.status).toBe(201);
    streamId = res.body.stream_id;
  });

  it("POSTs each SET as application/secevent+jwt with the receiver's authorization header; the SET verifies with the tenant JWKS", async () => {
    expect(
      (
        await api()
          .post(`/auth/${A}/ssf/verify`)
          .auth(token, { type: 'bearer' })
          .send({ stream_id: streamId, state: 's1' })
      ).status,
    ).toBe(204);
    const entry = await h.revoke({ tenantId: A, nheIdentifier: 'orders-agent', reason: 'nhe.disabled' });
    await eventually(() => rx.received.length >= 2);
    expect(
      rx.received.every((r) => r.contentType === 'application/secevent+jwt' && r.authorization === 'Bearer rx-secret'),
    ).toBe(true);
    const jwks = await h.jwks(A);
    for (const r of rx.received) await verifySet(r.set, jwks, { issuer, audience: 'push-receiver' });
    expect(txnsOf(rx.received)).toContain(entry.id);
    // Delivered (202) is final: nothing is sent again.
    const count = rx.received.length;
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.received.length).toBe(count);
  });

  it('a receiver outage: every event published while the endpoint is down arrives once it is up, each exactly once', async () => {
    rx.received.length = 0;
    await rx.down();
    const entries = [];
    for (let i = 0; i < 5; i++)
      entries.push(await h.revoke({ tenantId: A, nheIdentifier: `agent-${i}`, reason: 'nhe.deleted' }));
    // The transmitter tries, fails (connection refused) and backs off; the events stay pending.
    await eventually(
      async () =>
        ((await h.db.connection.collection('ssf_streams').findOne({ _id: streamId as never }))?.pushFailures ?? 0) >= 2,
      10_000,
    );
    expect(await h.db.connection.collection('ssf_events').countDocuments({ streamId, state: 'pending' })).toBe(5);
    await rx.up();
    await eventually(() => rx.received.length >= 5, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(txnsOf(rx.received).sort()).toEqual(entries.map((e) => e.id).sort());
    expect(await h.db.connection.collection('ssf_events').countDocuments({ streamId, state: 'pending' })).toBe(0);
  });

  it('a receiver that answers 5xx gets the event again; an RFC 8935 400 error marks it rejected and it is not retried', async () => {
    rx.received.length = 0;
    rx.status = 503;
    const retried = await h.revoke({ tenantId: A, nheIdentifier: 'flaky', reason: 'nhe.deleted' });
    await eventually(
      async () =>
        ((await h.db.connection.collection('ssf_streams').findOne({ _id: streamId as never }))?.pushFailures ?? 0) >= 1,
    );
    rx.status = undefined;
    await eventually(() => txnsOf(rx.received).includes(retried.id), 10_000);

    rx.status = 400;
    const refused = await h.revoke({ tenantId: A, nheIdentifier: 'refused', reason: 'nhe.deleted' });
    const row = await eventually(async () => {
      const r = await h.db.connection.collection('ssf_events').findOne({ streamId, txn: refused.id });
      return r?.state === 'rejected' ? r : undefined;
    });
    expect(row.error).toMatch(/invalid_request: test refusal/);
    rx.status = undefined;
  });
});

describe('restarts', () => {
  it('events written and not yet acknowledged survive a restart; changes published while the transmitter is down are delivered after it starts', async () => {
    const token = await h.token(A, 'poll-receiver');
    const created = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_POLL }, events_requested: [NHE_REVOCATION_EVENT] });
    const streamId = created.body.stream_id as string;
    const poll = (body: Record<string, unknown> = {}) =>
      api()
        .post(`/auth/${A}/ssf/poll/${streamId}`)
        .auth(token, { type: 'bearer' })
        .send({ returnImmediately: true, maxEvents: 100, ...body });
    // Start from an empty queue (the stream began with the revocations still in force).
    await poll({ ack: Object.keys((await poll()).body.sets), maxEvents: 0 });

    const before = await h.revoke({ tenantId: A, nheIdentifier: 'before-restart', reason: 'nhe.disabled' });
    await eventually(async () =>
      Object.values((await poll()).body.sets as Record<string, string>).some((s) => claimsOf(s).txn === before.id),
    );

    await h.stopTransmitter();
    // Published on NATS only (not in nhe_revocations, so the reconciliation cannot supply it) while no transmitter
    // runs: the IDP_REVOCATIONS stream keeps it for the durable consumer.
    const during = buildRevocationEntry({ tenantId: A, nheIdentifier: 'during-outage', reason: 'nhe.deleted' });
    h.publisher.nc.publish(`idp.nhe.revoked.${A}`, JSON.stringify(during));
    await h.publisher.nc.flush();
    await h.startTransmitter();

    const sets = await eventually(async () => {
      const s = (await poll()).body.sets as Record<string, string>;
      const txns = Object.values(s).map((x) => claimsOf(x).txn);
      return txns.includes(before.id) && txns.includes(during.id) ? s : undefined;
    });
    expect(Object.keys(sets)).toHaveLength(2);
    await poll({ ack: Object.keys(sets), maxEvents: 0 });
    await h.restart();
    expect((await poll()).body.sets).toEqual({});
  });

  it('the reconciliation writes an entry that was persisted but never reached NATS (and only once)', async () => {
    const token = await h.token(A, 'reconcile-receiver');
    const created = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_POLL }, events_requested: [NHE_REVOCATION_EVENT] });
    const streamId = created.body.stream_id as string;
    const poll = (body: Record<string, unknown> = {}) =>
      api()
        .post(`/auth/${A}/ssf/poll/${streamId}`)
        .auth(token, { type: 'bearer' })
        .send({ returnImmediately: true, maxEvents: 100, ...body });
    await poll({ ack: Object.keys((await poll()).body.sets), maxEvents: 0 });

    const entry = buildRevocationEntry({ tenantId: A, subject: 'user-lost-on-nats', reason: 'user.disabled' });
    await h.store.save(entry);
    expect((await poll()).body.sets).toEqual({});
    await h.restart(); // the reconciliation runs at start (and every SSF_RECONCILE_INTERVAL_SECONDS)
    const sets = (await poll()).body.sets as Record<string, string>;
    expect(Object.values(sets).map((s) => claimsOf(s).txn)).toEqual([entry.id]);
    await h.restart();
    expect(Object.keys((await poll()).body.sets)).toEqual(Object.keys(sets));
  });

  it('an expired entry produces nothing', async () => {
    const token = await h.token(A, 'expired-receiver');
    const created = await api()
      .post(`/auth/${A}/ssf/streams`)
      .auth(token, { type: 'bearer' })
      .send({ delivery: { method: DELIVERY_POLL } });
    const streamId = created.body.stream_id as string;
    const old = buildRevocationEntry({
      tenantId: A,
      nheIdentifier: 'long-ago',
      reason: 'nhe.deleted',
      revokedAt: new Date(Date.now() - 3600_000),
    });
    h.publisher.nc.publish(`idp.nhe.revoked.${A}`, JSON.stringify(old));
    await h.publisher.nc.flush();
    await new Promise((r) => setTimeout(r, 800));
    expect(await h.db.connection.collection('ssf_events').countDocuments({ streamId, txn: old.id })).toBe(0);
  });
});
