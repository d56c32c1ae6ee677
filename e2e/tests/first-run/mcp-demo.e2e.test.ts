/**
 * `npm start`'s MCP demo, as a new user meets it: the built dev.js started as `npm start` starts it, and the three
 * MCP steps its banner prints run exactly as printed with bash from the repository root, each with the variables of
 * the steps before it:
 * - the sample MCP server and Orders API are processes of the run, at the addresses the banner's table gives;
 * - the MCP SDK's own client, unmodified, from nothing (no client id) to a tool call: it registers itself, the tenant
 *   administrator names it an agent client of the demo NHE, the demo user signs in; the tool sees the user in `sub`
 *   and the NHE in `act`, and the kept token is an NHE delegation token for the MCP server;
 * - the user's agents page shows the agent and that token, and its Revoke form revokes it;
 * - the MCP server answers the same call with 401 invalid_token within the bound the step's title states.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { repoRoot } from '@idp/testing';
import { sh } from '../../src/dev-banner';
import { bannerSteps, bannerValue, startFirstRun, type FirstRun } from '../../src/first-run';
import { ifAssigned } from '../../src/if-assigned';

let run: FirstRun;
let steps: Array<{ title: string; command: string }>;
let mcpUrl: string;
let ordersUrl: string;
/** The MCP host step's access token ($MCP_TOKEN). */
let mcpToken = '';
/** The demo user's id, read through the management API with the demo tenant admin client the banner prints. */
let userId: string;
/** The management API's base and the demo tenant admin's token, to read the tenant's token-audit records. */
let management: { tenantUrl: string; token: string };

const bash = async (commands: string[]): Promise<{ stdout: string; stderr: string }> =>
  promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...commands].join('\n')], {
    cwd: repoRoot(),
    timeout: 90_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
  });

const step = (prefix: string) => {
  const found = steps.find((s) => s.title.startsWith(prefix));
  if (!found) throw new Error(`the banner has no step "${prefix}...":\n${run.banner}`);
  return found;
};

beforeAll(async () => {
  run = await startFirstRun();
  steps = bannerSteps(run.banner);
  mcpUrl = bannerValue(run.banner, 'MCP sample server').split(/\s+/)[0]!;
  ordersUrl = bannerValue(run.banner, 'Orders API (sample)').split(/\s+/)[0]!;
  const issuer = bannerValue(run.banner, 'Issuer (demo tenant)');
  const [adminId, adminSecret] = bannerValue(run.banner, 'Demo tenant admin client').split(' / ');
  const token = (await (
    await fetch(`${issuer}/oidc/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${adminId}:${adminSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: 'urn:idp:management' }),
    })
  ).json()) as { access_token: string };
  const username = bannerValue(run.banner, 'Demo user').split(' / ')[0]!;
  const tenantId = issuer.split('/').at(-1);
  const users = (await (
    await fetch(
      `${new URL(issuer).origin}/auth/admin/tenants/${tenantId}/users?${new URLSearchParams({ usernamePrefix: username })}`,
      { headers: { authorization: `Bearer ${token.access_token}` } },
    )
  ).json()) as { items: Array<{ id: string; username: string }> };
  userId = users.items.find((u) => u.username === username)!.id;
  management = { tenantUrl: `${new URL(issuer).origin}/auth/admin/tenants/${tenantId}`, token: token.access_token };
}, 180_000);

/**
 * Waits until the audit writer has stored the token's record: the agents page lists live tokens from the token-audit
 * records, which the audit writer stores from the event stream a moment after issuance (a person opening the page
 * in a browser is never that quick; a script run straight after the MCP host can be).
 */
async function untilAudited(jti: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${management.tenantUrl}/non-human-entities/token-audit?${new URLSearchParams({ jti })}`, {
      headers: { authorization: `Bearer ${management.token}` },
    });
    expect(res.status).toBe(200);
    if (((await res.json()) as { items: unknown[] }).items.length) return;
    if (Date.now() > deadline) throw new Error(`no token-audit record of ${jti} within 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

afterAll(async () => {
  await ifAssigned(run)?.interrupt();
});

test('the sample MCP server and Orders API run as processes of npm start, at the addresses the banner prints', async () => {
  expect(mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  expect(ordersUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/orders$/);
  for (const url of [mcpUrl, ordersUrl]) {
    const health = await fetch(`${new URL(url).origin}/healthz`);
    expect(health.status).toBe(200);
    // Each learns revocations from the demo tenant's Shared Signals transmitter.
    expect(((await health.json()) as { revocations: unknown }).revocations).not.toBeNull();
  }
  const challenge = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(challenge.status).toBe(401);
  expect(challenge.headers.get('www-authenticate')).toContain('resource_metadata=');
});

test("the MCP SDK's own client, from nothing to a tool call, as the banner prints it: the tool sees the demo user in sub and the NHE in act", async () => {
  const connect = step('Connect an MCP client');
  expect(connect.command).toMatch(/^MCP_TOKEN=\$\(/);
  const { stdout, stderr } = await bash([connect.command, 'printf "%s" "$MCP_TOKEN"']);
  mcpToken = stdout.trim();
  // It registered itself (no client id was given) and the administrator named it an agent client.
  const registered = /registered: client_id (\S+), token_endpoint_auth_method none, no secret/.exec(stderr);
  expect(registered).not.toBeNull();
  const clientId = registered![1]!;
  expect(stderr).toContain(`named ${clientId} among the agent clients of orders-agent`);
  const whoami = /tools\/call whoami: (.*)/.exec(stderr);
  expect(whoami).not.toBeNull();
  expect(JSON.parse(whoami![1]!)).toMatchObject({
    sub: userId,
    client_id: clientId,
    scope: 'mcp:tools',
    delegated: true,
    act: { sub: 'nhe:orders-agent' },
    agent: { id: 'orders-agent' },
  });
  expect(decodeJwt(mcpToken)).toMatchObject({
    aud: mcpUrl,
    sub: userId,
    act: { sub: 'nhe:orders-agent' },
    client_id: clientId,
  });
}, 90_000);

test("the user's agents page shows the delegation and revokes it; the MCP server then refuses the token within the bound the banner states", async () => {
  expect(mcpToken).not.toBe('');
  const call = step('Call the tool again');
  const bound = Number(/within (\d+) seconds/.exec(call.title)?.[1]);
  expect(bound).toBeGreaterThan(0);
  const callTool = () => bash([`MCP_TOKEN=${sh(mcpToken)}`, call.command]).then((r) => r.stdout);
  // Before the revocation the printed call works.
  const before = await callTool();
  expect(before).toMatch(/^HTTP\/1\.1 200/);
  expect(before).toContain(userId);

  await untilAudited(String(decodeJwt(mcpToken).jti));
  const ledger = step('See the delegation');
  const { stdout } = await bash([ledger.command]);
  const clientId = String(decodeJwt(mcpToken).client_id);
  expect(stdout).toContain('Agent orders-agent: llm-assistive');
  // The page names the application and the API (their registered names, the identifiers beside them).
  const live = stdout.split('\n').find((l) => l.startsWith('  token: through '));
  expect(live).toContain(clientId);
  expect(live).toContain(mcpUrl);
  expect(live).toMatch(/: mcp:tools; expires /);
  expect(stdout).toMatch(new RegExp(`You allowed its application .*${clientId}`));
  expect(stdout).toContain('Pressing "Revoke its access now');
  expect(stdout).toContain('orders-agent: Its access was revoked');
  expect(stdout).toMatch(new RegExp(`token: Revoked: through .*${clientId}`));

  const t0 = Date.now();
  let after = '';
  while (Date.now() - t0 < (bound + 2) * 1000) {
    after = await callTool();
    if (/^HTTP\/1\.1 401/.test(after)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(after).toMatch(/^HTTP\/1\.1 401/);
  expect(after).toContain('{"error":"invalid_token","error_description":"the access token has been revoked"}');
  expect(Date.now() - t0).toBeLessThan(bound * 1000);
}, 90_000);
