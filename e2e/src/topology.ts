/**
 * The whole system as separate processes, each started exactly as its container: the same entry file
 * (services/<name>/dist/main.js) and the same environment variables the chart sets. The dev router stands in
 * for the ingress. Used by `npm start` and by the e2e tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { freePort, repoRoot, waitForPort } from '@idp/testing';
import { startDevRouter } from './dev-router';
import { groupOption, killOnExit } from './own-process-group';
import { loadRouteTable } from './route-table';

export type ServiceName = 'oidc-core' | 'nhe-delegation' | 'management' | 'audit-writer' | 'signals';

export interface Secrets {
  keyEncryptionKey: string;
  clientSecretPepper: string;
  cookieKeys: string;
  sidecarSecret: string;
  bootstrapAdminClientId: string;
  bootstrapAdminClientSecret: string;
}

export interface TopologyOptions {
  mongoUri: string;
  natsUrl: string;
  /** Router port; 0 picks a free one. */
  routerPort?: number;
  /** Address the router binds (default 127.0.0.1). */
  routerHost?: string;
  /**
   * Public origin every service is configured with (PUBLIC_BASE_URL), as `npm start` takes it; default
   * `http://127.0.0.1:{routerPort}`. An https origin makes the router forward X-Forwarded-Proto https.
   */
  publicBaseUrl?: string;
  /** PEM certificate (chain) and key the router terminates TLS with (dev-tls.ts); plain http without it. */
  tls?: { cert: string; key: string };
  logLevel?: string;
  secrets?: Partial<Secrets>;
  /** Inherit the services' stdout/stderr (the dev command) or drop it (tests). */
  stdio?: 'inherit' | 'ignore';
  systemTenantId?: number;
  /** Extra environment per service (test knobs such as LOGOUT_PROMPT_SECONDS); wins over the defaults. */
  extraEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Each service in a process group of its own (`npm start`: own-process-group.ts). */
  ownProcessGroup?: boolean;
}

export interface RunningService {
  name: ServiceName;
  port: number;
  env: Record<string, string>;
  process: ChildProcess;
}

export interface Topology {
  baseUrl: string;
  secrets: Secrets;
  systemTenantId: number;
  services: Record<ServiceName, RunningService>;
  /** Stops one service (SIGTERM) and waits for it to exit. */
  stopService: (name: ServiceName) => Promise<void>;
  /** Starts a stopped service again with the same environment. */
  startService: (name: ServiceName) => Promise<void>;
  /** Runs the audit-retention job once (as the CronJob would) and resolves with its exit code and output. */
  runRetention: (args?: string[]) => Promise<{ code: number; output: string }>;
  stop: () => Promise<void>;
}

const secret = () => randomBytes(32).toString('base64url');

export function entry(name: string): string {
  return join(repoRoot(), 'services', name, 'dist', 'main.js');
}

export async function waitReady(port: number, child: ChildProcess, name: string, timeoutMs = 30_000): Promise<void> {
  await waitForPort(port, timeoutMs, child);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** SIGTERM, then SIGKILL once `graceMs` has passed, as the kubelet does after terminationGracePeriodSeconds. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      res();
    });
    child.kill('SIGTERM');
  });
}

/** Fresh secrets, with those given kept. */
export function topologySecrets(given: Partial<Secrets> = {}): Secrets {
  return {
    keyEncryptionKey: secret(),
    clientSecretPepper: secret(),
    cookieKeys: `${secret()},${secret()}`,
    sidecarSecret: secret(),
    bootstrapAdminClientId: 'bootstrap-admin',
    bootstrapAdminClientSecret: secret(),
    ...given,
  };
}

/**
 * The container environment of every service (what the chart sets), for one pod's worth of ports: the HA topology
 * (ha/ha-topology.ts) calls it once per replica so replicas differ only in their ports.
 */
export function serviceEnvs(
  o: Pick<TopologyOptions, 'mongoUri' | 'natsUrl' | 'logLevel' | 'extraEnv'>,
  secrets: Secrets,
  ports: Record<ServiceName, number>,
  baseUrl: string,
  systemTenantId: number,
): Record<ServiceName, Record<string, string>> {
  const common = {
    LOG_LEVEL: o.logLevel ?? 'warn',
    MONGODB_URI: o.mongoUri,
    NATS_URL: o.natsUrl,
    NODE_ENV: 'production',
  };
  const envs: Record<ServiceName, Record<string, string>> = {
    'nhe-delegation': {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(ports['nhe-delegation']),
      PUBLIC_BASE_URL: baseUrl,
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      SIDECAR_SECRET: secrets.sidecarSecret,
    },
    'oidc-core': {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(ports['oidc-core']),
      PUBLIC_BASE_URL: baseUrl,
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      CLIENT_SECRET_PEPPER: secrets.clientSecretPepper,
      COOKIE_KEYS: secrets.cookieKeys,
      SIDECAR_URL: `http://127.0.0.1:${ports['nhe-delegation']}`,
      SIDECAR_SECRET: secrets.sidecarSecret,
      TRUST_PROXY: 'true',
      // The dev router is the one hop in front, as the ingress controller is in the chart (trustProxyHops 1).
      TRUST_PROXY_HOPS: '1',
    },
    management: {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(ports.management),
      PUBLIC_BASE_URL: baseUrl,
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      CLIENT_SECRET_PEPPER: secrets.clientSecretPepper,
      SYSTEM_TENANT_ID: String(systemTenantId),
      BOOTSTRAP_ADMIN_CLIENT_ID: secrets.bootstrapAdminClientId,
      BOOTSTRAP_ADMIN_CLIENT_SECRET: secrets.bootstrapAdminClientSecret,
      TRUST_PROXY: 'true',
    },
    'audit-writer': { ...common, HOST: '127.0.0.1', PORT: String(ports['audit-writer']) },
    signals: {
      ...common,
      HOST: '127.0.0.1',
      PORT: String(ports.signals),
      PUBLIC_BASE_URL: baseUrl,
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      TRUST_PROXY: 'true',
    },
  };
  for (const [name, extra] of Object.entries(o.extraEnv ?? {}) as Array<[ServiceName, Record<string, string>]>)
    Object.assign(envs[name], extra);
  return envs;
}

export async function startTopology(o: TopologyOptions): Promise<Topology> {
  const secrets = topologySecrets(o.secrets);
  const systemTenantId = o.systemTenantId ?? 1;
  const routerPort = o.routerPort || (await freePort());
  const baseUrl = (o.publicBaseUrl ?? `http://127.0.0.1:${routerPort}`).replace(/\/+$/, '');
  const ports = {
    'oidc-core': await freePort(),
    'nhe-delegation': await freePort(),
    management: await freePort(),
    'audit-writer': await freePort(),
    signals: await freePort(),
  };
  const envs = serviceEnvs(o, secrets, ports, baseUrl, systemTenantId);

  const services = {} as Record<ServiceName, RunningService>;
  const launch = async (name: ServiceName) => {
    const child = spawn(process.execPath, [entry(name)], {
      env: { PATH: process.env.PATH ?? '', ...envs[name] },
      stdio: ['ignore', o.stdio ?? 'ignore', o.stdio ?? 'ignore'],
      ...groupOption(o.ownProcessGroup),
    });
    if (o.ownProcessGroup) killOnExit(child);
    services[name] = { name, port: ports[name], env: envs[name], process: child };
    await waitReady(ports[name], child, name);
  };

  let router: Server | undefined;
  const stop = async () => {
    await new Promise<void>((r) => (router ? router.close(() => r()) : r()));
    router?.closeAllConnections();
    await Promise.all(Object.values(services).map((s) => stopChild(s.process)));
  };
  try {
    // Management first: it creates indexes and bootstraps the system tenant.
    await launch('management');
    await Promise.all([launch('audit-writer'), launch('nhe-delegation'), launch('oidc-core'), launch('signals')]);
    router = await startDevRouter(
      loadRouteTable(repoRoot()),
      { oidc: ports['oidc-core'], management: ports.management, signals: ports.signals },
      routerPort,
      {
        host: o.routerHost,
        tls: o.tls,
        forwardedProto: new URL(baseUrl).protocol === 'https:' ? 'https' : 'http',
      },
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    baseUrl,
    secrets,
    systemTenantId,
    services,
    stopService: (name) => stopChild(services[name].process),
    startService: (name) => launch(name),
    runRetention: (args = []) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [entry('audit-retention'), ...args], {
          env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', MONGODB_URI: o.mongoUri },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout.on('data', (d: Buffer) => (output += d.toString()));
        child.stderr.on('data', (d: Buffer) => (output += d.toString()));
        child.on('exit', (code) => resolve({ code: code ?? 1, output }));
      }),
    stop,
  };
}
