/**
 * Helpers of the chart tests: run the repository's helm (.tools/bin/helm, built from its Go module by
 * scripts/tools.sh), render charts/idp and read the rendered objects.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';

export const repoRoot = join(__dirname, '../../..');
export const chartDir = join(repoRoot, 'charts', 'idp');
export const helmBin = join(repoRoot, '.tools', 'bin', 'helm');
export const RELEASE = 'idp';
export const NAMESPACE = 'idp';

interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: IPodSpec;
}

/**
 * The members of a rendered object's spec that the chart tests read, across kinds (a Pod's spec is its pod spec).
 * Each kind has only its own, so every member is optional; a test that reads one relies on its kind having it.
 */
export interface K8sSpec extends Partial<IPodSpec> {
  replicas?: number;
  selector?: { matchLabels?: Record<string, string> };
  template?: PodTemplate;
  jobTemplate?: { metadata?: { labels?: Record<string, string> }; spec: { template: PodTemplate } };
  concurrencyPolicy?: string;
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
  scaleTargetRef?: { apiVersion: string; kind: string; name: string };
  minReplicas?: number;
  ports?: Array<{ name?: string; port: number; targetPort?: number | string }>;
  podSelector?: { matchLabels?: Record<string, string> };
  policyTypes?: string[];
  egress?: Array<{ ports?: unknown[] }>;
  ingressClassName?: string;
  tls?: Array<{ hosts?: string[]; secretName?: string }>;
  rules?: Array<{
    host: string;
    http: { paths: Array<{ path: string; pathType: string; backend: { service: { name: string } } }> };
  }>;
}

/** An object of the rendered chart: the envelope, the spec members the tests read, the rest by name. */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: K8sSpec;
  data?: Record<string, string>;
  subjects?: Array<{ kind: string; name: string; namespace?: string }>;
  [k: string]: unknown;
};

export function helmAvailable(): boolean {
  return existsSync(helmBin);
}

/** helm with args; returns stdout, or throws an Error whose message is helm's stderr. */
export function helm(args: string[]): string {
  try {
    return execFileSync(helmBin, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HELM_CACHE_HOME: join(tmpdir(), 'idp-helm-cache'),
        HELM_CONFIG_HOME: join(tmpdir(), 'idp-helm-config'),
      },
    });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${e.stderr || e.stdout || e.message}`, { cause: err });
  }
}

/** `helm template` of charts/idp with values files (paths relative to the chart) and --set pairs. */
export function render(valuesFiles: string[], set: string[] = [], chart = chartDir): K8sObject[] {
  const args = ['template', RELEASE, chart, '--namespace', NAMESPACE];
  for (const f of valuesFiles) args.push('-f', join(chartDir, f));
  for (const s of set) args.push('--set', s);
  return YAML.parseAllDocuments(helm(args))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null && typeof o === 'object');
}

/** NOTES.txt rendered: helm template skips it, so a copy of the chart turns it into a ConfigMap. */
export function renderNotes(valuesFiles: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'idp-chart-'));
  try {
    const copy = join(dir, 'idp');
    cpSync(chartDir, copy, { recursive: true });
    const notes = readFileSync(join(copy, 'templates', 'NOTES.txt'), 'utf8');
    rmSync(join(copy, 'templates', 'NOTES.txt'));
    writeFileSync(
      join(copy, 'templates', '_notes-under-test.tpl'),
      `{{- define "notes-under-test" -}}\n${notes}\n{{- end -}}\n`,
    );
    writeFileSync(
      join(copy, 'templates', 'notes-under-test.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "notes-under-test" . | toJson }}\n',
    );
    const objs = YAML.parseAllDocuments(
      helm([
        'template',
        RELEASE,
        copy,
        '--namespace',
        NAMESPACE,
        '--show-only',
        'templates/notes-under-test.yaml',
        ...valuesFiles.flatMap((f) => ['-f', join(chartDir, f)]),
      ]),
    ).map((d) => d.toJS() as K8sObject);
    return objs[0].data!.notes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The pod spec of a workload (Deployment, StatefulSet, Job, CronJob, Pod), or undefined. */
export function podSpecOf(o: K8sObject): IPodSpec | undefined {
  switch (o.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'Job':
      return o.spec!.template!.spec;
    case 'CronJob':
      return o.spec!.jobTemplate!.spec.template.spec;
    case 'Pod':
      return o.spec as IPodSpec;
    default:
      return undefined;
  }
}

/** Labels the pods of a workload carry. */
export function podLabelsOf(o: K8sObject): Record<string, string> {
  switch (o.kind) {
    case 'Deployment':
    case 'StatefulSet':
    case 'Job':
      return o.spec!.template!.metadata?.labels ?? {};
    case 'CronJob':
      return o.spec!.jobTemplate!.spec.template.metadata?.labels ?? {};
    default:
      return o.metadata.labels ?? {};
  }
}

export const byKind = (objs: K8sObject[], kind: string) => objs.filter((o) => o.kind === kind);
export const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];
export const isHook = (o: K8sObject) => Boolean(o.metadata.annotations?.['helm.sh/hook']);

/** Kubernetes' matchLabels semantics. */
export const selects = (
  selector: { matchLabels?: Record<string, string> } | undefined,
  labels: Record<string, string>,
) => Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
