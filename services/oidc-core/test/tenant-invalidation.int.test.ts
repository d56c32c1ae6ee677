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

beforeAll(async () => {
  const nats = await testNats();
  stop = nats.server ? () => nats.server!.stop() : undefined;
  pub = await connect({ servers: nats.url });
  sub = await connect({ servers: nats.url });
});
afterAll(async () => {
  await pub?.close();
  await sub?.close();
  await stop?.();
});

it('evicts exactly the tenant named by each invalidation', async () => {
  const evicted: number[] = [];
  const handle = evictOnInvalidation(sub, { evict: (t) => evicted.push(t) }, createLogger({ service: 'test', level: 'silent' }));
  await sub.flush();
  pub.publish(invalidationSubject(7), '{"not":"an event"}');
  pub.publish(invalidationSubject(7), 'not json');
  // Kinds the provider does not hold (read fresh on every use) evict nothing.
  for (const kind of ['user', 'group', 'nhe', 'policy'] as const) await publishInvalidation(pub, { tenantId: 1000, kind });
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
