/**
 * `npm run kube:local`: starts the local Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager;
 * e2e/src/kube-control-plane.ts) on loopback and prints an admin kubeconfig path, for trying `helm install` of
 * charts/idp by hand. An API server without nodes: objects are validated and admitted (RBAC, Pod Security), the
 * controllers create ReplicaSets, Pods and Jobs, but no Pod ever runs. Ctrl-C stops it and removes its data.
 */
import { relative } from 'node:path';
import { repoRoot } from '@idp/testing';
import { missingKubeTools, startKubeControlPlane } from './kube-control-plane';

async function main(): Promise<void> {
  if (missingKubeTools().length > 0) {
    process.stderr.write('kube:local: building the control plane first (scripts/tools.sh kube)...\n');
    const { execFileSync } = await import('node:child_process');
    execFileSync('bash', [`${repoRoot()}/scripts/tools.sh`, 'kube', 'helm'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
  // Until the handlers below take over, a signal exits (the control plane's exit hook kills what was started).
  const early = () => process.exit(130);
  process.once('SIGINT', early);
  process.once('SIGTERM', early);
  const started = Date.now();
  const cp = await startKubeControlPlane({ timeoutMs: 120_000, inheritLogs: !!process.env.KUBE_LOGS });
  const helm = relative(process.cwd(), `${repoRoot()}/.tools/bin/helm`) || '.tools/bin/helm';
  process.stdout.write(
    [
      `Kubernetes ${cp.version} control plane ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${cp.server}`,
      '(an API server without nodes: Pods are admitted but never run)',
      '',
      `  export KUBECONFIG=${cp.kubeconfigPath}`,
      '',
      'for example:',
      `  ${helm} install idp charts/idp -n idp --create-namespace -f charts/idp/ci/default-values.yaml --no-hooks`,
      `  ${helm} status idp -n idp`,
      '',
      `logs: ${cp.dir}/*.log   Ctrl-C stops it and removes ${cp.dir}`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('\nstopping...\n');
    cp.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.removeListener('SIGINT', early);
  process.removeListener('SIGTERM', early);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`kube:local: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
