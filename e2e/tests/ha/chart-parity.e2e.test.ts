/**
 * The HA topology (e2e/src/ha) runs the process set the chart's HA values deploy, so the two cannot drift.
 * `helm template` with charts/idp/ci/ha-values.yaml: every Deployment is a workload of HA_WORKLOADS with the same
 * containers (the oidc pod pairs oidc-core with its sidecar, as the topology's oidc replica does); the one-shot
 * programs (CronJob, hook Jobs) are what the topology runs as one-shots; NATS_URL lists as many servers as the
 * topology's cluster has nodes; the stream settings given to the stream job, the writer and signals are HA_STREAM;
 * every Deployment has several replicas, a PodDisruptionBudget and hard anti-affinity; the topology's replica
 * count is the chart's default replicaCount. No processes are started; a few seconds (three helm renders).
 */
import { HA_STREAM, HA_WORKLOADS, type Workload } from '../../src/ha/ha-topology';
import { NATS_CLUSTER_SIZE } from '../../src/ha/nats-cluster';
import { byKind, component, helmAvailable, podSpecOf, render, type K8sObject } from '../chart/render';

/** Programs the chart runs to completion and how the topology runs them. */
const ONE_SHOTS: Record<string, string> = {
  'audit-retention': 'HaTopology.runRetention (the CronJob)',
  'nats-stream': 'createAuditStreamAsTheChartDoes (the hook Job, same script and env)',
  // Creates MongoDB users and roles: the local store (FerretDB) runs without authentication, as `npm start` does.
  'mongo-users': 'not run locally (FerretDB without users)',
};

const env = (o: K8sObject, container: string): Partial<Record<string, string>> =>
  Object.fromEntries(
    (
      (podSpecOf(o)!.containers as Array<{ name: string; env?: Array<{ name: string; value?: string }> }>).find(
        (c) => c.name === container,
      )?.env ?? []
    ).map((e) => [e.name, String(e.value ?? '')]),
  );

const ha = helmAvailable() ? render(['ci/ha-values.yaml']) : [];
// The chart's defaults (values.yaml) with only what an install must name (the default CI values).
const defaults = helmAvailable() ? render(['ci/default-values.yaml']) : [];
const deployments = byKind(ha, 'Deployment');
// A Deployment of the chart names its replicas, or its HorizontalPodAutoscaler does.
const replicasOf = (objs: K8sObject[], d: K8sObject): number =>
  (d.spec!.replicas ??
    byKind(objs, 'HorizontalPodAutoscaler').find((h) => h.spec!.scaleTargetRef!.name === d.metadata.name)?.spec!
      .minReplicas)!;

beforeAll(() => {
  if (!helmAvailable()) throw new Error('helm is not built: run scripts/tools.sh helm');
});

test('every Deployment of the HA chart is a workload of the HA topology, with the same containers', () => {
  expect(deployments.map((d) => component(d)).sort()).toEqual(Object.keys(HA_WORKLOADS).sort());
  for (const d of deployments) {
    const w = component(d) as Workload;
    expect({ w, containers: (podSpecOf(d)!.containers as Array<{ name: string }>).map((c) => c.name).sort() }).toEqual({
      w,
      containers: [...HA_WORKLOADS[w].containers].sort(),
    });
  }
});

test("each workload's containers get the chart's termination grace when the topology stops them", () => {
  for (const d of deployments) {
    const w = component(d) as Workload;
    expect({ w, grace: podSpecOf(d)!.terminationGracePeriodSeconds }).toEqual({
      w,
      grace: HA_WORKLOADS[w].terminationGraceSeconds,
    });
  }
});

test('the chart runs no other programs than the topology (one-shots: the retention CronJob and the hook Jobs)', () => {
  const oneShots = [...byKind(ha, 'CronJob'), ...byKind(ha, 'Job')].map((o) => component(o) ?? o.metadata.name).sort();
  expect(oneShots).toEqual(Object.keys(ONE_SHOTS).sort());
  expect(byKind(ha, 'StatefulSet')).toEqual([]); // the HA values use external MongoDB and NATS, no bundled ones
});

test('replicas, disruption budgets and anti-affinity: several replicas of every workload on both sides', () => {
  for (const d of deployments) {
    const w = component(d) as Workload;
    const chartReplicas = replicasOf(ha, d);
    expect({ w, several: chartReplicas >= 2 && HA_WORKLOADS[w].replicas >= 2 }).toEqual({ w, several: true });
    expect(HA_WORKLOADS[w].replicas).toBeLessThanOrEqual(chartReplicas);
    // The topology runs the chart's default replica count (the HA values raise it to 3 for zone spreading).
    const byDefault = byKind(defaults, 'Deployment').find((x) => component(x) === w)!;
    expect({ w, replicas: HA_WORKLOADS[w].replicas }).toEqual({ w, replicas: replicasOf(defaults, byDefault) });
    const pdb = byKind(ha, 'PodDisruptionBudget').find((p) => component(p) === w);
    expect({ w, pdb: Boolean(pdb) }).toEqual({ w, pdb: true });
    const required = podSpecOf(d)!.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    expect({
      w,
      hostname: required.some((t: { topologyKey: string }) => t.topologyKey === 'kubernetes.io/hostname'),
    }).toEqual({ w, hostname: true });
  }
});

test('NATS_URL lists as many servers as the topology cluster has nodes; the stream settings are HA_STREAM everywhere', () => {
  for (const d of deployments) {
    for (const c of podSpecOf(d)!.containers as Array<{ name: string }>) {
      const url = env(d, c.name).NATS_URL;
      if (url === undefined) continue;
      expect({ container: c.name, servers: url.split(',').length }).toEqual({
        container: c.name,
        servers: NATS_CLUSTER_SIZE,
      });
    }
  }
  const job = byKind(ha, 'Job').find((j) => component(j) === 'nats-stream')!;
  const jobEnv = env(job, 'nats-stream');
  expect(jobEnv.NATS_URL?.split(',')).toHaveLength(NATS_CLUSTER_SIZE);
  const stream = {
    replicas: Number(jobEnv.AUDIT_STREAM_REPLICAS),
    duplicateWindowSeconds: Number(jobEnv.AUDIT_DUPLICATE_WINDOW_SECONDS),
    maxAgeSeconds: Number(jobEnv.AUDIT_STREAM_MAX_AGE_SECONDS),
  };
  expect(stream).toEqual(HA_STREAM);
  const writer = env(
    deployments.find((d) => component(d) === 'audit-writer')!,
    'audit-writer',
  );
  expect({
    replicas: Number(writer.AUDIT_STREAM_REPLICAS),
    duplicateWindowSeconds: Number(writer.AUDIT_DUPLICATE_WINDOW_SECONDS),
    maxAgeSeconds: Number(writer.AUDIT_STREAM_MAX_AGE_SECONDS),
  }).toEqual(HA_STREAM);
  expect(
    Number(
      env(
        deployments.find((d) => component(d) === 'signals')!,
        'signals',
      ).SSF_STREAM_REPLICAS,
    ),
  ).toBe(HA_STREAM.replicas);
  // The sidecar's IDP_SINGLE_USE stream (each actor token's jti, so a proof is accepted once).
  expect(
    Number(
      env(
        deployments.find((d) => component(d) === 'oidc')!,
        'nhe-delegation',
      ).ACTOR_JTI_STREAM_REPLICAS,
    ),
  ).toBe(HA_STREAM.replicas);
});
