/**
 * charts/idp, checked as far as a machine without a cluster allows: `helm lint` and `helm template` for every
 * ci/ value set (and the skaffold dev values), every rendered object validated against the Kubernetes API schemas
 * (kubernetes-models), and the rules read from the rendered objects: container security, probes, the sidecar's
 * loopback binding and shared secret, each container's env against its service's config schema, RBAC, NetworkPolicy,
 * the retention CronJob, the MongoDB roles, secrets, validate.yaml, the values schema and NOTES.txt.
 * helm is .tools/bin/helm, built by `scripts/tools.sh helm` (scripts/test.sh runs it first).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { configSchema as auditRetentionSchema } from '../../../services/audit-retention/src/config';
import { configSchema as auditWriterSchema } from '../../../services/audit-writer/src/config';
import { configSchema as managementSchema } from '../../../services/management/src/config';
import { configSchema as signalsSchema } from '../../../services/signals/src/config';
import { configSchema as nheDelegationSchema } from '../../../services/nhe-delegation/src/config';
import { configSchema as oidcCoreSchema } from '../../../services/oidc-core/src/config';
import { loadConfig } from '@idp/config';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import {
  byKind,
  chartDir,
  component,
  helm,
  helmAvailable,
  helmBin,
  isHook,
  K8sObject,
  podLabelsOf,
  podSpecOf,
  render,
  renderNotes,
  repoRoot,
  selects,
} from './render';

/** Loads the chart's and the scripts' CommonJS files (plain JavaScript outside the TypeScript project) by path. */
const loadCommonJs = createRequire(__filename);

if (!helmAvailable())
  throw new Error(`${helmBin} is missing: run \`bash scripts/tools.sh helm\` (scripts/test.sh does)`);

const CI_SETS = readdirSync(join(chartDir, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();
const DEV_SETS: Record<string, string[]> = {
  'skaffold dev': ['dev/dev-values.yaml'],
  'skaffold -p local-cluster': ['dev/dev-values.yaml', 'dev/local-cluster-values.yaml'],
};
const VALUE_SETS: Record<string, string[]> = {
  ...Object.fromEntries(CI_SETS.map((f) => [f, [`ci/${f}`]])),
  ...DEV_SETS,
};
const rendered = new Map<string, K8sObject[]>();
const objectsOf = (set: string) => {
  if (!rendered.has(set)) rendered.set(set, render(VALUE_SETS[set]));
  return rendered.get(set) as K8sObject[];
};

/** Which service's config schema a container of the chart runs (image target = service). */
const SERVICE_SCHEMAS = {
  'oidc-core': oidcCoreSchema,
  'nhe-delegation': nheDelegationSchema,
  management: managementSchema,
  'audit-writer': auditWriterSchema,
  'audit-retention': auditRetentionSchema,
  signals: signalsSchema,
} as const;
type ServiceName = keyof typeof SERVICE_SCHEMAS;
/** Env the chart sets that no service reads directly: parts Kubernetes composes into MONGODB_URI / NATS_URL. */
const COMPOSITION_ENV = new Set(['MONGODB_USERNAME', 'MONGODB_PASSWORD', 'NATS_USER', 'NATS_PASSWORD']);

const serviceOfImage = (image: string): ServiceName | undefined =>
  (Object.keys(SERVICE_SCHEMAS) as ServiceName[]).find(
    (s) => new RegExp(`(^|/)idp/${s}[:@]`).test(image) || new RegExp(`(^|/)${s}[:@]`).test(image),
  );

// ---------------------------------------------------------------------------------------------------------------

describe('helm lint and helm template', () => {
  it('finds the three ci/ value sets', () => {
    expect(CI_SETS).toEqual(['default-values.yaml', 'external-secrets-values.yaml', 'ha-values.yaml']);
  });

  it.each(Object.keys(VALUE_SETS))('helm lint --strict passes with %s', (set) => {
    const out = helm(['lint', chartDir, '--strict', ...VALUE_SETS[set].flatMap((f) => ['-f', join(chartDir, f)])]);
    expect(out).toMatch(/1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it.each(Object.keys(VALUE_SETS))('helm template renders every component with %s', (set) => {
    const objs = objectsOf(set);
    const has = (kind: string, c: string) => objs.some((o) => o.kind === kind && component(o) === c);
    const expected: Array<[string, string]> = [
      ['Deployment', 'oidc'],
      ['Service', 'oidc'],
      ['ServiceAccount', 'oidc'],
      ['Deployment', 'management'],
      ['Service', 'management'],
      ['ServiceAccount', 'management'],
      ['Role', 'management'],
      ['RoleBinding', 'management'],
      ['Deployment', 'audit-writer'],
      ['ServiceAccount', 'audit-writer'],
      ['Deployment', 'signals'],
      ['Service', 'signals'],
      ['ServiceAccount', 'signals'],
      ['CronJob', 'audit-retention'],
      ['ServiceAccount', 'audit-retention'],
      ['Ingress', 'ingress'],
      ['Job', 'nats-stream'],
      ['Pod', 'test'],
    ];
    if (!set.startsWith('skaffold')) {
      // The dev values turn budgets off (one replica); the local-cluster profile turns NetworkPolicies off.
      for (const c of ['oidc', 'management', 'audit-writer', 'signals'])
        expected.push(['PodDisruptionBudget', c], ['NetworkPolicy', c]);
      expected.push(['NetworkPolicy', 'audit-retention']);
    }
    expect(expected.filter(([k, c]) => !has(k, c)).map(([k, c]) => `${k} of ${c} missing`)).toEqual([]);
  });
});

describe('Kubernetes API schemas (kubernetes-models)', () => {
  /** The kubernetes-models class of an object, e.g. apps/v1 Deployment -> kubernetes-models/apps/v1/Deployment. */
  const modelOf = (o: K8sObject): new (data: unknown) => { validate(): void } => {
    const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
    const mod = loadCommonJs(`kubernetes-models/${group ? `${group}/` : ''}${version}/${o.kind}`) as Record<
      string,
      new (data: unknown) => { validate(): void }
    >;
    return mod[o.kind];
  };

  it('the validator rejects a malformed object (so a pass below means something)', () => {
    const Deployment = modelOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' } });
    expect(() =>
      new Deployment({ metadata: { name: 'x' }, spec: { replicas: 'two', selector: {}, template: {} } }).validate(),
    ).toThrow(/replicas/);
  });

  it.each(Object.keys(VALUE_SETS))('every object rendered with %s is valid', (set) => {
    const problems: string[] = [];
    for (const o of objectsOf(set)) {
      try {
        new (modelOf(o))(o).validate();
      } catch (err) {
        problems.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each(Object.keys(VALUE_SETS))('%s: only current API versions, every object labelled with its component', (set) => {
    const allowed = new Set([
      'v1',
      'apps/v1',
      'batch/v1',
      'policy/v1',
      'autoscaling/v2',
      'networking.k8s.io/v1',
      'rbac.authorization.k8s.io/v1',
    ]);
    for (const o of objectsOf(set)) {
      expect([o.kind, o.apiVersion, allowed.has(o.apiVersion)]).toEqual([o.kind, o.apiVersion, true]);
      expect([o.kind, o.metadata.name, typeof component(o)]).toEqual([o.kind, o.metadata.name, 'string']);
    }
  });
});

describe.each(Object.keys(VALUE_SETS))('containers (%s)', (set) => {
  const workloads = () => objectsOf(set).filter((o) => podSpecOf(o));
  const containersOf = (o: K8sObject): IContainer[] => [
    ...(podSpecOf(o)!.initContainers ?? []),
    ...podSpecOf(o)!.containers,
  ];

  it('run non-root with a read-only root filesystem, no privilege escalation, no capabilities, seccomp RuntimeDefault', () => {
    const problems: string[] = [];
    for (const o of workloads()) {
      const pod = podSpecOf(o)!.securityContext ?? {};
      for (const c of containersOf(o)) {
        const sc = c.securityContext ?? {};
        const where = `${o.kind}/${o.metadata.name}/${c.name}`;
        if ((sc.runAsNonRoot ?? pod.runAsNonRoot) !== true) problems.push(`${where}: runAsNonRoot`);
        if ((sc.runAsUser ?? pod.runAsUser) === 0) problems.push(`${where}: runAsUser 0`);
        if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem`);
        if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation`);
        if (sc.privileged === true) problems.push(`${where}: privileged`);
        if (!(sc.capabilities?.drop ?? []).includes('ALL') || (sc.capabilities?.add ?? []).length)
          problems.push(`${where}: capabilities`);
        if ((sc.seccompProfile ?? pod.seccompProfile)?.type !== 'RuntimeDefault')
          problems.push(`${where}: seccompProfile`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("use the chart's service images or third-party images pinned to a full version or digest", () => {
    for (const o of workloads()) {
      for (const c of containersOf(o)) {
        const pinned =
          serviceOfImage(c.image ?? '') !== undefined ||
          /:\d+\.\d+\.\d+(?:[-.][\w.-]+)?$|@sha256:[a-f0-9]{64}$/.test(c.image ?? '');
        expect([o.metadata.name, c.image, pinned]).toEqual([o.metadata.name, c.image, true]);
      }
    }
  });

  it('have cpu and memory requests and limits', () => {
    const problems: string[] = [];
    for (const o of workloads()) {
      for (const c of containersOf(o)) {
        for (const kind of ['requests', 'limits'] as const)
          for (const r of ['cpu', 'memory'])
            if (!c.resources?.[kind]?.[r]) problems.push(`${o.metadata.name}/${c.name}: no ${kind}.${r}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('of long-running pods have startup, liveness and readiness probes; the services probe /healthz and /readyz', () => {
    const problems: string[] = [];
    for (const o of workloads().filter((w) => w.kind === 'Deployment' || w.kind === 'StatefulSet')) {
      for (const c of podSpecOf(o)!.containers) {
        for (const p of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const)
          if (!c[p]) problems.push(`${o.metadata.name}/${c.name}: no ${p}`);
        if (!serviceOfImage(c.image ?? '')) continue;
        // httpGet on the pod's port, or (the loopback-bound sidecar) node fetching 127.0.0.1 inside the container.
        const target = (probe: IProbe | undefined) =>
          probe?.httpGet?.path ??
          /fetch\('http:\/\/127\.0\.0\.1:\d+(\/\w+)'\)/.exec(probe?.exec?.command?.join(' ') ?? '')?.[1];
        if (target(c.livenessProbe) !== '/healthz')
          problems.push(`${o.metadata.name}/${c.name}: liveness is not /healthz`);
        if (target(c.startupProbe) !== '/healthz')
          problems.push(`${o.metadata.name}/${c.name}: startup is not /healthz`);
        if (target(c.readinessProbe) !== '/readyz')
          problems.push(`${o.metadata.name}/${c.name}: readiness is not /readyz`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("set env that each service's own config schema accepts, and no key it does not know", () => {
    const dir = mkdtempSync(join(tmpdir(), 'idp-chart-env-'));
    const problems: string[] = [];
    try {
      for (const o of workloads()) {
        for (const c of podSpecOf(o)!.containers) {
          const service = serviceOfImage(c.image ?? '');
          // Hook jobs and test pods run other scripts with a service image; only the services' own entry counts.
          if (!service || c.command) continue;
          const env: Record<string, string> = {};
          for (const e of c.env ?? []) {
            let value: string;
            if (e.valueFrom?.secretKeyRef) value = `${e.valueFrom.secretKeyRef.key}-${'s'.repeat(40)}`;
            else if (e.valueFrom?.fieldRef) value = 'idp';
            else
              value = String(e.value ?? '').replace(
                /\$\(([A-Z_][A-Z0-9_]*)\)/g,
                (whole: string, name: string) => env[name] ?? whole,
              );
            env[e.name] = value;
          }
          // Secret files mounted by the pod: give each one a dummy value of the right length.
          for (const [key, path] of Object.entries(env)) {
            if (!key.endsWith('_FILE')) continue;
            const file = join(dir, path.replace(/\//g, '_'));
            writeFileSync(file, key.startsWith('COOKIE_KEYS') ? `${'c'.repeat(40)},${'d'.repeat(40)}` : 'k'.repeat(48));
            env[key] = file;
          }
          const schema = SERVICE_SCHEMAS[service];
          const known = new Set(Object.keys(schema.shape));
          for (const key of Object.keys(env)) {
            const base = key.endsWith('_FILE') ? key.slice(0, -5) : key;
            if (known.has(base) || COMPOSITION_ENV.has(key)) continue;
            problems.push(`${o.metadata.name}/${c.name}: ${key} is not a key of services/${service}/src/config.ts`);
          }
          try {
            loadConfig(schema, env);
          } catch (err) {
            problems.push(`${o.metadata.name}/${c.name}: ${(err as Error).message}`);
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(problems).toEqual([]);
  });

  it('of serving pods spread across nodes (topologySpreadConstraints on kubernetes.io/hostname)', () => {
    if (set.startsWith('skaffold')) return; // the dev values turn spreading off for one-node clusters
    for (const o of byKind(objectsOf(set), 'Deployment')) {
      const constraints = podSpecOf(o)!.topologySpreadConstraints ?? [];
      const host = constraints.find((t) => t.topologyKey === 'kubernetes.io/hostname');
      expect([o.metadata.name, Boolean(host)]).toEqual([o.metadata.name, true]);
      expect(selects(host?.labelSelector, podLabelsOf(o))).toBe(true);
    }
  });
});

describe('the oidc pod: oidc-core and the nhe-delegation sidecar', () => {
  const deployment = () =>
    byKind(objectsOf('default-values.yaml'), 'Deployment').find((d) => component(d) === 'oidc') as K8sObject;
  const container = (name: string) => podSpecOf(deployment())!.containers.find((c) => c.name === name)!;
  const envOf = (c: IContainer) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

  it('binds the sidecar to 127.0.0.1 and exposes no sidecar port, and oidc-core calls it on loopback', () => {
    const sidecar = container('nhe-delegation');
    const core = container('oidc-core');
    expect(sidecar.image).toMatch(/nhe-delegation/);
    expect(envOf(sidecar).HOST).toBe('127.0.0.1');
    expect(sidecar.ports ?? []).toEqual([]);
    const url = new URL(envOf(core).SIDECAR_URL!);
    expect([url.hostname, url.port]).toEqual(['127.0.0.1', envOf(sidecar).PORT]);
    // The Service reaches oidc-core's port only.
    const service = byKind(objectsOf('default-values.yaml'), 'Service').find(
      (s) => component(s) === 'oidc',
    ) as K8sObject;
    expect(service.spec!.ports!.map((p) => p.targetPort)).toEqual(['http']);
    expect(core.ports?.map((p) => p.name)).toEqual(['http']);
  });

  it('gives both containers the same shared secret (one Secret key, mounted from one volume)', () => {
    const files = ['oidc-core', 'nhe-delegation'].map((n) => envOf(container(n)).SIDECAR_SECRET_FILE as string);
    expect(files[0]).toBe(files[1]);
    const mountOf = (c: IContainer) => c.volumeMounts!.find((m) => files[0].startsWith(`${m.mountPath}/`))!;
    expect(mountOf(container('oidc-core')).name).toBe(mountOf(container('nhe-delegation')).name);
    const volume = podSpecOf(deployment())!.volumes!.find((v) => v.name === mountOf(container('oidc-core')).name);
    expect(volume?.secret?.items).toContainEqual({ key: 'sidecar-secret', path: files[0].split('/').pop() });
  });

  it('mounts no service account token', () => {
    expect(podSpecOf(deployment())!.automountServiceAccountToken).toBe(false);
  });

  it('scales with an HPA in the ha set (no fixed replicas then), and a fixed count by default', () => {
    const ha = objectsOf('ha-values.yaml');
    const hpa = byKind(ha, 'HorizontalPodAutoscaler')[0];
    const oidc = byKind(ha, 'Deployment').find((d) => component(d) === 'oidc') as K8sObject;
    expect(hpa.spec!.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: oidc.metadata.name });
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(3);
    expect(oidc.spec!.replicas).toBeUndefined();
    expect(byKind(objectsOf('default-values.yaml'), 'HorizontalPodAutoscaler')).toEqual([]);
    expect(deployment().spec!.replicas).toBe(2);
  });
});

describe('high availability (ci/ha-values.yaml)', () => {
  const ha = () => objectsOf('ha-values.yaml');

  it('runs 3 replicas of each Deployment with hard anti-affinity and zone spreading', () => {
    for (const d of byKind(ha(), 'Deployment')) {
      const spec = podSpecOf(d)!;
      expect([
        d.metadata.name,
        spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.at(0)?.topologyKey,
      ]).toEqual([d.metadata.name, 'kubernetes.io/hostname']);
      expect(spec.topologySpreadConstraints?.map((t) => t.topologyKey)).toEqual([
        'kubernetes.io/hostname',
        'topology.kubernetes.io/zone',
      ]);
    }
    expect(
      byKind(ha(), 'Deployment')
        .filter((d) => component(d) !== 'oidc')
        .map((d) => d.spec!.replicas),
    ).toEqual([3, 3, 3]);
  });

  it('replicates the audit stream 3 times (hook job and writer agree)', () => {
    const job = byKind(ha(), 'Job').find((j) => component(j) === 'nats-stream') as K8sObject;
    const writer = byKind(ha(), 'Deployment').find((d) => component(d) === 'audit-writer') as K8sObject;
    const replicas = (o: K8sObject) =>
      podSpecOf(o)!.containers[0].env?.find((e) => e.name === 'AUDIT_STREAM_REPLICAS')?.value;
    expect([replicas(job), replicas(writer)]).toEqual(['3', '3']);
  });

  it('has PodDisruptionBudgets selecting each Deployment', () => {
    const pdbs = byKind(ha(), 'PodDisruptionBudget');
    for (const d of byKind(ha(), 'Deployment'))
      expect([d.metadata.name, pdbs.some((p) => selects(p.spec!.selector, podLabelsOf(d)))]).toEqual([
        d.metadata.name,
        true,
      ]);
  });
});

describe('RBAC', () => {
  it.each(Object.keys(VALUE_SETS))(
    '%s: one Role, management may only get/patch the retention CronJob and create Jobs',
    (set) => {
      const objs = objectsOf(set);
      expect(objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding')).toEqual([]);
      const roles = byKind(objs, 'Role');
      expect(roles.map(component)).toEqual(['management']);
      expect(roles[0].rules).toEqual([
        {
          apiGroups: ['batch'],
          resources: ['cronjobs'],
          resourceNames: ['nhe-audit-retention'],
          verbs: ['get', 'patch'],
        },
        { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] },
      ]);
      const binding = byKind(objs, 'RoleBinding')[0];
      const managementSa = (byKind(objs, 'Deployment').find((d) => component(d) === 'management') as K8sObject).spec!
        .template!.spec.serviceAccountName;
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: roles[0].metadata.name,
      });
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: managementSa, namespace: 'idp' }]);
    },
  );

  it('management is told to drive that CronJob in its own namespace', () => {
    const objs = objectsOf('default-values.yaml');
    const m = byKind(objs, 'Deployment').find((d) => component(d) === 'management') as K8sObject;
    const env = Object.fromEntries(podSpecOf(m)!.containers[0].env!.map((e) => [e.name, e.value ?? e.valueFrom]));
    expect(env.JOBS_BACKEND).toBe('kubernetes');
    expect(env.JOBS_K8S_NAMESPACE).toEqual({ fieldRef: { fieldPath: 'metadata.namespace' } });
    expect(env.JOBS_K8S_CRONJOB_NAME).toBe(byKind(objs, 'CronJob')[0].metadata.name);
  });

  it('only management mounts a service account token; every workload has its own ServiceAccount', () => {
    const objs = objectsOf('default-values.yaml');
    const mounting = objs
      .filter((o) => podSpecOf(o) && podSpecOf(o)!.automountServiceAccountToken !== false)
      .map(component);
    expect(mounting).toEqual(['management']);
    const accounts = ['oidc', 'management', 'audit-writer', 'audit-retention'].map(
      (c) =>
        podSpecOf(objs.find((o) => podSpecOf(o) && component(o) === c && !isHook(o)) as K8sObject)!.serviceAccountName,
    );
    expect(new Set(accounts).size).toBe(4);
    for (const sa of accounts) expect(byKind(objs, 'ServiceAccount').map((s) => s.metadata.name)).toContain(sa);
  });
});

describe('the retention CronJob', () => {
  const cron = () => byKind(objectsOf('default-values.yaml'), 'CronJob')[0];

  it('is nhe-audit-retention, Forbid, with history limits and its own ServiceAccount', () => {
    const c = cron();
    expect(c.metadata.name).toBe('nhe-audit-retention');
    expect(c.spec!.concurrencyPolicy).toBe('Forbid');
    expect(c.spec!.successfulJobsHistoryLimit).toBeGreaterThan(0);
    expect(c.spec!.failedJobsHistoryLimit).toBeGreaterThan(0);
    const sa = podSpecOf(c)!.serviceAccountName;
    expect(sa).toMatch(/audit-retention$/);
    expect(
      byKind(objectsOf('default-values.yaml'), 'RoleBinding').flatMap((b) => b.subjects!.map((s) => s.name)),
    ).not.toContain(sa);
  });

  it('passes no flags by default, so the job reads its customOptions.batchSize; --batch-size and --limit only when set', () => {
    expect(podSpecOf(cron())!.containers[0].args).toBeUndefined();
    const limited = byKind(render(['ci/default-values.yaml'], ['auditRetention.limit=500']), 'CronJob')[0];
    expect(podSpecOf(limited)!.containers[0].args).toEqual(['--limit=500']);
    const both = byKind(
      render(['ci/default-values.yaml'], ['auditRetention.limit=500', 'auditRetention.batchSize=250']),
      'CronJob',
    )[0];
    expect(podSpecOf(both)!.containers[0].args).toEqual(['--batch-size=250', '--limit=500']);
  });
});

describe('NetworkPolicy', () => {
  /** A NetworkPolicy as the chart renders it: the members these tests read. */
  interface RenderedPolicy {
    spec: {
      ingress?: Array<{ ports?: unknown[]; from?: unknown[] }>;
      egress: Array<{
        ports?: Array<{ port: number | string }>;
        to?: Array<{ podSelector?: { matchLabels?: Record<string, string> }; ipBlock?: { except?: string[] } }>;
      }>;
    };
  }
  const policyFor = (objs: K8sObject[], c: string) =>
    byKind(objs, 'NetworkPolicy').find((p) =>
      selects(
        p.spec!.podSelector,
        podLabelsOf(objs.find((o) => podSpecOf(o) && component(o) === c && !isHook(o)) as K8sObject),
      ),
    ) as unknown as RenderedPolicy; // the component's policy as rendered (a missing one fails the test that reads it)
  const egressPorts = (p: RenderedPolicy) =>
    new Set(p.spec.egress.flatMap((r) => (r.ports ?? [{ port: 'ANY' }]).map((x) => x.port)));

  it.each(['default-values.yaml', 'ha-values.yaml', 'external-secrets-values.yaml'])(
    '%s: every workload is selected by a default-deny policy (Ingress and Egress)',
    (set) => {
      const objs = objectsOf(set);
      for (const o of objs.filter((w) => podSpecOf(w) && !isHook(w))) {
        const p = byKind(objs, 'NetworkPolicy').find((np) => selects(np.spec!.podSelector, podLabelsOf(o)));
        expect([o.metadata.name, p?.spec!.policyTypes]).toEqual([o.metadata.name, ['Ingress', 'Egress']]);
        // No egress rule without ports: each rule opens named ports only.
        for (const rule of p?.spec!.egress ?? [])
          expect([o.metadata.name, Array.isArray(rule.ports) && rule.ports.length > 0]).toEqual([
            o.metadata.name,
            true,
          ]);
      }
    },
  );

  it('oidc and management accept their http port only, from the ingress controller and the release test pods', () => {
    const objs = objectsOf('default-values.yaml');
    const clientLabel = { 'idp-client': 'true' };
    for (const c of ['oidc', 'management']) {
      const p = policyFor(objs, c);
      expect(p.spec.ingress).toHaveLength(1);
      expect(p.spec.ingress?.[0].ports).toEqual([{ protocol: 'TCP', port: 'http' }]);
      expect(p.spec.ingress?.[0].from).toEqual([
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
        { podSelector: { matchLabels: clientLabel } },
      ]);
    }
    for (const test of byKind(objs, 'Pod')) expect(test.metadata.labels).toMatchObject(clientLabel);
  });

  it('audit-writer and audit-retention accept no traffic', () => {
    const objs = objectsOf('default-values.yaml');
    for (const c of ['audit-writer', 'audit-retention'])
      expect([c, policyFor(objs, c).spec.ingress ?? []]).toEqual([c, []]);
  });

  it('egress: DNS and MongoDB for all; NATS for the oidc pod, management and audit-writer; HTTPS for oidc; the API server for management; nothing else', () => {
    const objs = objectsOf('default-values.yaml');
    expect(egressPorts(policyFor(objs, 'oidc'))).toEqual(new Set([53, 27017, 4222, 443]));
    expect(egressPorts(policyFor(objs, 'management'))).toEqual(new Set([53, 27017, 4222, 443, 6443]));
    expect(egressPorts(policyFor(objs, 'audit-writer'))).toEqual(new Set([53, 27017, 4222]));
    expect(egressPorts(policyFor(objs, 'audit-retention'))).toEqual(new Set([53, 27017]));
    // signals pushes SETs to receivers on 443, public addresses only by default (the service refuses private ones too).
    expect(egressPorts(policyFor(objs, 'signals'))).toEqual(new Set([53, 27017, 4222, 443]));
    const push = policyFor(objs, 'signals').spec.egress.find((r) => r.ports!.some((x) => x.port === 443));
    expect(push!.to![0].ipBlock!.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '169.254.0.0/16']));
  });

  it('narrows MongoDB and NATS egress to the given peers (ha) or to the bundled pods (local cluster)', () => {
    const ha = policyFor(objectsOf('ha-values.yaml'), 'audit-writer');
    const ruleFor = (p: RenderedPolicy, port: number) =>
      p.spec.egress.find((r) => r.ports!.some((x) => x.port === port))!;
    expect(ruleFor(ha, 27017).to).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'data' } } },
    ]);
    expect(ruleFor(ha, 4222).to).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'nats' } } },
    ]);
    const bundled = render(['dev/dev-values.yaml', 'dev/local-cluster-values.yaml'], ['networkPolicy.enabled=true']);
    const mongo = bundled.find((o) => o.kind === 'StatefulSet' && component(o) === 'mongodb') as K8sObject;
    expect(selects(ruleFor(policyFor(bundled, 'audit-writer'), 27017).to![0].podSelector, podLabelsOf(mongo))).toBe(
      true,
    );
  });
});

describe('MongoDB roles and users', () => {
  const roles = JSON.parse(readFileSync(join(chartDir, 'files', 'mongo-roles.json'), 'utf8')) as {
    auditCollections: string[];
    roles: Record<string, { name: string; privileges: Array<{ collections: string[]; actions: string[] }> }>;
  };
  const AUDIT = 'nhe_token_audit';
  const DATA_ACTIONS = new Set(['find', 'insert', 'update', 'remove']);
  /** Data actions (row access) a component has on a collection. */
  const dataActions = (c: string, collection: string) =>
    roles.roles[c].privileges
      .filter((p) => p.collections.includes(collection))
      .flatMap((p) => p.actions.filter((a) => DATA_ACTIONS.has(a)))
      .sort();

  it('give the audit collection: oidc find (the user ledger reads its own rows), audit-writer insert+find, management find, audit-retention find+remove', () => {
    expect(dataActions('oidc', AUDIT)).toEqual(['find']);
    expect(dataActions('auditWriter', AUDIT)).toEqual(['find', 'insert']);
    expect(dataActions('management', AUDIT)).toEqual(['find']);
    expect(dataActions('auditRetention', AUDIT)).toEqual(['find', 'remove']);
    // Nothing else of the audit for the oidc pod: no write on the rows, nothing on the retention anchors.
    for (const audit of roles.auditCollections)
      expect([audit, dataActions('oidc', audit)]).toEqual([audit, audit === AUDIT ? ['find'] : []]);
  });

  it('use only data actions and index creation (no user, role or database administration)', () => {
    const allowed = new Set([...DATA_ACTIONS, 'createCollection', 'createIndex']);
    for (const role of Object.values(roles.roles))
      for (const p of role.privileges)
        for (const a of p.actions) expect([role.name, a, allowed.has(a)]).toEqual([role.name, a, true]);
  });

  it("give management index creation on every collection of libs/db (its start syncs every model's indexes)", () => {
    const modelsDir = join(repoRoot, 'libs', 'db', 'src', 'models');
    const declared = new Set(
      readdirSync(modelsDir)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
        .flatMap((f) =>
          [...readFileSync(join(modelsDir, f), 'utf8').matchAll(/collection: '([a-z_]+)'/g)].map((m) => m[1]!),
        ),
    );
    const indexed = new Set(
      roles.roles.management!.privileges.filter((p) => p.actions.includes('createIndex')).flatMap((p) => p.collections),
    );
    expect([...declared].filter((c) => !indexed.has(c))).toEqual([]);
  });

  it('cover exactly the collections libs/db and libs/events declare', () => {
    // Every model file of libs/db (schemas.ts and the ones beside it: upstream providers, trusted issuers, ...).
    const modelsDir = join(repoRoot, 'libs', 'db', 'src', 'models');
    const sources = readdirSync(modelsDir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => readFileSync(join(modelsDir, f), 'utf8'))
      .join('\n');
    const declared = new Set([...sources.matchAll(/collection: '([a-z_]+)'/g)].map((m) => m[1]));
    const revocations = /REVOCATION_COLLECTION = '([a-z_]+)'/.exec(
      readFileSync(join(repoRoot, 'libs', 'events', 'src', 'revocations.ts'), 'utf8'),
    )?.[1];
    if (revocations) declared.add(revocations);
    // The Shared Signals transmitter's own collections (services/signals/src/store/collections.ts).
    for (const m of readFileSync(
      join(repoRoot, 'services', 'signals', 'src', 'store', 'collections.ts'),
      'utf8',
    ).matchAll(/_COLLECTION = '([a-z_]+)'/g))
      declared.add(m[1]);
    const granted = new Set(Object.values(roles.roles).flatMap((r) => r.privileges.flatMap((p) => p.collections)));
    expect([...granted].filter((c) => !declared.has(c)).map((c) => `${c}: granted but declared nowhere`)).toEqual([]);
    expect(
      [...declared]
        .filter((c) => !granted.has(c))
        .map((c) => `${c}: declared in libs but in no role of charts/idp/files/mongo-roles.json`),
    ).toEqual([]);
  });

  it('the setup script turns the file into per-collection privileges and reads the env the hook job sets', () => {
    const setup = loadCommonJs(join(chartDir, 'files', 'mongo-setup.js')) as {
      envSuffix(c: string): string;
      privilegesFor(r: unknown, db: string): unknown[];
    };
    expect(setup.privilegesFor(roles.roles.auditWriter, 'idp')).toEqual([
      {
        resource: { db: 'idp', collection: 'nhe_token_audit' },
        actions: ['find', 'insert', 'createCollection', 'createIndex'],
      },
      { resource: { db: 'idp', collection: 'nhe_token_audit_anchors' }, actions: ['find'] },
      // The per-tenant chain head counter (detects rows deleted from the newest end).
      { resource: { db: 'idp', collection: 'counters' }, actions: ['find', 'insert', 'update'] },
      // The decision log's refusals: hourly counters and the ids counted (released again when a count fails).
      ...['nhe_token_refusal_counters', 'nhe_token_refusal_events'].map((collection) => ({
        resource: { db: 'idp', collection },
        actions: ['find', 'insert', 'update', 'remove', 'createCollection', 'createIndex'],
      })),
    ]);
    const job = byKind(objectsOf('default-values.yaml'), 'Job').find(
      (j) => component(j) === 'mongo-users',
    ) as K8sObject;
    const env = new Set(podSpecOf(job)!.containers[0].env!.map((e) => e.name));
    for (const c of Object.keys(roles.roles)) {
      expect([
        c,
        env.has(`MONGODB_USER_${setup.envSuffix(c)}`),
        env.has(`MONGODB_PASSWORD_${setup.envSuffix(c)}`),
      ]).toEqual([c, true, true]);
    }
    for (const k of ['MONGODB_ADMIN_URI', 'MONGODB_DATABASE', 'ROLES_FILE']) expect(env.has(k)).toBe(true);
  });

  it('each service connects as the user of its own role (the URI carries that user)', () => {
    const objs = objectsOf('default-values.yaml');
    const userOf = (c: string) => {
      const w = objs.find((o) => podSpecOf(o) && component(o) === c && !isHook(o)) as K8sObject;
      return podSpecOf(w)!.containers.map((ct) => ct.env!.find((e) => e.name === 'MONGODB_USERNAME')!.value);
    };
    expect(userOf('oidc')).toEqual(['idp-oidc', 'idp-oidc']);
    expect(userOf('management')).toEqual(['idp-management']);
    expect(userOf('audit-writer')).toEqual(['idp-audit-writer']);
    expect(userOf('audit-retention')).toEqual(['idp-audit-retention']);
    expect(userOf('signals')).toEqual(['idp-signals']);
  });

  it('hook jobs run before install/upgrade with external dependencies and after install with bundled ones', () => {
    const hooks = (objs: K8sObject[]) =>
      Object.fromEntries(byKind(objs, 'Job').map((j) => [component(j), j.metadata.annotations?.['helm.sh/hook']]));
    expect(hooks(objectsOf('default-values.yaml'))).toEqual({
      'mongo-users': 'pre-install,pre-upgrade',
      'nats-stream': 'pre-install,pre-upgrade',
    });
    expect(hooks(objectsOf('skaffold -p local-cluster'))).toEqual({
      'mongo-users': 'post-install,post-upgrade',
      'nats-stream': 'post-install,post-upgrade',
    });
    expect(hooks(objectsOf('external-secrets-values.yaml'))).toEqual({ 'nats-stream': 'pre-install,pre-upgrade' });
  });
});

describe('secrets', () => {
  const secretsOf = (objs: K8sObject[]) =>
    byKind(objs, 'Secret')
      .map((s) => s.metadata.name)
      .sort();

  it('are generated once and kept (resource-policy keep, values read back with lookup) when no existingSecret is given', () => {
    const objs = objectsOf('skaffold -p local-cluster');
    expect(secretsOf(objs)).toEqual(['idp-bootstrap-admin', 'idp-keys', 'idp-mongodb', 'idp-nats']);
    for (const s of byKind(objs, 'Secret')) {
      expect([s.metadata.name, s.metadata.annotations?.['helm.sh/resource-policy']]).toEqual([s.metadata.name, 'keep']);
      for (const [k, v] of Object.entries(s.data as Record<string, string>))
        if (k !== 'client-id') expect([k, Buffer.from(v, 'base64').length >= 32]).toEqual([k, true]);
    }
    const template = readFileSync(join(chartDir, 'templates', 'secrets.yaml'), 'utf8');
    const helpers = readFileSync(join(chartDir, 'templates', '_helpers.tpl'), 'utf8');
    // Every generated value goes through the helper that reads the live Secret back (lookup) before inventing one.
    const valueLines = template
      .split('\n')
      .filter((l) => /^\s+(?:[a-z-]+|\{\{ \. \}\}-password): \{\{/.test(l) && !/client-id:|name:/.test(l));
    expect(valueLines.length).toBeGreaterThanOrEqual(7);
    for (const line of valueLines)
      expect([line.trim(), /include "idp\.keptSecretValue"/.test(line)]).toEqual([line.trim(), true]);
    expect(template).not.toMatch(/randAlphaNum|randAscii/);
    expect(helpers).toMatch(/lookup "v1" "Secret" \.ctx\.Release\.Namespace \.secret/);
    // Without a live Secret (helm template has no cluster) each render invents new values.
    const again = byKind(render(DEV_SETS['skaffold -p local-cluster']), 'Secret').find(
      (s) => s.metadata.name === 'idp-keys',
    ) as K8sObject;
    const first = byKind(objs, 'Secret').find((s) => s.metadata.name === 'idp-keys') as K8sObject;
    expect(again.data!['key-encryption-key']).not.toBe(first.data!['key-encryption-key']);
  });

  it('are not generated when every existingSecret is given, and the pods reference the given ones', () => {
    const objs = objectsOf('external-secrets-values.yaml');
    expect(secretsOf(objs)).toEqual([]);
    const referenced = new Set<string>();
    for (const o of objs.filter((w) => podSpecOf(w))) {
      const spec = podSpecOf(o)!;
      for (const v of spec.volumes ?? []) if (v.secret) referenced.add(v.secret.secretName!);
      for (const c of spec.containers)
        for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) referenced.add(e.valueFrom.secretKeyRef.name!);
    }
    expect([...referenced].sort()).toEqual([
      'idp-bootstrap-admin',
      'idp-keys',
      'idp-mongodb-credentials',
      'idp-nats-credentials',
    ]);
  });

  it('never put a secret value into plain env', () => {
    for (const set of Object.keys(VALUE_SETS)) {
      for (const o of objectsOf(set).filter((w) => podSpecOf(w))) {
        for (const c of podSpecOf(o)!.containers) {
          for (const e of c.env ?? []) {
            if (/SECRET|PASSWORD|KEY(S)?$|PEPPER/.test(e.name) && !e.name.endsWith('_FILE'))
              expect([o.metadata.name, e.name, e.value]).toEqual([o.metadata.name, e.name, undefined]);
          }
        }
      }
    }
  });
});

describe('validate.yaml and values.schema.json', () => {
  it('fails early with one message naming every contradictory key', () => {
    let message = '';
    try {
      render(
        ['ci/default-values.yaml'],
        [
          'mongodb.bundled.enabled=true',
          'nats.bundled.enabled=true',
          'nats.stream.replicas=3',
          'oidc.pdb.minAvailable=1',
        ],
      );
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/idp: invalid values:/);
    expect(message.match(/idp: invalid values:/g)).toHaveLength(1);
    for (const key of [
      'mongodb.bundled.enabled=true and mongodb.hosts',
      'nats.bundled.enabled=true and nats.url',
      'nats.stream.replicas=3 with nats.bundled.enabled=true',
      'oidc.pdb.minAvailable and oidc.pdb.maxUnavailable',
    ]) {
      expect(message).toContain(key);
    }
  });

  it('refuses an issuer origin the ingress does not serve, or with a path', () => {
    expect(() => render(['ci/ha-values.yaml'], ['publicBaseUrl=https://other.example.com'])).toThrow(
      /publicBaseUrl host other\.example\.com differs from ingress\.host id\.example\.com/,
    );
    expect(() => render(['ci/ha-values.yaml'], ['publicBaseUrl=https://id.example.com/idp'])).toThrow(
      /publicBaseUrl=https:\/\/id\.example\.com\/idp is not an http\(s\) origin/,
    );
    expect(() => render(['ci/ha-values.yaml'], ['publicBaseUrl=https://id.example.com:8443'])).not.toThrow();
  });

  it('tells what is missing when nothing is configured', () => {
    expect(() => render([])).toThrow(/mongodb\.hosts is empty[\s\S]*nats\.url is empty/);
  });

  it('rejects unknown keys and wrong types through the generated schema', () => {
    expect(() => render(['ci/default-values.yaml'], ['oidc.replicas=3'])).toThrow(/replicas/);
    expect(() => render(['ci/default-values.yaml'], ['oidc.replicaCount=two'])).toThrow(/replicaCount/);
  });

  it('README.md and values.schema.json equal the generator output (node scripts/chart-docs.js)', () => {
    const { generate } = loadCommonJs(join(repoRoot, 'scripts', 'chart-docs.js')) as {
      generate(text: string): Record<string, string>;
    };
    const files = generate(readFileSync(join(chartDir, 'values.yaml'), 'utf8'));
    for (const [name, content] of Object.entries(files))
      expect([name, readFileSync(join(chartDir, name), 'utf8') === content]).toEqual([name, true]);
  });

  it('the generator refuses an undocumented value and a @param naming no value', () => {
    const { generate } = loadCommonJs(join(repoRoot, 'scripts', 'chart-docs.js')) as {
      generate(text: string): unknown;
    };
    expect(() => generate('## @section S\n## @param a A\na: 1\nb: 2\n')).toThrow(/b has no ## @param/);
    expect(() => generate('## @section S\n## @param a A\n## @param c C\na: 1\n')).toThrow(/@param c names no value/);
  });
});

describe('NOTES.txt', () => {
  it('prints the issuer URL pattern, how to read the bootstrap admin secret, and what is missing', () => {
    const notes = renderNotes(['ci/default-values.yaml']);
    expect(notes).toContain('http://id.example.com/auth/<tenantId>');
    expect(notes).toContain(
      "kubectl get secret --namespace idp idp-bootstrap-admin \\\n                    -o jsonpath='{.data.client-secret}' | base64 -d",
    );
    expect(notes).toMatch(/WHAT IS MISSING[\s\S]*TLS: ingress\.tls\.enabled=false/);
    const ha = renderNotes(['ci/ha-values.yaml']);
    expect(ha).toContain('https://id.example.com/auth/<tenantId>');
    expect(ha).not.toContain('TLS: ingress.tls.enabled=false');
  });
});

describe('helm test pods', () => {
  it("fetch a tenant's discovery document from oidc and management's /readyz", () => {
    const objs = objectsOf('default-values.yaml');
    const tests = byKind(objs, 'Pod');
    expect(tests.map((p) => p.metadata.annotations?.['helm.sh/hook'])).toEqual(['test', 'test']);
    const envOf = (p: K8sObject) => Object.fromEntries(p.spec!.containers![0].env!.map((e) => [e.name, e.value]));
    const discovery = envOf(tests.find((p) => /discovery/.test(p.metadata.name)) as K8sObject);
    expect(discovery.DISCOVERY_URL).toBe('http://idp-oidc:80/auth/1/.well-known/openid-configuration');
    expect(discovery.EXPECTED_ISSUER).toBe('http://id.example.com/auth/1');
    expect(envOf(tests.find((p) => /management/.test(p.metadata.name)) as K8sObject).READYZ_URL).toBe(
      'http://idp-management:80/readyz',
    );
    const services = byKind(objs, 'Service').map((s) => s.metadata.name);
    expect(services).toEqual(expect.arrayContaining(['idp-oidc', 'idp-management']));
  });
});
