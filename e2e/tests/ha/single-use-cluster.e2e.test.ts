/**
 * Actor tokens' single-use jti on the HA topology's 3-node JetStream cluster. The IDP_SINGLE_USE stream
 * replicated on three nodes (as the chart's HA values and ACTOR_JTI_STREAM_REPLICAS make it); two "replicas" of the
 * sidecar connected to different nodes use each value at the same time, again and again: exactly one use is
 * accepted each time (a clustered stream refuses a write racing another to the same subject with its own error
 * code, 10164, which counts as "used before", never as a failure that could be retried into a second token). A node
 * killed: the two left keep the guarantee. About 15 s (the cluster's start and leader election).
 */
import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { ensureSingleUseStream, jetStreamSingleUseStore, SINGLE_USE_STREAM } from '@idp/events';
import { startNatsCluster, type NatsCluster } from '../../src/ha/nats-cluster';
import { ifAssigned } from '../../src/if-assigned';

jest.setTimeout(90_000);

let cluster: NatsCluster;
const connections: NatsConnection[] = [];

beforeAll(async () => {
  cluster = await startNatsCluster();
});
afterAll(async () => {
  for (const c of connections) await c.close().catch(() => undefined);
  await ifAssigned(cluster)?.stop();
});

async function nodeConnection(index: number): Promise<NatsConnection> {
  // One node first, the others to fail over to (as NATS_URL lists them), like a sidecar pinned near one node.
  const urls = cluster.nodes.map((n) => n.url);
  const nc = await connect({
    servers: [urls[index]!, ...urls.filter((_, i) => i !== index)],
    noRandomize: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 200,
  });
  connections.push(nc);
  return nc;
}

/** Retries while the cluster elects its meta leader (the sidecar does the same in the background). */
async function ensureStream(nc: NatsConnection): Promise<void> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    try {
      await ensureSingleUseStream(nc, { replicas: 3, maxAgeSeconds: 600 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Uses each of `rounds` fresh values 4 times at once over both connections; returns the accepted counts. */
async function race(stores: Array<ReturnType<typeof jetStreamSingleUseStore>>, rounds: number): Promise<number[]> {
  const accepted: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const key = randomUUID();
    const results = await Promise.all([0, 1, 2, 3].map((j) => stores[j % stores.length]!.remember(key)));
    accepted.push(results.filter(Boolean).length);
  }
  return accepted;
}

test('replicated on three nodes; racing uses from two nodes: exactly one accepted; still so with a node down', async () => {
  const a = await nodeConnection(0);
  const b = await nodeConnection(2);
  await Promise.all([ensureStream(a), ensureStream(b)]);
  const info = await (await jetstreamManager(a)).streams.info(SINGLE_USE_STREAM);
  expect(info.config.num_replicas).toBe(3);
  expect(info.cluster?.replicas ?? []).toHaveLength(2);

  const stores = [a, b].map((nc) =>
    jetStreamSingleUseStore(jetstream(nc, { timeout: 5000 }), {
      kind: 'actor-jti',
      tenantId: 1,
      maxAgeSeconds: 600,
      timeoutMs: 5000,
    }),
  );
  expect(await race(stores, 40)).toEqual(Array(40).fill(1));

  // A follower of the stream killed (the node neither client prefers, unless it leads): two of three nodes keep the
  // quorum and the guarantee.
  const leader = info.cluster?.leader;
  const follower =
    cluster.nodes[1]!.name !== leader ? cluster.nodes[1]! : cluster.nodes.find((n) => n.name !== leader)!;
  await cluster.kill(follower.name);
  const deadline = Date.now() + 30_000;
  let after: number[];
  for (;;) {
    try {
      after = await race(stores, 20);
      break;
    } catch (err) {
      // Client reconnecting to a live node: an unavailable check is an error (no token), never an acceptance.
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  expect(after).toEqual(Array(20).fill(1));
});
