/**
 * What a container of a Pod held by the API server would see, resolved the way the kubelet resolves it, for running
 * the container's program as a local process: its env (value with $(VAR) expansion, valueFrom secretKeyRef /
 * configMapKeyRef / fieldRef, envFrom) and its mounted files (secret, configMap, projected and downwardAPI volumes,
 * the ServiceAccount token from the TokenRequest API) written under a local directory, the mount paths in env
 * values rewritten to that directory. Read from the live Secrets and ConfigMaps of the API server.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KubeControlPlane } from './kube-control-plane';

interface KeyToPath {
  key: string;
  path: string;
}
interface SourceRef {
  name: string;
  optional?: boolean;
}
interface KeySelector extends SourceRef {
  key: string;
}
interface DownwardItem {
  path: string;
  fieldRef: { fieldPath: string };
}
interface StoredVolume {
  name: string;
  secret?: { secretName: string; optional?: boolean; items?: KeyToPath[] };
  configMap?: SourceRef & { items?: KeyToPath[] };
  projected?: {
    sources?: Array<{
      secret?: SourceRef & { items?: KeyToPath[] };
      configMap?: SourceRef & { items?: KeyToPath[] };
      serviceAccountToken?: { audience?: string; expirationSeconds?: number; path: string };
      downwardAPI?: { items?: DownwardItem[] };
    }>;
  };
  downwardAPI?: { items?: DownwardItem[] };
  emptyDir?: object;
}
interface StoredContainer {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  volumeMounts?: Array<{ name: string; mountPath: string; subPath?: string }>;
  envFrom?: Array<
    { prefix?: string } & (
      { secretRef: SourceRef; configMapRef?: never } | { secretRef?: never; configMapRef: SourceRef }
    )
  >;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: KeySelector; configMapKeyRef?: KeySelector; fieldRef?: { fieldPath: string } };
  }>;
}

/**
 * The parts of a Pod that this resolver and the tests read, as the API server stores a Pod: name, namespace and uid
 * set, every container with its image, each volume and env source of one of the kinds the API accepts, a status.
 */
export interface StoredPod {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: Array<{ kind: string; name: string }>;
    deletionTimestamp?: string;
  };
  spec: {
    serviceAccountName?: string;
    nodeName?: string;
    volumes?: StoredVolume[];
    containers: StoredContainer[];
  };
  status: {
    phase?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
  };
}

export type StoredPodSpec = StoredPod['spec'];

/** A list the API server answers with. */
export interface KubeList<T> {
  items: T[];
}

/** What the tests read of a Deployment, CronJob or Job as the API server or `helm get hooks` gives it. */
export interface StoredDeployment {
  metadata: { name: string };
  spec: { replicas?: number; selector: { matchLabels: Record<string, string> }; template: { spec: StoredPodSpec } };
}
export interface StoredJob {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    labels?: Record<string, string>;
    ownerReferences?: Array<{ kind: string; name: string; uid: string; controller?: boolean }>;
  };
  spec: { template: { spec: StoredPodSpec } };
}
export interface StoredCronJob {
  metadata: {
    name: string;
    uid: string;
    annotations?: Record<string, string>;
    managedFields?: Array<{ manager: string }>;
  };
  spec: {
    schedule: string;
    suspend?: boolean;
    successfulJobsHistoryLimit?: number;
    jobTemplate: { metadata?: { labels?: Record<string, string> }; spec: StoredJob['spec'] };
  };
}

export interface ResolvedContainer {
  name: string;
  image: string;
  command: string[];
  args: string[];
  /** The env the kubelet would give the process, mount paths rewritten to local paths. */
  env: Record<string, string>;
  /** mountPath (in the container) → local directory or file. */
  mounts: Record<string, string>;
  /** The ServiceAccount token mounted into the container, when one is. */
  serviceAccountToken?: string;
}

/** Kubernetes' $(VAR) expansion: $(NAME) of a variable defined earlier; $$ is a literal $; anything else stays. */
export function expandEnv(value: string, env: Partial<Record<string, string>>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m, name: string | undefined) => {
    if (m === '$$') return '$';
    return (name === undefined ? undefined : env[name]) ?? m;
  });
}

export async function resolvePodContainers(
  cp: KubeControlPlane,
  pod: StoredPod,
  root: string,
): Promise<ResolvedContainer[]> {
  const ns = pod.metadata.namespace;
  const cache = new Map<string, Record<string, string> | undefined>();
  const read = async (
    kind: 'secrets' | 'configmaps',
    name: string,
    optional?: boolean,
  ): Promise<Record<string, string> | undefined> => {
    const key = `${kind}/${name}`;
    if (!cache.has(key)) {
      // A Secret's or ConfigMap's data (base64 in a Secret), or the API's Status with a message.
      const res = await cp.api<{ data?: Record<string, string>; message?: string } | undefined>(
        'GET',
        `/api/v1/namespaces/${ns}/${kind}/${name}`,
      );
      if (res.status === 404 && optional) cache.set(key, undefined);
      else if (res.status !== 200)
        throw new Error(`${pod.metadata.name}: ${kind} ${name}: ${res.status} ${res.body?.message ?? ''}`);
      else {
        const o = res.body;
        const data: Record<string, string> = {};
        if (kind === 'secrets')
          for (const [k, v] of Object.entries(o?.data ?? {})) data[k] = Buffer.from(v, 'base64').toString('utf8');
        else Object.assign(data, o?.data ?? {});
        cache.set(key, data);
      }
    }
    return cache.get(key);
  };
  const field = (path: string): string => {
    const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
    if (m) return pod.metadata[m[1] as 'labels' | 'annotations']?.[m[2]] ?? '';
    switch (path) {
      case 'metadata.namespace':
        return ns;
      case 'metadata.name':
        return pod.metadata.name;
      case 'metadata.uid':
        return pod.metadata.uid;
      case 'spec.serviceAccountName':
        return pod.spec.serviceAccountName ?? '';
      case 'spec.nodeName':
        return pod.spec.nodeName ?? '';
      case 'status.podIP':
      case 'status.hostIP':
        return '127.0.0.1';
      default:
        throw new Error(`${pod.metadata.name}: fieldRef ${path} is not resolved by this test helper`);
    }
  };
  let tokenCache: string | undefined;
  const token = async (audience?: string, expirationSeconds?: number): Promise<string> => {
    if (audience === undefined && tokenCache) return tokenCache;
    // The TokenRequest with its token, or the API's Status with a message (or nothing).
    const res = await cp.api<{ status?: { token: string }; message?: string } | undefined>(
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/${pod.spec.serviceAccountName ?? 'default'}/token`,
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          ...(audience ? { audiences: [audience] } : {}),
          expirationSeconds: Math.max(expirationSeconds ?? 3600, 600),
          boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, uid: pod.metadata.uid },
        },
      },
    );
    if (res.status !== 201)
      throw new Error(`${pod.metadata.name}: TokenRequest: ${res.status} ${res.body?.message ?? ''}`);
    const created = res.body as { status: { token: string } }; // a 201 answer is the TokenRequest, token included
    if (audience === undefined) tokenCache = created.status.token;
    return created.status.token;
  };

  // Volumes, each written into a directory of its own.
  const volumes = new Map<string, { dir: string; token?: string }>();
  const writeItems = (
    dir: string,
    data: Partial<Record<string, string>>,
    items?: Array<{ key: string; path: string }>,
  ) => {
    for (const { key, path } of items ?? Object.keys(data).map((k) => ({ key: k, path: k }))) {
      const value = data[key];
      if (value === undefined) throw new Error(`${pod.metadata.name}: key ${key} missing`);
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), value, { mode: 0o600 });
    }
  };
  for (const v of pod.spec.volumes ?? []) {
    const dir = join(root, 'volumes', v.name);
    mkdirSync(dir, { recursive: true });
    const entry: { dir: string; token?: string } = { dir };
    if (v.secret) {
      const data = await read('secrets', v.secret.secretName, v.secret.optional);
      if (data) writeItems(dir, data, v.secret.items);
    } else if (v.configMap) {
      const data = await read('configmaps', v.configMap.name, v.configMap.optional);
      if (data) writeItems(dir, data, v.configMap.items);
    } else if (v.projected) {
      for (const s of v.projected.sources ?? []) {
        if (s.secret) {
          const data = await read('secrets', s.secret.name, s.secret.optional);
          if (data) writeItems(dir, data, s.secret.items);
        } else if (s.configMap) {
          const data = await read('configmaps', s.configMap.name, s.configMap.optional);
          if (data) writeItems(dir, data, s.configMap.items);
        } else if (s.serviceAccountToken) {
          entry.token = await token(s.serviceAccountToken.audience, s.serviceAccountToken.expirationSeconds);
          writeItems(dir, { t: entry.token }, [{ key: 't', path: s.serviceAccountToken.path }]);
        } else if (s.downwardAPI) {
          for (const it of s.downwardAPI.items ?? [])
            writeItems(dir, { v: field(it.fieldRef.fieldPath) }, [{ key: 'v', path: it.path }]);
        } else {
          throw new Error(
            `${pod.metadata.name}: projected source ${Object.keys(s).join()} is not resolved by this test helper`,
          );
        }
      }
    } else if (v.downwardAPI) {
      for (const it of v.downwardAPI.items ?? [])
        writeItems(dir, { v: field(it.fieldRef.fieldPath) }, [{ key: 'v', path: it.path }]);
    } else if (!v.emptyDir) {
      throw new Error(
        `${pod.metadata.name}: volume ${v.name} (${Object.keys(v).join()}) is not resolved by this test helper`,
      );
    }
    volumes.set(v.name, entry);
  }

  const out: ResolvedContainer[] = [];
  for (const c of pod.spec.containers) {
    const mounts: Record<string, string> = {};
    let serviceAccountToken: string | undefined;
    for (const m of c.volumeMounts ?? []) {
      const v = volumes.get(m.name);
      if (!v) throw new Error(`${pod.metadata.name}/${c.name}: mount of unknown volume ${m.name}`);
      mounts[m.mountPath] = m.subPath ? join(v.dir, m.subPath) : v.dir;
      if (v.token) serviceAccountToken = v.token;
    }
    const env: Record<string, string> = {};
    for (const ef of c.envFrom ?? []) {
      const data = ef.secretRef
        ? await read('secrets', ef.secretRef.name, ef.secretRef.optional)
        : await read('configmaps', ef.configMapRef.name, ef.configMapRef.optional);
      for (const [k, v] of Object.entries(data ?? {})) env[`${ef.prefix ?? ''}${k}`] = v;
    }
    for (const e of c.env ?? []) {
      if (e.valueFrom === undefined) {
        env[e.name] = expandEnv(e.value ?? '', env);
        continue;
      }
      const f = e.valueFrom;
      let v: string | undefined;
      if (f.secretKeyRef)
        v = (await read('secrets', f.secretKeyRef.name, f.secretKeyRef.optional))?.[f.secretKeyRef.key];
      else if (f.configMapKeyRef)
        v = (await read('configmaps', f.configMapKeyRef.name, f.configMapKeyRef.optional))?.[f.configMapKeyRef.key];
      else if (f.fieldRef) v = field(f.fieldRef.fieldPath);
      else
        throw new Error(
          `${pod.metadata.name}/${c.name}: env ${e.name} (${Object.keys(f).join()}) is not resolved by this test helper`,
        );
      if (v === undefined && !(f.secretKeyRef?.optional || f.configMapKeyRef?.optional))
        throw new Error(`${pod.metadata.name}/${c.name}: env ${e.name}: key missing`);
      if (v !== undefined) env[e.name] = v;
    }
    // Paths into mounted volumes → the local copies (longest mount path first).
    const paths = Object.keys(mounts).sort((a, b) => b.length - a.length);
    for (const [k, v] of Object.entries(env)) {
      const mp = paths.find((p) => v === p || v.startsWith(`${p.replace(/\/+$/, '')}/`));
      if (mp) env[k] = mounts[mp] + v.slice(mp.length);
    }
    out.push({
      name: c.name,
      image: c.image,
      command: c.command ?? [],
      args: c.args ?? [],
      env,
      mounts,
      ...(serviceAccountToken ? { serviceAccountToken } : {}),
    });
  }
  return out;
}
