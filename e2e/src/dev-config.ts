/**
 * The environment of `npm start` (e2e/src/dev.ts): where the system is reached from outside and how the dev router
 * serves it. The default is plain http on 127.0.0.1:8080. An https PUBLIC_BASE_URL makes the router terminate TLS
 * with the certificate it is given (TLS_CERT_FILE / TLS_KEY_FILE) or, without one, a certificate for loopback that
 * it issues at start-up from a local CA kept under TLS_DIR (dev-tls.ts). MONGODB_URI and NATS_URL are read by
 * local-infra.ts.
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ConfigError, loadConfig, z, type Env } from '@idp/config';

export const devConfigSchema = z.object({
  /** Public origin (scheme://host[:port]) users and clients reach the system at; every issuer is `{PUBLIC_BASE_URL}/auth/{tenantId}`. Default `http://127.0.0.1:{PUBLIC_PORT}`. */
  PUBLIC_BASE_URL: z
    .string()
    .refine(isOrigin, 'must be an http(s) origin (scheme://host[:port]) without path, query, fragment or credentials')
    .optional(),
  /** Port the dev router listens on. Default: the port of PUBLIC_BASE_URL (its scheme's default when it names none), else 8080. */
  PUBLIC_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Address the dev router binds to (0.0.0.0 to let containers such as the conformance suite reach it). */
  BIND_ADDRESS: z.string().min(1).default('127.0.0.1'),
  /** `auto`: the router serves TLS when PUBLIC_BASE_URL is https. `off`: it serves plain http behind something that terminates TLS for the public URL (a tunnel); it still forwards X-Forwarded-Proto https. */
  ROUTER_TLS: z.enum(['auto', 'off']).default('auto'),
  /** PEM certificate (chain) the router serves for an https PUBLIC_BASE_URL; without it a loopback certificate is issued at start-up. */
  TLS_CERT_FILE: z.string().min(1).optional(),
  /** PEM private key of TLS_CERT_FILE. */
  TLS_KEY_FILE: z.string().min(1).optional(),
  /** Folder of the generated local CA and certificate (kept between runs, so the CA is trusted once). Default `.tools/dev-tls` in the repository. */
  TLS_DIR: z.string().min(1).optional(),
  /** `single`: one process per service on one nats-server. `ha`: the HA topology (e2e/src/ha): a 3-node JetStream cluster, two replicas of every workload behind a round-robin router. */
  IDP_TOPOLOGY: z.enum(['single', 'ha']).default('single'),
  /** Log level of every service. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
});

/** How the dev router serves: plain http, a certificate given in files, or one issued for loopback at start-up. */
export type DevTls =
  | { kind: 'none' }
  | { kind: 'given'; certFile: string; keyFile: string }
  | { kind: 'generated'; dir: string; hosts: string[] };

export interface DevConfig {
  /** The origin every service is configured with (oidc-core's and management's PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  listenPort: number;
  bindAddress: string;
  tls: DevTls;
  logLevel: z.infer<typeof devConfigSchema>['LOG_LEVEL'];
  topology: 'single' | 'ha';
}

/** Host names and addresses a generated certificate always covers. */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'] as const;

export const DEFAULT_PORT = 8080;

/** Parses the environment of `npm start`; throws ConfigError naming the keys at fault. */
export function readDevConfig(env: Env, repoRoot: string): DevConfig {
  const c = loadConfig(devConfigSchema, env);
  const problems: string[] = [];
  if (!c.TLS_CERT_FILE !== !c.TLS_KEY_FILE) problems.push('TLS_CERT_FILE and TLS_KEY_FILE: set both or neither');

  const publicBaseUrl = (c.PUBLIC_BASE_URL ?? `http://127.0.0.1:${c.PUBLIC_PORT ?? DEFAULT_PORT}`).replace(/\/+$/, '');
  const url = new URL(publicBaseUrl);
  const https = url.protocol === 'https:';
  const listenPort = c.PUBLIC_PORT ?? (c.PUBLIC_BASE_URL ? Number(url.port || (https ? 443 : 80)) : DEFAULT_PORT);

  let tls: DevTls = { kind: 'none' };
  if (c.TLS_CERT_FILE && !https)
    problems.push('TLS_CERT_FILE: the router serves TLS only for an https PUBLIC_BASE_URL');
  else if (c.TLS_CERT_FILE && c.ROUTER_TLS === 'off')
    problems.push('TLS_CERT_FILE: ROUTER_TLS=off serves plain http, the certificate would not be used');
  else if (https && c.ROUTER_TLS === 'auto') {
    tls =
      c.TLS_CERT_FILE && c.TLS_KEY_FILE
        ? { kind: 'given', certFile: c.TLS_CERT_FILE, keyFile: c.TLS_KEY_FILE }
        : {
            kind: 'generated',
            dir: c.TLS_DIR ?? join(repoRoot, '.tools', 'dev-tls'),
            hosts: [...new Set<string>([...LOOPBACK_HOSTS, bareHost(url.hostname)])],
          };
  }
  if (c.IDP_TOPOLOGY === 'ha' && https)
    problems.push('IDP_TOPOLOGY=ha: the HA router serves plain http; use an http PUBLIC_BASE_URL');
  if (problems.length) throw new ConfigError(problems);
  return {
    publicBaseUrl,
    listenPort,
    bindAddress: c.BIND_ADDRESS,
    tls,
    logLevel: c.LOG_LEVEL,
    topology: c.IDP_TOPOLOGY,
  };
}

/** `[::1]` (as URL.hostname writes an IPv6 address) → `::1`. */
function bareHost(hostname: string): string {
  const inner = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(inner) ? inner : hostname;
}

/** An http(s) URL that is an origin only (oidc-core refuses anything else as PUBLIC_BASE_URL). */
function isOrigin(value: string): boolean {
  let u: URL;
  try {
    u = new URL(value.replace(/\/+$/, ''));
  } catch {
    return false;
  }
  return (
    (u.protocol === 'http:' || u.protocol === 'https:') &&
    u.pathname === '/' &&
    !u.search &&
    !u.hash &&
    !u.username &&
    !u.password &&
    !/[?#]/.test(value)
  );
}
