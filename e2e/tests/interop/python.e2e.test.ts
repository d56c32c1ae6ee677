/**
 * Interoperability with another language's stock libraries: e2e/interop/python/interop.py drives the
 * running system with Authlib, joserfc and requests, installed from PyPI at pinned versions and hashes by
 * `scripts/tools.sh python-interop` into .tools/python-interop (scripts/test.sh runs it first; so does this file,
 * a no-op when current). The clients it uses are created here through the management API, as an operator would.
 * One jest test per check the program prints: discovery, code + PKCE, ID token, UserInfo, refresh rotation,
 * device flow, client credentials, code flow of a delegating app, strict RFC 9068 validation of an ordinary
 * access token, token exchange, and strict RFC 9068 validation of the delegation token.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@idp/testing';
import { clientCredentialsToken } from '../../src/clients/browserless-login';
import { startHarness, type Harness } from '../../src/harness';
import { ifAssigned } from '../../src/if-assigned';

const PROGRAM = join(repoRoot(), 'e2e', 'interop', 'python', 'interop.py');
const REQUIREMENTS = join(repoRoot(), 'e2e', 'interop', 'python', 'requirements.txt');
const PYTHON = join(repoRoot(), '.tools', 'python-interop', 'bin', 'python');
const REDIRECT = 'http://127.0.0.1:8400/callback';
const CHECKS = [
  'discovery',
  'code-pkce',
  'id-token',
  'userinfo',
  'refresh-rotation',
  'device-flow',
  'client-credentials',
  'delegation-login',
  'rfc9068-access-token',
  'token-exchange',
  'rfc9068-delegation-token',
] as const;

interface CheckLine {
  check: string;
  ok: boolean;
  detail?: Record<string, unknown>;
  error?: string;
  trace?: string;
}

let h: Harness;
let versions: Record<string, string> = {};
const results = new Map<string, CheckLine>();
let runOutput = '';

function runProgram(
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [PROGRAM], {
      env: { PATH: process.env.PATH ?? '', PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  execFileSync('bash', [join(repoRoot(), 'scripts', 'tools.sh'), 'python-interop'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  h = await startHarness('interop-python');
  const base = h.topology.baseUrl;
  const T = h.tenant.tenantId;
  const admin = await clientCredentialsToken(
    base,
    T,
    h.tenant.admin.clientId,
    h.tenant.admin.clientSecret,
    'urn:idp:management',
  );
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/auth/admin/tenants/${T}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${admin.access_token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as Record<string, unknown>;
  };

  // Every client the program uses is an ordinary one, created through the management API.
  await api('POST', '/clients', {
    clientId: 'py-native',
    name: 'Python native app',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: [REDIRECT],
  });
  await api('POST', '/clients', {
    clientId: 'py-device',
    name: 'Python device',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
  });
  const service = await api('POST', '/clients', {
    clientId: 'py-service',
    name: 'Python service',
    grantTypes: ['client_credentials'],
  });
  const roles = (await api('GET', '/roles')) as { items: Array<{ id: string; name: string }> };
  const clerk = roles.items.find((r) => r.name === 'orders-clerk');
  await api('PUT', `/clients/py-service/roles/${clerk!.id}`);
  const app = await api('POST', '/clients', {
    clientId: 'py-agent-app',
    name: 'Python agent app',
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'],
    redirectUris: [REDIRECT],
    config: { nhe: { delegationEnabled: true } },
  });

  const run = await runProgram(
    {
      INTEROP_ISSUER: `${base}/auth/${T}`,
      INTEROP_USERNAME: h.tenant.user.username,
      INTEROP_PASSWORD: h.tenant.user.password,
      INTEROP_REDIRECT_URI: REDIRECT,
      INTEROP_RESOURCE: h.tenant.resource,
      INTEROP_RESOURCE_SCOPE: 'orders:read',
      INTEROP_PUBLIC_CLIENT_ID: 'py-native',
      INTEROP_DEVICE_CLIENT_ID: 'py-device',
      INTEROP_SERVICE_CLIENT_ID: 'py-service',
      INTEROP_SERVICE_CLIENT_SECRET: String(service.clientSecret),
      INTEROP_DELEGATION_CLIENT_ID: 'py-agent-app',
      INTEROP_DELEGATION_CLIENT_SECRET: String(app.clientSecret),
      INTEROP_NHE_IDENTIFIER: h.tenant.nhe.identifier,
    },
    150_000,
  );
  runOutput = `exit ${run.code}\n${run.stdout}\n${run.stderr}`;
  for (const line of run.stdout.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    const parsed = JSON.parse(line) as CheckLine & { versions?: Record<string, string> };
    if (parsed.versions) versions = parsed.versions;
    else results.set(parsed.check, parsed);
  }
}, 240_000);

afterAll(async () => {
  await ifAssigned(h)?.stop();
});

test('the program ran with exactly the pinned library versions', () => {
  const pins = Object.fromEntries(
    [...readFileSync(REQUIREMENTS, 'utf8').matchAll(/^([a-z0-9-]+)==(\S+)/gim)].map((m) => [
      m[1]!.toLowerCase(),
      m[2]!,
    ]),
  );
  expect({ versions, output: Object.keys(versions).length ? undefined : runOutput }).toEqual({
    versions: {
      python: expect.stringMatching(/^3\.(1[1-9]|[2-9]\d)\./),
      authlib: pins.authlib,
      joserfc: pins.joserfc,
      requests: pins.requests,
      cryptography: pins.cryptography,
    },
    output: undefined,
  });
});

test('the program printed exactly the expected checks', () => {
  expect({ checks: [...results.keys()], output: results.size === CHECKS.length ? undefined : runOutput }).toEqual({
    checks: [...CHECKS],
    output: undefined,
  });
});

test.each(CHECKS)('%s', (name) => {
  const line = results.get(name);
  // The error (and the library's trace) is part of the comparison so a failure says what the library refused.
  expect({ check: name, ok: line?.ok, error: line?.error, trace: line?.trace }).toEqual({
    check: name,
    ok: true,
    error: undefined,
    trace: undefined,
  });
});
