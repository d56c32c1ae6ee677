/**
 * The HA value set with a scheduler: kube-scheduler joins the local control plane (e2e/src/kube-control-plane.ts)
 * and the test registers three Node objects, one per zone, kept Ready and schedulable the way kubelets would keep
 * them (a Lease renewed and a Ready condition with fresh heartbeats; no kubelet exists, nothing runs). charts/idp
 * with ci/ha-values.yaml (--no-hooks, restricted namespace) then shows:
 * - the scheduler binds every Deployment's replicas to three different nodes in three zones, as the chart's hard
 *   anti-affinity and zone spread say, and a fourth replica finds no node (so the spread is the rule, not chance);
 *   oidc's replicas come from its HorizontalPodAutoscaler's minReplicas (the Deployment sets none);
 * - with the Pods marked Ready (what a kubelet reports), every PodDisruptionBudget lets exactly one eviction
 *   through and refuses the next (429), through the real Eviction API.
 */
import { join } from 'node:path';
import { resourcePath, startKubeControlPlane, waitFor, type KubeControlPlane } from '../../src/kube-control-plane';
import type { KubeList, StoredPod } from '../../src/kube-pod-env';
import { chartDir, helm, helmAvailable, helmBin, RELEASE } from './render';
import { ifAssigned } from '../../src/if-assigned';

if (!helmAvailable())
  throw new Error(`${helmBin} is missing: run \`bash scripts/tools.sh helm\` (scripts/test.sh does)`);

const NS = 'idp-ha';
const NODES = [
  { name: 'node-a', zone: 'zone-a' },
  { name: 'node-b', zone: 'zone-b' },
  { name: 'node-c', zone: 'zone-c' },
];
const COMPONENTS = ['audit-writer', 'management', 'oidc', 'signals'];

let cp: KubeControlPlane;
let heartbeat: NodeJS.Timeout | undefined;

const microTime = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
const strategic = { contentType: 'application/strategic-merge-patch+json' };
const selector = (component: string) =>
  encodeURIComponent(
    `app.kubernetes.io/instance=${RELEASE},app.kubernetes.io/name=idp,app.kubernetes.io/component=${component}`,
  );
/** A Node as the tests read it. */
interface StoredNode {
  metadata: { name: string };
  spec: { taints?: unknown[] };
  status: { conditions: Array<{ type: string; status: string }> };
}
const podsOf = async (component: string): Promise<StoredPod[]> =>
  (await cp.api<KubeList<StoredPod>>('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=${selector(component)}`)).body
    .items;

/** What a kubelet keeps doing for its node: renew the Lease and report Ready with a fresh heartbeat. */
async function beat(): Promise<void> {
  const now = new Date().toISOString();
  for (const n of NODES) {
    await cp.api(
      'PATCH',
      `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${n.name}`,
      { spec: { renewTime: microTime() } },
      { contentType: 'application/merge-patch+json' },
    );
    await cp.api(
      'PATCH',
      `/api/v1/nodes/${n.name}/status`,
      {
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'KubeletReady',
              message: 'kept Ready by the test',
              lastHeartbeatTime: now,
            },
          ],
        },
      },
      strategic,
    );
  }
}

beforeAll(async () => {
  cp = await startKubeControlPlane({ timeoutMs: 90_000, scheduler: true });
  const now = new Date().toISOString();
  for (const n of NODES) {
    const labels = {
      'kubernetes.io/hostname': n.name,
      'topology.kubernetes.io/zone': n.zone,
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
    };
    expect(
      (
        await cp.api('POST', '/api/v1/nodes', {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: n.name, labels },
          spec: {},
        })
      ).status,
    ).toBe(201);
    const resources = { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' };
    const status = await cp.api(
      'PATCH',
      `/api/v1/nodes/${n.name}/status`,
      {
        status: {
          capacity: resources,
          allocatable: resources,
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'KubeletReady',
              message: 'kept Ready by the test',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ],
        },
      },
      strategic,
    );
    expect(status.status).toBe(200);
    const lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: n.name },
      spec: { holderIdentity: n.name, leaseDurationSeconds: 40, renewTime: microTime() },
    };
    expect((await cp.api('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease)).status).toBe(
      201,
    );
  }
  heartbeat = setInterval(() => void beat().catch(() => undefined), 5_000);
  // Schedulable: Ready and without the taints the node lifecycle controller puts on nodes that are not.
  await waitFor(
    async () => {
      const nodes = (await cp.api<KubeList<StoredNode>>('GET', '/api/v1/nodes')).body.items;
      return nodes.length === 3 &&
        nodes.every(
          (n) =>
            !(n.spec.taints ?? []).length && n.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
        )
        ? true
        : undefined;
    },
    20_000,
    async () =>
      `nodes not schedulable: ${JSON.stringify((await cp.api<KubeList<StoredNode>>('GET', '/api/v1/nodes')).body.items.map((n) => [n.metadata.name, n.spec.taints]))}`,
  );

  const ns = await cp.api('POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: NS,
      labels: {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  });
  expect(ns.status).toBe(201);
  await waitFor(
    async () =>
      (await cp.api('GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status === 200 ? true : undefined,
    20_000,
    () => `no default ServiceAccount in ${NS}`,
  );
  helm([
    'install',
    RELEASE,
    chartDir,
    '--namespace',
    NS,
    '-f',
    join(chartDir, 'ci', 'ha-values.yaml'),
    '--no-hooks',
    '--timeout',
    '60s',
    '--kubeconfig',
    cp.kubeconfigPath,
  ]);
}, 180_000);

afterAll(async () => {
  if (heartbeat) clearInterval(heartbeat);
  await ifAssigned(cp)?.stop();
}, 60_000);

describe('ci/ha-values.yaml with three nodes and a scheduler', () => {
  it.each(COMPONENTS)('%s: three replicas bound to three different nodes in three zones', async (component) => {
    // oidc's Deployment has no replicas: its HorizontalPodAutoscaler's controller raises it to minReplicas (3).
    const pods = await waitFor(
      async () => {
        const list = await podsOf(component);
        return list.length === 3 && list.every((p) => p.spec.nodeName) ? list : undefined;
      },
      45_000,
      async () =>
        `${component}: ${JSON.stringify((await podsOf(component)).map((p) => [p.metadata.name, p.spec.nodeName ?? p.status.conditions?.find((c) => c.type === 'PodScheduled')?.message]))}`,
    );
    if (component === 'oidc') {
      const hpa = (
        await cp.api<{ spec: { minReplicas?: number }; status?: { desiredReplicas?: number } }>(
          'GET',
          resourcePath('autoscaling/v2', 'HorizontalPodAutoscaler', NS, `${RELEASE}-oidc`),
        )
      ).body;
      expect({ min: hpa.spec.minReplicas, desired: hpa.status?.desiredReplicas }).toEqual({ min: 3, desired: 3 });
    }
    const nodes = pods.map((p) => p.spec.nodeName as string);
    expect(new Set(nodes).size).toBe(3);
    expect(new Set(nodes.map((n) => NODES.find((x) => x.name === n)!.zone)).size).toBe(3);
  });

  it('a fourth management replica finds no node: the anti-affinity is required, not a preference (Pending, Unschedulable)', async () => {
    const deployment = resourcePath('apps/v1', 'Deployment', NS, `${RELEASE}-management`);
    expect(
      (await cp.api('PATCH', deployment, { spec: { replicas: 4 } }, { contentType: 'application/merge-patch+json' }))
        .status,
    ).toBe(200);
    try {
      const pending = await waitFor(
        async () => {
          const p = (await podsOf('management')).find(
            (x) =>
              !x.spec.nodeName &&
              x.status.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'),
          );
          return p;
        },
        30_000,
        () => 'no unschedulable fourth management Pod',
      );
      const why = pending.status.conditions?.find((c) => c.type === 'PodScheduled')?.message;
      expect(why).toMatch(/0\/3 nodes are available/);
      expect(why).toMatch(/anti-affinity/);
    } finally {
      expect(
        (await cp.api('PATCH', deployment, { spec: { replicas: 3 } }, { contentType: 'application/merge-patch+json' }))
          .status,
      ).toBe(200);
    }
    await waitFor(
      async () =>
        (await podsOf('management')).filter((p) => !p.metadata.deletionTimestamp).length === 3 ? true : undefined,
      30_000,
      () => 'management not back to 3 Pods',
    );
  });

  it.each(COMPONENTS)(
    '%s: with its Pods Ready, the PodDisruptionBudget allows one eviction and refuses the next (429)',
    async (component) => {
      const pods = (await podsOf(component)).filter((p) => p.spec.nodeName && !p.metadata.deletionTimestamp);
      expect(pods).toHaveLength(3);
      // What the kubelet would report once the containers run and pass their readiness probes.
      const now = new Date().toISOString();
      for (const p of pods) {
        const res = await cp.api(
          'PATCH',
          `/api/v1/namespaces/${NS}/pods/${p.metadata.name}/status`,
          {
            status: {
              phase: 'Running',
              conditions: [
                { type: 'Initialized', status: 'True', lastTransitionTime: now },
                { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
                { type: 'Ready', status: 'True', lastTransitionTime: now },
              ],
            },
          },
          strategic,
        );
        expect(res.status).toBe(200);
      }
      const pdbPath = resourcePath('policy/v1', 'PodDisruptionBudget', NS, `${RELEASE}-${component}`);
      type Pdb = { status?: { currentHealthy?: number; disruptionsAllowed?: number; desiredHealthy?: number } };
      const pdb = await waitFor(
        async () => {
          const b = (await cp.api<Pdb>('GET', pdbPath)).body;
          return b.status?.currentHealthy === 3 && b.status.disruptionsAllowed === 1 ? b : undefined;
        },
        30_000,
        async () =>
          `PodDisruptionBudget ${RELEASE}-${component}: ${JSON.stringify((await cp.api<Pdb>('GET', pdbPath)).body.status)}`,
      );
      expect(pdb.status?.desiredHealthy).toBe(2);

      const evict = (name: string) =>
        cp.api<{ message?: string }>('POST', `/api/v1/namespaces/${NS}/pods/${name}/eviction`, {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name, namespace: NS },
        });
      const first = await evict(pods[0].metadata.name);
      expect(first.status).toBe(201);
      const second = await evict(pods[1].metadata.name);
      expect(second.status).toBe(429);
      expect(second.body.message).toMatch(/Cannot evict pod as it would violate the pod's disruption budget/);
      // The refused Pod is untouched; the evicted one is being deleted (no kubelet finishes it).
      expect(
        (await cp.api<StoredPod>('GET', `/api/v1/namespaces/${NS}/pods/${pods[1].metadata.name}`)).body.metadata
          .deletionTimestamp,
      ).toBeUndefined();
      expect(
        (await cp.api<StoredPod>('GET', `/api/v1/namespaces/${NS}/pods/${pods[0].metadata.name}`)).body.metadata
          .deletionTimestamp,
      ).toEqual(expect.any(String));
    },
  );
});
