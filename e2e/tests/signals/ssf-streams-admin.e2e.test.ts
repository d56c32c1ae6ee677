/**
 * A tenant administrator sees the tenant's Shared Signals streams through the management API and acts on them, while
 * a real receiver works against the transmitter (every service a process behind the dev router): the stream the
 * receiver created is listed with its receiver, delivery and pending events (never its push secret); pausing holds its
 * events (the receiver's poll returns none, its status says paused), resuming delivers them, disabling drops them and
 * cannot be undone from here (the receiver re-enables, the transmitter backfills), deleting removes it at the
 * transmitter. Another tenant's administrator sees none of it.
 */
import { registerSsfReceiver } from '../../src/clients/ssf-receiver';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('ssf-streams-admin');
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

it('lists, pauses, resumes, disables and deletes a receiver’s stream; tenant isolation', async () => {
  const { clientId, token, config, manage } = await registerSsfReceiver(h, 'Streams admin receiver');
  const created = await fetch(config.configuration_endpoint!, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' }, description: 'orders api' }),
  });
  expect(created.status).toBe(201);
  const { stream_id: id, delivery } = (await created.json()) as {
    stream_id: string;
    delivery: { endpoint_url: string };
  };
  const admin = async <T>(method: string, path: string, body?: unknown) => {
    const res = await manage(method, path, body);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };
  type Stream = { id: string; clientId: string; delivery: string; status: string; pendingEvents: number };
  const list = await admin<{ items: Stream[] }>('GET', '/ssf-streams');
  expect(list.status).toBe(200);
  expect(list.body.items.find((s) => s.id === id)).toMatchObject({
    clientId,
    delivery: 'poll',
    status: 'enabled',
    description: 'orders api',
  });
  const poll = async () => {
    const res = await fetch(delivery.endpoint_url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ returnImmediately: true, maxEvents: 10 }),
    });
    expect(res.status).toBe(200);
    return Object.keys(((await res.json()) as { sets: Record<string, string> }).sets);
  };
  const status = async () =>
    (
      (await (
        await fetch(`${config.status_endpoint}?stream_id=${encodeURIComponent(id)}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json()) as { status: string }
    ).status;

  // Paused: the transmitter holds what happens meanwhile.
  expect(
    (await admin<Stream>('PATCH', `/ssf-streams/${id}`, { status: 'paused', reason: 'maintenance' })).body,
  ).toMatchObject({
    status: 'paused',
  });
  expect(await status()).toBe('paused');
  expect((await manage('PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: false })).status).toBe(200);
  let held = 0;
  for (let i = 0; i < 40 && held < 2; i++) {
    held = (await admin<Stream>('GET', `/ssf-streams/${id}`)).body.pendingEvents;
    if (held < 2) await new Promise((r) => setTimeout(r, 250));
  }
  expect(held).toBe(2);
  expect(await poll()).toEqual([]);
  // Resumed: the held events are delivered.
  expect((await admin<Stream>('PATCH', `/ssf-streams/${id}`, { status: 'enabled' })).status).toBe(200);
  expect(await poll()).toHaveLength(2);

  // Under another tenant's path (the system tenant's; its administrator may use any): not there, not changed there.
  const system = (
    await clientCredentialsToken(
      h.topology.baseUrl,
      h.topology.systemTenantId,
      h.topology.secrets.bootstrapAdminClientId,
      h.topology.secrets.bootstrapAdminClientSecret,
      'urn:idp:management',
    )
  ).access_token;
  const elsewhere = (method: string) =>
    fetch(`${h.topology.baseUrl}/auth/admin/tenants/${h.topology.systemTenantId}/ssf-streams/${id}`, {
      method,
      headers: { authorization: `Bearer ${system}`, 'content-type': 'application/json' },
      ...(method === 'PATCH' ? { body: JSON.stringify({ status: 'disabled' }) } : {}),
    });
  expect((await elsewhere('GET')).status).toBe(404);
  expect((await elsewhere('PATCH')).status).toBe(404);
  expect((await elsewhere('DELETE')).status).toBe(404);
  expect(
    (
      (await (
        await fetch(`${h.topology.baseUrl}/auth/admin/tenants/${h.topology.systemTenantId}/ssf-streams`, {
          headers: { authorization: `Bearer ${system}` },
        })
      ).json()) as { items: Array<{ id: string }> }
    ).items.map((s) => s.id),
  ).not.toContain(id);
  expect(await status()).toBe('enabled');

  // Disabled: pending events dropped; only the receiver brings it back.
  expect((await admin<Stream>('PATCH', `/ssf-streams/${id}`, { status: 'disabled' })).body.status).toBe('disabled');
  expect(await status()).toBe('disabled');
  const back = await admin<{ status: number; detail: string }>('PATCH', `/ssf-streams/${id}`, { status: 'enabled' });
  expect(back.status).toBe(409);
  // Deleted: gone at the transmitter too.
  expect((await admin('DELETE', `/ssf-streams/${id}`)).status).toBe(204);
  expect((await admin('GET', `/ssf-streams/${id}`)).status).toBe(404);
  const read = await fetch(`${config.configuration_endpoint}?stream_id=${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(read.status).toBe(404);
});
