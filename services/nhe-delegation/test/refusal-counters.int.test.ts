/**
 * The decision log's refusals end to end: real token exchanges (RFC 8693) refused through oidc-core's token endpoint
 * and the sidecar (over loopback HTTP), the refusal events on a real NATS JetStream (the audit stream), the
 * audit-writer's refusal consumer counting them per (tenant, hour, NHE, error code, gate) in a real FerretDB, once
 * under redelivery, and management's refusals histogram returning them to the tenant's administrator only.
 */
import { randomInt } from 'node:crypto';
import type { JsMsg } from '@nats-io/jetstream';
import { jetstream } from '@nats-io/jetstream';
import {
  AUDIT_STREAM,
  ensureRefusalConsumer,
  ensureRefusalStream,
  REFUSAL_STREAM,
  REFUSAL_STREAM_MAX_BYTES,
  REFUSAL_WRITER_DURABLE,
  refusalHour,
  refusalSubject,
  type NheTokenRefused,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import { basicAuth, type SeededTenant } from '@idp/testing';
import { GRANT_TYPE_TOKEN_EXCHANGE, MANAGEMENT_SCOPES } from '@idp/tokens';
import { runConsumerLoop } from '../../audit-writer/src/consumer-loop';
import { writeRefusalBatch } from '../../audit-writer/src/refusal-writer';
import { startHarness, type Harness } from '../../management/test/harness';
import { startStack, type Stack } from './stack';

jest.setTimeout(60_000);

const T = randomInt(100_000, 900_000);
const OTHER = T + 1;
const logger = createLogger({ service: 'test', level: 'silent' });

let s: Stack;
let t: SeededTenant;
let other: SeededTenant;
let mgmt: Harness;
const stop = new AbortController();
let loop: Promise<void>;
/** Messages the writer handled, by delivery: the first delivery's acks are "lost" (nak'ed) while `loseAcks` is set. */
const deliveries: Array<{ id: string; deliveryCount: number }> = [];
let loseAcks = false;

beforeAll(async () => {
  s = await startStack('refusals');
  t = await s.seed(T);
  other = await s.seed(OTHER);
  await ensureRefusalStream(s.nc, { replicas: 1, duplicateWindowSeconds: 120, maxAgeSeconds: 3600 });
  await ensureRefusalConsumer(s.jsm, 100);
  const consumer = await jetstream(s.nc).consumers.get(REFUSAL_STREAM, REFUSAL_WRITER_DURABLE);
  const js = jetstream(s.nc);
  loop = runConsumerLoop(
    consumer,
    async (msgs) => {
      for (const m of msgs)
        deliveries.push({ id: (JSON.parse(m.string()) as { id: string }).id, deliveryCount: m.info.deliveryCount });
      // A lost ack: the writer stores and acks, but JetStream never sees the ack and delivers the message again.
      const handed = loseAcks
        ? msgs.map((m) =>
            m.info.deliveryCount === 1
              ? (Object.assign(Object.create(m) as JsMsg, { ack: () => m.nak(0) }) as JsMsg)
              : m,
          )
        : msgs;
      await writeRefusalBatch({ models: s.db.models, js, logger }, handed);
    },
    { batchSize: 50, fetchExpiresMs: 1000 },
    logger,
    stop.signal,
  );
  mgmt = await startHarness('refusals-mgmt', {}, {}, { db: s.db });
});

afterAll(async () => {
  stop.abort();
  await loop;
  await mgmt.close();
  await s.close();
});

async function exchange(tenant: SeededTenant, params: Record<string, string>) {
  const res = await fetch(`${s.baseUrl}/auth/${tenant.tenantId}/oidc/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(tenant.client.clientId, tenant.client.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: GRANT_TYPE_TOKEN_EXCHANGE,
      subject_token: await s.userToken(tenant.tenantId, { sub: tenant.user.id, client_id: tenant.client.clientId }),
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      actor_token: 'orders-agent',
      actor_token_type: 'urn:vendor:token-type:nhe-id',
      resource: tenant.resource,
      scope: 'orders:read',
      ...params,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

type CounterRow = { nheIdentifier: string; error: string; gate: string; count: number; hour: Date };
async function counters(tenantId: number): Promise<CounterRow[]> {
  return s.db.models.TokenRefusalCounter.find(
    { tenantId },
    { _id: 0, nheIdentifier: 1, error: 1, gate: 1, count: 1, hour: 1 },
  )
    .sort({ error: 1, gate: 1, nheIdentifier: 1 })
    .lean<CounterRow[]>();
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
/** Every refusal message handled and acknowledged (none pending, none awaiting its ack). */
const settled = async () => {
  const info = await s.jsm.consumers.info(REFUSAL_STREAM, REFUSAL_WRITER_DURABLE);
  return info.num_pending === 0 && info.num_ack_pending === 0;
};
const total = async (tenantId: number) => (await counters(tenantId)).reduce((n, c) => n + c.count, 0);

it('refusals travel in their own bounded stream, never in the issuance audit stream every token waits on', async () => {
  const refusals = await s.jsm.streams.info(REFUSAL_STREAM);
  expect(refusals.config).toMatchObject({
    subjects: ['idp.audit.nhe.refused.*'],
    max_bytes: REFUSAL_STREAM_MAX_BYTES,
    discard: 'old',
  });
  expect((await s.jsm.streams.info(AUDIT_STREAM)).config.subjects).not.toContain('idp.audit.nhe.refused.*');
});

it('counts real refusals per hour, NHE, error code and gate; a granted exchange is not counted', async () => {
  const hour = refusalHour(new Date());
  // Beyond the policy: invalid_scope (twice).
  for (let i = 0; i < 2; i++) {
    const r = await exchange(t, { scope: 'orders:refund' });
    expect([r.status, r.body.error]).toEqual([400, 'invalid_scope']);
  }
  // The NHE disabled: invalid_grant at the nhe-disabled gate.
  await s.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: false } });
  const disabled = await exchange(t, {});
  await s.db.models.Nhe.updateOne({ tenantId: T, identifier: 'orders-agent' }, { $set: { enabled: true } });
  expect([disabled.status, disabled.body.error]).toEqual([400, 'invalid_grant']);
  // An unknown NHE: its name is the caller's string, never a counter key.
  const unknown = await exchange(t, { actor_token: 'made-up-agent-name' });
  expect(unknown.body.error).toBe('invalid_grant');
  // Granted: not a refusal.
  expect((await exchange(t, {})).status).toBe(200);
  // Another tenant's refusal.
  expect((await exchange(other, { scope: 'orders:refund' })).body.error).toBe('invalid_scope');

  await until('4 refusals of tenant T', async () => (await total(T)) === 4);
  await until('1 refusal of the other tenant', async () => (await total(OTHER)) === 1);
  const rows = await counters(T);
  // The hour the refusals were counted in (the next one too, should the test have crossed an hour boundary).
  for (const r of rows) expect([hour.getTime(), hour.getTime() + 3_600_000]).toContain(r.hour.getTime());
  expect(rows.map(({ hour: _hour, ...rest }) => rest)).toEqual([
    { nheIdentifier: 'orders-agent', error: 'invalid_grant', gate: 'nhe-disabled', count: 1 },
    { nheIdentifier: '', error: 'invalid_grant', gate: 'nhe-not-found', count: 1 },
    { nheIdentifier: 'orders-agent', error: 'invalid_scope', gate: 'scope-exceeds-policy', count: 2 },
  ]);
  // The events carried no token: only the ids of the refusals are kept beside the counts.
  const stored = await s.db.models.TokenRefusalEvent.find({ tenantId: T }).lean();
  expect(stored).toHaveLength(4);
  for (const e of stored) expect(Object.keys(e).sort()).toEqual(['_id', 'at', 'tenantId']);
});

it('counts a redelivered refusal once (a lost ack, and the same event published again)', async () => {
  const before = await total(T);
  loseAcks = true;
  const seen = deliveries.length;
  expect((await exchange(t, { scope: 'orders:refund' })).body.error).toBe('invalid_scope');
  // Delivered twice: the first ack was lost, so JetStream delivered it again and the writer found it counted.
  await until('the redelivery', () => deliveries.slice(seen).some((d) => d.deliveryCount > 1));
  loseAcks = false;
  await until('the redelivery handled', settled);
  expect(await total(T)).toBe(before + 1);
  // The same event again under another message id (JetStream's duplicate window would drop the same id).
  const id = deliveries[deliveries.length - 1]!.id;
  const copy: NheTokenRefused = {
    type: 'nhe.token.refused',
    id,
    tenantId: T,
    outcome: 'denied',
    error: 'invalid_scope',
    gate: 'scope-exceeds-policy',
    flow: 'token-exchange',
    nheIdentifier: 'orders-agent',
    clientId: 'demo-app',
    at: new Date().toISOString(),
  };
  const count = deliveries.length;
  await jetstream(s.nc).publish(refusalSubject(T), JSON.stringify(copy), { msgID: `${id}-again` });
  await until('the copy delivered', () => deliveries.length > count);
  await until('the copy handled', settled);
  expect(await total(T)).toBe(before + 1);
});

it("management returns the tenant's refusals per hour by error code, never another tenant's", async () => {
  const adminT = await mgmt.token(T, [...MANAGEMENT_SCOPES]);
  const path = (tenantId: number, q = '') =>
    `/auth/admin/tenants/${tenantId}/non-human-entities/token-audit/refusals-histogram${q}`;
  const res = await mgmt.call('get', path(T), adminT);
  expect(res.status).toBe(200);
  const body = res.body as {
    series: Array<{ error: string; total: number; counts: number[]; gates: Array<{ gate: string; total: number }> }>;
    total: number;
    bucketSeconds: number;
  };
  expect(body.bucketSeconds).toBe(3600);
  expect(body.total).toBe(5);
  expect(body.series.map((x) => [x.error, x.total, x.gates])).toEqual([
    ['invalid_scope', 3, [{ gate: 'scope-exceeds-policy', total: 3 }]],
    [
      'invalid_grant',
      2,
      [
        { gate: 'nhe-disabled', total: 1 },
        { gate: 'nhe-not-found', total: 1 },
      ],
    ],
  ]);
  // In the last hours of the window (the current one, or the one before if the test crossed an hour boundary).
  const counts = body.series[0]!.counts;
  expect(counts.slice(-2).reduce((a, b) => a + b, 0)).toBe(3);
  expect(counts.length).toBeGreaterThanOrEqual(24);
  // By NHE: the unknown one's refusal is not under orders-agent.
  const byNhe = await mgmt.call('get', path(T, '?nheIdentifier=orders-agent'), adminT);
  expect((byNhe.body as { total: number }).total).toBe(4);
  // Buckets are whole hours.
  const odd = await mgmt.call('get', path(T, '?bucketSeconds=5400'), adminT);
  expect(odd.status).toBe(400);
  // Tenant T's administrator cannot read the other tenant's; the other tenant's sees only its own refusal.
  expect((await mgmt.call('get', path(OTHER), adminT)).status).toBe(404);
  const otherRes = await mgmt.call('get', path(OTHER), await mgmt.token(OTHER, [...MANAGEMENT_SCOPES]));
  expect((otherRes.body as { total: number }).total).toBe(1);
});
