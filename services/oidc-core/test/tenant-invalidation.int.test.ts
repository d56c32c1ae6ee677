/**
 * oidc-core drops a tenant's cached provider when the management API publishes a configuration invalidation over
 * a real NATS server; malformed messages are ignored.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { invalidationSubject, publishInvalidation } from '@idp/events';
import { createLogger } from '@idp/logger';
import { testNats } from '@idp/testing';
import { evictOnInvalidation } from '../src/tenants/invalidation';

let pub: NatsConnection;
let sub: NatsConnection;
let stop: (() => Promise<void>) | undefined;
let nats: Awaited<ReturnType<typeof testNats>>;

beforeAll(async () => {
  nats = await testNats();
  stop = nats.server ? () => nats.server!.stop() : undefined;
  pub = await connect({ servers: nats.url });
  sub = await connect({ servers: nats.url });
});
afterAll(async () => {
  // Unset when beforeAll failed before assigning it.
  await (pub as NatsConnection | undefined)?.close();
  await (sub as NatsConnection | undefined)?.close();
  await stop?.();
});

it('evicts exactly the tenant named by each invalidation', async () => {
  const evicted: number[] = [];
  const handle = evictOnInvalidation(
    sub,
    { evict: (t) => evicted.push(t) },
    createLogger({ service: 'test', level: 'silent' }),
  );
  await sub.flush();
  pub.publish(invalidationSubject(7), '{"not":"an event"}');
  pub.publish(invalidationSubject(7), 'not json');
  // Kinds the provider does not hold (read fresh on every use) evict nothing.
  for (const kind of ['user', 'group', 'nhe', 'policy'] as const)
    await publishInvalidation(pub, { tenantId: 1000, kind });
  await publishInvalidation(pub, { tenantId: 1001, kind: 'client', id: 'web-app' });
  await publishInvalidation(pub, { tenantId: 1002, kind: 'keys' });
  for (let i = 0; i < 100 && evicted.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  expect(evicted).toEqual([1001, 1002]);
  handle.unsubscribe();
  await publishInvalidation(pub, { tenantId: 1003, kind: 'tenant' });
  await sub.flush();
  await new Promise((r) => setTimeout(r, 50));
  expect(evicted).toEqual([1001, 1002]);
});

it('drops every cached provider when the NATS connection comes back, and stops watching once unsubscribed', async () => {
  if (!nats.server) return; // shared NATS_URL: this file cannot restart the server
  const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  let cleared = 0;
  const handle = evictOnInvalidation(
    nc,
    { evict: () => undefined, clear: () => (cleared += 1) },
    createLogger({ service: 'test', level: 'silent' }),
  );
  try {
    await nats.server.restart();
    for (let i = 0; i < 200 && cleared === 0; i++) await new Promise((r) => setTimeout(r, 25));
    // Invalidations published while it was cut off are lost: every tenant's provider is rebuilt on next use.
    expect(cleared).toBe(1);
    handle.unsubscribe();
    await nats.server.restart();
    // Reconnected (a flush during the reconnect rejects), then a moment for a status event that must not count.
    for (let i = 0; i < 200; i++) {
      if (
        await nc.flush().then(
          () => true,
          () => false,
        )
      )
        break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(cleared).toBe(1);
  } finally {
    handle.unsubscribe();
    await nc.close();
  }
});
