/**
 * The stream hook job's script (charts/idp/files/nats-stream.js), run as the rendered Job runs it: node with
 * NODE_PATH pointing at the installed packages, the Job's env (NATS_URL with the credentials Kubernetes puts into
 * each server URL), against a real nats-server with JetStream and user/password authentication.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { connectNats } from '@idp/events';
import type { Logger } from '@idp/logger';
import { freePort, toolPath, waitForPort } from '../../../libs/testing/src/infra';
import { ifAssigned } from '../../src/if-assigned';
import { byKind, chartDir, component, K8sObject, podSpecOf, render, repoRoot } from './render';

/** Loads the chart's and the scripts' CommonJS files (plain JavaScript outside the TypeScript project) by path. */
const loadCommonJs = createRequire(__filename);

const USER = 'idp';
const PASSWORD = 'hook-test-password-0123456789abcdef';

let server: ChildProcess;
let port: number;
let dataDir: string;

beforeAll(async () => {
  port = await freePort();
  dataDir = mkdtempSync(join(tmpdir(), 'idp-hook-nats-'));
  server = spawn(
    toolPath('nats-server'),
    ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dataDir, '--user', USER, '--pass', PASSWORD],
    { stdio: 'ignore' },
  );
  await waitForPort(port, 20_000, server);
});

afterAll(async () => {
  const started = ifAssigned(server);
  if (started && started.exitCode === null) {
    const exited = new Promise((resolve) => started.once('exit', resolve));
    started.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The stream Job's container env, with Kubernetes' $(VAR) expansion and the server replaced by the local one. */
function jobEnv(valuesFile: string, password = PASSWORD): Record<string, string> {
  const job = byKind(render([valuesFile]), 'Job').find((j) => component(j) === 'nats-stream') as K8sObject;
  const env: Record<string, string> = {};
  for (const e of podSpecOf(job)!.containers[0].env as Array<{ name: string; value?: string; valueFrom?: unknown }>) {
    if (e.valueFrom) env[e.name] = e.name === 'NATS_PASSWORD' ? password : 'unused';
    else env[e.name] = String(e.value).replace(/\$\(([A-Z_]+)\)/g, (w, n: string) => env[n] ?? w);
  }
  // Every server of the list becomes the local one (same credentials, same scheme).
  env.NATS_URL = env.NATS_URL.split(',')
    .map((u) => u.replace(/@[^,]+$/, `@127.0.0.1:${port}`))
    .join(',');
  return env;
}

function runScript(env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(chartDir, 'files', 'nats-stream.js')], {
    env: { PATH: process.env.PATH ?? '', ...env, NODE_PATH: join(repoRoot, 'node_modules') },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('nats-stream hook script', () => {
  it('creates IDP_AUDIT with the settings of the rendered Job, authenticating with the URL credentials', () => {
    const env = jobEnv('ci/default-values.yaml');
    expect(env.NATS_URL).toBe(`nats://${USER}:${PASSWORD}@127.0.0.1:${port}`);
    expect(env.NODE_PATH).toBe('/app/node_modules');
    // The chart's default is a 3-node JetStream cluster (DESIGN.md); the local nats-server here is a single node.
    expect(env.AUDIT_STREAM_REPLICAS).toBe('3');
    const r = runScript({ ...env, AUDIT_STREAM_REPLICAS: '1' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual({
      stream: 'IDP_AUDIT',
      subjects: ['idp.audit.nhe.issued.*', 'idp.audit.dead-letter'],
      replicas: 1,
      duplicateWindowSeconds: 120,
      maxAgeSeconds: 604800,
      storage: 'file',
    });
  });

  it('updates the existing stream on a second run (idempotent, as on helm upgrade)', () => {
    const env = {
      ...jobEnv('ci/default-values.yaml'),
      AUDIT_STREAM_REPLICAS: '1',
      AUDIT_STREAM_MAX_AGE_SECONDS: '86400',
      AUDIT_DUPLICATE_WINDOW_SECONDS: '300',
    };
    const r = runScript(env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ maxAgeSeconds: 86400, duplicateWindowSeconds: 300 });
  });

  it('fails (non-zero, one clear line) with a wrong password or a bad setting, so the hook fails the install', () => {
    const bad = runScript(jobEnv('ci/default-values.yaml', 'wrong-password'));
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/^stream setup failed: .*(authorization|Authorization)/);
    const badSetting = runScript({ ...jobEnv('ci/default-values.yaml'), AUDIT_STREAM_REPLICAS: 'three' });
    expect(badSetting.status).toBe(1);
    expect(badSetting.stderr).toBe('stream setup failed: AUDIT_STREAM_REPLICAS must be a positive integer\n');
  });

  it('takes the credentials out of the server URLs (nats.js ignores user:password in a URL)', () => {
    const { natsOptions } = loadCommonJs(join(chartDir, 'files', 'nats-stream.js')) as {
      natsOptions(url: string): unknown;
    };
    expect(natsOptions('nats://idp:p%40ss@a:4222,nats://idp:p%40ss@b:4222')).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'idp',
      pass: 'p@ss',
    });
    expect(natsOptions('tls://nats.nats.svc:4222')).toEqual({ servers: ['tls://nats.nats.svc:4222'], tls: {} });
  });
});

describe('services connecting with the NATS_URL the chart sets', () => {
  const quiet = {
    warn() {},
    info() {},
    error() {},
    debug() {},
    child() {
      return quiet;
    },
  } as unknown as Logger;
  // nats.js ignores credentials in a URL; connectNats takes them out (natsConnectionOptions), as files/nats-stream.js does.
  it('connectNats (@idp/events) signs in with the user and password in NATS_URL', async () => {
    const handle = await connectNats(jobEnv('ci/default-values.yaml').NATS_URL, quiet, 'chart-test');
    await handle.close();
  });
});
