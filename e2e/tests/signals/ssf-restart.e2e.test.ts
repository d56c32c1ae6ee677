/**
 * SSF events survive a restart of the transmitter process. services/signals runs as its own OS process
 * (the built entry file, as in its container); it is killed with SIGKILL (a crash: no drain, no goodbye), an NHE is
 * disabled through the management API while it is down, and after it starts again the receiver's poll stream still
 * gets that change's SETs (the transmitter's durable consumer of the revocation feed resumes where it stopped). Killed
 * again before the receiver acknowledges, it delivers the same SETs again (at least once); after the acknowledgement
 * and one more restart, nothing comes back (acks are persisted, none twice).
 */
import { registerSsfReceiver, type SsfReceiver } from '../../src/clients/ssf-receiver';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

let h: Harness;
let receiver: SsfReceiver;

beforeAll(async () => {
  h = await startHarness('ssf-restart');
  receiver = await registerSsfReceiver(h, 'Restart receiver');
}, 120_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

/** SIGKILL, then wait for the process to be gone. */
async function crashSignals(): Promise<void> {
  const child = h.topology.services.signals.process;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function poll(
  endpoint: string,
  body: Record<string, unknown>,
): Promise<{ sets: Record<string, string>; moreAvailable: boolean }> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { sets: Record<string, string>; moreAvailable: boolean };
}

/** Polls (long polls, bounded) until `count` distinct SETs have arrived; returns their jtis (the keys), sorted. */
async function pollUntil(endpoint: string, count: number): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; seen.size < count && i < 30; i++) {
    const { sets } = await poll(endpoint, { returnImmediately: false, maxEvents: 10 });
    for (const jti of Object.keys(sets)) seen.add(jti);
  }
  return [...seen].sort();
}

it('a change made while the transmitter is down is delivered after it restarts, again after a crash before the ack, and never after the ack', async () => {
  const created = await fetch(receiver.config.configuration_endpoint!, {
    method: 'POST',
    headers: { authorization: `Bearer ${receiver.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ delivery: { method: 'urn:ietf:rfc:8936' } }),
  });
  expect(created.status).toBe(201);
  const { stream_id, delivery } = (await created.json()) as { stream_id: string; delivery: { endpoint_url: string } };

  await crashSignals();
  // The transmitter is gone: the kill-switch change still commits (management does not depend on it).
  expect((await receiver.manage('PATCH', `/non-human-entities/${h.tenant.nhe.id}`, { enabled: false })).status).toBe(
    200,
  );
  await h.topology.startService('signals');

  // The stream itself was persisted, and the change made while the process was down reaches it.
  const status = await fetch(
    `${receiver.config.status_endpoint ?? `${receiver.config.configuration_endpoint}/status`}?stream_id=${stream_id}`,
    { headers: { authorization: `Bearer ${receiver.token}` } },
  );
  expect(status.status).toBe(200);
  const first = await pollUntil(delivery.endpoint_url, 2);
  expect(first).toHaveLength(2);

  // Crash before the acknowledgement: the same SETs are delivered again (at least once), nothing else.
  await crashSignals();
  await h.topology.startService('signals');
  const again = await pollUntil(delivery.endpoint_url, 2);
  expect(again).toEqual(first);

  // Acknowledged, then a graceful restart: nothing comes back.
  expect(await poll(delivery.endpoint_url, { ack: first, returnImmediately: true })).toEqual({
    sets: {},
    moreAvailable: false,
  });
  await h.topology.stopService('signals');
  await h.topology.startService('signals');
  expect(await poll(delivery.endpoint_url, { returnImmediately: true })).toEqual({ sets: {}, moreAvailable: false });
}, 120_000);
