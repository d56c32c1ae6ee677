/**
 * Management writes reach the other services over a real NATS server: a configuration invalidation on
 * idp.config.invalidate.<tenantId> for every change, and a kill-switch entry (idp.nhe.revoked.<tenantId>, persisted
 * first) when an NHE is disabled.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';
import {
  REVOCATION_COLLECTION,
  revocationStore,
  subscribeInvalidations,
  subscribeRevocations,
  type InvalidationEvent,
  type RevocationEntry,
} from '@idp/events';
import { createLogger } from '@idp/logger';
import { testNats } from '@idp/testing';
import { MANAGEMENT_SCOPES } from '@idp/tokens';
import { invalidationPublisher, revocationPublisher } from '../src/domain/kill-switch';
import { startHarness, type Harness } from './harness';

let h: Harness;
let nc: NatsConnection;
let stopNats: (() => Promise<void>) | undefined;
let ownServer = false;
const events: InvalidationEvent[] = [];
const revoked: RevocationEntry[] = [];

beforeAll(async () => {
  const nats = await testNats();
  stopNats = nats.server ? () => nats.server!.stop() : undefined;
  ownServer = Boolean(nats.server);
  nc = await connect({ servers: nats.url });
  subscribeInvalidations(nc, (e) => events.push(e));
  subscribeRevocations(nc, (e) => revoked.push(e));
  await nc.flush();
  h = await startHarness(
    'mgmtinval',
    {},
    {
      publishInvalidation: invalidationPublisher(nc, 500),
      // Called only once the harness is up: `revoke` is assigned just below.
      revoke: (input) => revoke(input),
    },
  );
  const revoke = revocationPublisher({
    nc,
    store: revocationStore(h.db.connection.collection(REVOCATION_COLLECTION) as never),
    logger: createLogger({ service: 'test', level: 'silent' }),
    timeoutMs: 500,
  });
});
// Unset when beforeAll failed before assigning it: still close what it opened.
afterAll(async () => {
  await (nc as typeof nc | undefined)?.close();
  await (h as typeof h | undefined)?.close();
  await stopNats?.();
});

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  return ok();
};

it('publishes an invalidation per change and a persisted revocation when an NHE is disabled', async () => {
  const A = h.tenants.a;
  const admin = await h.token(A, [...MANAGEMENT_SCOPES]);
  const created = await h.call('post', `/auth/admin/tenants/${A}/non-human-entities`, admin, {
    identifier: 'bot',
    type: 'llm-assistive',
    allowedScopes: [],
    operator: 'ops',
  });
  expect(await until(() => events.some((e) => e.kind === 'nhe' && e.id === created.body.id))).toBe(true);
  expect(events.find((e) => e.id === created.body.id)).toMatchObject({ tenantId: A, kind: 'nhe' });
  await h.call('patch', `/auth/admin/tenants/${A}/non-human-entities/${created.body.id}`, admin, { enabled: false });
  expect(await until(() => revoked.some((e) => e.nheIdentifier === 'bot'))).toBe(true);
  expect(revoked.find((e) => e.nheIdentifier === 'bot')).toMatchObject({ tenantId: A, reason: 'nhe.disabled' });
  expect(await h.db.connection.collection(REVOCATION_COLLECTION).countDocuments({ tenantId: A })).toBe(1);
  await h.call('patch', `/auth/admin/tenants/${A}`, admin, { settings: { nhe: { requireDpop: true } } });
  expect(await until(() => events.some((e) => e.kind === 'tenant' && e.tenantId === A))).toBe(true);
  // Reads publish nothing.
  const before = events.length;
  await h.call('get', `/auth/admin/tenants/${A}/non-human-entities`, admin);
  await nc.flush();
  expect(events.length).toBe(before);
});

it('NATS down: a disabling write answers 503 within the timeout, the change and the revocation entry are saved', async () => {
  if (!ownServer) return; // a shared NATS server (NATS_URL) is not ours to stop
  const A = h.tenants.a;
  const admin = await h.token(A, [...MANAGEMENT_SCOPES]);
  const created = await h.call('post', `/auth/admin/tenants/${A}/non-human-entities`, admin, {
    identifier: 'bot2',
    type: 'llm-assistive',
    allowedScopes: [],
    operator: 'ops',
  });
  const m = h.db.models;
  const client = await m.Client.create({
    tenantId: A,
    clientId: 'down-client',
    numericId: 876_543,
    name: 'c',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code'],
    responseTypes: ['code'],
    redirectUris: ['https://app.example/cb'],
  });
  const user = await m.User.create({ tenantId: A, username: 'down-user', passwordHash: 'x' });
  const group = await m.Group.create({ tenantId: A, name: 'down-group' });
  const policy = await m.DelegationPolicy.create({
    tenantId: A,
    nheId: created.body.id,
    target: { type: 'group', id: String(group._id) },
    allowedScopes: [],
  });
  await stopNats!();
  stopNats = undefined;
  const started = Date.now();
  const res = await h.call('patch', `/auth/admin/tenants/${A}/non-human-entities/${created.body.id}`, admin, {
    enabled: false,
  });
  expect(res.status).toBe(503);
  expect(res.body.type).toBe('https://idp.dev/problems/service-unavailable');
  expect(Date.now() - started).toBeLessThan(3_000);
  expect((await h.db.models.Nhe.findById(created.body.id).lean())!.enabled).toBe(false);
  expect(
    await h.db.connection
      .collection(REVOCATION_COLLECTION)
      .countDocuments({ tenantId: A, 'entry.nheIdentifier': 'bot2' }),
  ).toBe(1);
  // A DELETE revokes first: unconfirmed, it deletes nothing, so retrying it (as the 503 says) still finds the NHE.
  const del = await h.call('delete', `/auth/admin/tenants/${A}/non-human-entities/${created.body.id}`, admin);
  expect(del.status).toBe(503);
  expect(del.body.detail).toMatch(/retry the request/);
  expect(await h.db.models.Nhe.exists({ _id: created.body.id })).not.toBeNull();
  // The same for every DELETE that revokes: the record is still there for the retry.
  const base = `/auth/admin/tenants/${A}`;
  for (const [path, still] of [
    [`${base}/clients/down-client`, () => m.Client.exists({ _id: client._id })],
    [`${base}/users/${user._id}`, () => m.User.exists({ _id: user._id })],
    [
      `${base}/non-human-entities/${created.body.id}/delegation-policies/${policy._id}`,
      () => m.DelegationPolicy.exists({ _id: policy._id }),
    ],
    [`${base}/groups/${group._id}`, () => m.Group.exists({ _id: group._id })],
  ] as const) {
    expect([path, (await h.call('delete', path, admin)).status]).toEqual([path, 503]);
    expect(await still()).not.toBeNull();
  }
});
